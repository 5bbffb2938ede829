"""IntTuples: an ``Int`` or a (possibly nested) Python tuple of IntTuples, with CuTe's operations on them.

Each function follows ``int_tuple.hpp`` / ``stride.hpp`` of CuTe 4.2, including the static/dynamic flag of every
result leaf, and names the source it reproduces.  Ranks and profiles are always static in CuTe, so the functions
that answer profile questions (``rank``, ``depth``, ``congruent``, ``weakly_congruent``) return Python values;
``compatible`` compares sizes and so returns a ``Bool`` that is dynamic when a size is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Union

from verifier.core.basis import ScaledBasis
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import (
    FALSE,
    TRUE,
    Bool,
    Int,
    IntLike,
    S,
    and_,
    as_int,
    ceil_div_int,
    eq,
    site,
    substitute,
)

IntTuple = Union[Int, tuple["IntTuple", ...]]


def is_tuple(t: object) -> bool:
    return type(t) is tuple


def as_int_tuple(t: object) -> IntTuple:
    """Python ints become dynamic ``Int``s (as C++ ``int``s are); tuples are converted recursively. A scaled-basis
    stride leaf (``_1@0``, ``basis.py``) is kept."""
    if type(t) is Int:
        return t
    if type(t) is tuple:
        return tuple(as_int_tuple(x) for x in t)
    if type(t) is ScaledBasis:
        return t  # type: ignore[return-value]
    return as_int(t)  # type: ignore[arg-type]


def rank(t: IntTuple) -> int:
    return len(t) if type(t) is tuple else 1


def depth(t: IntTuple) -> int:
    if type(t) is tuple:
        return 1 + max((depth(x) for x in t), default=0)
    return 0


def get(t: IntTuple, *path: int) -> IntTuple:
    """Hierarchical ``get<I0,I1,...>``; ``get<0>`` of an integer is the integer."""
    for i in path:
        if type(t) is tuple:
            if not -len(t) <= i < len(t) or i < 0:
                raise LayoutError(f"get<{i}>: index out of range for rank {len(t)}")
            t = t[i]
        elif i == 0:
            pass
        else:
            raise LayoutError(f"get<{i}>: an integer has rank 1")
    return t


def leaves(t: IntTuple) -> Iterator[Int]:
    return iter(leaf_list(t))


def leaf_list(t: IntTuple) -> list[Int]:
    """The leaves in order, as a new list (one call per nesting level, not a generator per node)."""
    if type(t) is not tuple:
        return [t]  # type: ignore[list-item]
    out: list[Int] = []
    for x in t:
        if type(x) is tuple:
            out += leaf_list(x)
        else:
            out.append(x)  # type: ignore[arg-type]
    return out


def flatten(t: IntTuple) -> IntTuple:
    """All leaves as a flat tuple; an integer stays an integer."""
    return tuple(leaves(t)) if type(t) is tuple else t


def transform_leaf(t: IntTuple, fn: Callable[[Int], IntTuple]) -> IntTuple:
    if type(t) is tuple:
        return tuple(transform_leaf(x, fn) for x in t)
    return fn(t)  # type: ignore[arg-type]


def product(t: IntTuple) -> Int:
    """``product`` (int_tuple.hpp:210-235): a left fold of ``*`` over the modes; ``_1`` for an empty tuple."""
    if type(t) is not tuple:
        return t  # type: ignore[return-value]
    if not t:
        return S(1)
    parts = [product(x) for x in t]
    acc = parts[0]
    for p in parts[1:]:
        with site("product", "int_tuple.hpp:233", acc, p):
            acc = acc * p
    return acc


size = product


def product_each(t: IntTuple) -> IntTuple:
    return tuple(product(x) for x in wrap(t))


def wrap(t: IntTuple) -> tuple[IntTuple, ...]:
    return t if type(t) is tuple else (t,)


def unwrap(t: IntTuple) -> IntTuple:
    """A rank-1 tuple becomes its element, recursively (CuTe's ``unwrap``)."""
    while type(t) is tuple and len(t) == 1:
        t = t[0]
    return t


def inner_product(a: IntTuple, b: IntTuple) -> Int:
    """``inner_product`` (int_tuple.hpp:306-317): ``(_0 + ... + a_i*b_i)``."""
    if type(a) is tuple and type(b) is tuple:
        if len(a) != len(b):
            raise LayoutError("inner_product: mismatched ranks")
        acc: Int = S(0)
        for x, y in zip(a, b):
            term = inner_product(x, y)
            with site("inner_product", "int_tuple.hpp:311", acc, term):
                acc = acc + term
        return acc
    with site("inner_product", "int_tuple.hpp:313", a, b):  # type: ignore[arg-type]
        return a * b  # type: ignore[operator,return-value]  # leaves here (int tuples are recursive Int | tuple)


def prefix_product(t: IntTuple, init: IntLike | None = None) -> IntTuple:
    """Exclusive prefix product, pycute's ``prefix_product`` (CuTe 4.2 C++ uses ``compact_major`` instead).

    Unlike ``compact_major`` it gives a shape-1 mode a non-zero stride: ``prefix_product((1,4)) == (_1,1)``.
    """
    cur = S(1) if init is None else as_int(init)
    if type(t) is not tuple:
        return cur

    def go(x: IntTuple, c: Int) -> tuple[IntTuple, Int]:
        if type(x) is tuple:
            out = []
            for y in x:
                r, c = go(y, c)
                out.append(r)
            return tuple(out), c
        return c, c * x  # type: ignore[return-value]  # x is a leaf (int tuples are recursive Int | tuple)

    return go(t, cur)[0]


def compact_major(shape: IntTuple, right: bool = False, current: IntTuple | None = None) -> IntTuple:
    """``compact_major<LayoutLeft|LayoutRight>`` (stride.hpp:291-361): a static ``_1`` extent gets stride ``_0``."""
    cur: IntTuple = S(1) if current is None else current
    if type(cur) is tuple:
        if type(shape) is not tuple or len(shape) != len(cur):
            raise LayoutError("compact_major: shape and current are not congruent")
        return tuple(compact_major(s, right, c) for s, c in zip(shape, cur))
    if type(shape) is Int:  # one extent: its stride is the current one, but CuTe still computes current * shape
        # (stride.hpp:305, the recurrence's next value, then dropped): that product can overflow (OVF-ARITH), as
        # the selfcheck against the headers run symbolically found (make_ordered_layout, make_layout_like).
        return _compact_major(shape, cur, right)[0]  # type: ignore[arg-type]
    return _compact_major(shape, cur, right)[0]  # type: ignore[arg-type]


def _compact_major(s: IntTuple, c: Int, right: bool) -> tuple[IntTuple, Int]:
    """The strides of ``s`` from the current stride ``c``, and the stride after it."""
    if type(s) is tuple:
        out: list[IntTuple] = [S(0)] * len(s)
        order = range(len(s) - 1, -1, -1) if right else range(len(s))
        for i in order:
            out[i], c = _compact_major(s[i], c, right)
        return tuple(out), c
    if s.is_constant(1):  # type: ignore[union-attr]
        return S(0), c
    with site("compact_major", "stride.hpp:305", c, s):  # type: ignore[arg-type]
        return c, c * s  # type: ignore[return-value]  # s is a leaf here (int tuples are recursive Int | tuple)


def compact_col_major(shape: IntTuple, current: IntTuple | None = None) -> IntTuple:
    return compact_major(shape, False, current)


def compact_row_major(shape: IntTuple, current: IntTuple | None = None) -> IntTuple:
    return compact_major(shape, True, current)


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """Same profile (int_tuple.hpp:438-445); always static."""
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))
    return type(a) is not tuple and type(b) is not tuple


