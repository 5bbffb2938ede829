"""The ``smem`` adversarial family (verifier/oracle/adversarial/smem.py) with a fixed seed: flagged and unflagged
swizzled shared-memory tensors of every element width, their bank conflicts, bounds and pictures, and GMMA/UMMA
descriptors, every answer judged against compiled CuTe's addresses and descriptors."""

from __future__ import annotations

import pytest

from verifier.oracle.adversarial import FAMILIES, family


@pytest.mark.cute
def test_smem_family_finds_no_disagreement(cute) -> None:
    report = family("smem")(24, 2029)
    assert report.disagreements == (), "\n".join(f"{d.case}\n  tool: {d.tool}\n  CuTe: {d.cute}"
                                                 for d in report.disagreements)
    assert report.cases == 24 and report.judged >= 24, report.line()
    # the run reached each kind of answer it judges
    kinds = set(report.verdicts)
    assert {"proved", "refuted"} <= kinds and any(k.startswith("in_bounds") for k in kinds), report.line()
    assert any(k.startswith("gmma") for k in kinds) and any(k.startswith("umma") for k in kinds), report.line()


def test_smem_is_a_family() -> None:
    assert "smem" in FAMILIES
