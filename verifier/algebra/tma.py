"""The TMA box of ``make_tma_copy(op, gtensor, slayout)`` (CuTe 4.2, copy_traits_sm90_tma.hpp) and the
constraints the CUDA driver puts on it, as obligations with their sources.

``make_tma_box<B>(SMEM, GMEM)`` follows ``construct_tma_gbasis`` (copy_traits_sm90_tma.hpp:723-845) for the usual
call, whose CTA tile is the smem layout's own shape (``cta_v_map`` the identity of ``product_each(shape(SMEM))``):
the smem layout without its swizzle is inverted (``right_inverse``), composed with the identity to read which
gmem mode each smem index walks, truncated at the first mode whose basis is not a static 1 (:768-774), composed
with the gmem layout (``B``-bit elements) and coalesced into box modes of at most 256 (``coalesce_256``,
:667-721); a size-1 box mode follows for each gmem mode the tile does not walk (:800-823), and the modes from the
fifth on are grouped into one (:834).  The swizzle maps to the descriptor's swizzle mode
(copy_traits_sm90_tma_swizzle.hpp:45-100; an unsupported one is a ``static_assert``).  The descriptor's gmem
shape and stride of each box mode come from ``fill_tma_gmem_shape_stride`` (:854-891): the gmem mode's own for a
box mode of one gmem mode, else the gcd of their strides and the recurrence of :876-888.

Obligations, each decided for every admitted value of the gmem's symbols:

* TMA-RANK  the grouped fifth mode is read as one progression of stride gcd (:834, :876-888): its non-trivial
  modes must be one (the first stride divides every grouped stride, each next stride is the previous extent times
  stride), else the TMA reads other elements than the tile's; the rank itself is at most 5 by the grouping;
* TMA-BOX   every box extent is in [1, 256] (copy_traits_sm90_tma.hpp:998-1007; cuda.h:23300);
* TMA-INNER the inner box row is a multiple of 16 bytes (cuda.h:23302; CuTe does not check it: the driver's
  error at the call, :1041, becomes CuTe's ``assert(false)``, :1069);
* TMA-SWIZZLE the inner box row fits the swizzle span: <= 32, 64, 128 bytes for SWIZZLE_32B/64B/128B*
  (cuda.h:23322-23326; likewise only the driver checks it, :1041/:1069);
* TMA-MAJOR the box's first mode has gmem stride 1 (copy_traits_sm90_tma.hpp:963);
* TMA-GSTRIDE every other box mode's gmem stride, in bytes, is non-negative, a multiple of 16 and below 2^40
  (copy_traits_sm90_tma.hpp:971-978 on the ``uint64_t`` strides of :866-880 and :966-969, where a negative stride
  is 2^64 minus its size; cuda.h:23288-23289);
* TMA-GDIM  every box mode's gmem extent is in [1, 2^32] (copy_traits_sm90_tma.hpp:951-960).

Not modelled: the gmem address's 16-byte alignment (:949) and the smem tile's alignment for a swizzle (pointer
properties), multicast's truncation of the box (:993-997), and hierarchical gmem modes (bad input here).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from verifier.algebra.declare import BOX, declare
from verifier.core.basis import ScaledBasis
from verifier.core.claim import _I, Claim, _claim
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import IntTuple, format_tuple, idx2crd, leaf_list, product_each
from verifier.core.integers import D, Int, S, abs_, and_, eq, gcd, ge, le, lt, max_, min_, unwatched
from verifier.core.layouts import Layout, size
from verifier.core.obligations import NEVER, Recorder, record
from verifier.core.swizzle import ComposedLayout, Swizzle

SRC = "copy_traits_sm90_tma.hpp"
SWIZZLE_SRC = "copy_traits_sm90_tma_swizzle.hpp"
DRIVER = "cuda.h (cuTensorMapEncodeTiled, CUDA 13.0)"
MAX_BOX = 256


@dataclass(frozen=True)
class TmaBox:
    """The TMA box (``box_shape : gmem strides`` in elements), the descriptor's swizzle mode, and how many of the
    box's leading modes the smem tile walks (the others are the size-1 modes of the gmem modes it does not)."""

    box: Layout
    swizzle: str
    tile: Layout  # the box modes the smem tile walks, before the size-1 and grouped ones
    # each box mode's gmem (extent, stride in elements) as fill_tma_gmem_shape_stride fills the descriptor (None
    # for coalesce_256's Layout<_1,_0>, which reads no gmem mode)
    descriptor: tuple[tuple[Int, Int] | None, ...] = field(default=(), compare=False)

    @property
    def walked(self) -> int:
        shape = self.tile.shape
        return len(shape) if type(shape) is tuple else 1

    def __str__(self) -> str:
        return f"{self.box} {self.swizzle}"


