"""``slice_and_offset`` of a composed layout, as CuTe 4.2 computes it: the swizzle kept or decayed.

Two overloads (CuTe 4.2):

* ``ComposedLayout<A,O,B>`` (layout_composed.hpp:327-334): slice ``B``, fold its offset into ``O``; the pointer
  offset is ``_0``.
* ``ComposedLayout<Swizzle<B,M,S>,O,L>`` (swizzle_layout.hpp:226-298): an all-``_`` coordinate only reshapes.
  Otherwise the coordinate is split by ``dice`` into the consumed part and the rest; the consumed part's
  contribution to the swizzle's Y and Z bits (``offset_only_zy``) is tracked as ``MixedBits`` (swizzle.hpp:141-176:
  which bits are static, which dynamic) and the rest (``offset_anti_zy``) goes to the pointer.  If the remaining
  layout hits a Y bit and the Z bit it is XORed into, the swizzle is kept (``Sw o offset_only_zy o slice``);
  otherwise it decays into a plain layout whose strides (``make_swizzle_strides``, :182-222) depend on the bits of
  ``offset_only_zy``: static where those bits are, run-time values where they are not.

Every static/dynamic distinction follows CuTe's types exactly (printing ``72`` vs ``_72`` differs), so the
values are reproduced as ``Int`` (static or run-time, symbolic allowed) and :class:`MixedBits`.  The bitwise
operations on a symbolic run-time value are written bit by bit (``swizzle._bit``) and are exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import Bool, Const, Int, Op, S
from verifier.core.layouts import Layout, Underscore
from verifier.core.swizzle import ComposedLayout, Swizzle, _bit, compose3

SOURCE = "swizzle_layout.hpp"
_U32 = (1 << 32) - 1


class MixedBits(Int):
    """``MixedBits<S,F>{d}`` (swizzle.hpp:141-158): the uint32 ``S | (d & F)``, bits ``S`` static, bits ``F``
    run-time. CuTe prints it ``M_S|(d&F)=value`` (swizzle.hpp:482-486)."""

    __slots__ = ("s", "f", "d")
    s: int
    f: int
    d: Int

    def __init__(self, s: int, f: int, d: Int) -> None:
        super().__init__((S(s) + d).expr if s else d.expr, False)
        object.__setattr__(self, "s", s)
        object.__setattr__(self, "f", f)
        object.__setattr__(self, "d", d)

    def __eq__(self, other: object) -> bool:
        return type(other) is MixedBits and (other.s, other.f, other.d) == (self.s, self.f, self.d)

    def __hash__(self) -> int:
        return hash(("mixed", self.s, self.f, self.d))

    def __str__(self) -> str:
        if self.d.concrete:
            return f"M_{self.s}|({int(self.d)}&{self.f})={self.s | int(self.d)}"
        return f"M_{self.s}|({self.d}&{self.f})"

    def substitute(self, values: Mapping[str, int]) -> MixedBits:
        from verifier.core.integers import substitute

        return MixedBits(self.s, self.f, substitute(self.d, values))


Value = Union[Int, MixedBits]


def _dyn(v: int) -> Int:
    return Int(Const(v), False)


def _bits(mask: int) -> list[int]:
    return [b for b in range(32) if mask >> b & 1]


# The bits of every symbolic value built here from its bits: extracting them again from the sum (with / and %)
# would nest each step's expression inside the next, exponentially.
_BITS: dict[object, dict[int, Int]] = {}


def _bit_of(x: Int, b: int) -> Int:
    if x.concrete:
        return _dyn(int(x) >> b & 1)
    known = _BITS.get(x.expr)
    if known is not None:
        return known.get(b, _dyn(0))
    return _bit(x, b)


def _from_bits(terms: list[tuple[int, Int]]) -> Int:
    """``sum(bit * 2^b)``: a run-time value from its bits."""
    out = _dyn(0)
    for b, bit in terms:
        out = out + bit * S(1 << b)
    if all(t.concrete for _, t in terms):
        return _dyn(int(out))
    if len(_BITS) > 1 << 16:
        _BITS.clear()
    _BITS[out.expr] = {b: t for b, t in terms}
    return Int(out.expr, False)


def _mixed_bit(s: int, d: Int, b: int) -> Int:
    """Bit ``b`` of ``S | d`` (``d`` has no bit of ``S``)."""
    return _dyn(1) if s >> b & 1 else _bit_of(d, b)


def _and(x: Int, mask: int) -> Int:
    """``x & mask`` of a run-time ``x`` (``mask`` static)."""
    if x.concrete:
        return _dyn(int(x) & mask)
    return _from_bits([(b, _bit_of(x, b)) for b in _bits(mask & _U32)])


def _xor_bit(a: Int, c: Int) -> Int:
    if a.concrete and c.concrete:
        return _dyn(int(a) ^ int(c))
    if a.concrete or c.concrete:
        k, y = (a, c) if a.concrete else (c, a)
        return y if int(k) == 0 else S(1) - y
    return Int(Op("ite", (Op("==", (a.expr, c.expr)), Const(0), Const(1))), False)


def _xor(x: Int, y: Int, mask: int = _U32, xs: int = 0, ys: int = 0) -> Int:
    """``((xs | x) ^ (ys | y)) & mask`` of run-time values (``xs``, ``ys`` static bits outside ``x``, ``y``)."""
    if x.concrete and y.concrete:
        return _dyn(((xs | int(x)) ^ (ys | int(y))) & mask)
    return _from_bits([(b, _xor_bit(_mixed_bit(xs, x, b), _mixed_bit(ys, y, b))) for b in _bits(mask)])


def make_mixed_bits(s: int, d: Int, f: int) -> Value:
    """``make_mixed_bits(C<s>, d, C<f>)`` (swizzle.hpp:160-176): static when no run-time bit is left."""
    new_f = f & ~s & _U32
    if new_f == 0 or d.static:
        return S(s | (int(d) & new_f)) if new_f else S(s)
    return MixedBits(s, new_f, _and(d, new_f))


def _as_u32(x: Value) -> Int:
    """A ``MixedBits`` converted to ``uint32_t`` (swizzle.hpp:157): a run-time value."""
    if isinstance(x, MixedBits):
        return Int(x.expr, False) if not x.concrete else _dyn(int(x))
    return x


def bxor(a: Value, b: Value) -> Value:
    """``a ^ b`` with CuTe's overloads (swizzle.hpp:277-305; integral_constant.hpp)."""
    if isinstance(b, MixedBits) and not isinstance(a, MixedBits):
        a, b = b, a
    if isinstance(a, MixedBits):
        if isinstance(b, MixedBits):
            s = (~a.s & b.s & ~a.f) | (a.s & ~b.s & ~b.f)
            return make_mixed_bits(s & _U32, _xor(a.d, b.d, a.f | b.f, a.s, b.s), a.f | b.f)
        if b.static:
            v = int(b) & _U32
            return make_mixed_bits((~a.s & v & ~a.f) | (a.s & ~v) & _U32, _xor(a.d, _dyn(0), a.f, a.s, v), a.f)
        return _xor(_as_u32(a), b)  # built-in: uint32_t ^ int
    if a.static and b.static:
        return S(int(a) ^ int(b))
    return _xor(Int(a.expr, False), Int(b.expr, False))


