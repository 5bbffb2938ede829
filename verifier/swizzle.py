"""Swizzles and composed layouts: CuTe's ``Swizzle<B,M,S>`` (``swizzle.hpp``) and ``ComposedLayout<A,O,B>``
(``layout_composed.hpp``, ``swizzle_layout.hpp``), with the algebra CuTe 4.2 defines on them.

``Swizzle(B, M, S)`` maps ``x`` to ``x ^ ((x & yyy_msk) >> S)`` (swizzle.hpp:73-79).  Its parameters are template
arguments, so it is always static and its invariants are ``static_assert``s (swizzle.hpp:61-63), raised here as
``CuteRejection`` naming the source.  Applied to an ``Int`` it keeps CuTe's flag: static in, static out.  For a
symbolic integer the XOR is written exactly with ``/`` and ``%`` (floor bit extraction), so it stays an ``Int``.

``ComposedLayout(a, offset, b)`` is the function ``c -> a(offset + b(c))``, printed ``a o offset o b`` exactly as
CuTe (``Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)``); its domain is ``b``'s (``size``, ``cosize``, ``shape``).

The entry points are CuTe's overloads, each reproduced with its checks:

* ``composition(Sw, L)`` is ``Sw o _0 o L``, or ``L`` for an identity swizzle (swizzle_layout.hpp:305-325);
* ``composition(L, Sw)`` builds ``make_swizzle<L(yyy), L(zzz)>() o _0 o L`` (:327-341): L must be static
  (a compile error otherwise), and CuTe NEVER checks that L is XOR-linear on the swizzled bits, so the result can
  be silently wrong; obligation SW-3 records ``R(i) == L(Sw(i))``, decided on the (always concrete) values;
* ``composition(Sw0, Sw1)`` merges masks (swizzle.hpp:119-131); ``composition(C, T)`` composes C's inner layout
  (layout_composed.hpp:370-377); ``composition(L, C)`` needs a static ``_0`` offset (CMP-8, :379-389);
* ``right_inverse`` / ``left_inverse`` of a composed layout (swizzle_layout.hpp:348-405; layout_composed.hpp:415-429),
  including CuTe's "Kludge" offset inverse ``-O``, which compiles only for a static offset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Union

from .basis import add, has_basis
from .errors import CuteRejection, LayoutError, UndefinedBehavior
from .integers import Bool, Const, Int, S
from .layouts import Layout, depth, rank
from .obligations import NEVER, Recorder, record, recording

SW_SOURCE = "swizzle.hpp"
_U32 = 1 << 32


def _int32(v: int) -> int:
    """Two's-complement wrap of a C++ ``int``."""
    v &= _U32 - 1
    return v - _U32 if v >= 1 << 31 else v


def _shl_const(v: int, k: int, what: str) -> int:
    """A ``constexpr int`` left shift (C++17): the count in ``[0, 32)`` and the result representable unsigned."""
    if not 0 <= k < 32 or v < 0 or (v << k) >= _U32:
        raise CuteRejection(f"compile error: {what} ({v} << {k}) is not a constant expression", "swizzle.hpp:66-68")
    return _int32(v << k)


