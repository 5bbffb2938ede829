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


@pytest.mark.parametrize("seed", range(3))
def test_a_condition_true_in_the_box_holds_at_every_point_the_caps_probe(seed: int) -> None:
    """``overflow_caps`` finds no cap without probing when ``_true_in_box`` proves its conditions: each must hold
    at every integer point of the ranges, multiples or not (the bisection probes any value)."""
    from itertools import product

    from tests.support.statements import statement as _statement
    from verifier.core.errors import UndefinedBehavior
    from verifier.engine.guards import _true_in_box

    rng = random.Random(50 + seed)
    proved = 0
    for _ in range(150):
        names = ("M",) if rng.random() < 0.5 else ("M", "N")
        sy = Symbols()
        for n in names:
            lo = rng.choice([0, 1, 2])
            sy.declare(n, lo=lo, hi=lo + rng.choice([3, 15, 40]), multiple_of=rng.choice([1, 2, 4]))
        cond = _statement(rng, names)
        if cond.value is not None or not _true_in_box([cond], sy):
            continue
        proved += 1
        ranges = [range(s.lo, s.hi + 1) for s in sy if s.hi is not None]
        for point in product(*ranges):
            values = dict(zip(names, point))
            try:
                assert cond.evaluate(values), (str(cond), values)
            except UndefinedBehavior:
                raise AssertionError(f"{cond} divides by zero at {values}") from None
    assert proved > 0


def test_a_proof_carries_over_only_to_narrower_ranges() -> None:
    """Within one verdict (``same_operands``), a guard candidate's decision takes a statement proved without the
    solver over a box of ranges and moduli that holds its own (``Engine._proved_wider``), never one over a box
    that does not: ``M <= 64`` proved for ``1 <= M <= 64`` holds for a candidate's ``M % 8 == 0`` there, not for
    ``M <= 128``."""
    from verifier.contracts.claims import Replay
    from verifier.core.integers import le, symbol
    from verifier.engine.decide import Engine, Item, same_operands

    holds = le(symbol("M"), 64)

    def item() -> Item:
        return Item("X", "a statement", "here", "never", True, (), holds, lambda v: Replay(not holds.evaluate(v)))

    def engine(lo: int, hi: int, multiple: int, early: bool) -> Engine:
        sy = Symbols()
        sy.declare("M", lo=lo, hi=hi, multiple_of=multiple)
        e = Engine(sy)
        e.settle_early = early
        return e

    with same_operands():
        assert engine(1, 64, 1, False)._without_solver(item())
        narrower = engine(1, 64, 8, True)
        wider = engine(1, 128, 1, True)
        assert narrower._proved_wider(_proofs_now(), (holds.expr, ())) is not None
        assert wider._proved_wider(_proofs_now(), (holds.expr, ())) is None
        assert not wider._without_solver(item()), "M <= 64 fails at M = 65"


def _proofs_now() -> dict[object, list[tuple[dict[str, tuple[int, int | None, int]], str]]]:
    from verifier.engine.decide import _proofs

    got = _proofs()
    assert got is not None
    return got
