"""tile_to_shape against compiled CuTe, and its silent round-up for a dynamic target (TTS-2, spec §9)."""

from __future__ import annotations

import pytest

from tests.support.compare import compare
from verifier import parse_int_tuple, parse_layout
from verifier.algebra.registry import apply
from verifier.oracle.cute_cpp import Query, call_case, run_cases

CASES = [("(_2,_3):(_1,_2)", "(5,7)"), ("(_2,_3):(_1,_2)", "(_4,_9)"), ("(_2,_3):(_1,_2)", "(_5,_9)"),
         ("(2,3):(_1,2)", "(_4,_9)"), ("(_2,_3):(_3,_1)", "(8,(3,_4))"), ("_4:_1", "(8,6)"),
         ("(_2,_3,_2):(_1,_2,_6)", "(_4,_6)"), ("(_4,_2):(_2,_1)", "(M,N)")]
ENV = {"M": 12, "N": 6}


@pytest.fixture(scope="module")
def answers(cute):
    cases = [call_case("tile_to_shape", parse_layout(b), parse_int_tuple(t)) for b, t in CASES]
    return run_cases(cases, [Query(k, ENV) for k in range(len(cases))])


@pytest.mark.cute
def test_tile_to_shape_matches_cute(answers) -> None:
    for (b, t), r in zip(CASES, answers, strict=True):
        block = parse_layout(b).substitute(ENV)
        target = parse_int_tuple(t)
        from verifier.core.int_tuple import substitute_tuple

        assert compare(apply("tile_to_shape", block, substitute_tuple(target, ENV)), r) is None, (b, t)


def test_dynamic_target_is_rounded_up_and_caught() -> None:
    out = apply("tile_to_shape", parse_layout("(_2,_3):(_1,_2)"), parse_int_tuple("(5,7)"))
    assert str(out.result) == "((_2,3),(_3,3)):((_1,_6),(_2,18))"  # size 54, not 35 (spec §9)
    assert int(out.result.size()) == 54
    assert [o.status for o in out.obligations if o.id == "TTS-2"] == ["fails"]
