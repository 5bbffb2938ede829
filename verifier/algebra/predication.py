"""Predication as kernels write it (CuTe's tutorial ``sgemm_2``/``sgemm_sm80`` and the CUTLASS collectives):

    Tensor gA  = local_tile(mA, cta_tiler, cta_coord, Step<_1,X,_1>{});     // the CTA's tiles of A
    Tensor cA  = local_tile(make_identity_tensor(shape(mA)), cta_tiler, cta_coord, Step<_1,X,_1>{});
    Tensor tAgA = local_partition(gA, tA, threadIdx.x);                      // this thread's elements
    Tensor tAcA = local_partition(cA, tA, threadIdx.x);                      // ... and their coordinates
    copy_if(tApA, tAgA, tAsA)  with  tApA(i) = elem_less(tAcA(i), residue)

``predicated_copy(A, tiler, coord, proj, thr, t, residue)`` computes both partitions exactly as CuTe does (the
identity tensor's scaled-basis strides ``(_1@0, _1@1)`` are evaluated component by component: mode ``j`` of the
coordinate is the same partition of the layout with stride ``_1`` on mode ``j`` and ``_0`` elsewhere, which is
what ``E<j>`` arithmetic computes, arithmetic_tuple.hpp), and its claims say, for every admitted M, N, K, tile
coordinate and thread index:

* ``PRED-IN``: every access the predicate admits is inside the tensor: ``elem_less(c, residue)`` implies
  ``elem_less(c, shape(A))``;
* ``PRED-AT``: the element accessed is the one at that coordinate: ``offset + V(i) == A(c(i))``;
* ``PRED-COVER``: no element of the problem is skipped: the residue is the whole shape (``residue >= shape(A)``
  mode by mode) and (``COVER-THR``, decided on the static tile) the threads' values cover the CTA tile once each.

A partial last tile is then correct: the divide's ``DIV-EXACT`` does not decide here (the predicate is its guard).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

from verifier.algebra import ops as algebra
from verifier.algebra.declare import OFFSET_LAYOUT, declare
from verifier.core.claim import _I, Claim
from verifier.core.int_tuple import IntTuple, leaves
from verifier.core.integers import FALSE, TRUE, Bool, Const, D, Int, S, and_, eq, ge, lt, ne, not_, or_
from verifier.core.layouts import Layout, rank, size
from verifier.core.obligations import NEVER, Quiet, Shallow, record


def identity_components(shape: IntTuple) -> list[Layout]:
    """``make_identity_layout(shape)`` (``shape : (_1@0, _1@1, ...)``) as one integer layout per mode: component
    ``j`` has stride ``_1`` on mode ``j`` and ``_0`` elsewhere."""
    modes = shape if type(shape) is tuple else (shape,)
    out = []
    for j in range(len(modes)):
        stride = tuple(S(1) if k == j else S(0) for k in range(len(modes)))
        out.append(Layout(tuple(modes), stride))
    return out


def elem_less(a: Sequence[Int], b: Sequence[Int]) -> Bool:
    """``elem_less`` (int_tuple.hpp:790-800, 885-892): ``a[i] < b[i]`` for every mode of ``a``; false when ``a``
    has more modes than ``b``, and ``b``'s extra modes are ignored."""
    if len(a) > len(b):
        return Bool(Const(False), True)
    return and_(*(lt(x, y) for x, y in zip(a, b)))


def domain_offset(coord: IntTuple, view: algebra.OffsetLayout) -> algebra.OffsetLayout:
    """``domain_offset(coord, tensor)`` (tensor_impl.hpp:742-746, layout.hpp:719-722): the same layout, the pointer
    moved by ``layout(coord)`` (for the identity tensor: the coordinate shifted)."""
    return algebra.OffsetLayout(view.layout, view.offset + view.layout(coord))


def _partition(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
               shift: IntTuple | None) -> algebra.OffsetLayout:
    tile = algebra.local_tile(a, tiler, coord, proj)  # type: ignore[arg-type]
    if shift is not None:
        tile = domain_offset(shift, tile)
    part = _thread_part(tile.layout, thr, index)
    return algebra.OffsetLayout(part.layout, tile.offset + part.offset)


