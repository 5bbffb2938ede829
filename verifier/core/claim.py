"""A ``Claim``: one universally quantified statement over the symbols and a few *witness* variables (a 1-D
coordinate ``#i``, a second one ``#j``): for every assignment inside ``domain``, ``expected == actual`` (or the
boolean ``holds``).  Every contract is a list of claims, built by the builder its operation's declaration names,
beside the algorithm (``algebra.declare``); on concrete values an algorithm records the same claims evaluated as
its postcondition (``postcondition``).  It lives in ``core`` so that an ``algebra`` module can state them."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from verifier.core.codomain import same_values
from verifier.core.errors import UndefinedBehavior
from verifier.core.integers import Bool, Const, D, Expr, Int, Op, and_, eq, ge, lt, symbol, unwatched
from verifier.core.obligations import NEVER, POSTCONDITION, POSTCONDITION_LIMIT, Quiet, enumerating, record

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


def _sufficient(c: Claim) -> Claim:
    """A claim that is sufficient for the postcondition, not necessary (``Claim.exact`` False)."""
    return replace(c, exact=False)


# -- on concrete values ----------------------------------------------------------------------------------------


class TooLarge(Exception):
    """Enumerating the witnesses of a concrete claim would take more than the limit."""


def first_failure(c: Claim, limit: int = 1 << 16) -> dict[str, int] | None:
    """For a concrete claim, the first witness assignment where it fails, or None when it holds everywhere."""
    if any(not (lo.concrete and hi.concrete) for _, lo, hi in c.ranges):
        return _first_failure_nested(c, limit)  # a range over an earlier witness (#i < #j < size)
    bounds = [(name, int(lo), int(hi)) for name, lo, hi in c.ranges]
    count = 1
    for _, lo, hi in bounds:
        count *= max(0, hi - lo)
    if count > limit:
        raise TooLarge(f"{c.id}: {count} witness values to enumerate, more than {limit}")
    sides = _separated(c)
    if sides is not None and count:
        try:
            return _first_shared(bounds, *sides)
        except UndefinedBehavior:
            pass  # the pointwise walk below meets it, or stops at an earlier failure first, as it always did
    for point in itertools.product(*(range(lo, hi) for _, lo, hi in bounds)):
        w = dict(zip((name for name, _, _ in bounds), point))
        if not _truth(c.holds, w):
            return w
    return None


def _separated(c: Claim) -> tuple[Expr, Expr] | None:
    """For a claim ``x(#i) != y(#j)`` over two independent concrete ranges (each side reading one witness), its two
    sides: the claim then holds exactly when the two sides' value sets are disjoint, a set test on the values
    computed once per witness value rather than a comparison per pair (complement's CPL-POST-DISJOINT)."""
    if len(c.ranges) != 2 or any(not (lo.concrete and hi.concrete) for _, lo, hi in c.ranges):
        return None
    e = c.holds.expr
    if type(e) is not Op or e.op != "!=":
        return None
    (wi, _, _), (wj, _, _) = c.ranges
    x, y = e.args
    if set(x.symbols()) <= {wi} and set(y.symbols()) <= {wj}:
        return x, y
    return None


def _first_shared(bounds: Sequence[tuple[str, int, int]], x: Expr, y: Expr) -> dict[str, int] | None:
    """The first assignment, in the pointwise walk's order (``#i`` outer, ``#j`` inner), where ``x(#i) == y(#j)``."""
    (wi, li, hi), (wj, lj, hj) = bounds
    first_j: dict[int, int] = {}
    for j in range(lj, hj):
        first_j.setdefault(y.evaluate({wj: j}), j)
    for i in range(li, hi):
        j_at = first_j.get(x.evaluate({wi: i}))
        if j_at is not None:
            return {wi: i, wj: j_at}
    return None


def _first_failure_nested(c: Claim, limit: int) -> dict[str, int] | None:
    seen = [0]

    def walk(k: int, env: dict[str, int]) -> dict[str, int] | None:
        if k == len(c.ranges):
            seen[0] += 1
            if seen[0] > limit:
                raise TooLarge(f"{c.id}: more than {limit} witness values to enumerate")
            return None if _truth(c.holds, env) else env
        name, lo, hi = c.ranges[k]
        for x in range(int(lo.evaluate(env)), int(hi.evaluate(env))):
            found = walk(k + 1, {**env, name: x})
            if found is not None:
                return found
        return None

    return walk(0, {})


def _truth(b: Bool, values: Mapping[str, int]) -> bool:
    if b.value is not None:
        return bool(b.value)
    return bool(b.expr.evaluate(values))


def decided(claims: Sequence[Claim], limit: int, undefined_fails: bool = True) -> bool | None:
    """Whether every claim of a contract holds at every witness value, on concrete operands and result: the
    concrete form of the statement the engine decides on symbols.  The claims are taken in order, and the first
    failing one ends it; undefined behaviour in evaluating one (a division by a zero extent) is a failure where
    ``undefined_fails``.  None when that is not decided here: a claim with more than ``limit`` witness values, or
    undefined behaviour where it is not a failure."""
    if any(_count(c) > limit for c in claims):
        return None
    try:
        return all(first_failure(c, limit=1 << 62) is None for c in claims)
    except UndefinedBehavior:
        return False if undefined_fails else None


def _count(c: Claim) -> int:
    """The number of evaluations a claim whose ranges are concrete costs (0 for ranges over another witness)."""
    sizes = []
    for _, lo, hi in c.ranges:
        if not (lo.concrete and hi.concrete):
            return 0
        sizes.append(max(0, int(hi) - int(lo)))
    if _separated(c) is not None:  # evaluated once per witness value (a set test), not once per pair
        return max(sizes) if all(sizes) else 0
    count = 1
    for n in sizes:
        count *= n
    return count


def postcondition(id: str, description: str, source: str, claims: Callable[[], Sequence[Claim]],
                  limit: int = POSTCONDITION_LIMIT, undefined_fails: bool = True) -> None:
    """A whole postcondition on concrete operands and result, for a ``Recorder`` outside ``Shallow``: the
    operation's own claims (its contract, the statement the engine decides on symbols; built only here, recording
    nothing) evaluated
    at every witness value (``core.claim.decided``), recorded as one obligation.  Nothing is recorded where that
    is not decided (more than ``limit`` witness values; undefined behaviour in evaluating a claim unless
    ``undefined_fails``)."""
    if not enumerating():
        return
    with Quiet(), unwatched():  # the statement's own arithmetic: no obligation of CuTe's, no overflow of its
        built = claims()
    ok = decided(built, limit, undefined_fails)
    if ok is not None:
        record(id, description, source, NEVER, Bool(Const(ok), False), POSTCONDITION)
