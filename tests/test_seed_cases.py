"""The seed cases: the two CuTe 4.2 silent failures of DEVELOPERS.md, and the examples of seeds 002-004, each
computed by our algebra and by compiled CuTe, with the obligation that catches each silent failure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier import parse_layout
from verifier.algebra import apply
from verifier.cute_cpp import Query, call_case, run_cases

from .case_args import operands
from .compare import compare

SEEDS = [c for c in json.loads((Path(__file__).parent / "data" / "seed_cases.json").read_text())
         if c["op"] in ("zipped_divide", "coalesce", "composition") and "unsupported" not in c]


def _failed(outcome) -> set[str]:
    return {o.id for o in outcome.obligations if o.status == "fails"}


@pytest.fixture(scope="module")
def answers(cute):
    cases = [
        call_case("composition", parse_layout("(2,3):(1,2)"), parse_layout("(2,3):(3,1)")),
        call_case("composition", parse_layout("(_2,_3):(_1,_2)"), parse_layout("(_2,_3):(_3,_1)")),
        call_case("upcast", parse_layout("(16):(1)"), template=(2,)),
        call_case("upcast", parse_layout("(_16):(_1)"), template=(2,)),
    ]
    cases += [call_case(c["op"], *operands(c["args"], "original")) for c in SEEDS]
    return run_cases(cases, [Query(k) for k in range(len(cases))])


def test_dynamic_composition_is_silently_wrong_and_caught(answers) -> None:
    out = apply("composition", parse_layout("(2,3):(1,2)"), parse_layout("(2,3):(3,1)"))
    assert str(out.result) == answers[0].result == "((1,2),(2,1)):((3,4),(1,2))"
    assert str(out.result.size()) == answers[0].size == "4"  # size 4, not 6
    assert {"CMP-POST", "CMP-POST-SIZE"} <= _failed(out)
    static = apply("composition", parse_layout("(_2,_3):(_1,_2)"), parse_layout("(_2,_3):(_3,_1)"))
    assert str(static.result) == answers[1].result == "(_2,_3):(_3,_1)"
    assert not _failed(static)


def test_dynamic_upcast_is_silently_wrong_and_caught(answers) -> None:
    out = apply("upcast", 2, parse_layout("(16):(1)"))
    assert str(out.result) == answers[2].result == "(16):(0)"
    assert "UP-2" in _failed(out)
    static = apply("upcast", 2, parse_layout("(_16):(_1)"))
    assert str(static.result) == answers[3].result == "(_8):(_1)"
    assert not _failed(static)


def test_recast_layout_of_seed_004_is_upcast() -> None:
    assert str(apply("recast_layout", 16, 32, parse_layout("(16):(1)")).result) == "(16):(0)"
    assert str(apply("recast_layout", 16, 32, parse_layout("(_16):(_1)")).result) == "(_8):(_1)"


def test_seed_examples_match_cute(answers) -> None:
    for k, case in enumerate(SEEDS):
        out = apply(case["op"], *operands(case["args"], "original"))
        assert compare(out, answers[4 + k]) is None, case


def test_seed_claims_hold() -> None:
    by_line = {(c["seed"], c["line"]): c for c in SEEDS}

    def result(seed: str, line: int) -> str:
        c = by_line[(seed, line)]
        return str(apply(c["op"], *operands(c["args"], "original")).result)

    assert result("002", 12).startswith("((_4,_8),(2,3)):")
    assert result("002", 40) == "_12:_1"
    assert re.sub("_", "", result("002", 97)) == "(5,4):(8,2)"
    assert result("002", 117) == "(_3,(2,4)):(236,(26,1))"
    # Seed 003: the dynamic column-major o row-major composition is wrong; the 1-D workaround is right.
    wrong = apply("composition", *operands(by_line[("003", 27)]["args"], "original"))
    assert "CMP-POST" in _failed(wrong)
    fixed = apply("composition", *operands(by_line[("003", 31)]["args"], "original"))
    assert not _failed(fixed) and fixed.result.values() == parse_layout("(2,3):(3,1)").values()
