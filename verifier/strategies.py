"""Hypothesis strategies for CuTe layouts, for users' own property tests.

Every function returns a ``hypothesis`` ``SearchStrategy``; the structural ones take strategies as arguments, so
they compose (``int_tuples(ints(1, 4))``, ``layouts(shape=shapes(rank=2))``).  What each strategy promises, and the
tests (tests/frontends/test_strategies.py) check:

* ``ints``: CuTe integers in a range, static (``_8``), dynamic (``8``) or a mix;
* ``symbolic_ints``: run-time expressions over the symbols of a ``Symbols`` table (``M``, ``2*M``, ``(M+1)/2``,
  ``M+1``), positive for every value the table allows;
* ``int_tuples``: nested tuples of drawn leaves with a chosen rank and maximum depth;
* ``shapes``: positive shapes (concrete leaves ``>= 1``, symbolic leaves positive by construction);
* ``strides``: a stride congruent to a given shape;
* ``layouts``: layouts by rank, depth, static/dynamic mix, symbolic leaves, and whether they are compact (a
  bijection onto ``[0, size)``) or injective.  Injective layouts are built injective, not filtered: the shape's
  leaves are ordered by a random permutation and each stride is the product of the earlier extents times a gap
  ``>= 1`` (a mixed-radix numbering, so distinct coordinates get distinct indices for every value of the
  symbols); compact layouts are the gap-1, positive-stride case.  ``injective=False`` gives a static leaf of extent
  ``>= 2`` stride 0 (two coordinates collide); ``compact=False`` additionally scales an injective layout by 2 when
  it is injective, so its image misses 1;
* ``tilers``: by-mode tilers ``<...>`` of layouts, shapes and ``_``, optionally dividing a given shape;
* ``assignments``: values for a ``Symbols`` table that satisfy every assumption (range, divisibility, relations);
* ``swizzles``: ``Swizzle<B,M,S>`` that CuTe compiles, drawn towards the corner where a mask's top bit is bit 31
  (a negative ``int`` mask: arithmetic ``shiftr``, sign extension against ``int64_t`` offsets, swizzle.hpp:66-68).

``hypothesis`` is an optional dependency (the ``hypothesis`` extra); only this module imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, Union

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from verifier.core.int_tuple import IntTuple, leaves, product
from verifier.core.integers import D, Int, S, symbol
from verifier.core.layouts import UNDERSCORE, Layout, Tile, TileElement
from verifier.core.swizzle import Swizzle
from verifier.core.symbols import Symbols

#: Run-time expressions a symbolic leaf may take; each is positive when ``M >= 1``.
SYMBOLIC_FORMS: tuple[Callable[[Int], Int], ...] = (
    lambda m: m,
    lambda m: S(2) * m,
    lambda m: (m + S(1)) / S(2),
    lambda m: m + D(1),
)

RangeLike = int | tuple[int, int]


def _range(r: RangeLike, what: str) -> tuple[int, int]:
    lo, hi = (r, r) if isinstance(r, int) else r
    if lo < 0 or lo > hi:
        raise InvalidArgument(f"{what}: expected an int or (lo, hi) with 0 <= lo <= hi, got {r!r}")
    return lo, hi


def _flag(draw: st.DrawFn, v: int, static: bool | None) -> Int:
    if static is None:
        static = draw(st.booleans())
    return S(v) if static else D(v)


def ints(min_value: int = 1, max_value: int = 8, static: bool | None = None) -> st.SearchStrategy[Int]:
    """CuTe integers in ``[min_value, max_value]``: all static (``True``), all dynamic (``False``) or mixed."""
    if min_value > max_value:
        raise InvalidArgument(f"ints: min_value {min_value} > max_value {max_value}")

    @st.composite
    def build(draw: st.DrawFn) -> Int:
        return _flag(draw, draw(st.integers(min_value, max_value)), static)

    return build()


def symbolic_ints(symbols: Symbols, forms: Sequence[Callable[[Int], Int]] = SYMBOLIC_FORMS
                  ) -> st.SearchStrategy[Int]:
    """Run-time expressions (``forms``) over one symbol of ``symbols``; the table must declare at least one."""
    names = sorted(s.name for s in symbols)
    if not names:
        raise InvalidArgument("symbolic_ints: the Symbols table declares no symbol")
    return st.builds(lambda name, form: form(symbol(name)), st.sampled_from(names), st.sampled_from(list(forms)))


# int_tuples nests any leaf: Int for shapes and strides (an IntTuple), or plain values
L = TypeVar("L")
Nested = Union[L, tuple["Nested[L]", ...]]


def int_tuples(leaf: st.SearchStrategy[L], rank: RangeLike = (1, 3), depth: int = 2,
               max_leaves: int = 8) -> st.SearchStrategy[Nested[L]]:
    """Nested tuples of ``leaf`` values: a top-level tuple of ``rank`` modes (rank 1 may be a bare leaf), each
    mode nested at most ``depth - 1`` more levels, at most ``max_leaves`` leaves in all."""
    lo, hi = _range(rank, "rank")
    if lo < 1 or depth < 1 or max_leaves < hi:
        raise InvalidArgument("int_tuples: need rank >= 1, depth >= 1 and max_leaves >= the largest rank")

    @st.composite
    def build(draw: st.DrawFn) -> Nested[L]:
        r = draw(st.integers(lo, hi))
        budget = [max_leaves - r]  # every mode has at least one leaf

        def mode(levels: int) -> Nested[L]:
            if levels == 0 or budget[0] == 0 or not draw(st.booleans()):
                return draw(leaf)
            n = draw(st.integers(1, min(3, budget[0] + 1)))
            budget[0] -= n - 1
            return tuple(mode(levels - 1) for _ in range(n))

        modes = tuple(mode(depth - 1) for _ in range(r))
        if r == 1 and depth == 1 and type(modes[0]) is not tuple and draw(st.booleans()):
            return modes[0]  # a rank-1 layout printed as `8:1` rather than `(8):(1)`
        return modes

    return build()


def shapes(rank: RangeLike = (1, 3), depth: int = 2, max_extent: int = 5, static: bool | None = None,
           symbols: Symbols | None = None, max_leaves: int = 5) -> st.SearchStrategy[IntTuple]:
    """Positive shapes; with ``symbols``, some leaves are run-time expressions over them (``symbolic_ints``)."""
    leaf = ints(1, max_extent, static)
    if symbols is not None:
        leaf = st.one_of(leaf, symbolic_ints(symbols))
    return int_tuples(leaf, rank, depth, max_leaves)


def _like(shape: IntTuple, values: list[Int]) -> IntTuple:
    """``values`` (in leaf order) arranged with the profile of ``shape``."""
    it = iter(values)

    def go(t: IntTuple) -> IntTuple:
        return tuple(go(x) for x in t) if type(t) is tuple else next(it)

    return go(shape)


def strides(shape: IntTuple, min_value: int = -8, max_value: int = 24, static: bool | None = None,
            symbols: Symbols | None = None) -> st.SearchStrategy[IntTuple]:
    """Arbitrary strides congruent to ``shape``: zero, negative, and with ``symbols`` symbolic leaves."""
    leaf = ints(min_value, max_value, static)
    if symbols is not None:
        leaf = st.one_of(leaf, symbolic_ints(symbols))
    n = len(list(leaves(shape)))
    return st.lists(leaf, min_size=n, max_size=n).map(lambda vs: _like(shape, vs))


def _keep_flag(draw: st.DrawFn, x: Int, static: bool | None) -> Int:
    """A computed stride: concrete ones get a drawn (or the requested) flag; symbolic ones stay dynamic."""
    if x.value is None:
        return x
    return _flag(draw, x.value, static)


def _mixed_radix(draw: st.DrawFn, shape: IntTuple, static: bool | None, compact: bool) -> IntTuple:
    """Injective strides: leaves in a random order, each stride the product of the earlier extents and gaps."""
    extents = list(leaves(shape))
    order = draw(st.permutations(range(len(extents))))
    out: list[Int] = [S(0)] * len(extents)
    acc: Int = S(1)
    for k in order:
        gap = 1 if compact else draw(st.integers(1, 3))
        sign = 1 if compact else draw(st.sampled_from((1, 1, -1)))
        stride = acc * S(gap)
        out[k] = _keep_flag(draw, stride if sign == 1 else -stride, static)
        acc = acc * S(gap) * extents[k]
    return _like(shape, out)


def layouts(rank: RangeLike = (1, 3), depth: int = 2, max_extent: int = 5, static: bool | None = None,
            symbols: Symbols | None = None, compact: bool | None = None, injective: bool | None = None,
            shape: st.SearchStrategy[IntTuple] | None = None, max_leaves: int = 5) -> st.SearchStrategy[Layout]:
    """Layouts; ``compact``/``injective`` ``True`` or ``False`` force the property or its absence for every
    value of the symbols, ``None`` leaves it to chance.  ``shape`` overrides the shape strategy."""
    if compact and injective is False:
        raise InvalidArgument("layouts: a compact layout is injective; compact=True with injective=False is empty")
    shape_st = shape if shape is not None else shapes(rank, depth, max_extent, static, symbols, max_leaves)
    need_two = compact is False or injective is False

    @st.composite
    def build(draw: st.DrawFn) -> Layout:
        shp = draw(shape_st)
        if need_two:
            # A static or concrete leaf of extent >= 2: the collision or the gap exists for every symbol value.
            wide = [k for k, x in enumerate(leaves(shp)) if x.value is not None and x.value >= 2]
            if not wide:
                flat = list(leaves(shp))
                k = draw(st.integers(0, len(flat) - 1))
                flat[k] = _flag(draw, draw(st.integers(2, max(2, max_extent))), static)
                shp = _like(shp, flat)
                wide = [k]
        if injective is False:
            stride = draw(strides(shp, static=static, symbols=symbols))
            flat = list(leaves(stride))
            flat[draw(st.sampled_from(wide))] = S(0)
            return Layout(shp, _like(shp, flat))
        if compact:
            return Layout(shp, _mixed_radix(draw, shp, static, compact=True))
        if injective or compact is False:
            stride = _mixed_radix(draw, shp, static, compact=False)
            if compact is False:
                stride = _like(shp, [_keep_flag(draw, S(2) * x, static) for x in leaves(stride)])
            return Layout(shp, stride)
        return Layout(shp, draw(strides(shp, static=static, symbols=symbols)))

    return build()


def tilers(shape: IntTuple | None = None, rank: RangeLike = (1, 2), max_extent: int = 4,
           static: bool | None = None, divides: bool = False, underscore: bool = True
           ) -> st.SearchStrategy[Tile]:
    """By-mode tilers ``<T0, T1, ...>``: each element a compact layout, a shape, or ``_``.

    With ``shape``, the tiler has at most ``rank(shape)`` elements, and with ``divides`` each element's size
    divides the (concrete) size of its mode, so ``logical_divide`` tiles that mode exactly."""
    lo, hi = _range(rank, "rank")
    if shape is not None:
        modes = shape if type(shape) is tuple else (shape,)
        hi = min(hi, len(modes))
        lo = min(lo, hi)
    if divides and shape is None:
        raise InvalidArgument("tilers: divides=True needs the shape to divide")

    @st.composite
    def build(draw: st.DrawFn) -> Tile:
        n = draw(st.integers(max(1, lo), max(1, hi)))
        elements: list[TileElement] = []
        for k in range(n):
            if underscore and draw(st.integers(0, 4)) == 0:
                elements.append(UNDERSCORE)
                continue
            if divides:
                total = product(modes[k]).value
                if total is None:
                    raise InvalidArgument("tilers: divides=True needs concrete mode sizes")
                extent = draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
            else:
                extent = draw(st.integers(1, max_extent))
            e = _flag(draw, extent, static)
            if draw(st.booleans()):
                elements.append(Layout(e, _flag(draw, draw(st.integers(1, 3)), static)))
            else:
                elements.append(e)
        return Tile(elements)

    return build()


def assignments(symbols: Symbols, max_value: int = 64) -> st.SearchStrategy[dict[str, int]]:
    """Values for every symbol of ``symbols`` inside its range and divisibility, at most ``max_value`` where the
    range allows (else the smallest admissible value), satisfying every relation of the table."""
    choices: dict[str, st.SearchStrategy[int]] = {}
    for sym in symbols:
        m = sym.multiple_of
        # exact integer division: int64 bounds are beyond a float's 53 bits
        first = -(-sym.lo // m)
        last = max(first, max(max_value, sym.lo) // m)  # the smallest admissible value where lo > max_value
        if sym.hi is not None:
            last = min(last, sym.hi // m)
        if first > last:
            raise InvalidArgument(f"assignments: symbol {sym.name} admits no value ({sym.describe()})")
        choices[sym.name] = st.integers(first, last).map(_times(m))
    relations = list(symbols.relations)
    return st.fixed_dictionaries(choices).filter(lambda env: all(r.evaluate(env) for r in relations))


def _times(m: int) -> Callable[[int], int]:
    return lambda k: k * m


def swizzles(max_bits: int = 3, top: int = 31, corner: float = 0.5) -> st.SearchStrategy[Swizzle]:
    """``Swizzle<B,M,S>`` with ``1 <= B <= max_bits`` and ``B <= |S| <= B + 4`` whose masks fit below bit ``top``
    (at most 31: an ``int`` constant, swizzle.hpp:66-68); with probability about ``corner`` the higher mask's top
    bit is exactly ``top`` (for ``top = 31`` a negative mask, Y when ``S > 0`` and Z when ``S < 0``)."""
    if not 1 <= max_bits <= 3 or not max_bits + max_bits <= top <= 31:
        raise InvalidArgument(f"swizzles: need 1 <= max_bits <= 3 and 2*max_bits <= top <= 31, got {max_bits}, {top}")

    @st.composite
    def build(draw: st.DrawFn) -> Swizzle:
        b = draw(st.integers(1, max_bits))
        k = draw(st.integers(b, b + 4).filter(lambda k: b + k <= top + 1))
        shift = k if draw(st.booleans()) else -k
        highest = top + 1 - b - k  # the largest M whose masks stay at or below bit top
        at_corner = draw(st.floats(0, 1)) < corner
        m = highest if at_corner else draw(st.integers(0, highest))
        return Swizzle(b, m, shift)

    return build()


__all__ = ["SYMBOLIC_FORMS", "assignments", "int_tuples", "ints", "layouts", "shapes", "strides", "swizzles",
           "symbolic_ints", "tilers"]
