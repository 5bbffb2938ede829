"""CUTLASS's own unit-test cases (test/unit/cute/core/*.cpp, ported as data) in their original static/dynamic
mix and in all-dynamic and all-static variants: our algebra gives the same printed result, size, cosize and
values as compiled CuTe, or the same compile-time rejection, or the same undefined behaviour."""

from __future__ import annotations

import pytest

from tests.support.algebra_cases import CUTLASS_CASES as CASES
from tests.support.compare import compare
from verifier.algebra.registry import apply
from verifier.oracle.corpora import operands
from verifier.oracle.cute_cpp import Query, call_case, run_cases


def _label(case: dict, variant: str) -> str:
    return f"{case['file']}:{case['line']} {case['op']}({', '.join(case['args'])}) [{variant}]"


@pytest.fixture(scope="module")
def answers(cute):
    cpp = [call_case(c["op"], *operands(c["args"], v)) for c, v in CASES]
    return run_cases(cpp, [Query(k) for k in range(len(cpp))])


@pytest.mark.cute
def test_all_cases_match_compiled_cute(answers) -> None:
    bad = []
    for (case, variant), r in zip(CASES, answers, strict=True):
        diff = compare(apply(case["op"], *operands(case["args"], variant)), r)
        if diff:
            bad.append(f"{_label(case, variant)}: {diff}")
    assert not bad, "\n".join(bad[:30]) + f"\n({len(bad)} of {len(CASES)} differ)"


def test_corpus_is_substantial() -> None:
    assert len(CASES) >= 3 * 200
    ops = {c["op"] for c, _ in CASES}
    assert {"composition", "complement", "coalesce", "left_inverse", "right_inverse", "logical_divide",
            "logical_product"} <= ops
