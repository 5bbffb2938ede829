"""``solver.finite`` (issue 28): a statement over symbols of few admitted values is proved by evaluating it at each,
and a guard's atom is implied by the facts over its own symbols.  Checked against Z3 on random statements built
from what tilings write (sums, products, C++ division and remainder by constants and by symbols): every proof by
evaluation is one Z3 gives on the same query, and every query Z3 proves within the points is proved by evaluation."""

from __future__ import annotations

import random

import pytest
import z3

from tests.support.statements import statement as _statement
from tests.support.statements import table as _table
from verifier.core.errors import UndefinedBehavior
from verifier.core.integers import Bool, eq, ge, le, lt, mod, not_, symbol
from verifier.core.symbols import Symbols
from verifier.engine.decide import ENUMERATED
from verifier.engine.verify import verify
from verifier.notation.cpp import parse, parse_tile
from verifier.solver.encoding import Encoder
from verifier.solver.finite import POINTS, holds_everywhere, implied_alone
from verifier.solver.finite import points as _all_points
from verifier.solver.solve import new_context


def _z3_proves(holds: Bool, sy: Symbols, extra: list[Bool] | None = None) -> str:
    """Z3 on the statement's negation over the symbols' ranges, every divisor nonzero (as the engine asks it)."""
    enc = Encoder(sy)
    neg = [enc.boolean(not_(holds))] + [enc.boolean(f) for f in extra or []]
    s = z3.SimpleSolver(ctx=new_context())
    s.add(*(c.translate(s.ctx) for c in [*enc.assumptions(), *(enc.nonzero(d) for d in enc.divisors), *neg]))
    s.set("rlimit", 5_000_000)
    r = s.check()
    return "proved" if r == z3.unsat else "refuted" if r == z3.sat else "unknown"


def _points(sy: Symbols, holds: Bool) -> int:
    total = 1
    for n in set(holds.expr.symbols()):
        s = sy.lookup(n)
        assert s is not None and s.hi is not None
        total *= len(range(-(-s.lo // s.multiple_of) * s.multiple_of, s.hi + 1, s.multiple_of))
    return total


def _undefined_somewhere(holds: Bool, sy: Symbols) -> bool:
    names = sorted(set(holds.expr.symbols()))
    points = _all_points(sy, names, POINTS)
    assert points is not None
    for p in points:
        try:
            holds.evaluate(p)
        except (ArithmeticError, UndefinedBehavior):
            return True
    return False


@pytest.mark.parametrize("seed", range(6))
def test_holds_everywhere_agrees_with_z3(seed: int) -> None:
    rng = random.Random(seed)
    proved = refused = 0
    for _ in range(60):
        names = ("M",) if rng.random() < 0.6 else ("M", "N")
        sy = _table(rng, names)
        holds = _statement(rng, names)
        if holds.value is not None:
            continue
        mine = holds_everywhere(holds, sy)
        theirs = _z3_proves(holds, sy)
        if mine:
            proved += 1
            # evaluation is the C++ semantics: a statement true at every value is one Z3 cannot refute (Z3 may
            # still answer unknown on the nonlinear encoding)
            assert theirs != "refuted", (str(holds), sy.described())
        elif theirs == "proved" and _points(sy, holds) <= POINTS:
            # Z3 proves it over few values: evaluation must too, unless some value divides by zero (the engine's
            # query assumes every divisor nonzero, evaluation then leaves it to the solver)
            assert _undefined_somewhere(holds, sy), (str(holds), sy.described())
            refused += 1
    assert proved > 0, "the random statements never exercised a proof"


def test_a_false_statement_is_never_proved() -> None:
    sy = Symbols()
    sy.declare("M", lo=1, hi=64)
    m = symbol("M")
    assert not holds_everywhere(eq(m, 32 * ((m + 31) / 32)), sy), "M == 32*ceil(M/32) fails at M = 1"
    assert holds_everywhere(ge(31 + ((m + 31) / 32 - 1) * 32 + 1, m), sy), "a tiling's cover, true for 1..64"
    assert not holds_everywhere(lt(m, 64), sy), "fails at the last value only"
    wide = Symbols()
    wide.declare("M", lo=1, hi=1 << 20)
    assert not holds_everywhere(ge(m, 1), wide), "too many values: left to the solver"
    unbounded = Symbols()
    unbounded.declare("M", lo=1)
    assert not holds_everywhere(ge(m, 1), unbounded), "no upper bound: left to the solver"
    huge = Symbols()
    huge.declare("M", lo=-(1 << 62), hi=1 << 62, bits=64)  # more values than a C ssize_t counts (tma family, seed 29)
    assert not holds_everywhere(ge(m, -(1 << 62)), huge), "too many values: left to the solver, without an error"


@pytest.mark.parametrize("seed", range(4))
def test_implied_alone_agrees_with_z3(seed: int) -> None:
    rng = random.Random(100 + seed)
    implied = 0
    for _ in range(60):
        sy = _table(rng, ("M",))
        m = symbol("M")
        t = rng.choice([2, 4, 8, 16, 32])
        atom = eq(mod(m, t), 0)
        fact = _statement(rng, ("M",)) if rng.random() < 0.5 else eq(m, t * ((m + rng.choice([0, t - 1])) / t))
        if fact.value is not None:
            continue
        if implied_alone([fact], atom, sy):
            implied += 1
            # no admitted M satisfies the fact and breaks the atom: Z3 cannot find one either
            assert _z3_proves(atom, sy, [fact]) != "refuted", (str(fact), str(atom), sy.described())
    assert implied > 0


def test_a_tilings_cover_is_proved_by_evaluation_and_its_exactness_refuted() -> None:
    sy = Symbols()
    sy.declare("M", hi=64)
    sy.declare("N", hi=64)
    args = [parse("(M,N):(_1,M)", sy), parse_tile("<_32,_16>", sy)]
    v = verify("zipped_divide", args, sy)
    cover = [o for o in v.obligations if o.id == "CPL-POST-COVER"]
    assert cover and all(o.status == "proved" and o.route == ENUMERATED for o in cover)
    exact = [o for o in v.obligations if o.id == "DIV-EXACT"]
    assert exact and all(o.status == "refuted" and o.counterexample is not None for o in exact)
    assert v.guard is not None and v.guard.condition == "M % 32 == 0 and N % 16 == 0"
    assert v.guard.necessary == "proved"
    # the same problem with sizes too many to evaluate: the solver proves the cover
    big = Symbols()
    big.declare("M", hi=1 << 14)
    big.declare("N", hi=1 << 14)
    w = verify("zipped_divide", [parse("(M,N):(_1,M)", big), parse_tile("<_32,_16>", big)], big, derive=False)
    assert all(o.status == "proved" and o.route != ENUMERATED for o in w.obligations if o.id == "CPL-POST-COVER")


def test_evaluation_is_used_only_without_witnesses() -> None:
    sy = Symbols()
    sy.declare("M", hi=8)
    m = symbol("M")
    assert holds_everywhere(le(mod(m, 4), 3), sy)
    assert not implied_alone([], eq(mod(m, 4), 0), sy), "no fact: nothing is implied"
