"""``decide_all``'s smallest point (issue 28): when every item left for the solver is exact, free of witnesses and
false at the point where every symbol takes its lower bound, each is refuted there without the solver.  The
answer must be the one the solver's route gives (its counterexample lowered by ``Engine._minimise``): checked on
random statements of what tilings write, with random ranges, moduli and relations, against the same engine with
the smallest point left out."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from tests.support.statements import statement as _statement
from verifier.contracts.claims import Replay
from verifier.core.integers import Bool, eq, ge, le, symbol
from verifier.core.symbols import Symbols
from verifier.engine import decide as engine_decide
from verifier.engine.decide import SMALLEST, Engine, Item, decide_all, decide_operation
from verifier.engine.verdicts import DEFAULT_POLICY, REFUTED, ObligationVerdict
from verifier.notation.cpp import parse, parse_tile
from verifier.solver.budget import Budget


def _item(holds: Bool, exact: bool = True, id: str = "X") -> Item:
    def replay(values: Mapping[str, int]) -> Replay:
        return Replay(not holds.evaluate(values))

    return Item(id, "a statement", "here", "never", True, (), holds, replay, exact=exact)


def _table(rng: random.Random, names: tuple[str, ...]) -> Symbols:
    sy = Symbols()
    for n in names:
        lo = rng.choice([0, 1, 1, 2, 3, 8])
        hi = rng.choice([lo + 7, lo + 64, lo + 4096, None, (1 << 31) - 1])
        sy.declare(n, lo=lo, hi=hi, multiple_of=rng.choice([1, 1, 1, 2, 4]))
    if len(names) > 1 and rng.random() < 0.4:  # a relation that the smallest point may break
        a, b = symbol(names[0]), symbol(names[1])
        sy.assume(rng.choice([ge(a, b), le(a, b), eq(a, b), ge(a, b + 2)]))
    return sy


def _decide(items: list[Item], sy: Symbols, smallest: bool) -> list[ObligationVerdict]:
    return decide_all(Engine(sy, budget=Budget(2_000_000)), items, DEFAULT_POLICY, smallest=smallest)


def _same(a: ObligationVerdict, b: ObligationVerdict) -> bool:
    return (a.status, a.counterexample, a.reason) == (b.status, b.counterexample, b.reason)


@pytest.mark.parametrize("seed", range(5))
def test_the_smallest_point_gives_the_solvers_answer(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # the solver's route itself, not its evaluation (tests/engine/test_route_evaluation.py checks that one)
    monkeypatch.setattr(engine_decide, "ROUTE_POINTS", 0)
    monkeypatch.setattr(Engine, "_at_hint", lambda *a, **k: engine_decide._OPEN)
    rng = random.Random(700 + seed)
    taken = 0
    for _ in range(40):
        names = ("M",) if rng.random() < 0.5 else ("M", "N")
        sy = _table(rng, names)
        items = [_item(_statement(rng, names), id=f"X{k}") for k in range(rng.choice([1, 1, 2]))]
        if any(i.holds.value is not None for i in items):
            continue
        mine = _decide(items, sy, smallest=True)
        theirs = _decide(items, sy, smallest=False)
        if any(d.route == SMALLEST for d in mine):
            taken += 1
        for m, t in zip(mine, theirs):
            if t.status == "unknown":
                continue  # the solver gave up where evaluation answers: nothing to compare
            assert _same(m, t), (m.id, [str(i.holds) for i in items], sy.described(), m, t)
    assert taken > 0, "the random statements never exercised the smallest point"


def test_an_inexact_item_or_one_that_needs_the_solver_keeps_the_solvers_route() -> None:
    sy = Symbols()
    sy.declare("M", hi=64)
    m = symbol("M")
    partial = eq(m, 32 * ((m + 31) / 32))  # false at M = 1
    alone = _decide([_item(partial)], sy, smallest=True)
    assert alone[0].status == REFUTED and alone[0].route == SMALLEST
    assert alone[0].counterexample is not None and alone[0].counterexample.params == {"M": 1}
    # a replay that consults more than the statement (a concrete postcondition) is the solver's to confirm
    inexact = _decide([_item(partial, exact=False)], sy, smallest=True)
    assert inexact[0].status == REFUTED and inexact[0].route != SMALLEST
    # an item true at M = 1 but not everywhere needs the solver: then every item is the solver's, as before
    other = ge(m + 100, 2 * m)  # false from M = 101 on only: proved over 1..64 without the solver
    later = le(m, 40)  # true at M = 1, false from 41 on
    both = _decide([_item(partial, id="A"), _item(other, id="B"), _item(later, id="C")], sy, smallest=True)
    assert [d.route == SMALLEST for d in both] == [False, False, False]
    assert both[0].status == REFUTED and both[2].status == REFUTED
    # the smallest point must be admitted: here M % 4 == 0 moves it past the lower bound, so the solver decides
    four = Symbols()
    four.declare("M", lo=1, hi=64, multiple_of=4)
    assert _decide([_item(eq(m, 32 * ((m + 31) / 32)))], four, smallest=True)[0].route != SMALLEST


def test_a_partial_tile_is_refuted_at_the_smallest_sizes_as_the_solver_refutes_it() -> None:
    sy = Symbols()
    sy.declare("M", hi=64)
    sy.declare("N", hi=64)
    args = [parse("(M,N):(_1,M)", sy), parse_tile("<_32,_16>", sy)]
    fast = decide_operation("zipped_divide", args, sy, Budget(), DEFAULT_POLICY)
    exact = [o for o in fast.obligations if o.id == "DIV-EXACT"]
    assert exact and all(o.route == SMALLEST for o in exact)
    assert [o.counterexample.params for o in exact if o.counterexample] == [{"M": 1, "N": 1}] * 2
    slow = Engine.smallest_point
    try:
        Engine.smallest_point = lambda self: None  # type: ignore[method-assign]
        solver = decide_operation("zipped_divide", args, sy, Budget(), DEFAULT_POLICY)
    finally:
        Engine.smallest_point = slow  # type: ignore[method-assign]
    assert all(o.route != SMALLEST for o in solver.obligations)
    assert fast.to_json() == solver.to_json()
