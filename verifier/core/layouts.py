"""Layouts: a shape and a congruent stride, both IntTuples, as CuTe's ``Layout<Shape,Stride>``.

A layout is a function from coordinates to indices.  It accepts a 1-D coordinate (an integer), an R-D coordinate
(one entry per top-level mode) or a natural h-D coordinate (congruent to the shape), and maps it through
``crd2idx`` exactly as ``stride.hpp`` does, so a 1-D coordinate past ``size`` extends along the last mode as in
CuTe.  Evaluation returns an ``Int``: a plain number when every value is concrete, an expression otherwise.

The constructors and mode manipulations (``make_layout``, ``layout<I...>`` as ``sublayout``, ``select``,
``take``, ``group``, ``flatten``, ``append``, ``prepend``, ``replace``) follow ``layout.hpp`` and keep every
leaf's static/dynamic flag as CuTe does, so ``str(layout)`` is what CuTe's ``print`` shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NoReturn, Union

from verifier.core.basis import (
    ArithTuple,
    ScaledBasis,
    Value,
    _inner_product,
    _leaves_of,
    _map_leaves,
    _plus_one,
    add,
    as_arith,
    basis_abs,
    has_basis,
    mul,
)
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import (
    IntTuple,
    as_int_tuple,
    compact_major,
    congruent,
    crd2idx,
    format_tuple,
    get,
    inner_product,
    is_concrete,
    leaves,
    product,
    substitute_tuple,
    symbols_of,
    transform_leaf,
)
from verifier.core.int_tuple import (
    depth as tuple_depth,
)
from verifier.core.int_tuple import (
    rank as tuple_rank,
)
from verifier.core.integers import Int, S, abs_, site
from verifier.core.semantics import dsl


class Layout:
    """CuTe's ``Layout<Shape,Stride>``: immutable, hashable, printed in CuTe's notation."""

    __slots__ = ("shape", "stride", "_hash")
    shape: IntTuple
    stride: IntTuple  # a leaf may be a ScaledBasis (basis.py)
    _hash: int

    def __init__(self, shape: IntTuple | int | tuple[object, ...],
                 stride: IntTuple | int | tuple[object, ...] | None = None) -> None:
        if (type(shape) is Int and type(stride) is Int) or _well_formed(shape, stride):  # the algebra's own calls
            _set_shape(self, shape)
            _set_stride(self, stride)
            return
        shape = as_int_tuple(shape)
        stride = compact_major(shape) if stride is None else as_int_tuple(stride)
        if not congruent(shape, stride):
            raise LayoutError(
                f"shape {format_tuple(shape)} and stride {format_tuple(stride)} are not congruent"
            )
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("Layout is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is Layout and other.shape == self.shape and other.stride == self.stride

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:  # computed once, when first asked (most layouts the algebra builds never are)
            h = hash((self.shape, self.stride))
            _set_hash(self, h)
            return h

    def __str__(self) -> str:
        return f"{format_tuple(self.shape)}:{format_tuple(self.stride)}"

    def __repr__(self) -> str:
        return f"Layout({self})"

    def __call__(self, *coord: IntTuple | int) -> Int:
        """Evaluate at a 1-D (``L(i)``), R-D (``L(i, j)``) or natural (``L((i, (j, k)))``) coordinate."""
        if not coord:
            raise LayoutError("a layout needs a coordinate")
        c = as_int_tuple(coord[0] if len(coord) == 1 else tuple(coord))
        if has_basis(self.stride):  # scaled-basis strides: the value is a coordinate (basis.py)
            return basis_crd2idx(c, self.shape, self.stride)  # type: ignore[return-value]
        return crd2idx(c, self.shape, self.stride)

    def __iter__(self) -> NoReturn:  # layouts are not containers; keep Python from iterating via __call__
        raise TypeError("Layout is not iterable; use layout modes via sublayout(L, i)")

    # Convenience accessors mirroring CuTe's free functions.
    def size(self) -> Int:
        return size(self)

    def cosize(self) -> Int:
        return cosize(self)

    def rank(self) -> int:
        return rank(self)

    def depth(self) -> int:
        return depth(self)

    @property
    def concrete(self) -> bool:
        return is_concrete(self.shape) and is_concrete(self.stride)

    def symbols(self) -> set[str]:
        return symbols_of(self.shape) | symbols_of(self.stride)

    def substitute(self, values: Mapping[str, int]) -> Layout:
        """The same layout with symbols replaced by concrete run-time values."""
        return Layout(substitute_tuple(self.shape, values), substitute_tuple(self.stride, values))

    def values(self, limit: int | None = None) -> list[int]:
        """``[L(0), ..., L(size-1)]`` for a concrete layout."""
        n = int(size(self))
        if limit is not None and n > limit:
            raise LayoutError(f"size {n} is larger than the limit {limit} for enumerating values")
        return [int(self(i)) for i in range(n)]



_set_shape = Layout.__dict__["shape"].__set__  # slot setters: immutability is kept for users
_set_stride = Layout.__dict__["stride"].__set__
_set_hash = Layout.__dict__["_hash"].__set__


def layout_of(shape: IntTuple, stride: IntTuple) -> Layout:
    """The layout ``shape:stride`` without the constructor's checks, for a shape and stride that are congruent
    IntTuples by construction (the modes or leaves of other layouts)."""
    x = _new(Layout)
    _set_shape(x, shape)
    _set_stride(x, stride)
    return x


_new = object.__new__


def _well_formed(shape: object, stride: object) -> bool:
    """Whether ``shape`` and ``stride`` are already congruent IntTuples (tuples, ``Int`` and scaled-basis leaves), so
    that ``as_int_tuple`` would return equal values and ``congruent`` holds: one walk instead of three."""
    if type(shape) is not tuple:
        ts, td = type(shape), type(stride)
        return (ts is Int or ts is ScaledBasis) and (td is Int or td is ScaledBasis)
    if type(stride) is not tuple or len(shape) != len(stride):
        return False
    for s, d in zip(shape, stride):
        ts = type(s)
        if ts is Int or ts is ScaledBasis:
            td = type(d)
            if td is not Int and td is not ScaledBasis:
                return False
        elif ts is not tuple or not _well_formed(s, d):
            return False
    return True


# -- size and shape queries ---------------------------------------------------------------------------------------


def size(x: Layout | IntTuple, *path: int) -> Int:
    """``size<I...>(x)``: the product of the shape (of mode ``I...``)."""
    shape = x.shape if isinstance(x, Layout) else x
    return product(get(shape, *path))


def cosize(layout: Layout, *path: int) -> Int:
    """``cosize`` (layout.hpp:646-667): ``(_0 + Σ (s-_1)*|d|) + _1``, the extent of the codomain."""
    shape = get(layout.shape, *path)
    stride = get(layout.stride, *path)
    if has_basis(stride):
        return basis_cosize(Layout(shape, stride))
    ab = transform_leaf(stride, abs_)
    if dsl():
        # DSL branch (DSL 4.8.1 cute.cosize, observed: cosize((?,1):(0,13)) and cosize((2,?):(1,0)) are run-time
        # values, cosize((1,?):(5,0)) and cosize((?):(0)) the static 1; C++'s sum makes all four static): the same
        # value, computed as L(size(L) - 1) + 1 over |strides|, so a mode is static only where crd2idx makes it so.
        return crd2idx(product(shape) - S(1), shape, ab) + S(1)
    with site("coshape", "layout.hpp:653", *leaves(shape)):
        m1 = transform_leaf(shape, lambda s: s - S(1))
    total = inner_product(m1, ab)
    with site("coshape", "layout.hpp:654", total):
        return total + S(1)


def rank(x: Layout | IntTuple, *path: int) -> int:
    shape = x.shape if isinstance(x, Layout) else x
    return tuple_rank(get(shape, *path))


def depth(x: Layout | IntTuple, *path: int) -> int:
    shape = x.shape if isinstance(x, Layout) else x
    return tuple_depth(get(shape, *path))


def shape(layout: Layout, *path: int) -> IntTuple:
    return get(layout.shape, *path)


def stride(layout: Layout, *path: int) -> IntTuple:
    return get(layout.stride, *path)


# -- construction ---------------------------------------------------------------------------------------------------


def make_layout(*args: Layout | IntTuple | int | str | None, order: str | None = None) -> Layout:
    """CuTe's ``make_layout`` overloads (layout.hpp:332-409).

    * ``make_layout(shape)`` and ``make_layout(shape, "LayoutLeft")``: compact column-major strides;
    * ``make_layout(shape, "LayoutRight")``: compact row-major strides;
    * ``make_layout(shape, stride)``;
    * ``make_layout(L)``: wraps L in a rank-1 layout; ``make_layout(L0, L1, ...)``: concatenates modes.
    """
    if args:
        shapes: list[IntTuple] = []
        strides: list[IntTuple] = []
        for x in args:
            if not isinstance(x, Layout):
                break
            shapes.append(x.shape)
            strides.append(x.stride)
        else:
            return layout_of(tuple(shapes), tuple(strides))  # modes of layouts: congruent by construction
    if len(args) == 1:
        return Layout(as_int_tuple(args[0]), None)
    if len(args) == 2:
        shp = as_int_tuple(args[0])
        if args[1] in ("LayoutLeft", "GenColMajor"):
            return Layout(shp, compact_major(shp, right=False))
        if args[1] in ("LayoutRight", "GenRowMajor"):
            return Layout(shp, compact_major(shp, right=True))
        if isinstance(args[1], str):
            raise LayoutError(f"make_layout: unknown tag {args[1]!r} (LayoutLeft or LayoutRight)")
        return Layout(shp, as_int_tuple(args[1]))
    raise LayoutError("make_layout: expected a shape, a shape and a stride or tag, or layouts to concatenate")


def _mode(layout: Layout, i: int) -> Layout:
    return Layout(get(layout.shape, i), get(layout.stride, i))


def _modes(layout: Layout) -> list[Layout]:
    if type(layout.shape) is tuple:
        return [Layout(s, d) for s, d in zip(layout.shape, layout.stride)]  # type: ignore[arg-type]
    return [layout]


def _check_mode_index(layout: Layout, i: int, what: str) -> None:
    r = rank(layout)
    if not 0 <= i < r:
        raise CuteRejection(f"{what}: mode {i} is out of range for rank {r}", "layout.hpp")


def sublayout(layout: Layout, *path: int) -> Layout:
    """CuTe's ``layout<I...>(L)``: the sub-layout at a (hierarchical) mode index."""
    for i in path:
        _check_mode_index(layout, i, f"layout<{i}>")
        layout = _mode(layout, i)
    return layout