def band(a: Value, v: int) -> Value:
    """``a & C<v>``."""
    if isinstance(a, MixedBits):
        return make_mixed_bits(a.s & v, a.d, a.f & v)
    if a.static or v == 0:  # C<0> & int is C<0> (integral_constant.hpp:298-312)
        return S(int(a) & v) if a.static else S(0)
    return _and(a, v)


def _shift(a: Value, k: int) -> Value:
    """``shiftr(a, C<k>)``: ``>>`` for ``k >= 0``, else ``<< -k``."""
    if isinstance(a, MixedBits):
        s, f = (a.s >> k, a.f >> k) if k >= 0 else (a.s << -k & _U32, a.f << -k & _U32)
        if a.d.concrete:
            d = _dyn(int(a.d) >> k if k >= 0 else int(a.d) << -k & _U32)
        else:  # the bits of F moved by k
            d = _from_bits([(b - k, _bit_of(a.d, b)) for b in _bits(a.f) if 0 <= b - k < 32])
        return make_mixed_bits(s, d, f)
    if a.static:
        return S(int(a) >> k if k >= 0 else int(a) << -k)
    return Int((a / S(1 << k) if k >= 0 else a * S(1 << -k)).expr, False)


def swizzle_apply(sw: Swizzle, x: Value) -> Value:
    """``Swizzle::apply``: ``x ^ shiftr(x & yyy_msk, S)`` (swizzle.hpp:73-79) on any of CuTe's integer kinds."""
    return bxor(x, _shift(band(x, sw.yyy_msk), sw.shift))


