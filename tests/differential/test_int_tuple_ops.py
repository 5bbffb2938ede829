"""IntTuple operations (int_tuple.hpp, stride.hpp) against compiled CuTe: printed results with their
static/dynamic flags, and CuTe's compile-time rejections."""

from __future__ import annotations

import random

import pycute
import pytest

from verifier import parse_int_tuple
from verifier.algebra import (
    ceil_div,
    compatible,
    congruent,
    crd2crd,
    crd2idx,
    elem_scale,
    idx2crd,
    prefix_product,
    product,
    shape_div,
    weakly_congruent,
)
from verifier.core.errors import CuteRejection
from verifier.core.int_tuple import as_int_tuple, format_tuple
from verifier.core.integers import D, S
from verifier.oracle.cute_cpp import Query, call_case, run_cases

P = parse_int_tuple

CALLS = [
    ("ceil_div", ("(3,4)", "2")), ("ceil_div", ("(_3,_4)", "_2")), ("ceil_div", ("(_12,4,5)", "(_5,3)")),
    ("ceil_div", ("_7", "_3")), ("ceil_div", ("7", "(_2,3)")),
    ("shape_div", ("(4,5,6)", "40")), ("shape_div", ("(_4,_5,_6)", "_40")), ("shape_div", ("6", "4")),
    ("shape_div", ("_6", "_4")), ("shape_div", ("(_6,8)", "(_3,2)")), ("shape_div", ("_2", "_4")),
    ("elem_scale", ("(_2,3)", "(4,(_2,_3))")), ("elem_scale", ("_3", "(2,_5)")),
    ("idx2crd", ("13", "(3,(2,3))")), ("idx2crd", ("_7", "(_2,_2)")), ("idx2crd", ("7", "(2,2)", "(1,2)")),
    ("idx2crd", ("25", "(_3,(2,_1))", "(_1,(3,_0))")),
    ("crd2idx", ("(1,(1,2))", "(3,(2,3))", "(3,(12,1))")), ("crd2idx", ("17", "(3,(2,3))", "(3,(12,1))")),
    ("crd2idx", ("(5,9)", "(_2,_2)", "(_1,_2)")), ("crd2idx", ("(5,-1)", "(2,2)", "(1,2)")),
    ("crd2idx", ("(1,2)", "(3,4)")), ("crd2idx", ("_0", "(_3,(_2,4))", "(_1,(5,_7))")),
    ("crd2crd", ("(1,5)", "(3,6)", "(3,(2,3))")),
    ("congruent", ("(2,(3,4))", "(_5,(6,7))")), ("congruent", ("(2,3)", "(2,(3))")),
    ("weakly_congruent", ("(2,3)", "(2,(3,4))")), ("weakly_congruent", ("(2,(3,4))", "(2,3)")),
    ("compatible", ("(_4,_6)", "((_2,_2),_6)")), ("compatible", ("(4,6)", "((2,2),6)")),
    ("product", ("(2,(_3,4))",)), ("product", ("(_2,(_3,_4))",)), ("product", ("(_2,(_0,4))",)),
]
FUNCS = {"ceil_div": ceil_div, "shape_div": shape_div, "elem_scale": elem_scale, "idx2crd": idx2crd,
         "crd2idx": crd2idx, "crd2crd": crd2crd, "congruent": congruent, "weakly_congruent": weakly_congruent,
         "compatible": compatible, "product": product}


def _ours(fn: str, args: tuple[str, ...]) -> str:
    try:
        r = FUNCS[fn](*(P(a) for a in args))
    except CuteRejection as exc:
        return f"rejected: {exc.assertion}"
    if isinstance(r, bool):  # congruence is a static bool in CuTe
        return "_1" if r else "_0"
    return format_tuple(r) if isinstance(r, tuple) else str(r)


@pytest.fixture(scope="module")
def answers(cute):
    cases = [call_case(fn, *(P(a) for a in args)) for fn, args in CALLS]
    return run_cases(cases, [Query(k) for k in range(len(cases))])


@pytest.mark.cute
def test_int_tuple_ops_match_cute(answers) -> None:
    for (fn, args), r in zip(CALLS, answers, strict=True):
        want = f"rejected: {r.rejected}" if r.rejected else r.result
        assert _ours(fn, args) == want, (fn, args)


def test_shape_div_static_rejection_and_dynamic_silence() -> None:
    assert _ours("shape_div", ("_6", "_4")) == "rejected: Divisibility Condition"
    assert _ours("shape_div", ("6", "4")) == "2"


def _plain(t: object) -> object:
    return tuple(_plain(x) for x in t) if isinstance(t, tuple) else int(t)  # type: ignore[call-overload]


def test_prefix_product_matches_pycute() -> None:
    rng = random.Random(7)
    for _ in range(200):
        shape = tuple(rng.randint(1, 6) if rng.random() < 0.6 else (rng.randint(1, 4), rng.randint(1, 4))
                      for _ in range(rng.randint(1, 4)))
        ours = prefix_product(as_int_tuple(shape))
        plain = _plain(ours)
        assert plain == pycute.prefix_product(shape), shape


def test_idx2crd_crd2idx_are_inverse_on_compact_layouts() -> None:
    rng = random.Random(11)
    for _ in range(100):
        shape = tuple(D(rng.randint(1, 5)) for _ in range(rng.randint(1, 4)))
        n = int(product(shape))
        for i in range(n):
            c = idx2crd(D(i), shape)
            assert int(crd2idx(c, shape)) == i
    assert format_tuple(idx2crd(S(7), P("(_2,_2)"))) == "(_1,_3)"
