"""The TMA box of ``make_tma_copy(op, gtensor, slayout)`` (CuTe 4.2, copy_traits_sm90_tma.hpp) and the
constraints the CUDA driver puts on it, as obligations with their sources.

``make_tma_box<B>(SMEM, GMEM)`` follows ``construct_tma_gbasis`` (copy_traits_sm90_tma.hpp:723-852) for the usual
call, whose CTA tile is the smem layout's own shape (``cta_v_map`` the identity of ``product_each(shape(SMEM))``):
the smem layout without its swizzle is inverted (``right_inverse``), composed with the identity to read which
gmem mode each smem index walks, truncated at the first mode whose basis is not a static 1, composed with the gmem
layout (``B``-bit elements) and coalesced into box modes of at most 256 (``coalesce_256``, :667-721).  The result is
the TMA box ``box_shape : gmem strides`` in elements, followed by a size-1 box mode for each gmem mode the tile
does not walk.  The swizzle maps to the descriptor's swizzle mode (copy_traits_sm90_tma_swizzle.hpp:45-100).

Obligations, each decided for every admitted value of the gmem's symbols:

* TMA-RANK  the box has at most 5 modes (cuda.h:23275; CuTe groups the trailing gmem modes, :848);
* TMA-BOX   every box extent is in [1, 256] (copy_traits_sm90_tma.hpp:998-1007; cuda.h:23300);
* TMA-INNER the inner box row is a multiple of 16 bytes (cuda.h:23302; CuTe does not check it: the driver's
  error is CuTe's ``assert(false)``, copy_traits_sm90_tma.hpp:1081);
* TMA-SWIZZLE the inner box row fits the swizzle span: <= 32, 64, 128 bytes for SWIZZLE_32B/64B/128B*
  (cuda.h:23322-23326);
* TMA-MAJOR the box's first mode has gmem stride 1 (copy_traits_sm90_tma.hpp:963);
* TMA-GSTRIDE every other gmem stride, in bytes, is a multiple of 16 and below 2^40
  (copy_traits_sm90_tma.hpp:971-978; cuda.h:23288-23289);
* TMA-GDIM  every gmem extent is in [1, 2^32] (copy_traits_sm90_tma.hpp:951-960).

The gmem address's 16-byte alignment (copy_traits_sm90_tma.hpp:949) is a pointer property, not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.core.basis import ScaledBasis
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import IntTuple, format_tuple, leaf_list
from verifier.core.integers import Bool, Int, S, and_, eq, ge, le, lt
from verifier.core.layouts import Layout
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
    walked: int

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
            raise CuteRejection("Expected B = 2 when M == 5 or 6. Unsupported layout swizzle.", f"{SWIZZLE_SRC}:59")
        if m == 5 and s != 2:
            raise CuteRejection("Expected S = 2 when M == 5. Unsupported layout swizzle.", f"{SWIZZLE_SRC}:88")
        return ("SWIZZLE_128B_ATOM_32B" if m == 5 else "SWIZZLE_128B_ATOM_64B"), 128
    raise CuteRejection("Unsupported layout swizzle.", f"{SWIZZLE_SRC}:64")


def _coalesce_256(shape: tuple[Int, ...], stride: tuple[Int, ...]) -> tuple[list[Int], list[Int]]:
    """``coalesce_256`` (copy_traits_sm90_tma.hpp:667-721): merge ``s1:s0*d0`` into ``s0*s1:d0`` while the product
    is at most 256, decided on static values only (``is_constant<true, ...>``)."""
    ns, nd = [shape[0]], [stride[0]]
    for s, d in zip(shape[1:], stride[1:]):
        if s.is_constant(1):
            continue
        if ns == [S(1)] or (len(ns) == 1 and ns[0].is_constant(1)):
            ns, nd = [s], [d]
            continue
        prod_d, prod_s = ns[-1] * nd[-1], s * ns[-1]
        if prod_d.static and d.static and int(prod_d) == int(d) and prod_s.static and int(prod_s) <= MAX_BOX:
            ns[-1] = prod_s
            continue
        ns.append(s)
        nd.append(d)
    return ns, nd


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


def make_tma_box(element_bits: object, smem: object, gmem: object) -> TmaBox:
    """The TMA box of ``make_tma_copy(op, make_tensor(ptr<T>, GMEM), SMEM)`` for ``T`` of ``element_bits`` bits,
    recording the driver's constraints (module docstring)."""
    from verifier.algebra import ops as algebra
    from verifier.core.int_tuple import product_each

    bits = int(element_bits)  # type: ignore[call-overload]
    if bits <= 0:
        raise LayoutError(f"make_tma_box: the element width must be positive, got {bits}")
    sw, inner = swizzle_portions(smem)
    if not isinstance(gmem, Layout):
        raise LayoutError(f"make_tma_box: the gmem layout must be a layout, not {gmem}")
    kind, span = tma_swizzle(sw)
    tile = product_each(inner.shape)
    modes = tile if type(tile) is tuple else (tile,)
    gshape = _modes(gmem.shape)
    if len(gshape) < len(modes):
        raise LayoutError(f"make_tma_box: the gmem layout {gmem} has fewer modes than the smem tile {tile}")
    if not all(isinstance(m, Int) and m.static for m in modes):
        raise CuteRejection("compile error: the smem layout of a TMA copy is static", f"{SRC}:55")
    identity = Layout(modes, tuple(ScaledBasis(S(1), (i,)) for i in range(len(modes))))
    with Recorder():  # internal to construct_tma_gbasis: exact on these static layouts, their checks not the user's
        inv = algebra.right_inverse(inner)
        full = algebra.coalesce(algebra.composition(identity, inv))
    fshape, fstride = _flat(full.shape), _flat(full.stride)
    rank = 0
    for d in fstride:
        if not (isinstance(d, ScaledBasis) and d.value.is_constant(1)):
            break
        rank += 1
    if rank == 0:
        raise CuteRejection("Could not find a common tile-gmem vectorization. Does the Tile select out major GMEM "
                            "modes?", f"{SRC}:774")
    sidx2gmode = Layout(tuple(fshape[:rank]), tuple(fstride[:rank]))
    with Recorder():  # gmem o sidx2gmode selects whole gmem modes (static-1 bases): no precondition to keep
        tile_gstride = algebra.composition(gmem, sidx2gmode)
    box_s, box_d = _coalesce_256(_flat(tile_gstride.shape), _flat(tile_gstride.stride))
    walked = {_basis_mode(d) for d in fstride[:rank]}
    gstride = _modes(gmem.stride)
    rest = [i for i in range(len(gshape)) if i not in walked and not gshape[i].is_constant(1)
            and not gstride[i].is_constant(0)]
    shape = (*box_s, *(S(1) for _ in rest))
    stride = (*box_d, *(gstride[i] for i in rest))
    box = Layout(shape, stride)
    _obligations(list(shape), list(stride), len(box_s), bits, kind, span, gshape)
    return TmaBox(box, kind, len(box_s))


