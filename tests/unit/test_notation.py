"""CuTe notation: printing and parsing layouts, int tuples and tilers, and the errors for malformed input."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from verifier import (
    UNDERSCORE,
    D,
    Int,
    Layout,
    LayoutError,
    S,
    Symbols,
    Tile,
    parse,
    parse_int_tuple,
    parse_layout,
    parse_tile,
    symbol,
)
from verifier.core import integers as I
from verifier.core.errors import LayoutSyntaxError
from verifier.core.int_tuple import format_tuple, leaves

M, N, K = symbol("M"), symbol("N"), symbol("K")

# ----------------------------------------------------------------------------------------------------------------
# Round trips
# ----------------------------------------------------------------------------------------------------------------


def _nested(depth: int, leaf: str) -> str:
    return "(" * depth + leaf + ")" * depth


CANONICAL_LAYOUTS = [
    "(_2,4):(_1,_2)",
    "(2,(2,2)):(4,(2,1))",
    "8:_1",
    "_8:_1",
    "(M,N):(_1,M)",
    "((_4,?),_8):((_1,?),_64)",
    "(_4):(_-1)",
    "(4,8):(-4,_-2)",
    "((M+127)/128,N*2):(_1,(M+127)/128)",
    "(M-(N-1)):(M/(N*2))",
    "(min(M,N)):(_1)",
    "(8):(1)",
    "(_8):(_1)",
    "(M):(M)",
    "(3,(2,3)):(3,(12,1))",
    "((2,3),(4,(5,6))):((_0,1),(-1,(0,_0)))",
    "(M,(N,K)):(N*K,(K,_1))",
    "(max(M,N),abs(N-M)):(signum(M),gcd(M,lcm(N,4)))",
    "(M):(-M)",
    "(M):(-(M+1))",
    "(M):(N--4)",
    "(M):(-4*M)",
    "(M):(M*-4)",
    "(M):(-M*N)",
    "(M):(-(M*N))",
    "(M):(M%(N*2))",
    "(M):(M/2*N)",
    "(M):(M-N-1)",
    "(M):(M-(N+1))",
    "((M+1)%3,M+N+K):((M+1)*(N+1),-(M%3))",
    "(M+1)*2:_1",
    "M*N:_1",
    "9223372036854775807:1",
    "(_1,_1):(_0,_0)",
    _nested(16, "8") + ":" + _nested(16, "_1"),
    _nested(15, "M") + ":" + _nested(15, "(M+1)*2"),
]


@pytest.mark.parametrize("text", CANONICAL_LAYOUTS)
def test_layout_round_trip(text: str) -> None:
    layout = parse_layout(text)
    assert isinstance(layout, Layout)
    assert str(layout) == text
    # The printed text parses back to the same layout (anonymous symbols are renumbered, so compare text).
    again = parse_layout(str(layout))
    assert str(again) == text
    if "?" not in text:
        assert again == layout


def test_deep_nesting_sixteen_levels_mixed() -> None:
    shape = "(1,(2,(3,(4,(5,(6,(7,(8,(1,(2,(3,(4,(5,(6,(7,(8,9))))))))))))))))"
    stride = "(_1,(_2,(3,(-4,(_5,(6,(_7,(8,(_9,(10,(-11,(12,(_13,(14,(_15,(16,_-17))))))))))))))))"
    assert shape.count("(") == 16 and stride.count("(") == 16
    layout = parse_layout(f"{shape}:{stride}")
    assert str(layout) == f"{shape}:{stride}"
    written = re.findall(r"_?-?\d+", stride)
    assert [int(x) for x in leaves(layout.stride)] == [int(w.lstrip("_")) for w in written]
    # Leaves written with '_' are static, the others dynamic.
    assert [x.static for x in leaves(layout.stride)] == [w.startswith("_") for w in written]
    assert [int(x) for x in leaves(layout.shape)] == [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_rank1_tuple_is_not_an_integer() -> None:
    rank1 = parse_layout("(8):(1)")
    plain = parse_layout("8:1")
    assert rank1.shape == (D(8),) and rank1.stride == (D(1),)
    assert plain.shape == D(8) and plain.stride == D(1)
    assert rank1 != plain
    assert str(plain) == "8:1"


def test_parsed_leaves_have_the_written_flags() -> None:
    layout = parse_layout("(_2,4):(_1,_2)")
    assert layout.shape == (S(2), D(4))
    assert layout.stride == (S(1), S(2))
    assert layout.shape[0].static and layout.shape[1].dynamic
    neg = parse_layout("(4,8):(-4,_-2)")
    assert neg.stride == (D(-4), S(-2))


def test_symbolic_expressions_parse_to_the_expected_integers() -> None:
    layout = parse_layout("((M+127)/128,N*2):(_1,(M+127)/128)")
    ceil = (M + D(127)) / D(128)
    assert layout.shape == (ceil, N * D(2))
    assert layout.stride == (S(1), ceil)
    assert layout.substitute({"M": 129, "N": 5}).shape == (D(2), D(10))
    sub = parse_layout("(M-(N-1)):(M/(N*2))")
    assert sub.shape == (M - (N - D(1)),)
    assert sub.substitute({"M": 10, "N": 3}) == Layout((D(8),), (D(1),))


def test_anonymous_symbols_are_distinct() -> None:
    layout = parse_layout("((_4,?),_8):((_1,?),_64)")
    a, b = layout.shape[0][1], layout.stride[0][1]
    assert a.dynamic and b.dynamic and not a.concrete
    assert a != b  # two '?' are two different run-time integers
    assert str(a) == "?" and str(b) == "?"


TILES = ["<_3:_4,_8:_2>", "<_,(_2,_3),_4>", "<_>", "<M>", "<(M,2):(1,M)>", "<_2:_1,_,(4,M)>"]


@pytest.mark.parametrize("text", TILES)
def test_tile_round_trip(text: str) -> None:
    tile = parse_tile(text)
    assert isinstance(tile, Tile)
    assert str(tile) == text
    assert parse_tile(str(tile)) == tile


def test_tile_elements() -> None:
    tile = parse_tile("<_3:_4,_8:_2>")
    assert tile.elements == (Layout(S(3), S(4)), Layout(S(8), S(2)))
    tile = parse_tile("<_,(_2,_3),_4>")
    assert tile.elements == (UNDERSCORE, (S(2), S(3)), S(4))
    assert tile.cute_str() == "(_,(_2,_3),_4)"


def test_nested_tile_round_trip() -> None:
    """A tiler inside a tiler prints as ``<_,<_2,_3>>``; the closing ``>>`` must not be read as a shift."""
    tile = Tile([UNDERSCORE, Tile([S(2), S(3)])])
    text = str(tile)
    assert text == "<_,<_2,_3>>"
    assert parse_tile(text) == tile
    assert parse_tile("<<_2,_3>,_4>") == Tile([Tile([S(2), S(3)]), S(4)])


def test_parse_int_tuple() -> None:
    t = parse_int_tuple("(_2,(M,4))")
    assert t == (S(2), (M, D(4)))
    assert format_tuple(t) == "(_2,(M,4))"
    assert parse_int_tuple("8") == D(8)
    assert parse_int_tuple("_8") == S(8)
    assert parse_int_tuple("(8)") == (D(8),)
    assert parse_int_tuple("-3") == D(-3)
    assert parse_int_tuple("_-3") == S(-3)
    assert parse_int_tuple("(M+1)*2") == (M + D(1)) * D(2)


def test_parse_dispatches_on_the_input() -> None:
    assert parse("(2,3):(1,2)") == Layout((D(2), D(3)), (D(1), D(2)))
    assert parse("<_2,_3>") == Tile([S(2), S(3)])
    assert parse("(_2,4)") == (S(2), D(4))
    assert parse("M+1") == M + D(1)
    assert isinstance(parse("8:_1"), Layout)
    assert isinstance(parse("8"), Int)


def test_int64_min_static_literal() -> None:
    """``_-9223372036854775808`` (INT64_MIN, as CuTe prints ``Int<INT64_MIN>``) fits in 64 bits."""
    value = parse_int_tuple("_-9223372036854775808")
    assert value == S(-(2**63))
    assert str(parse_layout("(2):(_-9223372036854775808)")) == "(2):(_-9223372036854775808)"


def test_long_flat_expression_prints_or_is_refused() -> None:
    """A 2000-character sum is neither deep nor long; the parser must either refuse it cleanly or print it back."""
    text = "(" + "+".join(["M"] * 1000) + "):(1)"
    assert len(text) < 64 * 1024
    try:
        layout = parse_layout(text)
    except LayoutError:
        return
    assert str(layout) == text


# ----------------------------------------------------------------------------------------------------------------
# Static arithmetic in the notation
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("_2*_3", S(6)),
        ("_2+_3*_4", S(14)),
        ("(_2+_3)*_4", S(20)),
        ("_-7/_2", S(-3)),
        ("_-7%_2", S(-1)),
        ("_7/_-2", S(-3)),
        ("_7%_-2", S(1)),
        ("-_7", S(-7)),
        ("_0*M", S(0)),
        ("M*_0", S(0)),
        ("_0/M", S(0)),
        ("_0%M", S(0)),
        ("M%_1", S(0)),
        ("M%_-1", S(0)),
        ("min(_2,_3)", S(2)),
        ("max(_2,_3)", S(3)),
        ("abs(_-3)", S(3)),
        ("gcd(_12,_18)", S(6)),
        ("lcm(_4,_6)", S(12)),
        ("signum(_-5)", S(-1)),
        ("2*3", D(6)),
        ("_2*3", D(6)),
        ("0*M", D(0)),
        ("M%1", D(0)),
        ("min(_2,3)", D(2)),
        ("-7/2", D(-3)),
        ("-7%2", D(-1)),
    ],
)
def test_static_arithmetic(text: str, expected: Int) -> None:
    got = parse_int_tuple(text)
    assert got == expected
    assert got.static == expected.static


def test_static_times_symbol_is_dynamic() -> None:
    got = parse_int_tuple("_2*M")
    assert got.dynamic
    assert got == S(2) * M
    assert got.evaluate({"M": 5}) == 10
    assert str(got) == "2*M"
    assert parse_int_tuple("_2*M").static is False
    assert parse_int_tuple("M+_0") == M


# ----------------------------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------------------------


def _error(text: str, fn=parse_layout, **kwargs) -> LayoutError:
    with pytest.raises(LayoutError) as info:
        fn(text, **kwargs)
    err = info.value
    assert type(err) in (LayoutError, LayoutSyntaxError), type(err)
    msg = str(err)
    assert "\n" not in msg and "\r" not in msg, msg
    return err


def _column(err: LayoutError) -> int:
    m = re.match(r"column (\d+): ", str(err))
    assert m, f"message does not start with 'column N: ': {err}"
    col = int(m.group(1))
    if isinstance(err, LayoutSyntaxError):
        assert err.position == col - 1
    return col


ERRORS = [
    # (id, text, parser, column, words that must appear in the message)
    ("missing-close-end", "(2,3", parse_layout, 5, ["unbalanced", "missing ')'", "column 1"]),
    ("missing-close-stride", "(2,3):(1,2", parse_layout, 11, ["unbalanced", "missing ')'", "column 7"]),
    ("missing-close-inner", "(2,3:(1,2)", parse_layout, 5, ["')'", "column 1"]),
    ("missing-close-int-tuple", "((2,3)", parse_int_tuple, 7, ["unbalanced", "missing ')'"]),
    ("extra-close-end", "(2,3):(1,2))", parse_layout, 12, ["unbalanced", "')'"]),
    ("extra-close-shape", "(2,3)):(1,2)", parse_layout, 6, ["')'"]),
    ("extra-close-tuple", "(2,3))", parse_int_tuple, 6, ["unbalanced", "')'"]),
    ("unbalanced-angle", "<_3:_4,_8:_2", parse_tile, 13, ["unbalanced", "'<'", "missing '>'"]),
    ("unbalanced-angle-parse", "<_2,_3", parse, 7, ["unbalanced", "'<'"]),
    ("not-congruent", "(2,3):(1,(2,3))", parse_layout, 7, ["not congruent", "(2,3)", "(1,(2,3))"]),
    ("not-congruent-rank", "(2,3):(1,2,3)", parse_layout, 7, ["not congruent"]),
    ("not-congruent-leaf", "(2,3):1", parse_layout, 7, ["not congruent"]),
    ("zero-shape", "(2,0):(1,2)", parse_layout, 4, ["shape 0", "positive"]),
    ("zero-shape-static", "_0:_1", parse_layout, 1, ["shape _0", "positive"]),
    ("zero-shape-expr", "(2-2):(1)", parse_layout, 2, ["shape 0", "positive"]),
    ("zero-shape-static-times-symbol", "(_0*M):(1)", parse_layout, 2, ["shape _0", "positive"]),
    ("negative-shape", "(-1):(1)", parse_layout, 2, ["shape -1", "positive"]),
    ("negative-shape-nested", "(2,(3,-4)):(1,(2,6))", parse_layout, 7, ["shape -4", "positive"]),
    ("negative-shape-nested-static", "(2,(3,(5,_-4))):(1,(2,(6,7)))", parse_layout, 10, ["shape _-4", "positive"]),
    ("negative-shape-in-tile", "<(2,-1)>", parse_tile, 5, ["shape -1", "positive"]),
    ("zero-shape-in-tile-layout", "<_8:_1,_0:_1>", parse_tile, 8, ["shape _0", "positive"]),
    ("unknown-operator-caret", "2^3:1", parse_layout, 2, ["unknown operator", "'^'"]),
    ("unknown-operator-amp", "M&N", parse_int_tuple, 2, ["unknown operator", "'&'"]),
    ("unknown-operator-amp-layout", "(M&N):(1)", parse_layout, 3, ["unknown operator", "'&'"]),
    ("unknown-operator-semicolon", "<_3:_4;_8:_2>", parse_tile, 7, ["unknown operator", "';'"]),
    ("unknown-function", "foo(3):1", parse_layout, 1, ["unknown function", "'foo'"]),
    ("unknown-function-nested", "(2,bar(M)):(1,2)", parse_layout, 4, ["unknown function", "'bar'"]),
    ("wrong-arity-min", "min(3):1", parse_layout, 1, ["min", "2 argument", "got 1"]),
    ("wrong-arity-abs", "(2,abs(1,2)):(1,1)", parse_layout, 4, ["abs", "1 argument", "got 2"]),
    ("function-without-arguments", "min:1", parse_layout, 1, ["min", "argument"]),
    ("too-deep-tuple", _nested(17, "8") + ":" + _nested(17, "1"), parse_layout, 17, ["nesting", "16"]),
    ("too-deep-stride", _nested(16, "8") + ":" + _nested(17, "1"), parse_layout, 51, ["nesting", "16"]),
    ("too-deep-unary", "-" * 17 + "1:1", parse_layout, 17, ["nesting", "16"]),
    ("too-deep-int-tuple", _nested(17, "M"), parse_int_tuple, 17, ["nesting", "16"]),
    ("empty", "", parse_layout, 1, ["empty input"]),
    ("empty-blank", "   ", parse_layout, 4, ["empty input"]),
    ("empty-int-tuple", "", parse_int_tuple, 1, ["empty input"]),
    ("empty-parse", "", parse, 1, ["empty input"]),
    ("empty-tile", "", parse_tile, 1, ["'<'"]),
    ("empty-tuple", "():()", parse_layout, 2, ["empty tuple", "()"]),
    ("empty-tuple-nested", "(2,()):(1,2)", parse_layout, 5, ["empty tuple"]),
    ("trailing-garbage", "(2,3):(1,2) x", parse_layout, 13, ["unexpected", "'x'", "after the layout"]),
    ("trailing-number", "8:1 2", parse_layout, 5, ["unexpected", "'2'"]),
    ("trailing-colon", "4:1:2", parse_layout, 4, ["unexpected", "':'"]),
    ("trailing-tile", "<_2>_3", parse_tile, 5, ["unexpected", "'_3'", "after the tiler"]),
    ("underscore-shape", "(_,2):(1,2)", parse_layout, 2, ["'_'", "tiler"]),
    ("underscore-stride", "8:_", parse_layout, 3, ["'_'", "tiler"]),
    ("underscore-int-tuple", "(2,_)", parse_int_tuple, 4, ["'_'", "tiler"]),
    ("literal-too-big", "9223372036854775808:1", parse_layout, 1, ["9223372036854775808", "64 bits"]),
    ("static-literal-too-big", "(2,_99999999999999999999):(1,1)", parse_layout, 4, ["64 bits"]),
    ("literal-too-big-stride", "(2):(18446744073709551616)", parse_layout, 6, ["64 bits"]),
    ("divide-by-zero", "(4/0):1", parse_layout, 3, ["division by zero"]),
    ("modulo-by-zero", "(4%0):(1)", parse_layout, 3, ["division by zero"]),
    ("divide-by-zero-expr", "(8):(2/(1-1))", parse_layout, 7, ["division by zero"]),
    ("divide-by-static-zero", "(8):(_4/_0)", parse_layout, 8, ["division by zero"]),
    ("missing-colon-juxtaposed", "(2,3)(1,2)", parse_layout, 6, ["':'", "'('"]),
    ("missing-colon-after-leaf", "8 1", parse_layout, 3, ["':'"]),
    ("missing-stride", "(2,3):", parse_layout, 7, ["end of input"]),
    ("tuple-as-operand", "((2,3)*2):(1)", parse_layout, 7, ["expected", "')'", "'*'"]),
    ("comma-operand", "(2*(3,4)):(1)", parse_layout, 6, ["tuple", "arithmetic"]),
    ("bad-character", "(2,3):(1,2)$", parse_layout, 12, ["'$'"]),
    ("newline-inside", "(2,3)\n:(1,(2,3))", parse_layout, 8, ["not congruent"]),
    ("dangling-operator", "M+:1", parse_layout, 3, ["expected an integer", "':'"]),
]


def test_a_shape_alone_is_its_compact_column_major_layout() -> None:
    # CuTe's Layout<Shape<...>> (tests/differential/test_cpp_types.py compares with compiled CuTe)
    assert str(parse_layout("(2,3)")) == "(2,3):(_1,2)" and str(parse_layout("8")) == "8:_1"
    assert str(parse_layout("(_2,_2,_1)")) == "(_2,_2,_1):(_1,_2,_0)"
    with pytest.raises(LayoutError, match="non-positive|positive"):
        parse_layout("(2,0)")


@pytest.mark.parametrize(("text", "fn", "column", "words"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_bad_input(text: str, fn, column: int, words: list[str]) -> None:
    err = _error(text, fn)
    assert _column(err) == column, str(err)
    for w in words:
        assert w in str(err), f"{w!r} not in {str(err)!r}"


def test_unknown_symbol_with_strict_table() -> None:
    table = Symbols(strict=True)
    table.declare("M")
    err = _error("(M,N):(_1,M)", symbols=table)
    assert _column(err) == 4
    assert "unknown symbol" in str(err) and "'N'" in str(err)
    # The declared symbol is accepted, and so is the same input with a lenient table.
    assert parse_layout("(M,M):(_1,M)", table) == Layout((M, M), (S(1), M))
    assert str(parse_layout("(M,N):(_1,M)", Symbols())) == "(M,N):(_1,M)"


def test_unknown_symbol_in_stride_with_strict_table() -> None:
    table = Symbols(strict=True)
    table.declare("M")
    err = _error("(M,8):(_1,lda)", symbols=table)
    assert _column(err) == 11
    assert "unknown symbol" in str(err) and "'lda'" in str(err)


def test_input_length_limit() -> None:
    ok = "(8):(1)".ljust(64 * 1024)
    assert len(ok) == 65536
    assert parse_layout(ok) == Layout((D(8),), (D(1),))
    err = _error(ok + " ")
    assert _column(err) == 1
    assert "65537" in str(err) and "65536" in str(err)
    assert len(str(err)) < 200  # the message does not echo the input


def test_static_zero_divided_by_static_zero_is_refused() -> None:
    """``_0/_0`` divides by zero in CuTe (there is no ``C<0> / C<0>`` shortcut); the notation must refuse it."""
    err = _error("(8):(_0/_0)")
    assert _column(err) == 8
    assert "division by zero" in str(err)


def test_error_message_names_the_place() -> None:
    err = _error("(2,(3,-4)):(1,(2,6))")
    assert isinstance(err, LayoutSyntaxError)
    assert err.text == "(2,(3,-4)):(1,(2,6))"
    assert err.text[err.position:].startswith("-4")
    assert "-4" in str(err).split("near", 1)[1]


# ----------------------------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------------------------

SYMBOLS = (M, N, K)


def _ints(lo: int, hi: int) -> st.SearchStrategy[Int]:
    return st.integers(lo, hi).flatmap(lambda v: st.sampled_from([S(v), D(v)]))


def _symbolic(leaf: st.SearchStrategy[Int]) -> st.SearchStrategy[Int]:
    """Expressions over M, N, K built with CuTe's operators, divisors never a constant zero."""
    atoms = st.one_of(st.sampled_from(SYMBOLS), leaf)
    nonzero = st.one_of(st.sampled_from(SYMBOLS), _ints(1, 9), _ints(-9, -1))

    def extend(children: st.SearchStrategy[Int]) -> st.SearchStrategy[Int]:
        return st.one_of(
            st.tuples(st.sampled_from([I.add, I.sub, I.mul, I.min_, I.max_]), children, children)
            .map(lambda t: t[0](t[1], t[2])),
            # lcm(0, 0) divides by zero, as CuTe's would: a nonzero second operand, as for / and %.
            st.tuples(st.sampled_from([I.div, I.mod, I.gcd, I.lcm]), children, nonzero).map(lambda t: t[0](t[1], t[2])),
            st.tuples(st.sampled_from([I.neg, I.abs_, I.signum]), children).map(lambda t: t[0](t[1])),
        )

    return st.recursive(atoms, extend, max_leaves=4)


