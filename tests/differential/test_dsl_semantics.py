"""Every row of issue 18's table, against both CuTes: compiled C++ (cute_cpp) for `cpp` semantics and the CuTe DSL
(the harness) for `dsl` semantics; plus the semantics switch on the CLI, in spec files and in the Python API."""

from __future__ import annotations

import json

import pytest

from verifier import parse_layout, parse_tile
from verifier.algebra.registry import apply
from verifier.cli.app import main
from verifier.core.layouts import cosize
from verifier.core.semantics import DslInvalidLayout, DslRefusal, using
from verifier.core.symbols import Symbols
from verifier.dsl.harness import DslCase, run
from verifier.dsl.model import compare, predict
from verifier.oracle.cute_cpp import Query, call_case, recast_case, run_cases

L = parse_layout


def _dsl(case: DslCase):
    (r,) = run([case])
    assert compare(predict(case), r) is None, (predict(case), r)
    return r


def _cpp(*cases):
    return run_cases(list(cases), [Query(k) for k in range(len(cases))])


@pytest.mark.cute
def test_row_composition_runtime_ints_is_size_4_in_both(cute) -> None:
    a, b = L("(2,3):(1,2)"), L("(2,3):(3,1)")
    (c,) = _cpp(call_case("composition", a, b))
    r = _dsl(DslCase("composition", (a, b)))
    assert c.result == "((1,2),(2,1)):((3,4),(1,2))" and c.size == "4"
    assert r.values == ("((1,2),(2,1)):((3,4),(1,2))",) and r.trace == "((?,?),(?,?)):((?,?),(?,?))"
    for sem in ("cpp", "dsl"):
        assert str(apply("composition", a, b, semantics=sem).result) == "((1,2),(2,1)):((3,4),(1,2))"


@pytest.mark.cute
def test_row_upcast_of_runtime_16_1(cute) -> None:
    (c,) = _cpp(recast_case(8, 16, L("16:1")))
    r = _dsl(DslCase("recast_layout", (8, 16, L("16:1"))))
    assert c.result == "16:0" and str(apply("upcast", 2, L("16:1")).result) == "16:0"
    assert r.values == ("16:1",) and str(apply("upcast", 2, L("16:1"), semantics="dsl").result) == "16:1"


@pytest.mark.cute
def test_row_upcast_of_a_runtime_stride_is_shape_div() -> None:
    sy = Symbols()
    layout = parse_layout("16:s", sy)
    strides = (1, 2, 3, 4, 6, 8)
    r = _dsl(DslCase("upcast", (2, layout), tuple({"s": s} for s in strides)))
    assert r.values == tuple(f"16:{v}" for v in (1, 1, 1, 2, 3, 4))
    cpp = apply("upcast", 2, layout).result
    assert [int(cpp.substitute({"s": s}).stride) for s in strides] == [0, 1, 1, 2, 3, 4]  # C++ truncates


@pytest.mark.cute
def test_row_upcast_with_a_div_2_stride() -> None:
    sy = Symbols()
    layout = parse_layout("(_4,_16):(d,_1)", sy)
    r = _dsl(DslCase("upcast", (2, layout), ({"d": 32},), {"d": 2}))
    assert r.values == ("(4,8):(16,1)",) and r.trace == "(4,8):(?,1)"


@pytest.mark.cute
def test_row_downcast_of_runtime_16_1(cute) -> None:
    (c,) = _cpp(recast_case(16, 8, L("16:1")))
    r = _dsl(DslCase("downcast", (2, L("16:1"))))
    assert c.rejected == "Downcast requires adjacent elements"
    assert apply("downcast", 2, L("16:1")).rejection.source == "layout.hpp:1862"
    assert r.values == ("16:2",) and r.trace == "?:?{div=2}"


@pytest.mark.cute
def test_row_runtime_complement_is_an_invalid_layout(cute) -> None:
    a, n = L("(2,1):(1,8)"), L("_8:_1").shape
    (c, s) = _cpp(call_case("complement", a, n), call_case("complement", L("(_2,_1):(1,8)"), n))
    r = _dsl(DslCase("complement", (a, n)))
    # C++ rejects the all-run-time layout (layout.hpp:1188); with static extents it computes (1,4):(_1,2), the
    # function 4:2 of the table.
    assert c.rejected == "Dynamic-stride complement only for rank-1 layouts" and s.result == "(1,4):(_1,2)"
    assert r.trace == "x:x" and r.values == ("x:x",)
    assert isinstance(apply("complement", a, n, semantics="dsl").rejection, DslInvalidLayout)


@pytest.mark.cute
def test_row_logical_divide_trace_form(cute) -> None:
    a, t = L("(8,6):(1,8)"), parse_tile("<_4,_3>")
    (c,) = _cpp(call_case("logical_divide", a, t))
    r = _dsl(DslCase("logical_divide", (a, t)))
    assert c.result == "((_4,2),(_3,2)):((1,4),(8,24))"
    assert r.trace == "((4,?),(3,?)):((?,?{div=4}),(?,?{div=3}))" and r.values == ("((4,2),(3,2)):((1,4),(8,24))",)


