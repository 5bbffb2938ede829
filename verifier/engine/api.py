"""The public API's deciding functions, ``verifier.verify`` and ``verifier.check``: each states its question as a
``Problem`` and hands it to ``engine.problem.decide``, the one entry every front end decides through, so that the
API's verdicts are the command line's and the spec files'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from verifier.engine.problem import Operation, Property, decide
from verifier.engine.verdicts import DEFAULT_POLICY, Policy, Verdict
from verifier.solver.budget import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from verifier.core.symbols import Symbols
    from verifier.solver.budget import Budget


def verify(op: str, args: Sequence[object], symbols: Symbols, timeout: float | None = DEFAULT_TIMEOUT,
           derive: bool = True, policy: Policy = DEFAULT_POLICY, rlimit: int | None = None,
           budget: Budget | None = None, semantics: str = "cpp") -> Verdict:
    """Is ``op(*args)``, as CuTe computes it (``semantics``: ``cpp``, the C++ headers, or ``dsl``, the CuTe DSL),
    correct for every value the assumptions allow?  ``valid`` / ``invalid`` with a replayed counterexample and
    (``derive``) the guard under which it would be valid, or ``unknown`` within ``rlimit`` Z3 resource units and
    the wall-clock safety net of ``timeout`` seconds (``engine.verify.verify``).  Raises ``LayoutError`` when the
    assumptions admit no value or an operand's extent can be negative."""
    return decide(Operation(op, tuple(args), symbols, policy, timeout, rlimit, derive, semantics, budget=budget))


def check(prop: str, args: Sequence[object], symbols: Symbols, timeout: float | None = DEFAULT_TIMEOUT,
          policy: Policy = DEFAULT_POLICY, rlimit: int | None = None, budget: Budget | None = None,
          **options: object) -> Verdict:
    """Does property ``prop`` (``cute-verify check``'s, with its options: ``extended=True``, ``element_bits=16``,
    ...) hold of ``args`` for every value the assumptions allow?  ``proved``, ``refuted`` with a replayed
    counterexample, or ``unknown`` (``engine.checks.check``).  Raises ``LayoutError`` when the assumptions admit
    no value or an extent can be negative."""
    return decide(Property(prop, tuple(args), symbols, tuple(options.items()), policy, timeout, rlimit, budget))


__all__ = ["check", "verify"]