class Swizzle:
    """``Swizzle<BBits, MBase, SShift>``: XOR the ``B`` bits at ``M + max(0,S)`` into the bits at ``M - min(0,S)``."""

    __slots__ = ("bits", "base", "shift", "yyy_msk", "zzz_msk")

    def __init__(self, bits: int, base: int, shift: int) -> None:
        for name, v in (("B", bits), ("M", base), ("S", shift)):
            if type(v) is not int:
                raise LayoutError(f"Swizzle<B,M,S>: {name} must be an integer, got {v!r}")
        if base < 0:
            raise CuteRejection("MBase must be positive.", "swizzle.hpp:61")
        if bits < 0:
            raise CuteRejection("BBits must be positive.", "swizzle.hpp:62")
        if abs(shift) < bits:
            raise CuteRejection("abs(SShift) must be more than BBits.", "swizzle.hpp:63")
        if bits >= 31:  # (1 << 31) - 1 overflows int in swizzle.hpp:66
            raise CuteRejection(f"compile error: bit_msk (1 << {bits}) - 1 overflows int", "swizzle.hpp:66")
        bit_msk = (1 << bits) - 1
        object.__setattr__(self, "bits", bits)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "shift", shift)
        object.__setattr__(self, "yyy_msk", _shl_const(bit_msk, base + max(0, shift), "yyy_msk"))
        object.__setattr__(self, "zzz_msk", _shl_const(bit_msk, base - min(0, shift), "zzz_msk"))

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("Swizzle is immutable")

    @property
    def swizzle_code(self) -> int:
        """``uint32_t(yyy_msk | zzz_msk)`` (swizzle.hpp:71)."""
        return (self.yyy_msk | self.zzz_msk) & (_U32 - 1)

    @property
    def identity(self) -> bool:
        return self.bits == 0

    def __eq__(self, other: object) -> bool:
        return type(other) is Swizzle and (other.bits, other.base, other.shift) == (self.bits, self.base, self.shift)

    def __hash__(self) -> int:
        return hash(("Sw", self.bits, self.base, self.shift))

    def __str__(self) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"  # swizzle.hpp:464-467

    def __repr__(self) -> str:
        return f"Swizzle({self.bits},{self.base},{self.shift})"

    def __call__(self, x: Int | int) -> Int:
        """``offset ^ shiftr(offset & yyy_msk, msk_sft)`` (swizzle.hpp:76-79), static exactly when ``x`` is."""
        if isinstance(x, int) and not isinstance(x, bool):
            x = Int(Const(x), False)
        if type(x) is not Int:
            raise LayoutError(f"{self} takes an integer, not {x}")
        if x.concrete:
            v = int(x)
            masked = v & self.yyy_msk
            moved = masked >> self.shift if self.shift >= 0 else masked << -self.shift
            return Int(Const(_int32(v ^ moved)), x.static)
        return self._symbolic(x)

    def _symbolic(self, x: Int) -> Int:
        # z_k ^= y_k adds (1 - 2 z_k) * 2^zpos_k where y_k is set: an if-then-else of linear terms rather than the
        # product y_k * (1 - 2 z_k), which would make the solver's problem nonlinear.  The Y and Z masks are
        # disjoint because |S| >= B.
        from .integers import Op

        out = x
        ylo = self.base + max(0, self.shift)
        zlo = self.base - min(0, self.shift)
        for k in range(self.bits):
            y, z = _bit(x, ylo + k), _bit(x, zlo + k)
            flip = (S(1) - S(2) * z) * S(1 << (zlo + k))
            out = out + Int(Op("ite", (Op("==", (y.expr, S(0).expr)), S(0).expr, flip.expr)), False)
        return out

    def substitute(self, values: Mapping[str, int]) -> Swizzle:
        return self

    @property
    def concrete(self) -> bool:
        return True

    def symbols(self) -> set[str]:
        return set()


def _bit(x: Int, b: int) -> Int:
    """Bit ``b`` of ``x`` in two's complement, with C++'s truncating ``%`` and ``/`` only."""
    m = S(1 << (b + 1))
    return ((x % m + m) % m) / S(1 << b)


Fn = Union[Swizzle, Layout, "ComposedLayout"]


