"""CuTe integers: the static/dynamic flag of every operation (numeric/integral_constant.hpp) and C++ arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import CuteRejection, UndefinedBehavior
from verifier.core.integers import (
    FALSE,
    TRUE,
    Bool,
    D,
    Int,
    S,
    abs_,
    add,
    and_,
    as_int,
    ceil_div_int,
    div,
    eq,
    gcd,
    ge,
    gt,
    lcm,
    le,
    lt,
    max_,
    min_,
    mod,
    mul,
    ne,
    neg,
    not_,
    or_,
    safe_div,
    signum,
    static_value,
    sub,
    substitute,
    symbol,
)

M, N = symbol("M"), symbol("N")


def same(a: Int, b: Int) -> bool:
    """Equal value expression and equal flag (``Int.__eq__`` is structural, this spells it out)."""
    return a == b and a.static == b.static


# ----------------------------------------------------------------------------------------------------------------
# static op static
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (S(2) + S(3), 5),
        (S(2) - S(3), -1),
        (S(2) * S(3), 6),
        (S(7) / S(2), 3),
        (S(-7) / S(2), -3),
        (S(7) / S(-2), -3),
        (S(-7) / S(-2), 3),
        (S(7) % S(2), 1),
        (S(-7) % S(2), -1),
        (S(7) % S(-2), 1),
        (S(-7) % S(-2), -1),
        (S(-1) / S(2), 0),
        (S(-1) % S(2), -1),
        (-S(4), -4),
        (min_(S(2), S(-3)), -3),
        (max_(S(2), S(-3)), 2),
        (abs_(S(-5)), 5),
        (signum(S(-5)), -1),
        (signum(S(0)), 0),
        (gcd(S(12), S(18)), 6),
        (lcm(S(4), S(6)), 12),
    ],
)
def test_static_op_static_is_static(result: Int, expected: int) -> None:
    assert result.static
    assert same(result, S(expected))
    assert result.is_constant(expected)


def test_truncating_division_examples() -> None:
    assert S(-7) / S(2) == S(-3)
    assert S(-7) % S(2) == S(-1)
    assert D(-7) / D(2) == D(-3)
    assert D(-7) % D(2) == D(-1)
    # C++ identity: (a/b)*b + a%b == a
    for a in range(-9, 10):
        for b in [x for x in range(-4, 5) if x]:
            q, r = D(a) / D(b), D(a) % D(b)
            assert int(q) * b + int(r) == a
            assert abs(int(r)) < abs(b)
            assert int(r) == 0 or (int(r) < 0) == (a < 0)


# ----------------------------------------------------------------------------------------------------------------
# mixed static/dynamic
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "value"),
    [
        (S(2) + D(3), 5),
        (D(2) + S(3), 5),
        (S(2) * D(3), 6),
        (S(7) / D(2), 3),
        (D(-7) / S(2), -3),
        (D(-7) % S(2), -1),
        (S(2) - D(3), -1),
        (D(4) * S(1), 4),
        (S(1) * D(4), 4),
        (D(4) / S(1), 4),
        (D(2) * 3, 6),
        (3 * S(2), 6),
        (-D(4), -4),
    ],
)
def test_mixed_is_dynamic(result: Int, value: int) -> None:
    assert result.dynamic and not result.static
    assert same(result, D(value))
    assert not result.is_constant(value)


def test_dynamic_results_with_symbols() -> None:
    for r in [S(2) * M, M * S(2), M + S(0), S(1) * M, M / S(1), M - S(3), M % S(2), S(5) % M, S(6) / M]:
        assert r.dynamic
        assert r.value is None
    assert M + S(0) == M
    assert S(1) * M == M
    assert (S(2) * M).evaluate({"M": 7}) == 14


@pytest.mark.parametrize(
    "result",
    [
        S(0) * M,
        M * S(0),
        S(0) / M,
        S(0) % M,
        M % S(1),
        M % S(-1),
        S(0) * D(5),
        D(5) * S(0),
        S(0) / D(5),
        S(0) % D(5),
        D(5) % S(1),
        D(-5) % S(-1),
        S(0) * (M + N),
        (M * N) % S(1),
        S(0) * S(7),
    ],
)
def test_static_zero_special_cases(result: Int) -> None:
    assert result.static
    assert same(result, S(0))
    assert result.is_constant(0)
    assert str(result) == "_0"


def test_dynamic_zero_is_not_a_special_case() -> None:
    r = D(0) * M
    assert r.dynamic and r == D(0) and not r.is_constant(0)
    r = M % D(1)
    assert r.dynamic and r == D(0)
    r = D(0) / M
    assert r.dynamic and r.evaluate({"M": 3}) == 0
    r = S(0) + M
    assert r.dynamic and r == M


@pytest.mark.parametrize(
    ("fn", "args", "value"),
    [
        (min_, (2, 3), 2),
        (max_, (2, 3), 3),
        (gcd, (12, 18), 6),
        (lcm, (4, 6), 12),
    ],
)
def test_binary_functions_static_only_when_all_static(fn, args, value) -> None:
    a, b = args
    assert same(fn(S(a), S(b)), S(value))
    assert same(fn(S(a), D(b)), D(value))
    assert same(fn(D(a), S(b)), D(value))
    assert same(fn(D(a), D(b)), D(value))
    assert fn(S(a), M).dynamic and fn(M, S(b)).dynamic


@pytest.mark.parametrize(("fn", "arg", "value"), [(abs_, -4, 4), (signum, -4, -1), (signum, 9, 1), (abs_, 3, 3)])
def test_unary_functions_keep_the_flag(fn, arg, value) -> None:
    assert same(fn(S(arg)), S(value))
    assert same(fn(D(arg)), D(value))
    assert fn(M).dynamic


def test_dynamic_one_is_not_constant_one() -> None:
    assert S(1).is_constant(1)
    assert not D(1).is_constant(1)
    assert not S(1).is_constant(2)
    assert not M.is_constant(1)
    assert S(1) != D(1)
    assert D(1).value == 1 and D(1).concrete
    # A dynamic 1 does not trigger the x % _1 rule, a static one does.
    assert (M % D(1)).dynamic and (M % S(1)).static


def test_python_ints_are_dynamic() -> None:
    assert as_int(3) == D(3)
    assert as_int(S(3)) == S(3)
    with pytest.raises(TypeError):
        as_int(True)
    with pytest.raises(TypeError):
        as_int(2.0)


# ----------------------------------------------------------------------------------------------------------------
# Division by zero, safe_div
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "thunk",
    [
        pytest.param(lambda: S(4) / S(0), id="_4/_0"),
        pytest.param(lambda: D(4) / D(0), id="4/0"),
        pytest.param(lambda: S(4) / D(0), id="_4/0"),
        pytest.param(lambda: D(4) / S(0), id="4/_0"),
        pytest.param(lambda: S(4) % S(0), id="_4%_0"),
        pytest.param(lambda: D(-4) % D(0), id="-4%0"),
        pytest.param(lambda: D(0) / D(0), id="0/0"),
        pytest.param(lambda: D(0) % S(0), id="0%_0"),
        pytest.param(lambda: ceil_div_int(D(4), D(0)), id="ceil_div(4,0)"),
    ],
)
def test_constant_division_by_zero_raises(thunk) -> None:
    with pytest.raises(UndefinedBehavior):
        thunk()


def test_static_zero_by_static_zero_is_undefined() -> None:
    """``_0/_0`` and ``_0%_0``: the ``_0/x`` and ``_0%x`` shortcuts need a run-time ``x`` (is_std_integral<U>);
    with two static operands CuTe has no shortcut and divides 0 by 0 (compiled CuTe 4.2 dies with SIGFPE)."""
    with pytest.raises(UndefinedBehavior):
        S(0) / S(0)
    with pytest.raises(UndefinedBehavior):
        S(0) % S(0)


def test_static_zero_by_dynamic_zero_is_zero() -> None:
    """``_0 / 0`` uses CuTe's ``operator/(C<0>, U)`` which performs no division."""
    assert same(S(0) / D(0), S(0))
    assert same(S(0) % D(0), S(0))


