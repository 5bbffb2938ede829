"""The solver's route by evaluation (issue 28): an exact item free of witnesses over few admitted points is decided
by ``Engine.route_by_evaluation`` (proved where it fails at no admitted point; refuted at the point every failing
point of least distance lowers to), another item's counterexample is tried by evaluation (``_at_hint``), and
``decide_all`` leaves such items unencoded until one needs the solver; the guard search's sat/unsat queries are
answered by ``solver.finite.satisfiable`` over few points.  Each must give the solver's answer: checked on random
statements of what tilings write, with random ranges, moduli and relations, against the same engine with the
evaluation turned off."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

import pytest

from tests.support.statements import statement as _statement
from verifier.contracts.claims import Replay
from verifier.core.integers import Bool, eq, ge, le, min_, not_, symbol
from verifier.core.symbols import Symbols
from verifier.engine import decide as engine_decide
from verifier.engine.decide import EVALUATED, PINNED_EVALUATED, Engine, Item, decide_all, decide_operation
from verifier.engine.verdicts import DEFAULT_POLICY, PROVED, REFUTED, ObligationVerdict
from verifier.notation.cpp import parse, parse_tile
from verifier.solver import finite
from verifier.solver.budget import Budget
from verifier.solver.encoding import Encoder, Unencodable
from verifier.solver.solve import solve


def _item(holds: Bool, id: str = "X") -> Item:
    def replay(values: Mapping[str, int]) -> Replay:
        return Replay(not holds.evaluate(values))

    return Item(id, "a statement", "here", "never", True, (), holds, replay, exact=True)


def _table(rng: random.Random, names: tuple[str, ...]) -> Symbols:
    sy = Symbols()
    for n in names:
        lo = rng.choice([0, 1, 1, 2, 3, 8])
        width = rng.choice([3, 8, 15, 31]) if len(names) > 1 else rng.choice([3, 8, 40, 64, 300, 2000])
        sy.declare(n, lo=lo, hi=lo + width, multiple_of=rng.choice([1, 1, 1, 2, 4]))
    if len(names) > 1 and rng.random() < 0.4:
        a, b = symbol(names[0]), symbol(names[1])
        sy.assume(rng.choice([ge(a, b), le(a, b), eq(a, b), ge(a, b + 2)]))
    return sy


class _Off:
    """The evaluation turned off: every item goes the solver's way."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch

    def __enter__(self) -> None:
        self.monkeypatch.setattr(engine_decide, "ROUTE_POINTS", 0)
        self.monkeypatch.setattr(Engine, "_at_hint", lambda *a, **k: engine_decide._OPEN)
        self.monkeypatch.setattr(finite, "SATISFIABLE_POINTS", 0)

    def __exit__(self, *exc: object) -> None:
        self.monkeypatch.undo()


def _decide(items: list[Item], sy: Symbols) -> list[ObligationVerdict]:
    return decide_all(Engine(sy, budget=Budget(10_000_000)), items, DEFAULT_POLICY, smallest=True)


def _same(a: ObligationVerdict, b: ObligationVerdict) -> bool:
    return (a.status, a.counterexample, a.reason) == (b.status, b.counterexample, b.reason)


def _cases(seed: int) -> Iterator[tuple[list[Item], Symbols]]:
    rng = random.Random(900 + seed)
    for _ in range(24):
        names = ("M",) if rng.random() < 0.5 else ("M", "N")
        sy = _table(rng, names)
        items = [_item(_statement(rng, names), id=f"X{k}") for k in range(rng.choice([1, 1, 2, 3]))]
        if any(i.holds.value is not None for i in items):
            continue
        yield items, sy