def weakly_congruent(a: IntTuple, b: IntTuple) -> bool:
    """``a <= b`` in the profile order (int_tuple.hpp:453-474); always static."""
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(weakly_congruent(x, y) for x, y in zip(a, b))
    return type(a) is not tuple


def compatible(a: IntTuple, b: IntTuple) -> Bool:
    """``compatible`` (int_tuple.hpp:485-506): at each leaf of ``a``, ``a == size(b)``; dynamic when sizes are."""
    if type(a) is tuple and type(b) is tuple:
        if len(a) != len(b):
            return FALSE
        return and_(TRUE, *(compatible(x, y) for x, y in zip(a, b)))
    if type(a) is not tuple:
        return eq(a, size(b))  # type: ignore[arg-type]
    return FALSE


def ceil_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """``ceil_div`` (int_tuple.hpp:323-348), including the tuple/int fold that over-approximates."""
    if type(a) is tuple:
        if type(b) is tuple:
            if len(a) < len(b):
                raise CuteRejection("Mismatched ranks", "int_tuple.hpp:330")
            bb = tuple(b) + (S(1),) * (len(a) - len(b))
            return tuple(ceil_div(x, y) for x, y in zip(a, bb))
        out = []
        rest: IntTuple = b
        for ai in a:
            out.append(ceil_div(ai, rest))
            rest = ceil_div(rest, ai)
        return tuple(out)
    if type(b) is tuple:
        return ceil_div(a, product(b))
    return ceil_div_int(a, b)  # type: ignore[arg-type]


