"""Counterexamples in small values (issue 29, 12): the engine lowers every symbol together before each alone, so
values tied by a relation come down too (``K == ldA``), deterministically, and every counterexample still replays."""

from __future__ import annotations

from verifier import parse
from verifier.core.symbols import Symbols
from verifier.engine.checks import check
from verifier.engine.verdicts import REFUTED
from verifier.notation.cpp import parse_relation


def _injective(layout: str, *assume: str) -> dict[str, int]:
    sy = Symbols()
    lay = parse(layout, sy)
    for a in assume:
        sy.assume(parse_relation(a, sy))
    v = check("injective", [lay], sy)
    assert v.verdict == REFUTED and v.counterexample is not None
    values = dict(v.counterexample.params)
    # Replayed: the layout with these values maps two coordinates to one index.
    concrete = lay.substitute(values)
    images = [int(concrete(i)) for i in range(int(concrete.size()))]
    assert len(set(images)) < len(images)
    return values


def test_values_tied_by_a_relation_are_lowered_together() -> None:
    # Not injective only when K >= 1000 (a second column) and ldA - K is 0 or 2: no symbol can be lowered alone from
    # a pair such as K = ldA = 2001, but both together reach the least failing values.
    layout, rel = "(_2,K/1000+1):(_2,ldA-K)", "ldA >= K"
    assert _injective(layout, rel) == {"K": 1000, "ldA": 1000}
    assert _injective(layout, rel) == _injective(layout, rel)  # deterministic
    got = _injective(layout, rel, "K % 3 == 1")
    assert got["K"] % 3 == 1 and 1000 <= got["K"] <= 1003 and got["ldA"] - got["K"] in (0, 2)