def test_symbolic_division_by_zero_raises_on_evaluation() -> None:
    q = M / N
    assert q.dynamic
    assert q.evaluate({"M": 7, "N": 2}) == 3
    with pytest.raises(UndefinedBehavior):
        q.evaluate({"M": 7, "N": 0})
    with pytest.raises(UndefinedBehavior):
        (M % N).evaluate({"M": 7, "N": 0})
    with pytest.raises(UndefinedBehavior):
        substitute(M / N, {"M": 1, "N": 0})


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param(lambda: (M / N) - (M / N), id="x-x"),
        pytest.param(lambda: (M / N) * D(0), id="x*0"),
        pytest.param(lambda: D(0) * (M / N), id="0*x"),
        pytest.param(lambda: (M / N) % D(1), id="x%1"),
        pytest.param(lambda: (M / N) % D(-1), id="x%-1"),
    ],
)
def test_simplification_keeps_a_possible_division_by_zero(expr) -> None:
    """integers._simplify promises to 'never drop a division that could be by zero'."""
    x = expr()
    with pytest.raises(UndefinedBehavior):
        x.evaluate({"M": 5, "N": 0})


def test_safe_div() -> None:
    assert same(safe_div(S(12), S(4)), S(3))
    assert same(safe_div(S(-12), S(4)), S(-3))
    with pytest.raises(CuteRejection) as info:
        safe_div(S(7), S(2))
    assert "safe_div" in str(info.value)
    with pytest.raises(CuteRejection):
        safe_div(S(-6), S(4))
    with pytest.raises(CuteRejection):
        safe_div(S(6), S(0))
    # A dynamic operand: plain truncating division, no check.
    assert same(safe_div(S(7), D(2)), D(3))
    assert same(safe_div(D(7), S(2)), D(3))
    assert safe_div(M, S(2)).dynamic