def round_up(a: IntTuple, b: IntTuple) -> IntTuple:
    """``round_up`` (int_tuple.hpp:355-369)."""
    if type(a) is tuple and type(b) is tuple:
        if len(a) < len(b):
            raise CuteRejection("Mismatched ranks", "int_tuple.hpp:361")
        bb = tuple(b) + (S(1),) * (len(a) - len(b))
        return tuple(round_up(x, y) for x, y in zip(a, bb))
    with site("round_up", "int_tuple.hpp:364", a, b):  # type: ignore[arg-type]
        return ((a + b - S(1)) / b) * b  # type: ignore[operator]


def shape_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """``shape_div`` (int_tuple.hpp:371-418). The weak divisibility condition is a static_assert only when both
    operands are static; for dynamic operands CuTe silently returns ``ceil_div``."""
    if type(a) is tuple:
        if type(b) is tuple:
            if len(a) != len(b):
                raise CuteRejection("Mismatched ranks", "int_tuple.hpp:390")
            return tuple(shape_div(x, y) for x, y in zip(a, b))
        out = []
        rest: IntTuple = b
        for ai in a:
            out.append(shape_div(ai, rest))
            rest = shape_div(rest, ai)
        return tuple(out)
    if type(b) is tuple:
        return shape_div(a, product(b))
    assert isinstance(a, Int) and isinstance(b, Int)
    if a.static and b.static:
        av, bv = a.value, b.value
        assert av is not None and bv is not None
        if bv == 0 or av == 0 or not (av % bv == 0 or bv % av == 0):
            raise CuteRejection("Divisibility Condition", "int_tuple.hpp:408")
    with site("shape_div", "int_tuple.hpp:413", a, b):
        return (a + b - S(1)) / b


def elem_scale(a: IntTuple, b: IntTuple) -> IntTuple:
    """``elem_scale`` (int_tuple.hpp:422-434)."""
    if type(a) is tuple:
        if type(b) is not tuple or len(a) != len(b):
            raise LayoutError("elem_scale: mismatched ranks")
        return tuple(elem_scale(x, y) for x, y in zip(a, b))
    pb = product(b)
    with site("elem_scale", "int_tuple.hpp:430", a, pb):  # type: ignore[arg-type]
        return a * pb


def crd2idx(coord: IntTuple, shape: IntTuple, stride: IntTuple | None = None) -> Int:
    """``crd2idx(c, shape, stride)`` (stride.hpp:60-124): an integer coordinate is split colexicographically
    over the modes, each but the last reduced modulo its size; the last mode gets the quotient unreduced.
    Without a stride, ``crd2idx(c, shape)``: the colexicographic index of ``c`` in ``shape``."""
    if stride is None:
        return crd2idx_shape(coord, shape)
    if type(coord) is tuple:
        if type(shape) is not tuple:
            raise CuteRejection("Invalid parameters", "stride.hpp:116")
        if len(coord) != len(shape) or len(shape) != len(stride):  # type: ignore[arg-type]
            raise CuteRejection("Mismatched Ranks", "stride.hpp:110")
        acc = None
        for c, s, d in zip(coord, shape, stride):  # type: ignore[arg-type]
            term = crd2idx(c, s, d)
            if acc is None:
                acc = term
            else:
                with site("crd2idx", "stride.hpp:73", acc, term):
                    acc = acc + term
        return acc if acc is not None else S(0)
    if type(shape) is tuple:
        if type(stride) is not tuple or len(shape) != len(stride):
            raise CuteRejection("Mismatched Ranks", "stride.hpp:119")
        return _crd2idx_itt(coord, shape, stride)  # type: ignore[arg-type]
    with site("crd2idx", "stride.hpp:119", coord, stride):  # type: ignore[arg-type]
        return coord * stride  # type: ignore[operator,return-value]  # leaves here (int tuples are recursive Int | tuple)


def _crd2idx_itt(coord: Int, shape: tuple[IntTuple, ...], stride: tuple[IntTuple, ...]) -> Int:
    if not shape:
        return S(0)
    if len(shape) == 1:
        return crd2idx(coord, shape[0], stride[0])
    if coord.is_constant(0):  # stride.hpp:85-87
        acc = crd2idx(S(0), shape[0], stride[0])
        rest: Int = S(0)
        for s, d in zip(shape[1:], stride[1:]):
            rest = rest + crd2idx(S(0), s, d)
        return acc + rest
    p = product(shape[0])
    with site("crd2idx", "stride.hpp:90", coord, p):
        head, tail = coord % p, coord / p
    first, rest = crd2idx(head, shape[0], stride[0]), _crd2idx_itt(tail, shape[1:], stride[1:])
    with site("crd2idx", "stride.hpp:90", first, rest):
        return first + rest