@pytest.mark.cute
def test_row_left_inverse_of_stride_0(cute) -> None:
    (c,) = _cpp(call_case("left_inverse", L("_4:_0")))
    r = _dsl(DslCase("left_inverse", (L("_4:_0"),)))
    assert c.result == "_4:_0" and r.values == ("1:0",)
    assert str(apply("left_inverse", L("_4:_0"), semantics="dsl").result) == "_1:_0"


@pytest.mark.cute
def test_row_refusals_where_cpp_computes(cute) -> None:
    cases = [("right_inverse", (L("(4,2):(1,4)"),)), ("left_inverse", (L("(4,2):(_1,_4)"),)),
             ("logical_product", (L("(3):(32)"), L("(_4):(_1)"))), ("composition", (L("_4:_21"), L("4:_1").shape))]
    cpp = _cpp(*(call_case(op, *args) for op, args in cases[:3]))
    assert all(c.result is not None for c in cpp)
    for op, args in cases:
        r = _dsl(DslCase(op, args))
        assert r.error is not None
        assert isinstance(apply(op, *args, semantics="dsl").rejection, DslRefusal)


@pytest.mark.cute
def test_row_the_abort() -> None:
    case = DslCase("complement", (L("((_4,_8)):((1,8))"), L("_60:_1").shape))
    r = _dsl(case)
    assert r.crashed is not None and "SIGABRT" in r.crashed
    assert "aborts" in str(apply(*(case.op,), *case.args, semantics="dsl").rejection)


@pytest.mark.cute
def test_divisibility_propagates_in_the_trace_form() -> None:
    sy = Symbols()
    layout = parse_layout("(M,K):(_1,M)", sy)
    r = _dsl(DslCase("zipped_divide", (layout, parse_tile("<_8,_4>")), ({"M": 64, "K": 32},), {"M": 8}))
    assert "?{div=" in r.trace


# -- the switch ---------------------------------------------------------------------------------------------------


def test_cpp_is_the_default() -> None:
    assert str(apply("upcast", 2, L("16:1")).result) == "16:0"
    with using("dsl"):
        assert str(apply("upcast", 2, L("16:1")).result) == "16:1"
    assert str(apply("upcast", 2, L("16:1")).result) == "16:0"


