"""The contracts of predicated and vectorised copies (``algebra.predication``): what every access a thread makes
under its predicate must satisfy, as claims over the thread index and the problem's symbols."""

from __future__ import annotations

from verifier.algebra.predication import _tile_cover, elem_less, partitions
from verifier.contracts.claim import _I, Claim
from verifier.core.int_tuple import IntTuple, leaves
from verifier.core.integers import Bool, Const, D, Int, and_, eq, ge, ne, not_, or_
from verifier.core.layouts import Layout
from verifier.core.obligations import Quiet


def predicated_copy_claims(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
           residue: IntTuple, shift: IntTuple | None = None) -> list[Claim]:
    with Quiet():  # the operation itself records the partitions' obligations (predicated_copy)
        data, comps = partitions(a, tiler, coord, proj, thr, index, shift)
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


def vector_claims(a: Layout, tiler: object, coord: object, proj: object, thr: Layout, index: Int,
                  vector: Int) -> list[Claim]:
    """ALIGN: with the tensor's data pointer aligned to a whole vector (the assumption, as CuTe's
    ``max_alignment`` / the DSL's ``align`` state it), every vector the thread accesses starts at an offset that is a
    multiple of the vector and its elements are contiguous (copy.hpp's ``max_common_vector`` reasoning): a
    vectorised access of ``vector`` elements is aligned.  A dynamic leading dimension gives the guard
    (``lda % 8 == 0``)."""
    with Quiet():  # the operation itself records the partitions' obligations (vectorized_copy)
        data, _ = partitions(a, tiler, coord, proj, thr, index)
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
