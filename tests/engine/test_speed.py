"""The engine's shortcuts of issue 28 (fewer, cheaper solver calls) keep every answer: an item the encoding's
simplifier reduces to true is proved without a Z3 context, and only such an item; a guard candidate decided with
``settle_early`` gets the verdict of a full decision; a candidate's own assumptions give an admitted value without the
solver; and ``bench/compare_verdicts.py`` reports a changed verdict and nothing else."""

from __future__ import annotations

import pytest

import verifier.solver.solve as solve_module
from bench.compare_verdicts import diff
from verifier.core.symbols import Symbols
from verifier.engine.decide import SETTLED, SIMPLIFIED, decide_operation
from verifier.engine.verdicts import DEFAULT_POLICY, INVALID, PROVED, REFUTED, VALID
from verifier.engine.verify import verify
from verifier.notation.cpp import parse, parse_relation, parse_tile
from verifier.solver.budget import Budget
from verifier.solver.domain import admitted_value


def _problem(layout: str, tile: str, *assume: str) -> tuple[list[object], Symbols]:
    sy = Symbols()
    for name in ("M", "N"):
        sy.declare(name, hi=1 << 14)  # a kernel's sizes: M*N stays within int32 (no OVF-* obligation fails)
    args = [parse(layout, sy), parse_tile(tile, sy)]
    for text in assume:
        sy.assume(parse_relation(text, sy))
    return args, sy


@pytest.fixture
def contexts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the Z3 contexts created (every encoder's and every query's comes from ``solve.new_context``)."""
    made: list[int] = []
    real = solve_module.new_context

    def counting() -> object:
        made.append(1)
        return real()

    monkeypatch.setattr(solve_module, "new_context", counting)
    return made


def test_a_tiling_of_exact_multiples_is_proved_without_z3(contexts: list[int]) -> None:
    args, sy = _problem("(M,N):(_1,M)", "<_128,_64>", "M % 128 == 0", "N % 64 == 0")
    v = verify("zipped_divide", args, sy)
    assert v.verdict == VALID
    assert contexts == [], "every obligation of an exact tiling simplifies to true: no solver, no context"
    routes = {o.route for o in v.obligations}
    assert routes == {SIMPLIFIED}, routes
    # the complement's disjointness, 128*#i != #j for 1 <= #i and 0 <= #j < 128: proved by the witnesses' ranges
    assert any(o.id == "CPL-POST-DISJOINT" and o.status == PROVED for o in v.obligations)


def test_a_partial_tile_still_goes_to_the_solver_and_is_refuted(contexts: list[int]) -> None:
    args, sy = _problem("(M,N):(_1,M)", "<_128,_64>")
    v = verify("zipped_divide", args, sy, derive=False)
    assert v.verdict == VALID and v.warnings, "a partial tile: valid with the DIV-EXACT warning"
    exact = next(o for o in v.obligations if o.id == "DIV-EXACT")
    assert exact.status == REFUTED and exact.route != SIMPLIFIED and exact.counterexample is not None
    assert exact.counterexample.params["M"] % 128 != 0 or exact.counterexample.params["N"] % 64 != 0
    assert contexts, "a statement the simplifier cannot reduce to true is decided by Z3"


def test_settle_early_gives_the_full_decisions_verdict() -> None:
    args, sy = _problem("(M,N):(_1,M)", "<_128,_64>")
    strict = DEFAULT_POLICY.parse(strict=True)
    full = decide_operation("zipped_divide", args, sy, Budget(), strict)
    early = decide_operation("zipped_divide", args, sy, Budget(), strict, settle_early=True)
    assert full.verdict == early.verdict == INVALID
    assert early.counterexample is not None
    assert any(o.reason == SETTLED for o in early.obligations), "the items after the refutation are skipped"
    assert not any(o.reason == SETTLED for o in full.obligations)


def test_a_candidates_own_assumptions_give_an_admitted_value_without_the_solver(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sy = Symbols()
    for name in ("M", "K"):
        sy.declare(name)
    for text in ("M % 8 == 0", "K >= 2", "K <= M"):
        sy.assume(parse_relation(text, sy))

    def no_solver() -> object:
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(solve_module, "new_context", no_solver)
    values, why = admitted_value(sy)
    assert why is None and values is not None
    assert values["M"] % 8 == 0 and 2 <= values["K"] <= values["M"]


def test_unsatisfiable_own_assumptions_still_reach_the_solver() -> None:
    sy = Symbols()
    sy.declare("M", hi=7)
    sy.assume(parse_relation("M % 8 == 0", sy))
    with pytest.raises(Exception, match="admit no value"):
        admitted_value(sy)


def test_compare_verdicts_reports_changes_only() -> None:
    before = {"a": {"verdict": "valid", "seconds": 1.0}, "b": {"verdict": "invalid", "seconds": 2.0}}
    same = {"a": {"verdict": "valid", "seconds": 9.0}, "b": {"verdict": "invalid", "seconds": 0.1}}
    assert diff(before, same) == []
    changed = {"a": {"verdict": "unknown", "seconds": 1.0}, "c": {"verdict": "valid", "seconds": 1.0}}
    lines = diff(before, changed)
    assert lines[0].startswith("a: verdict") and "only before" in lines[1] and "only after" in lines[2]
