"""Conditions: under which values of the symbols is an operation valid, and is that condition also necessary?

The search is over conditions a kernel author would write as a guard: a conjunction of at most one atom per
symbol, each atom ``X % t == 0`` for a static extent ``t`` of the operands (a tile size, a vector width) or
``X >= 2``.  Candidates are tried weakest first (smallest product of moduli), and the first one under which the
engine *proves* the operation valid is the answer, so the condition is always proved sufficient.

Necessity is then decided separately:

* ``proved`` when every value outside the condition breaks a quantifier-free claim of the operation (a size, an
  exact tiling, a divisibility), which Z3 shows by ``unsat`` of "assumptions and not condition and all those
  claims hold";
* ``refuted`` when a value outside the condition is found (small values first) at which the operation is
  concretely valid: the guard would reject a good problem size;
* ``unknown`` otherwise.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, Sequence
from copy import copy

from verifier.algebra import registry
from verifier.contracts import claims
from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.int_tuple import leaves
from verifier.core.integers import TRUE, Bool, Int, and_, eq, ge, le, mod, not_, symbol
from verifier.core.layouts import Layout, Tile
from verifier.core.obligations import WARNING, severity
from verifier.core.overflow import result_condition
from verifier.core.semantics import using
from verifier.core.symbols import Symbols
from verifier.engine.decide import (
    SIMPLIFIED,
    _proofs,
    applied,
    decide_operation,
    items_for,
    same_operands,
    valid_at,
)
from verifier.engine.verdicts import PROVED, REFUTED, UNKNOWN, VALID, Guard, Policy
from verifier.notation.cpp import show
from verifier.solver.budget import UNITS_PER_SECOND, Budget
from verifier.solver.solve import solve

STRICT = Policy(strict=True)

MAX_CANDIDATES = 64  # candidates decided by the solver; those refuted by a known value cost nothing
MAX_MODULUS = 1 << 16
PRETEST_LIMIT = 1 << 14  # largest concrete evaluation that may refute a candidate before the solver is asked
NECESSITY_SAMPLES = 2000
NECESSITY_SOLVER_SAMPLES = 8  # values of the problem sizes decided by the engine when a guard leaves indices free


def _statics(obj: object) -> set[int]:
    out: set[int] = set()
    if isinstance(obj, Layout):
        for x in (*leaves(obj.shape), *leaves(obj.stride)):
            x = getattr(x, "value", x) if not isinstance(x, Int) else x  # a scaled basis: its scale
            if x.static and x.value is not None:
                out.add(abs(int(x.value)))
    elif isinstance(obj, Tile):
        for e in obj.elements:
            out |= _statics(e)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        out.add(abs(obj))
    elif isinstance(obj, Int) or type(obj) is tuple:
        for x in leaves(obj):
            if isinstance(x, Int) and x.static and x.value is not None:  # a coordinate's '_' is no integer
                out.add(abs(int(x.value)))
    return out


def _atoms(name: str, moduli: list[int]) -> list[tuple[int, Bool, str]]:
    """(weight, atom, text) for one symbol: no constraint, X >= 2, X % t == 0."""
    x = symbol(name)
    out: list[tuple[int, Bool, str]] = [(1, TRUE, ""), (2, ge(x, 2), f"{name} >= 2")]
    out += [(t, eq(mod(x, t), 0), f"{name} % {t} == 0") for t in moduli]
    return out


def _with(symbols: Symbols, extra: Sequence[Bool]) -> Symbols:
    # A shallow copy with its own table and relations: the expressions are immutable (and refuse deepcopy).
    s = copy(symbols)
    s.table, s.relations = dict(symbols.table), list(symbols.relations)
    for b in extra:
        s.assume(b)
    return s


NO_GUARD_IN_TIME = "no guard found within the budget; try --rlimit"
NO_GUARD = "no guard of the form 'X % t == 0 and X >= 2 ...' makes it valid"


def _moduli(args: Sequence[object]) -> list[int]:
    """Candidate moduli: the static integers of the operands, and the products of the static extents of one
    operand's modes (a tile of ``(_4,_8)`` spans 32 consecutive indices, so ``M % 32 == 0`` is a natural guard
    although 32 is written nowhere)."""
    out = set().union(*(_statics(a) for a in args))
    for a in args:
        for extents in _static_extents(a):
            products = {1}
            for e in extents:
                products |= {p * e for p in products if p * e <= MAX_MODULUS}
            out |= products
    return sorted(t for t in out if t > 1)


# The widest access a thread makes (a 128-bit vector: LDG.128, cp.async, TMA's 16-byte gmem stride unit).
VECTOR_BITS = 128


def _width_moduli(op: str, args: Sequence[object]) -> set[int]:
    """Moduli in elements from the element widths of ``op`` (its registry row's ``widths``, in bits): where element
    and byte widths meet, the weakest guard is in elements of the narrower type (``lda % 8 == 0`` for
    ``recast_layout<half, uint128>``, ``K % 8 == 0`` for 16 bytes of halves, ``K % 4 == 0`` of tf32), which no
    operand's shape spells: 16 bytes over each element width, and the ratio of two widths."""
    row = registry.REGISTRY.get(op)
    if row is None or not row.widths:
        return set()
    bits = [int(b) for k, b in enumerate(args) if k in row.widths and isinstance(b, int) and b > 0]
    widths = {VECTOR_BITS // b for b in bits if VECTOR_BITS % b == 0}
    widths |= {max(a, b) // min(a, b) for a in bits for b in bits if max(a, b) % min(a, b) == 0}
    # with each its divisors, weaker guards of the same form, so that the weakest that holds is the one found
    return {d for w in widths for d in range(2, w + 1) if w % d == 0}


def _access_moduli(op: str, args: Sequence[object]) -> list[int]:
    """The widths of vectorised accesses, in elements: a leading dimension that is a multiple of one keeps every
    row's vectors aligned (``ldA % 8 == 0`` for 128-bit accesses of 16-bit elements), although the width may be
    given as a run-time value and appears in no shape.  A TiledCopy's atom accesses ``size<1>(ref)`` values at
    once; ``vectorized_copy``'s last operand is its vector width; element widths give theirs (``_width_moduli``)."""
    import sys

    from verifier.core.layouts import size

    out = _width_moduli(op, args)
    # A TiledCopy exists only once its module is loaded: a process that has none does not load it (13 ms, a tenth
    # of a tiling's first verdict, issue 28).
    tiled = sys.modules.get("verifier.algebra.tiled")
    copies = [a for a in args if isinstance(a, tiled.TiledCopy)] if tiled is not None else []
    for a in copies:
        if a.atom.ref is not None:
            width = size(a.atom_ref, 1)
            if isinstance(width, Int) and width.value is not None:
                out.add(int(width.value))
    if op == "vectorized_copy" and len(args) > 6 and isinstance(args[6], Int) and args[6].value is not None:
        out.add(abs(int(args[6].value)))
    return sorted(t for t in out if 1 < t <= MAX_MODULUS)


def _static_extents(obj: object) -> list[list[int]]:
    """The static extents of each shape (a layout's, a tile element's), as lists."""
    if isinstance(obj, Layout):
        xs = list(leaves(obj.shape))
        return [[int(x.value) for x in xs if x.static and x.value is not None and int(x.value) > 1]]
    if isinstance(obj, Tile):
        return [e for el in obj.elements for e in _static_extents(el)]
    if isinstance(obj, Int) or type(obj) is tuple:  # a coordinate or projection may hold '_' or X: not extents
        xs = [x for x in leaves(obj) if isinstance(x, Int)]
        return [[int(x.value) for x in xs if x.static and x.value is not None and int(x.value) > 1]]
    return []


def derive_guard(op: str, args: Sequence[object], symbols: Symbols, budget: Budget | None = None,
                 policy: Policy = STRICT, covers: tuple[str, ...] = ()) -> tuple[Guard | None, str | None]:
    """The weakest candidate condition under which ``op(*args)`` is proved valid with ``policy`` (strict by
    default: warnings must hold too), or None and why: the search ran out of budget or of candidates.

    Candidates are tried weakest first; one is skipped without the solver when a value it admits is already known
    to be wrong (a counterexample of an earlier candidate, or its own smallest admitted values, evaluated
    concretely).  The search spends at most ``budget`` (Z3 resource units)."""
    budget = budget if budget is not None else Budget()
    every = [s.name for s in symbols if not s.name.startswith("?")]
    if not every or len(every) < sum(1 for _ in symbols):
        return None, "no guard is searched over anonymous (?) symbols"
    names = guard_symbols(op, args, every)
    if not names:
        return None, f"{op}: no problem size to guard (its symbols are tile coordinates and thread indices)"
    with same_operands():
        return _search(op, args, symbols, budget, policy, covers, every, names)


def _search(op: str, args: Sequence[object], symbols: Symbols, budget: Budget, policy: Policy,
            covers: tuple[str, ...], every: list[str], names: list[str]) -> tuple[Guard | None, str | None]:
    moduli = sorted(set(_moduli(args)) | set(_access_moduli(op, args)))
    hopeless = _hopeless(op, args, symbols, names, covers, budget, moduli)
    if hopeless is not None:
        return None, hopeless
    per_symbol = [_atoms(n, moduli) for n in names]
    # Upper bounds that keep CuTe's arithmetic inside its integer types (OVF-*) join every candidate; without
    # them the first candidate is no guard at all, which the caller has already decided.
    caps = overflow_caps(op, args, symbols, names)
    leading = _leading_claims(op, args, policy.strict)
    known_bad = _KnownBad()
    smallest: dict[tuple[str, str], int | None] = {}
    passed: set[tuple[tuple[str, int], ...] | None] = set()  # points the pretest found valid (or too large)
    tried = 0
    undecided = False
    weakest = _weakest_first(per_symbol)
    for combo in (((*c, *caps) for c in weakest) if caps else itertools.islice(weakest, 1, None)):
        if tried >= MAX_CANDIDATES:
            return None, NO_GUARD_IN_TIME if undecided else f"{NO_GUARD} (among the {MAX_CANDIDATES} weakest)"
        if budget.left() <= 0:
            return None, NO_GUARD_IN_TIME
        atoms = [a for _, a, text in combo if text]
        if known_bad.admits_one(atoms):
            continue
        cond = and_(*atoms)
        point = _smallest_point(symbols, every, _padded(combo, names, every), smallest)
        key = tuple(sorted(point.items())) if point is not None else None
        if point is not None and key not in passed and _admitted(symbols, point):
            try:
                # strict as the candidate is decided: a failing warning refutes it as surely as an error
                if _fails_first(leading, point) or not valid_at(op, args, point, limit=PRETEST_LIMIT,
                                                                strict=policy.strict):
                    known_bad.add(point)
                    continue
            except claims.TooLarge:
                pass
            passed.add(key)  # weaker and stronger candidates often share their smallest point
        tried += 1
        guarded = _with(symbols, atoms)
        if _no_value(guarded):
            continue  # decide_operation's domain check would raise VacuousAssumptions (a LayoutError): as below
        share = budget.part(max(budget.rlimit / 8, min(budget.left(), UNITS_PER_SECOND // 2)))
        try:
            with using("cpp"):  # as verify() decides a candidate: CuTe's C++ semantics
                v = decide_operation(op, args, guarded, share, policy, settle_early=True)
        except LayoutError:
            continue  # the candidate excludes every admitted value: a guard that holds vacuously is none
        if v.verdict == VALID:
            texts = [text for _, _, text in combo if text]
            necessary, witness = _necessity(op, args, symbols, cond, budget, names, policy, atoms)
            return Guard(" and ".join(texts), necessary, _cpp(names, texts), _python(op, args, texts),
                         witness, covers), None
        if v.counterexample is not None:
            known_bad.add({k: x for k, x in v.counterexample.params.items() if k in names})
        undecided = undecided or v.verdict == UNKNOWN
    if budget.left() <= 0:
        return None, NO_GUARD_IN_TIME
    return None, NO_GUARD_IN_TIME if undecided else NO_GUARD


class _KnownBad:
    """The values a guard search knows to be wrong, and which of them each candidate admits.  A candidate is a
    conjunction of atoms, each over one symbol or a cap, and the weakest-first order meets the same few atoms in
    tens of thousands of candidates: each atom is evaluated once at each point, as a bit of a mask over the points,
    so that a candidate admits a known point exactly when the AND of its atoms' masks is nonzero.  Evaluating the
    conjunction itself at every point instead (and compiling it, after ``COMPILE_AFTER`` evaluations) cost most of a
    TMA box's guard search (issue 30: 57 of 67 s of the slowest SM90 box under cProfile).  Where an atom cannot be
    evaluated at a point (a symbol missing), the conjunction is evaluated as before, so that the same error, or
    the same answer, comes out."""

    __slots__ = ("points", "_masks")

    def __init__(self) -> None:
        self.points: list[dict[str, int]] = []
        # per atom: the mask of the points where it holds, how many points it covers, whether one failed to evaluate
        # (by identity: a search's atoms live as long as it, and hashing a Bool walks its expression's hash)
        self._masks: dict[int, tuple[Bool, int, int, bool]] = {}

    def add(self, point: dict[str, int]) -> None:
        self.points.append(point)

    def _mask(self, atom: Bool) -> tuple[int, bool]:
        _, mask, done, failed = self._masks.get(id(atom), (atom, 0, 0, False))
        if done == len(self.points):
            return mask, failed
        for k in range(done, len(self.points)):
            try:
                if atom.evaluate(self.points[k]):
                    mask |= 1 << k
            except Exception:  # noqa: BLE001  # the conjunction, evaluated as before, raises or answers
                failed = True
        self._masks[id(atom)] = (atom, mask, len(self.points), failed)
        return mask, failed

    def admits_one(self, atoms: Sequence[Bool]) -> bool:
        """Whether ``and_(*atoms)`` is true at one of the points (``any(and_(*atoms).evaluate(p) ...)``)."""
        if not self.points:
            return False
        common = (1 << len(self.points)) - 1
        for a in atoms:
            mask, failed = self._mask(a)
            if failed:
                cond = and_(*atoms)
                return any(cond.evaluate(p) for p in self.points)
            common &= mask
            if not common:
                return False
        return True


def _leading_claims(op: str, args: Sequence[object], strict: bool) -> list[Bool]:
    """The statements of the quantifier-free claims of ``op(*args)`` that ``valid_at`` checks before its first claim
    over witnesses, in its order: where one of them is false at a point, ``valid_at`` is false there too (it stops at
    the first failing claim; the checks before its claims only ever answer false), without the concrete algebra that
    it runs first (3-4 ms a point; most candidates of a tiling's guard search are refuted by their tiling claim).
    Empty where ``valid_at`` decides by the algebra's enumerated postconditions instead (unmodelled operands)."""
    from verifier.engine.decide import _built, _unmodelled

    if any(_unmodelled(a, op) for a in args):
        return []
    try:
        built = _built(op, args)
    except (LayoutError, UndefinedBehavior, ArithmeticError):
        return []
    out = []
    for c in built:
        if not strict and severity(c.id) == WARNING:
            continue
        if c.ranges:
            break
        out.append(c.holds)
    return out


def _fails_first(leading: Sequence[Bool], point: dict[str, int]) -> bool:
    """One of ``leading`` is false at ``point`` (one that cannot be evaluated there leaves the answer to
    ``valid_at``)."""
    for holds in leading:
        try:
            if not holds.evaluate(point):
                return True
        except (ArithmeticError, KeyError, UndefinedBehavior):
            return False
    return False


def _no_value(symbols: Symbols) -> bool:
    """Some symbol's range holds no multiple of its modulus (``X % 16384 == 0`` with ``X <= 8192``): the candidate
    admits nothing, which the domain check would prove with the solver and a context of its own (issue 28: half the
    candidates of examples/sgemm_sm80.cute.toml's slowest check)."""
    return any(s.hi is not None and -(-s.lo // s.multiple_of) * s.multiple_of > s.hi for s in symbols)


def overflow_conditions(op: str, args: Sequence[object], symbols: Symbols) -> list[Bool]:
    """The open conditions of the overflow obligations (OVF-ARITH, OVF-RESULT) of ``op(*args)`` under ``symbols``."""
    outcome = applied(op, args, symbols)
    out = [o.condition for o in outcome.obligations if o.id.startswith("OVF-") and o.condition.value is None]
    if outcome.result is not None:
        res = result_condition(tuple(args), outcome.result, symbols)
        if res is not None and res.value is None:
            out.append(res)
    return out


def overflow_caps(op: str, args: Sequence[object], symbols: Symbols,
                  names: Sequence[str] | None = None) -> list[tuple[int, Bool, str]]:
    """Upper bounds ``X <= B`` under which the overflow obligations of ``op(*args)`` hold at the corner where every
    symbol takes its bound (each ``B`` the largest such, found by bisection; then lowered together while the
    corner still overflows, as for a product ``M*N``), over ``names`` only when given (a kernel operation's guard
    bounds no tile coordinate or thread index).  A candidate only: the engine proves the guard."""
    conds = overflow_conditions(op, args, symbols)
    if not conds or _true_in_box(conds, symbols):
        return []
    syms = [s for s in symbols
            if not s.name.startswith("?") and s.hi is not None and (names is None or s.name in names)]
    low = {s.name: s.lo for s in symbols}
    high = _upper_bounds(symbols)

    def holds(values: dict[str, int]) -> bool:
        try:
            return all(c.evaluate(values) for c in conds)
        except (ArithmeticError, KeyError):
            return False

    def largest(ok: Callable[[int], bool], lo: int, hi: int) -> int | None:
        if not ok(lo):
            return None
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
        return lo

    caps: dict[str, int] = {}
    for sym in syms:
        def alone(v: int, n: str = sym.name) -> bool:
            return holds({**low, n: v})

        b = largest(alone, sym.lo, high[sym.name])
        if b is None:
            return []
        if b < high[sym.name]:
            caps[sym.name] = b
    top = {s.name: caps.get(s.name, high[s.name]) for s in syms}
    if not holds({**low, **top}):
        hi = max(top.values())
        k = largest(lambda v: holds({**low, **{n: min(b, v) for n, b in top.items()}}),
                    max(low.values()), hi)
        if k is None:
            return []
        caps = {n: min(b, k) for n, b in top.items() if min(b, k) < high[n]}
    return [(1, le(symbol(n), b), f"{n} <= {b}") for n, b in caps.items()]


def _true_in_box(conds: Sequence[Bool], symbols: Symbols) -> bool:
    """Every condition true at every integer point of the symbols' ranges (any value, not only their multiples;
    no relation), which the simplifier proves from the intervals, with no divisor that may be 0: then every point
    ``overflow_caps`` probes holds, and it finds no cap (issue 28: a tiling over M, N <= 64)."""
    from dataclasses import replace

    from verifier.solver.encoding import Encoder

    box = Symbols(strict=True)
    box.table = {s.name: replace(s, multiple_of=1) for s in symbols}
    enc = Encoder(box, {})
    # the verdict's engine simplified the same statements over the same box where no symbol has a modulus: its
    # answer is this one (decide._proofs), and only the divisors are to be recorded here
    same = {s.name: (s.lo, s.hi, 1) for s in symbols}
    done = _proofs() or {}
    try:
        for c in conds:
            if any(b == same and route == SIMPLIFIED for b, route in done.get((c.expr, ()), ())):
                enc.record_divisors(c.expr)
            elif not enc.simplifies_to_true(c):
                return False
        return not enc.divisors
    except (ArithmeticError, KeyError):
        return False


def _upper_bounds(symbols: Symbols) -> dict[str, int]:
    """Each bounded symbol's upper bound, lowered through the relations ``X <= Y`` (``ldA >= M`` bounds M by ldA's
    bound), so that no guard repeats a bound the assumptions already imply."""
    from verifier.core.integers import Op, Sym

    high = {s.name: s.hi for s in symbols if s.hi is not None}
    for _ in range(len(high)):
        changed = False
        for rel in symbols.relations:
            e = rel.expr
            if not (isinstance(e, Op) and e.op in ("<=", "<", ">=", ">") and all(type(a) is Sym for a in e.args)):
                continue
            a, b = (x.name for x in e.args)  # type: ignore[attr-defined]
            small, big = (a, b) if e.op in ("<=", "<") else (b, a)
            if small in high and big in high:
                bound = high[big] - (1 if e.op in ("<", ">") else 0)
                if bound < high[small]:
                    high[small], changed = bound, True
        if not changed:
            break
    return high


# The operands of a kernel operation that are positions in the grid, not sizes of the problem: a tile coordinate
# (blockIdx), a thread index (threadIdx).  A guard is what ``can_implement`` checks of the problem, so it constrains
# none of the symbols found only there (``t % 64 == 0`` would "prove" a copy aligned by idling threads).
# (The declaration of each operation says which operands are indices: ``Operation.indices``.)


def guard_symbols(op: str, args: Sequence[object], names: list[str]) -> list[str]:
    """The symbols a guard of ``op(*args)`` may constrain: for a kernel operation (one with index operands,
    ``Operation.indices``), those of its other operands; otherwise every one of ``names``."""
    row = registry.REGISTRY.get(op)
    index = () if row is None else row.indices
    if not index:
        return names
    sizes = set().union(*(_operand_symbols(a) for k, a in enumerate(args) if k not in index))
    return [n for n in names if n in sizes]


def _operand_symbols(obj: object) -> set[str]:
    if isinstance(obj, Tile):
        return set().union(*(_operand_symbols(e) for e in obj.elements))
    if isinstance(obj, Int):
        return set(obj.symbols())
    if type(obj) is tuple:
        return set().union(*(_operand_symbols(x) for x in obj))
    found = getattr(obj, "symbols", None)
    if callable(found):  # a layout, a composed layout
        return set(found())
    layout = getattr(obj, "layout_tv", None)  # a TiledCopy: its thread-value layout
    return _operand_symbols(layout) if layout is not None else set()


def _padded(combo: Sequence[tuple[int, Bool, str]], names: list[str], every: list[str]
            ) -> list[tuple[int, Bool, str]]:
    """The candidate's atoms over every symbol: no constraint on those the guard leaves free."""
    atom = dict(zip(names, combo))
    return [atom.get(n, (1, TRUE, "")) for n in every]


def _hopeless(op: str, args: Sequence[object], symbols: Symbols, names: list[str],
              failing: tuple[str, ...], budget: Budget, moduli: Sequence[int] = ()) -> str | None:
    """Why no guard over ``names`` can make ``op(*args)`` valid, when that is known before the search: a failing
    claim whose symbols are tied by the assumptions to none of ``names`` fails under every guard (its failing values
    combine with any admitted values of the rest), and a quantifier-free claim that no admitted value satisfies."""
    from verifier.solver.encoding import Encoder, Unencodable
    from verifier.solver.finite import satisfiable

    if not failing:
        return None
    try:
        items = [i for i in items_for(op, args, registry.apply(op, *args)) if i.id in failing and i.deciding]
    except LayoutError:
        return None
    for item in items:
        own = (set(item.holds.expr.symbols()) | {n for _, lo, hi in item.ranges
                                                  for n in (*lo.symbols(), *hi.symbols())}) - set(item.witnesses)
        if not own and not item.ranges and item.holds.evaluate({}):
            continue  # an instance that holds (DIV-EXACT of a static mode): the failing one is another of its ID
        tied = _tied(symbols, own)
        if not tied & set(names):
            held = f" of {', '.join(sorted(tied))}" if tied else ""
            return (f"no guard on {', '.join(names)} can help: {item.id} fails for values{held} that such a guard "
                    "does not constrain")
        if item.ranges or _holds_somewhere(symbols, item.holds, moduli):
            continue
        if budget.left() >= 1000:  # the solver's answer, by evaluation where there are few points (issue 28)
            found = satisfiable([item.holds], symbols)
            if found is not None:
                if not found:
                    return f"no guard can help: {item.id} fails at every value the assumptions admit"
                continue
        try:
            enc = Encoder(symbols)
            constraints = [*enc.assumptions(), enc.boolean(item.holds)]
            constraints += [enc.nonzero(d) for d in list(enc.divisors)]
        except Unencodable:
            continue
        if solve(constraints, budget.part(UNITS_PER_SECOND))[0] == "unsat":
            return f"no guard can help: {item.id} fails at every value the assumptions admit"
    return None


def _holds_somewhere(symbols: Symbols, holds: Bool, moduli: Sequence[int]) -> bool:
    """``holds`` is true, with no divisor zero, at an admitted point where every symbol is the smallest multiple of
    one of the guard's moduli (their least common multiple first, then each, then none): a model of what
    ``_hopeless`` asks the solver (the assumptions, the claim, its divisors nonzero), so the solver would not
    answer unsat; found without a context (issue 28: the failing claims of the corpora are mostly tilings, which
    hold where every extent is a multiple of the tile).  False says nothing: the solver decides then."""
    import math

    from verifier.solver.encoding import _divisors_of

    divisors = [d for e in (holds.expr, *(r.expr for r in symbols.relations)) for d in _divisors_of(e)]
    lcm = math.lcm(*moduli) if moduli else 1
    for t in dict.fromkeys([lcm, *sorted(moduli, reverse=True), 1]):
        values = {}
        for sym in symbols:
            step = math.lcm(t, sym.multiple_of)
            v = -(-sym.lo // step) * step
            if sym.hi is not None and v > sym.hi:
                break
            values[sym.name] = v
        else:
            if not _admitted(symbols, values):
                continue
            try:
                if all(d.evaluate(values) != 0 for d in divisors) and holds.evaluate(values):
                    return True
            except (ArithmeticError, KeyError, UndefinedBehavior):
                continue
    return False


def _tied(symbols: Symbols, own: set[str]) -> set[str]:
    """``own`` and every symbol linked to it through the relations among the assumptions."""
    tied = set(own)
    grew = True
    while grew:
        grew = False
        for r in symbols.relations:
            names = set(r.expr.symbols())
            if names & tied and not names <= tied:
                tied |= names
                grew = True
    return tied


def _smallest_point(symbols: Symbols, names: list[str], combo: Sequence[tuple[int, Bool, str]],
                    known: dict[tuple[str, str], int | None]) -> dict[str, int] | None:
    """The smallest value of each symbol that its assumptions and the candidate's atom on it admit.  Each symbol's
    value depends on its own atom only, so ``known`` keeps it per (symbol, atom) over the candidates of one search:
    the scan runs up to 2^18 values where no value is admitted, and a search meets the same atom in hundreds of
    candidates (a third of the slowest check of examples/sgemm_sm80.cute.toml went here, issue 28)."""
    out = {}
    for n, (_, atom, text) in zip(names, combo):
        if (n, text) not in known:
            sym = symbols.lookup(n)
            assert sym is not None
            # the admitted values of the scan only: up to the symbol's bound, multiples of its modulus (a tile
            # larger than the range scanned 2^18 values for none, a tenth of a tiling's verdict, issue 28)
            end = sym.lo + 4 * MAX_MODULUS if sym.hi is None else min(sym.hi + 1, sym.lo + 4 * MAX_MODULUS)
            first = -(-sym.lo // sym.multiple_of) * sym.multiple_of
            at = _first_admitted(atom, n, first, sym.multiple_of)
            if at is None:  # an atom of another form: the scan
                known[n, text] = next((v for v in range(first, end, sym.multiple_of)
                                       if sym.admits(v) and atom.evaluate({n: v})), None)
            else:
                known[n, text] = at if at < end and sym.admits(at) else None
        value = known[n, text]
        if value is None:
            return None
        out[n] = value
    return out


def _first_admitted(atom: Bool, name: str, first: int, step: int) -> int | None:
    """The least ``v >= first``, a multiple of ``step``, at which a candidate's atom on ``name`` holds, computed
    for the atoms of ``_atoms`` (``X % t == 0``: the first multiple of lcm(step, t); ``X >= c``; none), or None for
    another form, which the caller scans.  The scan of ``X % 16384 == 0`` evaluated up to 16,384 values (issue 28)."""
    from math import lcm

    from verifier.core.integers import Const, Op, Sym

    e = atom.expr
    if type(e) is Const:
        return first if e.value is True else None
    if not (type(e) is Op and len(e.args) == 2 and type(e.args[1]) is Const):
        return None
    left, c = e.args[0], e.args[1].value
    if e.op == ">=" and type(left) is Sym and left.name == name and type(c) is int:
        return first if first >= c else first + -(-(c - first) // step) * step
    if (e.op == "==" and c == 0 and type(c) is int and type(left) is Op and left.op == "%"
            and left.args[0] == Sym(name) and type(left.args[1]) is Const and type(left.args[1].value) is int
            and left.args[1].value > 0):
        m = lcm(step, left.args[1].value)
        return -(-first // m) * m
    return None


def _weakest_first(per_symbol: list[list[tuple[int, Bool, str]]]) -> Iterator[tuple[tuple[int, Bool, str], ...]]:
    """The candidates (one atom per symbol) in the order of ``(weight, texts)``, generated lazily: the product of
    the atom lists has ``(2 + moduli) ** symbols`` members (ten million for a kernel's nine symbols), of which the
    search reads the first few hundred.

    Each list sorted by ``(weight, text)``, moving one symbol to its next atom never lowers a candidate's key (the
    weight is a product of positive weights; at an equal weight that symbol's text grows), so a heap of the
    frontier, started at the unconstrained candidate, pops every candidate exactly in sorted order."""
    lists = [sorted(atoms, key=lambda a: (a[0], a[2])) for atoms in per_symbol]
    # The key of a candidate is its weight, then its texts (a tuple orders as the list would); a search may pop
    # every member of the product (46,656 for a TMA box's six symbols), so the key is computed from the parent's
    # weight rather than from the atoms again (the weights are positive integers: the quotient is exact).
    texts = [[a[2] for a in lst] for lst in lists]
    weights = [[a[0] for a in lst] for lst in lists]
    start = (0,) * len(lists)
    w0 = 1
    for ws in weights:
        w0 *= ws[0]
    heap: list[tuple[int, tuple[str, ...], tuple[int, ...]]] = [(w0, tuple(t[0] for t in texts), start)]
    seen = {start}
    last = [len(lst) - 1 for lst in lists]
    while heap:
        w, words, ix = heapq.heappop(heap)
        yield tuple([lst[i] for lst, i in zip(lists, ix)])
        for j, i in enumerate(ix):
            if i < last[j]:
                nxt = (*ix[:j], i + 1, *ix[j + 1:])
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (w // weights[j][i] * weights[j][i + 1],
                                          (*words[:j], texts[j][i + 1], *words[j + 1:]), nxt))


def _weight(combo: Sequence[tuple[int, Bool, str]]) -> int:
    w = 1
    for weight, _, _ in combo:
        w *= weight
    return w


def _necessity(op: str, args: Sequence[object], symbols: Symbols, cond: Bool, budget: Budget,
               names: list[str] | None = None, policy: Policy = STRICT, atoms: Sequence[Bool] = ()
               ) -> tuple[str, dict[str, int] | None]:
    from verifier.solver.encoding import Encoder, Unencodable
    from verifier.solver.finite import implied_alone, satisfiable

    # Prove: outside the condition some quantifier-free claim always fails.
    outcome = applied(op, args, symbols)
    facts = _definitional_facts(op, args, outcome, symbols)
    # The solver's query below, decided atom by atom where each atom is implied by the facts over its own symbols
    # at each of their few values (solver.finite): unsat then, without a context (issue 28).
    if facts and atoms and all(implied_alone(facts, a, symbols) for a in atoms):
        return PROVED, None
    # the same query by evaluation where its symbols have few points (issue 28)
    found = satisfiable([not_(cond), *facts], symbols) if facts and budget.left() >= 1000 else None
    if found is False:
        return PROVED, None
    if found is None:
        try:
            enc = Encoder(symbols)
            constraints = [*enc.assumptions(), enc.boolean(not_(cond)), *(enc.boolean(f) for f in facts)]
            constraints += [enc.nonzero(d) for d in list(enc.divisors)]
            if facts and solve(constraints, budget.part(UNITS_PER_SECOND * 2))[0] == "unsat":
                return PROVED, None
        except Unencodable:
            pass
    every = [s.name for s in symbols]
    if names is not None and set(names) != set(every):
        return _necessity_over_indices(op, args, symbols, cond, budget, names, policy)
    # Refute: a small value outside the condition at which CuTe's result is concretely right.
    for values in _small_points(symbols, every):
        if budget.net_fired():
            break
        if cond.evaluate(values) or not _admitted(symbols, values) or _fails(facts, values):
            continue
        try:
            if valid_at(op, args, values, limit=1 << 12, strict=True):
                return REFUTED, values
        except claims.TooLarge:
            continue
    return UNKNOWN, None


def _fails(facts: Sequence[Bool], values: dict[str, int]) -> bool:
    """Whether a definitional fact is false at ``values``: then CuTe's result is wrong there by definition and
    ``valid_at`` (the concrete algebra with its postconditions enumerated) need not run.  Without this, a guard
    whose every small counter-value breaks a fact (the 3-D tiling's divisibility) swept 2,000 values for 25 s
    (issue 16)."""
    for f in facts:
        try:
            if not f.evaluate(values):
                return True
        except (UndefinedBehavior, ZeroDivisionError):
            continue  # undecided here: valid_at decides
    return False


def _definitional_facts(op: str, args: Sequence[object], outcome: registry.Outcome, symbols: Symbols) -> list[Bool]:
    """The quantifier-free statements whose failure is by itself a failure of the contract (or undefined
    behaviour): the claims that state the contract's own definition, the undefined behaviour and overflow
    obligations, and the preconditions whose failure is the error.  Left out: the claims that are only sufficient
    (RC-*, DN-RC-*, MCV-J/A, confirmed by the algebra's concrete postcondition) and the unchecked preconditions
    confirmed the same way: outside a guard they may fail where CuTe's result is still correct, so a guard they
    exclude is not necessary (issue 13, point 5)."""
    from verifier.engine.decide import _KEPT, _UNDEFINED, CONTRACT, _built, _composed_slice

    # A composed slice's contract is its recorded SLICE-POST (items_for), not the plain slice's claims.
    claim_ids = set() if _composed_slice(op, args) else {c.id for c in _built(op, args, outcome.result)}
    out = []
    for item in items_for(op, args, outcome, symbols):
        if not item.deciding or item.ranges or item.id in claims.CONFIRM_BY_ORACLE:
            continue
        if item.id in claim_ids or item.cute_checks in _UNDEFINED or item.id in _KEPT | CONTRACT:
            out.append(item.holds)
    return out


def _necessity_over_indices(op: str, args: Sequence[object], symbols: Symbols, cond: Bool, budget: Budget,
                            names: list[str], policy: Policy) -> tuple[str, dict[str, int] | None]:
    """Necessity of a guard over the problem sizes ``names`` only: a value of them outside the condition refutes it
    when the operation is valid there for every admitted thread index and tile coordinate, which the engine decides
    (one correct thread at one correct value would not do).  A few small values are tried."""
    tried = 0
    for values in _small_points(symbols, names):
        if tried >= NECESSITY_SOLVER_SAMPLES or budget.left() <= 0:
            break
        if cond.evaluate(values):
            continue
        tried += 1
        pinned = [eq(symbol(n), v) for n, v in values.items()]
        try:
            with using("cpp"):
                v = decide_operation(op, args, _with(symbols, pinned), budget.part(UNITS_PER_SECOND), policy,
                                     settle_early=True)
        except LayoutError:
            continue  # no admitted value of the others: nothing to learn here
        if v.verdict == VALID:
            return REFUTED, values
    return UNKNOWN, None


def _small_points(symbols: Symbols, names: list[str]) -> list[dict[str, int]]:
    ranges = []
    for n in names:
        sym = symbols.lookup(n)
        assert sym is not None
        ranges.append([v for v in range(sym.lo, sym.lo + 65) if sym.admits(v)][:65])
    points = itertools.product(*ranges)
    return [dict(zip(names, p)) for p in itertools.islice(points, NECESSITY_SAMPLES)]


def _admitted(symbols: Symbols, values: dict[str, int]) -> bool:
    from verifier.core.symbols import _holds

    return all(_holds(r, values) for r in symbols.relations)


def _cpp(names: list[str], texts: list[str]) -> str:
    params = ", ".join(f"int {n}" for n in names)
    body = " && ".join(texts) or "true"
    return f"bool can_implement({params}) {{\n  return {body};\n}}"


def _python(op: str, args: Sequence[object], texts: list[str]) -> str:
    call = f"{op}({', '.join(show(a) for a in args)})"
    cond = " and ".join(texts) or "True"
    return f'assert {cond}, "{call} needs {cond}"'