class ComposedLayout:
    """``ComposedLayout<A,O,B>``: the function ``c -> A(O + B(c))`` (layout_composed.hpp:108-119)."""

    __slots__ = ("outer", "offset", "inner")

    def __init__(self, outer: Fn, offset: Int | int, inner: Fn) -> None:
        if isinstance(offset, int) and not isinstance(offset, bool):
            offset = Int(Const(offset), False)
        for part in (outer, inner):
            if not isinstance(part, (Swizzle, Layout, ComposedLayout)):
                raise LayoutError(f"a composed layout is made of swizzles and layouts, not {part!r}")
        if not isinstance(offset, Int):
            raise LayoutError(f"the offset of a composed layout is an integer, not {offset!r}")
        object.__setattr__(self, "outer", outer)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "inner", inner)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("ComposedLayout is immutable")

    def __eq__(self, other: object) -> bool:
        return (type(other) is ComposedLayout and other.outer == self.outer and other.offset == self.offset
                and other.inner == self.inner)

    def __hash__(self) -> int:
        return hash(("composed", self.outer, self.offset, self.inner))

    def __str__(self) -> str:
        return f"{self.outer} o {self.offset} o {self.inner}"  # layout_composed.hpp:647-651

    def __repr__(self) -> str:
        return f"ComposedLayout({self})"

    # CuTe's accessors (layout_composed.hpp:69-102)
    def layout_a(self) -> Fn:
        return self.outer

    def layout_b(self) -> Fn:
        return self.inner

    def _domain(self) -> Layout | ComposedLayout:
        if isinstance(self.inner, Swizzle):
            raise CuteRejection(f"compile error: {self} has no domain: its inner function {self.inner} is a "
                                "swizzle, which has no shape", "layout_composed.hpp:93-97")
        return self.inner

    @property
    def shape(self) -> object:
        return self._domain().shape

    def size(self) -> Int:
        return self._domain().size()

    def cosize(self) -> Int:
        """``cosize(layout_b)`` (layout_composed.hpp:270-277; swizzle_layout.hpp:168-175): A and O are ignored."""
        return self._domain().cosize()

    def rank(self) -> int:
        d = self._domain()
        return d.rank() if isinstance(d, ComposedLayout) else rank(d)

    def depth(self) -> int:
        d = self._domain()
        return d.depth() if isinstance(d, ComposedLayout) else depth(d)

    def __call__(self, *coord: object) -> Int:
        """``layout_a()(offset() + layout_b()(coord))`` (layout_composed.hpp:118)."""
        if not coord:
            raise LayoutError("a composed layout needs a coordinate")
        v = self.inner(*coord)  # type: ignore[operator]
        w = add(self.offset, v)
        if type(w) is not Int:
            raise LayoutError(f"{self}: the inner value {w} is a coordinate, which the outer function cannot take")
        return self.outer(w)  # type: ignore[return-value]

    @property
    def concrete(self) -> bool:
        return self.outer.concrete and self.offset.concrete and self.inner.concrete

    def symbols(self) -> set[str]:
        return self.outer.symbols() | self.offset.symbols() | self.inner.symbols()

    def substitute(self, values: Mapping[str, int]) -> ComposedLayout:
        from .integers import substitute

        offset = self.offset if type(self.offset) is not Int else substitute(self.offset, values)  # smem_ptr flags
        return ComposedLayout(self.outer.substitute(values), offset, self.inner.substitute(values))

    def values(self, limit: int | None = None) -> list[int]:
        """``[C(0), ..., C(size-1)]`` for a concrete composed layout."""
        n = int(self.size())
        if limit is not None and n > limit:
            raise LayoutError(f"size {n} is larger than the limit {limit} for enumerating values")
        return [int(self(i)) for i in range(n)]


def make_composed_layout(a: Fn, offset: Int | int, b: Fn) -> ComposedLayout:
    """``make_composed_layout(a, o, b)`` (layout_composed.hpp:205-213): always a ComposedLayout."""
    return ComposedLayout(a, offset, b)


def compose3(a: Fn, offset: Int, b: Fn) -> Fn:
    """The three-argument ``composition(a, o, b)`` (layout_composed.hpp:358-368), whose overload for an identity
    swizzle, a static ``_0`` offset and a plain layout returns the layout (swizzle_layout.hpp:305-315)."""
    # An smem_ptr flag is an Int<0> by derivation: the generic overload matches it better (gmma.py).
    if isinstance(a, Swizzle) and a.identity and type(offset) is Int and offset.is_constant(0) \
            and isinstance(b, Layout):
        return b
    return ComposedLayout(a, offset, b)


def is_swizzled(x: object) -> bool:
    """Whether ``x`` is a swizzle or a composed layout (the operands this module's overloads take)."""
    return isinstance(x, (Swizzle, ComposedLayout))


# -- make_swizzle and composition ---------------------------------------------------------------------------------


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _countr_zero(x: int) -> int:
    """``countr_zero`` of a ``uint32_t`` (numeric/math.hpp:247-252): 32 for zero."""
    return 32 if x == 0 else (x & -x).bit_length() - 1