def _thread_part(tile: Layout, thr: object, index: Int) -> algebra.OffsetLayout:
    """A thread's share of a tile: ``local_partition(tile, thr, index)`` for a thread layout,
    ``tiled_copy.get_slice(index).partition_S(tile)`` for a TiledCopy, or ``tiled_mma.get_slice(index).partition_C
    (tile)`` for a TiledMMA (an epilogue that stores the accumulators straight to gmem, default_epilogue.hpp:200)."""
    from verifier.algebra.tiled import TiledCopy, TiledMMA

    if isinstance(thr, TiledMMA):
        record("IX-2", "the thread index lies in [0, size(TiledMMA)), the threads of the TiledMMA",
               "mma_atom.hpp:466-473", NEVER, and_(ge(index, D(0)), lt(index, thr.thr_layout_vmnk.size())))
        return thr.partition_C(tile, index)
    if isinstance(thr, TiledCopy):
        n = thr.layout_tv.size() if rank(thr.layout_tv) == 1 else size(thr.layout_tv, 0)
        record("IX-2", "the thread index lies in [0, size<0>(layout_TV)), the threads of the TiledCopy",
               "copy_atom.hpp:343-349", NEVER, and_(ge(index, D(0)), lt(index, n)))
        return thr.partition_S(tile, index)
    return algebra.local_partition(tile, thr, index)  # type: ignore[arg-type]


def partitions(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
               shift: IntTuple | None = None) -> tuple[algebra.OffsetLayout, list[algebra.OffsetLayout]]:
    """The data partition (``tAgA``) and the coordinate partitions (``tAcA``, one per mode)."""
    data = _partition(a, tiler, coord, proj, thr, index, shift)
    return data, _coordinates(a, tiler, coord, proj, thr, index, shift)


def _coordinates(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
                 shift: IntTuple | None = None) -> list[algebra.OffsetLayout]:
    """The coordinate partitions (``tAcA``), one per mode of A."""
    with Quiet():  # the identity tensor's partitions repeat the data's obligations
        return [_partition(c, tiler, coord, proj, thr, index, shift) for c in identity_components(a.shape)]


def _tile_cover(tiler: object, proj: object, thr: Layout) -> tuple[Bool, str, tuple[int, ...]] | None:
    """COVER-THR on a static tile: every coordinate of the CTA tile is some (thread, value), exactly once; with
    the first witness when not, and the threads it names.  Free of symbols, so decided once per process (the guard
    search rebuilds the claims for every candidate)."""
    try:
        return _tile_cover_memo(tiler, proj, thr)
    except TypeError:  # an unhashable operand: just compute
        return _tile_cover_once(tiler, proj, thr)


@functools.lru_cache(maxsize=64)
def _tile_cover_memo(tiler: object, proj: object, thr: Layout) -> tuple[Bool, str, tuple[int, ...]] | None:
    return _tile_cover_once(tiler, proj, thr)


def _tile_cover_once(tiler: object, proj: object, thr: Layout) -> tuple[Bool, str, tuple[int, ...]] | None:
    diced = algebra.dice(proj, tiler) if proj is not None else tiler
    elements = diced.elements if hasattr(diced, "elements") else diced
    elements = elements if type(elements) is tuple else (elements,)
    from verifier.algebra.tiled import TiledCopy, TiledMMA

    try:
        shape = tuple(int(size(e) if isinstance(e, Layout) else e) for e in elements)
        n_thr = int(size(thr.layout_tv, 0) if isinstance(thr, TiledCopy) else
                    thr.thr_layout_vmnk.size() if isinstance(thr, TiledMMA) else thr.size())
    except TypeError:
        return None
    tile = tuple(D(x) for x in shape)
    comps = identity_components(tile)
    seen: dict[tuple[int, ...], tuple[int, int]] = {}
    for t in range(n_thr):
        with Quiet():  # concrete views whose obligations nobody reads: each thread reuses the others' divides
            views = [_thread_part(c, thr, D(t)) for c in comps]
        n = int(views[0].layout.size())
        for v in range(n):
            c = tuple(int(w.offset + w.layout(v)) for w in views)
            if c in seen:
                u, w = seen[c]
                return FALSE, f"T{u}V{w} and T{t}V{v} both hold tile coordinate {c}", (u, t)
            if not all(0 <= x < e for x, e in zip(c, shape)):
                return FALSE, f"T{t}V{v} holds {c}, outside the {shape} tile (into the next tile)", (t,)
            seen[c] = (t, v)
    total = 1
    for e in shape:
        total *= e
    if len(seen) != total:
        missing = next(c for c in itertools.product(*(range(e) for e in shape)) if c not in seen)
        return FALSE, f"tile coordinate {missing} is held by no thread", ()
    return TRUE, "", ()


