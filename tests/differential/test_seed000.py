"""Every example of seed 000 (CuTe's "Layouts" document), computed by our model and by compiled CuTe.

Each example is checked three ways: against the text the document prints, against compiled CuTe's print and
values, and (for layouts) our values against CuTe's at every 1-D coordinate.
"""

from __future__ import annotations

import pytest

from verifier import D, Layout, S, parse_int_tuple, parse_layout
from verifier.algebra import compatible, flatten, group, idx2crd, make_layout, select, sublayout, take
from verifier.core.int_tuple import format_tuple
from verifier.oracle.cute_cpp import Query, apply_case, call_case, layout_case, run_cases
from verifier.present.tables import print_layout

P = parse_int_tuple

# (name, our result, the C++ case computing it in CuTe, the text the document prints or None)
CONSTRUCTIONS = [
    ("s8", make_layout(S(8)), call_case("make_layout", S(8)), "_8:_1"),
    ("d8", make_layout(D(8)), call_case("make_layout", D(8)), "8:_1"),
    ("s2xs4", make_layout(P("(_2,_4)")), call_case("make_layout", P("(_2,_4)")), "(_2,_4):(_1,_2)"),
    ("s2xd4", make_layout(P("(_2,4)")), call_case("make_layout", P("(_2,4)")), "(_2,4):(_1,_2)"),
    ("s2xd4_a", make_layout(P("(_2,4)"), P("(_12,_1)")), call_case("make_layout", P("(_2,4)"), P("(_12,_1)")),
     "(_2,4):(_12,_1)"),
    ("s2xd4_col", make_layout(P("(_2,4)"), "LayoutLeft"), call_case("make_layout", P("(_2,4)"), "LayoutLeft"),
     "(_2,4):(_1,_2)"),
    ("s2xd4_row", make_layout(P("(_2,4)"), "LayoutRight"), call_case("make_layout", P("(_2,4)"), "LayoutRight"),
     "(_2,4):(4,_1)"),
    ("s2xh4", make_layout(P("(2,(_2,_2))"), P("(4,(_2,_1))")),
     call_case("make_layout", P("(2,(_2,_2))"), P("(4,(_2,_1))")), None),
    ("s2xh4_col", make_layout(P("(2,(_2,_2))"), "LayoutLeft"),
     call_case("make_layout", P("(2,(_2,_2))"), "LayoutLeft"), "(2,(_2,_2)):(_1,(2,4))"),
    # The document prints s2xh4 with all-dynamic values: (2,(2,2)):(4,(2,1)).
    ("s2xh4_dyn", parse_layout("(2,(2,2)):(4,(2,1))"), layout_case(parse_layout("(2,(2,2)):(4,(2,1))")),
     "(2,(2,2)):(4,(2,1))"),
]

PRINT2D = {  # the document's print2D tables (row m: layout(m, n) for each n)
    "s2xs4": [[0, 2, 4, 6], [1, 3, 5, 7]],
    "s2xd4_a": [[0, 1, 2, 3], [12, 13, 14, 15]],
    "s2xh4_col": [[0, 2, 4, 6], [1, 3, 5, 7]],
    "s2xh4": [[0, 2, 1, 3], [4, 6, 5, 7]],
}
PRINT1D = {
    "s2xs4": [0, 1, 2, 3, 4, 5, 6, 7],
    "s2xd4_a": [0, 12, 1, 13, 2, 14, 3, 15],
    "s2xh4_col": [0, 1, 2, 3, 4, 5, 6, 7],
    "s2xh4": [0, 4, 2, 6, 1, 5, 3, 7],
}

VECTORS_AND_MATRICES = {  # layout -> its values at 1-D coordinates, or its 2-D table
    "8:1": [0, 1, 2, 3, 4, 5, 6, 7],
    "8:2": [0, 2, 4, 6, 8, 10, 12, 14],
    "((4,2)):((2,1))": [0, 2, 4, 6, 1, 3, 5, 7],
    "((4,2)):((1,4))": [0, 1, 2, 3, 4, 5, 6, 7],
}
MATRICES = {
    "(4,2):(1,4)": [[0, 4], [1, 5], [2, 6], [3, 7]],
    "(4,2):(2,1)": [[0, 1], [2, 3], [4, 5], [6, 7]],
    "((2,2),2):((4,1),2)": [[0, 2], [4, 6], [1, 3], [5, 7]],
}

PRINT_LAYOUT_S2XH4 = """(2,(2,2)):(4,(2,1))
      0   1   2   3 
    +---+---+---+---+
 0  | 0 | 2 | 1 | 3 |
    +---+---+---+---+
 1  | 4 | 6 | 5 | 7 |
    +---+---+---+---+
"""

INDEX_TABLE = """(3,(2,3)):(3,(12,1))
       0    1    2    3    4    5 
    +----+----+----+----+----+----+
 0  |  0 | 12 |  1 | 13 |  2 | 14 |
    +----+----+----+----+----+----+
 1  |  3 | 15 |  4 | 16 |  5 | 17 |
    +----+----+----+----+----+----+
 2  |  6 | 18 |  7 | 19 |  8 | 20 |
    +----+----+----+----+----+----+
"""

