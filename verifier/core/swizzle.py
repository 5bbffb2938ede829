"""Swizzles and composed layouts: CuTe's ``Swizzle<B,M,S>`` (``swizzle.hpp``) and ``ComposedLayout<A,O,B>``
(``layout_composed.hpp``, ``swizzle_layout.hpp``), as values; the algebra CuTe 4.2 defines on them is
``algebra.swizzled``.

``Swizzle(B, M, S)`` maps ``x`` to ``x ^ shiftr(x & yyy_msk, S)`` (swizzle.hpp:73-79).  Its parameters are template
arguments, so it is always static and its invariants are ``static_assert``s (swizzle.hpp:61-63), raised here as
``CuteRejection`` naming the source; a mask that does not fit an ``int`` constant expression (``(1 << B) - 1`` with
``B >= 31``, a shift of 32 or more, bits beyond 31) does not compile (C++17: a left shift into bit 31 is allowed).
The masks are ``int`` constants (swizzle.hpp:66-68): one reaching bit 31 is negative, ``shiftr`` of a negative value
is an arithmetic shift, and against an ``int64_t`` offset the mask sign-extends over bits 32..63, so such a swizzle
is no bijection and depends on the offset's type.  The offset's type is CuTe's: ``int64_t`` where a 64-bit symbol is
involved, else ``int``; a concrete value (and a witness coordinate) is typed by its value, the narrowest of ``int``
and ``int64_t`` that holds it, as the literal or ``int`` coordinate that produces it in C++.  Applied to an ``Int``
it keeps CuTe's flag: static in, static out.  For a symbolic integer the XOR is written exactly as a sum of bit
flips with ``/`` and ``%`` (floor bit extraction) and ``ite``, so it stays an ``Int``.

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

from collections.abc import Mapping
from typing import TypeGuard, Union

from verifier.core.basis import add
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import Const, Int, Op, S, and_, ge, le, lt
from verifier.core.layouts import Layout, depth, rank

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
    bits: int
    base: int
    shift: int
    yyy_msk: int
    zzz_msk: int

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

    @property
    def sign_free(self) -> bool:
        """Neither mask reaches bit 31: the swizzle is the same function of every integer type (an involution
        that leaves the bits at and above ``M + B + |S|`` alone).  A mask with bit 31 is a negative ``int``
        (swizzle.hpp:66-68): ``shiftr`` of a negative ``offset & yyy_msk`` is arithmetic, and against an
        ``int64_t`` offset the mask sign-extends over bits 32..63."""
        return self.yyy_msk >= 0 and self.zzz_msk >= 0

    def _flips(self, width: int) -> list[tuple[int, int]]:
        """``(target, control)`` bit pairs of ``x ^ shiftr(x & yyy_msk, S)`` in a ``width``-bit offset: bit
        ``target`` of the result is ``x[target] ^ x[control]``; every other bit is ``x``'s."""
        ylo = self.base + max(0, self.shift)
        if self.yyy_msk < 0:  # S > 0: the sign-extended mask keeps bits ylo..width-1, >> fills with the sign
            return [(j, min(j + self.shift, width - 1)) for j in range(ylo - self.shift, width)]
        return [(k - self.shift, k) for k in range(ylo, ylo + self.bits)]

    def apply_value(self, v: int, width: int | None = None) -> int:
        """``offset ^ shiftr(offset & yyy_msk, msk_sft)`` (swizzle.hpp:76-79) on a ``width``-bit offset (by
        default the narrowest of ``int`` and ``int64_t`` that holds ``v``): the ``int`` mask sign-extends and
        ``>>`` is arithmetic, as C++ does."""
        if width is None:
            width = 32 if -(1 << 31) <= v < 1 << 31 else 64
        m = self.yyy_msk  # a Python int sign-extends as the int mask does against any offset type
        moved = (v & m) >> self.shift if self.shift >= 0 else (v & m) << -self.shift
        r = (v ^ moved) & ((1 << width) - 1)
        return r - (1 << width) if r >> (width - 1) else r

    def __call__(self, x: Int | int, width: int | None = None) -> Int:
        """``offset ^ shiftr(offset & yyy_msk, msk_sft)`` (swizzle.hpp:76-79), static exactly when ``x`` is;
        ``width`` 64 for an offset whose C++ type is known to be ``int64_t`` (else it is typed as the module says).
        Bitwise operations and the shifts never overflow (a left shift only moves mask bits, within ``uint32``),
        so no overflow obligation is recorded for them; the bit decomposition below is the tool's, not CuTe's."""
        if isinstance(x, int) and not isinstance(x, bool):
            x = Int(Const(x), False)
        if type(x) is not Int:
            raise LayoutError(f"{self} takes an integer, not {x}")
        if x.concrete:
            return Int(Const(self.apply_value(int(x), width)), x.static)
        from verifier.core.integers import unwatched
        from verifier.core.overflow import wide

        with unwatched():
            if self.sign_free:  # the same function on every integer type
                return self._symbolic(x, 32)
            if width == 64 or wide(x.expr):  # an int64_t offset
                return self._symbolic(x, 64)
            if not any(n.startswith("#") for n in x.expr.symbols()):  # an int offset
                return self._symbolic(x, 32)
            # A witness coordinate (#i) is typed by its value, as a concrete one is: an int where it fits (bounded
            # by a size that may be 64-bit), else an int64_t.  With yyy_msk < 0 the 64-bit form gives the 32-bit
            # one on int values (sign extension); with zzz_msk < 0, bit 31 is an int's sign and an int64_t's bit.
            if self.yyy_msk < 0:
                return self._symbolic(x, 64)
            fits = and_(ge(x, -(1 << 31)), le(x, (1 << 31) - 1))
            return Int(Op("ite", (fits.expr, self._symbolic(x, 32).expr, self._symbolic(x, 64).expr)), False)

    def _symbolic(self, x: Int, width: int) -> Int:
        # x[t] ^= x[c] adds (1 - 2 x[t]) * 2^t where x[c] is set (the sign bit weighs -2^(width-1)): an
        # if-then-else of linear terms rather than a product, which would make the solver's problem nonlinear.
        # The targets are distinct and the controls are read from x, so the sum is the XOR exactly.
        out = x
        for t, c in self._flips(width):
            weight = -(1 << t) if t == width - 1 else 1 << t
            flip = (S(1) - S(2) * _bit_w(x, t, width)) * S(weight)
            out = out + Int(Op("ite", (Op("==", (_bit_w(x, c, width).expr, S(0).expr)), S(0).expr, flip.expr)),
                            False)
        return out

    def substitute(self, values: Mapping[str, int]) -> Swizzle:
        return self

    @property
    def concrete(self) -> bool:
        return True

    def symbols(self) -> set[str]:
        return set()


