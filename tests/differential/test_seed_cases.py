"""The seed cases: the two CuTe 4.2 silent failures of DEVELOPERS.md, and every example of seeds 002-004, each
computed by our algebra and by compiled CuTe in three variants (as written, all-dynamic, all-static), with the
seed's claim checked against what CuTe does and the obligation that catches each silent failure.

Run-time symbols in a seed case (the extents M, N, K, L of 002 line 50, blockIdx and threadIdx of 002 lines 20
and 25) stay symbols in the original variant, whose printed form is checked, and are instantiated with the case's
``params``: CuTe runs with them as run-time parameters, the other variants substitute them as dynamic or static
integers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.compare import compare_view
from verifier import Layout, parse_layout
from verifier.algebra.registry import apply
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import D, Int
from verifier.oracle.corpora import parse_arg, variant_of
from verifier.oracle.cute_cpp import CppCase, Query, call_case, recast_case, run_cases, tensor_case

SEEDS = json.loads((Path(__file__).parents[1] / "data" / "seed_cases.json").read_text())
VARIANTS = ("original", "dynamic", "static")


def _failed(outcome) -> set[str]:
    return {o.id for o in outcome.obligations if o.status == "fails"}


def _instantiate(obj: object, env: dict[str, int]) -> object:
    """The operand with its symbols replaced by run-time (dynamic) values."""
    if isinstance(obj, tuple) and obj and obj[0] == "make_layout":
        return obj
    if isinstance(obj, Layout):
        return obj.substitute(env)
    if isinstance(obj, Int) or type(obj) is tuple:
        return transform_leaf(obj, lambda x: x if x.static or x.concrete else D(x.evaluate(env)))
    return obj


def _operands(case: dict, variant: str, env: dict[str, int]) -> list[object]:
    """The operands as ``apply`` takes them; the original variant keeps its symbols."""
    args = [parse_arg(a) for a in case["args"]]
    if variant != "original":
        args = [_instantiate(a, env) for a in args]
    args = [variant_of(a, variant) for a in args]
    if case["op"] == "recast_layout":
        args[0], args[1] = int(args[0]), int(args[1])  # type: ignore[call-overload]
    return args


def _cpp(op: str, args: list[object]) -> CppCase:
    if op == "recast_layout":
        return recast_case(*args)  # type: ignore[arg-type]
    if op in ("local_tile", "local_partition"):
        return tensor_case(op, args[0], args[1], coord=args[2])  # type: ignore[arg-type]
    return call_case(op, *args)


def _queries() -> list[tuple[dict, str, dict[str, int]]]:
    out = []
    for case in SEEDS:
        for variant in VARIANTS:
            for env in case.get("params", [{}]):
                out.append((case, variant, env))
    return out


QUERIES = _queries()


@pytest.fixture(scope="module")
def answers(cute):
    cases = [
        call_case("composition", parse_layout("(2,3):(1,2)"), parse_layout("(2,3):(3,1)")),
        call_case("composition", parse_layout("(_2,_3):(_1,_2)"), parse_layout("(_2,_3):(_3,_1)")),
        call_case("upcast", parse_layout("(16):(1)"), template=(2,)),
        call_case("upcast", parse_layout("(_16):(_1)"), template=(2,)),
    ]
    cases += [_cpp(c["op"], _operands(c, v, env)) for c, v, env in QUERIES]
    queries = [Query(k) for k in range(4)] + [Query(4 + k, env) for k, (_, _, env) in enumerate(QUERIES)]
    return run_cases(cases, queries)


@pytest.mark.cute
def test_dynamic_composition_is_silently_wrong_and_caught(answers) -> None:
    out = apply("composition", parse_layout("(2,3):(1,2)"), parse_layout("(2,3):(3,1)"))
    assert str(out.result) == answers[0].result == "((1,2),(2,1)):((3,4),(1,2))"
    assert str(out.result.size()) == answers[0].size == "4"  # size 4, not 6
    assert {"CMP-POST", "CMP-POST-SIZE"} <= _failed(out)
    static = apply("composition", parse_layout("(_2,_3):(_1,_2)"), parse_layout("(_2,_3):(_3,_1)"))
    assert str(static.result) == answers[1].result == "(_2,_3):(_3,_1)"
    assert not _failed(static)


@pytest.mark.cute
def test_dynamic_upcast_is_silently_wrong_and_caught(answers) -> None:
    out = apply("upcast", 2, parse_layout("(16):(1)"))
    assert str(out.result) == answers[2].result == "(16):(0)"
    assert {"UP-2", "UP-POST"} <= _failed(out)
    static = apply("upcast", 2, parse_layout("(_16):(_1)"))
    assert str(static.result) == answers[3].result == "(_8):(_1)"
    assert not _failed(static)


def _ours(case: dict, variant: str, env: dict[str, int]):
    """Our outcome on the operands CuTe ran with: the original variant's symbols take the query's values."""
    args = _operands(case, variant, env)
    if variant == "original" and env:
        args = [_instantiate(a, env) for a in args]
    return apply(case["op"], *args)


@pytest.mark.cute
def test_every_seed_example_matches_cute_in_three_variants(answers) -> None:
    bad = []
    for k, (case, variant, env) in enumerate(QUERIES):
        diff = compare_view(_ours(case, variant, env), answers[4 + k])
        if diff:
            bad.append(f"{case['seed']}:{case['line']} {case['op']} [{variant}] {env}: {diff}")
    assert not bad, "\n".join(bad)
    covered = {(c["seed"], v) for c, v, _ in QUERIES}
    assert {(s, v) for s in ("002", "003", "004") for v in VARIANTS} <= covered
    assert all("unsupported" not in c for c in SEEDS) and len(SEEDS) == 13


def _result(seed: str, line: int, variant: str = "original", env: dict[str, int] | None = None):
    case = next(c for c in SEEDS if (c["seed"], c["line"]) == (seed, line))
    return apply(case["op"], *_operands(case, variant, env or {}))


def test_seed_002_claims() -> None:
    assert str(_result("002", 12).result).startswith("((_4,_8),(2,3)):")
    # Lines 20 and 25: a CTA's tile keeps the tile shape, a thread's part is the 2x3 grid of tiles.
    cta = _result("002", 20).result
    assert str(cta.layout) == "(_4,_8):(_1,8)" and str(cta.offset) == "bx*4+by*64"
    thr = _result("002", 25).result
    assert re.fullmatch(r"\(2,3\):\(_4,64\)", str(thr.layout)), thr
    assert thr.offset.evaluate({"tid": 9}) == 1 + 2 * 8  # thread 9 is (1,2) of the column-major (_4,_8)
    assert str(_result("002", 40).result) == "_12:_1"
    assert str(_result("002", 66).result) == "(_2,_6):(_1,_2)"  # the doc prints (2,6):(1,2): same, static
    assert re.sub("_", "", str(_result("002", 97).result)) == "(5,4):(8,2)"
    assert str(_result("002", 117).result) == "(_3,(2,4)):(236,(26,1))"


def test_seed_002_line_50_claim_needs_static_extents() -> None:
    """The claim ((M*N),K,L):(1,M*N,M*N*K) holds only for static extents: CuTe merges only what it can prove at
    compile time (layout.hpp:781-814), so with run-time M and N the mode (M,N):(1,M) stays as it is."""
    sym = _result("002", 50)
    assert str(sym.result) == "((M,N),K,L):((1,M),M*N,M*N*K)"
    env = {"M": 4, "N": 6, "K": 3, "L": 2}
    assert str(_result("002", 50, "dynamic", env).result) == "((4,6),3,2):((1,4),24,72)"
    assert str(_result("002", 50, "static", env).result) == "(_24,_3,_2):(_1,_24,_72)"
    # The unmerged result is still the same function: nothing is wrong, only not coalesced.
    assert _result("002", 50, "dynamic", env).result.values() == _result("002", 50, "static", env).result.values()


def test_seed_003_claims() -> None:
    # Line 27: the dynamic column-major o row-major composition is silently wrong.
    wrong = _result("003", 27)
    assert "CMP-POST" in _failed(wrong)
    # Line 37 claims the static version fails to compile. CuTe 4.2 compiles it and gets it right (the seed
    # describes the shape_div composition that CUTLASS 3.9 replaced, NVIDIA/cutlass#2432).
    static = _result("003", 37)
    assert static.rejection is None and str(static.result) == "(_2,_3):(_3,_1)" and not _failed(static)
    # Line 31: the 1-D workaround is right.
    fixed = _result("003", 31)
    assert not _failed(fixed) and fixed.result.values() == parse_layout("(2,3):(3,1)").values()


def test_seed_004_claims() -> None:
    """recast<uint32_t> of a half tensor: a static layout gives 8 elements of stride 1; a run-time one keeps 16
    elements with stride 0 (CuTe 4.2 still divides a dynamic stride blindly, layout.hpp:1820-1822)."""
    assert str(_result("004", 18).result) == "(_8):(_1)"
    dyn = _result("004", 24)
    assert str(dyn.result) == "(16):(0)"
    assert {"UP-2", "UP-POST"} <= _failed(dyn)
    assert not _failed(_result("004", 18))
    assert str(_result("004", 24, "static").result) == "(_8):(_1)"


def test_symbolic_results_instantiate_to_the_concrete_ones() -> None:
    """Each symbolic seed result, evaluated at the params, is the result computed from those values."""
    for case in SEEDS:
        for env in case.get("params", []):
            sym = apply(case["op"], *_operands(case, "original", env)).result
            conc = apply(case["op"], *(_instantiate(a, env) for a in _operands(case, "original", env))).result
            layout = sym.layout if hasattr(sym, "layout") else sym
            clayout = conc.layout if hasattr(conc, "layout") else conc
            assert layout.substitute(env) == clayout, (case["line"], env)
            if hasattr(sym, "offset"):
                assert sym.offset.evaluate(env) == int(conc.offset)
