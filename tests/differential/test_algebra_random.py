"""Seeded random differential test of the algebra against compiled CuTe: 3,000+ calls across the operations,
mixed static/dynamic leaves, valid and invalid inputs (rejections and undefined behaviour included)."""

from __future__ import annotations

import collections

import pytest

from tests.support.algebra_cases import RANDOM_CASES as CASES
from tests.support.compare import compare
from verifier.algebra.registry import apply
from verifier.oracle.cute_cpp import Query, call_case, run_cases

pytestmark = pytest.mark.cute  # every test here compiles CuTe (tests/conftest.py)


def _ours(op: str, args: tuple, template: tuple[int, ...]):
    return apply(op, *template, *args)


@pytest.fixture(scope="module")
def answers(cute):
    cpp = [call_case(op, *args, template=t) for op, args, t in CASES]
    return run_cases(cpp, [Query(k) for k in range(len(cpp))])


def test_random_algebra_matches_compiled_cute(answers) -> None:
    bad = []
    for (op, args, t), r in zip(CASES, answers, strict=True):
        diff = compare(_ours(op, args, t), r)
        if diff:
            label = f"{op}{'<' + str(t[0]) + '>' if t else ''}({', '.join(map(str, args))})"
            bad.append(f"{label}: {diff}")
    assert not bad, "\n".join(bad[:30]) + f"\n({len(bad)} of {len(CASES)} differ)"


def test_random_corpus_has_valid_and_invalid_inputs(answers) -> None:
    kinds = collections.Counter("rejected" if r.rejected else "ub" if r.ub else "ok" for r in answers)
    assert len(CASES) >= 3000
    assert kinds["ok"] >= 2000 and kinds["rejected"] >= 50 and kinds["ub"] >= 5, kinds
    assert len({op for op, _, _ in CASES}) >= 22