def tma_swizzle(sw: Swizzle) -> tuple[str, int]:
    """``get_tma_swizzle_bits`` / ``get_tma_swizzle_base`` (copy_traits_sm90_tma_swizzle.hpp:45-100) and
    ``to_CUtensorMapSwizzle`` (copy_sm90_desc.hpp:239-262): the descriptor's swizzle and its span in bytes."""
    b, m, s = sw.bits, sw.base, sw.shift
    if m == 4:
        if not 0 <= b <= 3:
            raise CuteRejection("Expected B = 0,1,2, or 3 when M == 4. Unsupported layout swizzle.",
                                f"{SWIZZLE_SRC}:51")
        if s != 3:
            raise CuteRejection("Expected S = 3 when M == 4. Unsupported layout swizzle.", f"{SWIZZLE_SRC}:83")
        return ("SWIZZLE_NONE", "SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B")[b], (0, 32, 64, 128)[b]
    if m in (5, 6):
        if b != 2:
            raise CuteRejection("Expected B = 2 when M == 5 or 6. Unsupported layout swizzle.",
                                f"{SWIZZLE_SRC}:59")
        if m == 5 and s != 2:
            raise CuteRejection("Expected S = 2 when M == 5. Unsupported layout swizzle.", f"{SWIZZLE_SRC}:89")
        return ("SWIZZLE_128B_ATOM_32B" if m == 5 else "SWIZZLE_128B_ATOM_64B"), 128
    raise CuteRejection("Unsupported layout swizzle.", f"{SWIZZLE_SRC}:65")


@dataclass(frozen=True)
class _Mode:
    """One box mode: its extent, and the gmem modes it reads (their strides, then their indices)."""

    extent: Int
    strides: tuple[Int, ...]
    gmodes: tuple[int, ...]
    parts: tuple[Int, ...] = ()  # the extents merged into it, as CuTe prints the mode: (_32,_8)

    @property
    def shape(self) -> IntTuple:
        return self.parts if len(self.parts) > 1 else self.extent

    @property
    def stride(self) -> IntTuple:
        return self.strides if len(self.strides) > 1 else self.strides[0]


def _coalesce_256(modes: list[_Mode]) -> list[_Mode]:
    """``coalesce_256`` (copy_traits_sm90_tma.hpp:667-721): merge ``s1:s0*d0`` into ``s0*s1:d0`` while the product
    is at most 256, decided on static values only (``is_constant<true, ...>``); size-1 modes are dropped and a
    leading size-1 mode is replaced."""
    out = [modes[0]]
    for m in modes[1:]:
        if m.extent.is_constant(1):
            continue
        back = out[-1]
        if len(out) == 1 and back.extent.is_constant(1):
            out = [m]
            continue
        prod_d, prod_s = back.extent * back.strides[0], m.extent * back.extent
        if prod_d.static and m.strides[0].static and int(prod_d) == int(m.strides[0]) and prod_s.static \
                and int(prod_s) <= MAX_BOX:
            out[-1] = _Mode(prod_s, back.strides + m.strides, back.gmodes + m.gmodes,
                            (back.parts or (back.extent,)) + (m.extent,))
            continue
        out.append(m)
    return out


