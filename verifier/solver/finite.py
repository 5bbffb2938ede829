"""Statements over symbols with few admitted values, decided by evaluating them at every one of those values.

Most obligations of a tiling that the simplifier leaves open mention one problem size of a small range
(``31+((M+32-1)/32-1)*32+1 >= M`` for ``1 <= M <= 64``); the solver proves each in a Z3 context of its own
(5-10 ms, most of it creating and deleting the context), evaluation at the 64 values takes well under a
millisecond (issue 28).  Evaluation is the C++ semantics itself (``core.integers``), which the encoding only
models, so a statement true at every value of its symbols' own ranges holds at every admitted point, whatever the
relations among the symbols add.  Only proofs come from here: a value where the statement fails may lie outside
the relations, and the solver's counterexample, lowered by the engine, is the one reported.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from verifier.core.errors import UndefinedBehavior
from verifier.core.integers import Bool
from verifier.core.symbols import Symbols

# The most points evaluated for one statement: a range of 64 values in one symbol, or 16 x 16 in two.
POINTS = 1 << 8
# A small statement may be evaluated at more points, up to this many evaluations of its distinct nodes in all (a
# 1-D tiling's cover ``16*((M+15)/16) >= M`` over 512 values of M: 2 ms, against 8-10 ms for the solver's context
# and query, issue 28), and never at more than ``MOST_POINTS``.
NODE_EVALUATIONS = 1 << 13
MOST_POINTS = 1 << 12


def _nodes(statements: Sequence[Bool]) -> int:
    seen: set[int] = set()
    stack = [b.expr for b in statements]
    while stack:
        e = stack.pop()
        if id(e) not in seen:
            seen.add(id(e))
            stack.extend(getattr(e, "args", ()))
    return len(seen)


def _limit(limit: int | None, statements: Sequence[Bool]) -> int:
    """``limit`` if given, else ``POINTS`` raised for a statement of few nodes (``NODE_EVALUATIONS``)."""
    if limit is not None:
        return limit
    return max(POINTS, min(MOST_POINTS, NODE_EVALUATIONS // max(1, _nodes(statements))))


def tied(symbols: Symbols, names: set[str]) -> tuple[set[str], list[Bool]]:
    """``names`` and every symbol the relations tie to them, transitively, and the relations among those alone:
    the points of these symbols that satisfy these relations are the admitted ones, projected."""
    names = set(names)
    using = [(r, set(r.expr.symbols())) for r in symbols.relations]
    grown = True
    while grown:
        grown = False
        for _, used in using:
            if used & names and not used <= names:
                names |= used
                grown = True
    return names, [r for r, used in using if used <= names]


def points(symbols: Symbols, names: Sequence[str], limit: int) -> Iterator[dict[str, int]] | None:
    """Every combination of the admitted values of ``names`` (each symbol's range and modulus), or None when
    there are more than ``limit``, none, or a symbol has no upper bound."""
    ranges = []
    total = 1
    for n in names:
        sym = symbols.lookup(n)
        if sym is None or sym.hi is None:
            return None
        first = -(-sym.lo // sym.multiple_of) * sym.multiple_of
        # counted, not len(range): a 64-bit symbol's range holds more values than a C ssize_t
        total *= max(0, (sym.hi - first) // sym.multiple_of + 1)
        if total == 0 or total > limit:
            return None
        ranges.append(range(first, sym.hi + 1, sym.multiple_of))
    return (dict(zip(names, p)) for p in itertools.product(*ranges))


def holds_everywhere(holds: Bool, symbols: Symbols, limit: int | None = None) -> bool:
    """``holds`` (free of witnesses) is true at every value of its symbols' ranges: proved.  False says nothing
    (too many values, a value where it fails or is undefined): the solver decides."""
    names = sorted(set(holds.expr.symbols()))
    where = points(symbols, names, _limit(limit, [holds])) if names else None
    if where is None:
        return False
    try:
        return all(bool(holds.evaluate(p)) for p in where)
    except (ArithmeticError, KeyError, UndefinedBehavior):
        return False


def implied_alone(facts: Sequence[Bool], atom: Bool, symbols: Symbols, limit: int | None = None) -> bool:
    """At every value of the atom's symbols' ranges where the facts over those symbols alone are true, the atom is
    true: then no admitted point satisfies the facts and violates the atom.  A point where a fact divides by zero is
    one the solver's query excludes too (it assumes every divisor nonzero).  False says nothing."""
    names = sorted(set(atom.expr.symbols()))
    mine = [f for f in facts if set(f.expr.symbols()) <= set(names)]
    where = points(symbols, names, _limit(limit, [*mine, atom])) if names and mine else None
    if where is None:
        return False
    try:
        for p in where:
            try:
                if not all(bool(f.evaluate(p)) for f in mine):
                    continue
            except (UndefinedBehavior, ZeroDivisionError):
                continue
            if not atom.evaluate(p):
                return False
    except (ArithmeticError, KeyError, UndefinedBehavior):
        return False
    return True


# The most points ``satisfiable`` evaluates: a few microseconds each, against a context and a query (10-20 ms).
SATISFIABLE_POINTS = 1 << 10


def satisfiable(statements: Sequence[Bool], symbols: Symbols, limit: int | None = None) -> bool | None:
    """Whether an admitted point makes every statement true with each of their divisors nonzero: what the solver
    answers on the symbols' assumptions, the statements and their divisors nonzero (the guard search's
    ``_hopeless`` and ``_necessity`` queries, which read only sat or unsat), decided by evaluating them at every
    admitted value of their symbols and of the symbols the relations tie to them (``limit`` points at most; the
    other symbols' admitted values combine with any of these).  None where it cannot say: too many points, an
    unbounded symbol, a ``gcd``/``lcm`` (which the encoder may refuse), or a statement undefined at a point."""
    from verifier.core.integers import Op
    from verifier.core.symbols import _holds

    limit = SATISFIABLE_POINTS if limit is None else limit
    exprs = [b.expr for b in statements]
    stack = [*exprs, *(r.expr for r in symbols.relations)]
    divisors: dict[object, None] = {}
    while stack:
        e = stack.pop()
        if type(e) is Op:
            if e.op in ("gcd", "lcm"):
                return None
            stack.extend(e.args)
    for e in exprs:
        stack = [e]
        while stack:
            x = stack.pop()
            if type(x) is Op:
                if x.op in ("/", "%"):
                    divisors.setdefault(x.args[1], None)
                stack.extend(x.args)
    names, relations = tied(symbols, {n for e in exprs for n in e.symbols()})
    order = [s.name for s in symbols if s.name in names]
    if len(order) != len(names):
        return None
    where = points(symbols, order, limit) if order else iter([{}])
    if where is None:
        return None
    checks = list(divisors)
    try:
        for p in where:
            if not all(_holds(r, p) for r in relations):
                continue
            if any(d.evaluate(p) == 0 for d in checks):  # type: ignore[attr-defined]
                continue
            if all(b.evaluate(p) for b in statements):
                return True
    except (ArithmeticError, KeyError, UndefinedBehavior):
        return None
    return False


__all__ = ["MOST_POINTS", "NODE_EVALUATIONS", "POINTS", "SATISFIABLE_POINTS", "holds_everywhere", "implied_alone",
           "points", "satisfiable", "tied"]