def crd2idx_shape(coord: IntTuple, shape: IntTuple) -> Int:
    """``crd2idx(c, shape)`` (stride.hpp:149-167): colexicographic Horner; an integer coordinate is returned."""
    if type(coord) is not tuple:
        return coord  # type: ignore[return-value]
    if type(shape) is not tuple:
        raise CuteRejection("Invalid parameters", "stride.hpp:159")
    if len(coord) != len(shape):
        raise CuteRejection("Mismatched Ranks", "stride.hpp:161")
    flat_c = list(leaves(coord))
    flat_s = list(leaves(_product_like(shape, coord)))
    acc = flat_c[-1]
    for c, s in zip(reversed(flat_c[:-1]), reversed(flat_s[:-1])):
        acc = c + s * acc
    return acc


def _product_like(t: IntTuple, guide: IntTuple) -> IntTuple:
    if type(guide) is tuple:
        return tuple(_product_like(x, g) for x, g in zip(t, guide))  # type: ignore[arg-type]
    return product(t)


def idx2crd(idx: IntTuple, shape: IntTuple, stride: IntTuple | None = None) -> IntTuple:
    """``idx2crd`` (stride.hpp:182-247).

    With a stride: per leaf ``(i / d) % s`` (a static ``_1`` extent gives ``_0``); it "only works for compact
    layouts" (stride.hpp:179).  Without a stride: the colexicographic coordinate, the last mode NOT reduced.
    """
    if stride is not None:
        if type(idx) is tuple:
            if type(shape) is not tuple:
                raise CuteRejection("Invalid parameters", "stride.hpp:200")
            return tuple(idx2crd(i, s, d) for i, s, d in zip(idx, shape, stride))  # type: ignore[arg-type]
        if type(shape) is tuple:
            if type(stride) is not tuple:
                stride = compact_col_major(shape, stride)
            return tuple(idx2crd(idx, s, d) for s, d in zip(shape, stride))  # type: ignore[arg-type]
        if shape.is_constant(1):  # type: ignore[union-attr]
            return S(0)
        return (idx / stride) % shape  # type: ignore[operator]
    if type(idx) is tuple:
        if type(shape) is not tuple:
            raise CuteRejection("Invalid parameters", "stride.hpp:238")
        return tuple(idx2crd(i, s) for i, s in zip(idx, shape))
    if type(shape) is not tuple:
        return idx
    # crd2idx(idx, shape, basis) splits idx colexicographically, the last mode unreduced.
    flat = list(leaves(shape))
    coords: list[Int] = []
    rest: Int = idx  # type: ignore[assignment]
    for k, s in enumerate(flat):
        if k == len(flat) - 1:
            coords.append(rest)
        else:
            coords.append(rest % s)
            rest = rest / s
    it = iter(coords)
    return transform_leaf(shape, lambda _: next(it))


def crd2crd(coord: IntTuple, src_shape: IntTuple, dst_shape: IntTuple) -> IntTuple:
    """``crd2crd`` (stride.hpp:252-270): ``idx2crd(crd2idx(c, src), dst)``; sizes are not checked (IX-5)."""
    if type(coord) is tuple and type(src_shape) is tuple and type(dst_shape) is tuple:
        if not (len(coord) == len(src_shape) == len(dst_shape)):
            raise CuteRejection("Mismatched Ranks", "stride.hpp:258")
        return tuple(crd2crd(c, s, d) for c, s, d in zip(coord, src_shape, dst_shape))
    return idx2crd(crd2idx_shape(coord, src_shape), dst_shape)


def substitute_tuple(t: IntTuple, values: Mapping[str, int]) -> IntTuple:
    """The tuple with symbol values substituted; ``_`` leaves of a coordinate stay."""
    def leaf(x: Int) -> Int:
        if type(x) is ScaledBasis:  # type: ignore[comparison-overlap]  # a stride leaf may be a scaled basis
            return x.substitute(values)
        return x if not isinstance(x, Int) else substitute(x, values)

    return transform_leaf(t, leaf)


def symbols_of(t: IntTuple) -> set[str]:
    out: set[str] = set()
    for x in leaves(t):
        out |= x.symbols()
    return out


def is_concrete(t: IntTuple) -> bool:
    return all(x.concrete for x in leaves(t))


def format_tuple(t: IntTuple) -> str:
    """CuTe's ``print`` of an IntTuple: ``(a,b)``, a rank-1 tuple as ``(a)``."""
    if type(t) is tuple:
        return "(" + ",".join(format_tuple(x) for x in t) + ")"
    return str(t)
