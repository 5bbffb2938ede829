"""The ``swizzle`` adversarial family (verifier/oracle/adversarial/swizzle.py) with a fixed seed: swizzles up to bit
31, offsets and slices at their corners, every answer judged against compiled CuTe under UBSan."""

from __future__ import annotations

import random

import pytest

from verifier.core.errors import CuteRejection
from verifier.core.swizzle import Swizzle
from verifier.oracle.adversarial import FAMILIES, family
from verifier.oracle.adversarial.swizzle import draw_swizzle


@pytest.mark.cute
def test_swizzle_family_finds_no_disagreement(cute) -> None:
    report = family("swizzle")(80, 29)
    assert not report.disagreements, "\n".join(f"{d.case}\n  tool: {d.tool}\n  CuTe: {d.cute}"
                                               for d in report.disagreements)
    # every kind was drawn and judged: compile answers, values, symbolic verdicts and slices
    assert report.judged >= 60, report.line()
    assert {"compiles", "rejected", "values"} <= set(report.verdicts), report.line()
    assert any(k in report.verdicts for k in ("proved", "refuted")), report.line()
    assert any(k in report.verdicts for k in ("valid", "invalid")), report.line()


def test_the_family_is_registered_and_draws_the_corners() -> None:
    assert "swizzle" in FAMILIES
    rng = random.Random(0)
    drawn = [draw_swizzle(rng) for _ in range(400)]
    built = []
    for p in drawn:
        try:
            built.append(Swizzle(*p))
        except CuteRejection:
            pass
    assert any(sw.yyy_msk < 0 for sw in built) and any(sw.zzz_msk < 0 for sw in built)
    assert len(built) < len(drawn)  # some do not compile (past bit 31)
