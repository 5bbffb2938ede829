"""Scaled-basis strides and arithmetic tuples: CuTe's ``ScaledBasis<T,Ns...>`` (``E<i...>``) and
``ArithmeticTuple`` (``numeric/arithmetic_tuple.hpp``).

A stride leaf may be ``v@i`` (``ScaledBasis``): the value ``v`` (an ``Int`` with its static/dynamic flag) placed
in mode ``i`` of the codomain, so that evaluating a layout gives a coordinate rather than an integer.  CuTe prints
``E<1,0>`` as ``_1@0@1`` (the modes in reverse, arithmetic_tuple.hpp:469-475); ``ScaledBasis.modes`` holds them in
CuTe's template order ``(1, 0)``.  Sums follow CuTe's ``operator+`` overloads exactly: a basis plus a basis is an
``ArithmeticTuple`` padded with static ``_0``; a static ``_0`` added to a basis or tuple disappears; any other
integer added to one is a CuTe compile error (a ``static_assert`` for a static integer, no ``operator+`` for a
run-time one), raised here as ``CuteRejection``.

Modelled: evaluation (``crd2idx``), ``cosize`` (``size(coshape)``), ``coprofile`` and the ``coalesce_x`` by profile
that ``composition`` applies to its left operand, and composition with a scaled-basis right operand
(``layout.hpp:1041-1043``; the branch itself lives in ``algebra._composition_impl``).  A left operand with
scaled-basis strides is not modelled (``LayoutError``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Union

from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import Bool, Int, S, abs_, substitute
from verifier.core.integers import eq as int_eq
from verifier.core.integers import mul as int_mul

if TYPE_CHECKING:
    from verifier.core.int_tuple import IntTuple
    from verifier.core.layouts import Layout


class ScaledBasis:
    """``ScaledBasis<T,Ns...>``: ``value`` in the hierarchical mode ``modes`` (CuTe's template order)."""

    __slots__ = ("value", "modes")
    value: Int
    modes: tuple[int, ...]

    def __init__(self, value: Int, modes: tuple[int, ...]) -> None:
        if type(value) is not Int:
            raise TypeError(f"a scaled basis scales an Int, not {value!r}")
        if any(type(n) is not int or n < 0 for n in modes):
            raise LayoutError(f"scaled-basis modes must be non-negative integers, got {modes!r}")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "modes", tuple(modes))

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("ScaledBasis is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is ScaledBasis and other.value == self.value and other.modes == self.modes

    def __hash__(self) -> int:
        return hash(("E", self.value, self.modes))

    def __str__(self) -> str:
        # arithmetic_tuple.hpp:474 prints the modes with a reversed parameter-pack fold.
        return str(self.value) + "".join(f"@{n}" for n in reversed(self.modes))

    def __repr__(self) -> str:
        return f"ScaledBasis({self})"

    def __int__(self) -> int:
        raise LayoutError(f"{self} is a scaled basis (a coordinate), not an integer")

    __index__ = __int__

    @property
    def concrete(self) -> bool:
        return self.value.concrete

    def symbols(self) -> set[str]:
        return self.value.symbols()

    def substitute(self, values: Mapping[str, int]) -> ScaledBasis:
        return ScaledBasis(substitute(self.value, values), self.modes)


def E(*modes: int) -> ScaledBasis:  # noqa: N802 - CuTe's name
    """``E<Ns...>``: the unit basis ``_1`` in mode ``Ns...``."""
    return ScaledBasis(S(1), tuple(modes))


class ArithTuple:
    """CuTe's ``ArithmeticTuple``: a tuple that adds elementwise; printed as a tuple, ``(_0,3)``."""

    __slots__ = ("items",)
    items: tuple[Value, ...]

    def __init__(self, items: tuple[Value, ...]) -> None:
        object.__setattr__(self, "items", tuple(items))

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("ArithTuple is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is ArithTuple and other.items == self.items

    def __hash__(self) -> int:
        return hash(("AT", self.items))

    def __str__(self) -> str:
        return "(" + ",".join(str(x) for x in self.items) + ")"

    def __repr__(self) -> str:
        return f"ArithTuple({self})"

    def __int__(self) -> int:
        raise LayoutError(f"{self} is an arithmetic tuple (a coordinate), not an integer")

    __index__ = __int__


Value = Union[Int, ScaledBasis, ArithTuple]


def has_basis(t: object) -> bool:
    """Whether an IntTuple has a scaled-basis leaf."""
    if type(t) is tuple:
        for x in t:
            if type(x) is ScaledBasis or (type(x) is tuple and has_basis(x)):
                return True
        return False
    return type(t) is ScaledBasis


def as_arith(x: Value) -> Value:
    """``as_arithmetic_tuple`` (arithmetic_tuple.hpp:69-82, 302-316): ``E<1>`` becomes ``(_0,_1)``."""
    if type(x) is ScaledBasis:
        if not x.modes:
            return x.value
        inner = as_arith(ScaledBasis(x.value, x.modes[1:]))
        return ArithTuple((S(0),) * x.modes[0] + (inner,))
    if type(x) is ArithTuple:
        return ArithTuple(tuple(as_arith(y) for y in x.items))
    return x


def _int_plus_other(i: Int, other: Value, source: str, message: str) -> Value:
    if not i.static:
        raise CuteRejection(f"compile error: no operator+ for a run-time integer and {other}", source)
    if not i.is_constant(0):  # a static _0 that keeps a computation (seq) is still CuTe's _0 type
        raise CuteRejection(message, source)
    if i.expr == S(0).expr:
        return other
    # The _0 keeps a computation C++ ran (a division that may fault): carried into a leaf of the sum, whose value
    # and type it leaves unchanged (integers.seq).
    if type(other) is ScaledBasis:
        return ScaledBasis(i + other.value, other.modes)
    assert type(other) is ArithTuple and other.items
    first = other.items[0]
    return ArithTuple((add(i, first), *other.items[1:]))


def add(a: Value, b: Value) -> Value:
    """CuTe's ``a + b`` over integers, scaled bases and arithmetic tuples (arithmetic_tuple.hpp:88-176, 411-457)."""
    if isinstance(a, Int) and type(a) is not Int:  # an smem_ptr flag is an Int<0> (gmma.py)
        a = Int(a.expr, a.static)
    if isinstance(b, Int) and type(b) is not Int:
        b = Int(b.expr, b.static)
    if type(a) is Int and type(b) is Int:
        return a + b
    if type(a) is Int and type(b) is ScaledBasis:
        if not b.modes:
            return a + b.value
        return _int_plus_other(a, b, "arithmetic_tuple.hpp:440", "ScaledBasis op+ error!")
    if type(a) is ScaledBasis and type(b) is Int:
        if not a.modes:
            return a.value + b
        return _int_plus_other(b, a, "arithmetic_tuple.hpp:453", "ScaledBasis op+ error!")
    if type(a) is Int and type(b) is ArithTuple:
        return _int_plus_other(a, b, "arithmetic_tuple.hpp:150", "Arithmetic tuple op+ error!")
    if type(a) is ArithTuple and type(b) is Int:
        return _int_plus_other(b, a, "arithmetic_tuple.hpp:158", "Arithmetic tuple op+ error!")
    if type(a) is ScaledBasis or type(b) is ScaledBasis:  # basis + basis, basis + tuple, tuple + basis (:411-431)
        return add(as_arith(a) if type(a) is ScaledBasis else a, as_arith(b) if type(b) is ScaledBasis else b)
    assert type(a) is ArithTuple and type(b) is ArithTuple
    x, y = a.items, b.items
    r = max(len(x), len(y))  # append<R>(t, _0) on both sides (:93-94)
    x = x + (S(0),) * (r - len(x))
    y = y + (S(0),) * (r - len(y))
    return ArithTuple(tuple(add(p, q) for p, q in zip(x, y)))


def mul(c: Int, d: Int | ScaledBasis) -> Int | ScaledBasis:
    """``c * d`` for an integer coordinate and a stride leaf; ``c * (v@i)`` is ``(c*v)@i`` (:395-401)."""
    if type(d) is ScaledBasis:
        return ScaledBasis(c * d.value, d.modes)
    return c * d  # type: ignore[operator]


def basis_abs(d: Int | ScaledBasis) -> Int | ScaledBasis:
    """``abs`` of a stride leaf (:357-364)."""
    if type(d) is ScaledBasis:
        return ScaledBasis(abs_(d.value), d.modes)
    return abs_(d)  # type: ignore[arg-type]


# -- evaluation (stride.hpp:60-124 with the operator+ above) -----------------------------------------------------


def _leaves_of(v: Value) -> list[Int]:
    if type(v) is ArithTuple:
        return [x for item in v.items for x in _leaves_of(item)]
    assert type(v) is Int
    return [v]


def _plus_one(v: Value) -> Value:
    if type(v) is ArithTuple:
        return ArithTuple(tuple(_plus_one(x) for x in v.items))
    return v + S(1)  # type: ignore[operator]


def _inner_product(a: object, b: object) -> Value:
    """``inner_product`` (int_tuple.hpp:306-317): ``(_0 + ... + a_i*b_i)``."""
    if type(a) is tuple and type(b) is tuple:
        acc: Value = S(0)
        for x, y in zip(a, b):
            acc = add(acc, _inner_product(x, y))
        return acc
    return mul(a, b)  # type: ignore[arg-type]


def _map_leaves(t: object, fn: Callable[[Any], object]) -> object:
    if type(t) is tuple:
        return tuple(_map_leaves(x, fn) for x in t)
    return fn(t)


# -- composition with a scaled-basis right operand (layout.hpp:630-638, 841-853, 1041-1043) -------------------


def _sum(t: object) -> Value:
    """``sum`` (int_tuple.hpp:288-297): ``(_0 + ... + sum(v))``."""
    if type(t) is tuple:
        acc: Value = S(0)
        for x in t:
            acc = add(acc, _sum(x))
        return acc
    return t  # type: ignore[return-value]


def _repeat_zero(v: Value) -> object:
    if type(v) is ArithTuple:
        return tuple(_repeat_zero(x) for x in v.items)
    return S(0)


def coprofile(layout: Layout) -> object:
    """``coprofile`` (layout.hpp:630-638): ``_0`` for integer strides, a tuple of ``_0`` congruent with the
    codomain for scaled-basis strides."""
    return _repeat_zero(as_arith(_sum(layout.stride)))


def basis_get(e: ScaledBasis, t: object) -> object:
    """``basis_get(E<Ns...>, t)`` (arithmetic_tuple.hpp:268-278): the hierarchical ``get<Ns...>(t)``, where
    ``get<0>`` of an integer is the integer (int_tuple.hpp:52-58)."""
    for n in e.modes:
        if type(t) is tuple:
            if n >= len(t):
                raise CuteRejection("Index out of range", "tuple.hpp")
            t = t[n]
        elif n != 0:
            raise CuteRejection("Index out of range", "int_tuple.hpp:56")
    return t


def as_coordinate(v: Value, shape: object) -> tuple[IntTuple, list[Int]]:
    """A (possibly symbolic) codomain value of B as a coordinate of A's shape (missing modes are 0: arithmetic
    tuples pad with _0), and the values that must all be 0 for it to be one: its components beyond an integral
    mode of A, and ``_1`` (never 0) for each mode beyond a tuple's rank, which no coordinate of A has."""
    v = as_arith(v)
    if type(shape) is tuple:
        items = list(v.items) if type(v) is ArithTuple else [v]
        extra = items[len(shape):]
        items = items[:len(shape)] + [S(0)] * (len(shape) - len(items))
        parts = [as_coordinate(x, s) for x, s in zip(items, shape)]
        return tuple(p for p, _ in parts), [x for _, e in parts for x in e] + [S(1) for _ in extra]
    if type(v) is ArithTuple:
        if not v.items:
            return S(0), []
        head, rest = as_coordinate(v.items[0], shape)
        return head, rest + [x for y in v.items[1:] for x in _leaves_of(as_arith(y))]
    return v, []  # type: ignore[return-value]  # as_arith leaves no basis: v is an Int here


# -- stride arithmetic with a scaled-basis left operand (arithmetic_tuple.hpp:366-408) -------------------------


def stride_mul(c: Int | ScaledBasis, d: Int | ScaledBasis) -> Int | ScaledBasis:
    """``c * d`` and ``d * c`` for an integer and a stride leaf: ``(c*v)@i`` for a basis (:395-408)."""
    if type(c) is Int and type(d) is Int:  # the common case, without the dispatch
        return int_mul(c, d)
    if type(c) is ScaledBasis:
        c, d = d, c
    return mul(c, d)  # type: ignore[arg-type]  # one operand is an integer, now c


def stride_eq(x: Int | ScaledBasis, y: Int | ScaledBasis) -> Bool:
    """CuTe's ``==`` on stride leaves (:366-392): bases equal when their modes are and their values are; a basis
    equals no integer (a static ``false_type``)."""
    if type(x) is Int and type(y) is Int:  # the common case, without the dispatch
        return int_eq(x, y)
    from verifier.core.integers import FALSE

    if type(x) is ScaledBasis and type(y) is ScaledBasis:
        if x.modes != y.modes:
            return FALSE
        return int_eq(x.value, y.value)
    if type(x) is ScaledBasis or type(y) is ScaledBasis:
        return FALSE
    return int_eq(x, y)  # type: ignore[arg-type]
