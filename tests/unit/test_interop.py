"""pycute and CuTe DSL interop: round trips, pycute evaluating and computing as we do on concrete layouts, DSL
strings parsed to the right assumptions, malformed DSL strings refused with one-line errors."""

from __future__ import annotations

import pycute
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verifier import LayoutError, Symbols, apply, parse, parse_dsl, parse_layout, to_cpp, to_dsl
from verifier import strategies as vs
from verifier.algebra import coalesce, composition
from verifier.core.errors import LayoutSyntaxError
from verifier.core.int_tuple import leaves
from verifier.core.integers import S, le
from verifier.core.symbols import INT64_MAX
from verifier.engine.checks import check
from verifier.engine.verdicts import INVALID, PROVED, VALID, Policy
from verifier.engine.verify import verify
from verifier.notation.interop import parse_dsl_layout
from verifier.pycute import from_pycute, to_pycute

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same_function(ours, theirs, n: int) -> None:
    assert [int(ours(i)) for i in range(n)] == [theirs(i) for i in range(n)]


@FAST
@given(vs.layouts(static=True, depth=3, max_extent=4))
def test_pycute_round_trip_and_evaluation(layout) -> None:
    p = to_pycute(layout)
    assert isinstance(p, pycute.Layout)
    assert p.size() == int(layout.size())
    if all(int(d) >= 0 for d in leaves(layout.stride)):
        # pycute's cosize is L(size-1)+1 (pycute/layout.py:103), CuTe's sums |stride|; they agree on these.
        assert p.cosize() == int(layout.cosize())
    _same_function(layout, p, int(layout.size()))
    assert from_pycute(p) == layout  # all-static layouts come back identical


@FAST
@given(vs.layouts(static=False, max_extent=4))
def test_dynamic_layouts_go_to_pycute_by_value(layout) -> None:
    p = to_pycute(layout)
    _same_function(layout, p, int(layout.size()))
    back = from_pycute(p)
    assert all(x.static for x in leaves(back.shape)) and back.values() == layout.values()


@FAST
@given(vs.layouts(static=True, max_extent=4))
def test_pycute_coalesce_agrees_at_every_coordinate(layout) -> None:
    ours, theirs = coalesce(layout), pycute.coalesce(to_pycute(layout))
    _same_function(ours, theirs, int(layout.size()))


@FAST
@given(st.data())
def test_pycute_composition_agrees_at_every_coordinate(data: st.DataObject) -> None:
    a = data.draw(vs.layouts(static=True, compact=True, rank=(1, 2), max_extent=4))
    b = data.draw(vs.layouts(static=True, injective=True, rank=(1, 2), max_extent=3))
    # Only where B's image lies in A's domain: past it pycute differs from CuTe C++ (pycute coalesces A = 1:1 to
    # 1:0, so 1:1 o 2:1 is 2:0 in pycute but (_2):(_1) in compiled CuTe 4.2, which we reproduce).
    if not all(0 <= x < int(a.size()) for x in b.values()):
        return
    try:
        theirs = pycute.composition(to_pycute(a), to_pycute(b))
    except (AssertionError, ZeroDivisionError):
        return  # pycute refuses (its static checks); nothing to compare
    out = apply("composition", a, b)
    # CuTe C++ has static checks pycute lacks: ((_1,_2,_1)):((_1,_1,_1)) o (_1):(_3) compiles in pycute but hits
    # "Stride Divisibility Condition" (layout.hpp:1077) in compiled CuTe 4.2, as in our model.
    assume(out.rejection is None)
    _same_function(out.result, theirs, int(b.size()))
    _same_function(out.result, lambda i: int(a(int(b(i)))), int(b.size()))


def test_public_entry_points_take_pycute_layouts() -> None:
    a, b = pycute.Layout((2, 3), (1, 2)), pycute.Layout((2, 3), (3, 1))
    assert apply("composition", a, b).result == composition(from_pycute(a), from_pycute(b))
    assert str(parse_layout(pycute.Layout(4))) == "_4:_1"
    assert parse(pycute.Layout((4, 2), (2, 1))) == parse_layout("(_4,_2):(_2,_1)")
    assert check("injective", [pycute.Layout((4, 2), (2, 1))], Symbols()).verdict == PROVED
    assert verify("coalesce", [pycute.Layout((4, 2), (1, 4))], Symbols()).verdict == VALID


def test_to_pycute_needs_concrete_values() -> None:
    with pytest.raises(LayoutError, match="symbolic"):
        to_pycute(parse_layout("(M,_4):(_1,M)"))
    with pytest.raises(LayoutError, match="scaled-basis"):
        to_pycute(parse_layout("(_2,_3):(_1@0,_1@1)"))
    with pytest.raises(LayoutError, match="non-positive"):
        from_pycute(pycute.Layout((0, 2), (1, 1)))


# -- the CuTe DSL ------------------------------------------------------------------------------------------------

