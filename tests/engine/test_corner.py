"""``queries.extends_at_a_corner`` (issue 28): whether relations linking a check's symbols to others narrow them is
first asked of one corner of the other symbols' ranges, without the solver.  A corner that answers must give the
solver's answer (``extends_everywhere``): checked on random groups of the relations spec files write."""

from __future__ import annotations

import random

import pytest

from verifier.core.integers import Bool, ge, le, lt, mod, symbol
from verifier.core.symbols import Symbols
from verifier.solver.encoding import Encoder
from verifier.solver.queries import extends_at_a_corner, extends_everywhere

INSIDE, OUTSIDE = ("M", "K"), ("ldA", "m")


def _table(rng: random.Random) -> Symbols:
    sy = Symbols(strict=True)
    for n in (*INSIDE, *OUTSIDE):
        lo = rng.choice([0, 1, 1, 8])
        sy.declare(n, lo=lo, hi=rng.choice([lo, lo + 63, 1024, 8192, None]), multiple_of=rng.choice([1, 1, 4, 8]))
    return sy


def _relation(rng: random.Random) -> Bool:
    x, y = symbol(rng.choice(OUTSIDE)), symbol(rng.choice(INSIDE))
    c = rng.choice([1, 2, 64, 128])
    return rng.choice([
        lambda: ge(x, y), lambda: le(x, y), lambda: lt(x, (y + c - 1) / c), lambda: ge(x, 0),
        lambda: ge(x, y + c), lambda: le(x * c, y), lambda: lt(x, y / symbol(rng.choice(OUTSIDE))),
        lambda: ge(mod(x, c), 1), lambda: le(x, 1000),
    ])()


@pytest.mark.parametrize("seed", range(4))
def test_a_corner_that_extends_is_one_the_solver_proves(seed: int) -> None:
    rng = random.Random(900 + seed)
    corners = 0
    for _ in range(80):
        sy = _table(rng)
        group = [_relation(rng) for _ in range(rng.choice([1, 2, 3]))]
        outside = set().union(*(set(b.expr.symbols()) for b in group)) - set(INSIDE)
        if not outside or any(b.value is not None for b in group):
            continue
        if not extends_at_a_corner(sy, set(INSIDE), outside, group):
            continue
        corners += 1
        enc = Encoder(sy, {})
        assert extends_everywhere(enc, set(INSIDE), [], outside, [enc.boolean(b) for b in group], 600, 10**7), \
            ([str(b) for b in group], sy.described())
    assert corners > 0


def test_a_relation_that_narrows_or_divides_by_zero_is_left_to_the_solver() -> None:
    sy = Symbols(strict=True)
    sy.declare("K", lo=1, hi=8192)
    sy.declare("ldA", lo=1, hi=1024)
    sy.declare("d", lo=0, hi=4)
    k, lda, d = symbol("K"), symbol("ldA"), symbol("d")
    assert not extends_at_a_corner(sy, {"K"}, {"ldA"}, [ge(lda, k)]), "ldA <= 1024 narrows K to 1..1024"
    assert extends_at_a_corner(sy, {"K"}, {"ldA"}, [le(lda, k)]), "ldA = 1 is below every K"
    assert extends_at_a_corner(sy, {"K"}, {"d"}, [ge(k / d, 0)]), "d = 4 divides every K"
    sy.declare("k0", lo=0, hi=8)
    assert not extends_at_a_corner(sy, {"k0"}, {"ldA"}, [ge(lda, 100 / symbol("k0"))]), \
        "undefined at k0 = 0, which the solver's query counts as false: the solver's"
