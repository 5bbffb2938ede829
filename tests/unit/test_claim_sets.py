"""A claim ``x(#i) != y(#j)`` over two independent ranges (complement's CPL-POST-DISJOINT) is evaluated as a set
test (``core.claim.first_failure``): it must find the failure the pointwise walk over every pair finds, the same
first assignment, and none where there is none."""

from __future__ import annotations

import itertools
import random

import pytest

from verifier.algebra.ops import complement, complement_claims_for
from verifier.core.claim import Claim, first_failure
from verifier.core.errors import CuteRejection
from verifier.core.integers import D, S
from verifier.core.layouts import Layout


def _pairwise(c: Claim) -> dict[str, int] | None:
    bounds = [(name, int(lo), int(hi)) for name, lo, hi in c.ranges]
    for point in itertools.product(*(range(lo, hi) for _, lo, hi in bounds)):
        env = dict(zip((name for name, _, _ in bounds), point))
        if not c.holds.evaluate(env):
            return env
    return None


def _layout(rng: random.Random) -> Layout:
    rank = rng.randint(1, 3)
    shape = tuple(S(rng.randint(1, 5)) for _ in range(rank))
    stride = tuple(S(rng.randint(0, 12)) for _ in range(rank))
    return Layout(shape, stride) if rank > 1 else Layout(shape[0], stride[0])


@pytest.mark.parametrize("seed", range(4))
def test_the_set_test_finds_what_the_pairs_find(seed: int) -> None:
    rng = random.Random(seed)
    failing = 0
    for _ in range(40):
        a, b = _layout(rng), _layout(rng)
        cot = D(rng.randint(1, 80))
        try:
            comp = [complement(a, cot)]
        except CuteRejection:  # overlapping strides: no complement, the arbitrary layout alone
            comp = []
        # The complement of a layout, and an arbitrary layout in its place (which often meets a value of L).
        for r in (*comp, b):
            (disjoint,) = [c for c in complement_claims_for(r, a, cot) if c.id == "CPL-POST-DISJOINT"]
            expected = _pairwise(disjoint)
            assert first_failure(disjoint) == expected, (a, r, cot)
            failing += expected is not None
    assert failing > 0  # the comparison saw failures, not only claims that hold