def _is_zero(x: Value) -> Int | bool:
    """``x == Int<0>``: a ``bool`` when static (``C<true>``/``C<false>``), else a run-time 0/1."""
    if isinstance(x, Int) and not isinstance(x, MixedBits) and x.static:
        return int(x) == 0
    u = _as_u32(x)
    if u.concrete:
        return _dyn(int(int(u) == 0))
    return Int(Op("ite", (Op("==", (u.expr, Const(0))), Const(1), Const(0))), False)


def _select(cond: Int | bool, t: int, f: int) -> Int:
    """``conditional_return(cond, C<t>, C<f>)`` (integral_constant.hpp:418-451)."""
    if isinstance(cond, bool):
        return S(t if cond else f)
    if cond.concrete:
        return _dyn(t if int(cond) else f)
    return Int(Op("ite", (Op("==", (cond.expr, Const(1))), Const(t), Const(f))), False)


def _swizzle_strides(z_first: bool, z: int, y: int, offset: Value, bits: int) -> tuple[Int, ...]:
    """``detail::make_swizzle_strides`` (swizzle_layout.hpp:182-222)."""
    if z_first:
        return tuple(_select(_is_zero(band(offset, y << i)), z << i, -z << i) for i in range(bits))
    return tuple(_select(_is_zero(band(offset, z << i)), (y + z) << i, (y - z) << i) for i in range(bits))


def _to_mixed_bits(shape: object, stride: object, coord: object) -> Value:
    """``to_mixed_bits(shape, stride, coord)`` (swizzle.hpp:431-449): XOR of each mode's bits."""
    if type(shape) is tuple:
        if type(stride) is not tuple or type(coord) is not tuple or not len(shape) == len(stride) == len(coord):
            raise CuteRejection("Mismatched ranks", "swizzle.hpp:437")
        out: Value = S(0)
        for s, d, c in zip(shape, stride, coord):
            out = bxor(out, _to_mixed_bits(s, d, c))
        return out
    assert isinstance(shape, Int) and isinstance(stride, Int) and isinstance(coord, Int)
    if stride.is_constant(0):  # int * C<0> is C<0> (integral_constant.hpp)
        return S(0)
    if not (shape.static and stride.static):
        raise CuteRejection("compile error: 'value' is not a member of 'int' (to_mixed_bits needs a static "
                            "shape*stride)", "swizzle.hpp:442")
    span = int(shape) * int(stride)
    if span != 0 and (span < 0 or span & (span - 1)):
        raise CuteRejection("Requires pow2 shape*stride.", "swizzle.hpp:442")
    return make_mixed_bits(0, coord * stride, (int(shape) - 1) * int(stride))


def _dice(c: object, t: object) -> object:
    """``dice(c, t)`` (underscore.hpp:162-176): the elements of ``t`` paired with an integer of ``c``."""
    if type(c) is tuple:
        if type(t) is not tuple or len(c) != len(t):
            raise CuteRejection("Mismatched Ranks", "underscore.hpp:168")
        return tuple(x for ci, ti in zip(c, t) for x in _lift_dice(ci, ti))
    return () if isinstance(c, Underscore) else t


def _lift_dice(c: object, t: object) -> list[object]:
    if type(c) is tuple:
        if type(t) is not tuple or len(c) != len(t):
            raise CuteRejection("Mismatched Ranks", "underscore.hpp:150")
        return [x for ci, ti in zip(c, t) for x in _lift_dice(ci, ti)]
    return [] if isinstance(c, Underscore) else [t]


def _all_underscore(c: object) -> bool:
    if type(c) is tuple:
        return all(_all_underscore(x) for x in c)
    return isinstance(c, Underscore)


def _offset_value(o: Int) -> Int:
    # smem_ptr_flag_bits<B> derives from Int<0>: the XOR overloads deduce it as C<0> and the flag is lost.
    return o if type(o) in (Int, MixedBits) else S(int(o))