def test_ceil_div_int() -> None:
    assert same(ceil_div_int(S(7), S(2)), S(4))
    assert same(ceil_div_int(D(7), S(2)), D(4))
    assert ceil_div_int(M, S(128)).evaluate({"M": 129}) == 2


# ----------------------------------------------------------------------------------------------------------------
# substitute
# ----------------------------------------------------------------------------------------------------------------


def test_substitute_keeps_the_flag() -> None:
    x = S(2) * M + N
    y = substitute(x, {"M": 3, "N": 4})
    assert same(y, D(10))
    assert y.dynamic
    assert same(substitute(S(5), {"M": 3}), S(5))
    assert same(substitute(D(5), {"M": 3}), D(5))
    partial = substitute(M * N, {"M": 3})
    assert partial.dynamic and partial.symbols() == {"N"}
    assert partial.evaluate({"N": 5}) == 15
    assert same(substitute(M, {}), M)


# ----------------------------------------------------------------------------------------------------------------
# Bool
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "a", "b", "value"),
    [(eq, 2, 2, True), (ne, 2, 2, False), (lt, 2, 3, True), (le, 3, 3, True), (gt, 2, 3, False), (ge, 2, 3, False)],
)
def test_comparisons_follow_the_operands(fn, a, b, value) -> None:
    s = fn(S(a), S(b))
    assert isinstance(s, Bool)
    assert s.static and s.value is value and s.is_constant(value) and not s.is_constant(not value)
    for mixed in (fn(S(a), D(b)), fn(D(a), S(b)), fn(D(a), D(b))):
        assert not mixed.static
        assert mixed.value is value
        assert not mixed.is_constant(value)
    sym = fn(M, S(b))
    assert not sym.static and sym.value is None
    assert sym.evaluate({"M": a}) is value


