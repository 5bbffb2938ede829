"""Injectivity and bijectivity of concrete layouts: the solver-free sorted-stride criterion (``checks._separated``)
and the verdicts against enumeration of every coordinate."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.checks import _separated, check
from verifier.integers import D, S
from verifier.layouts import Layout
from verifier.symbols import Symbols

_LEAF = st.tuples(st.integers(1, 5), st.integers(-12, 12), st.booleans())


@st.composite
def _layouts(draw: st.DrawFn) -> Layout:
    modes = draw(st.lists(_LEAF, min_size=1, max_size=4))
    make = lambda v, static: S(v) if static else D(v)  # noqa: E731
    return Layout(tuple(make(s, st_) for s, _, st_ in modes), tuple(make(d, st_) for _, d, st_ in modes))


@settings(max_examples=300, deadline=None)
@given(_layouts())
def test_injective_and_bijective_agree_with_enumeration(layout: Layout) -> None:
    values = layout.values()
    injective = len(set(values)) == len(values)
    bijective = sorted(values) == list(range(len(values)))
    if _separated(layout):
        assert injective, layout
    assert check("injective", [layout], Symbols(), timeout=10).verdict == ("proved" if injective else "refuted")
    assert check("bijective", [layout], Symbols(), timeout=10).verdict == ("proved" if bijective else "refuted")


def test_large_static_layouts_are_decided_without_enumeration() -> None:
    big = Layout((S(1024), S(2), S(1024)), (S(2), S(1), S(2048)))  # 2^21 coordinates
    assert _separated(big)
    assert check("bijective", [big], Symbols()).verdict == "proved"
    overlapping = Layout((S(1024), S(1024)), (S(1), S(1000)))
    assert not _separated(overlapping)
    assert check("injective", [overlapping], Symbols()).verdict == "refuted"