_VIA_PARTS = ("a layout-level model of a kernel's copy: decided through its parts (the divide, the slice and "
              "the coordinate bounds), each compiled")
# Why the selfcheck has no single CuTe call to run for a kernel copy's model: CuTe's copy_if / copy are device loops
# that move elements and return nothing (no layout to print and compare); the layout operations they are built from
# are each in the selfcheck's corpus.
_PREDICATED = (_VIA_PARTS + ". CuTe's copy_if (copy.hpp:49-61) is a loop over size(dst) that moves elements where "
               "pred(i) holds and returns void: no result to compare; local_tile, local_partition and "
               "slice_and_offset, which build its tensors, are each in the selfcheck's corpus")
_VECTORIZED = (_VIA_PARTS + ". CuTe's copy(AutoVectorizingCopyWithAssumedAlignment, src, dst) (copy.hpp:241-273) "
               "takes max_common_vector of the two tensors as a constant expression (CUTE_STATIC_V: a run-time "
               "integer cannot reach it) and returns void: no result to compare; max_common_vector, "
               "max_common_layout, recast_layout and upcast are each in the selfcheck's corpus")


def predicated_copy_claims(data: algebra.OffsetLayout, a: Layout, tiler: object, coord: object, proj: object,
                           thr: Layout, index: Int, residue: IntTuple, shift: IntTuple | None = None) -> list[Claim]:
    """The contract of ``predicated_copy`` (the module's docstring), over its result ``data`` (the thread's
    partition) and the coordinates the identity tensor's partitions give it."""
    comps = _coordinates(a, tiler, coord, proj, thr, index, shift)
    shape: list[Int] = list(leaves(a.shape)) if type(a.shape) is tuple else [a.shape]  # type: ignore[list-item]
    res: list[Int] = list(leaves(residue)) if type(residue) is tuple else [residue]  # type: ignore[list-item]
    c = [w.offset + w.layout(_I) for w in comps]
    pred = elem_less(c, res)
    n = data.layout.size()
    src = "tensor_impl.hpp:976-1111, int_tuple.hpp:885"
    inside = or_(not_(pred), elem_less(c, shape))
    at = or_(not_(pred), and_(*(ge(x, D(0)) for x in c)))
    cover = _tile_cover(tiler, proj, thr)
    # The threads a witness names fail THR-ONCE, so that the counterexample names the thread index that breaks the
    # tile; COVER-THR stays false for every thread (the tile is wrong whichever threads the assumptions admit).
    once = [] if cover is None or not cover[2] else [
        Claim("THR-ONCE", f"thread {index} holds only coordinates of the CTA tile, none of them held by another "
              f"thread: {cover[1]}", "tensor_impl.hpp:1076-1087", (), and_(*(ne(index, D(x)) for x in cover[2])))]
    covers = once + ([] if cover is None else [
        Claim("COVER-THR", "the threads' values cover the CTA tile, each element once (decided on the static tile)"
              + (f": {cover[1]}" if cover[1] else ""), "tensor_impl.hpp:1076-1087", (), cover[0])])
    return covers + [
        Claim("PRED-IN", "every access the predicate admits lies inside the tensor: elem_less(c, residue) implies "
              "elem_less(c, shape(A))", src, (("#i", D(0), n),), inside),
        Claim("PRED-AT", "a predicated access reads the element at its coordinate: offset + V(i) == A(c(i))", src,
              (("#i", D(0), n),), and_(at, or_(not_(pred), _eq(data.offset + data.layout(_I), a(tuple(c)))))),
        Claim("PRED-COVER", "no element of the problem is skipped: the residue is the whole shape (residue >= "
              "shape(A), mode by mode)", src, (), and_(*(ge(r, s) for r, s in zip(res, shape)))
              if len(res) >= len(shape) else Bool(Const(False), True)),
    ]


def _eq(x: Int, y: Int) -> Bool:
    return eq(x, y)