@pytest.mark.parametrize("seed", range(3))
def test_the_route_by_evaluation_gives_the_solvers_answer(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    routes: set[tuple[str | None, str]] = set()
    for items, sy in _cases(seed):
        mine = _decide(items, sy)
        with _Off(monkeypatch):
            theirs = _decide(items, sy)
        routes |= {(d.route, d.status) for d in mine}
        for m, t in zip(mine, theirs):
            if t.status == "unknown":
                continue  # the solver gave up where evaluation answers: nothing to compare
            assert _same(m, t), (m.id, [str(i.holds) for i in items], sy.described(), m, t)
    assert any(route == EVALUATED for route, _ in routes), routes


def test_a_statement_true_under_the_relations_is_proved_by_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    """``K % min(M,K) == 0`` fails at some values of M and K but at none where ``K <= M`` (composition's CMP-3 of a
    prefix that fits): proved over M and K alone (N has too many values for the whole table)."""
    sy = Symbols()
    for n in ("M", "K"):
        sy.declare(n, hi=16)
    sy.declare("N", hi=4096)
    m, k = symbol("M"), symbol("K")
    sy.assume(le(k, m))
    holds = eq(k % min_(m, k), 0)
    mine = _decide([_item(holds)], sy)
    assert (mine[0].status, mine[0].route) == (PROVED, EVALUATED)
    with _Off(monkeypatch):
        theirs = _decide([_item(holds)], sy)
    assert (theirs[0].status, theirs[0].route) == (PROVED, "z3")
    loose = Symbols()  # without the relation it fails (M = 2, K = 3): the solver's route refutes it
    for n in ("M", "K"):
        loose.declare(n, hi=16)
    assert _decide([_item(holds)], loose)[0].status == REFUTED


def test_another_items_counterexample_is_tried_by_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    sy = Symbols()
    sy.declare("M", hi=30)
    sy.declare("N", hi=30)
    m, n = symbol("M"), symbol("N")
    first = le(m, 8)  # fails from M = 9 on: refuted at M = 9, N = 1 (not at the smallest point)
    second = le(m + n, 5)  # fails there too
    mine = _decide([_item(first, "A"), _item(second, "B")], sy)
    assert mine[0].route == EVALUATED and mine[1].route == PINNED_EVALUATED
    assert mine[1].counterexample is not None and mine[1].counterexample.params == {"M": 9, "N": 1}
    with _Off(monkeypatch):
        theirs = _decide([_item(first, "A"), _item(second, "B")], sy)
    assert [(d.status, d.counterexample) for d in mine] == [(d.status, d.counterexample) for d in theirs]


def test_a_partial_tile_past_the_smallest_point_is_refuted_as_the_solver_refutes_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """K % 32 == 0 keeps the smallest point out (K = 1): the route by evaluation decides, with no context."""
    sy = Symbols()
    sy.declare("N", hi=64)
    sy.declare("K", hi=64, multiple_of=32)
    args = [parse("(N,K):(_1,N)", sy), parse_tile("<_32,_32>", sy)]
    fast = decide_operation("tiled_divide", args, sy, Budget(), DEFAULT_POLICY)
    assert any(o.route == EVALUATED and o.status == REFUTED for o in fast.obligations)
    with _Off(monkeypatch):
        slow = decide_operation("tiled_divide", args, sy, Budget(), DEFAULT_POLICY)
    assert all(o.route != EVALUATED for o in slow.obligations)
    assert fast.to_json() == slow.to_json()


def _solver_sat(statements: list[Bool], sy: Symbols) -> bool | None:
    """The guard search's query: the assumptions, the statements, their divisors nonzero."""
    try:
        enc = Encoder(sy)
        constraints = [*enc.assumptions(), *(enc.boolean(s) for s in statements)]
        constraints += [enc.nonzero(d) for d in list(enc.divisors)]
    except Unencodable:
        return None
    status = solve(constraints, Budget(2_000_000))[0]
    return None if status == "unknown" else status == "sat"


@pytest.mark.parametrize("seed", range(2))
def test_satisfiable_is_the_solvers_answer(seed: int) -> None:
    rng = random.Random(1300 + seed)
    answers = set()
    for _ in range(40):
        names = ("M",) if rng.random() < 0.5 else ("M", "N")
        sy = _table(rng, names)
        statements = [_statement(rng, names)]
        if rng.random() < 0.5:
            statements.append(not_(_statement(rng, names)))
        mine = finite.satisfiable(statements, sy)
        if mine is None:
            continue
        theirs = _solver_sat(statements, sy)
        if theirs is None:
            continue
        assert mine == theirs, ([str(s) for s in statements], sy.described())
        answers.add(mine)
    assert answers == {True, False}
