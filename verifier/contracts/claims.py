"""Claims: what must hold for an operation's result to be correct, as formulas the engine can decide.

A ``Claim`` (``contracts.claim``) is one universally quantified statement over the symbols and witnesses.  The
engine refutes a claim by finding an assignment where it fails and proves it by showing no such assignment exists.

A builder takes the operation's result and its operands (``build(op, args, result)``: the engine has the result
from ``algebra.registry.apply``) and states what the result must satisfy, with the witnesses as symbolic integers;
it does not run the operation again.  It calls the algebra only for what the statement itself is made of (the
complement in ``Z = (T, complement(T))``, ``filter_zeros``, a slice's offset), and, for the rearranged divides and
products (zipped, tiled, flat, blocked, raked), for the logical form whose modes their result holds.  The same
code serves both uses: with symbolic operands it gives the formula the engine encodes; on concrete operands, with
the operation run on them (``result_of``), it gives the concrete verdict used to *replay* every counterexample
(``replay``), which is how a refutation is confirmed before it is reported.  Where a contract sits beside its
algorithm (``algebra.ops.composition_claims``, ``tile_to_shape_claims``), the algorithm evaluates the same claims on
concrete operands (``core.claim.holds_everywhere``) for its recorded postcondition.

The postconditions are those of ``docs/semantics.md``: composition ``R(i) == A(B(i))``; complement's contract;
the inverses; divide and product through their definitions; coalesce's ``R(i) == L(i)``.  Operations without a
postcondition here are decided on the obligations the algebra records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from verifier.algebra import ops as algebra
from verifier.algebra.declare import LAYOUT
from verifier.algebra.registry import REGISTRY
from verifier.contracts.claim import _I, Claim, _claim, _fact, _same_size
from verifier.contracts.predication import predicated_copy_claims, vector_claims
from verifier.core.basis import Value, has_basis
from verifier.core.basis import add as value_add
from verifier.core.claim import TooLarge, _sufficient, _truth, first_failure
from verifier.core.errors import CuteRejection, UndefinedBehavior
from verifier.core.int_tuple import IntTuple, crd2crd, crd2idx, idx2crd, leaves, product_each
from verifier.core.integers import Bool, Const, D, Int, S, eq, lt, substitute
from verifier.core.layouts import Layout, Tile, Underscore, cosize, make_layout, rank, size
from verifier.core.obligations import Recorder, Shallow
from verifier.core.operands import substitute as substitute_operand

if TYPE_CHECKING:
    from verifier.algebra.tma import TmaBox

# -- per operation ---------------------------------------------------------------------------------------------


# composition's contract sits beside its algorithm (algebra/ops.py), which decides it on concrete values.
_composition = algebra.composition_claims


def _pairs(a: Layout, tiler: object, r: Layout) -> Iterator[tuple[Layout, Layout, Layout]]:
    """The (mode of A, layout tiler, mode of the by-mode result R) triples of the tiler dispatch
    (layout.hpp:1555-1582, :1649-1674): R's mode is the operation on that pair."""
    if isinstance(tiler, Layout):
        yield a, tiler, r
    elif isinstance(tiler, Tile) or type(tiler) is tuple:
        elements = tiler.elements if isinstance(tiler, Tile) else tiler
        for i, t in enumerate(elements):
            yield from _pairs(algebra._mode(a, i), t, algebra._mode(r, i))
    elif isinstance(tiler, Int):
        yield a, make_layout(tiler), r


def _divide(r: Layout, a: Layout, tiler: object) -> list[Claim]:
    """``r``: the logical divide, ``A o (T, complement(T))`` mode by mode."""
    out: list[Claim] = []
    for k, (x, t, rk) in enumerate(_pairs(a, tiler, r)):
        where = f" (mode {k})" if not isinstance(tiler, Layout) else ""
        target = algebra.coalesce(x).shape
        comp = algebra.complement(t, target)
        z = make_layout(t, comp)
        out += [
            _same_size("DIV-EXACT", f"the tiles cover A exactly, no padding: size(T, complement(T)) == size(A)"
                       f"{where}", "layout.hpp:1555-1582", size(x), size(z)),
            _same_size("DIV-POST-SIZE", f"size(A o Z) == size(Z) for Z = (T, complement(T, shape(A))){where}",
                       "layout.hpp:1572", size(z), size(rk)),
            _claim("DIV-POST", f"the divide is A after Z: R(i) == A(Z(i)), Z = (T, complement(T)){where}",
                   "layout.hpp:1572", size(z), x(z(_I)), rk(_I)),
            *(_rename(c, where) for c in algebra.complement_claims_for(comp, t, target)),
        ]
    return out


