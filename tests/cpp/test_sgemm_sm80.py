"""CUTLASS 4.2's examples/cute/tutorial/sgemm_sm80.cu, read from the installed wheel and changed only to expose the
half_t ``gemm_tn`` host code up to the launch (sgemm_sm80.py), run by ``cute-verify cpp``: the file compiles in host
mode (its kernel, launches and main left out), and every CuTe layout operation of the host code is decided at its
own line of the .cu file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verifier.engine.verdicts import INVALID, VALID
from verifier.run import cpp

sys.path.insert(0, str(Path(__file__).parent))
import sgemm_sm80  # noqa: E402


@pytest.mark.cute
def test_sgemm_sm80_host_code(tmp_path: Path) -> None:
    src = tmp_path / "sgemm_sm80.cu"
    src.write_text(sgemm_sm80.exposed())
    lines = src.read_text().split("\n")
    r = cpp.verify_cpp(f"{src}::gemm_tn_host", {n: (1, 65536) for n in ("m", "n", "k", "ldA", "ldB", "ldC")})
    by_line = {f.line: f for f in r.findings}
    # the swizzled smem atoms tiled to (bM,bK,bP) and (bN,bK,bP): valid, at the lines of the original file
    for n in (362, 363):
        assert "tile_to_shape(swizzle_atom" in lines[n - 1]
        assert by_line[n].verdict.verdict == VALID
    assert "composition(Swizzle<3,3,3>{}" in lines[357]
    assert 358 in by_line  # the swizzle atom's composition is recorded (the engine has no postcondition for it)
    assert all(f.verdict.verdict != INVALID for f in r.findings)
    assert r.paths == 1
