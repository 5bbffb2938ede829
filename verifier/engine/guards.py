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

import itertools
from collections.abc import Sequence
from copy import copy

from verifier.algebra import registry
from verifier.contracts import claims
from verifier.core.errors import LayoutError
from verifier.core.int_tuple import leaves
from verifier.core.integers import TRUE, Bool, Int, and_, eq, ge, mod, not_, symbol
from verifier.core.layouts import Layout, Tile
from verifier.core.semantics import using
from verifier.core.symbols import Symbols
from verifier.engine.decide import decide_operation, items_for, valid_at
from verifier.engine.verdicts import PROVED, REFUTED, UNKNOWN, VALID, Guard, Policy
from verifier.notation.cpp import show
from verifier.solver.budget import UNITS_PER_SECOND, Budget
from verifier.solver.solve import solve

STRICT = Policy(strict=True)

MAX_CANDIDATES = 64  # candidates decided by the solver; those refuted by a known value cost nothing
MAX_MODULUS = 1 << 16
PRETEST_LIMIT = 1 << 14  # largest concrete evaluation that may refute a candidate before the solver is asked
NECESSITY_SAMPLES = 2000


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
    names = [s.name for s in symbols if not s.name.startswith("?")]
    if not names or len(names) < sum(1 for _ in symbols):
        return None, "no guard is searched over anonymous (?) symbols"
    moduli = _moduli(args)
    per_symbol = [_atoms(n, moduli) for n in names]
    combos = sorted(itertools.product(*per_symbol), key=lambda c: (_weight(c), [a[2] for a in c]))
    known_bad: list[dict[str, int]] = []
    tried = 0
    undecided = False
    for combo in combos[1:]:
        if tried >= MAX_CANDIDATES:
            return None, NO_GUARD_IN_TIME if undecided else f"{NO_GUARD} (among the {MAX_CANDIDATES} weakest)"
        if budget.left() <= 0:
            return None, NO_GUARD_IN_TIME
        atoms = [a for _, a, text in combo if text]
        cond = and_(*atoms)
        if any(cond.evaluate(p) for p in known_bad):
            continue
        point = _smallest_point(symbols, names, combo)
        if point is not None and _admitted(symbols, point):
            try:
                if not valid_at(op, args, point, limit=PRETEST_LIMIT):
                    known_bad.append(point)
                    continue
            except claims.TooLarge:
                pass
        tried += 1
        share = budget.part(max(budget.rlimit / 8, min(budget.left(), UNITS_PER_SECOND // 2)))
        try:
            with using("cpp"):  # as verify() decides a candidate: CuTe's C++ semantics
                v = decide_operation(op, args, _with(symbols, atoms), share, policy)
        except LayoutError:
            continue  # the candidate excludes every admitted value: a guard that holds vacuously is none
        if v.verdict == VALID:
            texts = [text for _, _, text in combo if text]
            necessary, witness = _necessity(op, args, symbols, cond, budget)
            return Guard(" and ".join(texts), necessary, _cpp(names, texts), _python(op, args, texts),
                         witness, covers), None
        if v.counterexample is not None:
            known_bad.append({k: x for k, x in v.counterexample.params.items() if k in names})
        undecided = undecided or v.verdict == UNKNOWN
    if budget.left() <= 0:
        return None, NO_GUARD_IN_TIME
    return None, NO_GUARD_IN_TIME if undecided else NO_GUARD


def _smallest_point(symbols: Symbols, names: list[str],
                    combo: Sequence[tuple[int, Bool, str]]) -> dict[str, int] | None:
    """The smallest value of each symbol that its assumptions and the candidate's atom on it admit."""
    out = {}
    for n, (_, atom, _) in zip(names, combo):
        sym = symbols.lookup(n)
        assert sym is not None
        for v in range(sym.lo, sym.lo + 4 * MAX_MODULUS):
            if sym.admits(v) and atom.evaluate({n: v}):
                out[n] = v
                break
        else:
            return None
    return out


def _weight(combo: Sequence[tuple[int, Bool, str]]) -> int:
    w = 1
    for weight, _, _ in combo:
        w *= weight
    return w


def _necessity(op: str, args: Sequence[object], symbols: Symbols, cond: Bool,
               budget: Budget) -> tuple[str, dict[str, int] | None]:
    from verifier.solver.encoding import Encoder, Unencodable

    # Prove: outside the condition some quantifier-free claim always fails.
    try:
        facts = [i.holds for i in items_for(op, args, registry.apply(op, *args)) if i.deciding and not i.ranges]
        enc = Encoder(symbols)
        constraints = [*enc.assumptions(), enc.boolean(not_(cond)), *(enc.boolean(f) for f in facts)]
        constraints += [enc.nonzero(d) for d in list(enc.divisors)]
        if facts and solve(constraints, budget.part(UNITS_PER_SECOND * 2))[0] == "unsat":
            return PROVED, None
    except Unencodable:
        pass
    # Refute: a small value outside the condition at which CuTe's result is concretely right.
    for values in _small_points(symbols, [s.name for s in symbols]):
        if budget.net_fired():
            break
        if cond.evaluate(values) or not _admitted(symbols, values):
            continue
        try:
            if valid_at(op, args, values, limit=1 << 12, strict=True):
                return REFUTED, values
        except claims.TooLarge:
            continue
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