def test_bool_printing() -> None:
    assert str(eq(S(1), S(1))) == "_1"
    assert str(eq(D(1), S(1))) == "1"
    assert str(eq(S(1), S(2))) == "_0"


def test_and_short_circuit() -> None:
    sym = lt(M, N)
    dyn_false = eq(D(1), D(2))
    dyn_true = eq(D(1), D(1))
    assert not dyn_false.static and dyn_false.value is False
    # false_type && x and x && false_type are static false, even when x is symbolic or dynamic.
    for r in (and_(FALSE, sym), and_(sym, FALSE), and_(dyn_true, FALSE), and_(FALSE, dyn_true)):
        assert r == FALSE and r.static and r.is_constant(False)
    # A dynamic false gives a dynamic false.
    r = and_(dyn_false, sym)
    assert not r.static and r.value is False
    assert and_(TRUE, TRUE) == TRUE
    r = and_(TRUE, dyn_true)
    assert not r.static and r.value is True
    r = and_(TRUE, sym)
    assert not r.static and r.value is None
    assert r.evaluate({"M": 1, "N": 2}) is True and r.evaluate({"M": 2, "N": 1}) is False
    assert (TRUE & sym) == r


def test_or_short_circuit() -> None:
    sym = lt(M, N)
    dyn_true = eq(D(1), D(1))
    dyn_false = eq(D(1), D(2))
    for r in (or_(TRUE, sym), or_(sym, TRUE), or_(dyn_false, TRUE), or_(TRUE, dyn_false)):
        assert r == TRUE and r.static and r.is_constant(True)
    r = or_(dyn_true, sym)
    assert not r.static and r.value is True
    r = or_(FALSE, FALSE)
    assert r.static and r.is_constant(False)
    r = or_(FALSE, dyn_false)
    assert not r.static and r.value is False
    r = or_(FALSE, sym)
    assert not r.static and r.evaluate({"M": 1, "N": 2}) is True


def test_not() -> None:
    assert not_(TRUE) == FALSE and not_(TRUE).static
    r = not_(eq(D(1), D(1)))
    assert not r.static and r.value is False
    assert not_(lt(M, N)).evaluate({"M": 1, "N": 2}) is False


def test_truth_value_is_ambiguous() -> None:
    with pytest.raises(TypeError):
        bool(S(1))
    with pytest.raises(TypeError):
        bool(eq(S(1), S(1)))


# ----------------------------------------------------------------------------------------------------------------
# gcd and lcm are CuTe's (numeric/math.hpp), not Python's
# ----------------------------------------------------------------------------------------------------------------


def test_gcd_lcm_of_negative_values_follow_cute() -> None:
    """cute::gcd is Euclid's loop with C++ '%' and keeps a sign: gcd(4,-6) == -2 and lcm(-4,6) == -12 in
    compiled CuTe 4.2 (and gcd<_4,_-6> prints _-2)."""
    assert same(gcd(S(4), S(-6)), S(-2))
    assert same(gcd(D(0), D(-3)), D(-3))
    assert same(lcm(D(-4), D(6)), D(-12))


def test_lcm_of_zeros_is_undefined() -> None:
    """cute::lcm(0,0) computes (0 / gcd(0,0)) * 0 == (0/0)*0."""
    with pytest.raises(UndefinedBehavior):
        lcm(D(0), D(0))


# ----------------------------------------------------------------------------------------------------------------
# Property: evaluation equals a reference C++ evaluation, and the flag follows CuTe's rules
# ----------------------------------------------------------------------------------------------------------------


class _UB(Exception):
    pass


