"""``verify``: the verdict on one operation, and the guard under which it would be valid.

The guard search (``engine.guards``) decides candidate conditions with ``decide_operation`` itself, so it sits
between the decision procedure (``engine.decide``) and this entry point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from verifier.algebra import registry
from verifier.algebra.composed import inner_problem, outer_layout_problem
from verifier.core.integers import Int
from verifier.core.layouts import Layout
from verifier.core.semantics import using
from verifier.core.symbols import Symbols
from verifier.engine.decide import decide_operation, same_operands
from verifier.engine.guards import derive_guard
from verifier.engine.verdicts import DEFAULT_POLICY, INVALID, REFUTED, VALID, Policy, Verdict
from verifier.notation.interop import coerce
from verifier.solver.budget import DEFAULT_TIMEOUT, Budget

# The guard search of an invalid verdict spends at most this share of the verdict's budget, after it.
GUARD_SHARE = 0.5


def verify(op: str, args: Sequence[object], symbols: Symbols, timeout: float | None = DEFAULT_TIMEOUT,
           derive: bool = True, policy: Policy = DEFAULT_POLICY, rlimit: int | None = None,
           budget: Budget | None = None, semantics: str = "cpp") -> Verdict:
    """Is ``op(*args)``, as CuTe computes it, correct for every value the assumptions allow? ``semantics``:
    which CuTe computes it, ``cpp`` (the C++ headers) or ``dsl`` (the CuTe DSL; its result in its trace form).

    Raises ``LayoutError`` (``domain.VacuousAssumptions``) when the assumptions admit no value or an operand's
    extent can be negative: bad input, never a vacuous ``valid``.  The verdict spends at most ``rlimit`` Z3
    resource units (``budget.py``; default ``DEFAULT_RLIMIT``) and stops at the wall-clock safety net of
    ``timeout`` seconds.  The guard search (``derive``) then gets at most ``GUARD_SHARE`` of that budget again,
    after the counterexample."""
    budget = budget if budget is not None else Budget(rlimit, timeout)
    with using(semantics), same_operands():  # the guard search reuses the verdict's claims, outcome and items
        verdict = decide_operation(op, args, symbols, budget, policy)
        if derive:
            verdict = _with_guard(verdict, op, args, symbols, budget, policy)
    if semantics == "dsl" and verdict.result is not None and verdict.result != "None":
        verdict = replace(verdict, result=_dsl_form(op, args, symbols))
    return verdict


def _with_guard(out: Verdict, op: str, args: Sequence[object], symbols: Symbols, budget: Budget,
                policy: Policy) -> Verdict:
    """``out`` with the weakest guard under which ``op(*args)`` is valid (strictly: warnings hold too), searched
    within ``GUARD_SHARE`` of the verdict's budget, on the operation that decided it (a composed layout's inner
    one, ``algebra.composed``)."""
    if not ((out.verdict == INVALID or (out.verdict == VALID and out.warnings)) and any(True for _ in symbols)):
        return out
    args = [coerce(a) for a in args]
    while (inner := inner_problem(op, list(args))) is not None:
        args = inner
    one_way = outer_layout_problem(op, list(args))
    if one_way is not None:  # sufficient on the inner layout, but not necessarily necessary for the composed one
        args = one_way
    guard_budget = Budget(int(budget.rlimit * GUARD_SHARE), budget.timeout)
    guard_budget.deadline = budget.deadline
    failing = tuple(dict.fromkeys(d.id for d in out.obligations if d.deciding and d.status == REFUTED
                                  and policy.counts(d.id)))
    # The guard covers warnings too: a partial tile's guard is what can_implement needs without predication.
    guard, note = derive_guard(op, args, symbols, guard_budget, policy=replace(policy, strict=True), covers=failing)
    if one_way is not None and guard is not None and guard.necessary != "unknown":
        guard = replace(guard, necessary="unknown", necessity_witness=None)
    return replace(out, guard=guard, guard_note=note)


def _dsl_form(op: str, args: Sequence[object], symbols: Symbols) -> str:
    """The result as the CuTe DSL prints it at trace time (``?{div=4}``), computed with dsl semantics."""
    from verifier.notation.dsl_forms import anonymize, trace_form  # DSL users only: it imports fractions

    with using("dsl"):  # run-time values become parameters, as the DSL sees them (it knows none of their values)
        r = registry.apply(op, *(anonymize(coerce(a), {}) for a in args)).result
    return trace_form(r, symbols) if isinstance(r, (Layout, Int)) else str(r)


__all__ = ["GUARD_SHARE", "verify"]


# The operations with no symbolic postcondition of their own, decided through the zipped_divide they slice (their
# declarations say ``through``; the DSL tracer and the C++ front end both ask ``partition_verdict``).
PARTITIONS = tuple(n for n, r in registry.REGISTRY.items() if r.through == "zipped_divide")


def partition_verdict(op: str, args: Sequence[object], v: Verdict, symbols: Symbols, timeout: float | None,
                      policy: Policy, semantics: str = "cpp") -> Verdict:
    """local_tile / local_partition have no symbolic postcondition of their own: they are the zipped_divide they
    slice (``algebra.local_tile``) plus the bounds of the slice (IX-2, IX-3). Valid when the divide is valid and
    those obligations are proved; otherwise the divide's verdict (its counterexample) or the unknown."""
    from verifier.core.int_tuple import product_each
    from verifier.engine.verdicts import PROVED

    layout, tiler = args[0], args[1]
    if op == "local_partition":
        tiler = product_each(tiler.shape)  # type: ignore[attr-defined]
    if op == "local_tile" and len(args) > 3 and args[3] is not None:
        # a projection (Step<_1,X,_1>): the tiler CuTe divides by is the diced one
        from verifier.algebra.ops import dice

        tiler = dice(args[3], tiler)
    d = verify("zipped_divide", [layout, tiler], symbols, timeout=timeout, semantics=semantics, policy=policy)
    bounds = [o for o in v.obligations if o.deciding and o.id.startswith("IX")]
    if d.verdict != VALID:
        return replace(d, op=v.op, inputs=v.inputs, result=v.result,
                       reason=f"its zipped_divide is {d.verdict}: {d.reason}")
    if all(o.status == PROVED for o in v.obligations if o.deciding):
        return replace(v, verdict=VALID, reason=None, obligations=(*v.obligations, *d.obligations))
    return replace(v, reason=f"{v.reason}; bounds: " + ", ".join(f"{o.id} {o.status}" for o in bounds))
