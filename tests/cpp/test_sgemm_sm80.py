"""CUTLASS 4.2's examples/cute/tutorial/sgemm_sm80.cu, read from the installed wheel and changed only to expose the
half_t ``gemm_tn`` host code and the kernel's partitioning code as one function of their integers (sgemm_sm80.py),
run by ``cute-verify cpp``: the file compiles in host mode, and every CuTe layout operation of the host code and of
the kernel's tiling is decided at its own line of the .cu file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cpp import sgemm_sm80
from verifier.engine.verdicts import INVALID, VALID
from verifier.run import cpp

# One thread of one CTA past the first row of threads (tid 9: its rows start ldA elements in), sizes whose offsets
# fit in int32: the exploration of every thread takes minutes (bench/bench_cpp.py).
RANGES = {**{n: (1, 4096) for n in ("m", "n", "k", "ldA", "ldB", "ldC")}, "bx": (0, 1), "by": (0, 1), "tid": (9, 9)}
ASSUME = ["bx*128 < m", "by*128 < n"]


@pytest.mark.cute
def test_sgemm_sm80_host_and_tiling(tmp_path: Path) -> None:
    src = tmp_path / "sgemm_sm80.cu"
    src.write_text(sgemm_sm80.exposed())
    lines = src.read_text().split("\n")
    r = cpp.verify_cpp(f"{src}::gemm_tn_host", RANGES, ASSUME, strict=True)
    by_line: dict[int | None, list[cpp.Finding]] = {}
    for f in r.findings:
        by_line.setdefault(f.line, []).append(f)
    # the swizzled smem atoms tiled to (bM,bK,bP) and (bN,bK,bP): valid, at the lines of the original file
    for n in (362, 363):
        assert "tile_to_shape(swizzle_atom" in lines[n - 1]
        assert [f.verdict.verdict for f in by_line[n]] == [VALID]
    # the kernel's CTA tiles: M, N, K not multiples of the tile are found at the three local_tile lines
    for n in (103, 104, 105):
        assert "local_tile(" in lines[n - 1]
        [f] = [f for f in by_line[n] if f.kind == "operation"]
        assert f.verdict.verdict == INVALID and f.verdict.counterexample is not None
        assert "DIV-EXACT" in (f.verdict.reason or "")
    # the 16-byte cp.async of A and B: found at the prologue's copies, with ldA / ldB a multiple of 8 halves as guard
    for n, ld in ((145, "ldA"), (146, "ldB")):
        assert "copy(copy_" in lines[n - 1]
        [f] = [f for f in by_line[n] if f.kind == "undefined behaviour"]
        assert f.verdict.verdict == INVALID and f.verdict.counterexample is not None
        assert f.verdict.counterexample.params[ld] % 8 != 0
        assert f.verdict.guard is not None and f.verdict.guard.condition == f"{ld} % 8 == 0"
    # the fixed variant (its can_implement assumed): every tile and copy valid
    fixed = cpp.verify_cpp(f"{src}::gemm_tn_host", RANGES, [*ASSUME, "m % 128 == 0", "n % 128 == 0", "k % 64 == 0",
                                                            "ldA % 8 == 0", "ldB % 8 == 0"], strict=True)
    for n in (103, 104, 105, 145, 146, 362, 363):
        assert [f.verdict.verdict for f in fixed.findings if f.line == n] in ([VALID], [])
    assert all(f.verdict.verdict != INVALID for f in fixed.findings)
