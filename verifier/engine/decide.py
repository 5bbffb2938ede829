"""The engine: prove an operation valid (or a layout property true) for every allowed value, refute it with a
replayed counterexample, or say ``unknown`` with the reason.

Each thing to decide is an ``Item``: a formula ``holds`` over the symbols and witness variables (coordinates),
universally quantified over ``lo <= w < hi`` for each witness and over the symbols' assumptions.  Deciding it is a
satisfiability question on its negation:

1. Z3 on the exact integer encoding (``encoding.py``): ``unsat`` is a proof; a model is a candidate
   counterexample.
2. When Z3 gives up (nonlinear arithmetic is undecidable in general), Z3 again with every symbol confined to its
   64 smallest allowed values: a cheap, finite search that finds the usual small counterexamples.
3. Otherwise ``unknown``, with the solver's reason.

Once one deciding item is refuted the verdict is settled; the other items are still decided, for the report, but
first with the symbols pinned to the values already found (where the problem is nearly linear and a failing
coordinate is found at once) and then within a short budget.

Soundness: a candidate counterexample is reported only after ``replay`` confirms it by concrete evaluation of the
algebra (rerun on the substituted operands, so an encoding mistake can never produce a false refutation), and a
proof is reported only on ``unsat`` of the full problem, whose assumptions include that no division can fault
(that is its own item, ``DIV0``, decided the same way).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

from verifier.algebra import ops as algebra
from verifier.algebra import registry
from verifier.contracts import claims
from verifier.contracts.claim import WITNESSES, Claim
from verifier.contracts.claims import Replay
from verifier.core import activity
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.integers import Bool, Const, D, Expr, Int, Op, Sym, and_, format_expr, le, ne, or_
from verifier.core.layouts import Layout, Tile
from verifier.core.obligations import NEEDS, NEVER, POSTCONDITION, UB, WARNING, severity
from verifier.core.overflow import COMPILE, OVERFLOW, under
from verifier.core.symbols import Symbols
from verifier.engine.verdicts import (
    DEFAULT_POLICY,
    INVALID,
    PROVED,
    REFUTED,
    UNKNOWN,
    VALID,
    Counterexample,
    ObligationVerdict,
    Policy,
    Verdict,
)
from verifier.notation.cpp import show
from verifier.notation.interop import coerce
from verifier.solver import finite
from verifier.solver.budget import DEFAULT_TIMEOUT, UNITS_PER_SECOND, Budget
from verifier.solver.domain import check_domain
from verifier.solver.simplify import QUOTIENT
from verifier.solver.solve import negate, solve

if TYPE_CHECKING:  # z3 and the encoding load on the first solver call, not at start-up
    from verifier.solver.encoding import Encoder
    from verifier.solver.solve import Formula, Model

BOUNDED_SPAN = 64
# Resource units an item gets once the verdict is settled by another item's counterexample (a quarter of a nominal
# second).
SETTLED_BUDGET = UNITS_PER_SECOND // 4
# Why an item is left undecided under ``Engine.settle_early``.
SETTLED = "not decided: the verdict was already settled by a counterexample"
# Resource units at most spent lowering a counterexample's values (two nominal seconds: half for all symbols at
# once, half for each alone).
MINIMISE_BUDGET = 2 * UNITS_PER_SECOND
# Preconditions whose failure is itself the error, with no postcondition to confirm it: a tile or thread
# coordinate outside the grid gives a view outside the tensor (docs/semantics.md, partitions).
SELF_EVIDENT = {"IX-2", "IX-3", "SLICE-IN", "TMA-RANK", "TMA-BOX", "TMA-INNER", "TMA-SWIZZLE", "TMA-MAJOR",
                "TMA-GSTRIDE", "TMA-GDIM"}
# The assumption CuTe documents for upcast's per-mode recast (layout.hpp:1820-1822): its failure is the error,
# while the claims' "same bytes" reading (RC-*) is stricter than CuTe's contract (a warning).
CONTRACT = {"UP-2"}
# Unchecked preconditions that decide the verdict even where the operation has claims (docs/semantics.md).
_KEPT = SELF_EVIDENT | {"MCV-1"}
# Obligations whose failure is itself undefined behaviour or a compile error: a division by zero, a signed
# overflow in CuTe's arithmetic (overflow.py).
_UNDEFINED = frozenset({UB, OVERFLOW, COMPILE})


@dataclass(frozen=True)
class Item:
    """One universally quantified statement to decide, with the concrete replay that confirms a refutation."""

    id: str
    description: str
    source: str
    cute_checks: str
    deciding: bool
    ranges: tuple[tuple[str, Int, Int], ...]
    holds: Bool
    replay: Callable[[Mapping[str, int]], Replay]
    kind: str = NEEDS  # what the item states (obligations.NEEDS, CLAUSE, POSTCONDITION)
    # ``replay`` fails exactly where ``holds`` evaluates to false (no concrete postcondition is consulted): a
    # point where the statement is false is a counterexample, whoever found it (``decide_all``'s smallest point).
    exact: bool = False

    @property
    def witnesses(self) -> tuple[str, ...]:
        return tuple(w for w, _, _ in self.ranges)

    @property
    def condition(self) -> str:
        text = format_expr(self.holds.expr)
        if self.ranges:
            bounds = ", ".join(f"{format_expr(lo.expr)} <= {w} < {format_expr(hi.expr)}" for w, lo, hi in self.ranges)
            text = f"for all {bounds}: {text}"
        return text


# Which route decided an item: Z3 on the whole problem (a proof, or a model it found), or the finite search over
# the symbols' smallest values (a counterexample).
FULL, BOUNDED, PINNED = "z3", "bounded search", "z3 at another item's counterexample values"
PINNED_EVALUATED = "evaluated at another item's counterexample values (no solver call)"
CONCRETE = "concrete evaluation (no solver)"
# The encoding's simplifier reduced the statement to true under the assumptions (Engine._negation): the first stage
# of the Z3 route, which then has nothing left to solve.
SIMPLIFIED = "z3's encoding: simplified to true (no solver call)"
# Its statement, free of witnesses, holds at every value of its symbols' ranges (few: solver.finite).
ENUMERATED = "evaluated at every value of its symbols (no solver call)"
# Every item left for the solver fails at the smallest admitted point, where the solver's counterexample, lowered by
# ``Engine._minimise``, would end (``decide_all``).
SMALLEST = "evaluated at the smallest admitted values (no solver call)"
# An exact item free of witnesses, over symbols of at most this many admitted points, is decided by evaluating it at
# every one where that answers as the solver's route would (``Engine.route_by_evaluation``): a few microseconds a
# point against a context and a query (5-10 ms) for each step of the route.
ROUTE_POINTS = 1 << 10
EVALUATED = "evaluated at every admitted value (no solver call)"
# An item free of symbols is decided by evaluating it at every witness value, up to this many, without Z3 (whose
# import and first query cost more than the evaluation).
CONCRETE_POINTS = 1 << 8


@dataclass(frozen=True)
class Decision:
    status: str
    counterexample: Counterexample | None = None
    reason: str | None = None
    route: str | None = None


class Engine:
    """Decides items over one symbol table within a budget of Z3 resource units (``budget.py``)."""

    def __init__(self, symbols: Symbols, timeout: float | None = DEFAULT_TIMEOUT, rlimit: int | None = None,
                 budget: Budget | None = None) -> None:
        self.symbols = symbols
        self.budget = budget if budget is not None else Budget(rlimit, timeout)
        # Stop at the first refutation that settles the verdict, leaving the other items undecided: for a caller
        # that reads only the verdict and its counterexample (a candidate of the guard search), not the report.
        self.settle_early = False
        self._routes: dict[int, tuple[Item, str]] = {}  # items proved by evaluation (_enumerated), kept as above
        self._evaluated: dict[int, tuple[Item, Decision | None]] = {}  # the item is kept so that its id stays its
        self._proved: dict[int, tuple[Item, bool]] = {}  # _without_solver's answers, kept as above

    @cached_property
    def encoder(self) -> Encoder:
        from verifier.solver.encoding import Encoder

        return Encoder(self.symbols, {w: (0, None) for w in WITNESSES})

    def remaining(self) -> int:
        """Resource units left (0 once the wall-clock safety net fired)."""
        return self.budget.left()

    # -- encoding ---------------------------------------------------------------------------------------------

    def _negation(self, item: Item) -> list[Formula] | None:
        """The item's negation under its witness domain, as Z3 formulas; None when the simplifier reduces the
        statement itself to true (``Encoder.simplifies_to_true``): the solver's query would be ``not true``, so
        the item is proved without one, and a verdict whose every item is costs no Z3 context (issue 28: most
        items of the parametric corpus's valid verdicts).  Either way its divisors are recorded, for DIV0."""
        if self._without_solver(item):
            return None
        return self._encoded(item)

    def _without_solver(self, item: Item) -> bool:
        """The item is proved without the solver (``_negation``'s None); its divisors are recorded either way,
        those of its witness ranges only when proved (the encoding records them otherwise, in that order)."""
        done = self._proved.get(id(item))
        if done is not None:  # decide_all asked first (recording is idempotent): the answer is the same
            return done[1]
        enc = self.encoder
        enc.context_empty = _empty(item.ranges, enc)
        proofs = _proofs()
        key = (item.holds.expr, item.ranges)
        try:
            before = self._proved_wider(proofs, key) if proofs is not None and self.settle_early else None
            if before is not None:
                enc.record_divisors(item.holds.expr)  # what simplifies_to_true records, with the same intervals
                self._routes[id(item)] = (item, before)
                proved = True
            else:
                proved = bool(enc.simplifies_to_true(item.holds.expr) or self._true_in_ranges(item)
                              or self._enumerated(item))
                if proved and proofs is not None:
                    proofs.setdefault(key, []).append((self._box(), self._routes.get(id(item), (item, SIMPLIFIED))[1]))
        finally:
            enc.context_empty = None
        self._proved[id(item)] = (item, proved)
        if not proved:
            return False
        for _, lo, hi in item.ranges:
            enc.record_divisors(lo)
            enc.record_divisors(hi)
        return True

    def _box(self) -> dict[str, tuple[int, int | None, int]]:
        return {s.name: (s.lo, s.hi, s.multiple_of) for s in self.symbols}

    def _proved_wider(self, proofs: dict[object, list[tuple[dict[str, tuple[int, int | None, int]], str]]],
                      key: object) -> str | None:
        """How the statement was proved without the solver over ranges and moduli that hold these symbols' (a guard
        candidate's table narrows its verdict's): a proof over every value of a wider box is one over this box, as
        the simplifier and the evaluation read only the ranges and moduli (issue 28: a candidate simplified each
        claim again).  Only for a decision read for its verdict and counterexample (``settle_early``)."""
        for box, route in proofs.get(key, ()):
            if all((sym := self.symbols.table.get(n)) is not None and sym.lo >= lo
                   and (hi is None or (sym.hi is not None and sym.hi <= hi)) and sym.multiple_of % m == 0
                   for n, (lo, hi, m) in box.items()):
                return route
        return None

    def _encoded(self, item: Item) -> list[Formula]:
        """The negation of an item ``_without_solver`` did not prove, as Z3 formulas (``_negation``)."""
        enc = self.encoder
        enc.context_empty = _empty(item.ranges, enc)
        try:
            out = [enc.boolean(item.holds.expr)]
        finally:
            enc.context_empty = None
        for w, lo, hi in item.ranges:
            v = enc.var(w)
            out += [v >= enc.term(lo), v < enc.term(hi)]
        # The negated statement, under the item's witness domain.
        return [*out[1:], negate(out[0])]

    def _enumerated(self, item: Item) -> bool:
        """An item without witnesses over symbols of few admitted values holds at every one of them
        (``solver.finite``): proved by evaluation, without a solver call or a context (issue 28)."""
        from verifier.solver.finite import holds_everywhere

        if item.ranges or not holds_everywhere(item.holds, self.symbols):
            return False
        self._routes[id(item)] = (item, ENUMERATED)
        return True

    def _true_in_ranges(self, item: Item) -> bool:
        """The simplifier proves the statement with each witness bounded by the interval of its range (``0 <= #j
        < 128``, ``1 <= #i``: ``128*#i != #j``), which the encoder's shared simplifier, where a witness is any
        value from 0, cannot use.  A simplifier of its own (the intervals are this item's), no solver."""
        if not item.ranges:
            return False
        from verifier.solver.encoding import Encoder

        enc = self.encoder
        assert enc.witnesses is not None
        bounds = dict(enc.witnesses)
        for w, lo, hi in item.ranges:
            low, high = enc.interval(lo.expr)[0], enc.interval(hi.expr)[1]
            bounds[w] = (max(0, low if low is not None else 0), None if high is None else high - 1)
        return Encoder(self.symbols, bounds).simplifies_to_true(item.holds.expr)

    def divisors(self) -> list[Expr]:
        """Every divisor met while encoding that is free of witnesses and not provably nonzero."""
        seen: dict[Expr, None] = {}
        if "encoder" not in self.__dict__:  # nothing was encoded
            return []
        for e in self.encoder.divisors:
            if not (set(e.symbols()) & set(WITNESSES)):
                seen.setdefault(e, None)
        return list(seen)

    # -- deciding ---------------------------------------------------------------------------------------------

    def closed(self, item: Item) -> bool:
        """The problem has no symbols and the item mentions only its witnesses (a replay then needs no values)."""
        if any(True for _ in self.symbols):
            return False
        names = set(item.holds.expr.symbols())
        for _, lo, hi in item.ranges:
            names |= lo.symbols() | hi.symbols()
        return names <= set(item.witnesses)

    def evaluate(self, item: Item) -> Decision | None:
        """Decide a closed item by evaluating it at every witness value (None: too many, or undefined there)."""
        if id(item) not in self._evaluated:
            self._evaluated[id(item)] = (item, self._evaluate(item))
        return self._evaluated[id(item)][1]

    def _evaluate(self, item: Item) -> Decision | None:
        try:  # too many witness values: the solver decides (checked first: one evaluation costs tens of µs)
            count = 1
            for _, lo, hi in item.ranges:
                count *= max(0, int(hi.evaluate({})) - int(lo.evaluate({})))
            if count > CONCRETE_POINTS:
                return None
        except (KeyError, UndefinedBehavior, ZeroDivisionError):
            pass  # a range that depends on an earlier witness: counted while enumerating
        points = [0]

        def walk(k: int, env: dict[str, int]) -> Iterator[dict[str, int]]:
            if k == len(item.ranges):
                yield env
                return
            w, lo, hi = item.ranges[k]
            for x in range(int(lo.evaluate(env)), int(hi.evaluate(env))):
                points[0] += 1
                if points[0] > CONCRETE_POINTS:
                    raise _TooMany
                yield from walk(k + 1, {**env, w: x})

        try:
            for env in walk(0, {}):
                if not item.holds.expr.evaluate(env):
                    r = item.replay(env)
                    if not r.fails:
                        return None
                    coord = tuple(env[w] for w in item.witnesses)
                    return Decision(REFUTED, Counterexample({}, item.id, coord[0] if len(coord) == 1 else
                                                            (coord or None), r.expected, r.actual), route=CONCRETE)
        except (_TooMany, UndefinedBehavior, ZeroDivisionError):
            return None
        return Decision(PROVED, route=CONCRETE)

    def decide(self, item: Item, budget: float | None = None, assume_nonzero: bool = True,
               hints: Sequence[Mapping[str, int]] = ()) -> Decision:
        """Decide one item.  ``hints`` are symbol values at which another item already failed: tried first, with
        the symbols pinned, and their presence means the verdict is settled, so the budget is capped."""
        activity.doing(f"{item.id}: {item.description}")
        if self.closed(item):
            done = self.evaluate(item)
            if done is not None:
                return done
        from verifier.solver.encoding import Unencodable

        try:
            negation = self._negation(item)
        except Unencodable as exc:
            return Decision(UNKNOWN, reason=f"cannot encode: {exc}")
        if negation is None:
            return Decision(PROVED, route=self._routes.get(id(item), (item, SIMPLIFIED))[1])
        base = self.encoder.assumptions()
        nonzero: list[Expr] | None = [] if assume_nonzero else None  # the divisors assumed nonzero in ``base``
        if nonzero is not None:
            for d in self.divisors():
                try:
                    base.append(self.encoder.nonzero(d))
                except Unencodable:
                    continue  # a fact the solver may go without: fewer assumptions, never a wrong proof
                nonzero.append(d)
        units = self.remaining() if budget is None else min(budget, self.remaining())
        if hints:
            units = min(units, SETTLED_BUDGET)
        for hint in hints[:2]:
            ground = self._at_hint(item, hint, nonzero, units / 4)
            if isinstance(ground, Counterexample):
                return Decision(REFUTED, counterexample=ground, route=PINNED_EVALUATED)
            if ground is None:
                continue
            pinned = [self.encoder.var(n) == v for n, v in hint.items() if n in self.symbols]
            status, model, _ = solve(base + negation + pinned, self.budget.part(units / 4))
            if status == "sat":
                found = self._confirm(item, model)
                if found is not None:
                    return Decision(REFUTED, counterexample=found, route=PINNED)
        routed = self.route_by_evaluation(item, nonzero, units)
        if routed is not None:
            return routed
        status, model, why = solve(base + negation, self.budget.part(units))
        if status == "unsat":
            return Decision(PROVED, route=FULL)
        # A counterexample in small values reads better, and when Z3 gave up on the unbounded problem the finite
        # search over the small values is where counterexamples usually are.
        found = self._confirm(item, model) if status == "sat" else None
        route = FULL
        if found is None or not self._small(found.params):
            bounded = [self.encoder.var(sym.name) <= sym.lo + BOUNDED_SPAN * sym.multiple_of for sym in self.symbols]
            small, model2, _ = solve(base + negation + bounded, self.budget.part(units / 2))
            smaller = self._confirm(item, model2) if small == "sat" else None
            if smaller is not None:
                found, route = smaller, BOUNDED
        if found is not None:
            # A candidate of the guard search (settle_early) keeps its counterexample only to skip later candidates
            # that admit it: lowering its values (a third of the slowest check's time) would not be shown.
            if not self.settle_early:
                found = self._minimise(item, base + negation, found, nonzero)
            return Decision(REFUTED, counterexample=found, route=route)
        if status == "sat":
            why = "the solver's candidate counterexample did not replay concretely"
        return Decision(UNKNOWN, reason=why)

    def _minimise(self, item: Item, constraints: list[Formula], found: Counterexample,
                  nonzero: Sequence[Expr] | None = None) -> Counterexample:
        """The counterexample lowered towards the smallest admitted values at which the item still fails, in two
        passes.  First all symbols at once: the least bound ``b`` such that the item fails with every symbol
        within ``b`` of its minimum, by bisection on ``b`` (a failure within ``b`` is one within any larger bound,
        so the search is exact up to the solver's budget), which finds values tied by a relation (``K == ldA``)
        that no symbol can lower alone.  Then each symbol, in table order, lowered alone (the others kept), by
        bisection with every symbol pinned, so Z3 only looks for the witness coordinate (quick).  Every candidate
        is replayed concretely.  Best effort within ``MINIMISE_BUDGET`` resource units: the verdict never depends
        on it, only how readable the values are, and the values found do not depend on the machine's load."""
        budget = self.budget.part(min(MINIMISE_BUDGET, self.remaining() / 4))
        found = self._lower_together(item, constraints, found, budget.part(budget.left() / 2))
        for sym in self.symbols:
            name = sym.name
            if name not in found.params:
                continue
            lo, hi = sym.lo, found.params[name]
            while lo < hi and budget.left() >= 1000:
                mid = lo + (hi - lo) // 2
                mid += -mid % sym.multiple_of  # an admitted value: the next multiple
                smaller = (self._fails_at(item, constraints, {**found.params, name: mid}, budget, nonzero)
                           if mid < hi else None)
                if smaller is not None:
                    found, hi = smaller, mid
                else:
                    lo = mid + 1
        return found

    def _lower_together(self, item: Item, constraints: list[Formula], found: Counterexample, budget: Budget
                        ) -> Counterexample:
        """The first pass of ``_minimise``: bisection on the common distance of every symbol from its minimum."""
        syms = [s for s in self.symbols if s.name in found.params]

        def distance(c: Counterexample) -> int:
            return max((c.params[s.name] - s.lo for s in syms), default=0)

        lo, hi = 0, distance(found)
        while lo < hi and budget.left() >= 1000:
            mid = lo + (hi - lo) // 2
            near = [self.encoder.var(s.name) <= s.lo + mid for s in syms]
            status, model, _ = solve([*constraints, *near], budget.part(UNITS_PER_SECOND // 8))
            smaller = self._confirm(item, model) if status == "sat" else None
            if smaller is not None and distance(smaller) <= mid:
                found, hi = smaller, distance(smaller)
            else:
                lo = mid + 1
        return found

    def _fails_at(self, item: Item, constraints: list[Formula], params: Mapping[str, int], budget: Budget,
                  nonzero: Sequence[Expr] | None = None) -> Counterexample | None:
        """The item's counterexample at exactly these symbol values (a witness found by Z3), or None.  An item
        without witnesses, pinned at every symbol, is a ground statement: evaluated (``_pinned``) where that
        answers as the solver would, the solver and its context otherwise."""
        from verifier.core.symbols import _holds

        if not all(s.admits(params[s.name]) for s in self.symbols if s.name in params):
            return None
        if not all(_holds(r, params) for r in self.symbols.relations):
            return None
        if not item.ranges and nonzero is not None and all(s.name in params for s in self.symbols):
            ground = self._pinned(item, params, nonzero)
            if ground is not _OPEN:
                return ground  # type: ignore[return-value]
        pinned = [self.encoder.var(n) == v for n, v in params.items()]
        status, model, _ = solve([*constraints, *pinned], budget.part(UNITS_PER_SECOND // 10))
        return self._confirm(item, model) if status == "sat" else None

    def _pinned(self, item: Item, params: Mapping[str, int], nonzero: Sequence[Expr]) -> Counterexample | None | object:
        """What the solver answers on the item's negation with every symbol pinned to ``params`` (admitted: the
        caller checked), under the assumption that each of ``nonzero`` is nonzero where CuTe divides by it: sat
        exactly when those hold and the statement is false there, and its model is ``params`` itself, which
        ``_confirm`` replays.  ``_OPEN`` where evaluating divides by zero (Z3's division by zero is a free value):
        the solver decides.  No context, no units (issue 28: the bisection of a counterexample's values)."""
        env = dict(params)
        fails = self._fails_pinned(item, env, nonzero)
        return self._confirm_values(item, env) if fails is True else fails

    def _fails_pinned(self, item: Item, env: Mapping[str, int], nonzero: Sequence[Expr]) -> bool | None | object:
        """``_pinned`` without the replay: True where it would replay ``params``, else None or ``_OPEN``."""
        try:
            for d in nonzero:
                empties = self.encoder.empty_when.get(d)
                if d.evaluate(env) == 0 and not (empties and all(e.evaluate(env) for e in empties)):
                    return None
            if item.holds.evaluate(env):
                return None
        except (ArithmeticError, KeyError, UndefinedBehavior):
            return _OPEN
        return True

    def decide_unencoded(self, item: Item, budget: float | None, hints: Sequence[Mapping[str, int]]
                         ) -> Decision | None:
        """``decide`` on an item ``decide_all`` left unencoded (exact, free of witnesses), where its answer is found
        without the solver (``_at_hint``, ``route_by_evaluation``); None where the solver must be asked."""
        activity.doing(f"{item.id}: {item.description}")
        nonzero = self.divisors()
        if _unencodable(item.holds.expr, nonzero, self.symbols):
            return None  # decide would drop an unencodable divisor's assumption, or answer unknown
        units = self.remaining() if budget is None else min(budget, self.remaining())
        if hints:
            units = min(units, SETTLED_BUDGET)
        for hint in hints[:2]:
            ground = self._at_hint(item, hint, nonzero, units / 4)
            if isinstance(ground, Counterexample):
                return Decision(REFUTED, counterexample=ground, route=PINNED_EVALUATED)
            if ground is not None:
                return None
        return self.route_by_evaluation(item, nonzero, units)

    def _at_hint(self, item: Item, hint: Mapping[str, int], nonzero: Sequence[Expr] | None, units: float
                 ) -> Counterexample | None | object:
        """What the solver answers on the item's negation with the symbols pinned to another item's counterexample
        (``decide``'s hints), found by evaluation where the item is free of witnesses and the hint pins every
        symbol (``_ground``): the model is the hint itself.  ``_OPEN`` where the solver must be asked."""
        if item.ranges or nonzero is None or min(self.remaining(), units) < 1000 \
                or not all(s.name in hint for s in self.symbols):
            return _OPEN
        return self._ground(item, {s.name: hint[s.name] for s in self.symbols}, nonzero)

    def _ground(self, item: Item, params: Mapping[str, int], nonzero: Sequence[Expr]) -> Counterexample | None | object:
        """``_fails_at`` at a point that pins every symbol of an item free of witnesses, without the solver: None
        where the point is not admitted (the solver's query is unsat there), else ``_pinned``."""
        fails = self._fails_ground(item, params, nonzero)
        return self._confirm_values(item, dict(params)) if fails is True else fails

    def _fails_ground(self, item: Item, params: Mapping[str, int], nonzero: Sequence[Expr]) -> bool | None | object:
        """``_ground`` without the replay (``_fails_pinned``)."""
        from verifier.core.symbols import _holds

        if not all(s.admits(params[s.name]) for s in self.symbols):
            return None
        if not all(_holds(r, params) for r in self.symbols.relations):
            return None
        return self._fails_pinned(item, params, nonzero)

    def route_by_evaluation(self, item: Item, nonzero: Sequence[Expr] | None, units: float) -> Decision | None:
        """What ``decide``'s solver route answers for an ``exact`` item free of witnesses whose symbols have at most
        ``ROUTE_POINTS`` admitted points together, found by evaluating it at every one of them (issue 28: most of
        a partial tile's verdict was the solver's first query and ``_lower_together``'s bisection, in contexts of
        their own); None where the solver must be asked.

        Where it fails at no admitted point (and is defined at each), the solver can only answer unsat: proved.
        Where it fails, the route ends, whatever model the solver starts from, at a point of the least distance
        from the symbols' minima (``_lower_together``'s bisection is exact), lowered symbol by symbol
        (``_minimise``'s second pass, ``_ground`` at each step): when every failing point of that distance
        lowers to the same point, that is the counterexample, replayed as the route replays it.  Only with the
        budget the route needs (its queries would otherwise run out of units and leave another answer)."""
        if not item.exact or item.ranges or self.settle_early or nonzero is None or units < 2000 \
                or self.remaining() < 4 * MINIMISE_BUDGET:
            return None
        syms = list(self.symbols)
        if not syms or _unencodable(item.holds.expr, nonzero, self.symbols):
            return None
        if self._proved_projected(item, nonzero):
            return Decision(PROVED, route=EVALUATED)
        names = [s.name for s in syms]
        lows = [s.lo for s in syms]
        where = finite.points(self.symbols, names, ROUTE_POINTS)
        if where is None:
            return None
        nearest: list[dict[str, int]] = []
        least = None
        for point in where:
            values = [point[n] for n in names]
            got = self._fails_ground(item, point, nonzero)
            if got is _OPEN:
                return None  # undefined at an admitted point: the solver's model there would be replayed as UB
            if got is None:
                continue
            far = max(v - lo for v, lo in zip(values, lows))
            if least is None or far < least:
                least, nearest = far, [point]
            elif far == least:
                nearest.append(point)
        if least is None:
            return Decision(PROVED, route=EVALUATED)
        ends = set()
        for p in nearest:
            end = self._lowered(item, p, nonzero)
            if end is None:
                return None
            ends.add(tuple(end.items()))
        if len(ends) != 1:
            return None
        # an exact item replays as failing wherever it evaluates to false: the one replay, at the end
        found = self._confirm_values(item, dict(ends.pop()))
        if found is None:
            return None
        return Decision(REFUTED, counterexample=found, route=EVALUATED)

    def _proved_projected(self, item: Item, nonzero: Sequence[Expr]) -> bool:
        """The statement holds at every admitted value of its own symbols and of those the relations tie to them
        (at most ``ROUTE_POINTS``), wherever it is defined and the divisors over those symbols are nonzero: then no
        admitted point of the whole table falsifies it, and the solver could only answer unsat.  False says
        nothing."""
        from verifier.core.symbols import _holds

        names, relations = finite.tied(self.symbols, set(item.holds.expr.symbols()))
        if not names:
            return False
        empty_when = self.encoder.empty_when
        guards = [(d, empty_when.get(d) or []) for d in nonzero]
        guards = [(d, es) for d, es in guards if set(d.symbols()) <= names
                  and all(set(e.expr.symbols()) <= names for e in es)]
        order = [sym.name for sym in self.symbols if sym.name in names]
        where = finite.points(self.symbols, order, ROUTE_POINTS)
        if where is None:
            return False
        try:
            for point in where:
                if not all(_holds(r, point) for r in relations):
                    continue
                if any(d.evaluate(point) == 0 and not (es and all(e.evaluate(point) for e in es)) for d, es in guards):
                    continue
                if not item.holds.evaluate(point):
                    return False
        except (ArithmeticError, KeyError, UndefinedBehavior):
            return False
        return True

    def _lowered(self, item: Item, params: dict[str, int], nonzero: Sequence[Expr]) -> dict[str, int] | None:
        """``_minimise``'s second pass from ``params``, each step evaluated (``_fails_ground``); None where one
        needs the solver."""
        for sym in self.symbols:
            name = sym.name
            lo, hi = sym.lo, params[name]
            while lo < hi:
                mid = lo + (hi - lo) // 2
                mid += -mid % sym.multiple_of
                fails = self._fails_ground(item, {**params, name: mid}, nonzero) if mid < hi else None
                if fails is _OPEN:
                    return None
                if fails is True:
                    params, hi = {**params, name: mid}, mid
                else:
                    lo = mid + 1
        return params

    def smallest_point(self) -> dict[str, int] | None:
        """Every symbol at its lower bound, when that point is admitted (each bound a multiple of its symbol's
        modulus, every relation true there), else None: the one point within distance 0 of ``_lower_together``."""
        from verifier.core.symbols import _holds

        point = {s.name: s.lo for s in self.symbols}
        if not all(s.admits(s.lo) for s in self.symbols):
            return None
        try:
            if not all(_holds(r, point) for r in self.symbols.relations):
                return None
        except ArithmeticError:
            return None
        return point

    def fails_at_smallest(self, item: Item, point: Mapping[str, int]) -> Counterexample | None:
        """The counterexample that deciding an ``exact`` item without witnesses would report, when the item fails
        at the smallest admitted point (``smallest_point``), found without the solver; None otherwise.

        That point satisfies every query ``decide`` and ``_minimise`` send for the item (the assumptions, each
        divisor met nonzero, the negation), so each of the solver's answers is a model, which replays as failing
        (the item is exact); ``_lower_together``'s bisection then lowers the common distance to 0, where the point
        is the only admitted one: the solver's route ends at this point, whatever model it starts from."""
        if not item.exact or item.ranges:
            return None
        found = self._pinned(item, point, self.divisors())
        return found if isinstance(found, Counterexample) else None

    def _small(self, params: Mapping[str, int]) -> bool:
        return all(params.get(s.name, s.lo) <= s.lo + BOUNDED_SPAN * s.multiple_of for s in self.symbols)

    def _confirm(self, item: Item, model: Model) -> Counterexample | None:
        names = [s.name for s in self.symbols] + list(item.witnesses)
        return self._confirm_values(item, self.encoder.model_values(model, names))

    def _confirm_values(self, item: Item, values: dict[str, int]) -> Counterexample | None:
        try:
            r = item.replay(values)
        except UndefinedBehavior as exc:  # evaluating the item itself divides by zero there: CuTe would too
            r = Replay(True, undefined=str(exc))
        if not r.fails:
            return None
        params = {k: v for k, v in values.items() if k not in WITNESSES}
        coord: int | tuple[int, ...] | None = None
        if item.witnesses:
            ws = tuple(values[w] for w in item.witnesses)
            coord = ws[0] if len(ws) == 1 else ws
        return Counterexample(params, item.id, coord, r.expected, r.actual,
                              note=f"undefined behaviour: {r.undefined}" if r.undefined else None)


class _TooMany(Exception):
    pass


def _unencodable(holds: Expr, nonzero: Sequence[Expr], symbols: Symbols) -> bool:
    """The statement, a divisor or a relation holds ``gcd``/``lcm``, which the encoder may refuse (then the solver's
    route answers ``unknown`` or drops the assumption, which evaluation would not)."""
    stack = [holds, *nonzero, *(r.expr for r in symbols.relations)]
    while stack:
        e = stack.pop()
        if type(e) is Op:
            if e.op in ("gcd", "lcm"):
                return True
            stack.extend(e.args)
    return False


_OPEN = object()  # Engine._pinned: the solver must decide


# -- operations -----------------------------------------------------------------------------------------------


# How a refuted claim is replayed: ``(op, args, claim index, values, claim id)``.
_Confirm = Callable[[str, Sequence[object], int, Mapping[str, int], str], Replay]


def _concrete_claims(op: str, args: Sequence[object], values: Mapping[str, int]) -> Callable[[], list[Claim]]:
    """``claims.concrete_claims`` at the symbols' values, remembered within ``same_operands``: the claims of one
    verdict replayed at one point (a partial tile's DIV-EXACT per mode at the smallest sizes) share the run."""
    from verifier.core.semantics import current

    point = tuple(sorted((n, v) for n, v in values.items() if n not in WITNESSES))

    def compute() -> tuple[list[Claim] | None, Exception | None]:
        try:
            return claims.concrete_claims(op, args, dict(point)), None
        except (UndefinedBehavior, CuteRejection) as exc:
            return None, exc

    def built() -> list[Claim]:
        got, exc = _shared(("concrete", op, current(), point, *map(id, args)), args, compute)
        if exc is not None:
            raise exc
        assert got is not None
        return got

    return built


def _claim_items(op: str, args: Sequence[object], built: list[Claim]) -> list[Item]:
    items = []
    for k, c in enumerate(built):
        confirm = _exact_replay if c.exact else _oracle_replay

        def replay(values: Mapping[str, int], k: int = k, confirm: _Confirm = confirm, id: str = c.id) -> Replay:
            return confirm(op, args, k, values, id)

        # an exact claim's replay evaluates the same statement on the concrete operands' result
        items.append(Item(c.id, c.description, c.source, NEVER, True, c.ranges, c.holds, replay, exact=c.exact))
    return items


def _exact_replay(op: str, args: Sequence[object], k: int, values: Mapping[str, int], id: str) -> Replay:
    return claims.replay(op, args, k, values, id, built=_concrete_claims(op, args, values))


def _oracle_replay(op: str, args: Sequence[object], k: int, values: Mapping[str, int], id: str) -> Replay:
    """The claim fails here and the algebra's own concrete postcondition says CuTe's result is wrong here."""
    r = claims.replay(op, args, k, values, built=_concrete_claims(op, args, values))
    if not r.fails:
        return r
    try:
        wrong = not valid_at(op, args, {n: v for n, v in values.items() if n not in WITNESSES},
                             strict=severity(id) == WARNING)
    except claims.TooLarge:
        wrong = False
    return r if wrong else Replay(False)


def _obligation_items(op: str, args: Sequence[object], outcome: registry.Outcome, have_claims: bool,
                      exact_claims: bool = False) -> list[Item]:
    """The items of the obligations the algebra recorded.  Its postconditions (decided by enumeration on concrete
    values) are superseded by claims that state them exactly; beside claims that are only sufficient they are shown,
    the exact answer on these values."""
    items = []
    for ob in outcome.obligations:
        if exact_claims and ob.kind != NEEDS:
            continue
        # With claims, CuTe's unchecked preconditions are shown but the claims decide, except the ones whose
        # failure is the error itself and those the semantics list among the operation's checks.
        deciding = (ob.cute_checks in _UNDEFINED or ob.id in CONTRACT
                    or (ob.cute_checks == NEVER and (not have_claims or ob.id in _KEPT)))
        cond = ob.condition

        def replay(values: Mapping[str, int], cond: Bool = cond, ub: bool = ob.cute_checks in _UNDEFINED,
                   ob_id: str = ob.id) -> Replay:
            if cond.evaluate(values):
                return Replay(False)
            if ub:
                return Replay(True)
            # Without a postcondition of its own, a failing condition is reported only where the algebra's
            # concrete postcondition confirms that CuTe's result is wrong.
            try:
                return Replay(not valid_at(op, args, values, strict=severity(ob_id) == WARNING))
            except claims.TooLarge:
                return Replay(False)

        def recheck(values: Mapping[str, int], cond: Bool = cond) -> Replay:
            return Replay(not cond.evaluate(values))

        items.append(Item(ob.id, ob.description, ob.source, ob.cute_checks, deciding, (), cond,
                          replay if not have_claims else recheck, ob.kind,
                          exact=have_claims or ob.cute_checks in _UNDEFINED))
    return items


def _empty(ranges: Sequence[tuple[str, Int, Int]], enc: Encoder) -> Bool | None:
    """When the witnesses' domain is empty (some witness-free range ``lo <= w < hi`` with ``hi <= lo``), or None
    when no range can be: a division by an extent that runs per coordinate runs for none of an empty layout.
    Ranges that the symbols' bounds keep non-empty are left out (a disjunction the solver need not consider)."""
    empties = [le(hi, lo) for _, lo, hi in ranges
               if not (set(lo.symbols()) | set(hi.symbols())) & set(WITNESSES)
               and not _never_empty(enc, lo, hi)]
    return or_(*empties) if empties else None


def _never_empty(enc: Encoder, lo: Int, hi: Int) -> bool:
    low = enc.interval((hi - lo).expr)[0]
    return low is not None and low >= 1


def _div0_item(divisors: list[Expr], empty_when: Mapping[Expr, list[Bool] | None]) -> Item:
    def defined(d: Expr) -> Bool:
        empties = empty_when.get(d)
        ok = ne(Int(d, False), D(0))
        return or_(ok, and_(*empties)) if empties else ok

    cond = and_(*(defined(d) for d in divisors))

    def replay(values: Mapping[str, int]) -> Replay:
        for d in divisors:
            empties = empty_when.get(d)
            if d.evaluate(values) == 0 and not (empties and all(e.evaluate(values) for e in empties)):
                return Replay(True, undefined=f"{format_expr(d)} == 0 is a divisor")
        return Replay(False)

    return Item("DIV0", "no division by zero in CuTe's arithmetic or in evaluating the layouts", "stride.hpp, "
                "layout.hpp", UB, True, (), cond, replay)


def items_for(op: str, args: Sequence[object], outcome: registry.Outcome, symbols: Symbols | None = None
              ) -> list[Item]:
    """What must be decided for ``op(*args)``: its claims, then the obligations the algebra recorded, then
    (with the symbols' widths) that the result evaluates without overflow where the operands do."""
    from verifier.core.semantics import current

    key = ("items", op, current(), id(outcome), None if symbols is None else _assumed(symbols), *map(id, args))
    return list(_shared(key, (args, outcome), lambda: _items_for(op, args, outcome, symbols)))


def _items_for(op: str, args: Sequence[object], outcome: registry.Outcome, symbols: Symbols | None) -> list[Item]:
    if _composed_slice(op, args):  # its contract is SLICE-POST, which the algebra records (algebra/composed_slice.py)
        return _obligation_items(op, args, outcome, have_claims=False)
    built = _built(op, args, outcome.result)
    exact = bool(built) and all(c.exact for c in built)
    return _claim_items(op, args, built) + _obligation_items(op, args, outcome, bool(built), exact) + \
        _result_items(args, outcome, symbols)


# What one verdict and its guard search compute more than once (``same_operands``), by operation, semantics and
# operands (and the symbols' assumptions where the value depends on them): the claims, which depend on the operands
# alone (``predicated_copy``'s took 12 ms, rebuilt for each of 64 candidates), the algebra's outcome under the
# symbols' widths and the items (the verdict, the overflow caps and the necessity of its guard each computed them,
# issue 28).  Scoped to the verdict, so no answer depends on what the process decided before.
_SHARED: ContextVar[dict[tuple[object, ...], tuple[object, object]] | None] = ContextVar("shared", default=None)


@contextmanager
def same_operands() -> Iterator[None]:
    """Within this block, the claims, outcomes and items of one operation on one list of operands are computed
    once (``_built``, ``applied``, ``items_for``); a block inside another shares its memory."""
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


_T = TypeVar("_T")


def _shared(key: tuple[object, ...], keep: object, compute: Callable[[], _T]) -> _T:
    """``compute()``, remembered under ``key`` within ``same_operands`` (``keep``: the objects whose ids the key
    holds, kept alive with the value so that no other object takes their ids)."""
    shared = _SHARED.get()
    if shared is None:
        return compute()
    got = shared.get(key)
    if got is None:
        got = shared[key] = (keep, compute())
    return got[1]  # type: ignore[return-value]


def _proofs() -> dict[object, list[tuple[dict[str, tuple[int, int | None, int]], str]]] | None:
    """The statements proved without the solver within ``same_operands``, with the ranges and moduli they were
    proved over and the route (``Engine._proved_wider``)."""
    shared = _SHARED.get()
    if shared is None:
        return None
    got = shared.get(("proofs",))
    if got is None:
        got = shared[("proofs",)] = (None, {})
    return got[1]  # type: ignore[return-value]


def _assumed(symbols: Symbols) -> tuple[object, ...]:
    return (*symbols, *symbols.relations)


def applied(op: str, args: Sequence[object], symbols: Symbols) -> registry.Outcome:
    """``registry.apply(op, *args)`` with the symbols' widths and ranges in force (``overflow.under``)."""
    from verifier.core.semantics import current

    def compute() -> registry.Outcome:
        with under(symbols):
            return registry.apply(op, *args)

    return _shared(("apply", op, current(), _assumed(symbols), *map(id, args)), args, compute)


_COMPUTE = object()  # _built's result not given: computed (registry.apply) only when the claims are not shared yet


def _built(op: str, args: Sequence[object], result: object = _COMPUTE) -> list[Claim]:
    from verifier.core.semantics import current

    return list(_shared(("claims", op, current(), *map(id, args)), args,
                        lambda: claims.build(op, args, claims.result_of(op, args) if result is _COMPUTE else result)))


def _result_items(args: Sequence[object], outcome: registry.Outcome, symbols: Symbols | None) -> list[Item]:
    from verifier.core.overflow import OVF_RESULT, result_condition

    if symbols is None or outcome.result is None:
        return []
    cond = result_condition(tuple(args), outcome.result, symbols)
    if cond is None or cond.value is True:
        return []

    def replay(values: Mapping[str, int], cond: Bool = cond) -> Replay:
        return Replay(not cond.evaluate(values))

    return [Item(OVF_RESULT, "the result evaluates without overflow (size, coord*stride, the sums of crd2idx) "
                 "wherever the operands do", "stride.hpp:60-124", OVERFLOW, True, (), cond, replay, exact=True)]


def _bare_swizzle(args: Sequence[object]) -> bool:
    from verifier.core.swizzle import Swizzle

    return bool(args) and isinstance(args[0], Swizzle)


def decide_operation(op: str, args: Sequence[object], symbols: Symbols, budget: Budget, policy: Policy,
                     settle_early: bool = False) -> Verdict:
    """The verdict on ``op(*args)`` within ``budget``, without a guard (``engine.verify`` adds it): the domain
    check, CuTe's own rejections and undefined behaviour, then the claims and obligations decided.  With
    ``settle_early`` (``Engine.settle_early``) the items still to decide once one is refuted are left undecided: the
    verdict is the same (``invalid``, with a counterexample), the report is not complete."""
    args = [coerce(a) for a in args]  # pycute layouts are accepted (interop.py)
    inputs = tuple(show(a) for a in args)
    assumptions = symbols.described()
    row = registry.REGISTRY.get(op)
    positions = () if row is None else tuple(row.template + k for k in row.coordinates)
    undecided = check_domain(op, args, symbols, positions=positions)
    if undecided is not None:
        return Verdict(op, inputs, UNKNOWN, reason=undecided, assumptions=assumptions)
    outcome = applied(op, args, symbols)  # CuTe's integer types: the symbols' widths, their ranges bound them
    if outcome.rejection is not None:
        return Verdict(op, inputs, INVALID, reason=str(outcome.rejection),
                       assumptions=assumptions)
    if outcome.undefined is not None:
        return Verdict(op, inputs, INVALID, reason=f"undefined behaviour in CuTe: {outcome.undefined}",
                       assumptions=assumptions)
    from verifier.algebra.composed import ONE_WAY, TRANSFER, inner_problem, outer_layout_problem

    inner = inner_problem(op, list(args))
    if inner is not None:  # Sw o O o B: the operation on B decides it exactly (composed_ops.py)
        v = decide_operation(op, inner, symbols, budget, policy, settle_early)
        routed = tuple(replace(d, route=f"{TRANSFER}; {d.route}" if d.route else TRANSFER) for d in v.obligations)
        return replace(v, inputs=inputs, result=str(outcome.result), obligations=routed)
    one_way = outer_layout_problem(op, list(args))
    # A o O o B, A a layout: a valid op(B) proves it; a refutation must replay on the composed operand.
    if one_way is not None and not all(_concrete(a) for a in args):
        v = decide_operation(op, one_way, symbols, budget, policy, settle_early)
        cex = v.counterexample
        replayed = False
        if v.verdict == INVALID and cex is not None:
            try:
                replayed = not valid_at(op, args, cex.params)
            except (claims.TooLarge, LayoutError, ArithmeticError):
                replayed = False
        if v.verdict == VALID or replayed:
            routed = tuple(replace(d, route=f"{ONE_WAY}; {d.route}" if d.route else ONE_WAY) for d in v.obligations)
            return replace(v, inputs=inputs, result=str(outcome.result), obligations=routed)
    if _composed_slice(op, args):  # a composed slice: SLICE-POST decides (algebra/composed_slice.py)
        items = items_for(op, args, outcome)
        symbolic_post = any(o.id == "SLICE-POST" for o in outcome.obligations)
        if not symbolic_post:
            return Verdict(op, inputs, UNKNOWN, str(outcome.result), reason="slice_and_offset of a composed layout "
                           "is decided only for a slice of static size up to 4096 (SLICE-POST)",
                           assumptions=assumptions)
    elif op == "make_tma_box":  # TMA-POST and the driver's constraints (algebra/tma.py), symbolic gmem included
        items = items_for(op, args, outcome)
        symbolic_post = True
    elif any(_unmodelled(a, op) for a in args) and not all(_concrete(a) for a in args):
        built = claims.swizzled_claims(op, args, outcome.result)
        if built is None:
            return Verdict(op, inputs, UNKNOWN, str(outcome.result), reason="the engine decides swizzled and "
                           "scaled-basis (E<i>) operands only on concrete values; these have symbols",
                           assumptions=assumptions)
        # The contract stated over the functions' values, a symbolic swizzle bit by bit (algebra.swizzled.claims).
        items = _claim_items(op, args, built) + _obligation_items(op, args, outcome, True, True)
        symbolic_post = True
    elif op == "composition" and _bare_swizzle(args) and \
            (built := claims.swizzled_claims(op, args, outcome.result)) is not None:
        # A swizzle functor after a layout (a swizzle atom): the algebra records no postcondition for it, the
        # contract over the functions' values decides it (as for symbolic operands above).
        items = _claim_items(op, args, built) + _obligation_items(op, args, outcome, True, True)
        symbolic_post = True
    elif any(_unmodelled(a, op) for a in args):
        # Concrete: the algebra's own postcondition, decided by enumeration, is the verdict.
        items = _obligation_items(op, args, outcome, have_claims=False) + _result_items(args, outcome, symbols)
        symbolic_post = False
    else:
        items = items_for(op, args, outcome, symbols)
        symbolic_post = claims.has_postcondition(op)
    engine = Engine(symbols, budget=budget)
    engine.settle_early = settle_early
    if _composed_slice(op, args):
        decisions = _decide_slice(engine, op, args, outcome, items, policy)
    elif symbolic_post and any(_unmodelled(a, op) for a in args):  # swizzles are bit fields
        decisions = decide_bits_first(engine, items, policy)
    else:
        decisions = decide_all(engine, items, policy, smallest=True)
    verdict, cex, reason = summarize(decisions, policy)
    if verdict == INVALID and cex is not None and not cex.obligation.startswith("OVF-"):
        reason = _overflow_first(outcome, cex, reason)
    if verdict == VALID and not symbolic_post and not _decided_post(items, decisions):
        # Proving the obligations is not a proof of the result: the postcondition is decided here only by the
        # algebra's enumeration on concrete values, which did not run (too large) or recorded nothing.
        verdict, reason = UNKNOWN, f"{op}: no postcondition was decided for these operands; its obligations hold"
    # a guard candidate's verdict (settle_early) is read for its verdict and counterexample only: its result as
    # computed, not simplified for printing (a millisecond a candidate, issue 28)
    result = str(outcome.result) if settle_early else shown_result(outcome.result, symbols)
    return Verdict(op, inputs, verdict, result, tuple(decisions), cex, reason, assumptions=assumptions)


def _overflow_first(outcome: registry.Outcome, cex: Counterexample, reason: str | None) -> str | None:
    """Where CuTe's own arithmetic overflows at the counterexample, its result there is garbage: the overflowing
    computation is the finding, the broken postcondition its consequence."""
    for ob in outcome.obligations:
        if ob.cute_checks not in (OVERFLOW, COMPILE):
            continue
        try:
            fails = not ob.condition.evaluate(cex.params)
        except (ArithmeticError, KeyError):
            continue
        if fails:
            return f"{ob.id} fails at the counterexample: {ob.description} ({ob.source}); {reason}"
    return reason


def shown_result(result: object, symbols: Symbols) -> str:
    """The result as printed: each symbolic leaf simplified under the assumptions (``M+1-1`` is ``M``, and
    ``min(M,128)`` is 128 when ``M >= 128`` is assumed) where that is shorter; static/dynamic flags are kept.  A
    pair (``declare.PAIR``, a tiler and a layout) is each of its parts as printed, in CuTe notation."""
    if type(result) is tuple:
        from verifier.core.int_tuple import format_tuple

        return "(" + ", ".join(format_tuple(x) if type(x) is tuple else shown_result(x, symbols)
                               for x in result) + ")"
    if result is None or not any(True for _ in symbols):  # nothing symbolic to simplify (and z3 stays unloaded)
        return str(result)
    from verifier.core.int_tuple import transform_leaf
    from verifier.solver.encoding import Encoder, Unencodable

    enc = Encoder(symbols, {})

    def back(e: Expr) -> Expr:  # the quotient atom M÷m is M/m (m divides M)
        if isinstance(e, Sym) and QUOTIENT in e.name:
            name, m = e.name.split(QUOTIENT)
            return Op("/", (Sym(name), Const(int(m))))
        if isinstance(e, Op):
            return Op(e.op, tuple(back(a) for a in e.args))
        return e

    def leaf(x: Int) -> Int:
        if type(x) is not Int or x.concrete:
            return x
        try:
            simpler = Int(back(enc.simplifier.simplify(x.expr)), x.static)
        except (ArithmeticError, Unencodable, RecursionError):
            return x
        return simpler if len(str(simpler)) < len(str(x)) else x

    try:
        if isinstance(result, Layout):
            return str(Layout(transform_leaf(result.shape, leaf), transform_leaf(result.stride, leaf)))
        if isinstance(result, algebra.OffsetLayout) and isinstance(result.layout, Layout):
            inner = result.layout
            return str(algebra.OffsetLayout(Layout(transform_leaf(inner.shape, leaf),
                                                   transform_leaf(inner.stride, leaf)), leaf(result.offset)))
        if isinstance(result, Int):
            return str(leaf(result))
    except (ArithmeticError, TypeError):  # a leaf the simplifier does not take (a scaled basis): as computed
        pass
    return str(result)


def _decided_post(items: Sequence[Item], decisions: Sequence[ObligationVerdict]) -> bool:
    """A whole postcondition was decided on concrete values and it holds (``decisions`` are the items', in order)."""
    return any(item.kind == POSTCONDITION and d.status == PROVED and d.deciding for item, d in zip(items, decisions))


def _decide_slice(engine: Engine, op: str, args: Sequence[object], outcome: registry.Outcome, items: list[Item],
                  policy: Policy) -> list[ObligationVerdict]:
    """A composed slice's obligations: SLICE-POST by evaluation at every admitted value of the
    coordinate's symbols where there are few (exact), every other item on the bit-vector route first."""
    from verifier.engine.slices import EXHAUSTIVE, coordinate_domain, decide_exhaustively

    domain = coordinate_domain(args[0], args[1], engine.symbols)  # type: ignore[arg-type]
    out: list[ObligationVerdict] = []
    rest = []
    for item in items:
        if item.id != "SLICE-POST" or domain is None:
            rest.append(item)
            continue
        bad = decide_exhaustively(op, (args[0], args[1]), domain, engine.symbols)
        cex = None if bad is None else Counterexample(bad, item.id)
        out.append(ObligationVerdict(item.id, item.description, item.source, item.cute_checks, item.condition,
                                     PROVED if bad is None else REFUTED, item.deciding, cex, route=EXHAUSTIVE,
                                     severity=policy.severity(item.id)))
    return decide_bits_first(engine, rest, policy) + out


BITS = "z3 on 64-bit bit-vectors (bv_encoding.py)"


def decide_bits_first(engine: Engine, items: list[Item], policy: Policy = DEFAULT_POLICY,
                       prove_only: bool = False) -> list[ObligationVerdict]:
    """Swizzles and bank arithmetic are bit fields: each item is tried on the exact bit-vector encoding first (a
    model is replayed concretely before it counts), then on the integer encoding if that does not decide it."""
    from verifier.solver.bv_encoding import decide as bv_decide
    from verifier.solver.encoding import Unencodable

    out: list[ObligationVerdict] = []
    for n, item in enumerate(items):
        if engine.settle_early and any(d.status == REFUTED and d.deciding and d.counterexample is not None
                                       and policy.settles(d.id) for d in out):
            out.append(ObligationVerdict(item.id, item.description, item.source, item.cute_checks, item.condition,
                                         UNKNOWN, item.deciding, None, SETTLED, None, policy.severity(item.id)))
            continue
        share = engine.budget.part(engine.remaining() / max(1, len(items) - n))
        try:
            status, values = bv_decide(item.holds, item.ranges, engine.symbols, share)
        except Unencodable:
            status, values = "unknown", None
        if status == "proved":
            out.append(ObligationVerdict(item.id, item.description, item.source, item.cute_checks, item.condition,
                                         PROVED, item.deciding, route=BITS, severity=policy.severity(item.id)))
            continue
        if status == "sat" and values is not None and not prove_only:  # else the integer route finds small values
            r = item.replay(values)
            if r.fails:
                params = {k: v for k, v in values.items() if not k.startswith("#")}
                ws = tuple(values[w] for w in item.witnesses)
                cex = Counterexample(params, item.id, ws[0] if len(ws) == 1 else ws or None, r.expected, r.actual)
                out.append(ObligationVerdict(item.id, item.description, item.source, item.cute_checks,
                                             item.condition, REFUTED, item.deciding, cex, route=BITS,
                                             severity=policy.severity(item.id)))
                continue
        # The integer route within the item's share too, so that an item the solver cannot settle leaves the
        # others theirs (a refutation of the next may be cheap).
        whole, engine.budget = engine.budget, share
        try:
            out += decide_all(engine, [item], policy)
        finally:
            engine.budget = whole
    return out


def _composed_slice(op: str, args: Sequence[object]) -> bool:
    from verifier.algebra.composed import SLICES
    from verifier.core.swizzle import ComposedLayout

    return op in SLICES and len(args) == 2 and isinstance(args[1], ComposedLayout)


def _unmodelled(arg: object, op: str | None = None) -> bool:
    """An operand the claims do not decide symbolically for ``op``: swizzles and composed layouts, and
    scaled-basis strides outside the operations whose claims compare coordinates (codomain.py)."""
    from verifier.algebra.registry import BASIS_OPERATIONS
    from verifier.core.basis import ScaledBasis
    from verifier.core.int_tuple import leaves
    from verifier.core.layouts import Layout
    from verifier.core.swizzle import ComposedLayout, Swizzle

    if isinstance(arg, ComposedLayout | Swizzle):
        return True
    if isinstance(arg, Layout):
        return op not in BASIS_OPERATIONS and any(isinstance(x, ScaledBasis) for x in leaves(arg.stride))
    if isinstance(arg, Tile):
        return any(_unmodelled(e, op) for e in arg.elements)
    return False


def _concrete(arg: object) -> bool:
    if isinstance(arg, Tile):
        return all(_concrete(e) for e in arg.elements)
    if type(arg) is tuple:
        from verifier.core.int_tuple import leaves

        return all(x.concrete for x in leaves(arg))
    return bool(getattr(arg, "concrete", True))


def decide_all(engine: Engine, items: list[Item], policy: Policy = DEFAULT_POLICY,
               smallest: bool = False) -> list[ObligationVerdict]:
    """Decide every item (the division-by-zero item last, once every divisor has been met).

    ``smallest`` (an engine that decides nothing else, and does not ``settle_early``): when every item left for
    the solver is ``exact``, free of witnesses and fails at the smallest admitted point, each is refuted there
    without the solver, as the solver's route would end there (``Engine.fails_at_smallest``; issue 28: the
    partial tiles of the median verdict).  Otherwise every item is encoded as it would be without the option, in
    the same order, so that the solver's answers, which depend on the terms of the encoder's context, do too."""
    from verifier.solver.encoding import Unencodable

    # Encode everything first so that DIV0 collects every divisor (an item free of symbols has no divisor to
    # collect: a division by zero in it is undefined where it is evaluated, and the solver then decides it).
    # The items that may be refuted at the smallest point are encoded only when something else needs the solver.
    deferred: list[Item] | None = [] if smallest and not engine.settle_early else None

    def encode_deferred() -> None:
        nonlocal deferred
        for later in deferred or ():
            try:
                engine._encoded(later)
            except Unencodable:
                pass
        deferred = None

    for item in items:
        if engine.closed(item) and engine.evaluate(item) is not None:
            continue
        try:
            if engine._without_solver(item):
                continue
            if deferred is not None and item.exact and not item.ranges:
                deferred.append(item)
                continue
            encode_deferred()
            engine._encoded(item)
        except Unencodable:
            pass
    divisors = engine.divisors()  # none when nothing was encoded (every item evaluated): z3 stays unloaded
    div0 = _div0_item(divisors, engine.encoder.empty_when if divisors else {})
    everything = [*items, div0] if divisors else items
    at_smallest: dict[int, Counterexample] = {}
    unencoded: set[int] = set()
    if deferred:
        point = engine.smallest_point()
        for item in deferred if point is not None else ():
            found = engine.fails_at_smallest(item, point)  # type: ignore[arg-type]
            if found is None:
                break
            at_smallest[id(item)] = found
        # DIV0 must not need the solver either: asked of an encoder of its own, which records nothing here
        if divisors and not Engine(engine.symbols)._without_solver(div0):
            at_smallest = {}
            encode_deferred()
        elif len(at_smallest) < len(deferred):
            # each decided in turn by evaluation where that answers as the solver would (Engine.decide_unencoded),
            # the items encoded, in their order, at the first that needs the solver (before any term is built)
            at_smallest = {}
            unencoded = {id(item) for item in deferred}
    # Quantifier-free items first: they are cheap, and a counterexample from one settles the verdict and pins the
    # symbols for the coordinate search of the others.
    order = sorted(range(len(everything)), key=lambda k: bool(everything[k].ranges))
    out: dict[int, ObligationVerdict] = {}
    hints: list[Mapping[str, int]] = []
    for n, k in enumerate(order):
        item = everything[k]
        if hints and engine.settle_early:
            out[k] = ObligationVerdict(item.id, item.description, item.source, item.cute_checks, item.condition,
                                       UNKNOWN, item.deciding, None, SETTLED, None, policy.severity(item.id))
            continue
        share = engine.remaining() / max(1, len(everything) - n)
        found = at_smallest.get(id(item))
        d = Decision(REFUTED, counterexample=found, route=SMALLEST) if found is not None else None
        if d is None and id(item) in unencoded:
            d = engine.decide_unencoded(item, share, hints)
            if d is None:
                unencoded.clear()
                encode_deferred()
        if d is None:
            d = engine.decide(item, budget=share, assume_nonzero=item is not div0, hints=hints)
        if d.status == REFUTED and item.deciding and d.counterexample is not None and policy.settles(item.id):
            hints.append(d.counterexample.params)
        reason = d.reason
        if d.status == UNKNOWN and hints:
            reason = f"{reason} (given less time: the verdict was already settled by a counterexample)"
        out[k] = ObligationVerdict(item.id, item.description, item.source, item.cute_checks, item.condition,
                                   d.status, item.deciding, d.counterexample, reason, d.route,
                                   policy.severity(item.id))
    return [out[k] for k in range(len(everything))]


def summarize(decisions: Sequence[ObligationVerdict],
              policy: Policy = DEFAULT_POLICY) -> tuple[str, Counterexample | None, str | None]:
    """``invalid`` exactly when an obligation that settles the verdict fails (an error, or any obligation under
    ``--strict``, among those selected); a failing warning leaves the verdict ``valid``, listed with it."""
    deciding = [d for d in decisions if d.deciding and policy.settles(d.id)]
    refuted = [d for d in deciding if d.status == REFUTED]
    if refuted:
        # An error before a warning; a counterexample with a coordinate shows the wrong index itself.
        errors = [d for d in refuted if d.severity != WARNING] or refuted
        d = next((d for d in errors if d.counterexample and d.counterexample.coordinate is not None), errors[0])
        promoted = " (a warning, an error under --strict)" if d.severity == WARNING else ""
        return INVALID, d.counterexample, f"{d.id} fails{promoted}: {d.description}"
    unknown = [d for d in deciding if d.status == UNKNOWN]
    if unknown:
        return UNKNOWN, None, "; ".join(f"{d.id}: {d.reason}" for d in unknown)
    return VALID, None, None


def valid_at(op: str, args: Sequence[object], values: Mapping[str, int], limit: int = 1 << 16,
             strict: bool = False) -> bool:
    """Concrete ground truth from our model: CuTe's result at these values meets CuTe's contract (every error
    obligation; ``strict``: every warning too) and is free of UB.

    Raises ``claims.TooLarge`` when the postcondition would need more than ``limit`` evaluations, or when the
    operation has no postcondition here and the algebra recorded none at these values (too large to enumerate)."""
    concrete = [claims.substitute_operand(a, values) for a in args]
    modelled = not any(_unmodelled(a, op) for a in concrete)
    # Where claims decide, the postconditions the algebra decides by enumeration are not computed (most of a
    # pretest's time in a guard search, issue 28); the obligations read here are recorded either way.
    return _valid_concrete(op, concrete, limit, strict, modelled, shallow=modelled and claims.has_postcondition(op))


def _valid_concrete(op: str, concrete: Sequence[object], limit: int, strict: bool, modelled: bool,
                    shallow: bool) -> bool:
    from contextlib import nullcontext

    from verifier.core.obligations import Shallow

    with Shallow() if shallow else nullcontext():
        outcome = registry.apply(op, *concrete)
    if outcome.rejection is not None or outcome.undefined is not None:
        return False
    counts: Callable[[str], bool] = (lambda id: True) if strict else (lambda id: severity(id) != WARNING)
    if any(o.status == "fails" for o in outcome.obligations
           if o.cute_checks == UB or (o.id in SELF_EVIDENT | CONTRACT and counts(o.id))):
        return False
    try:
        built = claims.build(op, concrete, outcome.result) if modelled else []
        if not built and shallow:  # no claim after all: the algebra's enumerated postconditions decide
            return _valid_concrete(op, concrete, limit, strict, modelled, shallow=False)
        if not built:
            # The algebra's enumerated postconditions (swizzled and scaled-basis operands) include LI-3, the only
            # one stricter than CuTe's contract, which is not enumerated on its own: counted in both modes.
            posts = [o for o in outcome.obligations if o.kind == POSTCONDITION]
            if not posts:
                raise claims.TooLarge(f"{op}: no concrete postcondition recorded at these values")
            return all(o.status == "holds" for o in posts)
        return all(claims.first_failure(c, limit) is None for c in built if counts(c.id))
    except UndefinedBehavior:
        return False
