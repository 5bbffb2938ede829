"""The compiled-CuTe harness builds C++ only from validated model objects: symbol names and user text never
reach the compiler, and only whitelisted operations can be called."""

from __future__ import annotations

import pytest

from verifier import LayoutError, parse_layout
from verifier.oracle.cute_cpp import CppBuilder, Query, call_case, layout_case, run_cases

HOSTILE = [
    '(M);system("rm -rf /"):1',
    "(M):(1)}); int x = (1",
    "(M/*comment*/):1",
    "(M\n#include <x>):1",
    "(__builtin_trap()):1",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_notation_is_rejected_by_the_parser(text: str) -> None:
    with pytest.raises(LayoutError):
        parse_layout(text)


def test_symbol_names_never_reach_the_cpp_source() -> None:
    case = layout_case(parse_layout("(system,(popen,exit)):(_1,(system,popen*exit))"))
    assert "system" not in case.code and "popen" not in case.code and "exit" not in case.code
    assert "p[0]" in case.code and [s.symbol for s in case.slots if s.symbol] == ["system", "popen", "exit"]


def test_only_whitelisted_operations_can_be_called() -> None:
    b = CppBuilder()
    with pytest.raises(ValueError):
        b.call("system", '"ls"')
    with pytest.raises(ValueError):
        b.call("upcast); system(", "x", template=(2,))


@pytest.mark.cute
def test_symbolic_case_runs_with_values_as_parameters(cute) -> None:
    lay = parse_layout("(M,(N,_2)):(_1,(M,M*N))")
    case = call_case("coalesce", lay)
    envs = [{"M": m, "N": n} for m in (1, 3) for n in (2, 5)]
    results = run_cases([case], [Query(0, e) for e in envs])
    from verifier.algebra.ops import coalesce

    for env, r in zip(envs, results, strict=True):
        ours = coalesce(lay.substitute(env))
        assert str(ours) == r.result and tuple(ours.values()) == r.values
