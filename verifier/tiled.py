"""TiledMMA and TiledCopy at layout level, as CuTe 4.2 computes them (cute/atom/mma_atom.hpp, copy_atom.hpp).

Every function follows the C++ line by line on this package's algebra; the atoms come from ``atoms.py`` (the
compiled headers).  A thread index may be symbolic: ``partition_*`` then give the thread's layout and the offset
added to its pointer as expressions of the index, which the engine decides for every thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import algebra
from .algebra import OffsetLayout, complement, composition, logical_divide, right_inverse, tiled_product, zipped_divide
from .atoms import MmaAtom
from .int_tuple import IntTuple, crd2crd, idx2crd
from .integers import Int, S
from .layouts import UNDERSCORE, Layout, Tile, Underscore, make_layout, rank, size, sublayout

Perm = Layout | Int | Underscore


def _append3(x: Sequence[object], pad: object) -> tuple[object, ...]:
    if len(x) > 3:
        raise algebra.CuteRejection("TiledMMA requires rank-3 AtomLayoutMNK", "mma_atom.hpp:216")
    return tuple(x) + (pad,) * (3 - len(x))


def get_flat_coord(layout: Layout, index: Int) -> tuple[Int, ...]:
    """``Layout::get_flat_coord`` (layout.hpp:258-265): the flat coordinate of a 1-D index (compact layouts)."""
    hier = idx2crd(index, layout.shape, layout.stride)
    r = rank(layout)
    flat = crd2crd(hier, layout.shape, tuple(S(1) for _ in range(r)) if r > 1 else S(1))
    return flat if type(flat) is tuple else (flat,)  # type: ignore[return-value]


@dataclass(frozen=True)
class TiledMMA:
    """``TiledMMA<MMA_Atom, AtomLayoutMNK, PermutationMNK>`` (mma_atom.hpp:199-455)."""

    atom: MmaAtom
    thr_layout_mnk: Layout
    permutation_mnk: tuple[Perm, Perm, Perm]

    @property
    def thr_layout_vmnk(self) -> Layout:
        return tiled_product(self.atom.thr_id, self.thr_layout_mnk)  # mma_atom.hpp:227

    def perm(self, i: int) -> Layout | Int:
        """``permutation_mnk<I>()`` (mma_atom.hpp:390-396): the atom extent times the atoms along I, unless given."""
        p = self.permutation_mnk[i]
        if isinstance(p, Underscore):
            return S(self.atom.shape_mnk[i]) * size(self.thr_layout_vmnk, i + 1)
        return p

    def tile_size_mnk(self, i: int) -> Int:
        p = self.perm(i)
        return size(p) if isinstance(p, Layout) else p

    def _thrfrg(self, tensor: Layout, i: int, j: int, atom_tv: Layout) -> Layout:
        t_tensor = logical_divide(tensor, Tile([self.perm(i), self.perm(j)]))
        a_tile = Tile([make_layout(S(self.atom.shape_mnk[i])), make_layout(S(self.atom.shape_mnk[j]))])
        a_tensor = zipped_divide(t_tensor, a_tile)
        tv_tensor = composition(a_tensor, Tile([atom_tv, UNDERSCORE]))
        vmnk = self.thr_layout_vmnk
        thr_tile = Tile([UNDERSCORE, Tile([make_layout(size(vmnk, i + 1)), make_layout(size(vmnk, j + 1))])])
        return zipped_divide(tv_tensor, thr_tile)

    def thrfrg_C(self, c: Layout) -> Layout:
        """((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN))) (mma_atom.hpp:232-256)."""
        assert self.atom.c is not None
        return self._thrfrg(c, 0, 1, self.atom.c)

    def thrfrg_A(self, a: Layout) -> Layout:
        assert self.atom.a is not None
        return self._thrfrg(a, 0, 2, self.atom.a)

    def thrfrg_B(self, b: Layout) -> Layout:
        assert self.atom.b is not None
        return self._thrfrg(b, 1, 2, self.atom.b)

    def _thridx_2_thrid(self) -> Layout:
        vmnk = self.thr_layout_vmnk
        return composition(Layout((size(vmnk), S(1)), (S(1), S(0))),
                           right_inverse(make_layout(vmnk, complement(vmnk))))  # type: ignore[arg-type]

    def get_layoutC_TV(self) -> Layout:  # noqa: N802 - CuTe's name
        ref = make_layout((self.tile_size_mnk(0), self.tile_size_mnk(1)))
        return composition(self.thrfrg_C(ref), Tile([self._thridx_2_thrid(), UNDERSCORE]))

    def _layout_ab_tv(self, ref: Layout, frg: Layout, stride: tuple[int, int]) -> Layout:
        vmnk = self.thr_layout_vmnk
        tile = Tile([UNDERSCORE, Tile([Layout((size(vmnk, 1), size(vmnk, 2)), (S(stride[0]), S(stride[1]))),
                                       UNDERSCORE])])
        return composition(composition(frg, Tile([tile, UNDERSCORE])), Tile([self._thridx_2_thrid(), UNDERSCORE]))

    def get_layoutA_TV(self) -> Layout:  # noqa: N802
        ref = make_layout((self.tile_size_mnk(0), self.tile_size_mnk(2)))
        return self._layout_ab_tv(ref, self.thrfrg_A(ref), (1, 0))

    def get_layoutB_TV(self) -> Layout:  # noqa: N802
        ref = make_layout((self.tile_size_mnk(1), self.tile_size_mnk(2)))
        return self._layout_ab_tv(ref, self.thrfrg_B(ref), (0, 1))

    # -- ThrMMA ------------------------------------------------------------------------------------------------

    def _partition(self, thr_tensor: Layout, index: Int, i: int, j: int) -> OffsetLayout:
        v = get_flat_coord(self.thr_layout_vmnk, index)
        r = rank(sublayout(thr_tensor, 1, 1))
        rest = UNDERSCORE if r == 1 else tuple(UNDERSCORE for _ in range(r))
        return algebra.slice_and_offset(((v[0], (v[i + 1], v[j + 1])), (UNDERSCORE, rest)), thr_tensor)

    def partition_C(self, c: Layout, index: Int) -> OffsetLayout:  # noqa: N802
        """``get_slice(index).partition_C(C)`` (mma_atom.hpp:466-473): (FrgV,RestM,RestN) and the offset."""
        return self._partition(self.thrfrg_C(c), index, 0, 1)

    def partition_A(self, a: Layout, index: Int) -> OffsetLayout:  # noqa: N802
        return self._partition(self.thrfrg_A(a), index, 0, 2)

    def partition_B(self, b: Layout, index: Int) -> OffsetLayout:  # noqa: N802
        return self._partition(self.thrfrg_B(b), index, 1, 2)

    def partition_fragment_C(self, c: Layout, index: Int) -> Layout:  # noqa: N802
        """``make_fragment_C(partition_C(C))`` (mma_atom.hpp:132-143): a compact layout of its shape."""
        return make_layout(self.partition_C(c, index).layout.shape)

    def partition_fragment_A(self, a: Layout, index: Int) -> Layout:  # noqa: N802
        """``make_fragment_A`` (mma_atom.hpp:148-166) of a value-type fragment: ``make_fragment_like``."""
        return make_fragment_like(self.partition_A(a, index).layout)

    def partition_fragment_B(self, b: Layout, index: Int) -> Layout:  # noqa: N802
        return make_fragment_like(self.partition_B(b, index).layout)


def make_tiled_mma(atom: MmaAtom, thr_layout: Layout | None = None,
                   permutations: Sequence[Perm] | Tile = ()) -> TiledMMA:
    """``make_tiled_mma(atom, thr_layout, permutations)`` (mma_atom.hpp:568-580): both padded to rank 3."""
    thr = thr_layout if thr_layout is not None else make_layout((S(1), S(1), S(1)))
    modes = [sublayout(thr, k) for k in range(rank(thr))] if type(thr.shape) is tuple else [thr]
    thr3 = make_layout(*_append3(modes, Layout(S(1), S(0))))  # type: ignore[arg-type]
    perms = permutations.elements if isinstance(permutations, Tile) else tuple(permutations)
    perm3 = _append3(perms, UNDERSCORE)
    return TiledMMA(atom, thr3, perm3)  # type: ignore[arg-type]


def _filter_zeros(stride: IntTuple, shape: IntTuple) -> IntTuple:
    """``filter_zeros(a, b)`` (int_tuple.hpp): ``b`` with ``_1`` where ``a`` is a static zero."""
    if type(stride) is tuple:
        return tuple(_filter_zeros(a, b) for a, b in zip(stride, shape))  # type: ignore[arg-type]
    return S(1) if stride.is_constant(0) and stride.static else shape  # type: ignore[union-attr]


def make_fragment_like(layout: Layout) -> Layout:
    """``make_fragment_like(layout)`` (layout.hpp:451-467): for a static shape of rank > 1, mode 0 compact in its
    own order (zero strides kept at zero extent) and the other modes ordered as the layout orders them."""
    r = rank(layout)
    static = all(x.static for x in _leaves(layout.shape))
    if r > 1 and static:
        s0, d0 = layout.shape[0], layout.stride[0]  # type: ignore[index]
        first = Layout(s0, _compact_left(_filter_zeros(d0, s0), s0))
        rest = Layout(tuple(layout.shape[1:]), tuple(layout.stride[1:]))  # type: ignore[index]
        return tiled_product(first, algebra.make_ordered_layout(rest.shape, rest.stride))
    return make_layout(layout.shape)


def _compact_left(filtered: IntTuple, shape: IntTuple) -> IntTuple:
    """``compact_major<LayoutLeft>(filtered)`` (stride.hpp): compact column-major strides of the filtered shape."""
    return make_layout(filtered).stride


def _leaves(t: IntTuple) -> list[Int]:
    from .int_tuple import leaves

    return list(leaves(t))

