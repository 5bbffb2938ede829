"""The shared machinery of the contracts: building an operation's claims, evaluating them on concrete values and
replaying a counterexample.  No contract is stated here: each operation's sits beside its algorithm, the builder
its declaration names (``algebra.declare``: ``contract=``).

A ``Claim`` (``core.claim``) is one universally quantified statement over the symbols and witnesses.  The engine
refutes a claim by finding an assignment where it fails and proves it by showing no such assignment exists.

A builder takes the operation's result and its operands (``build(op, args, result)``: the engine has the result
from ``algebra.registry.apply``) and states what the result must satisfy, with the witnesses as symbolic integers;
it does not run the operation again.  It calls the algebra only for what the statement itself is made of (the
complement in ``Z = (T, complement(T))``, ``filter``, a slice's offset, the divide a partition slices).  The same
code serves both uses: with symbolic operands it gives the formula the engine encodes; on concrete operands, with
the operation run on them (``result_of``), it gives the concrete verdict used to *replay* every counterexample
(``replay``), which is how a refutation is confirmed before it is reported, and the algorithm evaluates the same
claims on concrete operands (``core.claim.decided``) for its recorded postcondition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from verifier.algebra import swizzled
from verifier.algebra.registry import REGISTRY
from verifier.core.claim import Claim, TooLarge, _truth, first_failure
from verifier.core.errors import CuteRejection, UndefinedBehavior
from verifier.core.integers import substitute
from verifier.core.obligations import Recorder, Shallow
from verifier.core.operands import substitute as substitute_operand

#: Claims that are sufficient but not necessary: a refutation is confirmed by the algebra's concrete verdict.
CONFIRM_BY_ORACLE = {"RC-SIZE", "RC-REM", "RC-DIV", "RC-POST", "DN-RC-SIZE", "DN-RC-REM", "DN-RC-DIV", "DN-RC-POST",
                     "MCV-J", "MCV-A"}


def _builders() -> dict[str, Callable[..., list[Claim]]]:
    """Each operation's claim builder, ``builder(result, *operands)``, as its declaration names it
    (``algebra.declare``).  A partition is a slice of a zipped_divide: the view is right when the divide is (its
    claims), and the coordinate is inside the grid (IX-2 / IX-3, recorded by the algebra and decided as
    obligations)."""
    return {name: row.claims() for name, row in REGISTRY.items()}


def _is_swizzled(f: object) -> bool:
    from verifier.core.swizzle import ComposedLayout, Swizzle

    return isinstance(f, ComposedLayout | Swizzle)


def swizzled_claims(op: str, args: Sequence[object], result: object) -> list[Claim] | None:
    """The claims of ``op`` on operands of which one is swizzled (``algebra.swizzled.claims``), or None when these
    operands are not of that kind."""
    return swizzled.claims(op, args, result)


def has_postcondition(op: str) -> bool:
    return op in BUILDERS


def build(op: str, args: Sequence[object], result: object) -> list[Claim]:
    """The claims of ``result``, which ``op(*args)`` returned (``algebra.registry.apply``): they read it, and the
    operands, without running the operation again.  The operations a builder calls record into a ``Recorder`` of
    its own, which nothing reads, and so decide no postcondition by enumeration (``Shallow``)."""
    builder = BUILDERS.get(op)
    if builder is None:
        return []
    with Recorder(), Shallow():
        swizzled = swizzled_claims(op, args, result) if any(_is_swizzled(a) for a in args) else None
        return swizzled if swizzled is not None else builder(result, *args)


def result_of(op: str, args: Sequence[object]) -> object:
    """``op(*args)`` as ``algebra.registry.apply`` computes it; raises ``CuteRejection`` / ``UndefinedBehavior``.
    Only the result is read, so the postconditions the algebra would decide by enumerating concrete layouts are
    not computed (``Shallow``: most of a concrete replay's time, issue 28)."""
    from verifier.algebra.registry import apply

    with Shallow():
        outcome = apply(op, *args)
    if outcome.rejection is not None:
        raise outcome.rejection
    if outcome.undefined is not None:
        raise UndefinedBehavior(outcome.undefined)
    return outcome.result


# -- concrete replay -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """What concrete evaluation says at one assignment: the claim fails (with the values), or it holds."""

    fails: bool
    expected: int | None = None
    actual: int | None = None
    undefined: str | None = None


def concrete_claims(op: str, args: Sequence[object], values: Mapping[str, int]) -> list[Claim]:
    """The claims of ``op`` run on the operands at these values (raises ``UndefinedBehavior`` /
    ``CuteRejection`` as the algebra does)."""
    concrete = [substitute_operand(a, values) for a in args]
    return build(op, concrete, result_of(op, concrete))


def replay(op: str, args: Sequence[object], index: int, values: Mapping[str, int], id: str = "",
           built: Callable[[], list[Claim]] | None = None) -> Replay:
    """Run ``op`` on the concrete operands, build its claims on that result and evaluate claim ``index`` at the
    witnesses.  ``built``: those claims (``concrete_claims``), where the caller remembers them."""
    try:
        claims = built() if built is not None else concrete_claims(op, args, values)
        c = claims[index]
        w = {name: values[name] for name in c.witnesses}
        if not _truth(c.domain, w):
            return Replay(False)
        if c.expected is not None and c.actual is not None:
            exp, act = int(substitute(c.expected, w)), int(substitute(c.actual, w))
            return Replay(exp != act, exp, act)
        return Replay(not _truth(c.holds, w))
    except UndefinedBehavior as exc:
        return Replay(True, undefined=str(exc))
    except CuteRejection:
        return Replay(False)


def evaluate(op: str, args: Sequence[object], limit: int = 1 << 14, result: object = None) -> list[tuple[Claim, str]]:
    """The contract of ``op(*args)`` on concrete operands (``result``: what it returned, computed here if None),
    each claim evaluated at every witness value: ``holds``, ``fails`` (undefined behaviour in evaluating it
    included), or ``open`` when that would take more than ``limit`` evaluations (the engine's solver decides it
    then).  Raises ``CuteRejection`` as the algebra does."""
    out = []
    for c in build(op, args, result_of(op, args) if result is None else result):
        try:
            status = "holds" if first_failure(c, limit) is None else "fails"
        except TooLarge:
            status = "open"
        except UndefinedBehavior:
            status = "fails"
        out.append((c, status))
    return out


# Read at the end of the module: a declaration names its builder here, which must exist by then.
BUILDERS: dict[str, Callable[..., list[Claim]]] = _builders()
__all__ = ["BUILDERS", "Claim", "Replay", "TooLarge", "build", "concrete_claims", "evaluate", "first_failure",
           "has_postcondition", "replay", "result_of", "substitute_operand"]