def _flat(t: IntTuple) -> tuple[Int, ...]:
    return tuple(leaf_list(t))


def _modes(t: IntTuple) -> list[Int]:
    """The top-level modes of a gmem shape or stride, each a leaf (a hierarchical gmem mode is not modelled)."""
    modes = list(t) if type(t) is tuple else [t]
    if not all(isinstance(m, Int) for m in modes):
        raise LayoutError(f"make_tma_box: a hierarchical gmem mode is not modelled ({format_tuple(t)})")
    return modes  # type: ignore[return-value]  # each an Int, checked above


def swizzle_portions(smem: object) -> tuple[Swizzle, Layout]:
    """``get_swizzle_portion`` and ``get_nonswizzle_portion`` (swizzle_layout.hpp) of a TMA smem layout: a plain
    layout has the identity swizzle ``Sw<0,4,3>``."""
    if isinstance(smem, ComposedLayout) and isinstance(smem.outer, Swizzle) and isinstance(smem.inner, Layout):
        return smem.outer, smem.inner
    if isinstance(smem, Layout):
        return Swizzle(0, 4, 3), smem
    raise LayoutError(f"make_tma_box: the smem layout must be a layout or Sw<B,M,S> o O o L, not {smem}")


def _basis_mode(d: object) -> int:
    assert isinstance(d, ScaledBasis)
    return d.modes[0]


# Why make_tma_box has no C++ check of its own in the selfcheck.
_NOT_COMPILED = ("not a CuTe function but the box make_tma_copy derives (detail::construct_tma_gbasis): "
                 "tests/differential/test_tma.py compiles that call on its own")


def make_tma_box_claims(r: TmaBox, element_bits: int, smem: object, gmem: Layout) -> list[Claim]:
    """TMA-POST: the box walks the tile as the smem layout stores it: its ``i``-th element is the gmem element of
    the tile coordinate that smem index ``i`` holds, ``box(i) == GMEM(idx2crd(right_inverse(SMEM)(i), tile))``
    (the TMA unit writes box element ``i`` to smem index ``i``, before the swizzle; copy_traits_sm90_tma.hpp:723-845).
    The smem layout's inverse is what the statement is made of."""
    from verifier.algebra import ops as algebra

    _, inner = swizzle_portions(smem)
    walked = r.tile
    tile = product_each(inner.shape)
    inverse = algebra.right_inverse(inner)
    assert isinstance(inverse, Layout)
    crd = idx2crd(inverse(_I), tile)
    crd = crd if type(crd) is tuple else (crd,)
    gshape = gmem.shape if type(gmem.shape) is tuple else (gmem.shape,)
    full = (*crd, *(D(0) for _ in gshape[len(crd):]))
    expected = gmem(full if type(gmem.shape) is tuple else full[0])
    return [_claim("TMA-POST", "box element i is the gmem element of the tile coordinate at smem index i: "
                   "box(i) == GMEM(idx2crd(right_inverse(SMEM)(i), tile))", "copy_traits_sm90_tma.hpp:723-845",
                   size(walked), expected, walked(_I))]


