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

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import z3

from . import algebra, claims
from .claims import Claim, Replay
from .conditions import derive_guard, show
from .domain import check_domain
from .encoding import Encoder, Unencodable
from .errors import UndefinedBehavior
from .integers import Bool, D, Expr, Int, and_, format_expr, le, ne, or_
from .interop import coerce
from .interrupt import interrupted
from .layouts import Tile
from .obligations import NEVER, UB, WARNING, severity
from .symbols import Symbols
from .verdicts import (
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

DEFAULT_TIMEOUT = 10.0
BOUNDED_SPAN = 64
SETTLED_BUDGET = 0.25  # seconds an item gets once the verdict is settled by another item's counterexample
# Preconditions whose failure is itself the error, with no postcondition to confirm it: a tile or thread
# coordinate outside the grid gives a view outside the tensor (docs/semantics.md, partitions).
SELF_EVIDENT = {"IX-2", "IX-3"}
# The assumption CuTe documents for upcast's per-mode recast (layout.hpp:1820-1822): its failure is the error,
# while the claims' "same bytes" reading (RC-*) is stricter than CuTe's contract (a warning).
CONTRACT = {"UP-2"}
# Unchecked preconditions that decide the verdict even where the operation has claims (docs/semantics.md).
_KEPT = SELF_EVIDENT | {"MCV-1"}
# The algebra's own concrete postconditions are superseded by the engine's claims of the same meaning.
_SUPERSEDED = {"CMP-POST", "CMP-POST-SIZE", "CPL-POST", "RI-POST", "LI-3", "DIV-POST", "DIV-EXACT", "PRD-POST"}


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


@dataclass(frozen=True)
class Decision:
    status: str
    counterexample: Counterexample | None = None
    reason: str | None = None
    route: str | None = None


class Engine:
    """Decides items over one symbol table within a time budget."""

    def __init__(self, symbols: Symbols, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.symbols = symbols
        self.deadline = time.monotonic() + timeout
        self.timeout = timeout
        self.encoder = Encoder(symbols, {w: (0, None) for w in claims.WITNESSES})

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    # -- encoding ---------------------------------------------------------------------------------------------

    def _negation(self, item: Item) -> list[z3.BoolRef]:
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
        return [*out[1:], z3.Not(out[0])]

    def divisors(self) -> list[Expr]:
        """Every divisor met while encoding that is free of witnesses and not provably nonzero."""
        seen: dict[Expr, None] = {}
        for e in self.encoder.divisors:
            if not (set(e.symbols()) & set(claims.WITNESSES)):
                seen.setdefault(e, None)
        return list(seen)

    # -- deciding ---------------------------------------------------------------------------------------------

    def decide(self, item: Item, budget: float | None = None, assume_nonzero: bool = True,
               hints: Sequence[Mapping[str, int]] = ()) -> Decision:
        """Decide one item.  ``hints`` are symbol values at which another item already failed: tried first, with
        the symbols pinned, and their presence means the verdict is settled, so the budget is capped."""
        try:
            negation = self._negation(item)
        except Unencodable as exc:
            return Decision(UNKNOWN, reason=f"cannot encode: {exc}")
        base = self.encoder.assumptions()
        if assume_nonzero:
            base += [self.encoder.nonzero(d) for d in self.divisors()]
        budget = self.remaining() if budget is None else min(budget, self.remaining())
        if hints:
            budget = min(budget, SETTLED_BUDGET)
        for hint in hints[:2]:
            pinned = [self.encoder.var(n) == v for n, v in hint.items() if n in self.symbols]
            status, model, _ = _solve(base + negation + pinned, budget / 4)
            if status == "sat":
                found = self._confirm(item, model)
                if found is not None:
                    return Decision(REFUTED, counterexample=found, route=PINNED)
        status, model, why = _solve(base + negation, budget)
        if status == "unsat":
            return Decision(PROVED, route=FULL)
        # A counterexample in small values reads better, and when Z3 gave up on the unbounded problem the finite
        # search over the small values is where counterexamples usually are.
        found = self._confirm(item, model) if status == "sat" else None
        route = FULL
        if found is None or not self._small(found.params):
            bounded = [self.encoder.var(sym.name) <= sym.lo + BOUNDED_SPAN * sym.multiple_of for sym in self.symbols]
            small, model2, _ = _solve(base + negation + bounded, min(budget, self.remaining()) / 2)
            smaller = self._confirm(item, model2) if small == "sat" else None
            if smaller is not None:
                found, route = smaller, BOUNDED
        if found is not None:
            return Decision(REFUTED, counterexample=found, route=route)
        if status == "sat":
            why = "the solver's candidate counterexample did not replay concretely"
        return Decision(UNKNOWN, reason=why)

    def _small(self, params: Mapping[str, int]) -> bool:
        return all(params.get(s.name, s.lo) <= s.lo + BOUNDED_SPAN * s.multiple_of for s in self.symbols)

    def _confirm(self, item: Item, model: z3.ModelRef) -> Counterexample | None:
        names = [s.name for s in self.symbols] + list(item.witnesses)
        values = self.encoder.model_values(model, names)
        try:
            r = item.replay(values)
        except UndefinedBehavior as exc:  # evaluating the item itself divides by zero there: CuTe would too
            r = Replay(True, undefined=str(exc))
        if not r.fails:
            return None
        params = {k: v for k, v in values.items() if k not in claims.WITNESSES}
        coord: int | tuple[int, ...] | None = None
        if item.witnesses:
            ws = tuple(values[w] for w in item.witnesses)
            coord = ws[0] if len(ws) == 1 else ws
        return Counterexample(params, item.id, coord, r.expected, r.actual,
                              note=f"undefined behaviour: {r.undefined}" if r.undefined else None)


_CTRL_C_OFF = False


def check_sat(s: z3.Solver, seconds: float) -> z3.CheckSatResult:
    """``s.check()`` within ``seconds``.  Z3 would catch Ctrl-C itself and answer unknown, which turned an
    interrupt into an ``unknown`` verdict and let the run go on; an interrupted call raises ``KeyboardInterrupt``."""
    global _CTRL_C_OFF
    if not _CTRL_C_OFF:
        z3.set_param("ctrl_c", False)  # SIGINT is ours (interrupt.py): it interrupts Z3 and stops the command
        _CTRL_C_OFF = True
    s.set("timeout", max(1, int(seconds * 1000)))
    r = s.check()
    if r == z3.unknown and (interrupted() or s.reason_unknown() == "interrupted from keyboard"):
        raise KeyboardInterrupt
    return r


def _solve(constraints: Sequence[z3.BoolRef], budget: float) -> tuple[str, z3.ModelRef | None, str]:
    """Z3 on ``constraints`` within ``budget`` seconds.  On nonlinear problems Z3's time varies by orders of
    magnitude with its random seed (0.04 s to 6 s on one of proofs/' theorems), so a budget of a second or more is
    spent as two short runs under other seeds, then one long run."""
    if budget <= 0.001:
        return "unknown", None, "the time budget is spent"
    s = z3.Solver()
    s.add(*constraints)
    slices = [(0, budget)] if budget < 1.0 else [(0, 0.15 * budget), (1, 0.15 * budget), (2, 0.7 * budget)]
    why = ""
    for seed, share in slices:
        s.set("random_seed", seed)
        r = check_sat(s, share)
        if r == z3.sat:
            return "sat", s.model(), ""
        if r == z3.unsat:
            return "unsat", None, ""
        why = s.reason_unknown()
    if why in ("timeout", "canceled"):
        why = f"the solver timed out after {budget:.2f} s"
    return "unknown", None, f"the solver gave up: {why}"


# -- operations -----------------------------------------------------------------------------------------------


def _claim_items(op: str, args: Sequence[object], built: list[Claim]) -> list[Item]:
    items = []
    for k, c in enumerate(built):
        confirm = _oracle_replay if c.id in claims.CONFIRM_BY_ORACLE else claims.replay
        items.append(Item(c.id, c.description, c.source, NEVER, True, c.ranges, c.holds,
                          lambda values, k=k, confirm=confirm, id=c.id: confirm(op, args, k, values, id)))
    return items


def _oracle_replay(op: str, args: Sequence[object], k: int, values: Mapping[str, int], id: str) -> Replay:
    """The claim fails here and the algebra's own concrete postcondition says CuTe's result is wrong here."""
    r = claims.replay(op, args, k, values)
    if not r.fails:
        return r
    try:
        wrong = not valid_at(op, args, {n: v for n, v in values.items() if n not in claims.WITNESSES},
                             strict=severity(id) == WARNING)
    except claims.TooLarge:
        wrong = False
    return r if wrong else Replay(False)


def _obligation_items(op: str, args: Sequence[object], outcome: algebra.Outcome, have_claims: bool) -> list[Item]:
    items = []
    for ob in outcome.obligations:
        if have_claims and ob.id in _SUPERSEDED:
            continue
        # With claims, CuTe's unchecked preconditions are shown but the claims decide, except the ones whose
        # failure is the error itself and those the semantics list among the operation's checks.
        deciding = (ob.cute_checks == UB or ob.id in CONTRACT
                    or (ob.cute_checks == NEVER and (not have_claims or ob.id in _KEPT)))
        cond = ob.condition

        def replay(values: Mapping[str, int], cond: Bool = cond, ub: bool = ob.cute_checks == UB,
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

        items.append(Item(ob.id, ob.description, ob.source, ob.cute_checks, deciding, (), cond,
                          replay if not have_claims else lambda values, cond=cond: Replay(not cond.evaluate(values))))
    return items


def _empty(ranges: Sequence[tuple[str, Int, Int]], enc: Encoder) -> Bool | None:
    """When the witnesses' domain is empty (some witness-free range ``lo <= w < hi`` with ``hi <= lo``), or None
    when no range can be: a division by an extent that runs per coordinate runs for none of an empty layout.
    Ranges that the symbols' bounds keep non-empty are left out (a disjunction the solver need not consider)."""
    empties = [le(hi, lo) for _, lo, hi in ranges
               if not (set(lo.symbols()) | set(hi.symbols())) & set(claims.WITNESSES)
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


def items_for(op: str, args: Sequence[object], outcome: algebra.Outcome) -> list[Item]:
    """What must be decided for ``op(*args)``: its claims, then the obligations the algebra recorded."""
    built = claims.build(op, args)
    return _claim_items(op, args, built) + _obligation_items(op, args, outcome, bool(built))


def verify(op: str, args: Sequence[object], symbols: Symbols, timeout: float = DEFAULT_TIMEOUT,
           derive: bool = True, policy: Policy = DEFAULT_POLICY) -> Verdict:
    """Is ``op(*args)``, as CuTe computes it, correct for every value the assumptions allow?

    Raises ``LayoutError`` (``domain.VacuousAssumptions``) when the assumptions admit no value or an operand's
    extent can be negative: bad input, never a vacuous ``valid``."""
    args = [coerce(a) for a in args]  # pycute layouts are accepted (interop.py)
    inputs = tuple(show(a) for a in args)
    assumptions = tuple(s.describe() for s in symbols) + tuple(str(r) for r in symbols.relations)
    undecided = check_domain(op, args, symbols)
    if undecided is not None:
        return Verdict(op, inputs, UNKNOWN, reason=undecided, assumptions=assumptions)
    outcome = algebra.apply(op, *args)
    if outcome.rejection is not None:
        return Verdict(op, inputs, INVALID, reason=str(outcome.rejection),
                       assumptions=assumptions)
    if outcome.undefined is not None:
        return Verdict(op, inputs, INVALID, reason=f"undefined behaviour in CuTe: {outcome.undefined}",
                       assumptions=assumptions)
    if any(_unmodelled(a) for a in args):
        if not all(_concrete(a) for a in args):
            return Verdict(op, inputs, UNKNOWN, str(outcome.result), reason="the engine decides swizzled and "
                           "scaled-basis (E<i>) operands only on concrete values; these have symbols",
                           assumptions=assumptions)
        # Concrete: the algebra's own postcondition, decided by enumeration, is the verdict.
        items = _obligation_items(op, args, outcome, have_claims=False)
        symbolic_post = False
    else:
        items = items_for(op, args, outcome)
        symbolic_post = claims.has_postcondition(op)
    engine = Engine(symbols, timeout)
    decisions = decide_all(engine, items, policy)
    verdict, cex, reason = summarize(decisions, policy)
    if verdict == VALID and not symbolic_post and not _decided_post(decisions):
        # Proving the obligations is not a proof of the result: the postcondition is decided here only by the
        # algebra's enumeration on concrete values, which did not run (too large) or recorded nothing.
        verdict, reason = UNKNOWN, f"{op}: no postcondition was decided for these operands; its obligations hold"
    result = str(outcome.result)
    out = Verdict(op, inputs, verdict, result, tuple(decisions), cex, reason, assumptions=assumptions)
    failing = tuple(dict.fromkeys(d.id for d in decisions if d.deciding and d.status == REFUTED
                                  and policy.counts(d.id)))
    if derive and (verdict == INVALID or (verdict == VALID and out.warnings)) and any(True for _ in symbols):
        # The guard covers warnings too: a partial tile's guard is what can_implement needs without predication.
        guard, note = derive_guard(op, args, symbols, timeout=max(1.0, engine.remaining()),
                                   policy=replace(policy, strict=True), covers=failing)
        out = replace(out, guard=guard, guard_note=note)
    return out


def _is_post(id: str) -> bool:
    """A postcondition the algebra decides by enumeration: ``*-POST``, and left_inverse's ``LI-3``."""
    return id.endswith("POST") or id == "LI-3"


def _decided_post(decisions: Sequence[ObligationVerdict]) -> bool:
    """The algebra decided a postcondition on concrete values and it holds."""
    return any(_is_post(d.id) and d.status == PROVED and d.deciding for d in decisions)


def _unmodelled(arg: object) -> bool:
    from .basis import ScaledBasis
    from .int_tuple import leaves
    from .layouts import Layout
    from .swizzle import ComposedLayout, Swizzle

    if isinstance(arg, ComposedLayout | Swizzle):
        return True
    if isinstance(arg, Layout):
        return any(isinstance(x, ScaledBasis) for x in leaves(arg.stride))
    if isinstance(arg, Tile):
        return any(_unmodelled(e) for e in arg.elements)
    return False


def _concrete(arg: object) -> bool:
    if isinstance(arg, Tile):
        return all(_concrete(e) for e in arg.elements)
    if type(arg) is tuple:
        from .int_tuple import leaves

        return all(x.concrete for x in leaves(arg))  # type: ignore[arg-type]
    return bool(getattr(arg, "concrete", True))


def decide_all(engine: Engine, items: list[Item], policy: Policy = DEFAULT_POLICY) -> list[ObligationVerdict]:
    """Decide every item (the division-by-zero item last, once every divisor has been met)."""
    # Encode everything first so that DIV0 collects every divisor.
    for item in items:
        try:
            engine._negation(item)
        except Unencodable:
            pass
    div0 = _div0_item(engine.divisors(), engine.encoder.empty_when)
    everything = [*items, div0] if engine.divisors() else items
    # Quantifier-free items first: they are cheap, and a counterexample from one settles the verdict and pins the
    # symbols for the coordinate search of the others.
    order = sorted(range(len(everything)), key=lambda k: bool(everything[k].ranges))
    out: dict[int, ObligationVerdict] = {}
    hints: list[Mapping[str, int]] = []
    for n, k in enumerate(order):
        item = everything[k]
        share = engine.remaining() / max(1, len(everything) - n)
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
    outcome = algebra.apply(op, *concrete)
    if outcome.rejection is not None or outcome.undefined is not None:
        return False
    counts = (lambda id: True) if strict else (lambda id: severity(id) != WARNING)  # noqa: E731
    if any(o.status == "fails" for o in outcome.obligations
           if o.cute_checks == UB or (o.id in SELF_EVIDENT | CONTRACT and counts(o.id))):
        return False
    try:
        built = [] if any(_unmodelled(a) for a in concrete) else claims.build(op, concrete)
        if not built:
            # The algebra's enumerated postconditions (swizzled and scaled-basis operands) include LI-3, the only
            # one stricter than CuTe's contract, which is not enumerated on its own: counted in both modes.
            posts = [o for o in outcome.obligations if _is_post(o.id)]
            if not posts:
                raise claims.TooLarge(f"{op}: no concrete postcondition recorded at these values")
            return all(o.status == "holds" for o in posts)
        return all(claims.first_failure(c, limit) is None for c in built if counts(c.id))
    except UndefinedBehavior:
        return False