def test_cli_semantics(capsys) -> None:
    assert main(["upcast", "2", "16:S", "--json"]) == 1
    cpp = json.loads(capsys.readouterr().out)
    assert main(["upcast", "2", "16:S", "--json", "--semantics", "dsl"]) == 1
    dsl = json.loads(capsys.readouterr().out)
    assert cpp["result"] == "16:S/2" and dsl["result"] == "?:?"
    assert dsl["verdict"] == cpp["verdict"] == "invalid"  # UP-2: the stride is no multiple of 2 (S = 1)
    assert dsl["counterexample"]["params"]["S"] % 2 == 1
    assert main(["downcast", "2", "16:1", "--semantics", "dsl", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == "?:?{div=2}" and out["verdict"] == "invalid"
    assert main(["upcast", "2", "16:1", "--semantics", "python"]) == 2
    assert "--semantics" in capsys.readouterr().err


def test_spec_semantics(tmp_path, capsys) -> None:
    spec = tmp_path / "k.cute.toml"
    spec.write_text('semantics = "dsl"\n[symbols]\nK = { multiple_of = 8, max = 16384 }\n'
                    '[[check]]\nname = "vector copy"\nop = "upcast"\nargs = ["8", "(_16,K):(K,_1)"]\n'
                    '[[check]]\nname = "downcast in C++"\nsemantics = "cpp"\nop = "downcast"\nargs = ["2", "16:1"]\n'
                    'expect = "invalid"\n[[check]]\nname = "downcast in the DSL"\nop = "downcast"\n'
                    'args = ["2", "16:1"]\nexpect = "invalid"\n')
    assert main(["run", str(spec), "--no-cache", "--format", "json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["verdict"] for r in results] == ["valid", "invalid", "invalid"]
    assert "rejects" in results[1]["reason"] and results[2]["result"] == "?:?{div=2}"
    spec.write_text('[[check]]\nname = "x"\nop = "coalesce"\nargs = ["4:1"]\nsemantics = "rust"\n')
    assert main(["run", str(spec)]) == 2
    assert "k.cute.toml:5: check[0].semantics: must be one of cpp, dsl" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["cpp", "dsl"])
def test_python_api_semantics(name: str) -> None:
    from verifier.engine.verify import verify

    sy = Symbols()
    args = [2, parse_layout("(4,16):(d,_1)", sy)]
    sy.declare("d", multiple_of=2)
    v = verify("upcast", args, sy, semantics=name)
    assert v.verdict == "valid"
    assert v.result == ("(?,?):(?,1)" if name == "dsl" else "(4,8):(d/2,_1)")


@pytest.mark.cute
def test_the_dsl_s_ceil_div_is_the_exact_ceiling_for_a_negative_divisor(cute) -> None:
    """composition divides the B stride 12 by the extent -3 of complement(5:-3, 5) = (-3,0):(1,-15): the DSL takes
    ceil(12 / -3) = -4 (stride 60), C++ (12 - 3 - 1) / -3 = -2 (stride 30)."""
    a, b = L("_5:_-3"), L("((_4,_1)):((_0,_12))")
    (c,) = _cpp(call_case("flat_product", a, b))
    r = _dsl(DslCase("flat_product", (a, b)))
    assert c.result == "(_5,((_4,_1))):(_-3,((_0,_30)))" == str(apply("flat_product", a, b).result)
    assert r.values == ("(5,(4,1)):(-3,(0,60))",)
    assert str(apply("flat_product", a, b, semantics="dsl").result) == "(_5,(_4,_1)):(_-3,(_0,_60))"


@pytest.mark.cute
def test_the_dsl_s_cosize_is_static_where_its_crd2idx_is() -> None:
    """cosize((?,1):(0,13)) is a run-time value in the DSL (static 1 in C++), so logical_product's cotarget keeps a
    rest mode whose composition divides by complement's 0 extent: the DSL's compiler dies of SIGFPE."""
    sy = Symbols()
    a, b = L("((_5,_3)):((_23,_23))"), parse_layout("(x,_1):(_0,_13)", sy)
    r = _dsl(DslCase("logical_product", (a, b), ({"x": 5},)))
    assert r.crashed is not None and "SIGFPE" in r.crashed
    assert apply("logical_product", a, b, semantics="dsl").undefined == "division by zero (1 % 0)"
    assert "Non-injective" in str(apply("logical_product", a, b).rejection)  # C++: layout.hpp:1213
    with using("dsl"):
        assert [c.static for c in (cosize(b), cosize(parse_layout("(_1,x):(_5,_0)", sy)))] == [False, True]
    assert cosize(b).static


@pytest.mark.cute
def test_the_dsl_composes_every_mode_before_it_refuses() -> None:
    """complement((4,5):(16,9), 1580) = (9,0,25):(1,45,64): its composition with 4:19 alone is refused, with
    (4,4):(19,7) the mode 4:7 divides by the extent 0 (SIGFPE), where C++ stops at 4:19's failed assertion."""
    a = L("(_4,_5):(_16,_9)")
    for b, crashes in (("_4:_19", False), ("((_4,_4)):((_19,_7))", True), ("((_4,_4)):((_7,_19))", True)):
        r = _dsl(DslCase("logical_product", (a, L(b))))
        assert (r.crashed is not None and "SIGFPE" in r.crashed) == crashes, (b, r)
        assert apply("logical_product", a, L(b)).rejection is not None


@pytest.mark.cute
def test_a_product_of_an_overlapping_block_in_the_dsl() -> None:
    """The DSL does not refuse a complement with a 0 extent (C++: layout.hpp:1213); the product computes, and its
    contract fails: the complement maps nothing, so A(B(i)) has no value (not a division by zero of ours)."""
    a, b = L("(_6,_6,_6):(_18,_0,_19)"), L("((_5)):((_0))")
    r = _dsl(DslCase("tiled_product", (a, b)))
    assert r.values == ("((6,6,6),(5)):((18,0,19),(0))",)
    out = apply("tiled_product", a, b, semantics="dsl")
    assert out.undefined is None and {o.id for o in out.obligations if o.condition.value is False} >= {"PRD-POST"}
    assert apply("tiled_product", a, b).rejection is not None


@pytest.mark.cute
def test_the_dsl_keeps_the_run_time_extents_of_a_stride_0_complement() -> None:
    """complement(_4:_0, (_2,_3,x,y)): the DSL multiplies only the static leaves, (6,x,y):(1,6,6x); C++ multiplies
    the run-time ones too (6,x*y). So a divide by a stride-0 tiler keeps one rest mode per run-time extent."""
    sy = Symbols()
    t, cot = L("_4:_0"), parse_tile("<_2,_3,x,y>", sy)
    shape = tuple(cot.elements)
    r = _dsl(DslCase("complement", (t, shape), ({"x": 5, "y": 7},)))
    assert r.trace == "(6,?,?):(1,6,?{div=6})" and r.values == ("(6,5,7):(1,6,30)",)
    assert str(apply("complement", t, shape).result) == "(_6,x*y):(_1,_6)"
    a, tiler = parse_layout("((x0,x1)):((x2,x3))", sy), parse_tile("<x4:_0>", sy)
    r = _dsl(DslCase("zipped_divide", (a, tiler), ({"x0": 6, "x1": 2, "x2": 4, "x3": 1, "x4": 3},)))
    assert r.values == ("((3),(((6,1),(1,2)))):((0),(((4,1),(24,1))))",)
