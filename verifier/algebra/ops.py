"""CuTe's layout algebra, branch for branch as ``layout.hpp`` of CuTe 4.2 computes it.

Every ``if constexpr`` of CuTe is decided here from the static/dynamic flags of the leaves, never from their
values, so for symbolic leaves the result has exactly the profile and flags CuTe's result has and its leaves are
expressions over the symbols; for concrete leaves it is CuTe's result.  In particular dynamic modes are not merged
by ``coalesce`` (only statically provable merges happen, ``layout.hpp:781-814``) and composition folds over the
unmerged modes, which is where CuTe goes silently wrong for run-time integers.

CuTe's compile-time checks raise ``CuteRejection`` exactly when CuTe's ``static_assert`` fires.  The checks CuTe
skips for dynamic values, the divisions it performs (undefined behaviour on zero), and the conditions that make a
result correct are recorded as ``Obligation``s (see ``obligations.py``) while a ``Recorder`` is active;
``apply(op, *args)`` runs an operation under one and returns both.  Swizzle and composed-layout operands of
composition and the inverses take CuTe's overloads for them (``swizzle.py``); a scaled-basis (``E<i>``) right
operand of composition takes the ScaledBasis branch (``basis.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from math import gcd as _gcd
from operator import mul, truediv
from typing import TypeVar, Union

from verifier.algebra import swizzled as _swizzled
from verifier.algebra.declare import (
    BINARY,
    BY_INNER,
    BY_RECAST,
    BY_SLICE,
    CALL,
    INDEX,
    OFFSET_LAYOUT,
    RECAST,
    RECAST_FORM,
    RECORDED,
    SLICE,
    TEMPLATED,
    TENSOR,
    TRACED,
    UNARY,
    declare,
)
from verifier.core import integers as _integers
from verifier.core import obligations as _obligations
from verifier.core import semantics as _semantics
from verifier.core import swizzle as _swizzle
from verifier.core.basis import (
    ScaledBasis,
    Value,
    as_coordinate,
    basis_get,
    coprofile,
    has_basis,
    stride_eq,
    stride_mul,
)
from verifier.core.basis import add as value_add
from verifier.core.claim import (
    _I,
    _J,
    Claim,
    _claim,
    _fact,
    _same_size,
    _sufficient,
    first_failure,
    postcondition,
)
from verifier.core.codomain import same_values
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.int_tuple import (
    IntTuple,
    ceil_div,
    compact_major,
    crd2crd,
    crd2idx,
    idx2crd,
    leaf_list,
    leaves,
    product,
    product_each,
    transform_leaf,
    unwrap,
)
from verifier.core.integers import (
    FALSE,
    IDLE,
    Bool,
    Const,
    D,
    Int,
    Op,
    S,
    abs_,
    and_,
    at,
    ceil_div_int,
    eq,
    ge,
    le,
    lt,
    min_,
    ne,
    or_,
    safe_div,
    signum,
    site,
    static_product_eq,
    unwatched,
)
from verifier.core.layouts import Layout, Tile, Underscore, cosize, layout_of, make_layout, rank, size
from verifier.core.obligations import (
    CLAUSE,
    NEVER,
    POSTCONDITION,
    POSTCONDITION_LIMIT,
    SA,
    Recorder,
    enumerating,
    nonzero,
    record,
    recording,
)
from verifier.core.semantics import SEMANTICS, DslInvalidLayout, DslRefusal, dsl
from verifier.core.semantics import current as current_semantics

Tiler = Layout | Tile | IntTuple | Underscore

# CuTe's _0 and _1 (Int<0>, Int<1>), made once: composition's static checks and complement use them at every call
_0, _1 = S(0), S(1)

# The largest recast factor N of upcast<N> / downcast<N> (recast_layout's ratio too).
RECAST_LIMIT = 1 << 16

# -- helpers ------------------------------------------------------------------------------------------------------

_F = TypeVar("_F", bound=Callable[..., object])
MEMO_SIZE = 1 << 12  # results kept per operation


def pure(fn: _F) -> _F:
    """Remember ``fn``'s results on equal operands while no ``Recorder`` is active.

    The operations are pure functions of immutable, hashable operands (equality includes every static/dynamic
    flag), so an equal call may return the same result object.  Under a ``Recorder`` the call runs, as it must
    record its obligations; a call that raises is not remembered.  Only the outermost operation is remembered: the
    operations it calls inside (complement's coalesce, logical_divide's composition) just compute, as looking
    them up costs a first call more than it saves a repeated one, which finds the outer result."""
    # functools' cache (C): it builds, hashes, finds and stores the key in less time than Python code can, and a
    # first call pays that on top of the operation (issue 16).  Typed, so that equal operands of different types
    # stay apart; one per semantics, as the semantics is part of the call.
    caches = {name: functools.lru_cache(maxsize=MEMO_SIZE, typed=True)(fn) for name in SEMANTICS}
    cpp = caches["cpp"]

    @functools.wraps(fn)
    def call(*args: object) -> object:
        global _inside
        # recording() and current_semantics() read in place: no Recorder and no semantics block is open (their
        # counts are 0) on the common path, and then no context variable is read.
        if _inside or (_obligations._open and recording()):  # nested, or under a Recorder
            return fn(*args)
        # A plain flag, not a context variable: another thread that sees it set only skips its own memo.
        _inside = True
        try:
            return (caches[current_semantics()] if _semantics._open else cpp)(*args)
        except TypeError:
            if _hashable(args):
                raise
        finally:
            _inside = False
        return fn(*args)  # an unhashable operand (a list): just compute

    _MEMOS.extend(caches.values())
    return call  # type: ignore[return-value]


def _hashable(args: tuple[object, ...]) -> bool:
    try:
        hash(args)
    except TypeError:
        return False
    return True


_MEMOS: list[functools._lru_cache_wrapper[object]] = []
_inside = False  # an operation remembered by ``pure`` is running


def _not_cute(fn: _F) -> _F:
    """Arithmetic that states a condition or a postcondition, which CuTe never executes: no overflow obligation
    (overflow.py)."""

    @functools.wraps(fn)
    def call(*args: object, **kwargs: object) -> object:
        if not _integers._watched:  # no watch open in any thread (read in place): nothing to turn off
            return fn(*args, **kwargs)
        with unwatched():
            return fn(*args, **kwargs)

    return call  # type: ignore[return-value]


def clear_memos() -> None:
    """Forget every remembered result (``pure``): the benchmark's first calls."""
    for memo in _MEMOS:
        memo.cache_clear()


def _modes(layout: Layout) -> list[Layout]:
    if type(layout.shape) is tuple:
        return [Layout(s, d) for s, d in zip(layout.shape, layout.stride)]  # type: ignore[arg-type]
    return [layout]


def _mode(layout: Layout, i: int) -> Layout:
    return _modes(layout)[i]


def _flat(layout: Layout) -> tuple[list[Int], list[Int]]:
    """The leaves of the shape and of the stride, in one walk (they are congruent)."""
    shape, stride = layout.shape, layout.stride
    if type(shape) is not tuple:
        return [shape], [stride]  # type: ignore[list-item]
    for s in shape:
        if type(s) is tuple:  # hierarchical: walk it
            fs: list[Int] = []
            fd: list[Int] = []
            _flat_into(shape, stride, fs, fd)  # type: ignore[arg-type]
            return fs, fd
    return list(shape), list(stride)  # type: ignore[arg-type]  # already flat: copied as is


def _flat_into(shape: tuple[IntTuple, ...], stride: tuple[IntTuple, ...], fs: list[Int], fd: list[Int]) -> None:
    for s, d in zip(shape, stride):
        if type(s) is tuple:
            _flat_into(s, d, fs, fd)  # type: ignore[arg-type]
        else:
            fs.append(s)  # type: ignore[arg-type]
            fd.append(d)  # type: ignore[arg-type]


@_not_cute
def _guarded(build: Callable[[], Bool]) -> Bool:
    """A condition that itself divides: a concrete division by zero makes it false (the operands are unusable)."""
    try:
        return build()
    except UndefinedBehavior:
        return Bool(FALSE.expr, False)


def _static_check(cond: Callable[[], Bool], static: bool, message: str, source: str, id: str,
                  description: str, *description_args: object) -> None:
    """A ``CUTE_STATIC_ASSERT_V`` that CuTe evaluates only when ``static`` (its operands are static).
    ``description`` is formatted with ``description_args`` (``str.format``) only when it is recorded.

    For static operands a division by zero removes the ``C<t/u>`` overload (SFINAE) and the division falls back
    to run-time ``int``s, so the asserted value is a run-time ``bool`` and the assertion fails to compile."""
    if static:
        try:
            # the asserted value is computed by the compiler, never executed
            with unwatched() if _integers._watched else IDLE:
                ok = cond()
        except UndefinedBehavior:
            if dsl():
                # DSL branch (DSL 4.8.1, observed: logical_product((_6,_6,_6):(_18,_0,_19), _2:_1) kills the
                # tracing process with SIGFPE): the DSL evaluates the condition with machine integers in its
                # compiler, so a static division by zero there is its own division by zero, not a compile error.
                raise
            raise CuteRejection("compile error: a static division by zero makes the asserted value a run-time "
                                "bool", source) from None
        if not ok.value:
            raise CuteRejection(message, source)
    elif recording():  # building the condition costs more than the operation itself: only for a Recorder
        record(id, description.format(*description_args) if description_args else description, source, SA,
               _guarded(cond))


def _transform_layout(t0: Sequence[Layout], t1: Sequence[object], fn: Callable[[Layout, object], Layout],
                      keep_rest: bool = True) -> Layout:
    """``transform_layout`` (layout.hpp:740-765): apply ``fn`` to paired modes, keep the unpaired modes of both."""
    r = min(len(t0), len(t1))
    out = [fn(t0[i], t1[i]) for i in range(r)]
    if keep_rest:
        out += list(t0[r:]) + list(t1[r:])  # type: ignore[arg-type]
    return make_layout(*out)


def _tiler_modes(tiler: Tile | tuple[object, ...]) -> list[object]:
    return list(tiler.elements) if isinstance(tiler, Tile) else list(tiler)


def _is_tuple_tiler(t: object) -> bool:
    return isinstance(t, Tile) or type(t) is tuple


# -- coalesce and filter (layout.hpp:767-955) -----------------------------------------------------------------------


def _bw_coalesce(fs: list[Int], fd: list[Int], ns: IntTuple, nd: IntTuple) -> Layout:
    """``detail::bw_coalesce`` (layout.hpp:781-814)."""
    rs, rd = _bw_coalesce_modes(fs, fd, ns, nd)
    if len(rs) == 1:
        return layout_of(rs[0], rd[0])  # leaves of a layout (or their products): congruent by construction
    return layout_of(tuple(rs), tuple(rd))


def _bw_coalesce_modes(fs: list[Int], fd: list[Int], ns: IntTuple, nd: IntTuple) -> tuple[list[Int], list[Int]]:
    """``detail::bw_coalesce``'s modes, front to back: walk the flat modes from the back, merging only what is
    statically provable.  The front mode of the result so far is ``cs:cd`` (which CuTe prepends to); the modes
    behind it are kept back to front in ``rs``/``rd``, one list append per finished mode."""
    rs: list[IntTuple] = []
    rd: list[IntTuple] = []
    cs, cd = ns, nd
    for i in range(len(fs) - 2, -1, -1):  # indices: cheaper than reversed slices zipped, for a few modes
        s, d = fs[i], fd[i]
        if s.static and s.value == 1:  # is_constant<1>, spelled out in this loop (issue 16)
            continue
        if not rs and cs.static and cs.value == 1:  # type: ignore[union-attr]  # the result so far is _1: replaced
            cs, cd = s, d
            continue
        if not cs.static:  # type: ignore[union-attr]
            merge = False
        elif type(d) is Int and type(cd) is Int:  # integer strides: no dispatch
            # static_product_eq(s, d, cd), its all-static case spelled out in this loop (issue 16)
            merge = (s.value * d.value == cd.value if s.static and d.static and cd.static  # type: ignore[operator]
                     else static_product_eq(s, d, cd))
        else:
            with unwatched():  # a type computation (decltype), never executed
                merge = stride_eq(stride_mul(s, d), cd).is_constant(True)  # type: ignore[arg-type]
        if merge:
            cs = at("coalesce", "layout.hpp:804", mul, s, cs)
            cd = d
        else:
            rs.append(cs)
            rd.append(cd)
            cs, cd = s, d
    if not rs and cs.static and cs.value == 1:  # type: ignore[union-attr]  # is_constant<1>
        return [_1], [_0]
    rs.append(cs)
    rd.append(cd)
    rs.reverse()
    rd.reverse()
    return rs, rd  # type: ignore[return-value]  # leaves, or products of leaves


def _check_profile(layout: Layout, profile: tuple[IntTuple, ...], source: str) -> None:
    if len(profile) > rank(layout):
        raise CuteRejection("static assertion failed: tuple_size<IntTuple>::value <= Layout::rank", source)


def coalesce_claims(r: Layout, layout: Layout, *profile: IntTuple) -> list[Claim]:
    return [_same_size("COA-POST-SIZE", "size(R) == size(L)", "layout.hpp:861-863", size(layout), size(r)),
            _claim("COA-POST", "R(i) == L(i) for every i < size(L)", "layout.hpp:861-863",
                   size(layout), layout(_I), r(_I))]


@declare(("L", "S?"), "layout.hpp:864-890", coalesce_claims, records=("COA",), basis=True, cpp=CALL,
         composed=BY_INNER,
         dsl=(UNARY, TRACED, RECORDED), sweep=True, example=("((M,N),K):((_1,M),M*N)",),
         docs=(("`coalesce(L)`, `coalesce(L, profile)`",
                "`size(R) == size(L)` and `R(i) == L(i)` (layout.hpp:861-863); CuTe merges only statically provable "
                "modes, so this always holds",
                "CO-1 (profile rank, a `static_assert`)"),))
@pure
def coalesce(layout: Layout, profile: IntTuple | None = None) -> Layout:
    """``coalesce(L)`` and by-mode ``coalesce(L, profile)`` (layout.hpp:864-890)."""
    if profile is not None and type(profile) is tuple:
        _check_profile(layout, profile, "layout.hpp:883")
        return _transform_layout(_modes(layout), list(profile), lambda m, p: coalesce(m, p))  # type: ignore[arg-type]
    fs, fd = _flat(layout)
    return _bw_coalesce(fs, fd, fs[-1], fd[-1])


def coalesce_x(layout: Layout) -> Layout:
    """``detail::coalesce_x`` (layout.hpp:823-855): like coalesce, but a trailing static ``_1`` mode seeds the
    walk with ``_2:d_last`` so the last stride survives (the left operand of composition)."""
    fs, fd = _flat(layout)
    if fs[-1].is_constant(1):
        return _bw_coalesce(fs, fd, S(2), fd[-1])
    return _bw_coalesce(fs, fd, fs[-1], fd[-1])


def coalesce_shape(shape: IntTuple, merge_dynamic: bool = True) -> IntTuple:
    """``coalesce(Shape)`` (layout.hpp:895-911): multiply adjacent leaves that are both static or both dynamic
    (only both static where not ``merge_dynamic``: the DSL's complement of a stride-0 layout)."""
    if type(shape) is not tuple:
        return shape
    flat = leaf_list(shape)
    acc: IntTuple = flat[0]
    for a in flat[1:]:
        back = acc[-1] if type(acc) is tuple else acc
        if back.static == a.static and (a.static or merge_dynamic):  # type: ignore[union-attr]
            merged = at("coalesce", "layout.hpp:904", mul, back, a)
            acc = (*acc[:-1], merged) if type(acc) is tuple else merged
        else:
            acc = (*acc, a) if type(acc) is tuple else (acc, a)
    return acc


def filter_zeros_claims(r: Layout, layout: Layout) -> list[Claim]:
    """``filter_zeros(L)`` (layout.hpp:913-920) replaces the extent of each static-0-stride mode by ``_1`` and keeps
    the strides: the same function on the coordinates those modes no longer range over."""
    return [_claim("FZ-POST", "R(i) == L(idx2crd(i, shape(R))) for every i < size(R): the modes of extent _1 take "
                   "coordinate 0", "layout.hpp:913-920", size(r), layout(idx2crd(_I, r.shape)), r(_I))]


@declare(("L",), "layout.hpp:914-920", filter_zeros_claims, records=("FZ",), cpp=CALL, dsl=(UNARY, TRACED),
         example=("(M,_2,N):(_1,_0,M)",),
         docs=(("`filter_zeros(L)`",
                "**FZ-POST**: `R(i) == L(idx2crd(i, shape(R)))` for `i < size(R)`: each static-0-stride mode's "
                "extent becomes `_1`, the strides are kept (layout.hpp:913-920)",
                "FZ-POST"),))