DSL_SEEN = [  # layouts the DSL printed (interop.py's docstring says where)
    "(?,2):(1,?)",
    "(8,2):(1,8)",
    "(?,?{div=64},?,?,?):(?{i64 div=64},1,?{i64 div=64},?{i64 div=64},?{i64 div=64})",
    "(?,?{div=64},((?,?),?)):(?{i64 div=64},1,((0,?{div=64}),?{div=64}))",
    "((64,256),((?,?),(?,?))):((?{i64},1),((?{i64 div=4096},?{div=256}),(?{i64 div=64},?{div=256})))",
    "(((32,128),1),?):(((1@0,1@1),0),32@0)",
    "(?,?{div=8192}):(?{i64 div=8192},1)",
    "((128,128),(?,?,?)):((?{i64},1),(?{i64 div=128},128,?{i64}))",
    "((1024,1,1),(?,?,?)):((1@0,0,0),(1024@0,1@1,1@2))",
    "4:1",
    "(?):(1)",
]


@pytest.mark.parametrize("text", DSL_SEEN)
def test_dsl_strings_round_trip(text: str) -> None:
    table = Symbols()
    layout = parse_dsl_layout(text, table)
    assert to_dsl(layout, table) == text


def test_dsl_assumptions_reach_the_symbol_table() -> None:
    table = Symbols()
    layout = parse_dsl_layout("(?,4):(?{div=8},?{i64})", table)
    syms = {s.name: s for s in table}
    m, four = layout.shape
    d8, i64 = layout.stride
    assert four.static and four.value == 4
    assert syms[str(m.expr.name)].multiple_of == 1 and syms[str(m.expr.name)].bits == 32
    assert syms[d8.expr.name].multiple_of == 8 and syms[d8.expr.name].describe().endswith("% 8 == 0")
    assert syms[i64.expr.name].bits == 64 and syms[i64.expr.name].hi == INT64_MAX
    assert str(layout) == "(?,_4):(?,?)"  # C++ print's form: the anonymous symbols print as '?'
    assert to_cpp(layout) == str(layout)
    shape = parse_dsl("(?,(4,?{div=2}))", table)  # an IntTuple, as the DSL prints shapes and coordinates
    assert isinstance(shape, tuple) and to_dsl(shape, table) == "(?,(4,?{div=2}))"


def test_dsl_divisibility_decides_the_engine() -> None:
    # zipped_divide by 128 is exact only when the extent is a multiple of 128: `?{div=128}` says so, `?` does not
    # (a partial tile: a warning, invalid under --strict).  The extent is bounded to a realistic size: near 2^31
    # CuTe's ceil_div(?, _128) itself overflows int32 (OVF-ARITH).
    for text, expected in (("(?{div=128}):(1)", VALID), ("(?):(1)", INVALID)):
        table = Symbols()
        layout = parse_dsl_layout(text, table)
        table.assume(le(next(leaves(layout.shape)), S(1 << 24)))
        v = verify("zipped_divide", [layout, parse("<_128>", table)], table, derive=False,
                   policy=Policy(strict=True))
        assert v.verdict == expected, (text, v.reason)


@FAST
@given(vs.layouts(static=True, depth=3))
def test_static_layouts_round_trip_through_the_dsl(layout) -> None:
    text = to_dsl(layout)
    assert "_" not in text and "?" not in text
    assert parse_dsl_layout(text) == layout


def test_dsl_printing_of_dynamic_values() -> None:
    layout = parse_layout("(M,8):(_1,M)")
    assert to_dsl(layout) == "(?,?):(1,?)"
    assert to_dsl(layout.substitute({"M": 8}), values=True) == "(8,8):(1,8)"  # cute.printf's form
    table = Symbols()
    table.declare("K", multiple_of=16, bits=64)
    assert to_dsl(parse_layout("(K,K+1):(_1,K)", table), table) == "(?{i64 div=16},?):(1,?{i64 div=16})"


@pytest.mark.parametrize("text, where, problem", [
    ("(?,4):(1,?", 11, "missing ')'"),
    ("(_4,2):(1,2)", 2, "without '_'"),
    ("(?{div=0},4):(1,?)", 3, "div=0"),
    ("(?{div=8 i65},4):(1,?)", 3, "unknown attribute 'i65'"),
    ("(?{div=8,4):(1,?)", 3, "missing '}'"),
    ("({div=8},4):(1,?)", 2, "must follow '?'"),
    ("(4,2):(1)", 7, "not congruent"),
    ("(0,2):(1,0)", 2, "must be positive"),
    ("(4@1,2):(1,4)", 3, "only allowed as a stride"),
    ("(4,2):(1,M)", 10, "unexpected character 'M'"),
    ("", 1, "empty input"),
    ("(4,2):(1,2))", 12, "unexpected ')'"),
    ("(4,2)", 6, "expected ':'"),
])
def test_malformed_dsl_strings_give_one_line_errors(text: str, where: int, problem: str) -> None:
    with pytest.raises(LayoutSyntaxError) as info:
        parse_dsl_layout(text)
    message = str(info.value)
    assert "\n" not in message and problem in message
    assert message.startswith(f"column {where}:"), message