@declare(("L", "L"), "copy_traits_sm90_tma.hpp:723-845", make_tma_box_claims, result=BOX, records=("TMA",), template=1,
         swizzled=True, widths=(0,), not_compiled=_NOT_COMPILED,
         example=("16", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)", "--assume",
                  "K % 8 == 0"),
         docs=(("`make_tma_box<B>(SMEM, GMEM)`",
                "**TMA-POST**: box element `i` is the gmem element of the tile coordinate that smem index `i` "
                "holds, `box(i) == GMEM(idx2crd(right_inverse(SMEM)(i), tile))`. The box is that of "
                "`make_tma_copy(op, make_tensor(ptr<T>, GMEM), SMEM)` (T of B bits, the CTA tile SMEM's own shape) "
                "as `construct_tma_gbasis` derives it (copy_traits_sm90_tma.hpp:723-845: `right_inverse` of SMEM "
                "without its swizzle, through the identity of the tile, truncated at the first mode whose basis is "
                "not a static 1, composed with GMEM, `coalesce_256` (a merged mode prints as `(_32,_8)`), a size-1 "
                "box mode per gmem mode the tile does not walk, the fifth mode on grouped, :834), with the "
                "descriptor's swizzle (copy_traits_sm90_tma_swizzle.hpp:45-100; an unsupported `Sw<B,M,S>` is a "
                "`static_assert`) and each box mode's gmem stride and extent as `fill_tma_gmem_shape_stride` "
                "computes them (:866-891: the gcd and its recurrence for a mode of several gmem modes). The boxes, "
                "the swizzle mapping and the run-time asserts are what compiled CuTe gives "
                "(tests/differential/test_tma.py)",
                "TMA-RANK, TMA-BOX, TMA-INNER, TMA-SWIZZLE, TMA-MAJOR, TMA-GSTRIDE, TMA-GDIM, decided for every "
                "admitted value of GMEM's symbols. Not modelled: the gmem address's 16-byte alignment (:949) and "
                "the smem alignment a swizzle needs (pointer properties), multicast's truncation of the box "
                "(:993-997), hierarchical gmem modes (bad input)"),))
def make_tma_box(element_bits: object, smem: object, gmem: object) -> TmaBox:
    """The TMA box of ``make_tma_copy(op, make_tensor(ptr<T>, GMEM), SMEM)`` for ``T`` of ``element_bits`` bits,
    recording the driver's constraints (module docstring).  No int32 overflow is watched: the box is type-level
    arithmetic on static values (coalesce_256's test is a ``decltype``), and the descriptor's strides and extents
    are computed in ``uint64_t`` (:862-891, :966-969); the obligations state the limits that matter there."""
    with unwatched():
        return _make_tma_box(element_bits, smem, gmem)


def _make_tma_box(element_bits: object, smem: object, gmem: object) -> TmaBox:
    bits = int(element_bits)  # type: ignore[call-overload]
    if bits <= 0:
        raise LayoutError(f"make_tma_box: the element width must be positive, got {bits}")
    sw, inner = swizzle_portions(smem)
    if not isinstance(gmem, Layout):
        raise LayoutError(f"make_tma_box: the gmem layout must be a layout, not {gmem}")
    kind, span = tma_swizzle(sw)
    tile = product_each(inner.shape)
    modes = tile if type(tile) is tuple else (tile,)
    gshape, gstride = _modes(gmem.shape), _modes(gmem.stride)
    if len(gshape) < len(modes):
        raise LayoutError(f"make_tma_box: the gmem layout {gmem} has fewer modes than the smem tile {tile}")
    if not all(isinstance(m, Int) and m.static for m in modes):
        raise CuteRejection("compile error: the smem layout of a TMA copy is static", f"{SRC}:55")
    full = _tile_to_gmode(inner, modes)
    fshape, fstride = _flat(full.shape), _flat(full.stride)
    rank = 0
    for d in fstride:
        if not (isinstance(d, ScaledBasis) and d.value.is_constant(1)):
            break
        rank += 1
    if rank == 0:
        raise CuteRejection("Could not find a common tile-gmem vectorization. Does the Tile select out major GMEM "
                            "modes?", f"{SRC}:774")
    # gtensor.compose(sidx2gmode) (:784): a static-1 basis E<i> walks gmem mode i, so tile mode j is s_j : D_i
    walks = [_Mode(fshape[j], (gstride[_basis_mode(fstride[j])],), (_basis_mode(fstride[j]),)) for j in range(rank)]
    box = _coalesce_256(walks)
    if len(box) == 1 and box[0].extent.is_constant(1):
        box = [_Mode(S(1), (S(0),), ())]  # coalesce_256's Layout<_1,_0> (:684-686)
    walked = {i for m in box for i in m.gmodes}
    rest = [_Mode(S(1), (gstride[i],), (i,)) for i in range(len(gshape))
            if i not in walked and not gshape[i].is_constant(1) and not gstride[i].is_constant(0)]
    tile_box = Layout(tuple(m.extent for m in box), tuple(m.strides[0] for m in box))  # merged modes are progressions
    every = box + rest
    head, grouped = every[:4], every[4:] if len(every) > 5 else []
    final = every if not grouped else head + [_Mode(_product([m.extent for m in grouped]),
                                                    tuple(d for m in grouped for d in m.strides),
                                                    tuple(i for m in grouped for i in m.gmodes))]
    if grouped:
        shape: tuple[IntTuple, ...] = (*(m.shape for m in head), tuple(m.shape for m in grouped))
        stride: tuple[IntTuple, ...] = (*(m.stride for m in head), tuple(m.stride for m in grouped))
        _grouped_obligation(grouped)
    else:
        shape, stride = tuple(m.shape for m in final), tuple(m.stride for m in final)
    _obligations(final, bits, kind, span, gshape)
    desc = tuple(_gmem_extent(m, gshape)[::-1] if m.gmodes else None for m in final)
    return TmaBox(Layout(shape, stride), kind, tile_box, desc)