def _positive_shape(x: Int) -> Int:
    """A shape leaf as CuTe takes one: a static leaf that prints 0 or less (also one keeping a division it dropped,
    ``_0 * (M / N)``, which prints ``_0``) is replaced by 1, since the notation refuses a non-positive shape."""
    from verifier.core.integers import static_value

    return D(1) if (x.concrete and x.value <= 0) or (x.static and static_value(x) <= 0) else x


_shape_leaf = st.one_of(_ints(1, 9), st.sampled_from(SYMBOLS), _symbolic(_ints(1, 9))).map(_positive_shape)
_stride_leaf = st.one_of(_ints(-9, 9), st.sampled_from(SYMBOLS), _symbolic(_ints(-9, 9)))


@st.composite
def _profiles(draw, depth: int = 0):
    if depth >= 5 or draw(st.booleans()):
        return None  # a leaf
    return tuple(draw(_profiles(depth + 1)) for _ in range(draw(st.integers(1, 3))))


@st.composite
def layouts(draw) -> Layout:
    profile = draw(_profiles())

    def fill(p, leaf):
        if p is None:
            return draw(leaf)
        return tuple(fill(q, leaf) for q in p)

    return Layout(fill(profile, _shape_leaf), fill(profile, _stride_leaf))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
@example(Layout(((((M,),),),), ((((S(0) * (M / N),),),),)))  # found by a fresh clone's run: a kept division
def test_random_layouts_round_trip(layout: Layout) -> None:
    text = str(layout)
    parsed = parse_layout(text)
    assert parsed == _as_printed(layout), (text, str(parsed))
    assert str(parsed) == text


