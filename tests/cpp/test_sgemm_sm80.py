"""CUTLASS 4.2's examples/cute/tutorial/sgemm_sm80.cu, read from the installed wheel and changed only to expose the
half_t ``gemm_tn`` host code and the kernel's partitioning code as one function of their integers (sgemm_sm80.py),
run by ``cute-verify cpp``: the file compiles in host mode, and every CuTe layout operation of the host code and of
the kernel's tiling is decided at its own line of the .cu file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cpp import sgemm_sm80
from verifier.engine.verdicts import INVALID, VALID
from verifier.oracle import cpp
from verifier.run import batch
from verifier.run.spec import load

DATA = Path(__file__).parent / "data"

# Every thread of every CTA (128 threads, as many CTAs as the tiles of M and N), sizes whose offsets fit in int32.
# The thread index stays symbolic through the swizzled smem partitions (include/cute_symbolic_swizzle.hpp): the
# only branches are the prologue's k-tile count.
RANGES = {**{n: (1, 4096) for n in ("m", "n", "k", "ldA", "ldB", "ldC")}, "bx": (0, 31), "by": (0, 31),
          "tid": (0, 127)}
ASSUME = ["bx*128 < m", "by*128 < n"]


@pytest.mark.cute
def test_sgemm_sm80_host_and_tiling(tmp_path: Path) -> None:
    src = tmp_path / "sgemm_sm80.cu"
    src.write_text(sgemm_sm80.exposed())
    lines = src.read_text().split("\n")
    r = cpp.verify_cpp(f"{src}::gemm_tn_host", RANGES, ASSUME, strict=True)
    # no decision on the block or thread index: the paths are the prologue loop's (k <= 64, <= 128, > 128)
    assert r.paths == 3 and not [f for f in r.findings if f.kind == "exploration"]
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
    assert fixed.exit_code == 0  # every finding valid, the swizzle atom's composition (line 358) included
    # the same layouts written as a spec file (data/sgemm_sm80.spec.toml): the same verdict at each line, for the
    # function as written and for the fixed variant
    spec = {res.check.name: res.verdict.verdict for res in batch.run(load([DATA / "sgemm_sm80.spec.toml"]))}
    twins = {"the swizzle atom": (r, 358, "operation"),
             "sA, sB: the swizzle atom tiled to (_128,_64,_3)": (r, 362, "operation"),
             "gA: the CTA's k-tiles of A": (r, 103, "operation"), "gB: the CTA's k-tiles of B": (r, 104, "operation"),
             "gC: the CTA's tile of C": (r, 105, "operation"),
             "copyA: the thread's 128-bit vectors of A": (r, 145, "undefined behaviour"),
             "fixed gA": (fixed, 103, "operation"), "fixed copyA": (fixed, 145, "undefined behaviour")}
    assert set(twins) == set(spec)
    for name, (report, n, kind) in twins.items():
        for line in (n, 363) if n == 362 else (n,):
            found = [f.verdict.verdict for f in report.findings if f.line == line and f.kind == kind]
            if kind == "undefined behaviour" and not found:
                found = [VALID]  # every alignment obligation of the line proved: no finding
            assert found == [spec[name]], (name, line, found, spec[name])
