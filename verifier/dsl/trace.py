"""The CuTe DSL's trace-time form of our results: static integers as numbers, run-time ones as ``?``, with the
divisibility the DSL tracks (``?{div=4}``).

The DSL carries a static divisor with every run-time integer (its ``IntTuple`` type ``!cute.int_tuple<"?{div=4}">``)
and derives it through arithmetic; the rules below are those the differential corpus shows
(``tests/test_dsl_harness.py``): a product multiplies the divisors, a sum or difference keeps their gcd, a
division by a constant that divides the divisor divides it, and ``cute.assume(x, divby=N)`` sets it."""

from __future__ import annotations

from math import gcd

from ..basis import ScaledBasis
from ..int_tuple import IntTuple, transform_leaf
from ..integers import Const, Expr, Int, Op, Sym, symbol
from ..layouts import Layout, Tile
from ..symbols import Symbols


def divisibility(e: Expr, symbols: Symbols | None = None) -> int:
    """The largest N the DSL knows divides ``e`` (0 for a constant 0, which every N divides)."""
    if type(e) is Const:
        return abs(int(e.value))
    if type(e) is Sym:
        sym = symbols.table.get(e.name) if symbols is not None else None
        return sym.multiple_of if sym is not None else 1
    assert isinstance(e, Op)
    if e.op == "*":
        return divisibility(e.args[0], symbols) * divisibility(e.args[1], symbols)
    if e.op in ("+", "-"):
        return gcd(divisibility(e.args[0], symbols), divisibility(e.args[1], symbols))
    if e.op in ("neg", "abs"):
        return divisibility(e.args[0], symbols)
    if e.op == "/" and type(e.args[1]) is Const and e.args[1].value != 0:
        d, c = divisibility(e.args[0], symbols), abs(int(e.args[1].value))
        return d // c if d % c == 0 else 1
    return 1


def anonymize(obj: object, env: dict[str, int]) -> object:
    """Every concrete run-time leaf a fresh anonymous symbol (``?dN``), its value recorded in ``env``: the DSL
    sees each such leaf as a parameter of the jit function."""

    def leaf(x: Int) -> Int:
        if isinstance(x, ScaledBasis):
            return ScaledBasis(leaf(x.value), x.modes)  # type: ignore[return-value]
        if x.static or not x.concrete:
            return x
        name = f"?d{len(env)}"
        env[name] = int(x.value)  # type: ignore[arg-type]
        return symbol(name)

    if isinstance(obj, Layout):
        return Layout(transform_leaf(obj.shape, leaf), transform_leaf(obj.stride, leaf))
    if isinstance(obj, Tile):
        return Tile([anonymize(e, env) for e in obj.elements])
    if isinstance(obj, Int) or type(obj) is tuple:
        return transform_leaf(obj, leaf)  # type: ignore[arg-type]
    return obj


def _leaf(x: Int | ScaledBasis, symbols: Symbols | None, values: bool) -> str:
    if type(x) is ScaledBasis:
        return _leaf(x.value, symbols, values) + "".join(f"@{n}" for n in reversed(x.modes))
    assert isinstance(x, Int)
    if x.static or (values and x.concrete):
        return str(x.value)
    d = divisibility(x.expr, symbols)
    return f"?{{div={d}}}" if d > 1 else "?"


def _tuple(t: IntTuple, symbols: Symbols | None, values: bool) -> str:
    if type(t) is tuple:
        return "(" + ",".join(_tuple(x, symbols, values) for x in t) + ")"
    return _leaf(t, symbols, values)  # type: ignore[arg-type]


def trace_form(x: Layout | IntTuple, symbols: Symbols | None = None, values: bool = False) -> str:
    """``x`` as the DSL's ``print`` shows it at trace time (``values``: as ``cute.printf`` shows it at run time)."""
    if isinstance(x, Layout):
        return f"{_tuple(x.shape, symbols, values)}:{_tuple(x.stride, symbols, values)}"
    return _tuple(x, symbols, values)