def _bit_w(x: Int, b: int, width: int) -> Int:
    """Bit ``b`` of a ``width``-bit ``x``: its sign for the top bit."""
    if b == width - 1:
        return Int(Op("ite", (lt(x, 0).expr, S(1).expr, S(0).expr)), False)
    return _bit(x, b)


def _bit(x: Int, b: int) -> Int:
    """Bit ``b`` of ``x`` in two's complement, with C++'s truncating ``%`` and ``/`` only."""
    m = S(1 << (b + 1))
    return ((x % m + m) % m) / S(1 << b)


Fn = Union[Swizzle, Layout, "ComposedLayout"]


class ComposedLayout:
    """``ComposedLayout<A,O,B>``: the function ``c -> A(O + B(c))`` (layout_composed.hpp:108-119)."""

    __slots__ = ("outer", "offset", "inner")
    outer: Fn
    offset: Int
    inner: Fn

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
        v = self.inner(*coord)  # type: ignore[arg-type]  # each inner function takes its own coordinate kind
        width = self._offset_width()
        if width == 64 and type(v) is Int:
            from verifier.core.overflow import add_wide

            w: object = add_wide(self.offset, v)
        else:
            w = add(self.offset, v)
        if type(w) is not Int:
            raise LayoutError(f"{self}: the inner value {w} is a coordinate, which the outer function cannot take")
        if isinstance(self.outer, Swizzle):
            return self.outer(w, width)
        return self.outer(w)

    def _offset_width(self) -> int | None:
        """64 when ``O + B(c)`` is an ``int64_t`` by its operands' types: a run-time leaf of ``O`` or of the inner
        layout's shape or stride holding a value beyond ``int`` (an ``int64_t``: the usual conversions carry it
        through idx2crd and crd2idx, whatever the sum's value); else None (typed by the value or the symbols)."""
        parts = [self.offset]
        if isinstance(self.inner, Layout):
            parts += _typed_leaves(self.inner.shape, self.inner.stride, last=True)
        for x in parts:
            if x.concrete and not x.static and not -(1 << 31) <= int(x) < 1 << 31:
                return 64
        return None

    @property
    def concrete(self) -> bool:
        return self.outer.concrete and self.offset.concrete and self.inner.concrete

    def symbols(self) -> set[str]:
        return self.outer.symbols() | self.offset.symbols() | self.inner.symbols()

    def substitute(self, values: Mapping[str, int]) -> ComposedLayout:
        from verifier.core.integers import substitute

        offset = self.offset if type(self.offset) is not Int else substitute(self.offset, values)  # smem_ptr flags
        return ComposedLayout(self.outer.substitute(values), offset, self.inner.substitute(values))

    def values(self, limit: int | None = None) -> list[int]:
        """``[C(0), ..., C(size-1)]`` for a concrete composed layout."""
        n = int(self.size())
        if limit is not None and n > limit:
            raise LayoutError(f"size {n} is larger than the limit {limit} for enumerating values")
        return [int(self(i)) for i in range(n)]


