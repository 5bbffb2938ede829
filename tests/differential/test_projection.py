"""Partitioning as kernels write it: ``local_tile(A, tiler, coord, Step<...>)`` and
``local_partition(A, thr, idx, Step<...>)`` with ``X`` projections and coordinates holding ``_``, differential
against compiled CuTe (every thread index of the thread layouts swept), and decided by the engine."""

from __future__ import annotations

import itertools
import re

import pytest

from tests.support.sizes import bound_all
from verifier.algebra.ops import dice, local_partition, local_tile
from verifier.core.integers import D, symbol
from verifier.core.layouts import UNDERSCORE, Tile
from verifier.core.symbols import Symbols
from verifier.engine.verify import verify
from verifier.notation.cpp import parse, parse_layout
from verifier.oracle.cute_cpp import CppBuilder, Query, run_cases
from verifier.run.problems import build, step_text

STEPS = {"Step<_1,X,_1>": "(_1,_,_1)", "Step<X,_1,_1>": "(_,_1,_1)", "Step<_1,_1,X>": "(_1,_1,_)"}
DATA = {  # the operand each projection of the (M,N,K) tiler applies to: A is (M,K), B is (N,K), C is (M,N)
    "Step<_1,X,_1>": "(200,72):(_1,200)",
    "Step<X,_1,_1>": "(96,40):(40,_1)",
    "Step<_1,_1,X>": "(200,96):(_1,208)",
}
TILERS = ["(_128,_64,_32)", "<_64,_32,_8>"]
COORDS = ["(1,0,_)", "(0,1,_)", "(1,1,2)"]


def test_step_text_and_dice():
    assert step_text("Step<_1,X,_1>") == "(_1,_,_1)"
    assert step_text("Step<_1, Step<X,_1>>") == "(_1,(_,_1))"
    p = parse("(_1,_,_1)")
    assert dice(p, parse("(_128,_64,_32)")) == parse("(_128,_32)")
    assert dice(p, (symbol("m"), symbol("n"), UNDERSCORE)) == (symbol("m"), UNDERSCORE)
    assert dice(p, parse_layout("(_2,_16,_1):(_16,_1,_0)")) == parse_layout("(_2,_1):(_16,_0)")
    assert isinstance(dice(p, parse("<_8,_4,_2>")), Tile)


def _case(fn: str, layout: str, *rest: object, label: str = ""):
    b = CppBuilder()
    args = [f"make_tensor(counting_iterator<long long>(0), {b.layout(parse_layout(layout))})"]
    for x in rest:
        args.append(b.coord(x) if type(x) is tuple or x is UNDERSCORE else b.operand(x))
    return b.case(b.call(fn, *args), label)


def _tile_cases():
    out = []
    for (step, proj), tiler, coord in itertools.product(STEPS.items(), TILERS, COORDS):
        t = parse(tiler) if not tiler.startswith("<") else parse(tiler)
        out.append((DATA[step], t, parse(coord), parse(proj)))
    return out


TILE_CASES = _tile_cases()


@pytest.mark.cute
def test_local_tile_with_projection_matches_compiled_cute(cute):
    cases = [_case("local_tile", a, t, c, p) for a, t, c, p in TILE_CASES]
    res = run_cases(cases)
    for (a, t, c, p), r in zip(TILE_CASES, res):
        model = local_tile(parse_layout(a), t, c, p)
        assert r.ok, (a, t, c, p, r.rejected)
        assert r.result == str(model.layout), (a, t, c, p)
        assert int(r.offset or 0) == int(model.offset), (a, t, c, p)


THREADS = ["(_2,_16,_1):(_16,_1,_0)", "(_4,_8,_1):(_1,_4,_0)", "(_32,_8,_1):(_8,_1,_0)"]


@pytest.mark.cute
@pytest.mark.parametrize("thr", THREADS)
def test_local_partition_with_projection_every_thread(cute, thr):
    t = symbol("t")
    layout = parse_layout(thr)
    cases, keys = [], []
    for step, proj in STEPS.items():
        cases.append(_case("local_partition", DATA[step], layout, t, parse(proj)))
        keys.append((DATA[step], parse(proj)))
    n = int(layout.size())
    queries = [Query(k, {"t": i}) for k in range(len(cases)) for i in range(n)]
    res = run_cases(cases, queries)
    for q, r in zip(queries, res):
        a, p = keys[q.case]
        model = local_partition(parse_layout(a), layout, D(q.env["t"]), p)
        assert r.ok and r.result == str(model.layout), (a, p, q.env)
        assert int(r.offset or 0) == int(model.offset), (a, p, q.env)


def _verify(op: str, texts: list[str], assume: tuple[str, ...] = ()):
    # the assumptions of the whole kernel that this call's operands can state (one naming a symbol of no operand is
    # bad input, issue 29 class 7)
    names = set(re.findall(r"[A-Za-z]\w*", " ".join(texts)))
    assume = tuple(a for a in assume if set(re.findall(r"[A-Za-z]\w*", a)) <= names)
    symbols = Symbols()
    args = build(op, texts, symbols, assume, {})
    bound_all(symbols)  # realistic sizes: near 2^31 CuTe's ceil_div overflows (tests/differential/test_overflow.py)
    return verify(op, args, symbols)


def test_cta_tiles_of_a_gemm_with_projections_are_decided():
    assume = ("M % 128 == 0", "N % 128 == 0", "K % 32 == 0", "m < M/128", "n < N/128")
    tiler, coord = "(_128,_128,_32)", "(m,n,_)"
    assert _verify("local_tile", ["(M,K):(_1,M)", tiler, coord, "Step<_1,X,_1>"], assume).verdict == "valid"
    assert _verify("local_tile", ["(N,K):(_1,N)", tiler, coord, "Step<X,_1,_1>"], assume).verdict == "valid"
    assert _verify("local_tile", ["(M,N):(_1,M)", tiler, coord, "Step<_1,_1,X>"], assume).verdict == "valid"
    # Without the residue assumption on K, the k-tiles of A pad past its end: refuted with K named.
    v = _verify("local_tile", ["(M,K):(_1,M)", tiler, coord, "Step<_1,X,_1>"], assume[:2] + assume[3:])
    w = next(w for w in v.warnings if w.id == "DIV-EXACT")
    assert w.counterexample is not None and w.counterexample.params["K"] % 32 != 0


def test_projected_thread_partition_takes_the_index_of_the_whole_thread_layout():
    assume = ("t >= 0", "t < 32", "M % 2 == 0", "N % 16 == 0")
    thr = "(_2,_16,_1):(_16,_1,_0)"
    assert _verify("local_partition", ["(M,K):(_1,M)", thr, "t", "Step<_1,X,_1>"], assume).verdict == "valid"
    assert _verify("local_partition", ["(N,K):(_1,N)", thr, "t", "Step<X,_1,_1>"], assume).verdict == "valid"
    v = _verify("local_partition", ["(M,K):(_1,M)", thr, "t", "Step<_1,X,_1>"], ("t >= 0", "t < 33", "M % 2 == 0"))
    w = next(w for w in v.warnings if w.id == "IX-2")
    assert w.counterexample is not None and w.counterexample.params["t"] == 32
