"""The domain of a problem: the values its assumptions admit, checked before anything is decided.

A statement "for every admitted value" is vacuously true when no value is admitted, so an answer on such
assumptions would say nothing while looking like a proof.  ``check_domain`` therefore proves, before the engine
decides anything, that

* the assumptions (the symbols' ranges and divisibilities, and every relation) admit at least one value, where a
  relation that divides by zero is false (``M/0 == 1`` admits nothing; ``M/(N-1) >= 0`` excludes ``N == 1``), and
* no shape extent of an operand is negative for an admitted value (``(-M):(_1)``).  A zero extent is an empty
  layout, which CuTe supports.

Either failure is bad input (``VacuousAssumptions`` / ``LayoutError``, exit status 2).  When the solver cannot
decide within the budget, the reason comes back and the caller answers ``unknown``: a verdict is given only on a
domain shown to be non-empty.  A value found by the solver is checked by concrete evaluation before it is believed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence

from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.int_tuple import leaves
from verifier.core.integers import Bool, Int, format_expr
from verifier.core.layouts import Layout, Tile
from verifier.core.symbols import Symbols
from verifier.solver.budget import UNITS_PER_SECOND, hang_guard
from verifier.solver.solve import settle_memory

# Nominal seconds, spent as Z3 resource units (budget.py) so that the answer does not depend on the machine's load;
# these are small problems (a handful of relations over a handful of symbols).
BUDGET = 2.0


class VacuousAssumptions(LayoutError):
    """No value satisfies the assumptions: every statement would hold vacuously."""


def _smallest(symbols: Symbols) -> dict[str, int]:
    return {s.name: -(-s.lo // s.multiple_of) * s.multiple_of for s in symbols}


# Values of one symbol scanned for its own relations (``_smallest_alone``).
SCAN = 1 << 12


def _smallest_alone(symbols: Symbols) -> dict[str, int]:
    """Each symbol's smallest admitted value that also satisfies the relations over it alone (``M % 8 == 0``,
    ``M >= 2``): a guard candidate's assumptions, which ``_smallest`` misses and the solver needs a context for
    (4 ms, run for each of a guard search's candidates, issue 28).  A value the scan does not find is left at its
    smallest; the caller checks the whole point concretely."""
    out = _smallest(symbols)
    for sym in symbols:
        own = [r for r in symbols.relations if set(r.expr.symbols()) == {sym.name}]
        if not own:
            continue
        for v in range(out[sym.name], out[sym.name] + SCAN * sym.multiple_of, sym.multiple_of):
            try:
                if sym.admits(v) and all(bool(r.evaluate({sym.name: v})) for r in own):
                    out[sym.name] = v
                    break
            except (UndefinedBehavior, ZeroDivisionError):
                continue
    return out


# Rounds of ``_lifted``: each raises one symbol, so a point that needs more is left to the solver.
LIFTS = 16


def _lifted(symbols: Symbols, start: Mapping[str, int]) -> dict[str, int] | None:
    """``start`` with symbols raised until every relation holds, or None.  A relation that fails (``ldA >= K`` at
    ``ldA = 1, K = 64``: a guard candidate's ``K % 64 == 0`` beside the file's ``ldA >= K``) is repaired by raising
    one of its symbols, in table order, to the value of another of its symbols (or one more), the smallest such that
    the symbol admits and that satisfies the relation and the symbol's own relations.  Values only grow, so the
    search ends; what it finds is checked whole by the caller (``_admits``).  It spares the solver and its context
    for each candidate of a guard search, whose assumptions tie several symbols (issue 28)."""
    point = dict(start)
    rels = list(symbols.relations)
    order = [s.name for s in symbols]
    for _ in range(LIFTS):
        bad = next((r for r in rels if not _true(r, point)), None)
        if bad is None:
            return point
        names = set(bad.expr.symbols())
        for name in (n for n in order if n in names):
            sym = symbols.lookup(name)
            assert sym is not None
            own = [r for r in rels if set(r.expr.symbols()) == {name}]
            tries = sorted({point[o] + d for o in names if o != name for d in (0, 1)})
            tries = [v + -v % sym.multiple_of for v in tries]
            value = next((v for v in tries if v > point[name] and sym.admits(v)
                          and all(_true(r, {**point, name: v}) for r in (*own, bad))), None)
            if value is not None:
                point[name] = value
                break
        else:
            return None
    return None


def _true(rel: Bool, values: Mapping[str, int]) -> bool:
    try:
        return bool(rel.evaluate(values))
    except (UndefinedBehavior, ZeroDivisionError, KeyError):
        return False


def _admits(symbols: Symbols, values: Mapping[str, int]) -> bool:
    """The values satisfy every assumption, evaluated as C++ would (a division by zero does not satisfy)."""
    if not all(s.admits(values[s.name]) for s in symbols):
        return False
    try:
        return all(bool(r.evaluate(values)) for r in symbols.relations)
    except (UndefinedBehavior, KeyError):
        return False


def admitted_value(symbols: Symbols, budget: float = BUDGET) -> tuple[dict[str, int] | None, str | None]:
    """A value the assumptions admit (checked concretely), or ``(None, reason)`` when none was found in time.

    Raises ``VacuousAssumptions`` when the solver proves that none exists, naming the assumptions that conflict."""
    alone = _smallest_alone(symbols)
    for first in (_smallest(symbols), alone, _lifted(symbols, alone)):
        if first is not None and _admits(symbols, first):
            return first, None
    import z3

    from verifier.solver.encoding import Encoder, Unencodable

    enc = Encoder(symbols)
    s = z3.Solver(ctx=enc.ctx)
    s.set("rlimit", max(1, int(budget * UNITS_PER_SECOND)))
    s.set("timeout", int(hang_guard(int(budget * UNITS_PER_SECOND)) * 1000))  # the safety net: a hang guard
    s.set("core.minimize", True)
    try:
        for sym in symbols:
            v = enc.var(sym.name)
            s.add(v >= sym.lo)
            if sym.hi is not None:
                s.add(v <= sym.hi)
        tracked = {}
        for k, rel in enumerate(symbols.relations):
            flag = z3.Bool(f"assumption#{k}", enc.ctx)
            tracked[flag.get_id()] = rel
            s.assert_and_track(enc.relation(rel), flag)
    except Unencodable as exc:
        return None, f"cannot encode the assumptions: {exc}"
    settle_memory(enc.ctx)
    r = s.check()
    if r == z3.unsat:
        core = [tracked[c.get_id()] for c in s.unsat_core() if c.get_id() in tracked]
        ranges = [sym for sym in symbols if any(sym.name in set(rel.expr.symbols()) for rel in core)] or \
            list(symbols)
        named = "; ".join([sym.describe() for sym in ranges] + [str(rel) for rel in core])
        raise VacuousAssumptions(f"the assumptions admit no value ({named}): every verdict would hold vacuously")
    if r == z3.sat:
        values = enc.model_values(s.model(), {sym.name for sym in symbols})
        if _admits(symbols, values):
            return values, None
        return None, "the solver's value for the assumptions did not satisfy them concretely"
    return None, f"could not show that the assumptions admit a value: the solver gave up ({s.reason_unknown()})"


def _shape_leaves(args: Sequence[object], positions: Collection[int]) -> Iterator[tuple[int, Int]]:
    for k, a in enumerate(args):
        if k in positions:
            continue
        yield from ((k, x) for x in _shapes(a))


def _shapes(a: object) -> Iterator[Int]:
    from verifier.core.swizzle import ComposedLayout

    if isinstance(a, Layout):
        yield from leaves(a.shape)
    elif isinstance(a, Tile):
        for e in a.elements:
            yield from _shapes(e)
    elif isinstance(a, ComposedLayout):
        yield from _shapes(a.inner)
    elif isinstance(a, Int):
        yield a
    elif type(a) is tuple:
        yield from (x for x in leaves(a) if isinstance(x, Int))  # a coordinate may hold _


def check_domain(op: str, args: Sequence[object], symbols: Symbols, budget: float = BUDGET,
                 shapes: bool = True, positions: Collection[int] = ()) -> str | None:
    """Raise ``LayoutError`` when the assumptions admit no value or an operand's extent can be negative; return
    the reason when that could not be decided within ``budget`` seconds, else None.  ``positions``: the operands
    that are coordinates or indices, not extents (an operation's declaration says which, ``algebra.declare``)."""
    _, why = admitted_value(symbols, budget)
    if why is not None:
        return why
    if not shapes:
        return None
    leaves_ = [(k, leaf) for k, leaf in _shape_leaves(args, positions) if not leaf.concrete]
    if not leaves_:
        return None  # the parser rejects a non-positive literal extent
    import z3

    from verifier.solver.encoding import Encoder, Unencodable

    enc = Encoder(symbols)
    suspects = []
    for k, leaf in leaves_:
        lo, _ = enc.interval(leaf.expr)
        if lo is None or lo < 0:
            suspects.append((k, leaf))
    if not suspects:
        return None
    s = z3.Solver(ctx=enc.ctx)
    s.set("rlimit", max(1, int(budget * UNITS_PER_SECOND)))
    s.set("timeout", int(hang_guard(int(budget * UNITS_PER_SECOND)) * 1000))  # the safety net: a hang guard
    try:
        s.add(*enc.assumptions())
        for k, leaf in suspects:
            s.push()
            s.add(enc.term(leaf) < 0)
            s.add(*(enc.term(d) != 0 for d in enc.divisors))
            settle_memory(enc.ctx)
            r = s.check()
            if r == z3.sat:
                values = enc.model_values(s.model(), {sym.name for sym in symbols})
                try:
                    negative = _admits(symbols, values) and leaf.evaluate(values) < 0
                except UndefinedBehavior:
                    negative = False
                if negative:
                    at = ", ".join(f"{n}={v}" for n, v in values.items() if n in leaf.symbols())
                    raise LayoutError(f"argument {k + 1}: the extent {format_expr(leaf.expr)} is negative at {at}; "
                                      f"a shape's extents are sizes (>= 0) for every admitted value")
                return f"could not show that the extent {format_expr(leaf.expr)} is never negative"
            if r != z3.unsat:
                return f"could not show that the extent {format_expr(leaf.expr)} is never negative: " \
                       f"the solver gave up ({s.reason_unknown()})"
            s.pop()
    except Unencodable as exc:
        return f"cannot encode the operands' extents: {exc}"
    return None


__all__ = ["VacuousAssumptions", "admitted_value", "check_domain"]