def make_swizzle(y: int, z: int) -> Swizzle:
    """``make_swizzle<Y, Z>()`` (swizzle.hpp:103-117): the swizzle whose masks are exactly ``Y`` and ``Z``."""
    b = _popcount(y)
    if b != _popcount(z):
        raise CuteRejection("Number of bits in Y and Z don't match", "swizzle.hpp:110")
    ty, tz = _countr_zero(y), _countr_zero(z)
    sw = Swizzle(b, min(ty, tz) % 32, ty - tz)
    if (y | z) != sw.swizzle_code:
        raise CuteRejection("Something went wrong.", "swizzle.hpp:115")
    return sw


def compose_swizzles(s0: Swizzle, s1: Swizzle) -> Swizzle:
    """``composition(Sw0, Sw1)`` (swizzle.hpp:119-131): the XOR of their masks, which needs equal shifts."""
    if s0.shift != s1.shift:
        raise CuteRejection("Can only merge swizzles of the same shift.", "swizzle.hpp:125")
    return make_swizzle((s0.yyy_msk ^ s1.yyy_msk) & (_U32 - 1), (s0.zzz_msk ^ s1.zzz_msk) & (_U32 - 1))


def _static_mask_image(a: Layout, mask: int, name: str) -> int:
    """``a(mask)`` as the ``uint32_t`` template argument of ``make_swizzle`` (swizzle_layout.hpp:335-340)."""
    src = "swizzle_layout.hpp:340"
    try:
        v = a(S(mask))
    except UndefinedBehavior:
        raise CuteRejection(f"compile error: {name} divides by a static zero", src) from None
    if type(v) is not Int:
        raise CuteRejection(f"compile error: {name} = {v} is not an integer", src)
    if not v.static:
        raise CuteRejection(f"compile error: {name} = L({mask}) is a run-time value, not usable in a constant "
                            "expression (the layout must be static)", src)
    if not 0 <= int(v) < 1 << 31:
        raise CuteRejection(f"compile error: {name} = {int(v)} is not a valid uint32_t template argument", src)
    return int(v)


def compose_layout_swizzle(a: Layout, sw: Swizzle) -> Fn:
    """``composition(L, Sw)`` (swizzle_layout.hpp:327-341): ``make_swizzle<L(yyy), L(zzz)>() o _0 o L``."""
    from .algebra import POSTCONDITION_LIMIT

    y = _static_mask_image(a, sw.yyy_msk, "active_Y")
    z = _static_mask_image(a, sw.zzz_msk, "active_Z")
    result = compose3(make_swizzle(y, z), S(0), a)
    # A static L can still have run-time extents CuTe never reads; the condition over them is left to the engine.
    n = int(a.size()) if a.concrete else POSTCONDITION_LIMIT + 1
    if n <= POSTCONDITION_LIMIT:
        ok = all(int(result(i)) == int(a(sw(i))) for i in range(n))
        record("SW-3", f"L is XOR-linear on the bits {sw} swizzles: (L o Sw)(i) == L(Sw(i)) for every i < size(L) "
               "(\"Works in simple cases\", swizzle_layout.hpp:338)", "swizzle_layout.hpp:327-341", NEVER,
               Bool(Const(ok), False))
    return result


def _require_zero_offset(c: ComposedLayout) -> None:
    """CMP-8: ``CUTE_STATIC_ASSERT_V(b.offset() == Int<0>{})`` (layout_composed.hpp:386)."""
    if not c.offset.static:
        raise CuteRejection("compile error: the offset is a run-time integer, so offset == Int<0>{} is a run-time "
                            "bool in CUTE_STATIC_ASSERT_V", "layout_composed.hpp:386")
    if not c.offset.is_constant(0):
        raise CuteRejection("Require offset == 0.", "layout_composed.hpp:386")


