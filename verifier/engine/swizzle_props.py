"""Properties of swizzled layouts reduced exactly to properties of their inner layouts.

CuTe's ``Swizzle<B,M,S>`` maps ``x`` to ``x ^ ((x & Y) >> S)`` (swizzle.hpp:76-79) with the masks ``Y`` and
``Z = Y >> S`` disjoint (``|S| >= B``, swizzle.hpp:63), so the bits it reads are bits it never writes: it is an
involution, hence a bijection of the integers (of ``int32``, two's complement).  It also leaves every bit at or
above ``h = M + B + |S|`` alone, so it permutes each aligned block ``[k*2^h, (k+1)*2^h)``.  Three exact lemmas
follow, for ``C = Sw o O o L``:

* **injective**: ``C(i) == C(j)`` iff ``O + L(i) == O + L(j)`` iff ``L(i) == L(j)``: ``injective(C) == injective(L)``;
* **in bounds**: when ``2^h`` divides ``E`` (and ``O == 0``), ``0 <= Sw(x) < E`` iff ``0 <= x < E``:
  ``in_bounds(C, E) == in_bounds(L, E)``, so ``bijective(C) == bijective(L)`` when ``2^h`` divides ``size(L)``;
  for a flagged ``Sw o smem_ptr[Bb] o L`` the same holds of byte addresses when ``2^h`` divides ``E*B/8`` and the
  swizzle writes no bit below ``B/8`` (``divides_block``);
* **equivalent**: for the same swizzle and offset, ``C1(i) == C2(i)`` iff ``L1(i) == L2(i)``.

The lemmas need both masks below bit 31 (``Swizzle.sign_free``): a mask with bit 31 is a negative ``int``
(swizzle.hpp:66-68), ``shiftr`` of it is arithmetic and it sign-extends against an ``int64_t`` offset, so the
swizzle is no bijection (``Sw<1,30,1>`` maps 0 and -2^30 to 0) and moves the high bits; such a swizzle is decided
on its exact bit encoding.

Each reduction keeps the verdict and its counterexample (a coordinate where ``L`` fails is one where ``C`` fails)
and replaces the bit-level arithmetic, which Z3 decides slowly over symbols, by the inner layout's.  Where no lemma
applies the property is decided on the exact bit encoding of the swizzle (``Swizzle._symbolic``).
"""

from __future__ import annotations

from verifier.core.integers import Bool, Int, S, eq
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout, Swizzle


def swizzled_layout(f: object) -> tuple[Swizzle, Int, Layout] | None:
    """``(Sw, O, L)`` when ``f`` is ``Sw o O o L`` with a swizzle ``Sw`` and a layout ``L``, else None."""
    if isinstance(f, ComposedLayout) and isinstance(f.outer, Swizzle) and isinstance(f.inner, Layout):
        return f.outer, f.offset, f.inner
    return None


def block(sw: Swizzle) -> int:
    """``2^h``: the swizzle permutes each aligned block of this many integers and leaves the blocks in place."""
    return 1 << ((sw.yyy_msk | sw.zzz_msk).bit_length())


def divides_block(sw: Swizzle, extent: Int, flag: int | None = None) -> Bool | None:
    """The condition ``extent % 2^h == 0`` under which in_bounds reduces to the inner layout.

    For a flagged ``Sw o smem_ptr[Bb](unset) o L`` the swizzle permutes aligned blocks of ``2^h`` *bytes*
    (``swizzle.smem_bit_address``): the lemma needs ``2^h`` to divide the extent in bytes, and the swizzle to write
    no bit below the element size (so that it keeps every element whole and aligned); None where it cannot apply
    (sub-byte elements, a mask that sign-extends over the address, a swizzle that splits elements)."""
    if flag is None:
        return eq(extent % S(block(sw)), S(0))
    nbytes = flag // 8
    if flag % 8 or sw.bits == 0 or (sw.yyy_msk | sw.zzz_msk) >= 1 << 31 or sw.yyy_msk < 0 or sw.zzz_msk < 0 \
            or sw.zzz_msk & (nbytes - 1):
        return None
    return eq(extent * S(nbytes) % S(block(sw)), S(0))


LEMMA_INJECTIVE = "a swizzle is a bijection (an involution, swizzle.hpp:63,76-79): injective(Sw o O o L) == " \
                  "injective(L)"
LEMMA_BOUNDS = "a swizzle permutes each aligned block of 2^(M+B+|S|) integers: with that block dividing the " \
               "extent, in_bounds(Sw o _0 o L, E) == in_bounds(L, E)"
LEMMA_EQUIV = "the same swizzle and offset on both sides: equivalent(Sw o O o L1, Sw o O o L2) == " \
              "equivalent(L1, L2)"

__all__ = ["LEMMA_BOUNDS", "LEMMA_EQUIV", "LEMMA_INJECTIVE", "block", "divides_block", "swizzled_layout"]
