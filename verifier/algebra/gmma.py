"""Hopper GMMA and Blackwell UMMA shared-memory layouts: ``smem_ptr_flag`` composed layouts, the
``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` atoms, and the canonical-layout check of ``make_gmma_desc`` with
the descriptor fields it implies.

``smem_ptr_flag_bits<B>`` (pointer_flagged.hpp:46-52) is an ``Int<0>`` standing for a shared-memory pointer of
``B``-bit elements not yet set: the swizzle before it acts on byte addresses.  CuTe prints it
``smem_ptr[16b](unset)``, so ``GMMA::Layout_K_SW128_Atom<half_t>`` is ``Sw<3,4,3> o smem_ptr[16b](unset) o
(_8,_64):(_64,_1)``.  Its recasts keep the swizzle and scale the flag (pointer_flagged.hpp:70-84); the atoms are
``upcast<sizeof_bits<T>>`` of the atoms in bits (mma_traits_sm90_gmma.hpp:75-104).

``canonical_gmma`` reproduces ``make_gmma_desc<Major>`` (mma_traits_sm90_gmma.hpp:196-300) on one MMA's operand
tile: recast to ``uint128_t`` units, the layout type from the swizzle (``Sw<B,4,3>``, B in 0..3), the size checks,
the canonical ``logical_divide`` and its stride checks; it accepts with the layout type and the stride / leading
byte offsets (in 16-byte units) or rejects with the ``static_assert`` that fails.  ``canonical_umma`` does the same
for ``UMMA::make_umma_desc<Major>`` (mma_traits_sm100.hpp:205-308), whose atoms add ``Layout_MN_SW128_32B_Atom``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from verifier.algebra import ops as algebra
from verifier.algebra.composed import recast_flagged
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import leaves
from verifier.core.integers import Int, S
from verifier.core.layouts import Layout, Tile, Underscore, rank, size
from verifier.core.swizzle import ComposedLayout, SmemPtrFlag, Swizzle, check_flag

GMMA_SOURCE = "mma_traits_sm90_gmma.hpp"


# -- the atoms (mma_traits_sm90_gmma.hpp:75-104) -----------------------------------------------------------------

KINDS = ("INTER", "SW32", "SW64", "SW128")
MAJORS = ("K", "MN")


def atom_bits(major: str, kind: str) -> ComposedLayout:
    """``GMMA::Layout_{major}_{kind}_Atom_Bits``."""
    if major not in MAJORS or kind not in KINDS:
        raise LayoutError(f"no GMMA atom Layout_{major}_{kind}: majors {MAJORS}, kinds {KINDS}")
    b = KINDS.index(kind)
    width = 128 << b
    inner = Layout((S_(8), S_(width)), (S_(width), S_(1))) if major == "K" else \
        Layout((S_(width), S_(8)), (S_(1), S_(width)))
    return ComposedLayout(Swizzle(b, 4, 3), SmemPtrFlag(1), inner)


def atom(major: str, kind: str, element_bits: int) -> ComposedLayout:
    """``GMMA::Layout_{major}_{kind}_Atom<T>`` for a ``T`` of ``element_bits`` bits: ``upcast<sizeof_bits<T>>``."""
    return recast_flagged(element_bits, atom_bits(major, kind), up=True)


def S_(v: int) -> Int:  # noqa: N802 - a static integer
    return S(v)


# -- make_gmma_desc's canonical-layout check ---------------------------------------------------------------------

LAYOUT_TYPES = ("INTERLEAVE", "B32", "B64", "B128")


@dataclass(frozen=True)
class Canonical:
    """The outcome of ``make_gmma_desc<Major>`` on a tile: accepted with its descriptor fields, or rejected."""

    accepted: bool
    reason: str
    layout_type: str | None = None
    stride_byte_offset: int | None = None   # in 16-byte units (the 4 LSBs are not stored)
    leading_byte_offset: int | None = None
    canonical: str | None = None            # the canonical layout in uint128_t units


def _reject(message: str, line: str) -> Canonical:
    return Canonical(False, f"{message} ({GMMA_SOURCE}:{line})")


def _divided(u128: Layout, tiler: Tile) -> tuple[Layout, tuple[int, int, int, int] | None]:
    """``logical_divide(u128, tiler)`` and its strides ``((s00,s01),(s10,s11))`` when it has the profile
    ``((_,_),(_,_))`` that make_gmma_desc and make_umma_desc both require (else ``None``)."""
    canon = algebra.logical_divide(u128, tiler)
    shape, d = canon.shape, canon.stride
    if not (type(shape) is tuple and len(shape) == 2 and all(type(m) is tuple and len(m) == 2 and
                                                             all(type(x) is not tuple for x in m) for m in shape)):
        return canon, None
    return canon, (int(d[0][0]), int(d[0][1]), int(d[1][0]), int(d[1][1]))  # type: ignore[index,arg-type]


def _descriptor_operand(tile: object, element_bits: int, major: str, k_block: int | None,
                        reject: Callable[[str, str], Canonical], name: str, swizzle: str, strides: str,
                        lines: tuple[str, str, str, str, str]) -> tuple[Swizzle, Layout] | Canonical:
    """The checks ``make_gmma_desc`` and ``make_umma_desc`` open with, in the same order (``lines``: the smem, rank,
    static, recast and layout-type checks of the header): the tensor ``make_tensor(make_smem_ptr<T>(p), tile)``
    compiles (an smem_ptr flag of the element width, pointer_flagged.hpp:64) and is an smem tensor of rank 2, its
    static layout restricted to the k-block one MMA reads (default ``256 / element_bits`` elements of K: 32 bytes),
    128-bit recastable elements, whose swizzle is its pointer's (``layout_type`` takes a tensor with a plain
    ``Layout``: a flagged layout, whose swizzle goes into a ``swizzle_ptr``, or a plain layout, Swizzle<0,4,3>)."""
    if major not in MAJORS:
        raise LayoutError(f"major must be K or MN, got {major!r}")
    smem, rank2, static, recast, kind = lines
    if isinstance(tile, Layout):  # a plain smem pointer: get_swizzle_t is Swizzle<0,4,3> (swizzle.hpp:493)
        tile = ComposedLayout(Swizzle(0, 4, 3), SmemPtrFlag(element_bits), tile)
    if not (isinstance(tile, ComposedLayout) and isinstance(tile.outer, Swizzle) and isinstance(tile.inner, Layout)):
        return reject(f"{name} Descriptors can only be constructed on smem: the layout must be {swizzle} o "
                      "smem_ptr o L", smem)
    try:  # make_tensor(make_smem_ptr(p), tile) comes first, with its own static_assert
        check_flag(tile, element_bits)
    except CuteRejection as exc:
        return Canonical(False, f"{exc.assertion} ({exc.source})")
    inner = tile.inner
    if rank(inner) != 2:
        return reject(f"{name} Descriptors can only be constructed on rank-2 tensors.", rank2)
    kb = k_block if k_block is not None else max(1, 256 // element_bits)
    restricted = inner.concrete and int(size(inner.shape[1])) > kb  # type: ignore[index]
    if restricted:
        inner = algebra.composition(inner, Tile([Underscore(), Layout(S_(kb), S_(1))]))  # the MMA's k-block
    if not inner.concrete or not all(x.static for x in (*leaves(inner.shape), *leaves(inner.stride))):
        return reject(f"the layout must be static (its strides are {strides})", static)
    if 128 % element_bits:
        return reject(f"recast<uint128_t> of {element_bits}-bit elements", recast)
    # The k-block's composition decays an unflagged identity swizzle with a 0 offset to the plain layout
    # (swizzle_layout.hpp:305-315); without it the composed layout stays and has no layout_type.
    decayed = restricted and tile.outer.identity and tile.offset.is_constant(0)
    if not isinstance(tile.offset, SmemPtrFlag) and not decayed:
        # Without the flag, make_tensor keeps the composed layout (its swizzle acts on element offsets) over a
        # plain smem pointer, and layout_type has an overload only for a plain Layout: a compile error.
        return reject(f"no matching function for call to layout_type: {tile} has no smem_ptr flag, so the tensor's "
                      "pointer is no swizzle_ptr; write the layout as " + swizzle + " o smem_ptr[" +
                      f"{element_bits}b](unset) o L (a Layout_*_Atom tiled to the tile)", kind)
    # An identity swizzle decays to the plain pointer (pointer_swizzle.hpp:123-129), whose swizzle is Swizzle<0,4,3>.
    return (Swizzle(0, 4, 3) if tile.outer.identity else tile.outer), inner


def canonical_gmma(tile: object, element_bits: int, major: str, k_block: int | None = None) -> Canonical:
    """``make_gmma_desc<Major>(tensor)`` for a smem tensor with the swizzled layout ``tile`` ((MN, K) in elements)
    of ``element_bits``-bit elements, on the k-block one MMA reads: the first ``k_block`` elements of K (default the
    dense MMA's ``256 / element_bits``: 32 bytes)."""

    checked = _descriptor_operand(tile, element_bits, major, k_block, _reject, "GMMA", "Sw<B,4,3>",
                                  "template arguments of the descriptor", ("199", "200", "256", "203", "211"))
    if isinstance(checked, Canonical):
        return checked
    sw, inner = checked
    if sw.base != 4 or sw.shift != 3 or not 0 <= sw.bits <= 3:
        return _reject(f"Unsupported layout swizzle: {sw} (GMMA takes Sw<0..3,4,3>)", "141-143")
    layout_type = LAYOUT_TYPES[sw.bits]
    w = 1 << sw.bits
    try:
        u128 = algebra.upcast(128 // element_bits, inner)
    except CuteRejection as exc:
        return _reject(f"recast<uint128_t>: {exc}", "203")
    if major == "MN":
        k = int(size(u128.shape[1]))  # type: ignore[index]
        if k not in (256 // element_bits, 128 // element_bits, 512 // element_bits):
            return _reject("Not a canonical GMMA_MN Layout: Expected K-size 256/sizeof_bits<T> for dense or "
                           f"(128|512)/sizeof_bits<T> for sparse (K-size is {k})", "234-237")
        tiler = Tile([Layout(S_(w), S_(1)), Layout(S_(8), S_(1))])
    else:
        mn, k = int(size(u128.shape[0])), int(size(u128.shape[1]))  # type: ignore[index]
        if mn % 8:
            return _reject(f"Not a canonical GMMA_K Layout: Expected MN-size multiple of 8 (it is {mn}).", "268")
        if k not in (2, 4):
            return _reject("Not a canonical GMMA_K Layout: Expected K-size 2 for dense or 4 for sparse (in units of "
                           f"uint128_t; it is {k}).", "270-271")
        tiler = Tile([Layout(S_(8), S_(1)), Layout(S_(2), S_(1))])
    canon, strides = _divided(u128, tiler)
    if strides is None:
        return _reject(f"Not a canonical GMMA_{major} Layout: Expected profile failure ({canon} is not "
                       "((_,_),(_,_)))", "241" if major == "MN" else "277")
    s00, s01, s10, s11 = strides
    if major == "MN":
        if layout_type != "INTERLEAVE" and s00 != 1:
            return _reject(f"Not a canonical GMMA_MN Layout: Expected stride failure (stride<0,0> = {s00}, not 1)",
                           "244-246")
        if s10 != w:
            return _reject(f"Not a canonical GMMA_MN Layout: Expected stride failure (stride<1,0> = {s10}, not {w})",
                           "247-249")
        sbo, lbo = (s01, s11) if layout_type == "INTERLEAVE" else (s11, s01)
    else:
        if s00 != w:
            return _reject(f"Not a canonical GMMA_K Layout: Expected stride failure (stride<0,0> = {s00}, not {w})",
                           "280-282")
        if layout_type != "INTERLEAVE" and s10 != 1:
            return _reject(f"Not a canonical GMMA_K Layout: Expected stride failure (stride<1,0> = {s10}, not 1)",
                           "283-285")
        sbo, lbo = s01, s10
    if not (0 <= sbo < 1 << 14 and 0 <= lbo < 1 << 14):
        return _reject(f"the byte offsets SBO={sbo}, LBO={lbo} (16-byte units) do not fit the descriptor's 14 bits",
                       "GmmaDescriptor")
    return Canonical(True, f"canonical GMMA_{major} {layout_type}", layout_type, sbo, lbo, str(canon))


# -- Blackwell UMMA: the same atoms, one more, and make_umma_desc's check (mma_traits_sm100.hpp) -----------------

UMMA_SOURCE = "mma_traits_sm100.hpp"
UMMA_KINDS = (*KINDS, "SW128_32B")
# UMMA::LayoutType (mma_sm100_desc.hpp:79-85): the descriptor's 3-bit field for each swizzle.
UMMA_LAYOUT_CODES = {"SWIZZLE_NONE": 0, "SWIZZLE_128B_BASE32B": 1, "SWIZZLE_128B": 2, "SWIZZLE_64B": 4,
                     "SWIZZLE_32B": 6}


def umma_atom_bits(major: str, kind: str) -> ComposedLayout:
    """``UMMA::Layout_{major}_{kind}_Atom_Bits``: GMMA's eight (mma_traits_sm100.hpp:63-70 takes them over) and
    ``Layout_MN_SW128_32B_Atom_Bits = Sw<2,5,2> o smem_ptr_flag o (_1024,_4):(_1,_1024)`` (:72)."""
    if kind != "SW128_32B":
        return atom_bits(major, kind)
    if major != "MN":
        raise LayoutError("UMMA has Layout_MN_SW128_32B_Atom only (mma_traits_sm100.hpp:72); K-major has none")
    return ComposedLayout(Swizzle(2, 5, 2), SmemPtrFlag(1), Layout((S_(1024), S_(4)), (S_(1), S_(1024))))


def umma_atom(major: str, kind: str, element_bits: int) -> ComposedLayout:
    """``UMMA::Layout_{major}_{kind}_Atom<T>``: ``upcast<sizeof_bits<T>>`` of the atom in bits (:75)."""
    return recast_flagged(element_bits, umma_atom_bits(major, kind), up=True)


def _umma_reject(message: str, line: str) -> Canonical:
    return Canonical(False, f"{message} ({UMMA_SOURCE}:{line})")


def _umma_layout_type(sw: Swizzle) -> str | Canonical:
    """``UMMA::layout_type`` (mma_traits_sm100.hpp:128-159): the descriptor swizzle of ``Sw<B,M,S>``, or the
    ``static_assert`` that fails (unlike TMA, a 64-byte base ``M == 6`` is refused)."""
    b, m, s = sw.bits, sw.base, sw.shift
    if m == 4:
        if s != 3:
            return _umma_reject("Expected S = 3 when M == 4. Unsupported layout swizzle.", "142")
        if not 0 <= b <= 3:
            return _umma_reject("Expected B = 0,1,2, or 3 when M == 4. Unsupported layout swizzle.", "144")
        return ("SWIZZLE_NONE", "SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B")[b]
    if m == 5:
        if b != 2:
            return _umma_reject("Expected B = 2 when M == 5. Unsupported layout swizzle.", "152")
        if s != 2:
            return _umma_reject("Expected S = 2 when M == 5. Unsupported layout swizzle.", "153")
        return "SWIZZLE_128B_BASE32B"
    return _umma_reject("Only 16B and 32B Atoms are supported for UMMA. Unsupported layout swizzle.", "156")


def canonical_umma(tile: object, element_bits: int, major: str, k_block: int | None = None) -> Canonical:
    """``UMMA::make_umma_desc<Major>(tensor)`` (mma_traits_sm100.hpp:205-308) on the k-block one MMA reads (default
    ``256 / element_bits`` elements of K, as for GMMA): accepted with the descriptor's layout type and its stride /
    leading byte offsets (16-byte units), or rejected with the ``static_assert`` that fails.  Unlike GMMA's, the
    check has no K-size condition, takes ``Sw<2,5,2>`` (SWIZZLE_128B_BASE32B, MN-major only) and refuses
    ``M == 6``; its MN-major SWIZZLE_NONE leaves ``stride<0,0>`` unchecked."""
    checked = _descriptor_operand(tile, element_bits, major, k_block, _umma_reject, "UMMA", "Sw<B,M,S>",
                                  "constexpr in the descriptor", ("209", "210", "257", "214", "221"))
    if isinstance(checked, Canonical):
        return checked
    sw, inner = checked
    layout_type = _umma_layout_type(sw)
    if isinstance(layout_type, Canonical):
        return layout_type
    try:
        u128 = algebra.upcast(128 // element_bits, inner)
    except CuteRejection as exc:
        return _umma_reject(f"recast<uint128_t>: {exc}", "214")
    none = layout_type == "SWIZZLE_NONE"
    mn_atom = {"SWIZZLE_NONE": 1, "SWIZZLE_32B": 2, "SWIZZLE_64B": 4}.get(layout_type, 8)  # :232-236
    if major == "MN":
        k_atom = 4 if layout_type == "SWIZZLE_128B_BASE32B" else 8  # :249
        tiler = Tile([Layout(S_(mn_atom), S_(1)), Layout(S_(k_atom), S_(1))])
    else:
        if layout_type == "SWIZZLE_128B_BASE32B":
            return _umma_reject("SWIZZLE_128B_BASE32B is invalid for Major-K", "282")
        mn = int(size(u128.shape[0]))  # type: ignore[index]
        if mn % 8:
            return _umma_reject(f"Not a canonical UMMA_K Layout: Expected MN-size multiple of 8 (it is {mn}).",
                                "283-284")
        tiler = Tile([Layout(S_(8), S_(1)), Layout(S_(2), S_(1))])
    canon, strides = _divided(u128, tiler)
    if strides is None:
        return _umma_reject(f"Not a canonical UMMA_{major} Layout: Expected profile failure ({canon} is not "
                            "((_,_),(_,_)))", "255" if major == "MN" else "290")
    s00, s01, s10, s11 = strides
    if major == "MN":
        if not none and s00 != 1:
            return _umma_reject(f"Not a canonical UMMA_MN Layout: Expected stride failure (stride<0,0> = {s00}, "
                                "not 1)", "258-259")
        if s10 != mn_atom:
            return _umma_reject(f"Not a canonical UMMA_MN Layout: Expected stride failure (stride<1,0> = {s10}, "
                                f"not {mn_atom})", "260-262")
        sbo, lbo = (s01, s11) if none else (s11, s01)  # :268-269
    else:
        if s00 != mn_atom:
            return _umma_reject(f"Not a canonical UMMA_K Layout: Expected stride failure (stride<0,0> = {s00}, "
                                f"not {mn_atom})", "292-294")
        if not none and s10 != 1:
            return _umma_reject(f"Not a canonical UMMA_K Layout: Expected stride failure (stride<1,0> = {s10}, "
                                "not 1)", "295-297")
        sbo, lbo = s01, s10  # :302-303
    if not (0 <= sbo < 1 << 14 and 0 <= lbo < 1 << 14):
        return _umma_reject(f"the byte offsets SBO={sbo}, LBO={lbo} (16-byte units) do not fit the descriptor's "
                            "14-bit fields (mma_sm100_desc.hpp:106-108; the assignment truncates them)", "268-269")
    return Canonical(True, f"canonical UMMA_{major} {layout_type}", layout_type, sbo, lbo, str(canon))


__all__ = ["KINDS", "MAJORS", "UMMA_KINDS", "UMMA_LAYOUT_CODES", "Canonical", "atom", "atom_bits", "canonical_gmma",
           "canonical_umma", "umma_atom", "umma_atom_bits"]
