"""TiledMMA and TiledCopy at layout level, as CuTe 4.2 computes them (cute/atom/mma_atom.hpp, copy_atom.hpp).

Every function follows the C++ line by line on this package's algebra; the atoms come from ``atoms.py`` (the
compiled headers).  A thread index may be symbolic: ``partition_*`` then give the thread's layout and the offset
added to its pointer as expressions of the index, which the engine decides for every thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.algebra import ops as algebra
from verifier.algebra.atoms import CopyAtom, Finding, MmaAtom
from verifier.algebra.ops import (
    OffsetLayout,
    complement,
    composition,
    logical_divide,
    right_inverse,
    tiled_product,
    zipped_divide,
)
from verifier.algebra.tiled_notation import NAMES, PARTITIONS, QUERIES, RETILES
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import IntTuple, crd2crd, idx2crd
from verifier.core.integers import Int, IntLike, S, as_int
from verifier.core.layouts import UNDERSCORE, Layout, Tile, Underscore, make_layout, rank, size, sublayout
from verifier.core.swizzle import ComposedLayout, Swizzle

Perm = Layout | Int | Underscore


def _append3(x: Sequence[object], pad: object) -> tuple[object, ...]:
    if len(x) > 3:
        raise CuteRejection("TiledMMA requires rank-3 AtomLayoutMNK", "mma_atom.hpp:216")
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

    def __str__(self) -> str:
        perms = ",".join(str(p) for p in self.permutation_mnk)
        return f"TiledMMA<{self.atom.name}, {self.thr_layout_mnk}, <{perms}>>"

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
                           right_inverse(make_layout(vmnk, complement(vmnk))))

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

    def _partition(self, thr_tensor: Layout, index: IntLike, i: int, j: int) -> OffsetLayout:
        v = get_flat_coord(self.thr_layout_vmnk, as_int(index))
        r = rank(sublayout(thr_tensor, 1, 1))
        rest = UNDERSCORE if r == 1 else tuple(UNDERSCORE for _ in range(r))
        return algebra.slice_and_offset(((v[0], (v[i + 1], v[j + 1])), (UNDERSCORE, rest)), thr_tensor)

    def partition_C(self, c: Layout, index: IntLike) -> OffsetLayout:  # noqa: N802
        """``get_slice(index).partition_C(C)`` (mma_atom.hpp:466-473): (FrgV,RestM,RestN) and the offset."""
        return self._partition(self.thrfrg_C(c), index, 0, 1)

    def partition_A(self, a: Layout, index: IntLike) -> OffsetLayout:  # noqa: N802
        return self._partition(self.thrfrg_A(a), index, 0, 2)

    def partition_B(self, b: Layout, index: IntLike) -> OffsetLayout:  # noqa: N802
        return self._partition(self.thrfrg_B(b), index, 1, 2)

    def partition_fragment_C(self, c: Layout, index: IntLike) -> Layout:  # noqa: N802
        """``make_fragment_C(partition_C(C))`` (mma_atom.hpp:132-143): a compact layout of its shape."""
        return make_layout(self.partition_C(c, index).layout.shape)

    def partition_fragment_A(self, a: Layout, index: IntLike) -> Layout:  # noqa: N802
        """``make_fragment_A`` (mma_atom.hpp:148-166) of a value-type fragment: ``make_fragment_like``."""
        self._registers("A")
        return make_fragment_like(self.partition_A(a, index).layout)

    def partition_fragment_B(self, b: Layout, index: IntLike) -> Layout:  # noqa: N802
        self._registers("B")
        return make_fragment_like(self.partition_B(b, index).layout)

    def _registers(self, which: str) -> None:
        """A GMMA's shared-memory operand (A and B of ``_SS``, B of ``_RS``) has a descriptor fragment
        (``make_fragment_A`` of an smem tensor, mma_sm90_desc.hpp), which this model does not compute: compiled CuTe
        gives ``(_1,_1,_4):(_0,_0,_256)`` of descriptors where a register fragment would be ``((_64,(_8,_2)),...``."""
        import re

        kind = re.search(r"_(SS|RS)(?=_|<|$)", self.atom.name) if "gmma" in self.atom.header else None
        if kind is not None and (kind.group(1) == "SS" or which == "B"):
            raise LayoutError(f"partition_fragment_{which}: {self.atom.name} reads {which} from shared memory through "
                              "descriptors; its fragment is not modelled (partition_" + which + " is)")


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
    from verifier.core.int_tuple import leaves

    return list(leaves(t))



# -- TiledCopy ---------------------------------------------------------------------------------------------------


def with_shape(layout: Layout, shape: IntTuple) -> Layout:
    """``Layout::with_shape(shape)`` (layout.hpp): ``composition(layout, make_layout(shape))``."""
    return composition(layout, make_layout(shape))


def zip_layout(layout: Layout) -> Layout:
    """``zip(L)`` for a layout ``((a0,a1,...),(b0,b1,...))``: ``((a0,b0),(a1,b1),...)`` (layout.hpp ``zip``,
    transposing the two top modes of equal rank)."""
    outer = [sublayout(layout, k) for k in range(rank(layout))]
    n = rank(outer[0])
    return make_layout(*(make_layout(*(sublayout(m, i) if rank(m) > 1 else m for m in outer)) for i in range(n)))


def product_each(shape: IntTuple) -> IntTuple:
    from verifier.core.int_tuple import product_each as pe

    return pe(shape)


@dataclass(frozen=True)
class TiledCopy:
    """``TiledCopy<Copy_Atom<Op, ValType>, LayoutCopy_TV, Tiler_MN>`` (copy_atom.hpp:186-330)."""

    atom: CopyAtom
    val_bits: int
    layout_tv: Layout
    tiler_mn: object  # a shape, or a tuple of layouts (make_tiled_copy_C_atom)

    def __str__(self) -> str:
        tiler = self.tiler_mn
        shown = "(" + ",".join(str(x) for x in tiler) + ")" if type(tiler) is tuple else str(tiler)
        return f"TiledCopy<{self.atom.name}, {self.val_bits}b, {self.layout_tv}, {shown}>"

    def __post_init__(self) -> None:
        """The class's own static asserts (copy_atom.hpp:205-206): the tiled (thread, value) layout holds whole
        atoms, in threads and in values per thread."""
        ref = self.atom_ref
        for k, what in ((0, "thrs"), (1, "vals")):
            tiled, atom = size(self.layout_tv, k), size(ref, k)
            if tiled.static and atom.static and int(tiled) % int(atom) != 0:
                raise CuteRejection(f"static_assert: TiledCopy uses too few {what} for selected CopyAtom "
                                    f"({self.atom.name}: {int(tiled)} % {int(atom)} != 0)",
                                    f"copy_atom.hpp:{205 + k}")

    def _val(self, bit_layout: Layout | None) -> Layout:
        """``recast_layout<uint1_t, ValType>(BitLayout)`` (copy_atom.hpp:64-66)."""
        assert bit_layout is not None
        return algebra.recast_layout(1, self.val_bits, bit_layout)

    @property
    def atom_src(self) -> Layout:
        return self._val(self.atom.src)

    @property
    def atom_dst(self) -> Layout:
        return self._val(self.atom.dst)

    @property
    def atom_ref(self) -> Layout:
        return self._val(self.atom.ref)

    def tile2thrfrg(self, tensor: Layout, ref2trg: Layout) -> Layout:
        """copy_atom.hpp:236-262: (thr, val, rest...) of a tensor already zipped_divided by the tiler."""
        ref = self.atom_ref
        atom_layout_tv = zipped_divide(self.layout_tv, (size(ref, 0), size(ref, 1)))
        trg_layout_tv = composition(atom_layout_tv, Tile([ref2trg, UNDERSCORE]))
        thrval2mn = algebra.coalesce(zip_layout(trg_layout_tv), (S(1), (S(1), S(1))))
        tv_tensor = composition(tensor, Tile([thrval2mn, UNDERSCORE]))
        return algebra.slice_layout(((UNDERSCORE, UNDERSCORE), UNDERSCORE), tv_tensor)

    def _ref2(self, trg: Layout) -> Layout:
        inv = right_inverse(self.atom_ref)
        assert isinstance(inv, Layout)
        return composition(inv, trg)

    def tidfrg_S(self, s: Layout) -> Layout:  # noqa: N802 - CuTe's name
        return self.tile2thrfrg(zipped_divide(s, self.tiler_mn), self._ref2(self.atom_src))  # type: ignore[arg-type]

    def tidfrg_D(self, d: Layout) -> Layout:  # noqa: N802
        return self.tile2thrfrg(zipped_divide(d, self.tiler_mn), self._ref2(self.atom_dst))  # type: ignore[arg-type]

    def _tiler_shape(self) -> IntTuple:
        """``shape(Tiler_MN{})``: a by-mode tiler of layouts (make_tiled_copy_C_atom) gives each layout's shape."""
        t = self.tiler_mn
        if isinstance(t, Tile) or (type(t) is tuple and any(isinstance(e, Layout) for e in t)):
            elements = t.elements if isinstance(t, Tile) else t
            return tuple(e.shape if isinstance(e, Layout) else e for e in elements)  # type: ignore[misc]
        return t  # type: ignore[return-value]

    def _layout_tv(self, trg: Layout) -> Layout:
        ref = make_layout((self._tiler_shape(), S(1)))
        full = self.tile2thrfrg(ref, self._ref2(trg))
        return algebra.slice_layout((UNDERSCORE, UNDERSCORE, S(0)), full)

    def get_layoutS_TV(self) -> Layout:  # noqa: N802
        """copy_atom.hpp:296-303: (thr, val) -> coordinate of the tile, source side."""
        return self._layout_tv(self.atom_src)

    def get_layoutD_TV(self) -> Layout:  # noqa: N802
        return self._layout_tv(self.atom_dst)

    def partition_S(self, s: Layout, index: IntLike) -> OffsetLayout:  # noqa: N802
        """``get_slice(index).partition_S(S)`` (copy_atom.hpp:343-349): (CopyV, CopyM, CopyN, ...); a Python
        ``int`` index is a run-time ``int``, as for ``partition_C``."""
        thr = self.tidfrg_S(s)
        return algebra.slice_and_offset((as_int(index), UNDERSCORE, _repeat(rank(s))), thr)

    def partition_D(self, d: Layout, index: IntLike) -> OffsetLayout:  # noqa: N802
        thr = self.tidfrg_D(d)
        return algebra.slice_and_offset((as_int(index), UNDERSCORE, _repeat(rank(d))), thr)

    def retile(self, tensor: Layout) -> Layout:
        """``TiledCopy::retile`` (copy_atom.hpp:266-293): a fragment re-grouped by the atom's values."""
        r = rank(tensor)
        v = size(tensor, 0)
        n_thr = size(self.layout_tv, 0)
        inv = right_inverse(self.layout_tv)
        assert isinstance(inv, Layout)
        frg_layout_mn = algebra.upcast(int(n_thr * v), with_shape(inv, self._tiler_shape()))
        inv_mn = right_inverse(frg_layout_mn)
        assert isinstance(inv_mn, Layout)
        frg_layout_v = zipped_divide(algebra.logical_product(make_layout(v), inv_mn),
                                     make_layout(size(self.atom_ref, 1)))
        shp = product_each(frg_layout_mn.shape)
        t_tensor = zipped_divide(tensor, (v, *shp) if type(shp) is tuple else (v, shp))
        v_tensor = composition(t_tensor, Tile([frg_layout_v, UNDERSCORE]))
        rest = (S(0),) + tuple(UNDERSCORE for _ in range(r - 1)) if r > 1 else S(0)
        return algebra.slice_layout((UNDERSCORE, rest), v_tensor)

    retile_S = retile  # noqa: N815 - CuTe's names
    retile_D = retile  # noqa: N815


def _repeat(n: int) -> Underscore | tuple[Underscore, ...]:
    return UNDERSCORE if n == 1 else tuple(UNDERSCORE for _ in range(n))


def make_tiled_copy(atom: CopyAtom, val_bits: int, thr_layout: Layout, val_layout: Layout | None = None) -> TiledCopy:
    """``make_tiled_copy(Copy_Atom<Op,T>, thr, val)`` (copy_atom.hpp:495-519)."""
    val = val_layout if val_layout is not None else make_layout(S(1))
    layout_mn = algebra.raked_product(thr_layout, val)
    inv = right_inverse(layout_mn)
    assert isinstance(inv, Layout)
    layout_tv = with_shape(inv, (size(thr_layout), size(val)))
    return TiledCopy(atom, val_bits, layout_tv, product_each(layout_mn.shape))


def make_tiled_copy_tv(atom: CopyAtom, val_bits: int, thr_layout: Layout, val_layout: Layout) -> TiledCopy:
    """The CuTe DSL's ``cute.make_tiled_copy_tv(atom, thr_layout, val_layout)``: in C++ 4.2 the same construction
    is ``make_tiled_copy`` (copy_atom.hpp:495-519), which this mirrors."""
    layout_mn = algebra.raked_product(thr_layout, val_layout)
    inv = right_inverse(layout_mn)
    assert isinstance(inv, Layout)
    layout_tv = with_shape(inv, (size(thr_layout), size(val_layout)))
    return TiledCopy(atom, val_bits, layout_tv, product_each(layout_mn.shape))


def make_tiled_copy_A(atom: CopyAtom, val_bits: int, mma: TiledMMA) -> TiledCopy:  # noqa: N802
    """copy_atom.hpp:420-425: the MMA's A partition as a copy."""
    return TiledCopy(atom, val_bits, mma.get_layoutA_TV(), (mma.tile_size_mnk(0), mma.tile_size_mnk(2)))


def make_tiled_copy_B(atom: CopyAtom, val_bits: int, mma: TiledMMA) -> TiledCopy:  # noqa: N802
    return TiledCopy(atom, val_bits, mma.get_layoutB_TV(), (mma.tile_size_mnk(1), mma.tile_size_mnk(2)))


def make_tiled_copy_C(atom: CopyAtom, val_bits: int, mma: TiledMMA) -> TiledCopy:  # noqa: N802
    return TiledCopy(atom, val_bits, mma.get_layoutC_TV(), (mma.tile_size_mnk(0), mma.tile_size_mnk(1)))


def make_tiled_copy_C_atom(atom: CopyAtom, val_bits: int, mma: TiledMMA) -> TiledCopy:  # noqa: N802
    """copy_atom.hpp:451-482: the MMA's C partition truncated to one copy atom's values per thread (the epilogue's
    copy of an accumulator fragment), over a by-mode tiler of the C elements those values touch.

    Pre: the atom's source values per thread, ``NumValSrc``, are at most the values of a thread of the MMA's C
    (``CUTE_STATIC_ASSERT_V(copy_V <= size<1>(layoutC_TV))``).
    Post (``check_tiled``): the TV layout is a bijection of (thread, value) onto its tile, as the MMA's C is."""
    layout_c_tv = mma.get_layoutC_TV()
    copy_v = size(algebra.recast_layout(1, val_bits, atom.src), 1) if atom.src is not None else S(1)
    if not int(copy_v) <= int(size(layout_c_tv, 1)):
        raise CuteRejection(f"static_assert: the copy atom's {int(copy_v)} values exceed the MMA's "
                                    f"{int(size(layout_c_tv, 1))} values of C per thread", "copy_atom.hpp:459")
    layout_tv = composition(layout_c_tv, make_layout((size(layout_c_tv, 0), copy_v)))
    mma_tiler = (mma.tile_size_mnk(0), mma.tile_size_mnk(1))
    tiler = tuple(algebra.filter(composition(Layout(mma_tiler, tuple(S(1) if j == i else S(0) for j in range(2))),
                                             layout_tv))
                  for i in range(2))
    tile2mma = composition(make_layout(mma_tiler), Tile(list(tiler)))
    inv = algebra.left_inverse(tile2mma)
    assert isinstance(inv, Layout)
    return TiledCopy(atom, val_bits, composition(inv, layout_tv), Tile(list(tiler)))


# -- notation (its names: tiled_notation.py) -------------------------------------------------------------------



def _split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments (commas inside (), <> are kept)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def view(part: OffsetLayout) -> ComposedLayout:
    """A thread's partition as an operand: the function from its coordinates to the elements of the partitioned
    tensor, ``Sw<0,4,3> o offset o layout`` (the identity swizzle composed with the pointer's offset, as CuTe
    prints a composed view), so that every front end evaluates, draws and checks the elements the thread touches."""
    return ComposedLayout(Swizzle(0, 4, 3), part.offset, part.layout)


def parse_tiled(text: str, symbols: object = None) -> TiledMMA | TiledCopy | Layout | ComposedLayout:
    """``make_tiled_mma(ATOM, THR_LAYOUT[, <PERM_M,PERM_N,PERM_K>])``,
    ``make_tiled_copy(ATOM, BITS, THR_LAYOUT, VAL_LAYOUT)``,
    ``make_tiled_copy_A|B|C|C_atom(ATOM, BITS, make_tiled_mma(...))`` and ``get_layoutA|B|C_TV(...)`` /
    ``get_layoutS|D_TV(...)`` of one of those: the atom named as CuTe names it (``cute-verify atoms`` lists them),
    BITS the element width of ``Copy_Atom<Op, T>``.  A thread's partition, ``partition_A|B|C(MMA, TENSOR, THREAD)``
    (``thr_mma = mma.get_slice(THREAD); thr_mma.partition_C(TENSOR)``) and ``partition_S|D(COPY, TENSOR,
    THREAD)``, is the view of ``view``; ``partition_fragment_A|B|C(MMA, TENSOR, THREAD)`` and ``retile_S|D(COPY,
    FRAGMENT)`` are register layouts.  TENSOR is the partitioned tensor's layout, THREAD an integer or a symbol
    (an index: 0 <= THREAD unless declared)."""
    from verifier.algebra.atoms import find
    from verifier.core.errors import did_you_mean
    from verifier.notation.cpp import parse, parse_layout, parse_tile

    t = "".join(text.split())
    name = next((b for b in NAMES if t.startswith(b + "(")), None)
    if name is None or not t.endswith(")"):
        head = t.split("(", 1)[0]
        hint = did_you_mean(head, NAMES)
        raise LayoutError(f"{head!r}: unknown function{hint}" if hint else
                          f"{text!r}: expected one of {', '.join(NAMES)}(...)")
    body = text.strip()  # the arguments as written: a composed layout's `o` needs its spaces
    args = _split_args(body[body.index("(") + 1:-1])
    if name in PARTITIONS + RETILES:
        return _parse_partition(name, args, symbols)

    def atom(s: str) -> MmaAtom | CopyAtom:
        s = "".join(s.split())
        try:
            return find(s)
        except KeyError:
            raise LayoutError(f"{name}: no atom named {s!r} (cute-verify atoms lists them)") from None

    def bits(s: str) -> int:
        # 4: the sub-byte int4_t / uint4_t of the int4 MMAs (sizeof_bits<int4_t> == 4, numeric_types.hpp)
        if not s.isdigit() or int(s) not in (4, 8, 16, 32, 64, 128):
            raise LayoutError(f"{name}: the element width must be 4, 8, 16, 32, 64 or 128 bits, got {s!r}")
        return int(s)

    if name in QUERIES:
        if len(args) != 1:
            raise LayoutError(f"{name} takes one TiledMMA / TiledCopy")
        obj = parse_tiled(args[0], symbols)
        if not hasattr(obj, name):
            raise LayoutError(f"{name}: not a member of {type(obj).__name__}")
        return getattr(obj, name)()  # type: ignore[no-any-return]
    if name == "make_tiled_mma":
        if not 1 <= len(args) <= 3:
            raise LayoutError("make_tiled_mma takes an atom, a thread layout and a permutation tile")
        a = atom(args[0])
        if not isinstance(a, MmaAtom):
            raise LayoutError(f"make_tiled_mma: {args[0]} is a copy atom")
        thr = parse_layout(args[1], symbols) if len(args) > 1 else None  # type: ignore[arg-type]
        perms = parse_tile(args[2], symbols) if len(args) > 2 else ()  # type: ignore[arg-type]
        return make_tiled_mma(a, thr, perms)
    a = atom(args[0])
    if not isinstance(a, CopyAtom):
        raise LayoutError(f"{name}: {args[0]} is an MMA atom")
    if name == "make_tiled_copy":
        if len(args) not in (3, 4):
            raise LayoutError("make_tiled_copy takes an atom, the element bits, a thread layout and a value layout")
        val = parse_layout(args[3], symbols) if len(args) == 4 else None  # type: ignore[arg-type]
        return make_tiled_copy(a, bits(args[1]), parse_layout(args[2], symbols), val)  # type: ignore[arg-type]
    if len(args) != 3:
        raise LayoutError(f"{name} takes an atom, the element bits and a make_tiled_mma(...)")
    mma = parse_tiled(args[2], symbols)
    if not isinstance(mma, TiledMMA):
        raise LayoutError(f"{name}: the third argument must be a make_tiled_mma(...)")
    maker = {"make_tiled_copy_A": make_tiled_copy_A, "make_tiled_copy_B": make_tiled_copy_B,
             "make_tiled_copy_C": make_tiled_copy_C, "make_tiled_copy_C_atom": make_tiled_copy_C_atom}[name]
    _ = parse
    return maker(a, bits(args[1]), mma)


def _parse_partition(name: str, args: list[str], symbols: object) -> Layout | ComposedLayout:
    """The partition functions of ``parse_tiled``."""
    from verifier.core.operands import symbols as operand_symbols
    from verifier.core.symbols import Symbols
    from verifier.notation.cpp import parse

    retile = name in RETILES
    form = f"{name}(TILED_COPY, FRAGMENT)" if retile else \
        f"{name}({'TILED_COPY' if name[-1] in 'SD' else 'TILED_MMA'}, TENSOR, THREAD)"
    if len(args) != (2 if retile else 3):
        raise LayoutError(f"{name} takes {2 if retile else 3} arguments: {form}")
    obj = parse_tiled(args[0], symbols)
    want = TiledCopy if name[-1] in "SD" else TiledMMA
    if not isinstance(obj, want):
        raise LayoutError(f"{name}: the first argument must be a {want.__name__} (make_tiled_"
                          f"{'copy' if want is TiledCopy else 'mma'}(...)), in {form}")
    tensor = parse(args[1], symbols)  # type: ignore[arg-type]
    if type(tensor) is tuple or isinstance(tensor, Int):  # a shape alone is Layout<Shape<...>>
        tensor = make_layout(tensor)
    if isinstance(tensor, ComposedLayout):  # the tiled partitions are modelled on plain layouts (algebra/tiled.py)
        raise LayoutError(f"{name}: a swizzled or composed tensor is not modelled; partition its layout "
                          f"{tensor.inner} (the swizzle applies to the indices afterwards), in {form}")
    if not isinstance(tensor, Layout):
        raise LayoutError(f"{name}: the {'fragment' if retile else 'tensor'} {args[1]!r} must be a layout "
                          f"Shape:Stride, in {form}")
    if retile:
        return obj.retile(tensor)  # type: ignore[union-attr]
    thread = parse(args[2], symbols)  # type: ignore[arg-type]
    if not isinstance(thread, Int):
        raise LayoutError(f"{name}: the thread index {args[2]!r} must be an integer or a symbol, in {form}")
    if isinstance(symbols, Symbols):  # the thread operand is an index (a registry row's `indices`): from 0
        for s in sorted(operand_symbols(thread) - operand_symbols(tensor)):
            symbols.index_default(s)
    part = getattr(obj, name)(tensor, thread)
    return part if isinstance(part, Layout) else view(part)


# -- contracts ---------------------------------------------------------------------------------------------------


def check_tiled(obj: TiledMMA | TiledCopy) -> list[Finding]:
    """The contracts of a TiledMMA / TiledCopy, as ``atoms.check`` states them for atoms (TILE, OVERLAP, COVER with
    thread and value witnesses): a TiledMMA's C layout is a bijection of (thread, value) onto the M x N tile and its
    A / B layouts cover their tiles (zero-stride broadcasts aside); a TiledCopy's source and destination TV layouts
    have one shape (the partitions are congruent) and each covers the copy tile once."""
    from verifier.algebra.atoms import _check_tv, _Describe

    out: list[Finding] = []
    name = str(obj)
    if isinstance(obj, TiledMMA):
        m, n, k = (int(obj.tile_size_mnk(i)) for i in range(3))
        for what, layout, rows, extent, names in (("C", obj.get_layoutC_TV(), m, m * n, ("m", "n")),
                                                   ("A", obj.get_layoutA_TV(), m, m * k, ("m", "k")),
                                                   ("B", obj.get_layoutB_TV(), n, n * k, ("n", "k"))):
            out += _check_tv(name, obj.atom.source, f"get_layout{what}_TV", _flat_tv(layout), extent,
                             _Describe(rows, names))
        return out
    s, d = obj.get_layoutS_TV(), obj.get_layoutD_TV()
    # Congruent as copy() needs them: as many threads, and values per thread, on both sides.  The modes may split
    # differently (an STSM / LDSM atom's registers against its shared-memory rows: compiled CuTe prints both).
    if (size(s, 0), size(s, 1)) != (size(d, 0), size(d, 1)):
        out.append(Finding(name, obj.atom.source, "get_layoutS_TV", "CONGRUENT",
                           f"source {s} and destination {d} partitions differ in threads or values per thread"))
    shape = obj._tiler_shape()
    dims = [int(size(x)) for x in (shape if type(shape) is tuple else (shape,))]
    extent = 1
    for x in dims:
        extent *= x
    for what, layout in (("get_layoutS_TV", s), ("get_layoutD_TV", d)):
        out += _check_tv(name, obj.atom.source, what, _flat_tv(layout), extent, _Describe(dims[0], ("m", "n")))
    return out


def _flat_tv(layout: Layout) -> Layout:
    """A (thread, value) layout with each mode's leaves kept (the checks read modes 0 and 1)."""
    return make_layout(sublayout(layout, 0), make_layout(*[sublayout(layout, k) for k in range(1, rank(layout))])
                       if rank(layout) > 2 else sublayout(layout, 1))