def _tdiv(a: int, b: int) -> int:
    if b == 0:
        raise _UB
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _tmod(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


def _cute_gcd(t: int, u: int) -> int:
    while True:
        if t == 0:
            return u
        u = _tmod(u, t)
        if u == 0:
            return t
        t = _tmod(t, u)


def _cute_lcm(t: int, u: int) -> int:
    return _tdiv(t, _cute_gcd(t, u)) * u


@dataclass(frozen=True)
class Node:
    op: str  # 'S', 'D', 'sym' for leaves
    args: tuple = ()
    value: int | str = 0


BINARY = ["+", "-", "*", "/", "%", "min", "max", "gcd", "lcm"]
UNARY = ["neg", "abs", "signum"]
_MODEL = {"+": add, "-": sub, "*": mul, "/": div, "%": mod, "min": min_, "max": max_, "gcd": gcd, "lcm": lcm,
          "neg": neg, "abs": abs_, "signum": signum}


def _build(n: Node) -> Int:
    if n.op == "S":
        return S(n.value)
    if n.op == "D":
        return D(n.value)
    if n.op == "sym":
        return symbol(n.value)
    return _MODEL[n.op](*(_build(a) for a in n.args))


def _reference(n: Node, env: dict[str, int]) -> tuple[int | None, bool]:
    """(value, static) in C++/CuTe semantics; value None when the evaluation divides by zero.

    Every operand is evaluated (C++ evaluates the arguments of an operator before calling it), so a division by
    zero anywhere is undefined behaviour.  CuTe's mixed shortcuts (``_0*x``, ``x*_0``, ``_0/x``, ``_0%x``, ``x%_1``,
    ``x%_-1`` with a run-time ``x``) return ``_0`` without performing their own division.
    """
    if n.op == "S":
        return n.value, True
    if n.op == "D":
        return n.value, False
    if n.op == "sym":
        return env[n.value], False
    vals = [_reference(a, env) for a in n.args]
    ub = any(v is None for v, _ in vals)
    statics = [s for _, s in vals]
    all_static = all(statics)
    if n.op in UNARY:
        (a, _), = vals
        if ub:
            return None, all_static
        fn = {"neg": lambda x: -x, "abs": lambda x: -x if x < 0 else x,
              "signum": lambda x: (x > 0) - (x < 0)}[n.op]
        return fn(a), all_static
    (a, sa), (b, sb) = vals
    za = sa and a == 0
    zb = sb and b == 0
    one_b = sb and b in (1, -1)
    mixed = sa != sb
    shortcut = mixed and (
        (n.op == "*" and (za or zb)) or (n.op == "/" and za) or (n.op == "%" and (za or one_b)))
    if ub:
        return None, all_static or shortcut
    if shortcut:
        return 0, True
    try:
        if n.op == "+":
            v = a + b
        elif n.op == "-":
            v = a - b
        elif n.op == "*":
            v = a * b
        elif n.op == "/":
            v = _tdiv(a, b)
        elif n.op == "%":
            v = _tmod(a, b)
        elif n.op == "min":
            v = a if a < b else b
        elif n.op == "max":
            v = b if a < b else a
        elif n.op == "gcd":
            v = _cute_gcd(a, b)
        else:
            v = _cute_lcm(a, b)
    except _UB:
        return None, all_static
    return v, all_static


_leaf_nodes = st.one_of(
    st.integers(-6, 6).map(lambda v: Node("S", value=v)),
    st.integers(-6, 6).map(lambda v: Node("D", value=v)),
    st.sampled_from(["M", "N"]).map(lambda s: Node("sym", value=s)),
)


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(BINARY), children, children).map(lambda t: Node(t[0], (t[1], t[2]))),
        st.tuples(st.sampled_from(UNARY), children).map(lambda t: Node(t[0], (t[1],))),
    )


trees = st.recursive(_leaf_nodes, _extend, max_leaves=8)
envs = st.fixed_dictionaries({"M": st.integers(-6, 6), "N": st.integers(-6, 6)})