def _typed_leaves(shape: object, stride: object, last: bool) -> list[Int]:
    """The leaves whose C++ types reach ``crd2idx(idx2crd(i, shape), shape, stride)`` for an ``int`` index ``i``:
    idx2crd gives a mode that is not the last of its tuple the coordinate ``c % s``, a ``C<0>`` for a static extent 1,
    and ``C<0> * d`` or ``c * C<0>`` is a ``C<0>`` (an ``int``): such a mode's leaves never reach the sum."""
    if type(shape) is tuple and type(stride) is tuple:
        n = len(shape)
        return [x for k, (s, d) in enumerate(zip(shape, stride)) for x in _typed_leaves(s, d, k == n - 1)]
    if type(shape) is not Int or type(stride) is not Int:
        return []
    if (shape.static and shape.is_constant(1) and not last) or (stride.static and stride.is_constant(0)):
        return []
    return [shape, stride]


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


def is_swizzled(x: object) -> TypeGuard[Swizzle | ComposedLayout]:
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


class SmemPtrFlag(Int):
    """``smem_ptr_flag_bits<B>``: a static ``_0`` offset that marks an unset smem pointer of ``B``-bit elements."""

    __slots__ = ("bits",)
    bits: int

    def __init__(self, bits: int) -> None:
        if bits < 1:
            raise LayoutError(f"smem_ptr[{bits}b]: the element width must be positive")
        super().__init__(Const(0), True)
        object.__setattr__(self, "bits", bits)

    def __eq__(self, other: object) -> bool:
        return type(other) is SmemPtrFlag and other.bits == self.bits

    def __hash__(self) -> int:
        return hash(("smem_ptr", self.bits))

    def __str__(self) -> str:
        return f"smem_ptr[{self.bits}b](unset)"  # pointer_flagged.hpp (print of smem_ptr_flag_bits)

    def __repr__(self) -> str:
        return f"SmemPtrFlag({self.bits})"


_U64 = 1 << 64
PTR_SOURCE = "pointer_swizzle.hpp:86-87"


def _mask64(sw: Swizzle) -> int:
    """``yyy_msk`` as ``apply`` meets it on a ``uintptr_t``: an ``int`` constant (swizzle.hpp:66-68) converted to the
    unsigned 64-bit type, so a mask reaching bit 31 is negative and sign-extends over bits 32-63."""
    return _int32(((1 << sw.bits) - 1) << (sw.base + max(0, sw.shift))) % _U64


def swizzle_address(sw: Swizzle, address: Int) -> Int:
    """``SwizzleFn::apply(reinterpret_cast<uintptr_t>(ptr))`` (pointer_swizzle.hpp:86-87): the swizzle of a
    ``swizzle_ptr`` acts on the byte address, in ``uintptr_t`` arithmetic (a negative offset wraps modulo 2^64 and
    is read back as a signed byte offset)."""
    y = _mask64(sw)
    if address.concrete:
        v = int(address) % _U64
        moved = (v & y) >> sw.shift if sw.shift >= 0 else ((v & y) << -sw.shift) % _U64
        r = v ^ moved
        return Int(Const(r - _U64 if r >= 1 << 63 else r), False)
    if y < 1 << 31:
        # Below bit 31 the masks are those of the int arithmetic, and the bits of a two's-complement offset are
        # those of its uintptr_t.
        return Int(sw._symbolic(address, 64).expr, False)
    # A mask reaching bit 31 reads every bit from its base to 63: out bit k ^= bit k + S.  Each flip is written
    # as in Swizzle._symbolic, bit 63 with the weight -2^63 of a signed 64-bit offset.
    from verifier.core.integers import Op

    out = address
    for p in range(64):
        k = p - sw.shift
        if not (y >> p) & 1 or not 0 <= k < 64:
            continue
        yb, zb = _bit(address, p), _bit(address, k)
        weight = S(-(1 << 63)) if k == 63 else S(1 << k)
        flip = (S(1) - S(2) * zb) * weight
        out = out + Int(Op("ite", (Op("==", (yb.expr, S(0).expr)), S(0).expr, flip.expr)), False)
    return Int(out.expr, False)


