"""CuTe's C++ type spelling of static layouts (``Layout<Shape<...>>``, ``Layout<Shape<...>, Stride<...>>``,
``Int<N>``) and a shape alone read as the layout CuTe builds from them, judged against compiled CuTe's print."""

from __future__ import annotations

import pytest

from verifier.notation.cpp import cpp_types, parse_layout
from verifier.oracle.cute_cpp import CppCase, run_cases

TYPES = [
    "Layout<Shape<_2,_2,_1>>",
    "Layout<Shape<_8,_64>, Stride<_64,_1>>",
    "Layout<Shape<Int<128>,_2>>",
    "Layout<Shape<_1,_1>>",
    "Layout<Shape<_2,Shape<_3,_1>>,Stride<_1,Stride<_2,_0>>>",
    "Layout<Shape<Shape<_4,_1>,_1,_8>>",
    "Layout<Shape<_16>>",
]


@pytest.mark.cute
def test_cpp_type_spelling_is_the_layout_cute_builds(cute) -> None:
    results = run_cases([CppCase(t + "{}", ()) for t in TYPES])
    for text, r in zip(TYPES, results):
        assert r.rejected is None and str(parse_layout(text)) == r.result, text


@pytest.mark.cute
def test_a_shape_alone_is_make_layout_of_it(cute) -> None:
    shapes = ["(_2,_2,_1)", "(_4,(_2,_1))", "(_1)", "(_8,_1,_3)"]
    cpp = ["make_shape(_2{},_2{},_1{})", "make_shape(_4{},make_shape(_2{},_1{}))", "make_shape(_1{})",
           "make_shape(_8{},_1{},_3{})"]
    results = run_cases([CppCase(f"make_layout({c})", ()) for c in cpp])
    for text, r in zip(shapes, results):
        assert str(parse_layout(text)) == r.result, text


@pytest.mark.parametrize(("text", "message"), [("Layout<Shape<_2>", "unbalanced"), ("Int<x>", "one integer"),
                                               ("Layout<_2,_1,_3>", "optional stride")])
def test_malformed_types_are_one_line_errors(text: str, message: str) -> None:
    from verifier.core.errors import LayoutError

    with pytest.raises(LayoutError, match=message):
        cpp_types(text)