def descriptor(element_bits: int, smem: object, gmem: object) -> tuple[tuple[int, int] | None, ...]:
    """The descriptor's gmem (extent, stride in elements) of each box mode on concrete operands, as the layout
    defines them (mathematical integers: what a faithful descriptor holds); None for a mode reading no gmem."""
    with Recorder():
        box = make_tma_box(element_bits, smem, gmem)
    return tuple(None if d is None else (int(d[0]), int(d[1])) for d in box.descriptor)


@functools.lru_cache(maxsize=256)
def _tile_to_gmode(inner: Layout, modes: tuple[Int, ...]) -> Layout:
    """``coalesce(identity o right_inverse(SMEM))`` (:747-766), which smem index walks which tile mode: static, so
    computed once per smem layout (its basis composition checks its own postcondition element by element)."""
    from verifier.algebra import ops as algebra

    identity = Layout(modes, tuple(ScaledBasis(S(1), (i,)) for i in range(len(modes))))
    with Recorder():  # internal to construct_tma_gbasis: exact on these static layouts, their checks not the user's
        inv = algebra.right_inverse(inner)
        return algebra.coalesce(algebra.composition(identity, inv))


def _product(xs: list[Int]) -> Int:
    p = xs[0]
    for x in xs[1:]:
        p = p * x
    return p


def _grouped_obligation(grouped: list[_Mode]) -> None:
    """TMA-RANK: the modes grouped into the fifth (:834) are read as one progression of stride gcd (:876-888)."""
    strides = [d for m in grouped for d in m.strides]
    real = [m for m in grouped if not m.extent.is_constant(1)]
    if not real:
        return  # size-1 modes only: the gcd stride reads the one element whatever the strides
    first = real[0].strides[0]
    conds = [eq(d % first, 0) for d in strides]
    conds += [eq(b.strides[0], a.extent * a.strides[0]) for a, b in zip(real, real[1:])]
    record("TMA-RANK", f"the {len(grouped)} box modes grouped into the fifth form one progression of stride "
           "gcd (the first stride divides the others; each next stride is the previous extent times stride)",
           f"{SRC}:834; {SRC}:876-888", NEVER, and_(*conds))


