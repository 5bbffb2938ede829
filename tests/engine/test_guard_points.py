"""The guard search's smallest point of a candidate (issue 28): computed for its atoms' forms, it must be the value
the scan over the admitted values finds."""

from __future__ import annotations

import random

import pytest

from verifier.core.symbols import Symbols
from verifier.engine.guards import MAX_MODULUS, _atoms, _smallest_point


@pytest.mark.parametrize("seed", range(3))
def test_the_smallest_point_is_the_scans(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(60):
        sy = Symbols()
        lo = rng.choice([0, 1, 1, 2, 5, 100, 8191])
        hi = rng.choice([None, lo, lo + 3, lo + 100, 8192, 1 << 20])
        sy.declare("X", lo=lo, hi=hi, multiple_of=rng.choice([1, 1, 2, 4, 8, 6]))
        sym = sy.lookup("X")
        assert sym is not None
        for atom in _atoms("X", sorted({rng.choice([2, 3, 4, 8, 12, 64, 128, 16384]) for _ in range(3)})):
            mine = _smallest_point(sy, ["X"], [atom], {})
            end = sym.lo + 4 * MAX_MODULUS if sym.hi is None else min(sym.hi + 1, sym.lo + 4 * MAX_MODULUS)
            first = -(-sym.lo // sym.multiple_of) * sym.multiple_of
            scan = next((v for v in range(first, end, sym.multiple_of)
                         if sym.admits(v) and atom[1].evaluate({"X": v})), None)
            assert (None if mine is None else mine["X"]) == scan, (atom[2], sy.described())
