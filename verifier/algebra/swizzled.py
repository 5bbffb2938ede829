"""CuTe's overloads of the algebra for swizzles and composed layouts (``swizzle_layout.hpp``,
``layout_composed.hpp``), each reproduced with its checks.

* ``composition(Sw, L)`` is ``Sw o _0 o L``, or ``L`` for an identity swizzle (swizzle_layout.hpp:305-325);
* ``composition(L, Sw)`` builds ``make_swizzle<L(yyy), L(zzz)>() o _0 o L`` (:327-341): L must be static
  (a compile error otherwise), and CuTe NEVER checks that L is XOR-linear on the swizzled bits, so the result can
  be silently wrong; obligation SW-3 records ``R(i) == L(Sw(i))``, decided on the (always concrete) values;
* ``composition(Sw0, Sw1)`` merges masks (swizzle.hpp:119-131); ``composition(C, T)`` composes C's inner layout
  (layout_composed.hpp:370-377); ``composition(L, C)`` needs a static ``_0`` offset (CMP-8, :379-389);
* ``right_inverse`` / ``left_inverse`` of a composed layout (swizzle_layout.hpp:348-405; layout_composed.hpp:415-429),
  including CuTe's "Kludge" offset inverse ``-O``, which compiles only for a static offset.

These overloads call back into the operation on plain layouts (CuTe's overload resolution); that operation is
passed in by ``algebra.ops``, which dispatches here, so this module sits below it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from verifier.algebra.declare import DECLARED, LAYOUT
from verifier.core.basis import has_basis
from verifier.core.claim import Claim, postcondition
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.integers import Bool, Const, Int, S, eq
from verifier.core.layouts import Layout, Tile
from verifier.core.obligations import (
    CLAUSE,
    NEEDS,
    NEVER,
    POSTCONDITION_LIMIT,
    Recorder,
    record,
    recording,
)
from verifier.core.swizzle import (
    ComposedLayout,
    Fn,
    SmemPtrFlag,
    Swizzle,
    compose3,
    compose_swizzles,
    is_swizzled,
    make_swizzle,
)

# The whole ``composition`` and ``right_inverse`` / ``left_inverse`` of ``ops``, which take every operand kind
# although their annotations name only the plain-layout overload.
Compose = Callable[[Any, Any], Fn]
Invert = Callable[[Any], object]
Contract = Callable[..., list[Claim]]  # an operation's claim builder, ``builder(result, *operands)``
_T = TypeVar("_T")


def _static_mask_image(a: Layout, mask: int, name: str) -> int:
    """``a(mask)`` as the ``uint32_t`` template argument of ``make_swizzle`` (swizzle_layout.hpp:335-340)."""
    src = "swizzle_layout.hpp:340"
    try:
        v = a(S(mask))
    except UndefinedBehavior:
        raise CuteRejection(f"compile error: {name} divides by a static zero", src) from None
    if type(v) is not Int:
        raise CuteRejection(f"compile error: {name} = {v} is not an integer", src)
    if not v.static:
        raise CuteRejection(f"compile error: {name} = L({mask}) is a run-time value, not usable in a constant "
                            "expression (the layout must be static)", src)
    if not 0 <= int(v) < 1 << 31:
        raise CuteRejection(f"compile error: {name} = {int(v)} is not a valid uint32_t template argument", src)
    return int(v)


def compose_layout_swizzle(a: Layout, sw: Swizzle) -> Fn:
    """``composition(L, Sw)`` (swizzle_layout.hpp:327-341): ``make_swizzle<L(yyy), L(zzz)>() o _0 o L``."""
    y = _static_mask_image(a, sw.yyy_msk, "active_Y")
    z = _static_mask_image(a, sw.zzz_msk, "active_Z")
    result = compose3(make_swizzle(y, z), S(0), a)
    # A static L can still have run-time extents CuTe never reads; the condition over them is left to the engine.
    n = int(a.size()) if a.concrete else POSTCONDITION_LIMIT + 1
    if n <= POSTCONDITION_LIMIT:
        ok = all(int(result(i)) == int(a(sw(i))) for i in range(n))
        record("SW-3", f"L is XOR-linear on the bits {sw} swizzles: (L o Sw)(i) == L(Sw(i)) for every i < size(L) "
               "(\"Works in simple cases\", swizzle_layout.hpp:338)", "swizzle_layout.hpp:327-341", NEVER,
               Bool(Const(ok), False))
    return result


def _require_zero_offset(c: ComposedLayout) -> None:
    """CMP-8: ``CUTE_STATIC_ASSERT_V(b.offset() == Int<0>{})`` (layout_composed.hpp:386)."""
    if not c.offset.static:
        raise CuteRejection("compile error: the offset is a run-time integer, so offset == Int<0>{} is a run-time "
                            "bool in CUTE_STATIC_ASSERT_V", "layout_composed.hpp:386")
    if not c.offset.is_constant(0):
        raise CuteRejection("Require offset == 0.", "layout_composed.hpp:386")


def composition(a: object, b: object, compose: Compose, contract: Contract) -> Fn:
    """CuTe's ``composition`` overloads for swizzle and composed operands (see the module docstring); ``compose``
    is the whole ``composition``, which the inner layouts go back to, ``contract`` its claims
    (``ops.composition_claims``)."""
    if isinstance(a, ComposedLayout):  # layout_composed.hpp:370-377: any tiler composes with the inner layout
        return compose3(a.outer, a.offset, compose(a.inner, b))
    if isinstance(a, Swizzle):
        if isinstance(b, Swizzle):
            return compose_swizzles(a, b)
        if isinstance(b, Layout):
            return compose3(a, S(0), b)
        raise CuteRejection(f"compile error: no composition({a}, {b}): a swizzle composes only with a layout or a "
                            "swizzle", "swizzle_layout.hpp:317-325")
    if not isinstance(a, Layout):
        raise LayoutError(f"composition: cannot use {a!r} as the left operand")
    if isinstance(b, Swizzle):
        return compose_layout_swizzle(a, b)
    if isinstance(b, ComposedLayout):  # layout_composed.hpp:379-389
        _require_zero_offset(b)
        # The two inner compositions' own postconditions are replaced by the postcondition of the whole.
        result = without_postconditions(lambda: compose(compose(a, b.outer), b.inner))
        _composed_postcondition(a, b, result, contract)
        return result
    raise LayoutError(f"composition: cannot use {b!r} as the right operand")


def without_postconditions(run: Callable[[], _T]) -> _T:
    """Run a sub-computation and record what it needs, not its postconditions: those of the whole operation
    supersede them."""
    if not recording():
        return run()
    with Recorder() as rec:
        out = run()
    for o in rec.obligations:
        if o.kind == NEEDS:
            record(o.id, o.description, o.source, o.cute_checks, o.condition)
    return out


def _composed_postcondition(a: Layout, b: ComposedLayout, r: Fn, contract: Contract) -> None:
    """``size(R) == size(B)`` and ``R(i) == A(B(i))`` for every i < size(B), decided on concrete values: the claims
    of composition (``contract``, stated over the functions' values) evaluated."""
    try:
        record("CMP-POST-SIZE", "the result has the size of B: size(A o B) == size(B)", "layout.hpp:1022", NEVER,
               eq(r.size(), b.size()), CLAUSE)  # type: ignore[union-attr]  # R is never a bare swizzle
    except (LayoutError, UndefinedBehavior):
        pass
    if not (a.concrete and b.concrete and getattr(r, "concrete", False)):
        return
    try:
        postcondition("CMP-POST", "the result is A after B: (A o B)(i) == A(B(i)) for every i < size(B)",
                      "layout.hpp:1022", lambda: contract(r, a, b),
                      undefined_fails=False)
    except LayoutError:
        return


def check_plain_composition(a: object, b: object) -> None:
    """What ``algebra.composition`` does not model: scaled-basis strides on both sides, and by-mode tilers with
    swizzled elements."""
    if isinstance(a, Layout) and has_basis(a.stride) and isinstance(b, Layout) and has_basis(b.stride):
        raise LayoutError(f"composition: scaled-basis strides on both sides ({a} o {b}) are not modelled")
    if isinstance(b, Tile) and any(is_swizzled(e) for e in b.elements):
        raise LayoutError(f"composition: a tiler with swizzled elements ({b}) is not modelled")


# -- inverses (swizzle_layout.hpp:348-405; layout_composed.hpp:415-429) --------------------------------------------


def _offset_inverse(o: Int, which: str) -> Int:
    """The "Kludge" ``right_inverse(T t) -> -t`` (swizzle_layout.hpp:389-405): it is declared after the templates
    that call it, so only argument-dependent lookup finds it, which works for ``Int<t>`` (in namespace cute) and
    not for a run-time ``int``."""
    if not o.static:
        raise CuteRejection(f"compile error: no matching function for call to {which}_inverse(int) for the "
                            "run-time offset", "swizzle_layout.hpp:356")
    return -o


def _inverse(x: Swizzle | ComposedLayout, which: str, invert: Invert, compose: Compose) -> Fn:
    def inv(f: Fn) -> Fn:
        if isinstance(f, Swizzle):
            return f  # a swizzle is its own inverse (swizzle_layout.hpp:373-387)
        if isinstance(f, ComposedLayout):
            return _inverse(f, which, invert, compose)
        # The inverse of a part has its own postcondition; the postcondition of the whole replaces it.
        return without_postconditions(lambda: invert(f))  # type: ignore[return-value]

    if isinstance(x, Swizzle):
        return x
    if isinstance(x.outer, Swizzle):  # swizzle_layout.hpp:348-371
        if x.offset.is_constant(0):
            return compose(inv(x.inner), x.outer)
        inner = inv(x.inner)
        return compose3(inner, _offset_inverse(x.offset, which), x.outer)
    inner = inv(x.inner)  # layout_composed.hpp:415-429
    return compose3(inner, _offset_inverse(x.offset, which), inv(x.outer))


def _inverse_postcondition(which: str, x: Fn, r: Fn, contract: Contract) -> None:
    """RI-POST (right) or LI-3 (left) decided on concrete values: the inverse's claims (``contract``:
    ``ops.right_inverse_claims``, ``ops.left_inverse_claims``, stated over the functions' values) evaluated."""
    if not (x.concrete and r.concrete) or isinstance(r if which == "right" else x, Swizzle):
        return
    try:
        if which == "right":
            postcondition("RI-POST", "L(R(i)) == i for every i < size(R)", "layout.hpp:1255-1260",
                          lambda: contract(r, x), undefined_fails=False)
        else:
            postcondition("LI-3", "R(L(i)) == i for every i < size(L)", "layout.hpp:1313-1316",
                          lambda: [c for c in contract(r, x) if c.id == "LI-3"], undefined_fails=False)
    except LayoutError:
        return


def right_inverse(x: Swizzle | ComposedLayout, invert: Invert, compose: Compose, contract: Contract) -> Fn:
    """``right_inverse`` of a swizzle or a composed layout; ``invert`` is the whole ``right_inverse``, ``contract``
    its claims."""
    result = _inverse(x, "right", invert, compose)
    _inverse_postcondition("right", x, result, contract)
    return result


def left_inverse(x: Swizzle | ComposedLayout, invert: Invert, compose: Compose, contract: Contract) -> Fn:
    """``left_inverse`` of a swizzle or a composed layout; ``invert`` is the whole ``left_inverse``, ``contract``
    its claims."""
    result = _inverse(x, "left", invert, compose)
    _inverse_postcondition("left", x, result, contract)
    return result


# -- contracts over the functions' values ------------------------------------------------------------------------


def evaluable(*fns: object) -> bool:
    """Functions whose value at a symbolic index is an integer expression: plain layouts (no scaled basis),
    swizzles, or composed layouts of those with an integer offset (an smem_ptr flag's byte semantics aside)."""
    return all(_evaluable(f) for f in fns)


def _evaluable(f: object) -> bool:
    if isinstance(f, Swizzle):
        return True
    if isinstance(f, ComposedLayout):
        return (not isinstance(f.offset, SmemPtrFlag) and type(f.offset) is Int and _evaluable(f.outer)
                and _evaluable(f.inner) and not isinstance(f.inner, Swizzle))
    return isinstance(f, Layout) and not has_basis(f.stride)


def claims(op: str, args: Sequence[object], result: object) -> list[Claim] | None:
    """The contract of ``op`` on operands of which one is swizzled: its declared claims, which are stated over the
    functions' values (CMP-POST, RI-POST, LI-POST and LI-3), where the operands and the result are functions whose
    values are integer expressions (a symbolic swizzle bit by bit); None when these operands are not of that kind
    or ``op`` takes no swizzled operand (``declare.Operation.swizzled``)."""
    row = DECLARED.get(op)
    if row is None or not row.swizzled or row.result != LAYOUT:
        return None
    # a bare swizzle functor is a function too, as the outer operand of a binary operation (CuTe's swizzle atoms:
    # composition(Swizzle<3,3,3>{}, Layout<...>{}))
    fns = [a for k, a in enumerate(args)
           if (isinstance(a, Layout | ComposedLayout) or (len(args) == 2 and k == 0 and isinstance(a, Swizzle)))
           and _evaluable(a)]
    if len(fns) != len(args) or not isinstance(result, Layout | ComposedLayout) or not _evaluable(result):
        return None
    if isinstance(fns[-1], Swizzle):  # a swizzle as the operand the contract enumerates: no domain to state it on
        return None
    return row.claims()(result, *fns)