def _gmem_extent(m: _Mode, gshape: list[Int]) -> tuple[Int, Int]:
    """``fill_tma_gmem_shape_stride`` (:866-888) for one box mode: its gmem stride and extent, in elements.  Of
    several gmem modes, the stride is their gcd (the first stride where TMA-RANK or coalesce_256 holds, exactly the
    gcd then) and the extent ``1 + sum (G_j - 1) * (D_j / gcd)``."""
    if len(m.gmodes) == 1:
        return m.strides[0], gshape[m.gmodes[0]]
    g = m.strides[0]
    if m.extent.is_constant(1):  # size-1 modes only: the gcd itself
        for d in m.strides[1:]:
            g = gcd(g, d)
        # A gcd of 0 (every stride 0) is guarded (:882-887): the extent is then the last gmem mode's, with no
        # division; written without a branch (g is 0 exactly when min(|g|, 1) is) so that it stays one expression
        zero = S(1) - min_(abs_(g), S(1))
        extent = S(1) + (gshape[m.gmodes[-1]] - 1) * zero
        for d, i in zip(m.strides, m.gmodes):
            extent = extent + (gshape[i] - 1) * (d / max_(abs_(g), S(1)))
        return g, extent
    extent = S(1)
    for d, i in zip(m.strides, m.gmodes):
        extent = extent + (gshape[i] - 1) * (d / g)
    return g, extent


def _obligations(modes: list[_Mode], bits: int, kind: str, span: int, gshape: list[Int]) -> None:
    record("TMA-BOX", "every box extent is in [1, 256]", f"{SRC}:998-1007; {DRIVER}:23300", NEVER,
           and_(*(and_(ge(m.extent, 1), le(m.extent, MAX_BOX)) for m in modes)))
    inner_bits = modes[0].extent * S(bits)
    record("TMA-INNER", "the inner box row (boxDim[0] * element size) is a multiple of 16 bytes",
           f"{DRIVER}:23302; {SRC}:1041, 1069", NEVER, eq(inner_bits % S(128), 0))
    if span:
        record("TMA-SWIZZLE", f"the inner box row fits the {kind} span of {span} bytes",
               f"{DRIVER}:23322-23326; {SRC}:1041, 1069", NEVER, le(inner_bits, S(8 * span)))
    for k, m in enumerate(modes):
        if not m.gmodes:
            continue  # coalesce_256's Layout<_1,_0>: no gmem mode
        d, extent = _gmem_extent(m, gshape)
        if k == 0:
            record("TMA-MAJOR", "the box's first mode has gmem stride 1 (the majorness of smem matches gmem)",
                   f"{SRC}:963", NEVER, eq(d, 1))
        else:
            # The descriptor's strides are unsigned: fill_tma_gmem_shape_stride stores the stride in a uint64_t
            # (:869, :880) and make_tma_copy_desc scales it to bytes in uint64_t (:966-969), so a negative stride is
            # 2^64 minus its size, which the 2^40 assert (:971) refuses; where the product wraps back below 2^40
            # (a stride near 2^60 or -2^60) the descriptor's stride is not the layout's: neither is encodable.
            record("TMA-GSTRIDE", f"box mode {k}'s gmem stride, in bytes, is non-negative, a multiple of 16 and "
                   "below 2^40", f"{SRC}:866-880, 966-978; {DRIVER}:23288-23289", NEVER,
                   and_(ge(d, 0), eq((d * S(bits)) % S(128), 0), lt(d * S(bits), S(8 << 40))))
        # Of several gmem modes, the extent is the recurrence of :876-888 in uint64_t over their strides: with a
        # negative one it is not the layout's extent (CuTe's gcd and quotients are of 2^64 minus its size)
        signs = [ge(x, 0) for x in m.strides] if len(m.gmodes) > 1 else []
        record("TMA-GDIM", f"box mode {k}'s gmem extent is in [1, 2^32]", f"{SRC}:866-888, 951-960; {DRIVER}:23282",
               NEVER, and_(ge(extent, 1), le(extent, S(1 << 32)), *signs))


__all__ = ["TmaBox", "descriptor", "make_tma_box", "swizzle_portions", "tma_swizzle"]
