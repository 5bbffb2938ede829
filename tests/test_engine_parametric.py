"""The engine's verdicts on the parametric corpus against ground truth from compiled CuTe.

Ground truth: ``verifier.cute_sweep`` compiles one CuTe program per case that loops over every assignment of the
symbols in the case's range (within its assumptions) at run time and decides, in C++ from CuTe's own results, whether
each result is correct.  The engine must never say ``valid`` where CuTe goes wrong in that range, and every
``invalid`` counterexample must be a value where compiled CuTe goes wrong (or CuTe rejects the case).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.cute_sweep import SweepCase, sweep
from verifier.engine import verify
from verifier.verdicts import INVALID, UNKNOWN, VALID

from .case_args import parametric, parametric_assignments, problem

ROOT = Path(__file__).resolve().parent.parent
CORPUS = json.loads((ROOT / "tests" / "data" / "parametric_cases.json").read_text())


@pytest.fixture(scope="module")
def verdicts() -> list:
    out = []
    for entry in CORPUS:
        op, args, sy = problem(entry)
        out.append(verify(op, args, sy, timeout=10, derive=False))
    return out


@pytest.fixture(scope="module")
def truth(cute) -> list:
    cases = [SweepCase(*parametric(e)) for e in CORPUS]
    return sweep(cases, [parametric_assignments(e) for e in CORPUS])


def test_corpus_is_substantial() -> None:
    assert len(CORPUS) >= 60
    assert len({e["op"] for e in CORPUS}) >= 8


def test_no_valid_verdict_where_cute_goes_wrong(verdicts, truth) -> None:
    bad = []
    for entry, v, t in zip(CORPUS, verdicts, truth, strict=True):
        if v.verdict != VALID:
            continue
        wrong = [k for k, s in t.status.items() if s in ("wrong", "ub")]
        if t.rejected or wrong:
            bad.append(f"{entry['id']}: valid, but CuTe {t.rejected or 'goes wrong at'} {wrong[:3]}")
    assert not bad, "\n".join(bad)


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