def composition(a: object, b: object) -> Fn:
    """CuTe's ``composition`` overloads for swizzle and composed operands (see the module docstring)."""
    from . import algebra

    if isinstance(a, ComposedLayout):  # layout_composed.hpp:370-377: any tiler composes with the inner layout
        return compose3(a.outer, a.offset, algebra.composition(a.inner, b))  # type: ignore[arg-type]
    if isinstance(a, Swizzle):
        if isinstance(b, Swizzle):
            return compose_swizzles(a, b)
        if isinstance(b, Layout):
            return compose3(a, S(0), b)
        raise CuteRejection(f"compile error: no composition({a}, {b}): a swizzle composes only with a layout or a "
                            "swizzle", "swizzle_layout.hpp:317-325")
    if not isinstance(a, Layout):
        raise LayoutError(f"composition: cannot use {a!r} as the left operand")
    if isinstance(b, Swizzle):
        return compose_layout_swizzle(a, b)
    if isinstance(b, ComposedLayout):  # layout_composed.hpp:379-389
        _require_zero_offset(b)
        # The two inner compositions' own postconditions are replaced by the postcondition of the whole.
        result = _without(POSTCONDITIONS, lambda: algebra.composition(algebra.composition(a, b.outer), b.inner))
        _composed_postcondition(a, b, result)
        return result  # type: ignore[return-value]
    raise LayoutError(f"composition: cannot use {b!r} as the right operand")


# Postconditions of a sub-computation, superseded by the postcondition of the whole operation.
POSTCONDITIONS = frozenset({"CMP-POST", "CMP-POST-SIZE", "RI-POST", "LI-3"})


def _without(ids: frozenset[str], run: Callable[[], object]) -> object:
    """Run ``run`` and record its obligations except those in ``ids``."""
    with Recorder() as rec:
        out = run()
    for o in rec.obligations:
        if o.id not in ids:
            record(o.id, o.description, o.source, o.cute_checks, o.condition)
    return out


def _composed_postcondition(a: Layout, b: ComposedLayout, r: object) -> None:
    """``size(R) == size(B)`` and ``R(i) == A(B(i))`` for every i < size(B), decided on concrete values."""
    from .algebra import POSTCONDITION_LIMIT
    from .integers import eq

    try:
        record("CMP-POST-SIZE", "the result has the size of B: size(A o B) == size(B)", "layout.hpp:1022", NEVER,
               eq(r.size(), b.size()))  # type: ignore[attr-defined]
    except (LayoutError, UndefinedBehavior):
        pass
    try:
        if not (recording() and a.concrete and b.concrete and getattr(r, "concrete", False)):
            return
        n = int(b.size())
        if n > POSTCONDITION_LIMIT:
            return
        ok = int(r.size()) == n and all(int(r(i)) == int(a(int(b(i)))) for i in range(n))  # type: ignore[attr-defined]
    except (LayoutError, UndefinedBehavior):
        return
    record("CMP-POST", "the result is A after B: (A o B)(i) == A(B(i)) for every i < size(B)", "layout.hpp:1022",
           NEVER, Bool(Const(ok), False))


def check_plain_composition(a: object, b: object) -> None:
    """What ``algebra.composition`` does not model: scaled-basis strides on both sides, and by-mode tilers with
    swizzled elements."""
    from .layouts import Tile

    if isinstance(a, Layout) and has_basis(a.stride) and isinstance(b, Layout) and has_basis(b.stride):
        raise LayoutError(f"composition: scaled-basis strides on both sides ({a} o {b}) are not modelled")
    if isinstance(b, Tile) and any(is_swizzled(e) for e in b.elements):
        raise LayoutError(f"composition: a tiler with swizzled elements ({b}) is not modelled")


# The operations of algebra.OPERATIONS that take scaled-basis strides (identity and coordinate tensors): CuTe's
# ScaledBasis has *, ==, abs and ceil_div but no / or %, which is what these need of a stride.
BASIS_OPERATIONS = frozenset({"composition", "coalesce", "filter", "logical_divide", "zipped_divide",
                              "tiled_divide", "flat_divide"})

# The operations of algebra.OPERATIONS that take swizzles and composed layouts (all others refuse them).
SWIZZLE_OPERATIONS = frozenset({"composition", "right_inverse", "left_inverse", "make_tma_box"})


