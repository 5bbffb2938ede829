"""Proof obligations: the conditions an algebra operation needs, each tied to the CuTe source it comes from.

An ``Obligation`` is plain immutable data: an id from the spec's catalogue (``CMP-2``, ``CPL-4``, ``UP-2`` ...), a
one-line description, the CuTe source line, how CuTe treats it (``static_assert`` when static, ``never checked``,
``undefined behaviour``), and the condition as a ``Bool`` over the symbols.  When every value is concrete the
condition is decided on the spot (``holds`` / ``fails``); otherwise it is ``open`` for the engine.

The algebra records obligations into the innermost active ``Recorder`` (a context manager), so the operations
themselves stay plain functions that read like their math.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

from .integers import Bool, Int, ne

SA = "static_assert when the operands are static; never checked when they are dynamic"
NEVER = "never checked"
UB = "division by zero: undefined behaviour (SIGFPE on the host)"


@dataclass(frozen=True)
class Obligation:
    id: str
    description: str
    source: str
    cute_checks: str
    condition: Bool

    @property
    def status(self) -> str:
        v = self.condition.value
        if v is None:
            return "open"
        return "holds" if v else "fails"

    def __str__(self) -> str:
        return f"{self.id} [{self.status}] {self.description} ({self.source}): {self.condition}"


_active: contextvars.ContextVar[list[Obligation] | None] = contextvars.ContextVar("obligations", default=None)


class Recorder:
    """Collects the obligations recorded while it is active: ``with Recorder() as rec: ...; rec.obligations``."""

    def __init__(self) -> None:
        self.obligations: list[Obligation] = []
        self._token: contextvars.Token | None = None

    def __enter__(self) -> Recorder:
        self._token = _active.set(self.obligations)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _active.reset(self._token)


def recording() -> bool:
    """Whether a ``Recorder`` is active: postconditions decided by enumeration are worth computing only then."""
    return _active.get() is not None


def record(id: str, description: str, source: str, cute_checks: str, condition: Bool) -> None:
    """Record an obligation unless it is statically true (nothing to prove)."""
    if condition.is_constant(True):
        return
    sink = _active.get()
    if sink is not None:
        sink.append(Obligation(id, description, source, cute_checks, condition))


def nonzero(divisor: Int, id: str, what: str, source: str) -> None:
    """A division CuTe performs: its divisor must not be zero (a static divisor is checked by the compiler)."""
    if divisor.static:
        return
    record(id, f"{what} must not be zero", source, UB, ne(divisor, 0))
