"""The engine's verdicts on the parametric corpus against ground truth from compiled CuTe.

Ground truth: ``verifier.oracle.sweep`` compiles one CuTe program per case that loops over every assignment of the
symbols in the case's range (within its assumptions) at run time and decides, in C++ from CuTe's own results, whether
each result is correct.  The engine must never say ``valid`` where CuTe goes wrong in that range, and every
``invalid`` counterexample must be a value where compiled CuTe goes wrong (or CuTe rejects the case).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.engine.verdicts import INVALID, PROVED, UNKNOWN, VALID, Policy
from verifier.engine.verify import verify
from verifier.notation.cpp import parse_relation
from verifier.oracle.corpora import PARAMETRIC_CORPUS, parametric, parametric_assignments, problem
from verifier.oracle.sweep import SweepCase, sweep

ROOT = Path(__file__).resolve().parents[2]
CORPUS = json.loads(PARAMETRIC_CORPUS.read_text())


@pytest.fixture(scope="module")
def verdicts() -> list:
    out = []
    for entry in CORPUS:
        op, args, sy = problem(entry)
        out.append(verify(op, args, sy, derive=False))
    return out


@pytest.fixture(scope="module")
def truth(cute) -> list:
    cases = [SweepCase(*parametric(e)) for e in CORPUS]
    return sweep(cases, [parametric_assignments(e) for e in CORPUS])


def test_corpus_is_substantial() -> None:
    assert len(CORPUS) >= 60
    assert len({e["op"] for e in CORPUS}) >= 8


@pytest.mark.cute
def test_no_valid_verdict_where_cute_goes_wrong(verdicts, truth) -> None:
    bad = []
    for entry, v, t in zip(CORPUS, verdicts, truth, strict=True):
        if v.verdict != VALID:
            continue
        wrong = [k for k, s in t.status.items() if s in ("wrong", "ub")]
        if t.rejected or wrong:
            bad.append(f"{entry['id']}: valid, but CuTe {t.rejected or 'goes wrong at'} {wrong[:3]}")
    assert not bad, "\n".join(bad)


@pytest.mark.cute
def test_every_counterexample_is_a_value_where_cute_goes_wrong(verdicts, truth, cute) -> None:
    todo = []
    for entry, v, t in zip(CORPUS, verdicts, truth, strict=True):
        if v.verdict != INVALID:
            continue
        if v.counterexample is None:  # CuTe rejects it at compile time
            assert t.rejected is not None, (entry["id"], v.reason)
            continue
        todo.append((entry, v))
    results = sweep([SweepCase(*parametric(e)) for e, _ in todo],
                    [[dict(v.counterexample.params)] for _, v in todo])
    bad = []
    for (entry, v), r in zip(todo, results, strict=True):
        status = r.rejected or next(iter(r.status.values()))
        if status not in ("wrong", "ub"):
            bad.append(f"{entry['id']}: counterexample {dict(v.counterexample.params)} ({v.counterexample.obligation})"
                       f" but compiled CuTe says {status}")
    assert not bad, "\n".join(bad)


@pytest.mark.cute
def test_wrong_somewhere_in_range_is_never_valid_and_mostly_caught(verdicts, truth) -> None:
    caught = missed = 0
    for v, t in zip(verdicts, truth, strict=True):
        if t.rejected or any(s in ("wrong", "ub") for s in t.status.values()):
            assert v.verdict != VALID
            caught += v.verdict == INVALID
            missed += v.verdict == UNKNOWN
    assert caught > 0 and missed <= caught // 10


def test_decided_share(verdicts) -> None:
    decided = sum(v.verdict != UNKNOWN for v in verdicts)
    assert decided >= 0.95 * len(verdicts), [(e["id"], v.reason) for e, v in zip(CORPUS, verdicts)
                                            if v.verdict == UNKNOWN]


@pytest.mark.cute
def test_warnings_where_cute_meets_only_its_contract(verdicts, truth) -> None:
    """Where compiled CuTe meets its documented contract everywhere in range but a stricter clause fails somewhere
    (a partial tile ...), a ``valid`` verdict lists a warning; and a warning is never listed where compiled CuTe
    meets every clause everywhere in range."""
    bad, warned = [], 0
    for entry, v, t in zip(CORPUS, verdicts, truth, strict=True):
        statuses = set(t.status.values())
        if v.verdict != VALID or t.rejected or statuses & {"wrong", "ub", "too_large"}:
            continue
        if "warning" in statuses and not v.warnings:
            bad.append(f"{entry['id']}: compiled CuTe breaks a stricter clause, the engine lists no warning")
        if statuses == {"correct"} and v.warnings:
            bad.append(f"{entry['id']}: warning {v.warnings[0].id} where compiled CuTe meets every clause")
        warned += bool(v.warnings)
    assert not bad, "\n".join(bad)
    assert warned > 0


@pytest.mark.cute
def test_strict_counterexamples_are_values_where_a_clause_fails(verdicts, truth, cute) -> None:
    """``--strict`` turns each warning into ``invalid`` with a counterexample where compiled CuTe breaks that
    stricter clause (or its contract)."""
    todo = []
    for entry, v in zip(CORPUS, verdicts, strict=True):
        if v.verdict == VALID and v.warnings:
            op, args, sy = problem(entry)
            s = verify(op, args, sy, derive=False, policy=Policy(strict=True))
            assert s.verdict in (INVALID, UNKNOWN), (entry["id"], s.verdict)
            if s.counterexample is not None:
                todo.append((entry, s))
    assert todo
    results = sweep([SweepCase(*parametric(e)) for e, _ in todo],
                    [[dict(s.counterexample.params)] for _, s in todo])
    bad = [f"{e['id']}: strict counterexample {dict(s.counterexample.params)} but compiled CuTe says {r.status}"
           for (e, s), r in zip(todo, results, strict=True)
           if next(iter(r.status.values())) not in ("warning", "wrong", "ub")]
    assert not bad, "\n".join(bad)


@pytest.mark.cute
def test_necessary_guards_exclude_only_values_where_cute_breaks_a_clause(verdicts, truth) -> None:
    """A guard reported ``necessary: proved`` excludes no value where compiled CuTe's result meets every clause:
    outside the guard, every swept value is one where CuTe breaks its contract or (the guard being strict) a
    stricter clause, or CuTe rejects the case (issue 13: guards once excluded values where CuTe was right)."""
    checked, bad = 0, []
    for entry, v, t in zip(CORPUS, verdicts, truth, strict=True):
        if not (v.verdict == INVALID or (v.verdict == VALID and v.warnings)) or t.rejected:
            continue
        op, args, sy = problem(entry)
        guard = verify(op, args, sy).guard
        if guard is None or guard.necessary != PROVED:
            continue
        checked += 1
        atoms = [parse_relation(text, sy) for text in guard.condition.split(" and ")]
        for env in parametric_assignments(entry):
            if not all(a.evaluate(env) for a in atoms) and t.of(env) == "correct":
                bad.append(f"{entry['id']}: guard {guard.condition} is 'necessary', but compiled CuTe is correct "
                           f"at {env}")
                break
    assert not bad, "\n".join(bad)
    assert checked >= 10