def check_operands(op: str, args: tuple[object, ...]) -> None:
    """A one-line ``LayoutError`` when ``op`` is given an operand kind it is not modelled for."""
    from .layouts import Tile

    def kinds(x: object) -> set[str]:
        if isinstance(x, Tile):
            return set().union(*(kinds(e) for e in x.elements)) if x.elements else set()
        if is_swizzled(x):
            return {"swizzled"}
        if isinstance(x, Layout) and has_basis(x.stride):
            return {"basis"}
        return set()

    found = set().union(*(kinds(a) for a in args)) if args else set()
    if "swizzled" in found and op not in SWIZZLE_OPERATIONS:
        raise LayoutError(f"{op}: swizzle and composed-layout operands are modelled only for "
                          f"{', '.join(sorted(SWIZZLE_OPERATIONS))}")
    if "basis" in found and op not in BASIS_OPERATIONS:
        raise LayoutError(f"{op}: scaled-basis strides are modelled only for {', '.join(sorted(BASIS_OPERATIONS))}")


# -- inverses (swizzle_layout.hpp:348-405; layout_composed.hpp:415-429) --------------------------------------------


def _offset_inverse(o: Int, which: str) -> Int:
    """The "Kludge" ``right_inverse(T t) -> -t`` (swizzle_layout.hpp:389-405): it is declared after the templates
    that call it, so only argument-dependent lookup finds it, which works for ``Int<t>`` (in namespace cute) and
    not for a run-time ``int``."""
    if not o.static:
        raise CuteRejection(f"compile error: no matching function for call to {which}_inverse(int) for the "
                            "run-time offset", "swizzle_layout.hpp:356")
    return -o


def _inverse(x: Fn, which: str) -> Fn:
    from . import algebra

    def inv(f: Fn) -> Fn:
        if isinstance(f, Swizzle):
            return f  # a swizzle is its own inverse (swizzle_layout.hpp:373-387)
        if isinstance(f, ComposedLayout):
            return _inverse(f, which)
        # The inverse of a part has its own postcondition; the postcondition of the whole replaces it.
        fn = algebra.right_inverse if which == "right" else algebra.left_inverse
        return _without(POSTCONDITIONS, lambda: fn(f))  # type: ignore[return-value]

    if isinstance(x, Swizzle):
        return x
    if isinstance(x.outer, Swizzle):  # swizzle_layout.hpp:348-371
        if x.offset.is_constant(0):
            return algebra.composition(inv(x.inner), x.outer)  # type: ignore[arg-type, return-value]
        inner = inv(x.inner)
        return compose3(inner, _offset_inverse(x.offset, which), x.outer)
    inner = inv(x.inner)  # layout_composed.hpp:415-429
    return compose3(inner, _offset_inverse(x.offset, which), inv(x.outer))


def _inverse_postcondition(which: str, x: Fn, r: Fn) -> None:
    from .algebra import POSTCONDITION_LIMIT

    try:
        if not (x.concrete and r.concrete):
            return
        if which == "right":
            if isinstance(r, Swizzle):
                return
            n = int(r.size())
            if n > POSTCONDITION_LIMIT:
                return
            ok = all(int(x(int(r(i)))) == i for i in range(n))  # type: ignore[operator]
            record("RI-POST", "L(R(i)) == i for every i < size(R)", "layout.hpp:1255-1260", NEVER,
                   Bool(Const(ok), False))
        else:
            if isinstance(x, Swizzle):
                return
            n = int(x.size())
            if n > POSTCONDITION_LIMIT:
                return
            ok = all(int(r(int(x(i)))) == i for i in range(n))  # type: ignore[operator]
            record("LI-3", "R(L(i)) == i for every i < size(L)", "layout.hpp:1313-1316", NEVER,
                   Bool(Const(ok), False))
    except (LayoutError, UndefinedBehavior):
        return


def right_inverse(x: Fn) -> Fn:
    """``right_inverse`` of a swizzle or a composed layout."""
    result = _inverse(x, "right")
    _inverse_postcondition("right", x, result)
    return result


def left_inverse(x: Fn) -> Fn:
    """``left_inverse`` of a swizzle or a composed layout."""
    result = _inverse(x, "left")
    _inverse_postcondition("left", x, result)
    return result


__all__ = ["ComposedLayout", "Swizzle", "compose3", "compose_layout_swizzle",
           "compose_swizzles", "composition", "is_swizzled", "left_inverse", "make_composed_layout",
           "make_swizzle", "right_inverse"]
