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


def test_a_run_time_extent_past_int32_is_declared_64_bit() -> None:
    """A long run (seed 323) drew an extent E >= 5452595204 for addresses past 2^31 (a mask at bit 31 sign-extends)
    and declared a 32-bit E: an empty range, which ended the run. E is an int64_t there, and the tool's answer is
    judged as any other."""
    import random

    from verifier.core.integers import S
    from verifier.core.swizzle import smem_bit_address
    from verifier.notation.cpp import parse
    from verifier.oracle.adversarial import smem

    layout = parse("Sw<1,0,1> o smem_ptr[16b](unset) o _2:4294967296")
    bits_of = [int(smem_bit_address(layout, 16, S(i))) for i in range(2)]
    assert max(bits_of) // 16 > 2**31
    for seed in range(12):  # some seeds draw a run-time extent (the old code ended with a LayoutError on those)
        out: list[object] = []
        verdicts: dict[str, int] = {}
        smem._judge_bounds(layout, 16, bits_of, random.Random(seed), out, verdicts)  # type: ignore[arg-type]
        assert not out, out
        assert sum(n for v, n in verdicts.items() if v.startswith("in_bounds")) == 1
