"""A ``Claim``: one universally quantified statement over the symbols and a few *witness* variables (a 1-D
coordinate ``#i``, a second one ``#j``): for every assignment inside ``domain``, ``expected == actual`` (or the
boolean ``holds``).  Every contract is a list of claims; ``contracts.claims`` builds them per operation.
It lives in ``core`` so that a contract can sit beside its algorithm (an ``algebra`` module cannot import
``contracts``)."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.core.codomain import same_values
from verifier.core.integers import Bool, D, Int, and_, eq, ge, lt, symbol

WITNESSES = ("#i", "#j", "#k")
_I, _J = (symbol(w) for w in WITNESSES[:2])


@dataclass(frozen=True)
class Claim:
    """``for all witnesses with domain: expected == actual`` (or ``holds``), with where it comes from.  ``exact``:
    the claim is the postcondition itself; False where it is only sufficient (a refutation is then confirmed by the
    concrete postcondition, ``CONFIRM_BY_ORACLE``)."""

    id: str
    description: str
    source: str
    ranges: tuple[tuple[str, Int, Int], ...]  # (witness, lo, hi): lo <= w < hi
    holds: Bool
    expected: Int | None = None
    actual: Int | None = None
    exact: bool = True

    @property
    def witnesses(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.ranges)

    @property
    def domain(self) -> Bool:
        return and_(*(and_(ge(symbol(w), lo), lt(symbol(w), hi)) for w, lo, hi in self.ranges))


def _claim(id: str, description: str, source: str, n: Int, expected: object, actual: object,
           extra: Bool | None = None) -> Claim:
    """``expected == actual`` for every ``0 <= #i < n``; coordinates (scaled-basis values) compare component by
    component (codomain.py), and ``extra`` must hold as well."""
    if type(expected) is Int and type(actual) is Int and extra is None:
        return Claim(id, description, source, (("#i", D(0), n),), eq(expected, actual), expected, actual)
    holds = same_values(expected, actual)  # type: ignore[arg-type]
    return Claim(id, description, source, (("#i", D(0), n),), holds if extra is None else and_(holds, extra))


def _fact(id: str, description: str, source: str, holds: Bool, expected: Int | None = None,
          actual: Int | None = None) -> Claim:
    return Claim(id, description, source, (), holds, expected, actual)


def _same_size(id: str, description: str, source: str, expected: Int, actual: Int) -> Claim:
    return _fact(id, description, source, eq(expected, actual), expected, actual)
