"""The one operation registry: every operation the tool models, with what each consumer needs to know of it.

The command line, the spec loader, the claims, the C++ generators, the GPU harness and the docs all read
``REGISTRY``; ``tests/project/test_registry.py`` checks that every row has its contract
(``contracts.claims.BUILDERS``), its
C++ check (``oracle.cute_cpp``), its row in ``docs/semantics.md`` and its operand signature, or an explicit
"not modelled" marker here.  Adding an operation means writing its algorithm (its family module), its contract
(``contracts/claims.py``) and its row below.

``apply(op, *args)`` runs a registered operation as CuTe would and returns its result with the obligations the
call incurred (``Outcome``): CuTe's rejections and undefined behaviour become data, not errors.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from verifier.algebra import composed as composed_ops
from verifier.algebra import ops, predication
from verifier.algebra.ops import OffsetLayout
from verifier.core.basis import has_basis
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.integers import Int, symbol
from verifier.core.layouts import Layout, Tile
from verifier.core.obligations import Obligation, Recorder
from verifier.core.operands import map_leaves
from verifier.core.overflow import watching
from verifier.core.semantics import using
from verifier.core.swizzle import is_swizzled
from verifier.notation.interop import coerce


@dataclass(frozen=True)
class Operation:
    """One operation as CuTe names it.

    ``operands``: the kinds of its operands after its ``template`` leading C++ template integers (``upcast<N>``):
    ``L`` a layout, ``T`` a tiler, ``S`` a shape, ``C`` a coordinate (may hold ``_``), ``I`` an integer, ``O`` an
    order; ``A|B`` either, a trailing ``?`` optional.  ``swizzled`` / ``basis``: it takes swizzles and composed
    layouts / scaled-basis strides directly (CuTe's overloads, ``algebra.swizzled``); the operations CuTe forwards
    to a composed layout's inner layout are ``algebra.composed.OPERATIONS``.  ``cpp``: how compiled CuTe is called
    for it (``oracle.cute_cpp.operation_case``): ``CALL`` the function of that name, ``TEMPLATED`` with its template
    integers (``upcast<N>``), ``RECAST`` ``recast_layout<uint_bit_t<Old>, uint_bit_t<New>>``, ``SLICE`` through
    ``slice_and_offset``, ``TENSOR`` on a tensor over a counting iterator; or ``None`` with ``not_compiled`` saying
    why it has no C++ check of its own.  ``example``: a representative dynamic case, the command-line arguments
    after the operation's name (shown in ``cute-verify OP --help``, decided by tests/frontends/test_cli_operations.py,
    and the operands of its C++ check in tests/project/test_registry.py).  ``indices``: the positions (among
    ``operands``) that are indices (a slice coordinate, a tile coordinate, a thread index): a symbol only they name
    starts at 0 unless the user states its lower bound (``core.symbols.Symbols.index_default``).  ``widths``: the
    template integers that are element widths in bits (``recast_layout<Old, New>``, ``make_tma_box``'s element): the
    guard search derives its moduli in elements from them (``engine.guards``).
    """

    name: str
    fn: Callable[..., object]
    operands: tuple[str, ...]
    source: str
    template: int = 0
    swizzled: bool = False
    basis: bool = False
    cpp: str | None = None
    not_compiled: str = ""
    example: tuple[str, ...] = ()
    indices: tuple[int, ...] = ()
    widths: tuple[int, ...] = ()


# How compiled CuTe is called for an operation (Operation.cpp).
CALL, TEMPLATED, RECAST, SLICE, TENSOR = "call", "templated", "recast", "slice", "tensor"


def _deferred(module: str, name: str) -> Callable[..., object]:
    """``module.name``, imported at its first call: the module's import is start-up that every command would pay
    for an operation that few run (issue 16)."""
    def call(*args: object, **kwargs: object) -> object:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _rows(*rows: Operation) -> Mapping[str, Operation]:
    return MappingProxyType({r.name: r for r in rows})


_DIV = ("L", "T")
_LAYOUT_HPP = "layout.hpp"
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

REGISTRY: Mapping[str, Operation] = _rows(
    Operation("coalesce", ops.coalesce, ("L", "S?"), "layout.hpp:864-890", basis=True, cpp=CALL,
              example=("((M,N),K):((_1,M),M*N)",)),
    Operation("filter", ops.filter, ("L", "S?"), "layout.hpp:933-955", basis=True, cpp=CALL,
              example=("(M,_2,N):(_1,_0,M)",)),
    Operation("filter_zeros", ops.filter_zeros, ("L",), "layout.hpp:914-920", cpp=CALL,
              example=("(M,_2,N):(_1,_0,M)",)),
    Operation("composition", ops.composition, _DIV, "layout.hpp:1132-1161", swizzled=True, basis=True, cpp=CALL,
              example=("(M,N):(_1,M)", "(_4,_2):(_2,_1)")),
    Operation("complement", ops.complement, ("L", "S|L?"), "layout.hpp:1231-1247", cpp=CALL,
              example=("(_4,M):(_1,_4)",)),
    Operation("right_inverse", ops.right_inverse, ("L",), "layout.hpp:1262-1303", swizzled=True, cpp=CALL,
              example=("(_4,M):(_1,_4)",)),
    Operation("left_inverse", ops.left_inverse, ("L",), "layout.hpp:1321-1361", swizzled=True, cpp=CALL,
              example=("(_4,M):(_1,_4)",)),
    Operation("logical_divide", ops.logical_divide, _DIV, "layout.hpp:1555-1582", basis=True, cpp=CALL,
              example=("(M,N):(_1,M)", "<_128,_64>")),
    Operation("zipped_divide", ops.zipped_divide, _DIV, "layout.hpp:1606-1614", basis=True, cpp=CALL,
              example=("(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0", "--assume", "N % 64 == 0")),
    Operation("tiled_divide", ops.tiled_divide, _DIV, "layout.hpp:1617-1628", basis=True, cpp=CALL,
              example=("(M,N):(_1,M)", "<_128,_64>")),
    Operation("flat_divide", ops.flat_divide, _DIV, "layout.hpp:1631-1643", basis=True, cpp=CALL,
              example=("(M,N):(_1,M)", "<_128,_64>")),
    Operation("logical_product", ops.logical_product, _DIV, "layout.hpp:1649-1674", cpp=CALL,
              example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)")),
    Operation("zipped_product", ops.zipped_product, _DIV, "layout.hpp:1687-1695", cpp=CALL,
              example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)")),
    Operation("tiled_product", ops.tiled_product, _DIV, "layout.hpp:1698-1709", cpp=CALL,
              example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)")),
    Operation("flat_product", ops.flat_product, _DIV, "layout.hpp:1712-1724", cpp=CALL,
              example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)")),
    Operation("blocked_product", ops.blocked_product, ("L", "L"), "layout.hpp:1730-1742", cpp=CALL,
              example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)")),
    Operation("raked_product", ops.raked_product, ("L", "L"), "layout.hpp:1748-1760", cpp=CALL,
              example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)")),
    Operation("upcast", ops.upcast, ("L",), "layout.hpp:1809-1841", template=1, cpp=TEMPLATED,
              example=("2", "(M,K):(K,_1)")),
    Operation("downcast", ops.downcast, ("L",), "layout.hpp:1844-1867", template=1, cpp=TEMPLATED,
              example=("2", "(M,K):(K,_1)")),
    Operation("recast_layout", ops.recast_layout, ("L",), "layout.hpp:1870-1891", template=2, cpp=RECAST,
              widths=(0, 1),
              example=("16", "32", "(M,K):(K,_1)")),
    Operation("max_common_vector", ops.max_common_vector, ("L", "L"), "layout.hpp:1404-1416", cpp=CALL,
              example=("(M,N):(_1,M)", "(M,N):(_1,M)")),
    Operation("max_common_layout", ops.max_common_layout, ("L", "L"), "layout.hpp:1380-1395", cpp=CALL,
              example=("(M,N):(_1,M)", "(M,N):(_1,M)")),
    Operation("nullspace", ops.nullspace, ("L",), "layout.hpp:1482-1508", cpp=CALL, example=("(M,_2,N):(_1,_0,M)",)),
    Operation("make_ordered_layout", ops.make_ordered_layout, ("S", "S"), "layout.hpp:422-428", cpp=CALL,
              example=("(M,N,_4)", "(_1,_0,_2)")),
    Operation("make_layout_like", ops.make_layout_like, ("L",), "layout.hpp:438-445", cpp=CALL,
              example=("(M,N):(N,_1)",)),
    Operation("tile_to_shape", ops.tile_to_shape, ("L", "S", "O?"), "layout.hpp:1774-1799", cpp=CALL,
              example=("(_4,_8):(_8,_1)", "(M,N)")),
    Operation("slice", ops.slice_view, ("C", "L"), "layout.hpp:689-695", cpp=SLICE, indices=(0,),
              example=("(_,2)", "(M,N):(_1,M)")),
    Operation("slice_and_offset", ops.slice_and_offset_view, ("C", "L"), "layout.hpp:698-703", cpp=SLICE,
              indices=(0,),
              example=("(_,2)", "(M,N):(_1,M)")),
    Operation("local_tile", ops.local_tile, ("L", "T", "C", "C?"), "tensor_impl.hpp:976-1069", basis=True, cpp=TENSOR,
              indices=(2,),
              example=("(M,N):(_1,M)", "<_128,_64>", "(1,1)")),
    Operation("local_partition", ops.local_partition, ("L", "L", "I", "C?"), "tensor_impl.hpp:1076-1111", cpp=TENSOR,
              indices=(2,),
              example=("(M,N):(_1,M)", "(_2,_2):(_1,_2)", "1")),
    # the smem layout (a swizzle allowed) and the gmem layout, after the element width in bits
    Operation("make_tma_box", _deferred("verifier.algebra.tma", "make_tma_box"), ("L", "L"),
              "copy_traits_sm90_tma.hpp:723-845", template=1, widths=(0,),
              swizzled=True, not_compiled=("not a CuTe function but the box make_tma_copy derives "
                                           "(detail::construct_tma_gbasis): tests/differential/test_tma.py compiles "
                                           "that call on its own"),
              example=("16", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)", "--assume",
                       "K % 8 == 0")),
    # the data, CTA tiler, CTA coordinate, projection, thread layout, thread index, residue, k-residue shift
    Operation("predicated_copy", predication.predicated_copy, ("L", "T", "C", "C", "L", "I", "S", "C?"),
              "copy.hpp:49-72", not_compiled=_PREDICATED, indices=(2, 5),
              example=("(M,K):(_1,M)", "(_128,_128,_32)", "(m,n,k)", "Step<_1,X,_1>", "(_32,_8):(_1,_32)", "t",
                       "(M,K)", "--symbol", "t=..255", "--assume", "m < (M+127)/128", "--assume",
                       "k < (K+31)/32", "--assume", "M <= 4096", "--assume", "K <= 4096")),
    Operation("vectorized_copy", predication.vectorized_copy, ("L", "T", "C", "C", "L", "I", "I"),
              "copy.hpp:241-286", not_compiled=_VECTORIZED, indices=(2, 5),
              example=("(M,K):(_1,M)", "(_128,_128,_32)", "(m,n,k)", "Step<_1,X,_1>", "(_16,_16):(_1,_16)", "t",
                       "_8", "--symbol", "t=..255", "--assume", "m < (M+127)/128", "--assume",
                       "k < (K+31)/32", "--assume", "M <= 4096", "--assume", "K <= 4096")),
)
# The operations by name, for callers that only need the function.
OPERATIONS: Mapping[str, Callable[..., object]] = MappingProxyType({n: r.fn for n, r in REGISTRY.items()})
SWIZZLE_OPERATIONS = frozenset(n for n, r in REGISTRY.items() if r.swizzled)
BASIS_OPERATIONS = frozenset(n for n, r in REGISTRY.items() if r.basis)
TEMPLATE_ARGS: Mapping[str, int] = MappingProxyType({n: r.template for n, r in REGISTRY.items() if r.template})


def check_operands(row: Operation, args: tuple[object, ...]) -> None:
    """A one-line ``LayoutError`` when ``row`` is given an operand kind it is not modelled for."""

    def kinds(x: object) -> set[str]:
        if isinstance(x, Tile):
            return set().union(*(kinds(e) for e in x.elements)) if x.elements else set()
        if is_swizzled(x):
            return {"swizzled"}
        if isinstance(x, Layout) and has_basis(x.stride):
            return {"basis"}
        return set()

    found = set().union(*(kinds(a) for a in args)) if args else set()
    if "swizzled" in found and not row.swizzled:
        raise LayoutError(f"{row.name}: swizzle and composed-layout operands are modelled only for "
                          f"{', '.join(sorted(SWIZZLE_OPERATIONS))}")
    if "basis" in found and not row.basis:
        raise LayoutError(f"{row.name}: scaled-basis strides are modelled only for "
                          f"{', '.join(sorted(BASIS_OPERATIONS))}")


@dataclass(frozen=True)
class Outcome:
    """The result CuTe computes (or its rejection / undefined behaviour) and the obligations the call incurred."""

    result: Layout | Int | OffsetLayout | None
    obligations: tuple[Obligation, ...]
    rejection: CuteRejection | None = None
    undefined: str | None = None


def apply(op: str, *args: object, semantics: str | None = None) -> Outcome:
    """Run ``op`` as CuTe would and collect its obligations; CuTe's rejections and UB become data, not errors.
    ``semantics`` (``cpp`` or ``dsl``, semantics.py) picks which CuTe; by default the one in force."""
    if semantics is not None:
        with using(semantics):
            return apply(op, *args)
    row = REGISTRY.get(op)
    if row is None:
        raise LayoutError(f"unknown operation {op!r}; known: {', '.join(sorted(REGISTRY))}")
    fn = row.fn
    args = tuple(coerce(a) for a in args)  # pycute layouts are accepted (interop.py)
    if composed_ops.takes_composed(op, args):
        plain = fn
        fn = lambda *a: composed_ops.apply_composed(op, plain, a)  # noqa: E731 - CuTe's composed overloads
    else:
        check_operands(row, args)
    with Recorder() as rec:
        try:
            with watching(op):  # CuTe's integer types: each intermediate that can overflow (core/overflow.py)
                result = fn(*args)
        except CuteRejection as exc:
            return Outcome(None, tuple(rec.obligations), rejection=exc)
        except UndefinedBehavior as exc:
            undefined = str(exc)
        else:
            return Outcome(result, tuple(rec.obligations))  # type: ignore[arg-type]
    # A compile-time rejection comes before any run-time division by zero. CuTe's static checks depend only on
    # static values, so rerun with every run-time value symbolic: no division can fault, every check still fires.
    try:
        with Recorder():
            fn(*(_symbolize(a) for a in args))
    except CuteRejection as exc:
        return Outcome(None, tuple(rec.obligations), rejection=exc)
    except UndefinedBehavior:
        pass
    return Outcome(None, tuple(rec.obligations), undefined=undefined)


def _symbolize(obj: object, counter: list[int] | None = None) -> object:
    """``obj`` with each concrete run-time leaf replaced by a fresh symbol (static leaves kept)."""
    counter = counter if counter is not None else [0]

    def leaf(x: Int) -> Int:
        if x.static or not x.concrete:
            return x
        counter[0] += 1
        return symbol(f"?rt{counter[0]}")

    return map_leaves(obj, leaf)


