"""What to decide, as data, and the one entry that decides it: ``decide(problem) -> Verdict``.

Every front end (the command line's operations and properties, bank conflicts, spec files and the pytest plugin,
theorems, the DSL tracer, the C++ front end and its TMA / GMMA checks) parses its input into a ``Problem`` without
the solver, and hands it to ``decide``; nothing else in a front end reaches the engine's deciding functions.  So a
decision has one place where its solver, its budget and its policy meet.

The kinds this layer decides are its own dataclasses (``Operation``, ``Property``, ``Admits``, ``Claims``,
``GmmaCanonical``, ``BankConflicts``); what a front end prints beyond the verdict comes from the same decision
(``Verdict.detail``).  A kind whose meaning belongs to a layer above (a spec file's check, ``run/spec.py``; a C++
function, ``oracle/cpp.py``) is registered by that layer under its ``kind`` (``register``), so this layer names no
module above it; the worker processes of ``run/batch.py`` are handed the registrations (``DECIDERS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from verifier.core.errors import LayoutError
from verifier.core.symbols import Symbols
from verifier.engine.verdicts import (
    DEFAULT_POLICY,
    INVALID,
    PROVED,
    REFUTED,
    UNKNOWN,
    VALID,
    Counterexample,
    Policy,
    Verdict,
)
from verifier.solver.budget import DEFAULT_TIMEOUT, Budget

if TYPE_CHECKING:  # the deciding modules load when a problem is decided, not when one is built
    from verifier.core.layouts import Layout
    from verifier.engine.banks import AccessModel
    from verifier.engine.decide import Item


@dataclass(frozen=True)
class Operation:
    """``op(*args)`` as CuTe computes it (``semantics``: the C++ headers or the DSL), over ``symbols``: is it
    correct for every admitted value, and (``derive``) under which guard would it be."""

    op: str
    args: tuple[object, ...]
    symbols: Symbols
    policy: Policy = DEFAULT_POLICY
    timeout: float | None = DEFAULT_TIMEOUT
    rlimit: int | None = None
    derive: bool = True
    semantics: str = "cpp"
    # local_tile / local_partition left unknown: decided as the zipped_divide they slice (``partition_verdict``),
    # as a kernel's call site (the C++ front end, the DSL tracer) asks it
    via_divide: bool = False
    # a share of a budget the caller spends over several decisions (a theorem's); None: its own, from the limits
    budget: Budget | None = field(default=None, compare=False)
    kind: ClassVar[str] = "operation"


@dataclass(frozen=True)
class Property:
    """``prop(*args)`` (``engine/checks.py``'s properties) for every admitted value, with its options
    (``extended``, ``bits``, ``element_bits``, ``access_bits``, ``offset``)."""

    prop: str
    args: tuple[object, ...]
    symbols: Symbols
    options: tuple[tuple[str, object], ...] = ()
    policy: Policy = DEFAULT_POLICY
    timeout: float | None = DEFAULT_TIMEOUT
    rlimit: int | None = None
    budget: Budget | None = field(default=None, compare=False)
    kind: ClassVar[str] = "property"


@dataclass(frozen=True)
class Admits:
    """Do the assumptions of ``symbols`` admit a value?  ``proved`` with one, ``refuted`` when the solver proves
    none exists (the reason names the conflict), ``unknown`` when neither is found within the domain check's
    budget.  A front end that must refuse an empty set of values (a spec file's relations) asks this."""

    symbols: Symbols
    kind: ClassVar[str] = "admits"


@dataclass(frozen=True)
class Claims:
    """Statements as the engine's items (a theorem's claims, the division-by-zero items of its computed operands):
    ``proved`` when every item is, ``refuted`` with a replayed counterexample, else ``unknown``."""

    name: str
    inputs: tuple[str, ...]
    items: tuple[Item, ...]
    symbols: Symbols
    budget: Budget | None = field(default=None, compare=False)
    kind: ClassVar[str] = "claims"


@dataclass(frozen=True)
class GmmaCanonical:
    """``make_gmma_desc<major>``'s check that a shared-memory layout is a canonical GMMA layout (``umma``:
    ``UMMA::make_umma_desc``'s) on the k-block one MMA reads (``k_block`` elements of K, default the dense MMA's):
    ``valid`` with its canonical form, or ``invalid`` with the reason; the verdict's ``detail`` is the whole
    outcome (``algebra.gmma.Canonical``: the descriptor's fields, which ``cute-verify gmma_canonical`` prints)."""

    smem: object
    element_bits: int
    major: str
    k_block: int | None = None
    umma: bool = False
    kind: ClassVar[str] = "gmma_canonical"


@dataclass(frozen=True)
class BankConflicts:
    """The wavefronts of each phase of a concrete shared-memory access (``engine/banks.py``'s model ``model``,
    ``offset`` added to every thread's coordinate), counted: ``proved`` conflict-free when every phase takes one,
    else ``refuted`` with the worst phase; the verdict's ``detail`` is the phases (``cute-verify bank_conflicts``
    prints them).  ``check conflict_free`` is the question for every admitted value (a ``Property``)."""

    smem: object
    access: Layout
    model: AccessModel
    offset: int = 0
    kind: ClassVar[str] = "bank_conflicts"


class Registered(Protocol):
    """A problem of a layer above this one, decided by what that layer registered under its ``kind``."""

    @property
    def kind(self) -> str: ...


Problem = Operation | Property | Admits | Claims | GmmaCanonical | BankConflicts | Registered

# kind -> how to decide it, for the kinds of the layers above (``register``)
DECIDERS: dict[str, Callable[[Any], Verdict]] = {}


def register(kind: str, decider: Callable[[Any], Verdict]) -> None:
    DECIDERS[kind] = decider


def decide(problem: Problem) -> Verdict:
    """The verdict on ``problem``: the one entry into deciding for every front end.

    Raises ``LayoutError`` for bad input found while deciding (assumptions that admit no value, an extent that can
    be negative: ``solver/domain.py``), as the engine's functions do."""
    if isinstance(problem, Operation):
        from verifier.engine.verify import PARTITIONS, partition_verdict, verify

        v = verify(problem.op, problem.args, problem.symbols, timeout=problem.timeout, derive=problem.derive,
                   policy=problem.policy, rlimit=problem.rlimit, budget=problem.budget, semantics=problem.semantics)
        if problem.via_divide and problem.op in PARTITIONS and v.verdict == UNKNOWN:
            v = partition_verdict(problem.op, problem.args, v, problem.symbols, problem.timeout, problem.policy,
                                  semantics=problem.semantics)
        return v
    if isinstance(problem, Property):
        from verifier.engine.checks import check

        return check(problem.prop, problem.args, problem.symbols, timeout=problem.timeout, policy=problem.policy,
                     rlimit=problem.rlimit, budget=problem.budget, **dict(problem.options))
    if isinstance(problem, Admits):
        return _admits(problem.symbols)
    if isinstance(problem, Claims):
        from verifier.engine.decide import Engine, decide_all, summarize

        decisions = decide_all(Engine(problem.symbols, budget=problem.budget), list(problem.items))
        verdict, cex, reason = summarize(decisions)
        return Verdict(problem.name, problem.inputs, {VALID: PROVED, INVALID: REFUTED}.get(verdict, verdict), None,
                       tuple(decisions), cex, reason)
    if isinstance(problem, GmmaCanonical):
        return _canonical(problem)
    if isinstance(problem, BankConflicts):
        return _bank_conflicts(problem)
    decider = DECIDERS.get(problem.kind)
    if decider is None:
        raise LayoutError(f"no front end decides a {problem.kind!r} problem here (its module registers it)")
    return decider(problem)


def _admits(symbols: Symbols) -> Verdict:
    from verifier.solver.domain import VacuousAssumptions, admitted_value

    assumptions = symbols.described()
    try:
        value, undecided = admitted_value(symbols)
    except VacuousAssumptions as exc:
        return Verdict("assumptions", (), REFUTED, reason=str(exc), assumptions=assumptions)
    if value is None:
        return Verdict("assumptions", (), UNKNOWN, reason=undecided, assumptions=assumptions)
    return Verdict("assumptions", (), PROVED, assumptions=assumptions)


def _canonical(problem: GmmaCanonical) -> Verdict:
    from verifier.algebra.gmma import canonical_gmma, canonical_umma

    check = canonical_umma if problem.umma else canonical_gmma
    c = check(problem.smem, problem.element_bits, problem.major, problem.k_block)
    return Verdict(f"canonical_{'umma' if problem.umma else 'gmma'}<{problem.major}>", (str(problem.smem),),
                   VALID if c.accepted else INVALID, result=c.canonical if c.accepted else None,
                   reason=None if c.accepted else c.reason, detail=c)


def _bank_conflicts(problem: BankConflicts) -> Verdict:
    from verifier.engine.banks import wavefronts

    phases = tuple(wavefronts(problem.smem, problem.access, problem.model, problem.offset))
    worst = max(phases, key=lambda p: p.wavefronts, default=None)
    inputs = (str(problem.smem), str(problem.access))
    if worst is None or worst.wavefronts <= 1:
        return Verdict("bank_conflicts", inputs, PROVED, detail=phases)
    # the values are concrete: the count itself is the replay
    words = ", ".join(f"thread {t} at byte {a}" for t, a in worst.words)
    cex = Counterexample({}, "CONFLICT-FREE", note=f"phase {worst.index}, bank {worst.bank}: {words}")
    return Verdict("bank_conflicts", inputs, REFUTED, counterexample=cex,
                   reason=f"{worst.wavefronts}-way bank conflict", detail=phases)