def flag_bits(f: object) -> int | None:
    """The width ``B`` of ``f = Sw o smem_ptr[Bb](unset) o L``, or None for a layout without an smem_ptr flag."""
    if isinstance(f, ComposedLayout) and isinstance(f.offset, SmemPtrFlag):
        return f.offset.bits
    return None


def check_flag(f: object, element_bits: int) -> None:
    """``make_tensor(make_smem_ptr(T* p), f)`` with ``sizeof_bits<T> == element_bits``: a flagged layout compiles
    only for its own width and a swizzle function (pointer_flagged.hpp:57-66)."""
    bits = flag_bits(f)
    if bits is None:
        return
    if bits != element_bits:
        raise CuteRejection(f"Expected a B-bit pointer type. ({f} is smem_ptr[{bits}b], the elements are "
                            f"{element_bits}-bit)", "pointer_flagged.hpp:64")
    assert isinstance(f, ComposedLayout)
    if not isinstance(f.outer, Swizzle):
        raise CuteRejection(f"compile error: make_swizzle_ptr needs a swizzle function, not {f.outer}",
                            "pointer_swizzle.hpp:86-87")


def smem_bit_address(f: object, element_bits: int, *coord: object) -> Int:
    """The bit address, from a base aligned above the swizzle's bits, of element ``coord`` of the tensor
    ``make_tensor(make_smem_ptr<T>(p), f)`` with ``sizeof_bits<T> == element_bits``.

    A flagged ``Sw o smem_ptr[Bb](unset) o L`` becomes ``make_tensor(make_swizzle_ptr(p, Sw), L)``
    (pointer_flagged.hpp:57-66): element ``e = L(c)`` is ``p + e``, a byte address for ``B >= 8`` (``e*B/8``) and
    for a sub-byte ``B`` the ``subbyte_iterator`` byte ``floor(e*B/8)`` and bit ``e*B mod 8``
    (array_subbyte.hpp:260-265), and the swizzle XORs that byte address (pointer_swizzle.hpp:86-93).  Any other
    layout is a plain pointer plus ``f(c)`` elements: its own swizzle, if any, acts on element offsets."""
    check_flag(f, element_bits)
    if flag_bits(f) is None:
        return f(*coord) * S(element_bits)  # type: ignore[operator, no-any-return]
    assert isinstance(f, ComposedLayout) and isinstance(f.outer, Swizzle)
    e = f.inner(*coord)  # type: ignore[arg-type]
    if type(e) is not Int:
        raise LayoutError(f"{f}: the element offset {e} is a coordinate, not an address")
    bits = e * S(element_bits)
    if element_bits % 8 == 0:
        return swizzle_address(f.outer, bits / S(8)) * S(8)
    sub = (bits % S(8) + S(8)) % S(8)
    return swizzle_address(f.outer, (bits - sub) / S(8)) * S(8) + sub


def offset_view(obj: object) -> tuple[Int, Layout] | None:
    """``(offset, L)`` of a tensor view ``Sw<0,M,S> o offset o L``, a layout moved by an integer offset through the
    identity swizzle (a thread's partition, ``algebra.tiled.view``; not an ``smem_ptr`` flag); else None."""
    if (isinstance(obj, ComposedLayout) and isinstance(obj.outer, Swizzle) and obj.outer.identity
            and isinstance(obj.inner, Layout) and type(obj.offset) is Int):
        return obj.offset, obj.inner
    return None


__all__ = ["ComposedLayout", "SmemPtrFlag", "Swizzle", "check_flag", "compose3", "compose_swizzles", "flag_bits",
           "is_swizzled", "make_composed_layout", "make_swizzle", "offset_view", "smem_bit_address", "swizzle_address"]