def _basis_mode(d: object) -> int:
    assert isinstance(d, ScaledBasis)
    return d.modes[0]


def _obligations(shape: list[Int], stride: list[Int], n_box: int, bits: int, kind: str, span: int,
                 gshape: list[Int]) -> None:
    record("TMA-RANK", f"the TMA box has at most 5 modes (it has {len(shape)})", f"{DRIVER}:23275; {SRC}:848",
           NEVER, Bool(eq(S(int(len(shape) <= 5)), S(1)).expr, False))
    record("TMA-BOX", "every box extent is in [1, 256]", f"{SRC}:998-1007; {DRIVER}:23300", NEVER,
           and_(*(and_(ge(s, 1), le(s, MAX_BOX)) for s in shape[:n_box])))
    inner_bits = shape[0] * S(bits)
    record("TMA-INNER", "the inner box row (boxDim[0] * element size) is a multiple of 16 bytes",
           f"{DRIVER}:23302", NEVER, eq(inner_bits % S(128), 0))
    if span:
        record("TMA-SWIZZLE", f"the inner box row fits the {kind} span of {span} bytes",
               f"{DRIVER}:23322-23326", NEVER, le(inner_bits, S(8 * span)))
    record("TMA-MAJOR", "the box's first mode has gmem stride 1 (the majorness of smem matches gmem)",
           f"{SRC}:963", NEVER, eq(stride[0], 1))
    for d in stride[1:]:
        record("TMA-GSTRIDE", "every outer gmem stride, in bytes, is a multiple of 16 and below 2^40",
               f"{SRC}:971-978; {DRIVER}:23288-23289", NEVER,
               and_(eq((d * S(bits)) % S(128), 0), lt(d * S(bits), S(8 << 40))))
    for e in gshape:
        record("TMA-GDIM", "every gmem extent is in [1, 2^32]", f"{SRC}:951-960", NEVER,
               and_(ge(e, 1), le(e, S(1 << 32))))


__all__ = ["TmaBox", "make_tma_box", "swizzle_portions", "tma_swizzle"]