# The coordinate table of shape (3,(2,3)): 1-D index -> (2-D coordinate, natural coordinate).
COORDS = {
    0: ("(0,0)", "(0,(0,0))"), 1: ("(1,0)", "(1,(0,0))"), 2: ("(2,0)", "(2,(0,0))"), 3: ("(0,1)", "(0,(1,0))"),
    4: ("(1,1)", "(1,(1,0))"), 5: ("(2,1)", "(2,(1,0))"), 6: ("(0,2)", "(0,(0,1))"), 7: ("(1,2)", "(1,(0,1))"),
    8: ("(2,2)", "(2,(0,1))"), 9: ("(0,3)", "(0,(1,1))"), 10: ("(1,3)", "(1,(1,1))"), 11: ("(2,3)", "(2,(1,1))"),
    12: ("(0,4)", "(0,(0,2))"), 13: ("(1,4)", "(1,(0,2))"), 14: ("(2,4)", "(2,(0,2))"), 15: ("(0,5)", "(0,(1,2))"),
    16: ("(1,5)", "(1,(1,2))"), 17: ("(2,5)", "(2,(1,2))"),
}

A_SUB = make_layout(P("(_4,(_3,_6))"))
A_SEL = make_layout(P("(_2,_3,_5,_7)"))
LA, LB = Layout(S(3), S(1)), Layout(S(4), S(3))
MANIPULATIONS = [  # (our result, CuTe case, the document's text)
    (A_SUB, call_case("make_layout", P("(_4,(_3,_6))")), "(_4,(_3,_6)):(_1,(_4,_12))"),
    (sublayout(A_SUB, 0), call_case("layout", A_SUB, template=(0,)), "_4:_1"),
    (sublayout(A_SUB, 1), call_case("layout", A_SUB, template=(1,)), "(_3,_6):(_4,_12)"),
    (sublayout(A_SUB, 1, 0), call_case("layout", A_SUB, template=(1, 0)), "_3:_4"),
    (sublayout(A_SUB, 1, 1), call_case("layout", A_SUB, template=(1, 1)), "_6:_12"),
    (select(A_SEL, 1, 3), call_case("select", A_SEL, template=(1, 3)), "(_3,_7):(_2,_30)"),
    (select(A_SEL, 0, 1, 3), call_case("select", A_SEL, template=(0, 1, 3)), "(_2,_3,_7):(_1,_2,_30)"),
    (select(A_SEL, 2), call_case("select", A_SEL, template=(2,)), "(_5):(_6)"),
    (take(A_SEL, 1, 3), call_case("take", A_SEL, template=(1, 3)), "(_3,_5):(_2,_6)"),
    (take(A_SEL, 1, 4), call_case("take", A_SEL, template=(1, 4)), "(_3,_5,_7):(_2,_6,_30)"),
    (make_layout(LA, LB), call_case("make_layout", LA, LB), "(_3,_4):(_1,_3)"),
    (make_layout(LB, LA), call_case("make_layout", LB, LA), "(_4,_3):(_3,_1)"),
    (make_layout(make_layout(LA, LB), make_layout(LB, LA)),
     call_case("make_layout", make_layout(LA, LB), make_layout(LB, LA)), "((_3,_4),(_4,_3)):((_1,_3),(_3,_1))"),
    (make_layout(LA), call_case("make_layout", LA), "(_3):(_1)"),
    (make_layout(make_layout(LA)), call_case("make_layout", make_layout(LA)), "((_3)):((_1))"),
    (make_layout(LA, make_layout(LA), LA), call_case("make_layout", LA, make_layout(LA), LA),
     "(_3,(_3),_3):(_1,(_1),_1)"),
    (group(A_SEL, 0, 2), call_case("group", A_SEL, template=(0, 2)), "((_2,_3),_5,_7):((_1,_2),_6,_30)"),
    (group(group(A_SEL, 0, 2), 1, 3), call_case("group", group(A_SEL, 0, 2), template=(1, 3)),
     "((_2,_3),(_5,_7)):((_1,_2),(_6,_30))"),
    (flatten(group(A_SEL, 0, 2)), call_case("flatten", group(A_SEL, 0, 2)), "(_2,_3,_5,_7):(_1,_2,_6,_30)"),
    (flatten(group(group(A_SEL, 0, 2), 1, 3)), call_case("flatten", group(group(A_SEL, 0, 2), 1, 3)),
     "(_2,_3,_5,_7):(_1,_2,_6,_30)"),
]

# The document's compatibility examples, with the verdict it gives (static shapes and all-dynamic shapes).
COMPATIBILITY = [
    ("24", "32", False), ("24", "(4,6)", True), ("(4,6)", "((2,2),6)", True),
    ("((2,2),6)", "((2,2),(3,2))", True), ("24", "((2,2),(3,2))", True), ("24", "((2,3),4)", True),
    ("((2,3),4)", "((2,2),(3,2))", False), ("((2,2),(3,2))", "((2,3),4)", False), ("24", "(24)", True),
    ("(24)", "24", False), ("(24)", "(4,6)", False),
]


