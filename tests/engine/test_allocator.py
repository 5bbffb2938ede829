"""The C allocator keeps what a deleted Z3 context frees (``solve.keep_freed_memory``, issue 28): without it, the
180 contexts of one registry example faulted 739,000 pages in again, a second of system time."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from verifier.solver.solve import keep_freed_memory

PROGRAM = textwrap.dedent("""
    import contextlib, io, resource, sys
    import verifier.solver.solve as solve
    if sys.argv[1] == "off":
        solve.keep_freed_memory = lambda: False
    from verifier.cli.app import main
    argv = ["local_tile", "(M,N):(_1,M)", "<_128,_64>", "(1,1)", "--json"]
    with contextlib.redirect_stdout(io.StringIO()):
        main(["flat_product", "(_2,_2):(_1,_2)", "(M,_2):(_1,M)", "--json"])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _faults(mode: str) -> int:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_z3_contexts_reuse_freed_memory() -> None:
    assert keep_freed_memory(), "glibc's mallopt is there on Linux"
    kept = _faults("on")
    assert kept < 100_000, kept
