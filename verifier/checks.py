"""Properties of layouts, decided for every allowed value of their symbols.

``compatible(S1, S2)``, ``injective(L)``, ``surjective(L, n)`` onto ``[0, n)``, ``bijective(L)`` onto
``[0, size)``, ``equivalent(L1, L2)`` as functions on their domain (``extended``: on every non-negative 1-D
coordinate, as CuTe evaluates past the domain along the last mode), ``in_bounds(L, extent)`` and
``no_overflow(L, bits)`` of every intermediate of CuTe's index computation (``size``, each ``coord * stride`` and
each partial sum of ``crd2idx``).

Each property is a list of claims built from the operands; the engine proves or refutes them, and a refutation is
replayed by rebuilding the claims on the operands with the counterexample's values substituted.  Surjectivity needs
"for every k there is an i", which is not a single universal claim: it is proved through bijectivity or a
quantified query, and refuted by counting (``size(L) < n``) or by a quantified query whose answer is replayed by
enumeration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from . import algebra
from .basis import ScaledBasis
from .budget import DEFAULT_TIMEOUT, Budget
from .claims import Claim, Replay, substitute_operand
from .conditions import show
from .domain import check_domain
from .engine import Engine, Item, _rlimit_count, check_sat, decide_all, summarize
from .int_tuple import IntTuple, compatible, leaves
from .integers import Bool, D, Int, and_, eq, ge, le, lt, max_, min_, ne, symbol
from .interop import coerce
from .layouts import Layout, size
from .symbols import Symbols
from .verdicts import (
    DEFAULT_POLICY,
    PROVED,
    REFUTED,
    UNKNOWN,
    VALID,
    Counterexample,
    ObligationVerdict,
    Policy,
    Verdict,
)

_I, _J = symbol("#i"), symbol("#j")
SEPARATED = "sorted strides (no solver)"
STRUCTURAL = "equal coalesced forms (no solver)"
UNBOUNDED = D(2**62)


def _range(n: Int) -> tuple[tuple[str, Int, Int], ...]:
    return (("#i", D(0), n),)


def _compatible(a: IntTuple, b: IntTuple) -> list[Claim]:
    return [Claim("COMPATIBLE", "every leaf of S1 equals the size of the matching mode of S2",
                  "int_tuple.hpp:485-506", (), compatible(a, b))]


def _injective(layout: Layout) -> list[Claim]:
    n = size(layout)
    return [Claim("INJECTIVE", "L(i) != L(j) for i < j < size(L)", "layout.hpp", (("#i", D(0), n), ("#j", _I + 1, n)),
                  ne(layout(_I), layout(_J)))]


def _in_bounds(layout: Layout, extent: IntTuple) -> list[Claim]:
    e = extent if isinstance(extent, Int) else size(extent)
    i = layout(_I)
    return [Claim("IN-BOUNDS", f"0 <= L(i) < {e} for every i < size(L)", "layout.hpp", _range(size(layout)),
                  and_(ge(i, D(0)), lt(i, e)), None, i)]


def _bijective(layout: Layout) -> list[Claim]:
    return _injective(layout) + _in_bounds(layout, size(layout))


def _equivalent(a: Layout, b: Layout, extended: bool = False) -> list[Claim]:
    n = UNBOUNDED if extended else size(a)
    return [Claim("EQUIV-SIZE", "size(L1) == size(L2)", "layout.hpp", (), eq(size(a), size(b))),
            Claim("EQUIV", "L1(i) == L2(i) for every i" + (" >= 0" if extended else " < size"), "layout.hpp",
                  _range(n), eq(a(_I), b(_I)), a(_I), b(_I))]


def _no_overflow(layout: Layout, bits: int = 32) -> list[Claim]:
    lo, hi = D(-(2 ** (bits - 1))), D(2 ** (bits - 1) - 1)
    fits = lambda x: and_(ge(x, lo), le(x, hi))  # noqa: E731
    shapes, strides = list(leaves(layout.shape)), list(leaves(layout.stride))
    out: list[Claim] = []
    prod: Int = D(1)
    for k, s in enumerate(shapes):
        prod = prod * s
        out.append(Claim("OVF-SIZE", f"the product of the first {k + 1} extents (size) fits in int{bits}",
                         "layout.hpp (size)", (), fits(prod)))
    low, high = D(0), D(0)
    for k, (s, d) in enumerate(zip(shapes, strides)):
        term = (s - 1) * d
        out.append(Claim("OVF-TERM", f"coord * stride of mode {k} fits in int{bits}", "stride.hpp (crd2idx)", (),
                         fits(term)))
        low = low + _min0(term)
        high = high + _max0(term)
        out.append(Claim("OVF-SUM", f"the partial sums of crd2idx up to mode {k} fit in int{bits}",
                         "stride.hpp (crd2idx)", (), and_(fits(low), fits(high))))
    return out


def _min0(x: Int) -> Int:
    return min_(x, D(0))


def _max0(x: Int) -> Int:
    return max_(x, D(0))


BUILDERS: dict[str, Callable[..., list[Claim]]] = {
    "compatible": _compatible, "injective": _injective, "bijective": _bijective, "equivalent": _equivalent,
    "in_bounds": _in_bounds, "no_overflow": _no_overflow,
}
PROPERTIES = (*BUILDERS, "surjective")


def _items(prop: str, args: Sequence[object], options: Mapping[str, object]) -> list[Item]:
    builder = BUILDERS[prop]
    built = builder(*args, **options)

    def replay(values: Mapping[str, int], k: int) -> Replay:
        concrete = [substitute_operand(a, values) for a in args]
        c = builder(*concrete, **options)[k]
        w = {name: values[name] for name in c.witnesses}
        for name, lo, hi in c.ranges:
            if not (int(lo.evaluate(w)) <= w[name] < int(hi.evaluate(w))):
                return Replay(False)
        ok = bool(c.holds.evaluate(w)) if c.holds.value is None else bool(c.holds.value)
        exp = int(c.expected.evaluate(w)) if c.expected is not None else None
        act = int(c.actual.evaluate(w)) if c.actual is not None else None
        return Replay(not ok, exp, act)

    return [Item(c.id, c.description, c.source, "property", True, c.ranges, c.holds,
                 lambda values, k=k: replay(values, k)) for k, c in enumerate(built)]


def check(prop: str, args: Sequence[object], symbols: Symbols, timeout: float = DEFAULT_TIMEOUT,
          policy: Policy = DEFAULT_POLICY, rlimit: int | None = None, budget: Budget | None = None,
          **options: object) -> Verdict:
    """Decide ``prop(*args)`` for every value the assumptions allow: proved, refuted or unknown, within ``rlimit``
    Z3 resource units and the wall-clock safety net of ``timeout`` seconds (``budget.py``).  Raises
    ``LayoutError`` when the assumptions admit no value or an extent can be negative (``domain.py``)."""
    args = [coerce(a) for a in args]  # pycute layouts are accepted (interop.py)
    inputs = tuple(show(a) for a in args)
    assumptions = symbols.described()
    undecided = check_domain(prop, args, symbols)
    if undecided is not None:
        return Verdict(prop, inputs, UNKNOWN, reason=undecided, assumptions=assumptions)
    engine = Engine(symbols, budget=budget if budget is not None else Budget(rlimit, timeout))
    if prop == "surjective":
        decisions = _surjective(engine, args[0], args[1])  # type: ignore[arg-type]
    elif prop in ("injective", "bijective") and _separated(args[0]):  # type: ignore[arg-type]
        layout = args[0]
        inj = _injective(layout)[0]  # type: ignore[arg-type]
        decisions = [ObligationVerdict(inj.id, inj.description, inj.source, "property",
                                       "sorted by |stride|, each stride exceeds the reach of the smaller ones",
                                       PROVED, True, route=SEPARATED)]
        if prop == "bijective":
            decisions += decide_all(engine, _items("in_bounds", [layout, size(layout)], {}),  # type: ignore
                                    policy)
    elif prop == "equivalent" and not options.get("extended") and (
            structural := _structurally_equivalent(args[0], args[1])) is not None:  # type: ignore[arg-type]
        decisions = structural
    else:
        decisions = decide_all(engine, _items(prop, args, options), policy)
    decisions = [replace(d, severity=policy.severity(d.id)) for d in decisions]
    verdict, cex, reason = summarize(decisions, policy)
    verdict = {VALID: PROVED, "invalid": REFUTED}.get(verdict, verdict)
    return Verdict(prop, inputs, verdict, None, tuple(decisions), cex, reason, assumptions=assumptions)


def _separated(layout: Layout) -> bool:
    """A sufficient condition for injectivity of a concrete layout, decided without a solver and in time flat in
    its size: sorted by ``|stride|``, each mode's stride exceeds the largest offset the smaller modes reach, so
    the digits of a coordinate are recovered from its index one mode at a time (mixed radix)."""
    if not isinstance(layout, Layout) or not layout.concrete:
        return False
    modes = [(int(s), abs(int(d))) for s, d in zip(leaves(layout.shape), leaves(layout.stride)) if int(s) != 1]
    if any(s < 1 for s, _ in modes):
        return False
    reach = 0
    for s, d in sorted(modes, key=lambda m: m[1]):
        if d <= reach:
            return False
        reach += (s - 1) * d
    return True


def _canonical(layout: Layout) -> list[tuple[int, int]]:
    """The flat modes of a concrete layout without its size-1 modes, adjacent modes merged where
    ``d1 == s0 * d0``.  Two layouts of one size are equal functions on ``[0, size)`` exactly when these agree:
    the function determines each mode in turn (``d0 = f(1) - f(0)``; ``s0`` is the first ``i`` with
    ``f(i) != i * d0``, as the next mode could not be merged), and the rest is ``f(s0 * j)``."""
    out: list[tuple[int, int]] = []
    for s, d in zip(leaves(layout.shape), leaves(layout.stride)):
        s, d = int(s), int(d)
        if s == 1:
            continue
        if out and d == out[-1][0] * out[-1][1]:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    return out


def _first_difference(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int | None:
    """The least index where two different canonical forms (``_canonical``) of one size disagree."""
    prefix = 1
    for (sa, da), (sb, db) in zip(a, b):
        if da != db:
            return prefix
        if sa != sb:
            return prefix * min(sa, sb)
        prefix *= sa
    return None


def _structurally_equivalent(a: object, b: object) -> list[ObligationVerdict] | None:
    """``equivalent`` of two concrete layouts of one size without a solver, in time linear in their rank (flat
    in their size); None where it does not apply (symbols, sizes that differ, basis strides)."""
    if not (isinstance(a, Layout) and isinstance(b, Layout) and a.concrete and b.concrete):
        return None
    if any(isinstance(x, ScaledBasis) for x in (*leaves(a.stride), *leaves(b.stride))):
        return None
    n = int(size(a))
    if n != int(size(b)) or n < 1:
        return None
    claims = _items("equivalent", [a, b], {})
    ca, cb = _canonical(a), _canonical(b)

    def verdict(c: Item, status: str, cex: Counterexample | None = None) -> ObligationVerdict:
        return ObligationVerdict(c.id, c.description, c.source, "property", c.condition, status, True, cex,
                                 route=STRUCTURAL)

    if ca == cb:
        return [verdict(claims[0], PROVED), verdict(claims[1], PROVED)]
    i = _first_difference(ca, cb)
    if i is None or not 0 <= i < n:
        return None
    x, y = int(a(i)), int(b(i))
    if x == y:  # cannot happen by _canonical's argument; the solver decides
        return None
    return [verdict(claims[0], PROVED),
            verdict(claims[1], REFUTED, Counterexample({}, claims[1].id, i, x, y))]


def _surjective(engine: Engine, layout: Layout, n: IntTuple) -> list[ObligationVerdict]:
    target = n if isinstance(n, Int) else size(n)
    count = Claim("SURJ-COUNT", f"size(L) >= {target}: enough coordinates to cover [0, n)", "layout.hpp", (),
                  ge(size(layout), target))
    count_item = Item(count.id, count.description, count.source, "property", True, (), count.holds,
                      lambda v: Replay(int(size(layout.substitute(v))) < int(target.evaluate(v))))
    first = decide_all(engine, [count_item])
    if first[0].status != PROVED:
        return first
    desc = f"every k < {target} is L(i) for some i < size(L)"
    # Sufficient: L, or L without its static-0-stride modes (the same image), maps [0, size) injectively into
    # [0, n) and has size n (pigeonhole).
    for part in (layout, algebra.filter(layout)):
        if engine_proves(engine, eq(size(part), target)):
            sub = decide_all(engine, _items("injective", [part], {}) + _items("in_bounds", [part, target], {}))
            if all(d.status == PROVED for d in sub):
                return [*first, ObligationVerdict("SURJ", desc, "layout.hpp", "property", "by bijectivity",
                                                  PROVED, True)]
    return [*first, _surjective_quantified(engine, layout, target, desc)]


def engine_proves(engine: Engine, b: Bool) -> bool:
    item = Item("AUX", "", "", "", False, (), b, lambda v: Replay(False))
    return engine.decide(item, budget=engine.remaining() / 4).status == PROVED


def _surjective_quantified(engine: Engine, layout: Layout, target: Int, desc: str) -> ObligationVerdict:
    import z3

    enc = engine.encoder
    k, i = z3.Int("#k"), enc.var("#i")
    li = enc.term(layout(_I))
    missed = z3.ForAll([i], z3.Implies(z3.And(i >= 0, i < enc.term(size(layout))), li != k))
    s = z3.Solver()
    s.add(*enc.assumptions(), k >= 0, k < enc.term(target), missed)
    before = _rlimit_count(s)
    r = check_sat(s, engine.budget.net_seconds(), rlimit=engine.remaining())
    engine.budget.spend(max(0, _rlimit_count(s) - before))
    cond = f"for all k < {target}: exists i < size(L): L(i) == k"
    if r == z3.unsat:
        return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, PROVED, True)
    if r == z3.sat:
        m = s.model()
        values = enc.model_values(m, {sym.name for sym in engine.symbols})
        kk = m.eval(k, model_completion=True).as_long()
        concrete = layout.substitute(values)
        nn = int(size(concrete))
        if nn <= 1 << 20 and all(int(concrete(j)) != kk for j in range(nn)):
            cex = Counterexample(values, "SURJ", None, kk, None, note=f"index {kk} is never reached")
            return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, REFUTED, True, cex)
        return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, UNKNOWN, True,
                                 reason="the solver's missed index could not be replayed")
    return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, UNKNOWN, True,
                             reason=f"the quantified query was not decided: {s.reason_unknown()}")


__all__ = ["PROPERTIES", "check"]