def filter_zeros(layout: Layout) -> Layout:
    """``filter_zeros(L)`` (layout.hpp:914-920): a static-``_0`` stride makes its extent ``_1``."""
    for x in leaf_list(layout.stride):
        if isinstance(x, Int) and x.is_constant(0):  # is_constant<0>, spelled out (issue 16)
            break
    else:
        return layout  # no static-_0 stride: the same (immutable) layout

    def go(d: IntTuple, s: IntTuple) -> IntTuple:
        if type(d) is tuple:
            return tuple(go(x, y) for x, y in zip(d, s))  # type: ignore[arg-type]
        if isinstance(d, Int) and d.is_constant(0):  # a scaled basis is never is_constant<0>
            return transform_leaf(s, lambda _: S(1))
        return s

    return Layout(go(layout.stride, layout.shape), layout.stride)


def filter_claims(r: Layout, layout: Layout, profile: IntTuple | None = None) -> list[Claim]:
    """``filter(L)`` is ``L'`` (L without its static-0-stride modes, ``filter_zeros``) coalesced: the same
    function on ``L'``'s domain (docs/semantics.md)."""
    if profile is not None and type(profile) is tuple:
        return []  # by mode: decided by the algebra's enumeration on concrete operands
    lz = filter_zeros(layout)
    src = "layout.hpp:931-950"
    return [_same_size("FLT-POST-SIZE", "size(R) == size(L') for L' = L without its static-0-stride modes", src,
                       size(lz), size(r)),
            _claim("FLT-POST", "R(i) == L'(i) for every i < size(L')", src, size(lz), lz(_I), r(_I))]


@declare(("L", "S?"), "layout.hpp:933-955", filter_claims, records=("FLT",), basis=True, cpp=CALL,
         composed=BY_INNER,
         dsl=(UNARY, TRACED, RECORDED), example=("(M,_2,N):(_1,_0,M)",),
         docs=(("`filter(L)`",
                "`R(i) == L'(i)` where `L'` is `L` with its static-0-stride modes removed",
                "as coalesce"),))
def filter(layout: Layout, profile: IntTuple | None = None) -> Layout:  # noqa: A001 - CuTe's name
    """``filter(L)`` (layout.hpp:933-955): ``coalesce(filter_zeros(L))``. A dynamic zero stride is not removed."""
    if profile is not None and type(profile) is tuple:
        _check_profile(layout, profile, "layout.hpp:948")
        return _transform_layout(_modes(layout), list(profile), lambda m, p: filter(m, p))  # type: ignore[arg-type]
    return coalesce(filter_zeros(layout))


# -- composition (layout.hpp:1029-1161) ------------------------------------------------------------------------------


def _composition_impl(ls: IntTuple, ld: IntTuple, rs: IntTuple, rd: IntTuple) -> Layout:
    if type(rs) is tuple:  # right-distributivity over the modes of B (:1036-1039)
        if dsl():
            return _dsl_compose_modes(ls, ld, rs, rd)  # type: ignore[arg-type]
        modes = []  # a loop, not a generator: ls and ld stay plain locals (no closure cells), one frame fewer a mode
        for mode_s, mode_d in zip(rs, rd):  # type: ignore[arg-type]
            modes.append(_composition_impl(ls, ld, mode_s, mode_d))
        return make_layout(*modes)
    if type(rd) is ScaledBasis:  # type: ignore[comparison-overlap]  # a scaled-basis B stride selects A's mode (:1041-1043)
        return _composition_impl(basis_get(rd, ls), basis_get(rd, ld), rs, rd.value)
    # A leaf of B: Int extent and stride (annotated, not asserted: no isinstance at run time).
    s: Int = rs  # type: ignore[assignment]
    r: Int = rd  # type: ignore[assignment]
    # The results are built with layout_of: each shape and stride below are congruent by construction.
    if r.is_constant(0):  # a static stride-0 B mode (:1045); a dynamic 0 does not take this branch
        return layout_of(s, r)
    if type(ls) is not tuple:  # integral A: no condition at all (:1048)
        with site("composition", "layout.hpp:1049", r, ld):  # type: ignore[arg-type]
            return layout_of(s, stride_mul(r, ld))  # type: ignore[arg-type]
    res_s: list[Int] = []
    res_d: list[Int] = []
    # DSL branch (DSL 4.8.1, observed: flat_product(_3:_-2, ((_4,_1)):((_0,_12))) gives the stride 36 where
    # C++ gives 24): its ceil_div is the exact ceiling, also for the negative extents of a complement of a
    # negative-stride layout (ceil(12 / -2) = -6; C++'s (12 - 2 - 1) / -2 = -4).
    ceil: Callable[[Int, Int], Int] = _dsl_ceil_div if dsl() else ceil_div_int  # type: ignore[assignment]
    rec = recording()  # nonzero records only for a Recorder: without one it is not called
    watched = _integers._watched  # the sites are entered only while an overflow watch is open (issue 16)
    for i in range(len(ls) - 1):
        a: Int = ls[i]  # type: ignore[assignment]  # ls and ld are flat tuples here
        e = ld[i]  # type: ignore[index]
        _static_check(
            lambda a=a, r=r: or_(eq(r % a, _0), lt(r, a)), a.static and r.static,  # type: ignore[misc]  # defaults bind this mode
            "Stride Divisibility Condition", "layout.hpp:1077", "CMP-2",
            "weak stride condition at A mode {}: r % a == 0 or r < a (r = remaining B stride, a = A extent)", i)
        with site("abs", "layout.hpp:1084", r) if watched else IDLE:
            abs_r = abs_(r)
        if rec:
            nonzero(abs_r, "CMP-6", "the B stride", "layout.hpp:1084")
            nonzero(a, "CMP-7", "the extent of A mode {}", "layout.hpp:1086", i)
        next_shape = ceil(a, abs_r)
        with site("composition", "layout.hpp:1086", r, a) if watched else IDLE:
            next_stride = ceil(abs_r, a) * signum(r)
        if next_shape.is_constant(1) or s.is_constant(1):
            r = next_stride
            continue
        new_shape = min_(next_shape, s)
        _static_check(lambda s=s, n=new_shape: eq(s % n, _0), new_shape.static and s.static,  # type: ignore[misc]  # defaults bind this mode
                      "Shape Divisibility Condition", "layout.hpp:1101", "CMP-3",
                      "weak shape condition at A mode {}: s % min(ceil(a/r), s) == 0", i)
        if rec:
            nonzero(new_shape, "CMP-6", "the extent taken from A mode {}", "layout.hpp:1109", i)
        res_s.append(new_shape)
        res_d.append(at("composition", "layout.hpp:1108", stride_mul, r, e))  # type: ignore[arg-type]
        s = at("composition", "layout.hpp:1109", truediv, s, new_shape)
        r = next_stride
    last = ld[-1]  # type: ignore[index]
    if not res_s:
        return layout_of(s, at("composition", "layout.hpp:1117", stride_mul, r, last))  # type: ignore[arg-type]
    if s.is_constant(1):
        return layout_of(unwrap(tuple(res_s)), unwrap(tuple(res_d)))
    return layout_of((*res_s, s), (*res_d, at("composition", "layout.hpp:1123", stride_mul, r, last)))  # type: ignore[arg-type]


def _dsl_compose_modes(ls: IntTuple, ld: IntTuple, rs: tuple[IntTuple, ...], rd: tuple[IntTuple, ...]) -> Layout:
    """DSL branch of composition's right-distributivity (DSL 4.8.1, observed on A = complement((4,5):(16,9), 1580)
    = (9,0,25):(1,45,64): A o 4:10 is refused (the stride condition fails at the extent 9), A o 4:18 divides by
    the extent 0 (SIGFPE), and A o (4,4):(10,18) and A o (4,4):(18,10) both divide by zero): the DSL composes every
    mode of B before it reports a mode's refusal, where C++ stops at the first failed static assertion."""
    modes: list[Layout] = []
    refused: CuteRejection | None = None
    for s, d in zip(rs, rd):
        try:
            modes.append(_composition_impl(ls, ld, s, d))
        except CuteRejection as exc:
            refused = refused or exc
    if refused is not None:
        raise refused
    return make_layout(*modes)