def _as_printed(layout: Layout) -> Layout:
    """The layout with every static leaf its type's value: a static ``_0`` that keeps a division it dropped
    (``_0 * (M / N)``, integers.seq) prints as CuTe prints its type, ``_0``, and reads back as that ``_0``."""
    from verifier.core.integers import static_value

    def leaf(x):
        if isinstance(x, tuple):
            return tuple(leaf(y) for y in x)
        return S(static_value(x)) if x.static else x

    return Layout(leaf(layout.shape), leaf(layout.stride))


def test_a_kept_division_reads_back_as_its_static_type() -> None:
    kept = Layout((M,), (S(0) * (M / N),))
    assert str(kept) == "(M):(_0)" and kept != _as_printed(kept)
    assert parse_layout(str(kept)) == _as_printed(kept)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("()<>,:+-*/%?_0123456789MN ") + ["min(", "gcd(", "_-", "&&", "<<", ">>", "^",
                                                                   "99999999999999999999", "\n"]),
                max_size=16).map("".join))
def test_garbage_only_raises_layout_errors(text: str) -> None:
    for fn in (parse_layout, parse_tile, parse_int_tuple, parse):
        try:
            fn(text)
        except LayoutError as err:
            assert "\n" not in str(err)
            assert re.match(r"column \d+: ", str(err))


# -- coordinates holding '_' (slice, slice_and_offset, local_tile) ---------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("(_,2)", (UNDERSCORE, D(2))),
    ("_", UNDERSCORE),
    ("(2,(_,_3))", (D(2), (UNDERSCORE, S(3)))),
    ("(_,M+1)", (UNDERSCORE, M + D(1))),
])
def test_coordinate_with_underscore(text: str, expected: object) -> None:
    from verifier.notation.cpp import parse_coord

    table = Symbols()
    table.declare("M")
    assert parse_coord(text, table) == expected
    assert parse(text, table) == expected  # an operand that is a tuple may be a coordinate
    assert format_tuple(parse_coord(text, table)) == text


@pytest.mark.parametrize(("text", "fn"), [("(_,2):(1,2)", parse), ("(2,_)", parse_int_tuple),
                                          ("(4,2):(_,1)", parse), ("_+1", parse), ("(_*2)", parse)])
def test_underscore_outside_a_coordinate_is_an_error(text: str, fn) -> None:
    with pytest.raises(LayoutError, match="'_'|expected"):
        fn(text, Symbols())