def slice_and_offset_swizzled(coord: object, c: ComposedLayout) -> tuple[object, Int]:
    """``slice_and_offset(coord, Sw<B,M,S> o O o L)`` (swizzle_layout.hpp:226-298)."""
    from verifier.algebra import ops as algebra
    from verifier.core.int_tuple import idx2crd

    sw, inner = c.outer, c.inner
    assert isinstance(sw, Swizzle)
    if not isinstance(inner, Layout):
        raise CuteRejection(f"compile error: slice_and_offset of {c}: its inner function is not a layout",
                            "swizzle_layout.hpp:226")
    if _all_underscore(coord):
        return compose3(sw, c.offset, algebra.slice_layout(coord, inner)), S(0)  # type: ignore[arg-type]
    b, m, s = sw.bits, sw.base, abs(sw.shift)
    shape = (S(1 << m), S(1 << b), S(1 << (s - b)), S(1 << b), S(1))
    cols = (1, 1 << m, 1 << (m + b), 1 << (m + s), 1 << (m + b + s))
    anti_zy = Layout(shape, (S(cols[0]), S(0), S(cols[2]), S(0), S(cols[4])))
    only_zy = Layout(shape, (S(0), S(cols[1]), S(0), S(cols[3]), S(0)))
    sliced = algebra.slice_layout(coord, inner)  # type: ignore[arg-type]
    diced = Layout(_dice(coord, inner.shape), _dice(coord, inner.stride))  # type: ignore[arg-type]
    diced_coord = _dice(coord, coord)
    diced_anti = _projection(anti_zy, diced)
    diced_only = _projection(only_zy, diced)
    offset_only_zy = bxor(_offset_value(c.offset), _to_mixed_bits(
        diced_only.shape, diced_only.stride, idx2crd(diced_coord, diced_only.shape)))  # type: ignore[arg-type]
    offset_anti_zy = diced_anti(diced_coord)  # type: ignore[arg-type]
    sliced_only = _projection(only_zy, sliced)
    active = sliced_only(sliced_only.size() - S(1))
    if active.static and int(active) & ~int(sw(active)):  # hits Y and Z: not reducible
        return ComposedLayout(sw, offset_only_zy, sliced), offset_anti_zy
    zmask, ymask = sw.zzz_msk, sw.yyy_msk
    z, y = zmask & -zmask, ymask & -ymask
    lo = _swizzle_strides(z < y, z, y, offset_only_zy, b)
    hi = _swizzle_strides(z > y, z, y, offset_only_zy, b)
    twos = (S(2),) * b
    sw_layout = Layout((S(1 << m), _repeat(twos), S(1 << (s - b)), _repeat(twos), S(1)),
                       (S(1), _tuple(lo), S(1 << (m + b)), _tuple(hi), S(1 << (m + b + s))))
    offset = _plus(swizzle_apply(sw, offset_only_zy), offset_anti_zy)
    return algebra.composition(sw_layout, sliced), offset


def _projection(p: Layout, layout: Layout) -> Layout:
    """``composition(P, L)`` of a projection of the swizzle's bits: internal to CuTe's slice, whose result SLICE-POST
    decides, so only its undefined behaviour (a division by a run-time zero) is kept among the obligations."""
    from verifier.algebra import ops as algebra
    from verifier.core.obligations import UB, Recorder, record

    with Recorder() as rec:
        out = algebra.composition(p, layout)
    for o in rec.obligations:
        if o.cute_checks == UB:
            record(o.id, o.description, o.source, o.cute_checks, o.condition)
    return out


def _repeat(x: tuple[Int, ...]) -> object:
    """``repeat<B>(Int<2>{})`` (tuple_algorithms.hpp:715-727) is ``_2`` itself when B is 1, against the strides'
    1-tuple ``make_tuple(s)``; CuTe composes that mode as the 1-tuple ``(_2):(s)`` (compiled CuTe agrees)."""
    return x


def _tuple(x: tuple[Int, ...]) -> object:
    return x


def _plus(a: Value, b: Int) -> Int:
    """``swizzle(offset_only_zy) + offset_anti_zy``: a ``MixedBits`` converts to ``uint32_t`` (unsigned sum)."""
    if isinstance(a, MixedBits):
        total = _as_u32(a) + b
        if total.concrete:
            return _dyn(int(total) & _U32)
        return Int(total.expr, False)
    return a + b


POST_LIMIT = 4096


def _postcondition(coord: object, c: ComposedLayout, result: object, offset: Int) -> None:
    """SLICE-POST: the view addresses what the tensor did, ``R(i) + offset == C(c[i])`` for every ``i`` of the
    slice, where ``C(c[i]) = A(O + L(c|_=0) + slice(c, L)(i))`` (``L`` is linear in its coordinate).  Recorded as
    one condition over the coordinate's symbols when the slice has a static size up to ``POST_LIMIT``; its
    arithmetic is the tool's statement, not CuTe's, so no overflow is watched in it."""
    from verifier.core.integers import unwatched

    with unwatched():
        _record_postcondition(coord, c, result, offset)