def _valid_leaf(a: list[int], s: int, d: int) -> bool:
    """Spec §4.3 CMP-4, the exact per-leaf rule for one B leaf ``s:d`` over the flat extents of coalesce_x(A)."""
    r = abs(d)
    for ai in a[:-1]:
        if s == 1:
            return True
        if r % ai == 0:
            r //= ai
            continue
        if r < ai and ai % r == 0:
            m = ai // r
            if s <= m:
                return True
            if s % m != 0:
                return False
            s, r = s // m, 1
            continue
        return r < ai and s <= -(-ai // r)
    return True


def _emitted(a: list[int], s: int, d: int) -> list[tuple[int, int]]:
    """``(new_shape, r)`` that composition_impl emits at each non-last A mode for the B leaf ``s:d``."""
    out: list[tuple[int, int]] = []
    r = d
    for ai in a[:-1]:
        next_shape = -(-ai // abs(r))
        next_stride = -(-abs(r) // ai) * ((r > 0) - (r < 0))
        if next_shape == 1 or s == 1:
            out.append((1, r))
        else:
            n = min(next_shape, s)
            out.append((n, r))
            s = int(s / n)
        r = next_stride
    return out


@_not_cute
def _exact_rules(a: Layout, b: Layout) -> None:
    """CMP-4 and CMP-5 on concrete values (spec §4.3). Re-validated here against the postcondition on the test
    corpora: together they imply a correct result, and are implied by it whenever A has no zero stride."""
    flat = coalesce_x(a)
    ext = [int(x) for x in leaves(flat.shape)]
    if any(e <= 0 for e in ext):
        return
    b_leaves = [(int(s), int(d)) for s, d in zip(leaves(b.shape), leaves(b.stride)) if int(d) != 0]
    per_leaf = all(_valid_leaf(ext, s, d) for s, d in b_leaves)
    record("CMP-4", "every B leaf s:d fits A's unmerged modes (the exact per-leaf rule of spec §4.3)",
           "layout.hpp:1054-1110", NEVER, Bool(Const(per_leaf), False))
    if len(ext) > 1 and len(b_leaves) > 1:
        emitted = [_emitted(ext, s, d) for s, d in b_leaves]
        no_carry = all(sum((e[i][0] - 1) * abs(e[i][1]) for e in emitted) <= ext[i] - 1 for i in range(len(ext) - 1))
        record("CMP-5", "the B leaves add without carrying between A's modes: sum_k (n_k,i - 1)*r_k,i <= a_i - 1",
               "layout.hpp:1036-1039", NEVER, Bool(Const(no_carry), False))


def composition_claims(r: Layout, a: Layout, b: Layout) -> list[Claim]:
    """composition's contract (layout.hpp:1022): ``size(R) == size(B)`` and ``R(i) == A(B(i))`` for every
    ``i < size(B)``; B's scaled-basis values are coordinates of A (none beyond A's profile).  Stated over the
    functions' values, so swizzled and composed operands (a bare swizzle as A too) take it as they are.  The engine
    decides it on symbols; on concrete operands the algorithm decides the same claims itself."""
    extra = None
    if isinstance(b, Layout) and has_basis(b.stride):  # B's values are coordinates of A, none beyond A's profile
        coord, beyond = as_coordinate(b(_I), a.shape)
        expected = a(coord)
        extra = and_(*(eq(x, D(0)) for x in beyond))
    else:
        expected = a(b(_I))
    return [
        _same_size("CMP-POST-SIZE", "the result has the size of B: size(A o B) == size(B)", "layout.hpp:1022",
                   b.size(), r.size()),
        _claim("CMP-POST", "the result is A after B: (A o B)(i) == A(B(i)) for every i < size(B)",
               "layout.hpp:1022", b.size(), expected, r(_I), extra),
    ]


def _pairs(a: Layout, tiler: object, r: Layout) -> Iterator[tuple[Layout, Layout, Layout]]:
    """The (mode of A, layout tiler, mode of the by-mode result R) triples of the tiler dispatch
    (layout.hpp:1555-1582, :1649-1674): R's mode is the operation on that pair."""
    if isinstance(tiler, Layout):
        yield a, tiler, r
    elif isinstance(tiler, Tile) or type(tiler) is tuple:
        elements = tiler.elements if isinstance(tiler, Tile) else tiler
        for i, t in enumerate(elements):
            yield from _pairs(_mode(a, i), t, _mode(r, i))
    elif isinstance(tiler, Int):
        yield a, make_layout(tiler), r


def _rename(c: Claim, where: str) -> Claim:
    return replace(c, description=c.description + where)


def composition_tiled_claims(r: Layout, a: Layout, b: object) -> list[Claim]:
    """composition's contract for every right operand it takes: a function (``composition_claims``; a swizzled one
    where its values are integer expressions, ``swizzled.claims``), a by-mode tiler (the contract mode by mode),
    ``_`` (nothing to state: R is A)."""
    if isinstance(b, Layout) or (isinstance(b, _swizzle.ComposedLayout) and _swizzled.evaluable(a, b, r)):
        return composition_claims(r, a, b)  # type: ignore[arg-type]
    out: list[Claim] = []
    for k, (x, t, rk) in enumerate(_pairs(a, b, r)):
        out += [_rename(c, f" (mode {k})") for c in composition_claims(rk, x, t)]
    return out


@_not_cute
def _composition_postcondition(a: Layout, b: Layout, r: Layout) -> None:
    """composition's contract on concrete operands, for a Recorder: its claims (``composition_claims``), each at
    every ``i``.  A has a 0 extent before its last mode (a complement of an overlapping layout, which the DSL does
    not refuse): A(B(i)) is itself a division by zero, so the contract fails; the composition computed its result
    without evaluating A (a stride-0 B, layout.hpp:1045), and so does CuTe."""
    record("CMP-POST-SIZE", "the result has the size of B: size(A o B) == size(B)", "layout.hpp:1022", NEVER,
           eq(size(r), size(b)), CLAUSE)
    if a.concrete and b.concrete and r.concrete:
        postcondition("CMP-POST", "the result is A after B: (A o B)(i) == A(B(i)) for every i < size(B)",
                      "layout.hpp:1022", lambda: composition_claims(r, a, b))
        if enumerating() and int(size(b)) <= POSTCONDITION_LIMIT:
            _exact_rules(a, b)


@declare(("L", "T"), "layout.hpp:1132-1161", composition_tiled_claims, records=("CMP", "SW"), swizzled=True, basis=True,
         cpp=CALL, dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(M,N):(_1,M)", "(_4,_2):(_2,_1)"),
         docs=(("`composition(A, B)`",
                "`size(R) == size(B)` and `R(i) == A(B(i))` for every `i < size(B)` (layout.hpp:1022)",
                "CMP-2, CMP-3 (CuTe's weak checks: `static_assert` when static, never checked when dynamic), "
                "CMP-6/7 (division by zero), CMP-POST-SIZE (symbolic), CMP-POST (decided on concrete values)"),
               ("`composition(A, <T0,T1,...>)`",
                "mode by mode as above; A's modes beyond the tiler are dropped",
                "per mode"),
               ("`composition(Sw, L)`, notation `Sw<B,M,S> o L`",
                "`R(i) == Sw(L(i))`: CuTe's `Sw o _0 o L`, or `L` itself for an identity swizzle `Sw<0,M,S>` "
                "(swizzle_layout.hpp:305-325); always exact",
                "the swizzle's invariants (`static_assert`s, swizzle.hpp:61-63)"),
               ("`composition(L, Sw)`",
                "`R(i) == L(Sw(i))` for `i < size(L)`. CuTe returns `make_swizzle<L(yyy),L(zzz)>() o _0 o L` and "
                "never checks that L is XOR-linear on the swizzled bits (swizzle_layout.hpp:327-341)",
                "L static (a compile error otherwise); `make_swizzle`'s `static_assert`s (swizzle.hpp:110, 115); "
                "**SW-3**, the postcondition (never checked; L is static, so it is decided on the values)"),
               ("`composition(Sw0, Sw1)`",
                "`R(x) == Sw0(Sw1(x))`: every merge that compiles is exact (spec §16)",
                "equal shifts (`static_assert`, swizzle.hpp:125); `make_swizzle`'s"),
               ("`composition(A o O o B, T)`",
                "`A o O o (B o T)`: correct when `B o T` is (layout_composed.hpp:370-377)",
                "those of composition on B"),
               ("`composition(L, A o O o B)`",
                "`R(i) == L(A(O + B(i)))` for `i < size(B)` (CMP-POST)",
                "**CMP-8**: O a static `_0` (`static_assert`; a compile error for a run-time offset, "
                "layout_composed.hpp:386); those of `L o A` and `(L o A) o B`"),
               ("`composition(A, B)`, B with scaled-basis strides (`_1@1`, `_1@1@0`)",
                "`R(i) == A(B(i))` for `i < size(B)`, B's values (arithmetic tuples) being coordinates of A with "
                "missing modes 0 (CMP-POST). A is coalesced mode by mode along B's coprofile (layout.hpp:1139, "
                "841-853) and a leaf `s:v@i` composes with A's mode `i` (layout.hpp:1041-1043)",
                "those of composition on the selected modes; the coprofile's rank (`static_assert`, "
                "layout.hpp:848); a basis plus a non-zero integer is a compile error (arithmetic_tuple.hpp:440, "
                "453)")))
@pure
def composition(a: Layout, b: Tiler) -> Layout:
    """``composition(A, B)``: B a layout, a by-mode tiler ``<B0,B1,...>`` (extra A modes are dropped), a shape,
    an integer ``n`` (meaning ``n:_1``) or ``_`` (layout.hpp:1132-1161). Swizzle and composed-layout operands
    take CuTe's overloads for them (swizzle.py); a scaled-basis B coalesces A by B's coprofile (basis.py)."""
    if type(a) is Layout and type(b) is Layout and not has_basis(a.stride) and not has_basis(b.stride):
        return _compose_layouts(a, b)  # the common case: every test below would lead to the same branch
    if dsl() and _swizzle.is_swizzled(b):
        # DSL branch (DSL 4.8.1 cute.composition, observed: composition((4,4):(1,4), S<1,0,2> o 0 o (4,4):(1,4))):
        # a swizzled right operand is no Value of its API.
        raise DslRefusal("Operand 1 of operation \"cute.composition\" must be a Value",
                         "cute.composition, DSL 4.8.1 (observed)")
    if _swizzle.is_swizzled(a) or _swizzle.is_swizzled(b):
        return _swizzled.composition(a, b, composition, composition_claims)  # type: ignore[return-value]
    _swizzled.check_plain_composition(a, b)
    if isinstance(b, Layout) and has_basis(a.stride) and not has_basis(b.stride):
        flat = coalesce_x(a)  # an identity / coordinate tensor's layout: A's values are coordinates
        result = _composition_impl(flat.shape, flat.stride, b.shape, b.stride)
        basis_composition_postcondition(a, b, result, POSTCONDITION_LIMIT)
        return result
    if isinstance(b, Layout) and has_basis(b.stride):  # coalesce_x(lhs, coprofile(rhs)) (layout.hpp:1139)
        flat = coalesce_x_profile(a, coprofile(b))
        result = _composition_impl(flat.shape, flat.stride, b.shape, b.stride)
        basis_composition_postcondition(a, b, result, POSTCONDITION_LIMIT)
        return result
    if isinstance(b, Layout):
        return _compose_layouts(a, b)
    if _is_tuple_tiler(b):
        modes = _tiler_modes(b)  # type: ignore[arg-type]
        if len(modes) > rank(a):
            raise CuteRejection("static assertion failed: tuple_size<Tiler>::value <= Layout::rank",
                                "layout.hpp:1150")
        return make_layout(*(_compose_int(_mode(a, i), t) if isinstance(t, Int) else composition(_mode(a, i), t)  # type: ignore[arg-type]  # a tiler's modes
                             for i, t in enumerate(modes)))
    if isinstance(b, Underscore):
        return a
    if isinstance(b, Int):
        if dsl() and not b.static:
            # DSL branch (DSL 4.8.1 cute.composition, observed on composition(_4:_21, ?)): a run-time integer is
            # no tiler in its Python API (inside a tuple tiler it is).
            raise DslRefusal("Operand 1 of operation \"cute.composition\" must be a Value",
                             "cute.composition, DSL 4.8.1 (observed)")
        return _compose_int(a, b)
    raise LayoutError(f"composition: cannot use {b!r} as the right operand")


def _compose_layouts(a: Layout, b: Layout) -> Layout:
    """``composition(A, B)`` of two layouts with integer strides (layout.hpp:1132-1140)."""
    flat = coalesce_x(a)
    result = _composition_impl(flat.shape, flat.stride, b.shape, b.stride)
    if recording():  # the contract is recorded only for a Recorder
        _composition_postcondition(a, b, result)
    return result


def _compose_int(a: Layout, n: Int) -> Layout:
    """``composition(A, n)``: A after ``n:_1``. DSL branch (DSL 4.8.1, observed: composition(_1:_4, <_1>) gives
    (1):(0), C++ (_1):(_4)): the DSL makes the tiler ``make_layout(n)``, whose stride is ``_0`` for ``n == _1``."""
    flat = coalesce_x(a)
    return _composition_impl(flat.shape, flat.stride, n, S(0) if dsl() and n.is_constant(1) else S(1))


# -- complement (layout.hpp:1177-1247) -------------------------------------------------------------------------------


def _complement(shp: list[Int], std: list[Int], cotarget: IntTuple) -> Layout:
    """``detail::complement`` (layout.hpp:1177-1227) of the flat modes ``shp:std`` of a filtered layout (lists
    that it consumes)."""
    n = len(shp)
    if n == 1 and std[0].is_constant(0):  # is_constant<0>
        # DSL branch (DSL 4.8.1, observed: complement(4:0, (2,3,?,?)) is (6,?,?):(1,6,?{div=6}), complement(4:0,
        # (?,?)) is (?,?):(1,?); C++ multiplies the run-time leaves too, layout.hpp:1184): the DSL coalesces this
        # cotarget multiplying only adjacent static leaves, so a divide by a stride-0 tiler keeps one rest mode
        # per run-time extent of the divided layout (logical_divide's complement(T, shape(coalesce(A)))).
        return make_layout(coalesce_shape(cotarget, merge_dynamic=not dsl()))
    values: list[int | None] = [d.value if d.static else None for d in std] if n > 1 else []  # the sort's keys
    if None in values:
        raise CuteRejection("Dynamic-stride complement only for rank-1 layouts", "layout.hpp:1188")
    rs: list[Int] = []
    rd: list[Int] = [_1]
    # Read in place (issue 16): the obligations below (nonzero's too) are built only for a Recorder.
    rec = _obligations._open and recording()
    in_dsl = _semantics._open and dsl()
    for _ in range(n - 1):
        j = values.index(min(values))  # type: ignore[type-var]  # the first smallest stride
        m = std[j]
        if rec:
            nonzero(rd[-1], "CPL-2", "the running stride of the complement", "layout.hpp:1201")
        new_shape = at("complement", "layout.hpp:1201", truediv, m, rd[-1])
        if new_shape.is_constant(0) and not in_dsl:  # is_constant<0>; DSL: _dsl_complement_checks
            raise CuteRejection("Non-injective Layout detected in complement.", "layout.hpp:1203")
        if rec:
            record("CPL-2", "sorted strides do not overlap: d_k >= d_(k-1) * s_(k-1) (else a size-0 mode)",
                   "layout.hpp:1201-1203", NEVER, ge(new_shape, S(1)))
        new_stride = at("complement", "layout.hpp:1202", mul, m, shp[j])
        del shp[j], std[j], values[j]
        rs.append(new_shape)
        rd.append(new_stride)
    if rec:
        nonzero(rd[-1], "CPL-2", "the running stride of the complement", "layout.hpp:1212")
    new_shape = at("complement", "layout.hpp:1212", truediv, std[0], rd[-1])
    if new_shape.is_constant(0) and not in_dsl:
        raise CuteRejection("Non-injective Layout detected in complement.", "layout.hpp:1213")
    if rec:
        record("CPL-2", "sorted strides do not overlap: d_k >= d_(k-1) * s_(k-1) (else a size-0 mode)",
               "layout.hpp:1212-1213", NEVER, ge(new_shape, S(1)))
    rs.append(new_shape)
    new_stride = at("complement", "layout.hpp:1217", mul, std[0], shp[0])
    if rec:
        record("CPL-3", "strides are positive", "layout.hpp:1177", NEVER,
               and_(*(ge(d, S(1)) for d in std + rd[1:])))
        nonzero(new_stride, "CPL-4", "the layout's extent (stride * shape of its largest mode)", "layout.hpp:1218")
    # coalesce((rs, rest_shape):(rd, rest_stride)) from its flat modes, without building the layout to flatten it
    # again (rs and rd have one entry per mode; compact_major is congruent to rest_shape).
    if type(cotarget) is Int and not in_dsl:  # an integer cotarget: one rest extent, coalesced as it is
        rest = ceil_div_int(cotarget, new_stride)
        rs.append(rest)
        rd.append(compact_major(rest, False, new_stride))  # type: ignore[arg-type]
    else:
        rest_shape = coalesce_shape(_dsl_ceil_div(cotarget, new_stride) if in_dsl else ceil_div(cotarget, new_stride))
        rs += leaf_list(rest_shape)
        rd += leaf_list(compact_major(rest_shape, False, new_stride))
    return _bw_coalesce(rs, rd, rs[-1], rd[-1])


def _dsl_ceil_div(a: IntTuple, b: Int) -> IntTuple:
    """DSL branch of complement's rest mode (DSL 4.8.1, observed: complement(((_3,_2,_6)):((_0,_0,_-3)), _89)
    gives the rest extent -4 where C++ computes (89 - 18 - 1) / -18 = -3): the exact ceiling of a / b, also for a
    negative b."""
    if type(a) is tuple:
        out = []
        rest: Int = b
        for x in a:  # ceil_div of a tuple by an integer folds like shape_div (int_tuple.hpp:344-363)
            out.append(_dsl_ceil_div(x, rest))
            rest = _dsl_ceil_div(rest, x)  # type: ignore[assignment, arg-type]
        return tuple(out)
    assert isinstance(a, Int)
    if a.concrete and b.concrete:
        av, bv = int(a), int(b)
        if bv == 0:
            raise UndefinedBehavior(f"division by zero (ceil_div({av}, 0))")
        q = -(-av // bv)
        return S(q) if a.static and b.static else Int(Const(q), False)
    if b.static and int(b) > 0:
        return ceil_div_int(a, b)
    quo, rem = a / b, a % b
    up = and_(ne(rem, S(0)), eq(signum(a), signum(b)))  # truncation rounded down: add one
    return Int(Op("+", (quo.expr, Op("ite", (up.expr, Const(1), Const(0))))), False)


def _dsl_complement_checks(layout: Layout, cotarget: object) -> None:
    """DSL branches of complement (DSL 4.8.1, observed on the corpus of
    tests/differential/test_dsl_differential.py): with a
    run-time stride in a layout of rank above 1 (before filter, which may make it rank 1 for C++) the DSL returns
    an invalid layout printed x:x (C++: a static_assert, layout.hpp:1188); a rank-1 layout whose filter has more
    than one mode and a run-time stride aborts the DSL's process; a
    static non-injective layout is not refused (C++: layout.hpp:1203/1213) but gets 0-extent modes; the Python
    API has no complement without a cotarget."""
    if cotarget is None:
        raise DslRefusal("complement() missing 1 required positional argument: 'cotarget'",
                         "cute.complement, DSL 4.8.1 core.py")
    if rank(layout) > 1 and not all(d.static for d in leaves(layout.stride)):
        raise DslInvalidLayout("cute.complement, DSL 4.8.1 (observed)")
    filt = filter(layout)
    if len(list(leaves(filt.stride))) > 1 and not all(d.static for d in leaves(filt.stride)):
        raise DslRefusal("the DSL process aborts: std::bad_variant_access", "cute.complement, DSL 4.8.1 (observed: "
                         "complement(((_4,_8)):((1,8)), _60) terminates the process)")


def complement_claims_for(r: Layout, layout: Layout, cotarget: IntTuple) -> list[Claim]:
    """complement's contract (layout.hpp:1166-1171) for the cotarget as a shape: not empty, covering, bounded,
    increasing and disjoint from L (but at 0)."""
    cot = product(cotarget)
    co_l = cosize(layout)
    n_r = size(r)
    src = "layout.hpp:1166-1171"
    return [
        # CuTe's @post (layout.hpp:1167) is size(R) >= size(cotarget) / size(filter(L)): an empty cotarget (a divide
        # of an empty layout, M/4 at M < 4) asks for nothing, and CuTe's empty result is right there (compiled CuTe:
        # logical_divide(0:_1, _2:_1) is (_2,0):(_1,_2), no UB).  Only a non-empty cotarget needs a non-empty R.
        _fact("CPL-POST-NONEMPTY", "the complement of a non-empty cotarget is not empty: size(R) >= 1 (a 0-extent "
              "mode, CPL-2, completes nothing)", src, or_(le(cot, D(0)), ge(n_r, D(1)))),
        _fact("CPL-POST-COVER", "(L, complement) covers the cotarget: cosize((L,R)) >= size(cotarget)", src,
              ge(cosize(make_layout(layout, r)), cot)),
        _fact("CPL-POST-BOUND", "cosize(R) <= round_up(size(cotarget), cosize(L))", src,
              le(cosize(r), ((cot + co_l - 1) / co_l) * co_l)),
        Claim("CPL-POST-ORDER", "the complement is strictly increasing: R(i) < R(i+1)", src,
              (("#i", D(0), n_r - 1),), lt(r(_I), r(_I + 1))),
        Claim("CPL-POST-DISJOINT", "the complement misses L: R(i) != L(j) for 0 < i < size(R), j < size(L)", src,
              (("#i", D(1), n_r), ("#j", D(0), size(layout))), ne(r(_I), layout(_J))),
    ]


def complement_claims(r: Layout, layout: Layout, cotarget: object = None) -> list[Claim]:
    """complement's claims for its operands as CuTe takes them: the cotarget a shape, a layout (its shape) or
    absent (``cosize(filter(L))``)."""
    return complement_claims_for(r, layout, cosize(filter(layout)) if cotarget is None else
                       (cotarget.shape if isinstance(cotarget, Layout) else cotarget))  # type: ignore[arg-type]


@declare(("L", "S|L?"), "layout.hpp:1231-1247", complement_claims, records=("CPL",), cpp=CALL,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_4,M):(_1,_4)",),
         docs=(("`complement(L, cotarget)`",
                "CuTe's contract (complement.cpp:46-66): `cosize((L,R)) >= size(cotarget)`; `cosize(R) <= "
                "round_up(size(cotarget), cosize(L))`; `R` strictly increasing; `R(i) != L(j)` for `i >= 1`",
                "CPL-1 (rank-1 or static strides: a compile error otherwise), CPL-2 (non-overlapping sorted "
                "strides, else a size-0 mode), CPL-3 (positive strides), CPL-4 (division by zero)"),))
@pure
def complement(layout: Layout, cotarget: IntTuple | Layout | None = None) -> Layout:
    """``complement(L[, cotarget])`` (layout.hpp:1231-1247): the layout of the codomain positions L misses."""
    if _semantics._open and dsl():  # read in place: no semantics block is open on the common path
        _dsl_complement_checks(layout, cotarget)
    if has_basis(layout.stride):
        # The sort's cute::min and the division min_stride / result_stride take integers only: a divide by a
        # scaled-basis tiler, whose complement this is, does not compile either (C++ and DSL alike).
        raise CuteRejection("compile error: complement of a layout with scaled-basis (E<i>) strides: no "
                            "cute::min or operator/ for ScaledBasis", "layout.hpp:1196-1201")
    fs, fd = _flat(layout)
    for d in fd:  # filter_zeros on the flat modes: a static-_0 stride makes its extent _1 (the value tested first)
        if isinstance(d, Int) and d.is_constant(0):
            fs = [_1 if isinstance(x, Int) and x.is_constant(0) else e for e, x in zip(fs, fd)]
            break
    shp, std = _bw_coalesce_modes(fs, fd, fs[-1], fd[-1])  # filter(layout)'s modes (layout.hpp:947-950)
    if cotarget is None:
        target: IntTuple = cosize(layout_of(shp[0], std[0]) if len(shp) == 1 else layout_of(tuple(shp), tuple(std)))
    else:
        target = cotarget.shape if isinstance(cotarget, Layout) else cotarget
    result = _complement(shp, std, target)
    if _obligations._open and recording():  # the contract is decided (on concrete values) only for a Recorder
        _complement_postcondition(layout, target, result)
    return result


@_not_cute
def _complement_postcondition(layout: Layout, target: IntTuple, r: Layout) -> None:
    """CuTe's contract (layout.hpp:1166-1171, complement.cpp:46-66) on concrete values: its claims
    (``complement_claims_for``) evaluated; the disjointness as a set test (``core.claim.first_failure``)."""
    if layout.concrete and r.concrete and all(x.concrete for x in leaves(target)):
        postcondition("CPL-POST", "the complement is ordered, disjoint from L, and covers the cotarget "
                      "(complement.cpp:46-66)", "layout.hpp:1166-1171",
                      lambda: complement_claims_for(r, layout, target))


# -- inverses (layout.hpp:1262-1361) ---------------------------------------------------------------------------------


def _exchange_sort(keys: list[int], vals: list[int]) -> list[int]:
    """CuTe's ``exchange_sort`` on (key, value) pairs (int_tuple.hpp:585-624); not stable, reproduced as is."""
    pairs = list(zip(keys, vals))
    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            if pairs[j][0] < pairs[i][0]:
                pairs[i], pairs[j] = pairs[j], pairs[i]
    return [v for _, v in pairs]


def _preprod(lshape: list[Int], source: str) -> list[Int]:
    """The prefix product of the shape (layout.hpp:1273, :1332)."""
    out = [S(1)]
    for s in lshape:
        with site("prefix_product", source, s, out[-1]):
            out.append(s * out[-1])
    return out


def _wrapped(layout: Layout) -> tuple[list[Int], list[Int]]:
    shape = list(layout.shape) if type(layout.shape) is tuple else [layout.shape]
    stride = list(layout.stride) if type(layout.stride) is tuple else [layout.stride]
    return shape, stride  # type: ignore[return-value]


def right_inverse_claims(r: Layout, layout: Layout) -> list[Claim]:
    """RI-POST, over the functions' values: a swizzled or composed L and R take it as they are."""
    return [_claim("RI-POST", "L(R(i)) == i for every i < size(R)", "layout.hpp:1255-1260",
                   r.size(), _I, layout(r(_I)))]


@declare(("L",), "layout.hpp:1262-1303", right_inverse_claims, records=("RI",), swizzled=True, cpp=CALL,
         dsl=(UNARY, TRACED, RECORDED), sweep=True, example=("(_4,M):(_1,_4)",),
         docs=(("`right_inverse(L)`",
                "`L(R(i)) == i` for `i < size(R)`",
                "none needed (dynamic strides are dropped, the result is conservative)"),
               ("`right_inverse(A o O o B)`, `left_inverse(A o O o B)`",
                "RI-POST `C(R(i)) == i` for `i < size(R)`; LI-3 `R(C(i)) == i` for `i < size(C)`",
                "for a swizzle A and a static `_0` offset, `inv(B) o A` (swizzle_layout.hpp:348-371), hence SW-3 on "
                "`inv(B)`; otherwise `inv(B) o -O o inv(A)`, where `-O` compiles only for a static O "
                "(swizzle_layout.hpp:389-405); those of `inv(B)`")))
def right_inverse(layout: Layout | Underscore) -> Layout | Underscore:
    """``right_inverse(L)`` (layout.hpp:1262-1303): only static strides take part; a mismatch is skipped."""
    if isinstance(layout, Underscore):
        return layout
    _dsl_plain_layout(layout, "right_inverse")
    if _swizzle.is_swizzled(layout):
        return _swizzled.right_inverse(layout, right_inverse, composition,  # type: ignore[return-value]
                                       right_inverse_claims)
    _dsl_static_shape(layout, "right_inverse")
    lshape, lstride = _wrapped(coalesce(layout))
    pre = _preprod(lshape, "layout.hpp:1273")
    idx = [i for i, d in enumerate(lstride) if d.static]
    order = _exchange_sort([lstride[i].value for i in idx], idx)  # type: ignore[misc]
    rs: list[Int] = [S(1)]
    rd: list[Int] = [S(0)]
    curr: Int = S(1)
    for i in order:
        if curr.static and curr.value == lstride[i].value:
            rs.append(lshape[i])
            rd.append(pre[i])
            with site("right_inverse", "layout.hpp:1294", lshape[i], lstride[i]):
                curr = lshape[i] * lstride[i]
    return coalesce(Layout(tuple(rs), tuple(rd)))


def _dsl_plain_layout(layout: object, op: str) -> None:
    """DSL branch of the inverses (DSL 4.8.1, observed on CUTLASS's inverse_right.cpp swizzled cases): they take a
    Layout only; a swizzled (composed) layout raises TypeError where C++ inverts it (swizzle_layout.hpp:348-405)."""
    if dsl() and _swizzle.is_swizzled(layout):
        raise DslRefusal(f"Expected input of type Layout, but got a composed layout {layout}",
                         f"cute.{op}, DSL 4.8.1 core.py (observed)")


def _dsl_static_shape(layout: Layout, op: str) -> None:
    """DSL branch of the inverses (DSL 4.8.1 ``cute.right_inverse``/``cute.left_inverse``, observed on CUTLASS's
    inverse_right.cpp cases with run-time shapes): the DSL refuses any run-time shape leaf, where C++ computes."""
    if dsl() and not all(x.static for x in leaves(layout.shape)):
        raise DslRefusal("expects an input with static shape", f"cute.{op}, DSL 4.8.1 (observed)")


def left_inverse_claims(r: Layout, layout: Layout) -> list[Claim]:
    """LI-POST and LI-3, over the functions' values (as ``right_inverse_claims``)."""
    # LI-POST is CuTe's documented contract, the quasi-inverse; LI-3 (a true inverse) needs an injective L.
    return [_claim("LI-POST", "the quasi-inverse: L(R(L(i))) == L(i) for every i < size(L)", "layout.hpp:1313-1316",
                   layout.size(), layout(_I), layout(r(layout(_I)))),
            _claim("LI-3", "R(L(i)) == i for every i < size(L)", "layout.hpp:1313-1316",
                   layout.size(), _I, r(layout(_I)))]


@declare(("L",), "layout.hpp:1321-1361", left_inverse_claims, records=("LI",), swizzled=True, cpp=CALL,
         dsl=(UNARY, TRACED, RECORDED), sweep=True, example=("(_4,M):(_1,_4)",),
         docs=(("`left_inverse(L)`",
                "`R(L(i)) == i` for `i < size(L)`",
                "LI-1 (static strides: a compile error otherwise), LI-2 (`static_assert`)"),))
def left_inverse(layout: Layout | Underscore) -> Layout | Underscore:
    """``left_inverse(L)`` (layout.hpp:1321-1361): needs static strides; shapes are only read at the end."""
    if isinstance(layout, Underscore):
        return layout
    _dsl_plain_layout(layout, "left_inverse")
    if _swizzle.is_swizzled(layout):
        return _swizzled.left_inverse(layout, left_inverse, composition,  # type: ignore[return-value]
                                      left_inverse_claims)
    _dsl_static_shape(layout, "left_inverse")
    if dsl() and not all(d.static and int(d) >= 0 for d in leaves(layout.stride)):
        # DSL branch (DSL 4.8.1, observed: left_inverse((_4):(_-1)) and of (_1):(?)): refused, where C++ computes
        # (-1,4):(0,1) for the negative stride and 1:0 for the run-time stride of a static extent-1 mode.
        raise DslRefusal(f"unable to compute the left inverse of {layout}", "cute.left_inverse, DSL 4.8.1 (observed)")
    if dsl() and any(d.is_constant(0) for d in leaves(layout.stride)):
        # DSL branch (DSL 4.8.1, observed: left_inverse(_4:_0) gives 1:0, C++ _4:_0): the static-0-stride modes
        # are filtered out first.
        return _left_inverse(filter(layout))
    return _left_inverse(layout)


def _left_inverse(layout: Layout) -> Layout:
    lshape, lstride = _wrapped(coalesce(layout))
    pre = _preprod(lshape, "layout.hpp:1332")
    if not all(d.static for d in lstride):
        raise CuteRejection("Left inverse requires static strides.", "layout.hpp:1335")
    order = _exchange_sort([d.value for d in lstride], list(range(len(lstride))))  # type: ignore[misc]
    rs: list[Int] = []
    rd: list[Int] = [S(0)]
    for i in order:
        d = lstride[i]
        if d.is_constant(0):
            continue
        sz = product(tuple(rs))
        if (d % sz).value != 0:
            raise CuteRejection("Left inverse divisibility condition", "layout.hpp:1350")
        with site("left_inverse", "layout.hpp:1352", d, sz):
            rs.append(d / sz)
        rd.append(pre[i])
    return coalesce(Layout((*rs, lshape[order[-1]]), tuple(rd)))


# -- divides and products (layout.hpp:1555-1760) ---------------------------------------------------------------------


def _zip2_by(t: IntTuple, guide: object) -> IntTuple:
    if _is_tuple_tiler(guide):
        g = _tiler_modes(guide)  # type: ignore[arg-type]
        if type(t) is not tuple or len(t) < len(g):
            raise CuteRejection("Mismatched ranks", "tuple_algorithms.hpp:1028")
        split = [_zip2_by(t[i], g[i]) for i in range(len(g))]
        return (tuple(x[0] for x in split), (*(x[1] for x in split), *t[len(g):]))  # type: ignore[index]
    if type(t) is not tuple or len(t) != 2:
        raise CuteRejection("Mismatched ranks", "tuple_algorithms.hpp:1033")
    return t


def tile_unzip(layout: Layout, tiler: Tiler) -> Layout:
    """``tile_unzip`` (layout.hpp:1540-1547): ``((A,a),(B,b),x)`` to ``((A,B),(a,b,x))`` by the tiler's profile."""
    return Layout(_zip2_by(layout.shape, tiler), _zip2_by(layout.stride, tiler))


def _slice_modes(layout: Layout, flatten_modes: Sequence[bool]) -> Layout:
    """``result(_, repeat<R1>(_))``-style slices: keep each top mode, or splice its modes when flagged."""
    out: list[Layout] = []
    # DSL branch (DSL 4.8.1, observed: flat_divide((_5):(_15), (_4):(_14)) gives (4,14):(210,15), C++
    # ((_4),_14):((_210),_15)): the DSL splices a rank-1 tuple mode too.
    least = 1 if dsl() else 2
    for m, flat in zip(_modes(layout), flatten_modes):
        # repeat<R>(_) is a tuple of underscores only for R > 1; a rank-1 mode is kept whole.
        out.extend(_modes(m) if flat and type(m.shape) is tuple and len(m.shape) >= least else [m])
    return Layout(tuple(x.shape for x in out), tuple(x.stride for x in out))


def _by_tiler(a: Layout, tiler: Tiler, with_layout: Callable[[Layout, Layout], Layout], what: str,
              source: str) -> Layout:
    """The tiler dispatch shared by logical_divide and logical_product: a layout tiler, a tuple tiler applied
    mode by mode (A's extra modes kept), ``_`` (no-op) or an integer ``n`` (meaning ``n:_1``)."""
    if isinstance(tiler, Layout):
        return with_layout(a, tiler)
    if _is_tuple_tiler(tiler):
        modes = _tiler_modes(tiler)  # type: ignore[arg-type]
        if len(modes) > rank(a):
            raise CuteRejection(f"{what}: Too many modes in tiler.", source)
        return _transform_layout(_modes(a), modes,
                                 lambda m, t: _by_tiler(m, t, with_layout, what, source))  # type: ignore[arg-type]
    if isinstance(tiler, Underscore):
        return a
    return with_layout(a, make_layout(tiler))  # type: ignore[arg-type]  # an integer n


def logical_divide_claims(r: Layout, a: Layout, tiler: object) -> list[Claim]:
    """``r``: the logical divide, ``A o (T, complement(T))`` mode by mode.  The complement in ``Z`` is what the
    statement is made of (CuTe's cotarget ``shape(coalesce(A))``), not the result."""
    out: list[Claim] = []
    for k, (x, t, rk) in enumerate(_pairs(a, tiler, r)):
        where = f" (mode {k})" if not isinstance(tiler, Layout) else ""
        target = coalesce(x).shape
        comp = complement(t, target)
        z = make_layout(t, comp)
        out += [
            _same_size("DIV-EXACT", f"the tiles cover A exactly, no padding: size(T, complement(T)) == size(A)"
                       f"{where}", "layout.hpp:1555-1582", size(x), size(z)),
            _same_size("DIV-POST-SIZE", f"size(A o Z) == size(Z) for Z = (T, complement(T, shape(A))){where}",
                       "layout.hpp:1572", size(z), size(rk)),
            _claim("DIV-POST", f"the divide is A after Z: R(i) == A(Z(i)), Z = (T, complement(T)){where}",
                   "layout.hpp:1572", size(z), x(z(_I)), rk(_I)),
            *(_rename(c, where) for c in complement_claims_for(comp, t, target)),
        ]
    return out


def logical_product_claims(r: Layout, a: Layout, tiler: object) -> list[Claim]:
    """``r``: the logical product, ``(A, complement(A, size(A)*cosize(B)) o B)`` mode by mode."""
    out: list[Claim] = []
    for k, (x, t, rk) in enumerate(_pairs(a, tiler, r)):
        where = f" (mode {k})" if not isinstance(tiler, Layout) else ""
        target = size(x) * cosize(t)
        c = complement(x, target)
        n = size(x)
        out += [
            _same_size("PRD-POST-SIZE", f"size(R) == size(A) * size(B){where}", "layout.hpp:1666",
                       n * size(t), size(rk)),
            _claim("PRD-POST", f"R(i) == A(i % size(A)) + C(B(i / size(A))), C = complement(A, size(A)*cosize(B))"
                   f"{where}", "layout.hpp:1666", n * size(t), x(_I % n) + c(t(_I / n)), rk(_I)),
            _product_compact(x, c, where),
            *(_rename(cl, where) for cl in complement_claims_for(c, x, target)),
        ]
    return out


def _product_compact(a: Layout, c: Layout, where: str) -> Claim:
    """PRD-POST-COMPACT: the copies of A that C places leave no gap, (filter(A), C) is onto [0, size): the
    repetition the products document (02_layout_algebra.md, Logical Product; CuTe's all-static complement and
    pycute's give it).  detail::complement needs a filtered layout, without size-1 modes (layout.hpp:1176): a
    run-time extent 1 is not filtered and its stride then opens a gap (blocked_product((1,_2):(_5,_1),
    (M,_2):(_1,M)) at M=2 places the tiles at 0,2,5,7, not 0,2,4,6)."""
    fa = filter(a)
    both = make_layout(fa, c)
    n = size(fa) * size(c)
    return Claim("PRD-POST-COMPACT", f"the copies of A leave no gap: (filter(A), C)(i) < size(filter(A))*size(C) for "
                 f"every i < that size, C = complement(A, size(A)*cosize(B)){where}", "layout.hpp:1656",
                 (("#i", D(0), n),), lt(both(_I), n))


# The rearranged divides and products hold the modes of the logical one: their contract is its contract, read
# from their result by undoing the rearrangement (tile_unzip, then the splices of tiled_ and flat_).


def _unzip2_by(t: IntTuple, guide: object) -> IntTuple:
    """The inverse of ``_zip2_by`` (``tile_unzip``): ``((A,B),(a,b,x))`` back to ``((A,a),(B,b),x)``."""
    if not _is_tuple_tiler(guide):
        return t
    g = _tiler_modes(guide)  # type: ignore[arg-type]
    tiles, rests = t  # type: ignore[misc]
    return (*(_unzip2_by((tiles[i], rests[i]), g[i]) for i in range(len(g))), *rests[len(g):])  # type: ignore[index]


def _unsplice(parts: list[Layout], tuples: bool) -> Layout:
    """The mode ``_slice_modes`` spliced into ``parts``: C++ keeps a rank-1 mode whole (one part is the mode), the
    DSL splices it too (one part is its only mode, when the mode is known to be a tuple: ``tuples``)."""
    return parts[0] if len(parts) == 1 and not (tuples and dsl()) else make_layout(*parts)


def _logical_of(r: Layout, tiler: object, spliced: tuple[bool, bool]) -> Layout:
    """The logical divide or product whose zipped form ``r`` is, its tile and rest modes spliced as ``spliced``
    says (tiled_: the rest; flat_: both).  A layout tiler's tile part spliced by flat_ has no count of modes to
    read: the flat result is then the same function of its index as the logical one (a splice keeps the
    colexicographic order), which is all the claims read of a result divided by a layout."""
    modes = _modes(r)
    tuples = _is_tuple_tiler(tiler)  # the tile and rest parts of a by-mode tiler's result are tuples
    if not spliced[0]:
        tiles, rest = modes[0], (_unsplice(modes[1:], tuples) if spliced[1] else modes[1])
    elif tuples:
        g = len(_tiler_modes(tiler))  # type: ignore[arg-type]
        tiles, rest = _unsplice(modes[:g], True), _unsplice(modes[g:], True)
    else:
        return r
    zipped = make_layout(tiles, rest)
    return Layout(_unzip2_by(zipped.shape, tiler), _unzip2_by(zipped.stride, tiler))


def _zipped_claims(logical: Callable[[Layout, Layout, object], list[Claim]],
                   spliced: tuple[bool, bool]) -> Callable[[Layout, Layout, object], list[Claim]]:
    def claims(r: Layout, a: Layout, tiler: object) -> list[Claim]:
        return logical(_logical_of(r, tiler, spliced), a, tiler)

    return claims


zipped_divide_claims = _zipped_claims(logical_divide_claims, (False, False))
tiled_divide_claims = _zipped_claims(logical_divide_claims, (False, True))
flat_divide_claims = _zipped_claims(logical_divide_claims, (True, True))
zipped_product_claims = _zipped_claims(logical_product_claims, (False, False))
tiled_product_claims = _zipped_claims(logical_product_claims, (False, True))
flat_product_claims = _zipped_claims(logical_product_claims, (True, True))


@declare(("L", "T"), "layout.hpp:1555-1582", logical_divide_claims, records=("DIV", "CPL"), basis=True, cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(M,N):(_1,M)", "<_128,_64>"),
         docs=(("`logical_divide(A, T)`",
                "**DIV-POST**: with `Z = make_layout(T, complement(T, size(A)))` (the documented divisor, "
                "02_layout_algebra.md:400; CuTe itself uses the cotarget `shape(coalesce(A))`, layout.hpp:1562), "
                "`size(R) == size(Z)` and `R(i) == A(Z(i))` for `i < size(Z)`, the complement meeting its contract "
                "(CPL-POST; computed on the all-static T). **DIV-EXACT**: `size(R) == size(A)`: the tiles cover A "
                "exactly (a tiler that does not divide A pads past its end: an over-approximation, the usual source "
                "of out-of-bounds accesses; recorded symbolically). A by-mode tiler `<T0,T1,...>` records both per "
                "mode",
                "those of complement on T and of composition, DIV-POST, DIV-EXACT"),))
@pure
def logical_divide(a: Layout, tiler: Tiler) -> Layout:
    """``logical_divide(A, T)`` (layout.hpp:1555-1582): ``A o (T, complement(T, shape(coalesce(A))))``, or by mode
    for a tuple tiler (extra A modes are kept)."""
    return _by_tiler(a, tiler, _divide_by_layout, "logical_divide", "layout.hpp:1572")


def _divide_by_layout(a: Layout, t: Layout) -> Layout:
    """``A o (T, complement(T, shape(coalesce(A))))`` for a layout T (layout.hpp:1562), its contract decided only
    for a Recorder."""
    r = composition(a, make_layout(t, _divisor_complement(a, t)))
    return _divide_postcondition(a, t, r) if recording() else r


def _divisor_complement(a: Layout, t: Layout) -> Layout:
    """``complement(T, shape(coalesce(A)))``. DSL branch (DSL 4.8.1, observed on logical_divide(6:1, (2,3):(3,1))
    with run-time integers): where that complement is the invalid x:x layout, the divide is refused."""
    try:
        c = complement(t, coalesce(a).shape)
    except DslInvalidLayout:
        c = None
    # DSL branch, also observed on tiled_divide((_1):(_13), ((_3,_3)):((_17,_6))) and by (_6):(_-6): a complement
    # with a static extent <= 0 (an overlapping or negative tiler; C++ rejects or computes it) is refused too.
    if c is None or (dsl() and any(x.static and int(x) <= 0 for x in leaves(c.shape))):
        raise DslRefusal(f"failed to perform a valid division of {a} by {t}", "cute.logical_divide, DSL 4.8.1 "
                         "(observed)")
    return c


@declare(("L", "T"), "layout.hpp:1606-1614", zipped_divide_claims, records=("DIV", "CPL"), basis=True, cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True,
         example=("(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0", "--assume", "N % 64 == 0"),
         docs=(("`zipped/tiled/flat_divide`",
                "a re-grouping of the modes of `logical_divide`: the same postconditions, recorded by the divide "
                "they call",
                "as logical_divide"),))
def zipped_divide(a: Layout, tiler: Tiler) -> Layout:
    """``zipped_divide`` (layout.hpp:1606-1614): ``((tile),(rest))``."""
    return tile_unzip(logical_divide(a, tiler), tiler)


@declare(("L", "T"), "layout.hpp:1617-1628", tiled_divide_claims, records=("DIV", "CPL"), basis=True, cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(M,N):(_1,M)", "<_128,_64>"))
def tiled_divide(a: Layout, tiler: Tiler) -> Layout:
    """``tiled_divide`` (layout.hpp:1617-1628): ``((tile),rest0,rest1,...)``."""
    return _slice_modes(zipped_divide(a, tiler), [False, True])


@declare(("L", "T"), "layout.hpp:1631-1643", flat_divide_claims, records=("DIV", "CPL"), basis=True, cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(M,N):(_1,M)", "<_128,_64>"))
def flat_divide(a: Layout, tiler: Tiler) -> Layout:
    """``flat_divide`` (layout.hpp:1631-1643): ``(tile0,tile1,...,rest0,rest1,...)``."""
    return _slice_modes(zipped_divide(a, tiler), [True, True])


@declare(("L", "T"), "layout.hpp:1649-1674", logical_product_claims, records=("PRD", "CPL"), cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)"),
         docs=(("`logical_product(A, B)`",
                "**PRD-POST**: with `C = complement(A, size(A)*cosize(B))` meeting its contract, `size(R) == "
                "size(A)*size(B)` and `R(i) == A(i % size(A)) + C(B(i / size(A)))` for `i < size(A)*size(B)`; "
                "**PRD-POST-COMPACT**: the copies of A leave no gap, `(filter(A), C)(i) < size(filter(A))*size(C)`; "
                "per mode for a by-mode tiler",
                "those of complement on A and of composition, PRD-POST, PRD-POST-COMPACT"),))
def logical_product(block: Layout, tiler: Tiler) -> Layout:
    """``logical_product(A, B)`` (layout.hpp:1649-1674): ``(A, complement(A, size(A)*cosize(B)) o B)``."""
    return _by_tiler(block, tiler, lambda x, t: _product_postcondition(
        x, t, make_layout(_dsl_static_block(x), composition(complement(x, _product_cotarget(x, t)), t))),
        "logical_product", "layout.hpp:1666")


def _product_cotarget(block: Layout, tiler: Layout) -> Int:
    """``size(block)*cosize(tiler)`` (layout.hpp:1656)."""
    sb, ct = size(block), cosize(tiler)
    with site("logical_product", "layout.hpp:1656", sb, ct):
        return sb * ct


def _dsl_static_block(block: Layout) -> Layout:
    """DSL branch of logical_product and the products built on it (DSL 4.8.1, observed on CUTLASS's
    logical_product.cpp cases with run-time integers): the block must be static, where C++ computes."""
    if dsl() and not all(x.static for x in (*leaves(block.shape), *leaves(block.stride))):
        raise DslRefusal(f"expects `input` to be static, but got {block}", "cute.logical_product, DSL 4.8.1 "
                         "(observed)")
    return block


@declare(("L", "T"), "layout.hpp:1687-1695", zipped_product_claims, records=("PRD", "CPL"), cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)"),
         docs=(("`zipped/tiled/flat/blocked/raked_product`",
                "re-groupings of `logical_product` (of the padded layouts for blocked/raked): PRD-POST of that "
                "product; blocked/raked give the same set of indices (their sorted values are those of the product)",
                "as logical_product"),))
def zipped_product(block: Layout, tiler: Tiler) -> Layout:
    if dsl() and not isinstance(tiler, Layout):
        # DSL branch (DSL 4.8.1 cute.zipped/tiled/flat_product, observed on zipped_product((_3):(_1), <_2>)): its
        # Python API takes only a Layout tiler ("Operand 1 ... must be a Value").
        raise DslRefusal("Operand 1 of operation \"cute.zipped_product\" must be a Value", "cute.zipped_product, "
                         "DSL 4.8.1 (observed)")
    return tile_unzip(logical_product(block, tiler), tiler)


@declare(("L", "T"), "layout.hpp:1698-1709", tiled_product_claims, records=("PRD", "CPL"), cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)"))
def tiled_product(block: Layout, tiler: Tiler) -> Layout:
    return _slice_modes(zipped_product(block, tiler), [False, True])


@declare(("L", "T"), "layout.hpp:1712-1724", flat_product_claims, records=("PRD", "CPL"), cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)"))
def flat_product(block: Layout, tiler: Tiler) -> Layout:
    return _slice_modes(zipped_product(block, tiler), [True, True])


def _append_to(layout: Layout, n: int) -> Layout:
    """``append<N>(L)``: pad with ``_1:_0`` modes to rank N (a layout already of rank N is returned as is)."""
    modes = _modes(layout)
    if len(modes) >= n:
        return layout
    return make_layout(*modes, *([Layout(S(1), S(0))] * (n - len(modes))))


def _zip_layouts(x: Layout, y: Layout) -> Layout:
    def z(a: IntTuple, b: IntTuple) -> IntTuple:
        if type(a) is tuple:
            if type(b) is not tuple or len(a) != len(b):
                raise CuteRejection("Mismatched Ranks", "tuple_algorithms.hpp:963")
            return tuple((p, q) for p, q in zip(a, b))
        return ((a, b),)  # zip of a non-tuple first element wraps the pair (tuple_algorithms.hpp:978)

    return Layout(z(x.shape, y.shape), z(x.stride, y.stride))


def _padded(a: Layout, b: Layout) -> tuple[Layout, Layout]:
    r = max(rank(a), rank(b))
    return _append_to(a, r), _append_to(b, r)


def _unzipped(r: Layout, k: int, whole: bool) -> Layout:
    """Part ``k`` of the layouts ``_zip_layouts`` paired into ``r``: mode by mode where that part was a tuple,
    else the one pair's ``k``-th element."""
    if whole:
        return Layout(r.shape[0][k], r.stride[0][k])  # type: ignore[index]
    return Layout(tuple(x[k] for x in r.shape), tuple(x[k] for x in r.stride))  # type: ignore[union-attr, index]


def blocked_product_claims(r: Layout, a: Layout, b: Layout) -> list[Claim]:
    """blocked_product re-pairs the modes of logical_product of the rank-padded layouts, ``(A', C o B')``: the
    same indices, so the claims of that product, whose modes are read back from ``r``, decide it."""
    pa, pb = _padded(a, b)
    return logical_product_claims(make_layout(pa, _unzipped(r, 1, type(pa.shape) is not tuple)), pa, pb)


def raked_product_claims(r: Layout, a: Layout, b: Layout) -> list[Claim]:
    """As blocked_product_claims, the pairs swapped: ``C o B'`` first, a tuple when B' is one (composition keeps
    B's modes) or when it gave several modes."""
    pa, pb = _padded(a, b)
    whole = type(r.shape) is tuple and len(r.shape) == 1 and type(pb.shape) is not tuple
    return logical_product_claims(make_layout(pa, _unzipped(r, 0, whole)), pa, pb)


@declare(("L", "L"), "layout.hpp:1730-1742", blocked_product_claims, records=("PRD", "CPL"), cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)"))
def blocked_product(block: Layout, tiler: Layout) -> Layout:
    """``blocked_product`` (layout.hpp:1730-1742): a 1-D product of the padded layouts, modes re-paired."""
    r = max(rank(block), rank(tiler))
    p = logical_product(_append_to(block, r), _append_to(tiler, r))
    m0, m1 = _modes(p)
    return _zip_layouts(m0, m1)


@declare(("L", "L"), "layout.hpp:1748-1760", raked_product_claims, records=("PRD", "CPL"), cpp=CALL,
         composed=BY_INNER,
         dsl=(BINARY, TRACED, RECORDED), sweep=True, example=("(_2,_2):(_1,_2)", "(M,_2):(_1,M)"))
def raked_product(block: Layout, tiler: Layout) -> Layout:
    """``raked_product`` (layout.hpp:1748-1760): as blocked_product with the tile and block modes swapped."""
    r = max(rank(block), rank(tiler))
    p = logical_product(_append_to(block, r), _append_to(tiler, r))
    m0, m1 = _modes(p)
    if dsl():
        # DSL branch (DSL 4.8.1, observed: raked_product(((_1,_3,_1)):((_21,_15,_0)), _2:_13) gives
        # ((2,3)):((13,15)), C++ ((_2,((_1,_3,_1)))):((_13,((_21,_15,_0))))): the block's part is coalesced (mode by
        # mode) before the zip. The same function, another structure; blocked_product is as in C++.
        m0 = coalesce(m0) if r == 1 else coalesce(m0, (S(1),) * r)
    return _zip_layouts(m1, m0)


# -- recast (layout.hpp:1806-1891) -----------------------------------------------------------------------------------


def _upcast(n: int, shape: IntTuple, stride: IntTuple) -> Layout:
    if type(shape) is tuple:
        return make_layout(*(_upcast(n, s, d) for s, d in zip(shape, stride)))  # type: ignore[arg-type]
    assert isinstance(shape, Int) and isinstance(stride, Int)
    if stride.is_constant(0):
        return Layout(shape, stride)
    big_n = S(n)
    if stride.static:
        dv = stride.value
        assert dv is not None
        if not (dv % n == 0 or n % dv == 0) and not dsl():
            # DSL branch (DSL 4.8.1, observed: recast_layout(16, 8, _6:_11) gives 6:6): no static_assert; the
            # same ceil_div formulas run on any static stride.
            raise CuteRejection("Divisibility condition", "layout.hpp:1816")
        k = ceil_div_int(big_n, abs_(stride))
        if k.value != 1:
            with unwatched():
                record("UP-3", f"the unit-stride extent is a multiple of {k} (else upcast rounds it up)",
                       "layout.hpp:1817", NEVER, eq(shape % k, S(0)))
        new_shape = ceil_div_int(shape, k)
        with site("upcast", "layout.hpp:1818", stride, big_n):
            return Layout(new_shape, signum(stride) * ceil_div_int(abs_(stride), big_n))
    # A nonzero multiple of N is at least N in magnitude; a 0 stride or a size-1 mode is what CuTe's per-mode
    # contract gives anyway.
    with unwatched():
        record("UP-2", f"a dynamic stride is a multiple of {n} (or its mode has size 1)",
               "layout.hpp:1820-1822", NEVER, or_(eq(shape, S(1)), eq(stride % big_n, S(0))))
    if dsl():
        return Layout(shape, _dsl_shape_div(stride, big_n))
    with site("safe_div", "layout.hpp:1822", stride, big_n):
        return Layout(shape, safe_div(stride, big_n))


def _dsl_shape_div(a: Int, b: Int) -> Int:
    """DSL branch of upcast's dynamic stride (DSL 4.8.1, observed: ``recast_layout(16, 8, 16:s)`` gives the
    strides 1,1,1,2,3,4 for s = 1,2,3,4,6,8; tests/differential/test_dsl_semantics.py): the pre-3.x ``shape_div``,
    ``a / b != 0 ? a / b : signum(a) * signum(b)``, where C++ 4.2 divides (truncating to 0)."""
    from verifier.core.integers import Op

    q = a / b
    if q.concrete:
        return q if q.value != 0 else signum(a) * signum(b)
    alt = signum(a) * signum(b)
    return Int(Op("ite", (ne(q, S(0)).expr, q.expr, alt.expr)), False)


def _recast_claims(n: int, narrow: Layout, wide: Layout, ks: list[int], what: str, prefix: str = "RC"
                   ) -> list[Claim]:
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


def upcast_claims(r: Layout, n: int, layout: Layout) -> list[Claim]:
    ks = [(-(-n // abs(int(d)))) if d.static and int(d) != 0 else 1 for d in leaves(layout.stride)]
    return _recast_claims(n, layout, r, ks, f"upcast<{n}>")


def downcast_claims(r: Layout, n: int, layout: Layout) -> list[Claim]:
    ks = [n if d.is_constant(1) or d.is_constant(-1) else 1 for d in leaves(layout.stride)]
    # For downcast the same bytes is CuTe's contract (its per-mode rule assumes one unit-stride mode): errors,
    # named apart from upcast's RC-* warnings.
    return _recast_claims(n, r, layout, ks, f"downcast<{n}>", "DN-RC")


def recast_layout_claims(r: Layout, old: int, new: int, layout: Layout) -> list[Claim]:
    g = _gcd(old, new)
    num, den = new // g, old // g
    if num == 1 and den > 1:
        return downcast_claims(r, den, layout)
    if den == 1 and num > 1:
        return upcast_claims(r, num, layout)
    return []


@declare(("L",), "layout.hpp:1809-1841", upcast_claims, records=("UP", "RC"), template=1, cpp=TEMPLATED,
         dsl=(RECAST_FORM,), composed=BY_RECAST,
         sweep=True, example=("2", "(M,K):(K,_1)"),
         docs=(("`upcast<N>(L)`",
                "**UP-POST**, the same bytes addressed: `size(R)*N == size(L)` and the multiset `{N*R(i)+k : i < "
                "size(R), k < N}` equals `{L(j) : j < size(L)}`. A negative unit stride fails it at layout level "
                "(CuTe's tensor `recast` moves the pointer for it, tensor_impl.hpp:770-776)",
                "UP-1 (`static_assert`), UP-2 (a dynamic stride must be a multiple of N, at least N), UP-3 (the "
                "unit-stride extent must be a multiple of N/|d|), UP-POST"),))
def upcast(n: int, layout: Layout) -> Layout:
    """``upcast<N>(L)``: the same memory in N-times wider elements. A dynamic stride is divided blindly."""
    _check_ratio(n, "upcast")
    return _recast_postcondition("UP-POST", n, _upcast(n, layout.shape, layout.stride), layout)


def _downcast(n: int, shape: IntTuple, stride: IntTuple) -> Layout:
    if type(shape) is tuple:
        return make_layout(*(_downcast(n, s, d) for s, d in zip(shape, stride)))  # type: ignore[arg-type]
    assert isinstance(shape, Int) and isinstance(stride, Int)
    if stride.is_constant(1) or stride.is_constant(-1):
        with site("downcast", "layout.hpp:1849", shape, S(n)):
            return Layout(shape * S(n), stride)
    if not stride.static:
        record("DN-2", "a dynamic stride is not +-1 (CuTe would treat it as a non-unit stride)", "layout.hpp:1848",
               NEVER, and_(ne(stride, S(1)), ne(stride, S(-1))))
    with site("downcast", "layout.hpp:1851", stride, S(n)):
        return Layout(shape, stride * S(n))


@declare(("L",), "layout.hpp:1844-1867", downcast_claims, records=("DN",), template=1, cpp=TEMPLATED,
         dsl=(RECAST_FORM,), composed=BY_RECAST,
         sweep=True, example=("2", "(M,K):(K,_1)"),
         docs=(("`downcast<N>(L)`",
                "**DN-POST**, the mirror: `size(R) == size(L)*N` and `{R(i)}` equals `{N*L(j)+k : j < size(L), k < "
                "N}` as multisets",
                "DN-1 (a static `_1` stride: a compile error otherwise), DN-2 (a dynamic ±1 stride is not treated "
                "as unit), DN-POST"),))
def downcast(n: int, layout: Layout) -> Layout:
    """``downcast<N>(L)``: the same memory in N-times narrower elements; needs a static ``_1`` stride."""
    _check_ratio(n, "downcast")
    # DSL branch (DSL 4.8.1, observed: recast_layout(8, 16, 16:1) with a run-time stride gives 16:2): the DSL has
    # no static_assert here; every stride that is not a static +-1 is multiplied by N.
    if not dsl() and not any(d.is_constant(1) for d in leaves(layout.stride)):
        raise CuteRejection("Downcast requires adjacent elements", "layout.hpp:1862")
    return _recast_postcondition("DN-POST", n, layout, _downcast(n, layout.shape, layout.stride))


@declare(("L",), "layout.hpp:1870-1891", recast_layout_claims, records=("UP", "DN", "RC"), template=2, cpp=RECAST,
         composed=BY_RECAST,
         dsl=(RECAST_FORM, RECORDED), sweep=True, widths=(0, 1), example=("16", "32", "(M,K):(K,_1)"),
         docs=(("`recast_layout<Old,New>(L)`",
                "`downcast`/`upcast` by the reduced ratio of bit widths, with their postconditions",
                "theirs"),))
def recast_layout(old_bits: int, new_bits: int, layout: Layout) -> Layout:
    """``recast_layout<Old,New>(L)`` by element bit widths (layout.hpp:1870-1891)."""
    if old_bits <= 0 or new_bits <= 0:
        raise LayoutError(f"recast_layout: bit widths must be positive, got {old_bits} and {new_bits}")
    if max(old_bits, new_bits) > RECAST_LIMIT:
        raise LayoutError(f"recast_layout: bit width {max(old_bits, new_bits)} is above the limit {RECAST_LIMIT} "
                          "of this tool")
    g = _gcd(new_bits, old_bits)
    num, den = new_bits // g, old_bits // g
    if num == 1 and den == 1:
        return layout
    if num == 1:
        return downcast(den, layout)
    if den == 1:
        return upcast(num, layout)
    return downcast(den, upcast(num, layout))


def _check_ratio(n: int, op: str) -> None:
    if not isinstance(n, int) or n < 1:
        raise LayoutError(f"{op}<N>: N must be a positive integer, got {n!r}")
    # The recast postconditions enumerate the N narrow elements of a wide one; no element type is this wide.
    if n > RECAST_LIMIT:
        raise LayoutError(f"{op}<N>: N = {n} is above the limit {RECAST_LIMIT} of this tool")


# -- max_common, nullspace, ordered layouts (layout.hpp:1380-1508; stride.hpp:402-465) ------------------------------


def max_common_layout_claims(r: Layout, a: Layout, b: Layout) -> list[Claim]:
    """CuTe's ``@post`` (layout.hpp:1378): ``a(R(i)) == i`` and ``b(R(i)) == i`` for every ``i < size(R)``."""
    src = "layout.hpp:1374-1394"
    return [_claim("MCL-POST-A", "a(R(i)) == i for every i < size(R)", src, size(r), _I, a(r(_I))),
            _claim("MCL-POST-B", "b(R(i)) == i for every i < size(R)", src, size(r), _I, b(r(_I)))]


@declare(("L", "L"), "layout.hpp:1380-1395", max_common_layout_claims, records=("MCL",), cpp=CALL,
         dsl=(BINARY, TRACED, RECORDED), example=("(M,N):(_1,M)", "(M,N):(_1,M)"),
         docs=(("`max_common_layout(a, b)`",
                "CuTe's `@post` (layout.hpp:1378): `a(R(i)) == i` and `b(R(i)) == i` for every `i < size(R)`",
                "MCL-POST-A, MCL-POST-B"),))
def max_common_layout(a: Layout, b: Layout) -> Layout:
    """``max_common_layout`` (layout.hpp:1380-1395)."""
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    s0 = common.shape[0] if type(common.shape) is tuple else common.shape
    d0 = common.stride[0] if type(common.stride) is tuple else common.stride
    if s0.static and d0.is_constant(1):  # type: ignore[union-attr]
        return composition(inv_b, _mode(common, 0))  # type: ignore[arg-type]
    return Layout(S(1), S(0))


def _max_common_vector(a: Layout, b: Layout) -> Int:
    """``max_common_vector`` (layout.hpp:1404-1416)."""
    common = coalesce(_swizzled.without_postconditions(lambda: composition(a, right_inverse(b))))
    s0 = common.shape[0] if type(common.shape) is tuple else common.shape
    d0 = common.stride[0] if type(common.stride) is tuple else common.stride
    if s0.static and d0.is_constant(1):  # type: ignore[union-attr]
        return s0  # type: ignore[return-value]
    return S(1)


def _nullspace(layout: Layout) -> Layout:
    """``nullspace`` (layout.hpp:1482-1508): the modes with a static ``_0`` stride (a dynamic 0 is missed)."""
    fs, fd = _flat(layout)
    iseq = [i for i, d in enumerate(fd) if d.is_constant(0)]
    if not iseq:
        return Layout(S(1), S(0))
    rstride = list(leaves(compact_major(tuple(fs))))
    return Layout(unwrap(tuple(fs[i] for i in iseq)), unwrap(tuple(rstride[i] for i in iseq)))


def compact_order(shape: IntTuple, order: IntTuple) -> IntTuple:
    """``compact_order`` (stride.hpp:402-465): dynamic order values are replaced by large static ones."""
    def product_like(t: IntTuple, guide: IntTuple) -> IntTuple:
        if type(guide) is tuple:
            if type(t) is not tuple or len(t) < len(guide):  # get<I>(shape) of a mode the shape lacks
                raise CuteRejection("compile error: the shape has fewer modes than the order (product_like)",
                                    "int_tuple.hpp:258-261")
            return tuple(product_like(x, g) for x, g in zip(t, guide))
        return product(t)

    ref_shape = list(leaves(product_like(shape, order)))
    flat_order = list(leaves(order))
    max_order = 0
    for o in flat_order:
        if o.static and max_order < int(o):
            max_order = int(o)
    ref_order = [int(o) if o.static else max_order + 1 + k for k, o in enumerate(flat_order)]
    it = iter(ref_order)

    def go(s: IntTuple, o: IntTuple) -> IntTuple:
        if type(o) is tuple:
            if type(s) is not tuple or len(s) != len(o):
                raise CuteRejection("Need equal rank of shape and order", "stride.hpp:416")
            return tuple(go(x, y) for x, y in zip(s, o))
        mine = next(it)
        start = product(tuple(rs if ro < mine else S(1) for rs, ro in zip(ref_shape, ref_order)))
        return compact_major(s, False, start)

    return go(shape, order)


def make_ordered_layout_claims(r: Layout, shape: IntTuple, order: IntTuple) -> list[Claim]:
    """``make_ordered_layout(S, O)`` is compact in the order O (layout.hpp:420-428, stride.hpp:402-465): taking
    the leaves by order (a dynamic order after every static one, ties and a mode's own leaves colexicographic),
    each stride is the product of the extents before it; an extent-1 leaf may have any stride.  That makes it a
    bijection of ``[0, size(S))`` without a quantifier."""
    flat_order = list(leaves(order))
    top = max([int(o) for o in flat_order if o.static] + [0])
    keys = [int(o) if o.static else top + 1 + k for k, o in enumerate(flat_order)]

    def slots(s: IntTuple, o: IntTuple) -> list[int]:
        if type(o) is tuple:
            return [k for x, y in zip(s, o) for k in slots(x, y)]  # type: ignore[arg-type]
        return [keys.pop(0)] * len(list(leaves(s)))

    slot = slots(shape, order)
    shapes, strides = list(leaves(r.shape)), list(leaves(r.stride))
    src = "layout.hpp:420-428"
    out: list[Claim] = []
    before: Int = D(1)
    for k in sorted(range(len(shapes)), key=lambda k: (slot[k], k)):
        out.append(_fact("ORD-COMPACT", f"leaf {k} of the result has the stride of a compact layout in the order O",
                         src, or_(eq(strides[k], before), eq(shapes[k], D(1))), before, strides[k]))
        before = before * shapes[k]
    return out


@declare(("S", "S"), "layout.hpp:422-428", make_ordered_layout_claims, records=("ORD",), cpp=CALL,
         example=("(M,N,_4)", "(_1,_0,_2)"),
         docs=(("`make_ordered_layout(S, O)`",
                "compact and injective in the order O; only static orders count (ORD-2)",
                "ORD-COMPACT"),))
def make_ordered_layout(shape: IntTuple, order: IntTuple) -> Layout:
    """``make_ordered_layout`` (layout.hpp:422-428)."""
    return Layout(shape, compact_order(shape, order))


def _bijective_onto_size(id: str, what: str, src: str, r: Layout) -> list[Claim]:
    """``R`` is a bijection of ``[0, size(R))`` onto itself: in bounds and injective."""
    n = size(r)
    return [Claim(f"{id}-BOUND", f"{what}: 0 <= R(i) < size(R) for every i < size(R)", src,
                  (("#i", D(0), n),), and_(ge(r(_I), D(0)), lt(r(_I), n)), None, r(_I)),
            Claim(f"{id}-INJ", f"{what}: R(i) != R(j) for i < j < size(R)", src,
                  (("#i", D(0), n), ("#j", _I + D(1), n)), ne(r(_I), r(_J)))]


def make_layout_like_claims(r: Layout, layout: Layout) -> list[Claim]:
    """``make_layout_like(L)`` has L's shape and is compact where L's stride is not a static 0 (those modes keep
    their 0, layout.hpp:431-445): its ``filter_zeros`` is a bijection of ``[0, size)``."""
    return _bijective_onto_size("LIKE", "make_layout_like is compact past its static-0 modes", "layout.hpp:431-445",
                                filter_zeros(r))


@declare(("L",), "layout.hpp:438-445", make_layout_like_claims, records=("LIKE",), cpp=CALL,
         dsl=(UNARY, TRACED, RECORDED),
         example=("(M,N):(N,_1)",),
         docs=(("`make_layout_like(L)`",
                "L's shape, compact where L's stride is not a static 0 (those modes keep their 0, "
                "layout.hpp:431-445): its `filter_zeros` is a bijection of `[0, size)`",
                "LIKE-BOUND, LIKE-INJ"),))
def make_layout_like(layout: Layout) -> Layout:
    """``make_layout_like`` (layout.hpp:438-445): compact, in the order of L's strides, static zeros kept."""
    fz = filter_zeros(layout)
    return Layout(layout.shape, compact_order(fz.shape, layout.stride))


@_not_cute
def evenly_divides(shape: IntTuple, tiler: Tiler) -> Bool:
    """``evenly_divides`` (int_tuple.hpp:517-534): per tiler mode, ``size(a) == size(b) * size(ceil_div(a, b))``."""
    if _is_tuple_tiler(tiler):
        modes = _tiler_modes(tiler)  # type: ignore[arg-type]
        shp = list(shape) if type(shape) is tuple else [shape]
        if len(modes) > len(shp):
            return FALSE
        return and_(*(evenly_divides(a, b) for a, b in zip(shp, modes)))  # type: ignore[arg-type]
    b_size = size(tiler) if isinstance(tiler, Layout) else product(tiler)  # type: ignore[arg-type]
    b_shape = tiler.shape if isinstance(tiler, Layout) else tiler
    return eq(product(shape), b_size * product(ceil_div(shape, b_shape)))  # type: ignore[arg-type]


def tile_to_shape_claims(r: Layout, block: Layout, target: object, order: object = "LayoutLeft") -> list[Claim]:
    """tile_to_shape's contract (layout.hpp:1764-1773): mode k of the result is (block mode k, tile count); it has
    the target's extent (TTS-SIZE) and is block mode k repeated, ``R_k(i) == block_k(i % b) + R_k(i - i % b)`` with
    ``b = size(block_k)`` (TTS-POST).  Together over the modes this is ``R(x,y) == block(x) + R(0,y)``: fix every
    other mode at 0 to see it is also necessary.  The engine decides it on symbols; on concrete operands the
    algorithm decides the same claims itself (``_tile_to_shape_postcondition``)."""
    trg = target.shape if isinstance(target, Layout) else target
    extents = product_each(trg)  # type: ignore[arg-type]
    extents = extents if type(extents) is tuple else (extents,)
    modes = _modes(r)
    padded = _modes(_append_to(block, len(modes)))
    out: list[Claim] = []
    src = "layout.hpp:1764-1773"
    for k, (rk, bk, t) in enumerate(zip(modes, padded, extents)):
        b = size(bk)
        out += [_same_size("TTS-SIZE", f"mode {k} of the result has the target's extent", src, t, size(rk)),  # type: ignore[arg-type]  # t: an Int
                _claim("TTS-POST", f"mode {k} of the result is block mode {k} repeated", src, size(rk),
                       bk(_I % b) + rk((_I / b) * b), rk(_I))]
    return out


@declare(("L", "S", "O?"), "layout.hpp:1774-1799", tile_to_shape_claims, records=("TTS",), cpp=CALL,
         dsl=(TRACED, RECORDED), composed=BY_INNER,
         sweep=True, example=("(_4,_8):(_8,_1)", "(M,N)"),
         docs=(("`tile_to_shape(block, trg)`",
                "**TTS-POST**: the result's top modes have the sizes of `product_each(trg)` (`compatible(trg, R)` "
                "at mode level, the `@post` of layout.hpp:1773), and R is the block repeated: "
                "`R((x0,y0),(x1,y1),...) == block(x0,x1,...) + R((0,y0),(0,y1),...)` for every block coordinate x "
                "and tile coordinate y",
                "TTS-1 (`static_assert`), TTS-2 (the block divides a dynamic target), TTS-POST, and PRD-POST of the "
                "blocked product"),))
def tile_to_shape(block: Layout, target: IntTuple, order: IntTuple | str = "LayoutLeft") -> Layout:
    """``tile_to_shape`` (layout.hpp:1774-1799): replicate ``block`` over ``target`` by a blocked product whose
    tile counts are ``ceil_div(target, block)`` (rounded up when the target is dynamic: TTS-2)."""
    trg = target.shape if isinstance(target, Layout) else target
    r = len(trg) if type(trg) is tuple else 1
    if rank(block) > r:
        raise CuteRejection("Rank of layout must be <= rank of target shape.", "layout.hpp:1782")
    padded = _append_to(block, r)
    block_shape = product_each(padded.shape)
    target_shape = product_each(trg)
    if all(x.static for x in leaves(target_shape)):
        ok = evenly_divides(target_shape, block_shape)
        if not ok.static:
            raise CuteRejection("compile error: evenly_divides of a dynamic block is a run-time bool",
                                "layout.hpp:1792")
        if not ok.value:
            raise CuteRejection("tile_to_shape: block shape does not divide the target shape.", "layout.hpp:1793")
    else:
        with unwatched():  # evenly_divides runs only for a static target (layout.hpp:1790-1794)
            record("TTS-2", "the block shape divides the target shape (else the result is larger than the "
                   "target)", "layout.hpp:1791", NEVER, evenly_divides(target_shape, block_shape))
    product_shape = ceil_div(target_shape, block_shape)
    if isinstance(order, str):
        ordered = make_layout(product_shape, order)
    else:
        ordered = make_ordered_layout(product_shape, order)
    return _tile_to_shape_postcondition(padded, target_shape, blocked_product(padded, ordered))


# -- postconditions of divides, products, recasts, tile_to_shape, nullspace, max_common_vector ---------------------
# Decided by enumeration on concrete values (sizes up to POSTCONDITION_LIMIT), like CMP-POST: each states what the
# result must be for the layout the user asked for, independently of the algorithm CuTe ran. docs/semantics.md.


def _post(ok: bool) -> Bool:
    return Bool(Const(ok), False)


def _as_static(layout: Layout) -> Layout:
    return Layout(transform_leaf(layout.shape, lambda x: S(int(x))), transform_leaf(layout.stride, lambda x: S(int(x))))


def _enumerable(*layouts: Layout) -> bool:
    return enumerating() and all(x.concrete and int(size(x)) <= POSTCONDITION_LIMIT for x in layouts)


@_not_cute
def _reference_complement(layout: Layout, cotarget: int) -> Layout | None:
    """``complement(L, cotarget)`` as the all-static algorithm gives it (no unmerged dynamic modes), or None when
    CuTe rejects it or it is no complement: it must be strictly increasing, miss L's values (but at 0) and cover
    the cotarget (complement.cpp:46-66). The contract's bound on its cosize is left out: a last mode rounded past
    the cotarget changes neither a divide's tiles (DIV-EXACT sees the size) nor a product's placements. A negative
    stride of an extent above 1 has no complement (CPL-3, spec §5)."""
    if any(int(d) < 0 and int(x) != 1 for x, d in zip(leaves(layout.shape), leaves(layout.stride))):
        return None
    try:
        with Recorder():
            c = complement(_as_static(layout), S(cotarget))
    except (CuteRejection, UndefinedBehavior):
        return None
    if not _enumerable(layout, c):
        return c if int(size(c)) >= 1 else None
    cv, lv = c.values(), set(layout.values())
    ok = (all(x < y for x, y in zip(cv, cv[1:])) and not any(v in lv for v in cv[1:])
          and int(cosize(make_layout(layout, c))) >= cotarget)
    return c if ok else None


@_not_cute
def _divide_postcondition(a: Layout, t: Layout, r: Layout) -> Layout:
    """DIV-EXACT and DIV-POST for ``logical_divide(A, T)`` by a layout T (per mode for a by-mode tiler)."""
    if not recording():
        return r
    record("DIV-EXACT", "the tiles cover A exactly, size(R) == size(A) (else the last tiles pad past A's end)",
           "layout.hpp:1555-1563", NEVER, Bool(eq(size(r), size(a)).expr, False), CLAUSE)
    if not enumerating() or not (a.concrete and t.concrete and r.concrete) or int(size(a)) > POSTCONDITION_LIMIT:
        return r
    c = _reference_complement(t, int(size(a)))
    ok = False
    if c is not None:
        z = make_layout(t, c)
        nz = int(size(z))
        ok = nz == int(size(r))
        if ok and nz <= POSTCONDITION_LIMIT:
            ok = all(bool(same_values(r(i), a(int(z(i)))).value) for i in range(nz))
    record("DIV-POST", "R(i) == A(Z(i)) and size(R) == size(Z) for Z = (T, complement(T, size(A))), a complement "
           "that meets its contract", "layout.hpp:1555-1563", NEVER, _post(ok), POSTCONDITION)
    return r


@_not_cute
def _product_postcondition(a: Layout, b: Layout, r: Layout) -> Layout:
    """PRD-POST for ``logical_product(A, B)`` by a layout B (per mode for a by-mode tiler)."""
    if not (a.concrete and b.concrete and r.concrete) or not _enumerable(a, b):
        return r
    sa, sb = int(size(a)), int(size(b))
    c = _reference_complement(a, sa * int(cosize(b)))
    ok = c is not None and int(size(r)) == sa * sb
    if ok and sa * sb <= POSTCONDITION_LIMIT:
        assert c is not None
        bv = b.values()
        # B places the copies of A inside C's domain; a B value outside it (a negative stride) has no place.
        ok = all(0 <= v < int(size(c)) for v in bv) and all(
            int(r(i)) == int(a(i % sa)) + int(c(bv[i // sa])) for i in range(sa * sb))
    record("PRD-POST", "R(i) == A(i % size(A)) + C(B(i / size(A))) and size(R) == size(A)*size(B) for "
           "C = complement(A, size(A)*cosize(B)) a complement, B's values in C's domain", "layout.hpp:1649-1657",
           NEVER, _post(ok), POSTCONDITION)
    return r


@_not_cute
def _recast_postcondition(id: str, n: int, wide: Layout, narrow: Layout) -> Layout:
    """UP-POST (``wide`` is the result) and DN-POST (``narrow`` is): the same bytes addressed, each wide element
    covering N narrow ones: size(wide)*N == size(narrow), {N*wide(i)+k : k < N} == {narrow(j)} as multisets."""
    result = wide if id == "UP-POST" else narrow
    if not enumerating() or not (wide.concrete and narrow.concrete):
        return result
    ok = int(size(wide)) * n == int(size(narrow))
    if ok and _enumerable(narrow):
        ok = sorted(n * int(wide(i)) + k for i in range(int(size(wide))) for k in range(n)) == sorted(narrow.values())
    what = "upcast" if id == "UP-POST" else "downcast"
    record(id, f"{what}<{n}> addresses the same bytes: each wide element is N consecutive narrow ones, none lost "
           "or added", "layout.hpp:1801-1803", NEVER, _post(ok), POSTCONDITION)
    return result


@_not_cute
def _tile_to_shape_postcondition(block: Layout, target: IntTuple, r: Layout) -> Layout:
    """TTS-POST on concrete values: R has the target's mode sizes (``compatible(trg_shape, result)``,
    layout.hpp:1773; the TTS-SIZE claims) and, where it is small enough to enumerate, is the block repeated (the
    TTS-POST claims of ``tile_to_shape_claims``)."""
    if not enumerating() or not (block.concrete and r.concrete and all(x.concrete for x in leaves(target))):
        return r
    claims = tile_to_shape_claims(r, block, target)
    ok = len(_modes(r)) == len(target) and all(  # type: ignore[arg-type]  # target: a tuple here
        first_failure(c) is None for c in claims if c.id == "TTS-SIZE")
    if ok and _enumerable(r):
        ok = all(first_failure(c) is None for c in claims if c.id == "TTS-POST")
    record("TTS-POST", "the result has the target's mode sizes and is the block repeated: R(x,y) == block(x) + "
           "R(0,y)", "layout.hpp:1764-1773", NEVER, _post(ok), POSTCONDITION)
    return r


def nullspace_claims(r: Layout, layout: Layout) -> list[Claim]:
    """NUL-POST (layout.hpp:1477-1480, docs/semantics.md): ``L(R(i)) == 0`` for ``i < size(R)``, and ``size(R)``
    is the product of the extents of every flat mode whose stride is 0 at run time (a dynamic 0 included)."""
    zero: Int = D(1)
    for s, d in zip(leaves(layout.shape), leaves(layout.stride)):
        zero = zero * Int(Op("ite", (eq(d, D(0)).expr, s.expr, D(1).expr)), False)
    src = "layout.hpp:1477-1508"
    return [_same_size("NUL-POST-SIZE", "size(R) is the product of the extents of the zero-stride modes", src,
                       zero, size(r)),
            _claim("NUL-POST", "L(R(i)) == 0 for every i < size(R)", src, size(r), D(0), layout(r(_I)))]


@declare(("L",), "layout.hpp:1482-1508", nullspace_claims, records=("NUL",), cpp=CALL, dsl=(UNARY, TRACED, RECORDED),
         example=("(M,_2,N):(_1,_0,M)",),
         docs=(("`nullspace(L)`",
                "**NUL-POST**: `L(R(i)) == 0` for `i < size(R)`, and `size(R)` is the product of the extents of "
                "*every* flat mode whose stride is 0 at run time. CuTe's own `@post` (`size(L)/size(filter(L))`, "
                "layout.hpp:1477-1480) shares the blind spot for a dynamic 0 stride, so NUL-POST counts by value",
                "NUL-POST"),))
def nullspace(layout: Layout) -> Layout:
    """``nullspace`` (layout.hpp:1482-1508): the modes with a static ``_0`` stride (a dynamic 0 is missed).
    Its contract, NUL-POST, is ``nullspace_claims``."""
    if dsl() and type(layout.shape) is not tuple and layout.stride.is_constant(0):  # type: ignore[union-attr]
        # DSL branch (DSL 4.8.1 cute.nullspace, observed on nullspace(_6:_0)): its Python code takes len() of the
        # shape of the zero-stride part, so a layout that is one integer mode of stride _0 raises TypeError.
        raise DslRefusal("object of type 'int' has no len()", "cute.nullspace, DSL 4.8.1 (observed)")
    return _nullspace(layout)


def max_common_vector_claims(n: Int, a: Layout, b: Layout) -> list[Claim]:
    """MCV-POST (layout.hpp:1404): for ``n < N``, ``j = b.get_1d_coord(n)`` lies in both domains, ``b(j) == n``
    and ``a(j) == n``.  ``get_1d_coord`` is exact for the compact layouts CuTe means; for others this is a
    sufficient condition, so a refutation is confirmed by the algebra's enumeration (``CONFIRM_BY_ORACLE``)."""
    j = crd2idx(idx2crd(_I, b.shape, b.stride), b.shape)
    src = "layout.hpp:1398-1416"
    return [_sufficient(Claim("MCV-J", "for n < N: j = get_1d_coord(n) of b lies in both domains and b(j) == n",
                              src, (("#i", D(0), n),), and_(lt(j, size(a)), lt(j, size(b)), eq(b(j), _I)), _I, b(j))),
            _sufficient(_claim("MCV-A", "for n < N: a(j) == n at j = get_1d_coord(n) of b", src, n, _I, a(j)))]


@declare(("L", "L"), "layout.hpp:1404-1416", max_common_vector_claims, result=INDEX, records=("MCV",), cpp=CALL,
         dsl=(BINARY, TRACED), example=("(M,N):(_1,M)", "(M,N):(_1,M)"),
         docs=(("`max_common_vector(a, b)`",
                "**MCV-POST**: for `n < N`, the first 1-D coordinate `j` with `b(j) == n` exists, lies in both "
                "domains (`j < size(a)`, `j < size(b)`) and `a(j) == n` (CuTe's `@post`, layout.hpp:1402, without "
                "the domain clause, holds for the over-long vectors of spec §11); **MCV-1**: `size(a) == size(b)` "
                "(never checked, recorded symbolically)",
                "those of composition on `a o right_inverse(b)`, MCV-1, MCV-POST"),))
def max_common_vector(a: Layout, b: Layout) -> Int:
    """``max_common_vector`` (layout.hpp:1404-1416). MCV-1: a and b have the same domain; MCV-POST: the first N
    elements of memory are the same 1-D coordinates of both, within both domains."""
    n = _max_common_vector(a, b)
    _mcv_postcondition(a, b, n)
    return n


@_not_cute
def _mcv_postcondition(a: Layout, b: Layout, n: Int) -> None:
    record("MCV-1", "a and b cover the same domain: size(a) == size(b)", "layout.hpp:1396-1403", NEVER,
           Bool(eq(size(a), size(b)).expr, False))
    if n.concrete and _enumerable(a, b):
        first: dict[int, int] = {}
        for j in range(int(size(b))):
            first.setdefault(int(b(j)), j)
        ok = all(k in first and first[k] < int(size(a)) and int(a(first[k])) == k for k in range(int(n)))
        record("MCV-POST", "for n < N: the coordinate j with b(j) == n lies in both domains and a(j) == n",
               "layout.hpp:1398-1403", NEVER, _post(ok), POSTCONDITION)


# -- slicing and partitioning (layout.hpp:689-703; underscore.hpp:95-133; tensor_impl.hpp:976-1110) -----------------

Coord = Union[IntTuple, Underscore, tuple["Coord", ...]]


@dataclass(frozen=True)
class OffsetLayout:
    """A tensor view as CuTe builds it when it slices: the new layout and the offset added to the pointer
    (``make_tensor(data() + offset, layout)``, tensor_impl.hpp:237-239). Printed as CuTe prints a tensor,
    ``offset o layout``."""

    layout: Layout
    offset: Int

    def __str__(self) -> str:
        return f"{self.offset} o {self.layout}"


def _has_underscore(c: object) -> bool:
    if isinstance(c, Underscore):
        return True
    return type(c) is tuple and any(_has_underscore(x) for x in c)


def _lift_slice(c: object, t: IntTuple) -> list[IntTuple]:
    """``detail::lift_slice`` (underscore.hpp:95-110): the elements of ``t`` under an ``_``, spliced flat."""
    if type(c) is tuple:
        if type(t) is not tuple or len(c) != len(t):
            raise CuteRejection("Mismatched Ranks", "underscore.hpp:103")
        return [x for ci, ti in zip(c, t) for x in _lift_slice(ci, ti)]
    return [t] if isinstance(c, Underscore) else []


def _slice_tuple(c: object, t: IntTuple) -> IntTuple:
    """``slice(c, t)`` (underscore.hpp:114-130): ``slice(_, t) == t``; a tuple keeps what its ``_``s cover."""
    if type(c) is tuple:
        if type(t) is not tuple or len(c) != len(t):
            raise CuteRejection("Mismatched Ranks", "underscore.hpp:121")
        return tuple(x for ci, ti in zip(c, t) for x in _lift_slice(ci, ti))
    return t if isinstance(c, Underscore) else ()


def _underscore_as_zero(c: object) -> IntTuple:
    # CuTe's Underscore is an Int<0> (underscore.hpp:41), so crd2idx reads every _ as a static 0.
    if type(c) is tuple:
        return tuple(_underscore_as_zero(x) for x in c)
    return S(0) if isinstance(c, Underscore) else c  # type: ignore[return-value]


def slice_layout(coord: Coord, layout: Layout) -> Layout:
    """``slice(c, L)`` (layout.hpp:689-695): the modes of L under an ``_`` of ``c``, nested ones spliced."""
    if not _has_underscore(coord):
        raise LayoutError("slice: the coordinate has no '_' (CuTe would evaluate L(c), not slice)")
    return Layout(_slice_tuple(coord, layout.shape), _slice_tuple(coord, layout.stride))


def slice_and_offset(coord: Coord, layout: Layout) -> OffsetLayout:
    """``slice_and_offset(c, L)`` (layout.hpp:698-703): ``slice(c, L)`` and ``crd2idx(c, L)`` with ``_`` as 0."""
    sliced = slice_layout(coord, layout)
    if has_basis(layout.stride):  # a coordinate tensor's offset is itself a coordinate (an ArithmeticTuple)
        return OffsetLayout(sliced, layout(_underscore_as_zero(coord)))
    return OffsetLayout(sliced, crd2idx(_underscore_as_zero(coord), layout.shape, layout.stride))


SLICE_IN = "every integer of the coordinate lies in the extent of the mode it indexes"


def record_slice_in(coord: Coord, shape: IntTuple, source: str) -> None:
    """SLICE-IN, a warning of every slice a user asks for: past the end or below 0 the view addresses elements
    outside the tensor (CuTe never checks it)."""
    record("SLICE-IN", SLICE_IN, source, NEVER, _bounds(coord, shape))


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


def slice_claims(r: Layout, coord: object, layout: Layout) -> list[Claim]:
    """``slice(c, L)`` is the layout of ``slice_and_offset(c, L)``: it differs from ``L`` by that offset, which is
    what the statement is made of."""
    offset = crd2idx(_underscore_as_zero(coord), layout.shape, layout.stride)
    return _slice_claims(coord, layout, r, offset)


def slice_and_offset_claims(view: OffsetLayout, coord: object, layout: Layout) -> list[Claim]:
    return _slice_claims(coord, layout, view.layout, view.offset)


@declare(("C", "L"), "layout.hpp:689-695", slice_claims, name="slice", records=("SLICE", "SLC"), cpp=SLICE,
         indices=(0,), composed=BY_SLICE,
         example=("(_,2)", "(M,N):(_1,M)"),
         docs=(("`slice(c, L)`, `slice_and_offset(c, L)`",
                "`slice(c, L)` keeps the modes of L under an `_` of `c`, nested ones spliced flat "
                "(underscore.hpp:95-130), and the offset is `crd2idx(c, L)` with every `_` a static 0 "
                "(layout.hpp:698-703)",
                "**SLICE-IN** (a warning: each integer of `c` inside its mode's extent; past the end or below 0 the "
                "view leaves the tensor); a coordinate without `_` is bad input (CuTe would evaluate `L(c)`)"),))
def slice_view(coord: Coord, layout: Layout) -> Layout:
    """The ``slice`` operation a user asks for: ``slice_layout`` with SLICE-IN recorded."""
    record_slice_in(coord, layout.shape, "layout.hpp:689-695")
    return slice_layout(coord, layout)


@declare(("C", "L"), "layout.hpp:698-703", slice_and_offset_claims, name="slice_and_offset", result=OFFSET_LAYOUT,
         composed=BY_SLICE,
         records=("SLICE", "SLC"), cpp=SLICE, indices=(0,), example=("(_,2)", "(M,N):(_1,M)"),
         docs=(("`slice_and_offset(c, Sw o O o L)`, `slice(c, Sw o O o L)`",
                "**SLICE-POST**: the view addresses what the tensor did, `R(i) + offset == Sw(O + L(c with i at the "
                "_ modes))` for every `i` of the slice. CuTe 4.2 (swizzle_layout.hpp:226-298) reshapes for an "
                "all-`_` coordinate, keeps the swizzle (`Sw o offset_only_zy o slice`, the offset a `MixedBits` "
                "`M_S|(d&F)=v` when run-time bits are involved) when the remaining layout hits a Y bit and its Z "
                "bit, and otherwise decays to a plain layout whose strides are static or run-time as the offset's "
                "bits are. Three unchecked assumptions make it wrong: the offset is combined with the sliced-off "
                "part by XOR (a carry between `O` and `L(c)` is lost), the keep/decay choice reads only *static* "
                "active bits (a run-time extent of the remaining layout decays a swizzle that had to be kept), and "
                "that combination is a `uint32_t` (`make_mixed_bits`'s flags are `uint32_t`, so even its static "
                "result is a `C<uint32_t>`, and `int ^ uint32_t` is unsigned): a negative offset's view lies 2^32 "
                "elements further (`Sw<1,0,1> o -512 o (_16,_8):(_8,_1)` sliced at `(1,_)` is `8 o Sw<1,0,1> o "
                "4294966784 o (_8):(_1)`). A swizzle spanning 32 bits (`M+B+",
                "S|= 32`, any mask at bit 31) does not compile where the slice decays (`Int<(1 << 32)>`, "
                "swizzle_layout.hpp:290). A non-swizzle `A o O o B` slices B and folds its offset into O "
                "(layout_composed.hpp:327-342); an `smem_ptr` flag survives only the all-`_` slice|**SLICE-POST** "
                "(one condition over the coordinate's symbols, for a slice of static size up to 4096, judged at "
                "every admitted coordinate, past the end and below 0 too) and **SLICE-IN** (a warning: each integer "
                "of `c` inside its mode's extent); `to_mixed_bits`'s static shape*stride (a compile error for a "
                "run-time diced mode, swizzle.hpp:442)"),))
def slice_and_offset_view(coord: Coord, layout: Layout) -> OffsetLayout:
    """The ``slice_and_offset`` operation a user asks for: ``slice_and_offset`` with SLICE-IN recorded."""
    record_slice_in(coord, layout.shape, "layout.hpp:698-703")
    return slice_and_offset(coord, layout)


def _append_coord(coord: tuple[Coord, ...], n: int) -> tuple[Coord, ...]:
    """``append<N>(coord, _)`` (tuple_algorithms.hpp:778-799): pad with ``_`` to rank N."""
    if len(coord) > n:
        raise CuteRejection("static assertion failed: N > tuple_size<T>::value", "tuple_algorithms.hpp:787")
    return coord + (Underscore(),) * (n - len(coord))


def _repeat_underscore(n: int) -> Coord:
    """``repeat<N>(_)`` (tuple_algorithms.hpp:715-727): ``_`` itself for N == 1."""
    return Underscore() if n == 1 else (Underscore(),) * n


@_not_cute
def _bounds(coord: Coord, shape: IntTuple) -> Bool:
    """IX-2: each integer of ``coord`` lies in the extent of the mode it indexes; an ``_`` takes the whole mode."""
    if isinstance(coord, Underscore):
        return Bool(Const(True), True)
    if type(coord) is tuple:
        return and_(*(_bounds(c, s) for c, s in zip(coord, shape)))  # type: ignore[arg-type]
    return and_(le(S(0), coord), lt(coord, product(shape)))  # type: ignore[arg-type]


def dice(proj: object, x: object) -> object:
    """``dice(a, b)`` (underscore.hpp:138-175): keep the elements of ``b`` paired with an integer of ``a``, drop
    those paired with ``_`` (CuTe's ``X``), recursively; ``dice(1, b) == b``.  A ``Step<_1,X,_1>`` projection is
    such an ``a``; a layout is diced shape and stride alike (layout.hpp:706-712), a tiler element by element."""
    if isinstance(x, Layout):
        return Layout(dice(proj, x.shape), dice(proj, x.stride))  # type: ignore[arg-type]
    if type(proj) is tuple:
        elements = x.elements if isinstance(x, Tile) else x
        if type(elements) is not tuple or len(elements) != len(proj):
            raise CuteRejection("Mismatched Ranks", "underscore.hpp:169")
        kept = tuple(y for a, b in zip(proj, elements) for y in _lift_dice(a, b))
        return Tile(kept) if isinstance(x, Tile) else kept  # type: ignore[arg-type]  # the elements of the tile x
    if isinstance(proj, Underscore):
        return ()
    return x


def _lift_dice(a: object, b: object) -> tuple[object, ...]:
    if type(a) is tuple:
        if type(b) is not tuple or len(a) != len(b):
            raise CuteRejection("Mismatched Ranks", "underscore.hpp:149")
        return (tuple(y for x, z in zip(a, b) for y in _lift_dice(x, z)),)
    return () if isinstance(a, Underscore) else (b,)


def local_tile_claims(view: OffsetLayout, layout: Layout, tiler: object, coord: object,
                      proj: object = None) -> list[Claim]:
    """``local_tile`` is ``zipped_divide`` then a slice: the divide's claims and the slice's (tensor_impl.hpp); the
    divide is what the slice's statement is made of.  A projection dices tiler and coordinate first
    (tensor_impl.hpp:1058-1069)."""
    if proj is not None:
        tiler, coord = dice(proj, tiler), dice(proj, coord)
    tiled = zipped_divide(layout, tiler)  # type: ignore[arg-type]
    r0, r1 = rank(tiled, 0), rank(tiled, 1)
    rest = _append_coord(coord, r1) if type(coord) is tuple else coord
    c = (_repeat_underscore(r0), rest)
    return zipped_divide_claims(tiled, layout, tiler) + _slice_claims(c, tiled, view.layout, view.offset,
                                                                      " (the tile)")


@declare(("L", "T", "C", "C?"), "tensor_impl.hpp:976-1069", local_tile_claims, result=OFFSET_LAYOUT,
         records=("IX-2", "DIV", "CPL", "SLC"), basis=True, cpp=TENSOR, dsl=(RECORDED,), indices=(2,),
         through="zipped_divide",
         example=("(M,N):(_1,M)", "<_128,_64>", "(1,1)"),
         docs=(("`local_tile(A, T, c)`",
                "CuTe's `inner_partition` (tensor_impl.hpp:976-1044): `zipped_divide(A, T)` sliced at "
                "`(repeat<R0>(_), append<R1>(c, _))` (a non-tuple `c` indexes the whole rest mode); the result is "
                "the tile's layout and the offset added to the pointer",
                "**IX-2**: every integer of `c` lies in the extent of the rest mode it indexes (never checked); "
                "those of the divide (DIV-EXACT: a partial last tile)"),))
def local_tile(layout: Layout, tiler: Tiler, coord: Coord, proj: object = None) -> OffsetLayout:
    """``local_tile(tensor, tiler, coord)`` = ``inner_partition`` (tensor_impl.hpp:976-1044) on the tensor's
    layout: ``zipped_divide`` by the tiler, keep the tile mode, slice the rest mode at ``coord`` (a tuple is
    padded with ``_`` to the rest mode's rank; an integer indexes the whole rest mode).  With a projection
    (``Step<_1,X,_1>``), tiler and coordinate are first diced by it (tensor_impl.hpp:1058-1069)."""
    if proj is not None:
        tiler, coord = dice(proj, tiler), dice(proj, coord)  # type: ignore[assignment]
    tiled = zipped_divide(layout, tiler)
    r0, r1 = rank(tiled, 0), rank(tiled, 1)
    rest = _append_coord(coord, r1) if type(coord) is tuple else coord
    view = slice_and_offset((_repeat_underscore(r0), rest), tiled)
    record("IX-2", "the tile coordinate lies inside the grid of tiles (else the tile is outside the tensor)",
           "tensor_impl.hpp:990-996", NEVER, _bounds(rest, tiled.shape[1]))  # type: ignore[index]
    return view


def local_partition_claims(view: OffsetLayout, layout: Layout, thr: Layout, index: Int,
                           proj: object = None) -> list[Claim]:
    """``local_partition`` is ``zipped_divide`` by the thread shape then a slice at the thread's coordinate.  A
    projection dices the thread layout, the index still that of the whole layout (tensor_impl.hpp:1099-1111)."""
    if proj is not None:
        thr = dice(proj, thr)  # type: ignore[assignment]
    shp = thr.shape
    tiler = product_each(shp)
    tiled = zipped_divide(layout, tiler)
    hier = idx2crd(index, shp, thr.stride)
    r = rank(thr)
    flat = crd2crd(hier, shp, S(1) if r == 1 else (S(1),) * r)
    r0, r1 = rank(tiled, 0), rank(tiled, 1)
    first = _append_coord(flat, r0) if type(flat) is tuple else flat
    c = (first, _repeat_underscore(r1))
    return zipped_divide_claims(tiled, layout, tiler) + _slice_claims(c, tiled, view.layout, view.offset,
                                                                      " (the thread's elements)")


@declare(("L", "L", "I", "C?"), "tensor_impl.hpp:1076-1111", local_partition_claims, result=OFFSET_LAYOUT,
         records=("IX", "DIV", "CPL", "SLC"), cpp=TENSOR, dsl=(RECORDED,), indices=(2,), through="zipped_divide",
         example=("(M,N):(_1,M)", "(_2,_2):(_1,_2)", "1"),
         docs=(("`local_partition(A, thr, i)`",
                "CuTe's `outer_partition` by `product_each(shape(thr))` at `thr.get_flat_coord(i)` "
                "(tensor_impl.hpp:1076-1087): the thread's elements and its offset",
                "**IX-2**: `0 <= i < size(thr)`; **IX-3**: `thr(get_hier_coord(i)) == i` for `i` in `[0, "
                "size(thr))`, a compact thread layout (layout.hpp:244-253; an index past the layout is IX-2's "
                "warning alone); those of the divide"),))
def local_partition(layout: Layout, thr_layout: Layout, index: Int, proj: object = None) -> OffsetLayout:
    """``local_partition(tensor, thr_layout, index)`` (tensor_impl.hpp:1076-1087): ``outer_partition`` by
    ``product_each(shape(thr_layout))`` at ``thr_layout.get_flat_coord(index)``: keep the rest mode (the
    elements of that thread), slice the tile mode at the thread's coordinate.  With a projection, the thread
    layout is diced first and the index is taken in the diced layout (tensor_impl.hpp:1099-1111)."""
    if not isinstance(thr_layout, Layout):
        raise LayoutError("local_partition: the thread layout must be a Layout (CuTe takes Layout<Shape,Stride>)")
    if not isinstance(index, Int):
        raise CuteRejection("static assertion failed: is_integral<Index>::value", "tensor_impl.hpp:1083")
    # The index ranges over the whole thread layout; a projection keeps some of its modes, each with its stride,
    # so the diced layout's coordinate of the index is the projection of the whole layout's coordinate.
    full = thr_layout
    if proj is not None:
        thr_layout = dice(proj, thr_layout)  # type: ignore[assignment]
    shp, std = thr_layout.shape, thr_layout.stride
    with unwatched():
        n_thr = product(full.shape)
        record("IX-2", "the thread index lies in [0, size(thr_layout))", "tensor_impl.hpp:1079-1081", NEVER,
               and_(le(S(0), index), lt(index, n_thr)))
    hier = idx2crd(index, shp, std)  # get_hier_coord (layout.hpp:252): "only valid for compact layouts"
    full_hier = idx2crd(index, full.shape, full.stride)
    # Compactness is a property of the thread layout over its own threads: an index past it (IX-2's warning)
    # wraps in idx2crd whatever the layout, so it is not held against the layout here.
    record("IX-3", "thr_layout maps the thread's coordinate back to its index (a compact thread layout)",
           "layout.hpp:248-253", NEVER, _guarded(lambda: or_(lt(index, S(0)), le(n_thr, index),
                                                            eq(crd2idx(full_hier, full.shape, full.stride), index))))
    r = rank(thr_layout)
    flat = crd2crd(hier, shp, S(1) if r == 1 else (S(1),) * r)  # get_flat_coord (layout.hpp:263-265)
    tiled = zipped_divide(layout, product_each(shp))
    r0, r1 = rank(tiled, 0), rank(tiled, 1)
    thr = _append_coord(flat, r0) if type(flat) is tuple else flat
    return slice_and_offset((thr, _repeat_underscore(r1)), tiled)


# -- one entry point for tools ---------------------------------------------------------------------------------------


def coalesce_x_profile(layout: Layout, profile: object) -> Layout:
    """``detail::coalesce_x(L, profile)`` (layout.hpp:841-853): ``coalesce_x`` at the terminals of the profile,
    L's modes beyond the profile kept as they are."""
    if type(profile) is not tuple:
        return coalesce_x(layout)
    if len(profile) > rank(layout):
        raise CuteRejection("static assertion failed: tuple_size<IntTuple>::value <= Layout::rank", "layout.hpp:848")
    modes = _modes(layout)
    out = [coalesce_x_profile(m, p) for m, p in zip(modes, profile)]
    return make_layout(*out, *modes[len(profile):])


@_not_cute
def basis_composition_postcondition(a: Layout, b: Layout, r: Layout, limit: int) -> None:
    """The contract of composition (layout.hpp:1022) when A's or B's values are coordinates: its claims
    (``composition_claims``: ``R(i) == A(B(i))``, B's values read as coordinates of A and values compared component
    by component) evaluated on concrete values."""
    record("CMP-POST-SIZE", "the result has the size of B: size(A o B) == size(B)", "layout.hpp:1022", NEVER,
           _eq_size(size(r), size(b)), CLAUSE)
    if enumerating() and a.concrete and b.concrete and r.concrete:
        postcondition("CMP-POST", "the result is A after B: (A o B)(i) == A(B(i)) for every i < size(B), B's values "
                      "being coordinates of A", "layout.hpp:1022", lambda: composition_claims(r, a, b), limit)


def _eq_size(x: Int, y: Int) -> Bool:
    return eq(x, y)