def select(layout: Layout, *modes: int) -> Layout:
    """``select<I...>(L)``: a layout of the chosen top-level modes, always a tuple (``select<2>`` is ``(5):(6)``)."""
    for i in modes:
        _check_mode_index(layout, i, f"select<{i}>")
    return Layout(tuple(get(layout.shape, i) for i in modes), tuple(get(layout.stride, i) for i in modes))


def take(layout: Layout, begin: int, end: int) -> Layout:
    """``take<B,E>(L)``: modes ``[B, E)``; CuTe rejects an empty range."""
    r = rank(layout)
    if not (0 <= begin < end <= r):
        raise CuteRejection(f"take<{begin},{end}>: need 0 <= B < E <= rank ({r})", "layout.hpp")
    return select(layout, *range(begin, end))


def group(layout: Layout, begin: int, end: int) -> Layout:
    """``group<B,E>(L)``: modes ``[B, E)`` become one mode."""
    r = rank(layout)
    if not (0 <= begin < end <= r):
        raise CuteRejection(f"group<{begin},{end}>: need 0 <= B < E <= rank ({r})", "layout.hpp")
    modes = _modes(layout)
    grouped = modes[:begin] + [make_layout(*modes[begin:end])] + modes[end:]
    return make_layout(*grouped)


def flatten(layout: Layout) -> Layout:
    """``flatten(L)``: every leaf a top-level mode; an integral layout stays integral."""
    if type(layout.shape) is not tuple:
        return layout
    return Layout(tuple(leaves(layout.shape)), tuple(leaves(layout.stride)))