def vectorized_copy_claims(data: algebra.OffsetLayout, a: Layout, tiler: object, coord: object, proj: object,
                           thr: Layout, index: Int, vector: Int) -> list[Claim]:
    """ALIGN: with the tensor's data pointer aligned to a whole vector (the assumption, as CuTe's
    ``max_alignment`` / the DSL's ``align`` state it), every vector the thread accesses starts at an offset that is a
    multiple of the vector and its elements are contiguous (copy.hpp's ``max_common_vector`` reasoning): a
    vectorised access of ``vector`` elements is aligned.  A dynamic leading dimension gives the guard
    (``lda % 8 == 0``)."""
    n = int(vector)
    count = data.layout.size()
    start = data.offset + data.layout(_I * vector)
    src = "copy.hpp (max_common_vector), copy_traits.hpp"
    out = [Claim("ALIGN", f"every {n}-element vector of the thread starts at a multiple of {n} elements (its "
                 "address is aligned when the data pointer is)", src, (("#i", D(0), count / vector),),
                 eq(start % vector, D(0)))]
    if n > 1:
        out.append(Claim("ALIGN-CONTIG", f"the {n} elements of each vector are contiguous", src,
                         (("#i", D(0), count),),
                         eq(data.layout(_I), data.layout((_I / vector) * vector) + _I % vector)))
    return out


@declare(("L", "T", "C", "C", "L", "I", "S", "C?"), "copy.hpp:49-72",
         predicated_copy_claims, result=OFFSET_LAYOUT,
         records=("PRED", "COVER", "THR", "IX"), indices=(2, 5), not_compiled=_PREDICATED,
         example=("(M,K):(_1,M)", "(_128,_128,_32)", "(m,n,k)", "Step<_1,X,_1>", "(_32,_8):(_1,_32)", "t",
                  "(M,K)", "--symbol", "t=..255", "--assume", "m < (M+127)/128", "--assume",
                  "k < (K+31)/32", "--assume", "M <= 4096", "--assume", "K <= 4096"),
         docs=(("`predicated_copy(A, T, c, Step, thr or TiledCopy, t, residue)`",
                "the thread's partition of the CTA tile and the identity tensor's coordinates partitioned alike "
                "(`E<j>` strides evaluated component by component)",
                "PRED-IN, PRED-AT (for every value index, under `elem_less(coord, residue)`), PRED-COVER, COVER-THR "
                "(decided on the static tile, with the first thread and value that break it) and THR-ONCE (that "
                "thread's index fails it, so the counterexample names the thread); the divide's DIV-EXACT does not "
                "decide: the predicate is its guard"),))
def predicated_copy(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
                    residue: IntTuple, shift: IntTuple | None = None) -> algebra.OffsetLayout:
    """What thread ``index`` accesses of ``A`` (its partition), recording the coordinate obligations of the
    partitions and COVER-THR; the claims (``claims``) decide the predicate."""
    with Shallow():  # the claims decide; the divides' enumerated postconditions are superseded by them
        data, _ = partitions(a, tiler, coord, proj, thr, index, shift)
    return data


__all__ = ["domain_offset", "elem_less", "identity_components", "partitions", "predicated_copy"]


@declare(("L", "T", "C", "C", "L", "I", "I"), "copy.hpp:241-286",
         vectorized_copy_claims, result=OFFSET_LAYOUT,
         records=("ALIGN", "IX"), indices=(2, 5), not_compiled=_VECTORIZED,
         example=("(M,K):(_1,M)", "(_128,_128,_32)", "(m,n,k)", "Step<_1,X,_1>", "(_16,_16):(_1,_16)", "t",
                  "_8", "--symbol", "t=..255", "--assume", "m < (M+127)/128", "--assume",
                  "k < (K+31)/32", "--assume", "M <= 4096", "--assume", "K <= 4096"),
         docs=(("`vectorized_copy(A, T, c, Step, thr or TiledCopy, t, W)`",
                "with the data pointer aligned to W elements, every W-element vector of the thread starts at a "
                "multiple of W and is contiguous",
                "ALIGN, ALIGN-CONTIG"),))
def vectorized_copy(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
                    vector: Int) -> algebra.OffsetLayout:
    """The partition a thread copies with ``vector``-element accesses (``AutoVectorizingCopy``,
    ``UniversalCopy<uint128_t>`` over 16-bit elements: 8): its layout and offset, as ``predicated_copy``."""
    with Shallow():  # as predicated_copy
        data, _ = partitions(a, tiler, coord, proj, thr, index)
    return data


