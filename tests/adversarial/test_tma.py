"""The ``tma`` adversarial family (verifier/oracle/adversarial/tma.py) with a fixed seed: every ``valid`` /
``invalid`` answer of ``make_tma_box`` on corner gmem layouts agrees with ``make_tma_copy``'s compiled host run."""

from __future__ import annotations

import pytest

from verifier.oracle.adversarial import FAMILIES, family
from verifier.oracle.adversarial import tma as fam


@pytest.mark.cute
def test_fixed_seed_finds_no_disagreement(cute) -> None:
    report = family("tma")(120, 29)
    assert "tma" in FAMILIES
    assert report.cases >= 120 and report.judged >= 100, report.line()  # the drawn values, then each structure
    assert {"valid", "invalid"} <= set(report.verdicts), report.line()
    assert any(k.startswith("symbolic ") for k in report.verdicts), report.line()
    assert not report.disagreements, "\n".join(f"{d.case}\n  tool: {d.tool}\n  CuTe: {d.cute}"
                                               for d in report.disagreements)


@pytest.mark.cute
def test_the_judge_catches_a_wrong_valid(cute) -> None:
    """The judge is not vacuous: the answer the tool gave before issue 29 (valid for a negative stride) is a
    disagreement against the host run, and so is a refutation where CuTe builds the layout's own descriptor."""
    neg = fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,s)", (("K", 8), ("M", 64), ("s", -64)))
    good = fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,s)", (("K", 8), ("M", 64), ("s", 64)))
    wrap = fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,s)", (("K", 8), ("M", 64), ("s", 2**60)), frozenset({"s"}))
    r_neg, r_good, r_wrap = fam.host_runs([neg, good, wrap])
    assert r_neg.checked == "TMA-GSTRIDE"  # copy_traits_sm90_tma.hpp:971: the byte stride 2^61-128 >= 2^40
    assert r_neg.desc[1][1] == 2**61 - 128
    assert r_good.line is None and r_wrap.line is None and r_wrap.desc[1][1] == 0  # the uint64_t wrap passes
    old = fam.Answer("valid", (), False, ((64, 1), (8, -64)))
    assert fam.judge(neg, old, r_neg) is not None
    assert fam.judge(good, fam.Answer("invalid", ("TMA-GSTRIDE",), False, ((64, 1), (8, 64))), r_good) is not None
    for case, run in ((neg, r_neg), (good, r_good), (wrap, r_wrap)):
        answer = fam.decide(case)
        assert fam.judge(case, answer, run) is None, (case, answer, run)
    assert fam.decide(neg).verdict == "invalid" and fam.decide(wrap).verdict == "invalid"


@pytest.mark.cute
def test_a_static_negative_stride_past_the_fifth_mode_lets_cute_assert_in_its_own_order(cute) -> None:
    """Found by a long run (seed 112): six gmem modes, the last with the static stride _-64, merged into box mode 4.
    CuTe's uint64_t recurrence over the negative stride asserts TMA-GSTRIDE first; the tool refutes that and the
    extent CuTe would check later. The judge took only run-time negative strides into account."""
    c = fam.Case(16, "(_64,_8):(_1,_64)", "(g0,g1,g2,g3,g4,g5):(_1,d1,d2,d3,d4,_-64)",
                 (("d1", 4096), ("d2", 8192), ("d3", 1), ("d4", 65), ("g0", 4096), ("g1", 1000), ("g2", 4096),
                  ("g3", 64), ("g4", 4096), ("g5", 1000)), frozenset({"d2", "d3", "g1", "g2", "g3", "g4", "g5"}))
    [r] = fam.host_runs([c])
    answer = fam.decide(c)
    assert r.checked == "TMA-GSTRIDE" and answer.verdict == "invalid" and "TMA-GSTRIDE" in answer.refuted
    assert fam.judge(c, answer, r) is None, (answer, r)