def _record_postcondition(coord: object, c: ComposedLayout, result: object, offset: Int) -> None:
    from verifier.algebra import ops as algebra
    from verifier.core.int_tuple import crd2idx
    from verifier.core.integers import and_, eq, not_, or_
    from verifier.core.obligations import NEVER, POSTCONDITION, record, recording

    inner = c.inner
    if not recording() or not isinstance(inner, Layout):
        return
    sliced = algebra.slice_layout(coord, inner)  # type: ignore[arg-type]
    n = sliced.size()
    if not n.concrete or int(n) > POST_LIMIT:
        return
    origin = crd2idx(algebra._underscore_as_zero(coord), inner.shape, inner.stride)
    base = Int(c.offset.expr, c.offset.static) + origin
    if type(base) is not Int:
        base = Int(base.expr, base.static)
    conds = [eq(_call(result, i) + Int(offset.expr, False), c.outer(Int((base + sliced(i)).expr, False)))
             for i in range(int(n))]
    inside = _inside(coord, inner.shape)
    record("SLICE-IN", "every integer of the coordinate lies in the extent of the mode it indexes",
           "swizzle.hpp:443", NEVER, inside)
    record("SLICE-POST", "the slice addresses what the tensor did: view(i) + offset == tensor(coord with i at the "
           "_ modes), for every i", "swizzle_layout.hpp:226-298", NEVER,
           Bool(or_(not_(inside), and_(*conds)).expr, False), POSTCONDITION)  # recorded even when it holds statically


def _inside(coord: object, shape: object) -> Bool:
    from verifier.core.integers import TRUE, and_, le, lt
    from verifier.core.layouts import size

    if isinstance(coord, Underscore):
        return TRUE
    if type(coord) is tuple:
        if type(shape) is not tuple:
            return TRUE  # a rank mismatch is CuTe's rejection, raised by the slice itself
        return and_(TRUE, *(_inside(c, s) for c, s in zip(coord, shape)))
    return and_(le(0, coord), lt(coord, size(shape)))  # type: ignore[arg-type]


def _call(f: object, i: int) -> Int:
    if isinstance(f, ComposedLayout):  # a MixedBits offset is the uint32 it stands for
        inner = f.inner(i)
        return Int(f.outer(Int((Int(f.offset.expr, False) + inner).expr, False)).expr, False)
    v = f(i)  # type: ignore[operator]
    return Int(v.expr, False)


def slice_and_offset_composed(coord: object, c: ComposedLayout) -> tuple[object, Int]:
    """``slice_and_offset(coord, A o O o B)``: the swizzle overload, or the generic one (layout_composed.hpp:327)."""
    from verifier.algebra import ops as algebra

    if isinstance(c.outer, Swizzle):
        result, offset = slice_and_offset_swizzled(coord, c)
        _postcondition(coord, c, result, offset)
        return result, offset
    if isinstance(c.inner, ComposedLayout):
        layout, off = slice_and_offset_composed(coord, c.inner)
    elif isinstance(c.inner, Layout):
        view = algebra.slice_and_offset(coord, c.inner)  # type: ignore[arg-type]
        layout, off = view.layout, view.offset
    else:
        raise CuteRejection(f"compile error: slice_and_offset of {c}: its inner function is a swizzle",
                            "layout_composed.hpp:330")
    result = ComposedLayout(c.outer, c.offset + off, layout)  # type: ignore[arg-type]
    if isinstance(c.inner, Layout) and not isinstance(c.inner, ComposedLayout):
        _postcondition(coord, c, result, S(0))  # the same statement as the swizzle overload's, A any function
    return result, S(0)


def slice_composed(coord: object, c: ComposedLayout) -> object:
    """``slice(coord, A o O o B)`` is the layout of ``slice_and_offset`` (layout_composed.hpp:336-342)."""
    return slice_and_offset_composed(coord, c)[0]


def check_coordinate(coord: object) -> None:
    if not (_all_underscore(coord) or _has_underscore(coord)):
        raise LayoutError("slice: the coordinate has no '_' (CuTe would evaluate L(c), not slice)")


def _has_underscore(c: object) -> bool:
    if type(c) is tuple:
        return any(_has_underscore(x) for x in c)
    return isinstance(c, Underscore)


__all__ = ["MixedBits", "slice_and_offset_composed", "slice_composed"]