@settings(max_examples=500, deadline=None)
@given(trees, envs)
def test_evaluate_matches_cpp_reference(tree: Node, env: dict[str, int]) -> None:
    expected, expected_static = _reference(tree, env)
    try:
        x = _build(tree)
    except UndefinedBehavior:
        # Folding a constant division by zero: the reference must divide by zero for every env.
        assert expected is None, f"model raised UndefinedBehavior, reference gives {expected}"
        return
    if expected is None:
        with pytest.raises(UndefinedBehavior):
            x.evaluate(env)
        with pytest.raises(UndefinedBehavior):
            substitute(x, env)
        return
    assert x.static == expected_static, f"{x}: static={x.static}, CuTe gives static={expected_static}"
    assert x.evaluate(env) == expected, f"{x} at {env}"
    if x.static:  # the type's value (a static _0 may keep a division it dropped: seq(U, 0), whose value is 0)
        assert static_value(x) == expected
    concrete = substitute(x, env)
    assert concrete.concrete and concrete.value == expected
    assert concrete.static == x.static


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param(lambda: S(0) * (M / S(0)), id="_0*(M/_0)"),
        pytest.param(lambda: S(0) * (M / N), id="_0*(M/N)"),
        pytest.param(lambda: (M / N) * S(0), id="(M/N)*_0"),
        pytest.param(lambda: S(0) / (M / N), id="_0/(M/N)"),
        pytest.param(lambda: S(0) % (M / N), id="_0%(M/N)"),
        pytest.param(lambda: (M / N) % S(1), id="(M/N)%_1"),
        pytest.param(lambda: (M / N) % S(-1), id="(M/N)%_-1"),
        pytest.param(lambda: S(0) * (M / N) + S(3), id="_0*(M/N)+_3"),
        pytest.param(lambda: S(0) * (M / N) + M, id="_0*(M/N)+M"),
    ],
)
def test_a_static_shortcut_keeps_the_division_it_drops(expr) -> None:
    """Issue 29, class 9: CuTe's ``_0 * U`` is a static ``_0``, but C++ computed ``U`` first, so a division in ``U``
    ran: it must fault where ``U``'s does, whatever the shortcut does with its value (the Hypothesis test above
    found ``_0 * (M / _0)`` folded to a plain ``_0``)."""
    x = expr()
    with pytest.raises(UndefinedBehavior):
        x.evaluate({"M": 5, "N": 0})
    with pytest.raises(UndefinedBehavior):
        substitute(x, {"M": 5, "N": 0})
    if x.static:  # the shortcut's type is still CuTe's static _0 (or a static sum of it), at every value
        assert str(x) in ("_0", "_3") and x.is_constant(int(str(x)[1:]))


def test_the_encoder_collects_a_division_the_shortcut_keeps() -> None:
    from verifier.core.integers import Sym
    from verifier.core.symbols import Symbols
    from verifier.solver.encoding import Encoder

    table = Symbols()
    table.declare("M")
    table.declare("N", lo=0)
    enc = Encoder(table)
    enc.term((S(0) * (M / N) + M).expr)
    assert Sym("N") in enc.divisors


def test_a_static_zero_added_to_a_scaled_basis_keeps_its_division() -> None:
    """``_0 * (M / N) + v@1`` is CuTe's ``v@1`` (arithmetic_tuple.hpp:440-453), but ``M / N`` ran: the sum, a basis
    or an arithmetic tuple, still faults at ``N = 0``; a plain ``_0`` leaves it as it was."""
    from verifier.core.basis import ArithTuple, ScaledBasis, add

    kept = S(0) * (M / N)
    for other in (ScaledBasis(S(1), (1,)), ArithTuple((ScaledBasis(S(2), (0,)), S(3)))):
        for total in (add(kept, other), add(other, kept)):
            assert str(total) == str(other)
            first = total.value if isinstance(total, ScaledBasis) else total.items[0].value  # type: ignore[union-attr]
            with pytest.raises(UndefinedBehavior):
                first.evaluate({"M": 5, "N": 0})
        assert add(S(0), other) is other
