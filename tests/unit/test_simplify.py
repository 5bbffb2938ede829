"""The engine's simplifier keeps the C++ value of every expression under the assumptions (``solver/simplify.py``).

Random expressions over symbols with ranges and divisibility, and every claim of the parametric corpus, are
evaluated before and after simplification at random allowed assignments where no divisor of the original is zero.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.contracts import claims
from verifier.core.errors import CuteRejection, UndefinedBehavior
from verifier.core.integers import Const, Expr, Op, Sym
from verifier.core.symbols import Symbol, Symbols
from verifier.notation.cpp import parse_relation
from verifier.oracle.corpora import PARAMETRIC_CORPUS, problem
from verifier.solver.encoding import Encoder
from verifier.solver.simplify import QUOTIENT

DATA = Path(__file__).parents[1] / "data"


def _table() -> Symbols:
    sy = Symbols()
    sy.declare("M", lo=1, hi=40)
    sy.declare("N", lo=1, hi=40, multiple_of=4)
    sy.declare("K", lo=-20, hi=20)
    return sy


def _env_with_quotients(sy: Symbols, env: dict[str, int]) -> dict[str, int]:
    out = dict(env)
    for s in sy:
        if s.multiple_of > 1:
            out[f"{s.name}{QUOTIENT}{s.multiple_of}"] = env[s.name] // s.multiple_of
    return out


def _value(e: Expr, env: dict[str, int]) -> int | None:
    try:
        return e.evaluate(env)
    except UndefinedBehavior:
        return None


_LEAVES = st.one_of(st.integers(-9, 9).map(Const), st.sampled_from(["M", "N", "K", "#i"]).map(Sym))


def _ops(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    binary = st.tuples(st.sampled_from(["+", "-", "*", "/", "%", "min", "max"]), children, children)
    unary = st.tuples(st.sampled_from(["neg", "abs", "signum"]), children)
    return st.one_of(binary.map(lambda t: Op(t[0], (t[1], t[2]))), unary.map(lambda t: Op(t[0], (t[1],))))


_EXPRS = st.recursive(_LEAVES, _ops, max_leaves=10)


def _assignments(sy: Symbols, rng: random.Random, n: int) -> list[dict[str, int]]:
    out = []
    for _ in range(n):
        env = {s.name: rng.choice([v for v in range(s.lo, s.hi + 1) if v % s.multiple_of == 0]) for s in sy}
        env["#i"] = rng.randrange(0, 200)
        out.append(env)
    return out


def _check_same(enc: Encoder, sy: Symbols, e: Expr, points: list[dict[str, int]]) -> int:
    s = enc.simplifier.simplify(e)
    compared = 0
    for env in points:
        if not all(r.evaluate(env) for r in sy.relations):
            continue
        divisors_ok = all(_value(d, env) not in (0, None) for d in _divisors(e))
        original = _value(e, env)
        if not divisors_ok or original is None:
            continue
        assert _value(s, _env_with_quotients(sy, env)) == original, (e, s, env)
        compared += 1
    return compared


def _small_allowed(s: Symbol, rng: random.Random) -> int:
    """A value the symbol admits (its range too: the simplifier may use the upper bound)."""
    first = -(-s.lo // s.multiple_of)
    last = first + 39 if s.hi is None else min(first + 39, s.hi // s.multiple_of)
    return s.multiple_of * rng.randrange(first, last + 1)


def _divisors(e: Expr) -> list[Expr]:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Op):
            if x.op in ("/", "%"):
                out.append(x.args[1])
            stack.extend(x.args)
    return out


@settings(max_examples=400, deadline=None)
@given(_EXPRS, st.integers(0, 2**32))
def test_random_expressions_keep_their_value(e: Expr, seed: int) -> None:
    sy = _table()
    enc = Encoder(sy, {"#i": (0, None)})
    _check_same(enc, sy, e, _assignments(sy, random.Random(seed), 40))


@settings(max_examples=200, deadline=None)
@given(_EXPRS, _EXPRS, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), st.integers(0, 2**32))
def test_random_comparisons_keep_their_truth(a: Expr, b: Expr, op: str, seed: int) -> None:
    sy = _table()
    enc = Encoder(sy, {"#i": (0, None)})
    _check_same(enc, sy, Op(op, (a, b)), _assignments(sy, random.Random(seed), 40))


def test_simplifications_that_decide_corpus_claims() -> None:
    sy = Symbols()
    for n in ("M", "N", "L"):
        sy.declare(n)
    sy.assume(parse_relation("N % 8 == 0", sy))
    enc = Encoder(sy, {"#i": (0, None)})
    simp = enc.simplifier.simplify

    def e(text: str) -> Expr:
        return parse_relation(text, sy).expr

    assert simp(e("(1+M-1)/M*1 == 1")) == Const(True)
    assert simp(e("min(M+1-1,M*N) == M")) == Const(True)
    assert simp(e("(N+8-1)/8*8 == N")) == Const(True)
    assert simp(e("(8+N-1)/N == 1")) == Const(True)
    # c*(x % y) + c*y*(x / y) == c*x, and nested remainders of a mixed radix collapse.
    assert simp(e("(L%(M*N)+L/(M*N)*(M*N))%M == L%M")) == Const(True)
    assert simp(e("L%(M*N)/M%N == L/M%N")) == Const(True)
    # Not decided by the assumptions: left as a comparison.
    assert isinstance(simp(e("M/L == 1")), Op)


def test_symbol_assumptions_absorb_simple_relations() -> None:
    sy = Symbols()
    sy.declare("M")
    sy.assume(parse_relation("M % 8 == 0 && M >= 64", sy))
    sy.assume(parse_relation("4096 >= M", sy))
    m = sy.table["M"]
    assert (m.lo, m.hi, m.multiple_of) == (64, 4096, 8)
    assert len(sy.relations) == 2  # kept as written, for the report


def _corpus() -> list[dict]:
    return json.loads(PARAMETRIC_CORPUS.read_text())


@pytest.mark.parametrize("entry", _corpus(), ids=lambda e: e["id"])
def test_corpus_claims_keep_their_value(entry: dict) -> None:
    op, args, sy = problem(entry)
    try:
        built = claims.build(op, args, claims.result_of(op, args))
    except (CuteRejection, UndefinedBehavior):
        return  # decided before any claim is built
    enc = Encoder(sy, {"#i": (0, None), "#j": (0, None)})
    rng = random.Random(entry["id"])
    points = []
    for _ in range(60):
        env = {s.name: _small_allowed(s, rng) for s in sy}
        env["#i"], env["#j"] = rng.randrange(0, 300), rng.randrange(0, 300)
        points.append(env)
    compared = sum(_check_same(enc, sy, c.holds.expr, points) for c in built)
    assert compared > 0 or not built