def append(layout: Layout, x: Layout | None = None, n: int | None = None) -> Layout:
    """``append(L, X)`` adds mode X; ``append<N>(L)`` pads with ``_1:_0`` modes up to rank N."""
    modes = _modes(layout)
    if n is None:
        return make_layout(*modes, x if x is not None else Layout(S(1), S(0)))
    pad = x if x is not None else Layout(S(1), S(0))
    if n < len(modes):
        raise CuteRejection(f"append<{n}>: the layout already has rank {len(modes)}", "layout.hpp")
    return make_layout(*modes, *([pad] * (n - len(modes))))


def prepend(layout: Layout, x: Layout | None = None, n: int | None = None) -> Layout:
    """``prepend(L, X)`` adds mode X in front; ``prepend<N>(L)`` pads in front up to rank N."""
    modes = _modes(layout)
    pad = x if x is not None else Layout(S(1), S(0))
    if n is None:
        return make_layout(pad, *modes)
    if n < len(modes):
        raise CuteRejection(f"prepend<{n}>: the layout already has rank {len(modes)}", "layout.hpp")
    return make_layout(*([pad] * (n - len(modes))), *modes)


def replace(layout: Layout, i: int, x: Layout) -> Layout:
    """``replace<I>(L, X)``: mode I becomes X."""
    _check_mode_index(layout, i, f"replace<{i}>")
    modes = _modes(layout)
    modes[i] = x
    return make_layout(*modes)