def _static(text: str) -> str:
    import re

    return re.sub(r"(?<![_\d])(\d+)", r"_\1", text)


@pytest.fixture(scope="module")
def cute_results(cute):
    cases = [c for _, _, c, _ in CONSTRUCTIONS]
    cases += [c for _, c, _ in MANIPULATIONS]
    cases += [layout_case(parse_layout(s)) for s in list(VECTORS_AND_MATRICES) + list(MATRICES)]
    lay = parse_layout("(3,(2,3)):(3,(12,1))")
    cases += [apply_case(lay, D(i)) for i in range(18)]
    cases += [call_case("idx2crd", D(i), P("(3,(2,3))")) for i in range(18)]
    for a, b, _ in COMPATIBILITY:
        cases += [call_case("compatible", P(a), P(b)), call_case("compatible", P(_static(a)), P(_static(b)))]
    return dict(zip(range(len(cases)), run_cases(cases, [Query(k) for k in range(len(cases))])))


@pytest.mark.cute
def test_constructions_print_as_cute_and_the_document(cute_results) -> None:
    for k, (name, ours, _, doc) in enumerate(CONSTRUCTIONS):
        r = cute_results[k]
        assert str(ours) == r.result, name
        if doc is not None:
            assert str(ours) == doc, name
        assert ours.values() == list(r.values), name
        assert str(ours.size()) == r.size and str(ours.cosize()) == r.cosize, name


def test_print2d_and_print1d_tables() -> None:
    by_name = {name: ours for name, ours, _, _ in CONSTRUCTIONS}
    by_name["s2xh4"] = by_name["s2xh4_dyn"]
    for name, table in PRINT2D.items():
        lay = by_name[name]
        assert [[int(lay(m, n)) for n in range(4)] for m in range(2)] == table, name
    for name, row in PRINT1D.items():
        assert by_name[name].values() == row, name


@pytest.mark.cute
def test_print_layout_matches_cute_text(cute) -> None:
    assert print_layout(parse_layout("(2,(2,2)):(4,(2,1))")) == PRINT_LAYOUT_S2XH4
    assert print_layout(parse_layout("(3,(2,3)):(3,(12,1))")) == INDEX_TABLE


@pytest.mark.cute
def test_vector_and_matrix_layouts(cute_results) -> None:
    base = len(CONSTRUCTIONS) + len(MANIPULATIONS)
    for k, (text, values) in enumerate(VECTORS_AND_MATRICES.items()):
        lay = parse_layout(text)
        assert lay.values() == values == list(cute_results[base + k].values), text
    base += len(VECTORS_AND_MATRICES)
    for k, (text, table) in enumerate(MATRICES.items()):
        lay = parse_layout(text)
        m, n = len(table), len(table[0])
        assert [[int(lay(i, j)) for j in range(n)] for i in range(m)] == table, text
        # CuTe's 1-D values are the table read column by column.
        assert list(cute_results[base + k].values) == [table[i][j] for j in range(n) for i in range(m)]


@pytest.mark.cute
def test_coordinate_and_index_maps_of_3x_2x3(cute_results) -> None:
    base = len(CONSTRUCTIONS) + len(MANIPULATIONS) + len(VECTORS_AND_MATRICES) + len(MATRICES)
    lay = parse_layout("(3,(2,3)):(3,(12,1))")
    shape = P("(3,(2,3))")
    for i, (two_d, natural) in COORDS.items():
        # 1-D, 2-D and natural coordinates name the same element ...
        m, n = (int(x) for x in two_d.strip("()").split(","))
        nat = P(natural)
        assert int(lay(i)) == int(lay(m, n)) == int(lay(nat)), i
        # ... the 1-D coordinate maps to the natural one ...
        assert format_tuple(idx2crd(D(i), shape)) == natural == cute_results[base + 18 + i].result
        # ... and the index is the inner product of the natural coordinate with the stride.
        assert int(lay(i)) == int(cute_results[base + i].result)


@pytest.mark.cute
def test_sublayouts_select_take_concatenation_group_flatten(cute_results) -> None:
    base = len(CONSTRUCTIONS)
    for k, (ours, _, doc) in enumerate(MANIPULATIONS):
        r = cute_results[base + k]
        assert str(ours) == doc == r.result, doc
        assert ours.values() == list(r.values), doc


@pytest.mark.cute
def test_compatibility_examples(cute_results) -> None:
    base = len(CONSTRUCTIONS) + len(MANIPULATIONS) + len(VECTORS_AND_MATRICES) + len(MATRICES) + 36
    for k, (a, b, expected) in enumerate(COMPATIBILITY):
        dyn = compatible(P(a), P(b))
        sta = compatible(P(_static(a)), P(_static(b)))
        assert dyn.value is expected and sta.value is expected, (a, b)
        assert sta.static, (a, b)  # all-static shapes give a static verdict, as in CuTe
        assert str(dyn) == cute_results[base + 2 * k].result, (a, b)
        assert str(sta) == cute_results[base + 2 * k + 1].result, (a, b)
