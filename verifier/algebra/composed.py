"""The layout algebra on composed layouts (``Sw o O o L``), as CuTe 4.2 defines it, and how the engine decides it.

CuTe forwards every divide, product, ``tile_to_shape``, ``coalesce`` and ``filter`` of a ``ComposedLayout<A,O,B>``
to its inner layout and re-wraps the result: ``composition(A, O, op(B, ...))`` (layout_composed.hpp:446-582).
``upcast<N>`` / ``downcast<N>`` act on all three parts (:584-600): the swizzle's base moves by ``log2 N``
(swizzle_layout.hpp:411-437), the offset is divided (``safe_div``, swizzle.hpp:384-390) or multiplied, the
inner layout is recast; ``recast_layout`` picks them by the ratio of bit widths (:602-622).

Deciding them: the result is ``A(O + op(B)(i))`` while the postcondition asks for ``A(O + B(Z(i)))`` (or the
analogous form of each operation), so when ``A`` is a swizzle whose masks stay below bit 31, a bijection
(``swizzle_props``), the operation on the
composed layout is correct exactly when the operation on ``B`` is.  The engine therefore decides ``op(B, ...)``
symbolically and reports it for the composed operand.  For an outer layout the transfer holds one way
(``outer_layout_problem``): ``op(B)`` valid proves the composed operation valid, and a refutation of ``op(B)``
counts only where it replays on the composed operand itself (else the verdict is ``unknown``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeGuard

from verifier.algebra import ops as algebra
from verifier.algebra.declare import BY_INNER, BY_RECAST, BY_SLICE, DECLARED, collect
from verifier.algebra.swizzled import without_postconditions
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import Bool, Const, Int, S
from verifier.core.layouts import Layout, Tile
from verifier.core.obligations import NEVER, POSTCONDITION, POSTCONDITION_LIMIT, record, recording
from verifier.core.swizzle import ComposedLayout, SmemPtrFlag, Swizzle, compose3


def __getattr__(name: str) -> frozenset[str]:
    """``FORWARDED``: the operations CuTe forwards to the inner layout of a composed first operand
    (layout_composed.hpp:446-582); ``RECASTS``, ``SLICES`` (algebra/composed_slice.py), and all of them,
    ``OPERATIONS``: from their declarations (``Operation.composed``), read on first use (the registry imports this
    module)."""
    kinds = {"FORWARDED": (BY_INNER,), "RECASTS": (BY_RECAST,), "SLICES": (BY_SLICE,),
             "OPERATIONS": (BY_INNER, BY_RECAST, BY_SLICE)}
    if name not in kinds:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return frozenset(n for n, r in collect().items() if r.composed in kinds[name])


def _kind(op: str) -> str:
    row = DECLARED.get(op) or collect().get(op)
    return "" if row is None else row.composed


def _log2(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise CuteRejection(f"{what}: N must be a power of two", "swizzle_layout.hpp:416")
    return n.bit_length() - 1


def upcast_swizzle(n: int, sw: Swizzle) -> Swizzle:
    """``upcast<N>(Swizzle<B,M,S>)`` (swizzle_layout.hpp:411-424): ``M - log2 N``, clamping at 0 by dropping bits."""
    new_m = sw.base - _log2(n, "upcast")
    if new_m >= 0:
        return Swizzle(sw.bits, new_m, sw.shift)
    return Swizzle(max(sw.bits + new_m, 0), 0, sw.shift)


def downcast_swizzle(n: int, sw: Swizzle) -> Swizzle:
    """``downcast<N>(Swizzle<B,M,S>)`` (swizzle_layout.hpp:426-434): ``M + log2 N``."""
    return Swizzle(sw.bits, sw.base + _log2(n, "downcast"), sw.shift)


def _recast_offset(n: int, o: Int, up: bool) -> Int:
    """``upcast<N>(o)`` is ``safe_div(o, C<N>)``, ``downcast<N>(o)`` is ``o * C<N>`` (swizzle.hpp:384-407); neither
    overload takes a run-time ``int`` (layout_composed.hpp:590 does not compile with one)."""
    if not o.static:
        raise CuteRejection(f"compile error: no matching function for call to {'upcast' if up else 'downcast'}<{n}>"
                            "(const int&) for the run-time offset", "layout_composed.hpp:590")
    if not up:
        return o * S(n)
    v = int(o)
    if v % n:
        raise CuteRejection("Safe divide", "int_tuple.hpp (safe_div)")
    return S(v // n)


def _recast_part(n: int, f: object, up: bool) -> object:
    if isinstance(f, Swizzle):
        return upcast_swizzle(n, f) if up else downcast_swizzle(n, f)
    if isinstance(f, ComposedLayout):
        return recast_composed(n, f, up)
    return (algebra.upcast if up else algebra.downcast)(n, f)  # type: ignore[arg-type]


def recast_composed(n: int, c: ComposedLayout, up: bool) -> object:
    """``upcast<N>`` / ``downcast<N>`` of a composed layout (layout_composed.hpp:584-600), with the postcondition
    of the whole function (the parts' own are superseded): UP-POST / DN-POST, the same bytes addressed."""
    if n < 1:
        raise LayoutError(f"{'upcast' if up else 'downcast'}<N>: N must be a positive integer, got {n}")

    if isinstance(c.offset, SmemPtrFlag) and isinstance(c.outer, Swizzle):  # pointer_flagged.hpp:70-84
        return without_postconditions(lambda: recast_flagged(n, c, up))
    # Always a ComposedLayout, even for an identity swizzle: the recast offset is a C<0u> (upcast<uint32_t N>),
    # which the identity overload composition(Swizzle<0,M,S>, Int<0>, Layout) does not take (swizzle_layout.hpp:305).
    result = without_postconditions(lambda: ComposedLayout(
        _recast_part(n, c.outer, up), _recast_offset(n, c.offset, up),  # type: ignore[arg-type]
        _recast_part(n, c.inner, up)))  # type: ignore[arg-type]
    _same_bytes("UP-POST" if up else "DN-POST", n, result if up else c, c if up else result)
    return result


def _same_bytes(id: str, n: int, wide: object, narrow: object) -> None:
    """``size(wide)*N == size(narrow)`` and ``{N*wide(i)+k : k < N} == {narrow(j)}`` as multisets, decided on
    concrete values (the swizzle's unit: a swizzle recast below its base ``M`` loses bits and fails this)."""
    if not recording() or not all(getattr(f, "concrete", False) for f in (wide, narrow)):
        return
    try:
        nw, nn = int(wide.size()), int(narrow.size())  # type: ignore[attr-defined]
        ok = nw * n == nn
        if ok and nn <= POSTCONDITION_LIMIT:
            ok = sorted(n * int(wide(i)) + k for i in range(nw) for k in range(n)) == sorted(  # type: ignore[operator]
                int(narrow(j)) for j in range(nn))  # type: ignore[operator]
        elif ok:
            return
    except (LayoutError, CuteRejection):
        return
    what = "upcast" if id == "UP-POST" else "downcast"
    record(id, f"{what}<{n}> addresses the same bytes: each wide element is N consecutive narrow ones, none lost "
           "or added (the swizzle included)", "layout_composed.hpp:584-600", NEVER, Bool(Const(ok), False),
           POSTCONDITION)


def recast_layout_composed(old_bits: int, new_bits: int, c: ComposedLayout) -> object:
    """``recast_layout<Old,New>`` of a composed layout (layout_composed.hpp:602-622)."""
    from math import gcd

    if old_bits <= 0 or new_bits <= 0:
        raise LayoutError(f"recast_layout: bit widths must be positive, got {old_bits} and {new_bits}")
    g = gcd(new_bits, old_bits)
    num, den = new_bits // g, old_bits // g
    if num == 1 and den == 1:
        return c
    if num == 1:
        return recast_composed(den, c, up=False)
    if den == 1:
        return recast_composed(num, c, up=True)
    up = recast_composed(num, c, up=True)
    if not isinstance(up, ComposedLayout):
            return algebra.downcast(den, up)  # type: ignore[arg-type]
    return recast_composed(den, up, up=False)


def forward(op: str, fn: Callable[..., object], args: tuple[object, ...]) -> object:
    """``op`` on a composed first operand: ``composition(A, O, op(B, rest...))``, or the recasts."""
    c = args[0]
    assert isinstance(c, ComposedLayout)
    if op == "filter" and len(args) == 1:
        raise CuteRejection(f"compile error: no matching function for call to filter({c}): CuTe filters a composed "
                            "layout only by a profile", "layout_composed.hpp:557-563")
    if isinstance(c.inner, Swizzle):
        raise CuteRejection(f"compile error: {op} of {c}: its inner function is a swizzle, which has no shape",
                            "layout_composed.hpp")
    return compose3(c.outer, c.offset, fn(c.inner, *args[1:]))  # type: ignore[arg-type]


def takes_composed(op: str, args: tuple[object, ...]) -> bool:
    """Whether CuTe has an overload of ``op`` taking these operands with a composed layout."""
    if _kind(op) == BY_INNER:
        return bool(args) and isinstance(args[0], ComposedLayout) and not any(
            isinstance(a, (ComposedLayout, Swizzle)) for a in args[1:])
    if op in ("upcast", "downcast") or _kind(op) == BY_SLICE:
        return len(args) == 2 and isinstance(args[1], ComposedLayout)
    return op == "recast_layout" and len(args) == 3 and isinstance(args[2], ComposedLayout)


def apply_composed(op: str, fn: Callable[..., object], args: tuple[object, ...]) -> object:
    """CuTe's overload of ``op`` for operands that ``takes_composed`` accepts."""
    if _kind(op) == BY_INNER:
        return forward(op, fn, args)
    if op in ("upcast", "downcast"):
        return recast_composed(args[0], args[1], up=op == "upcast")  # type: ignore[arg-type]
    if _kind(op) == BY_SLICE:
        from verifier.algebra.composed_slice import check_coordinate, slice_and_offset_composed
        from verifier.algebra.ops import OffsetLayout

        check_coordinate(args[0])
        layout, offset = slice_and_offset_composed(args[0], args[1])  # type: ignore[arg-type]
        return layout if op == "slice" else OffsetLayout(layout, offset)  # type: ignore[arg-type]
    return recast_layout_composed(args[0], args[1], args[2])  # type: ignore[arg-type]


TRANSFER = "decided on the inner layout: the swizzle outside is a bijection (composed_ops.py)"


def inner_problem(op: str, args: list[object]) -> list[object] | None:
    """For a swizzle-outer composed operand, the operands of the equivalent problem on its inner layout (the
    verdict transfers exactly, see the module docstring), else None."""
    if _kind(op) == BY_INNER and args and _swizzle_outer(args[0]):
        return [args[0].inner, *args[1:]]
    if op == "composition" and len(args) == 2 and _swizzle_outer(args[0]) and not _swizzled_tiler(args[1]):
        return [args[0].inner, args[1]]  # layout_composed.hpp:370-377: composition(A, O, composition(B, T))
    return None


ONE_WAY = ("decided on the inner layout: the result is A(O + op(B)(i)), the postcondition A(O + B(Z(i))), so a "
           "correct op(B) makes it correct (composed.py)")


def outer_layout_problem(op: str, args: list[object]) -> list[object] | None:
    """For a composed operand whose outer function is a layout (``A o O o B``, A not a swizzle), the operands of
    the problem on its inner layout: the transfer holds one way (``op`` on B valid makes ``op`` on the composed
    operand valid, CuTe forwarding the call, layout_composed.hpp:370-377, 446-582), else None."""
    if not args or not isinstance(args[0], ComposedLayout):
        return None
    c = args[0]
    if not (isinstance(c.outer, Layout) and not isinstance(c.outer, ComposedLayout) and isinstance(c.inner, Layout)
            and not isinstance(c.inner, ComposedLayout) and isinstance(c.offset, Int)):
        return None
    if _kind(op) == BY_INNER or (op == "composition" and len(args) == 2 and not _swizzled_tiler(args[1])):
        return [c.inner, *args[1:]]
    return None


def _swizzled_tiler(t: object) -> bool:
    if isinstance(t, Tile):
        return any(_swizzled_tiler(e) for e in t.elements)
    return isinstance(t, (ComposedLayout, Swizzle))


def _swizzle_outer(x: object) -> TypeGuard[ComposedLayout]:
    # A swizzle whose mask reaches bit 31 is no bijection (swizzle.hpp:66-68, core/swizzle.py): a refutation on the
    # inner layout would not transfer, so such a composed layout keeps the route of any other outer function.
    return isinstance(x, ComposedLayout) and isinstance(x.outer, Swizzle) and isinstance(x.inner, Layout) \
        and x.outer.sign_free


__all__ = ["FORWARDED", "ONE_WAY", "OPERATIONS", "apply_composed", "takes_composed",  # noqa: F822 - declared
           "downcast_swizzle", "inner_problem", "outer_layout_problem", "recast_composed", "recast_layout_composed",
           "upcast_swizzle"]


def recast_flagged(n: int, c: ComposedLayout, up: bool) -> ComposedLayout:
    """``upcast<N>`` / ``downcast<N>`` of ``Sw o smem_ptr[Bb] o L`` (pointer_flagged.hpp:70-84): the swizzle is
    kept (it acts on bytes), the flag becomes ``B*N`` / ``B/N`` bits, ``L`` is recast."""
    assert isinstance(c.offset, SmemPtrFlag)
    bits = c.offset.bits * n if up else c.offset.bits // n
    inner = (algebra.upcast if up else algebra.downcast)(n, c.inner)  # type: ignore[arg-type]
    return ComposedLayout(c.outer, SmemPtrFlag(bits) if bits else Int(Const(0), True), inner)
