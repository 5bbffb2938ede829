"""Differential test: 600 seeded random layouts (rank <= 4, depth <= 3, static/dynamic/symbolic leaves, zero and
negative strides) agree with compiled CuTe on the printed form, size, cosize and every index, and with pycute's
values."""

from __future__ import annotations

import random

import pycute
import pytest

from tests.support.layout_gen import random_layout
from verifier import Layout, parse_layout
from verifier.oracle.cute_cpp import Query, layout_case, run_cases

N_CASES = 600


def _cases() -> list[tuple[Layout, dict[str, int]]]:
    rng = random.Random(20261122)
    out = []
    for k in range(N_CASES):
        out.append(random_layout(rng, p_static=[0.0, 0.5, 1.0][k % 3], p_symbol=0.2 if k % 5 == 0 else 0.0))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def cute_answers(cute):
    cases = [layout_case(lay) for lay, _ in CASES]
    return run_cases(cases, [Query(k, env) for k, (_, env) in enumerate(CASES)])


def _plain(t: object) -> object:
    if isinstance(t, tuple):
        return tuple(_plain(x) for x in t)
    return int(t)  # type: ignore[call-overload]


def test_generator_covers_what_it_claims() -> None:
    texts = [str(lay) for lay, _ in CASES]
    assert len(CASES) >= 500
    assert any("_-" in t for t in texts) and any(":-" in t or ",-" in t or "(-" in t for t in texts)
    assert any(lay.depth() == 3 for lay, _ in CASES) and any(lay.rank() == 4 for lay, _ in CASES)
    assert sum(1 for _, env in CASES if env) >= 60
    assert any("_0" in t for t in texts) and any(":0" in t or ",0" in t or "(0" in t for t in texts)


@pytest.mark.cute
def test_print_size_cosize_values_match_cute(cute_answers) -> None:
    mismatches = []
    for (lay, env), r in zip(CASES, cute_answers, strict=True):
        ours = lay.substitute(env)
        got = (str(ours), str(ours.size()), str(ours.cosize()), tuple(ours.values()))
        want = (r.result, r.size, r.cosize, r.values)
        if got != want:
            mismatches.append((str(lay), env, got, want))
    assert not mismatches, mismatches[:5]


def test_symbolic_layouts_round_trip_and_substitute() -> None:
    for lay, env in CASES:
        assert parse_layout(str(lay)) == lay
        if env:
            # Evaluating symbolically, then substituting, gives the same indices as substituting first.
            n = min(8, int(lay.substitute(env).size()))
            assert [lay(i).evaluate(env) for i in range(n)] == lay.substitute(env).values()[:n]


def test_values_match_pycute() -> None:
    for lay, env in CASES:
        ours = lay.substitute(env)
        ref = pycute.Layout(_plain(ours.shape), _plain(ours.stride))
        assert [ref(i) for i in range(pycute.size(ref))] == ours.values(), str(ours)