class Underscore:
    """CuTe's ``_``: the by-mode tiler element that leaves a mode unchanged."""

    __slots__ = ()

    def __str__(self) -> str:
        return "_"

    def __repr__(self) -> str:
        return "_"

    def __eq__(self, other: object) -> bool:
        return type(other) is Underscore

    def __hash__(self) -> int:
        return hash("_")


UNDERSCORE = Underscore()

TileElement = Union[Layout, IntTuple, Underscore, "Tile"]


class Tile:
    """A by-mode tiler ``<L0, L1, ...>`` (CuTe's ``make_tile``): one element per mode it applies to.

    Printed as ``<...>`` so that it parses back; ``cute_str`` gives CuTe's own ``print`` form ``(...)``.
    """

    __slots__ = ("elements",)
    elements: tuple[TileElement, ...]

    def __init__(self, elements: Sequence[TileElement]) -> None:
        object.__setattr__(self, "elements", tuple(elements))

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("Tile is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is Tile and other.elements == self.elements

    def __hash__(self) -> int:
        return hash(("tile", self.elements))

    def __len__(self) -> int:
        return len(self.elements)

    def __str__(self) -> str:
        return "<" + ",".join(_element_str(e) for e in self.elements) + ">"

    def cute_str(self) -> str:
        return "(" + ",".join(_element_str(e, cute=True) for e in self.elements) + ")"

    def __repr__(self) -> str:
        return f"Tile({self})"


def _element_str(e: TileElement, cute: bool = False) -> str:
    if isinstance(e, Tile):
        return e.cute_str() if cute else str(e)
    if isinstance(e, (Layout, Underscore)):
        return str(e)
    return format_tuple(e)


def basis_crd2idx(coord: object, shape: object, stride: object) -> Value:
    """``crd2idx(c, shape, stride)`` for strides that may hold scaled bases; the sums are CuTe's ``operator+``."""
    if type(coord) is tuple:
        if type(shape) is not tuple:
            raise CuteRejection("Invalid parameters", "stride.hpp:116")
        if len(coord) != len(shape) or len(shape) != len(stride):  # type: ignore[arg-type]
            raise CuteRejection("Mismatched Ranks", "stride.hpp:110")
        acc: Value | None = None
        for c, s, d in zip(coord, shape, stride):  # type: ignore[call-overload]
            term = basis_crd2idx(c, s, d)
            acc = term if acc is None else add(acc, term)  # a fold without an initial value (:73)
        return acc if acc is not None else S(0)
    assert type(coord) is Int
    if type(shape) is tuple:
        if type(stride) is not tuple or len(shape) != len(stride):
            raise CuteRejection("Mismatched Ranks", "stride.hpp:119")
        if not shape:
            return S(0)
        if len(shape) == 1:
            return basis_crd2idx(coord, shape[0], stride[0])
        if coord.is_constant(0):  # stride.hpp:85-87
            rest: Value = S(0)
            for s, d in zip(shape[1:], stride[1:]):
                rest = add(rest, basis_crd2idx(S(0), s, d))
            return add(basis_crd2idx(S(0), shape[0], stride[0]), rest)
        p = product(shape[0])
        return add(basis_crd2idx(coord % p, shape[0], stride[0]), basis_crd2idx(coord / p, shape[1:], stride[1:]))
    return mul(coord, stride)  # type: ignore[arg-type]


def basis_cosize(layout: Layout) -> Int:
    """``cosize`` (layout.hpp:664-667): ``size(coshape(L))``, where ``coshape`` (:646-656) is the arithmetic tuple
    ``Σ (s-1)*|d|`` plus ``_1`` at each leaf."""
    m1 = transform_leaf(layout.shape, lambda s: s - S(1))
    ab = _map_leaves(layout.stride, basis_abs)
    co = _plus_one(as_arith(_inner_product(m1, ab)))
    return product(tuple(_leaves_of(co))) if type(co) is ArithTuple else co  # type: ignore[return-value]