def _product(r: Layout, a: Layout, tiler: object) -> list[Claim]:
    """``r``: the logical product, ``(A, complement(A, size(A)*cosize(B)) o B)`` mode by mode."""
    out: list[Claim] = []
    for k, (x, t, rk) in enumerate(_pairs(a, tiler, r)):
        where = f" (mode {k})" if not isinstance(tiler, Layout) else ""
        target = size(x) * cosize(t)
        c = algebra.complement(x, target)
        n = size(x)
        out += [
            _same_size("PRD-POST-SIZE", f"size(R) == size(A) * size(B){where}", "layout.hpp:1666",
                       n * size(t), size(rk)),
            _claim("PRD-POST", f"R(i) == A(i % size(A)) + C(B(i / size(A))), C = complement(A, size(A)*cosize(B))"
                   f"{where}", "layout.hpp:1666", n * size(t), x(_I % n) + c(t(_I / n)), rk(_I)),
            _compact(x, c, where),
            *(_rename(cl, where) for cl in algebra.complement_claims_for(c, x, target)),
        ]
    return out


def _compact(a: Layout, c: Layout, where: str) -> Claim:
    """PRD-POST-COMPACT: the copies of A that C places leave no gap, (filter(A), C) is onto [0, size): the
    repetition the products document (02_layout_algebra.md, Logical Product; CuTe's all-static complement and
    pycute's give it).  detail::complement needs a filtered layout, without size-1 modes (layout.hpp:1176): a
    run-time extent 1 is not filtered and its stride then opens a gap (blocked_product((1,_2):(_5,_1),
    (M,_2):(_1,M)) at M=2 places the tiles at 0,2,5,7, not 0,2,4,6)."""
    fa = algebra.filter(a)
    both = make_layout(fa, c)
    n = size(fa) * size(c)
    return Claim("PRD-POST-COMPACT", f"the copies of A leave no gap: (filter(A), C)(i) < size(filter(A))*size(C) for "
                 f"every i < that size, C = complement(A, size(A)*cosize(B)){where}", "layout.hpp:1656",
                 (("#i", D(0), n),), lt(both(_I), n))


def _recast(n: int, narrow: Layout, wide: Layout, ks: list[int], what: str, prefix: str = "RC") -> list[Claim]:
    """Upcast / downcast address the same bytes (``docs/semantics.md``).  Leaf by leaf, narrow coordinate ``c``
    lies in wide element ``c' = c / k`` at byte offset ``r = sum (c % k) * d``; if ``narrow(c) == N*wide(c') + r``
    for every ``c``, the leaves divide and the offsets ``r`` enumerate ``[0, N)``, the two layouts address the
    same bytes.  These conditions are sufficient, not necessary, so a refutation is confirmed by the concrete
    postcondition of the algebra (``UP-POST`` / ``DN-POST``) before it is reported."""
    src = "layout.hpp:1801-1891"
    shapes, strides = list(leaves(narrow.shape)), list(leaves(narrow.stride))
    wstrides = list(leaves(wide.stride))
    count = 1
    for k in ks:
        count *= max(k, 1)
    offsets = [0]
    if count == n:  # otherwise there are not N offsets, and nothing to enumerate
        for k, d in zip(ks, strides):
            if k > 1:
                offsets = [o + j * int(d) for o in offsets for j in range(k)]
    out = [_same_size(f"{prefix}-SIZE", f"{what}: N * size(wide) == size(narrow)", src, size(narrow), size(wide) * n),
           _fact(f"{prefix}-REM", f"{what}: the byte offsets inside one wide element are 0..N-1", src,
                 Bool(Const(count == n and sorted(offsets) == list(range(n))), False))]
    out += [_fact(f"{prefix}-DIV", f"{what}: extent {k} divides narrow mode {m}", src, eq(shapes[m] % D(k), D(0)))
            for m, k in enumerate(ks) if k > 1]
    coord, left = [], _I
    for m, s in enumerate(shapes):
        coord.append(left % s if m < len(shapes) - 1 else left)
        left = left / s
    w = D(0)
    r = D(0)
    for c, k, d, wd in zip(coord, ks, strides, wstrides):
        w = w + (c / D(k)) * wd if k > 1 else w + c * wd
        r = r + (c % D(k)) * d if k > 1 else r
    out.append(_claim(f"{prefix}-POST", f"{what}: narrow(c) == N*wide(c / k) + offset, for every narrow coordinate",
                      src, size(narrow), narrow(_I), w * n + r))
    return [_sufficient(c) for c in out]


