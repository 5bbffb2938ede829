"""Injectivity and bijectivity of concrete layouts: the solver-free sorted-stride criterion (``checks._separated``)
and the verdicts against enumeration of every coordinate."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.core.integers import D, S
from verifier.core.layouts import Layout
from verifier.core.symbols import Symbols
from verifier.engine.checks import STRUCTURAL, _separated, check

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
    assert check("injective", [layout], Symbols()).verdict == ("proved" if injective else "refuted")
    assert check("bijective", [layout], Symbols()).verdict == ("proved" if bijective else "refuted")


def test_large_static_layouts_are_decided_without_enumeration() -> None:
    big = Layout((S(1024), S(2), S(1024)), (S(2), S(1), S(2048)))  # 2^21 coordinates
    assert _separated(big)
    assert check("bijective", [big], Symbols()).verdict == "proved"
    overlapping = Layout((S(1024), S(1024)), (S(1), S(1000)))
    assert not _separated(overlapping)
    assert check("injective", [overlapping], Symbols()).verdict == "refuted"


@st.composite
def _same_size_pairs(draw: st.DrawFn) -> tuple[Layout, Layout]:
    """Two concrete layouts of one size: the second a reshaping of the first (split or merged modes, unit modes,
    changed strides), so that equal and different functions both occur."""
    a = draw(_layouts())
    shape = [int(x) for x in a.shape] if type(a.shape) is tuple else [int(a.shape)]
    stride = [int(x) for x in a.stride] if type(a.stride) is tuple else [int(a.stride)]
    s2, d2 = [], []
    for s, d in zip(shape, stride):
        if s == 4 and draw(st.booleans()):  # 4:d is (2,2):(d,2d)
            s2 += [2, 2]
            d2 += [d, 2 * d if draw(st.integers(0, 3)) else d]
        else:
            s2.append(s)
            d2.append(d if draw(st.integers(0, 4)) else draw(st.integers(-12, 12)))
        if draw(st.integers(0, 5)) == 0:
            s2.append(1)
            d2.append(draw(st.integers(-3, 3)))
    return a, Layout(tuple(S(x) for x in s2), tuple(S(x) for x in d2))


@settings(max_examples=400, deadline=None)
@given(_same_size_pairs())
def test_equivalent_of_concrete_layouts_agrees_with_enumeration(pair: tuple[Layout, Layout]) -> None:
    a, b = pair
    equal = a.values() == b.values()
    v = check("equivalent", [a, b], Symbols())
    assert v.verdict == ("proved" if equal else "refuted")
    assert all(o.route == STRUCTURAL for o in v.obligations)  # decided without the solver
    if not equal:
        i = v.counterexample.coordinate
        assert int(a(i)) != int(b(i)) and (v.counterexample.expected, v.counterexample.actual) == (int(a(i)), int(b(i)))
