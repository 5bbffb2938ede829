"""Adversarial generators, one per feature family, judged against compiled CuTe (issue 29).

Each family is a module of this package with one function ``run(cases: int, seed: int) -> Report``: it draws
``cases`` inputs aimed at the family's corners (bit 31, every ``smem_ptr`` width, negative and zero strides and
extents, index 0 and past-the-end coordinates, 64-bit symbols near 2^32 and 2^63, ...), asks the tool for its answer,
and judges every ``proved`` / ``valid`` answer and every counterexample against the real CuTe object the user's code
builds (a tensor's byte addresses, a compiled descriptor, ``make_tma_copy``'s host run, UBSan). A disagreement is a
``Disagreement``; the suite runs each family with a fixed seed and a small count (tests/adversarial), and the long run
is ``python -m verifier.oracle.adversarial --cases N`` (docs/adversarial.md records its last figures).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

#: The families, each the name of a module of this package.
FAMILIES: tuple[str, ...] = ("tma",)


@dataclass(frozen=True)
class Disagreement:
    """One answer of the tool that the ground truth contradicts."""

    family: str
    case: str  # the input, as a command line or spec text a user can paste
    tool: str  # what the tool answered
    cute: str  # what compiled CuTe does


@dataclass(frozen=True)
class Report:
    """What one family's run drew and found."""

    family: str
    cases: int  # inputs drawn and decided
    judged: int  # answers (proved/valid/refuted with a witness) compared with the ground truth
    verdicts: dict[str, int] = field(default_factory=dict)  # tool answer -> count
    disagreements: tuple[Disagreement, ...] = ()

    def line(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.verdicts.items()))
        return (f"{self.family}: {self.cases} cases, {self.judged} judged against CuTe ({counts}); "
                f"{len(self.disagreements)} disagreements")


def family(name: str) -> Callable[[int, int], Report]:
    """The ``run`` function of a family."""
    if name not in FAMILIES:
        raise KeyError(f"no adversarial family {name!r} (families: {', '.join(FAMILIES)})")
    run: Callable[[int, int], Report] = importlib.import_module(f"{__name__}.{name}").run
    return run