def _upcast(r: Layout, n: int, layout: Layout) -> list[Claim]:
    ks = [(-(-n // abs(int(d)))) if d.static and int(d) != 0 else 1 for d in leaves(layout.stride)]
    return _recast(n, layout, r, ks, f"upcast<{n}>")


def _downcast(r: Layout, n: int, layout: Layout) -> list[Claim]:
    ks = [n if d.is_constant(1) or d.is_constant(-1) else 1 for d in leaves(layout.stride)]
    # For downcast the same bytes is CuTe's contract (its per-mode rule assumes one unit-stride mode): errors,
    # named apart from upcast's RC-* warnings.
    return _recast(n, r, layout, ks, f"downcast<{n}>", "DN-RC")


def _recast_layout(r: Layout, old: int, new: int, layout: Layout) -> list[Claim]:
    g = math.gcd(old, new)
    num, den = new // g, old // g
    if num == 1 and den > 1:
        return _downcast(r, den, layout)
    if den == 1 and num > 1:
        return _upcast(r, num, layout)
    return []


def _fill(coord: object, parts: list[IntTuple]) -> IntTuple:
    """``coord`` with its k-th ``_`` replaced by ``parts[k]`` (in order)."""
    if type(coord) is tuple:
        return tuple(_fill(c, parts) for c in coord)
    if isinstance(coord, Underscore):
        return parts.pop(0)
    return coord  # type: ignore[return-value]


def _slice_claims(coord: object, layout: Layout, r: Layout, offset: Value, where: str = "") -> list[Claim]:
    """SLC-POST (layout.hpp:689-703): ``offset + R(i) == L(c')`` where ``c'`` is ``c`` with its ``_``s taking the
    coordinate of ``i`` in ``R``'s modes (each ``_`` owns one mode of ``R``, underscore.hpp:95-130)."""
    n = size(r)
    crd = idx2crd(_I, r.shape)
    parts = list(crd) if type(r.shape) is tuple else [crd]  # type: ignore[arg-type]  # congruent to r.shape, a tuple here
    full = _fill(coord, parts)
    return [_claim("SLC-POST", f"offset + R(i) == L(c with its '_' at R's coordinate of i){where}",
                   "layout.hpp:689-703", n, layout(full), value_add(offset, r(_I)))]


def _slice(r: Layout, coord: object, layout: Layout) -> list[Claim]:
    """``slice(c, L)`` is the layout of ``slice_and_offset(c, L)``: it differs from ``L`` by that offset."""
    offset = crd2idx(algebra._underscore_as_zero(coord), layout.shape, layout.stride)
    return _slice_claims(coord, layout, r, offset)


def _slice_and_offset(view: algebra.OffsetLayout, coord: object, layout: Layout) -> list[Claim]:
    return _slice_claims(coord, layout, view.layout, view.offset)


def _local_tile(view: algebra.OffsetLayout, layout: Layout, tiler: object, coord: object,
                proj: object = None) -> list[Claim]:
    """``local_tile`` is ``zipped_divide`` then a slice: the divide's claims and the slice's (tensor_impl.hpp).
    A projection dices tiler and coordinate first (tensor_impl.hpp:1058-1069)."""
    if proj is not None:
        tiler, coord = algebra.dice(proj, tiler), algebra.dice(proj, coord)
    tiled = algebra.zipped_divide(layout, tiler)  # type: ignore[arg-type]
    r0, r1 = rank(tiled, 0), rank(tiled, 1)
    rest = algebra._append_coord(coord, r1) if type(coord) is tuple else coord
    c = (algebra._repeat_underscore(r0), rest)
    return _divide(algebra.logical_divide(layout, tiler), layout, tiler) + _slice_claims(  # type: ignore[arg-type]
        c, tiled, view.layout, view.offset, " (the tile)")


def _local_partition(view: algebra.OffsetLayout, layout: Layout, thr: Layout, index: Int,
                     proj: object = None) -> list[Claim]:
    """``local_partition`` is ``zipped_divide`` by the thread shape then a slice at the thread's coordinate.  A
    projection dices the thread layout, the index still that of the whole layout (tensor_impl.hpp:1099-1111)."""
    if proj is not None:
        thr = algebra.dice(proj, thr)  # type: ignore[assignment]
    shp = thr.shape
    tiler = product_each(shp)
    tiled = algebra.zipped_divide(layout, tiler)
    hier = idx2crd(index, shp, thr.stride)
    r = rank(thr)
    flat = crd2crd(hier, shp, S(1) if r == 1 else (S(1),) * r)
    r0, r1 = rank(tiled, 0), rank(tiled, 1)
    first = algebra._append_coord(flat, r0) if type(flat) is tuple else flat
    c = (first, algebra._repeat_underscore(r1))
    return _divide(algebra.logical_divide(layout, tiler), layout, tiler) + _slice_claims(
        c, tiled, view.layout, view.offset, " (the thread's elements)")


#: Claims that are sufficient but not necessary: a refutation is confirmed by the algebra's concrete verdict.
CONFIRM_BY_ORACLE = {"RC-SIZE", "RC-REM", "RC-DIV", "RC-POST", "DN-RC-SIZE", "DN-RC-REM", "DN-RC-DIV", "DN-RC-POST",
                     "MCV-J", "MCV-A"}


def _rename(c: Claim, where: str) -> Claim:
    return replace(c, description=c.description + where)


def _make_tma_box(r: TmaBox, element_bits: int, smem: object, gmem: Layout) -> list[Claim]:
    """The box walks the tile as the smem layout stores it: its ``i``-th element is the gmem element of the tile
    coordinate that smem index ``i`` holds, ``box(i) == GMEM(idx2crd(right_inverse(SMEM)(i), tile))`` (the TMA
    unit writes box element ``i`` to smem index ``i``, before the swizzle; copy_traits_sm90_tma.hpp:723-845)."""
    from verifier.algebra.tma import swizzle_portions

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


def _divide_rearranged(r: Layout, a: Layout, tiler: object) -> list[Claim]:
    """The contract of zipped/tiled/flat_divide (``((tiles),(rest))``, flattened): the result holds the modes of
    the logical divide, which the claims state."""
    return _divide(algebra.logical_divide(a, tiler), a, tiler)  # type: ignore[arg-type]


def _product_rearranged(r: Layout, a: Layout, tiler: object) -> list[Claim]:
    """The contract of zipped/tiled/flat_product: the modes of the logical product, which the claims state."""
    return _product(algebra.logical_product(a, tiler), a, tiler)  # type: ignore[arg-type]


def _padded_product(r: Layout, a: Layout, b: Layout) -> list[Claim]:
    """blocked/raked products are logical_product of the rank-padded layouts with the modes re-paired: the same
    indices, so the claims of that logical_product decide them."""
    return _product(algebra.logical_product(*_padded(a, b)), *_padded(a, b))


def _predicated_copy(r: object, *args: object) -> list[Claim]:
    return predicated_copy_claims(*args)  # type: ignore[arg-type]


def _vectorized_copy(r: object, *args: object) -> list[Claim]:
    return vector_claims(*args)  # type: ignore[arg-type]


def _builders() -> dict[str, Callable[..., list[Claim]]]:
    """Each operation's claim builder, ``builder(result, *operands)``, as its declaration names it
    (``algebra.declare``).  A partition is a slice of a zipped_divide: the view is right when the divide is (its
    claims), and the coordinate is inside the grid (IX-2 / IX-3, recorded by the algebra and decided as
    obligations)."""
    return {name: row.claims() for name, row in REGISTRY.items()}


def _padded(a: Layout, b: Layout) -> tuple[Layout, Layout]:
    r = max(rank(a), rank(b))
    return algebra._append_to(a, r), algebra._append_to(b, r)


def _composition_tiled(r: Layout, a: Layout, b: object) -> list[Claim]:
    if isinstance(b, Layout):
        return _composition(r, a, b)
    if isinstance(b, Underscore):
        return []
    out: list[Claim] = []
    for k, (x, t, rk) in enumerate(_pairs(a, b, r)):
        out += [_rename(c, f" (mode {k})") for c in _composition(rk, x, t)]
    return out


# Operations whose claims are stated for swizzled (composed) operands too: their contracts compare values of the
# functions, which a symbolic swizzle gives bit by bit (swizzle.py), so the engine decides them on symbols: those
# declared to take swizzled operands whose result is a layout (``algebra.declare``).
SWIZZLED_CLAIMS = frozenset(n for n, r in REGISTRY.items() if r.swizzled and r.result == LAYOUT)


def _evaluable(f: object) -> bool:
    """A function whose value at a symbolic index is an integer expression: a plain layout (no scaled basis), a
    swizzle, or a composed layout of those with an integer offset (an smem_ptr flag's byte semantics aside)."""
    from verifier.core.swizzle import ComposedLayout, SmemPtrFlag, Swizzle

    if isinstance(f, Swizzle):
        return True
    if isinstance(f, ComposedLayout):
        return (not isinstance(f.offset, SmemPtrFlag) and type(f.offset) is Int and _evaluable(f.outer)
                and _evaluable(f.inner) and not isinstance(f.inner, Swizzle))
    return isinstance(f, Layout) and not has_basis(f.stride)


def _is_swizzled(f: object) -> bool:
    from verifier.core.swizzle import ComposedLayout, Swizzle

    return isinstance(f, ComposedLayout | Swizzle)


def swizzled_claims(op: str, args: Sequence[object], result: object) -> list[Claim] | None:
    """The claims of ``op`` on operands of which one is swizzled, stated as for layouts (CMP-POST, RI-POST,
    LI-POST and LI-3), or None when these operands are not of that kind."""
    from verifier.core.swizzle import ComposedLayout, Swizzle

    # a bare swizzle functor is a function too, as the outer operand of a composition (CuTe's swizzle atoms:
    # composition(Swizzle<3,3,3>{}, Layout<...>{}))
    fns = [a for k, a in enumerate(args)
           if (isinstance(a, Layout | ComposedLayout) or (op == "composition" and k == 0 and isinstance(a, Swizzle)))
           and _evaluable(a)]
    if op not in SWIZZLED_CLAIMS or len(fns) != len(args):
        return None
    r = result
    if not isinstance(r, Layout | ComposedLayout) or not _evaluable(r):
        return None
    if op == "composition":
        a, b = fns
        if isinstance(b, Swizzle):
            return None
        return [_same_size("CMP-POST-SIZE", "the result has the size of B: size(A o B) == size(B)", "layout.hpp:1022",
                           b.size(), r.size()),
                _claim("CMP-POST", "the result is A after B: (A o B)(i) == A(B(i)) for every i < size(B)",
                       "layout.hpp:1022", b.size(), a(b(_I)), r(_I))]
    (x,) = fns
    if isinstance(x, Swizzle):
        return None
    if op == "right_inverse":
        return [_claim("RI-POST", "L(R(i)) == i for every i < size(R)", "layout.hpp:1255-1260", r.size(), _I,
                       x(r(_I)))]
    return [_claim("LI-POST", "the quasi-inverse: L(R(L(i))) == L(i) for every i < size(L)", "layout.hpp:1313-1316",
                   x.size(), x(_I), x(r(x(_I)))),
            _claim("LI-3", "R(L(i)) == i for every i < size(L)", "layout.hpp:1313-1316", x.size(), _I, r(x(_I)))]


def has_postcondition(op: str) -> bool:
    return op in BUILDERS


def build(op: str, args: Sequence[object], result: object) -> list[Claim]:
    """The claims of ``result``, which ``op(*args)`` returned (``algebra.registry.apply``): they read it, and the
    operands, without running the operation again.  The operations a builder calls record into a ``Recorder`` of
    its own, which nothing reads, and so decide no postcondition by enumeration (``Shallow``)."""
    builder = BUILDERS.get(op)
    if builder is None:
        return []
    with Recorder(), Shallow():
        swizzled = swizzled_claims(op, args, result) if any(_is_swizzled(a) for a in args) else None
        return swizzled if swizzled is not None else builder(result, *args)


def result_of(op: str, args: Sequence[object]) -> object:
    """``op(*args)`` as ``algebra.registry.apply`` computes it; raises ``CuteRejection`` / ``UndefinedBehavior``.
    Only the result is read, so the postconditions the algebra would decide by enumerating concrete layouts are
    not computed (``Shallow``: most of a concrete replay's time, issue 28)."""
    from verifier.algebra.registry import apply

    with Shallow():
        outcome = apply(op, *args)
    if outcome.rejection is not None:
        raise outcome.rejection
    if outcome.undefined is not None:
        raise UndefinedBehavior(outcome.undefined)
    return outcome.result


# -- concrete replay -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """What concrete evaluation says at one assignment: the claim fails (with the values), or it holds."""

    fails: bool
    expected: int | None = None
    actual: int | None = None
    undefined: str | None = None


def concrete_claims(op: str, args: Sequence[object], values: Mapping[str, int]) -> list[Claim]:
    """The claims of ``op`` run on the operands at these values (raises ``UndefinedBehavior`` /
    ``CuteRejection`` as the algebra does)."""
    concrete = [substitute_operand(a, values) for a in args]
    return build(op, concrete, result_of(op, concrete))


def replay(op: str, args: Sequence[object], index: int, values: Mapping[str, int], id: str = "",
           built: Callable[[], list[Claim]] | None = None) -> Replay:
    """Run ``op`` on the concrete operands, build its claims on that result and evaluate claim ``index`` at the
    witnesses.  ``built``: those claims (``concrete_claims``), where the caller remembers them."""
    try:
        claims = built() if built is not None else concrete_claims(op, args, values)
        c = claims[index]
        w = {name: values[name] for name in c.witnesses}
        if not _truth(c.domain, w):
            return Replay(False)
        if c.expected is not None and c.actual is not None:
            exp, act = int(substitute(c.expected, w)), int(substitute(c.actual, w))
            return Replay(exp != act, exp, act)
        return Replay(not _truth(c.holds, w))
    except UndefinedBehavior as exc:
        return Replay(True, undefined=str(exc))
    except CuteRejection:
        return Replay(False)


def evaluate(op: str, args: Sequence[object], limit: int = 1 << 14, result: object = None) -> list[tuple[Claim, str]]:
    """The contract of ``op(*args)`` on concrete operands (``result``: what it returned, computed here if None),
    each claim evaluated at every witness value: ``holds``, ``fails`` (undefined behaviour in evaluating it
    included), or ``open`` when that would take more than ``limit`` evaluations (the engine's solver decides it
    then).  Raises ``CuteRejection`` as the algebra does."""
    out = []
    for c in build(op, args, result_of(op, args) if result is None else result):
        try:
            status = "holds" if first_failure(c, limit) is None else "fails"
        except TooLarge:
            status = "open"
        except UndefinedBehavior:
            status = "fails"
        out.append((c, status))
    return out


# Read at the end of the module: a declaration names its builder here, which must exist by then.
BUILDERS: dict[str, Callable[..., list[Claim]]] = _builders()
__all__ = ["BUILDERS", "Claim", "Replay", "TooLarge", "build", "concrete_claims", "evaluate", "first_failure",
           "has_postcondition", "replay", "result_of", "substitute_operand"]
