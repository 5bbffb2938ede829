"""The CuTe DSL's trace-time form of our results: static integers as numbers, run-time ones as ``?``, with the
divisibility the DSL tracks (``?{div=4}``).

The DSL carries a static divisor with every run-time integer (its ``IntTuple`` type ``!cute.int_tuple<"?{div=4}">``)
and derives it through arithmetic; the rules below are those the differential corpus shows
(``tests/differential/test_dsl_differential.py``): a product multiplies the divisors, a sum or difference keeps
their gcd, a
division by a constant that divides the divisor divides it, and ``cute.assume(x, divby=N)`` sets it."""

from __future__ import annotations

from fractions import Fraction
from math import gcd

from verifier.core.basis import ScaledBasis
from verifier.core.int_tuple import IntTuple
from verifier.core.integers import Const, Expr, Int, Op, Sym, symbol
from verifier.core.layouts import Layout
from verifier.core.operands import map_leaves
from verifier.core.symbols import Symbols

Poly = dict[tuple[str, ...], Fraction]


def divisibility(e: Expr, symbols: Symbols | None = None) -> int:
    """The largest N the DSL knows divides ``e`` (0 for a constant 0, which every N divides).

    ``e`` is read as a polynomial over atoms (symbols, and sub-expressions that are not sums or products) with
    rational coefficients: a division by a constant stays exact where the divisor divides what the rest is known
    to be divisible by (``ceil_div(M, 2)`` of an ``M`` with ``div=4`` is ``M/2``, ``div=2``). Its divisibility is
    the gcd over its monomials of coefficient times the atoms' divisibilities."""
    atoms: dict[str, int] = {}
    poly = _poly(e, symbols, atoms)
    return _div_poly(poly, atoms)


def _div_poly(poly: Poly, atoms: dict[str, int]) -> int:
    g = Fraction(0)
    for mono, c in poly.items():
        d = abs(c)
        for a in mono:
            d *= atoms[a]
        g = _fgcd(g, d)
    return g.numerator if g.denominator == 1 else 1


def _fgcd(a: Fraction, b: Fraction) -> Fraction:
    if a == 0:
        return b
    if b == 0:
        return a
    return Fraction(gcd(a.numerator * b.denominator, b.numerator * a.denominator), a.denominator * b.denominator)


def _add(p: Poly, q: Poly, sign: int = 1) -> Poly:
    out = dict(p)
    for m, c in q.items():
        out[m] = out.get(m, Fraction(0)) + sign * c
        if out[m] == 0:
            del out[m]
    return out


def _poly(e: Expr, symbols: Symbols | None, atoms: dict[str, int]) -> Poly:
    if type(e) is Const:
        return {(): Fraction(int(e.value))} if e.value else {}
    if type(e) is Sym:
        sym = symbols.table.get(e.name) if symbols is not None else None
        atoms[e.name] = sym.multiple_of if sym is not None else 1
        return {(e.name,): Fraction(1)}
    assert isinstance(e, Op)
    if e.op in ("+", "-"):
        return _add(_poly(e.args[0], symbols, atoms), _poly(e.args[1], symbols, atoms), 1 if e.op == "+" else -1)
    if e.op == "neg":
        return {m: -c for m, c in _poly(e.args[0], symbols, atoms).items()}
    if e.op == "*":
        p, q = _poly(e.args[0], symbols, atoms), _poly(e.args[1], symbols, atoms)
        if len(p) * len(q) <= 64:
            out: Poly = {}
            for m1, c1 in p.items():
                for m2, c2 in q.items():
                    out = _add(out, {tuple(sorted(m1 + m2)): c1 * c2})
            return out
    if e.op == "/" and type(e.args[1]) is Const and e.args[1].value:
        d = abs(int(e.args[1].value))
        p = _poly(e.args[0], symbols, atoms)
        c0 = p.get((), Fraction(0))
        rest = {m: c for m, c in p.items() if m}
        if 0 <= c0 < d and c0.denominator == 1 and _div_poly(rest, atoms) % d == 0:
            sign = 1 if int(e.args[1].value) > 0 else -1
            return {m: sign * c / d for m, c in rest.items()}
    # an atom: its divisibility by the DSL's rules for the operations it knows
    key = repr(e)
    if key not in atoms:
        atoms[key] = _atom_div(e, symbols)
    return {(key,): Fraction(1)}


def _atom_div(e: Op, symbols: Symbols | None) -> int:
    # abs, signum, ite, / and % of what is not known to divide: nothing known (observed: the DSL keeps no
    # divisibility through abs, random[1181] of the corpus)
    if e.op in ("min", "max"):  # observed: min(x, 2) of an x with div=4 is ?{div=2} (random[1057] of the corpus)
        return gcd(divisibility(e.args[0], symbols), divisibility(e.args[1], symbols)) or 1
    return 1


def anonymize(obj: object, env: dict[str, int]) -> object:
    """Every concrete run-time leaf a fresh anonymous symbol (``?dN``), its value recorded in ``env``: the DSL
    sees each such leaf as a parameter of the jit function."""

    def leaf(x: Int) -> Int:
        if x.static or not x.concrete:
            return x
        name = f"?d{len(env)}"
        env[name] = int(x.value)  # type: ignore[arg-type]
        return symbol(name)

    return map_leaves(obj, leaf)


def _leaf(x: Int | ScaledBasis, symbols: Symbols | None, values: bool) -> str:
    if type(x) is ScaledBasis:
        return _leaf(x.value, symbols, values) + "".join(f"@{n}" for n in reversed(x.modes))
    assert isinstance(x, Int)
    if x.static or (values and x.concrete):
        return str(int(x))  # a static _0 that keeps a dropped division (seq) is 0 to the DSL too
    d = divisibility(x.expr, symbols)
    return f"?{{div={d}}}" if d > 1 else "?"


def _tuple(t: IntTuple, symbols: Symbols | None, values: bool) -> str:
    if type(t) is tuple:
        return "(" + ",".join(_tuple(x, symbols, values) for x in t) + ")"
    return _leaf(t, symbols, values)  # type: ignore[arg-type]


def trace_form(x: Layout | IntTuple, symbols: Symbols | None = None, values: bool = False) -> str:
    """``x`` as the DSL's ``print`` shows it at trace time (``values``: as ``cute.printf`` shows it at run time)."""
    from verifier.core.swizzle import ComposedLayout, Swizzle

    if isinstance(x, ComposedLayout) and isinstance(x.outer, Swizzle):  # S<1,0,2> o 0 o (4,4):(1,4)
        sw = x.outer
        return (f"S<{sw.bits},{sw.base},{sw.shift}> o {_leaf(x.offset, symbols, values)} o "
                f"{trace_form(x.inner, symbols, values)}")
    if isinstance(x, Layout):
        return f"{_tuple(x.shape, symbols, values)}:{_tuple(x.stride, symbols, values)}"
    return _tuple(x, symbols, values)
