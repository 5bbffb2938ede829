"""Swizzles, composed layouts and scaled-basis strides against compiled CuTe 4.2.

* every ``Swizzle<B,M,S>`` with ``-1 <= B, M <= 3`` and ``|S| <= 4``: CuTe's rejection message for the invalid ones,
  and for the valid ones ``Sw(i)`` on a run-time ``i`` (through ``composition(Sw, N:_1)``) and on static and
  run-time integers, flag included;
* a seeded random differential of ``composition`` with swizzles and composed layouts on either side and of the
  inverses of composed layouts (300 calls): the same print, size, cosize and values, or the same rejection; the
  SW-3 verdict agrees with CuTe's values (CuTe never checks it);
* composition with scaled-basis strides, and evaluation of scaled-basis layouts (arithmetic-tuple values);
* parsing and printing: round trips of what CuTe prints, and one-line errors with columns.
"""

from __future__ import annotations

import random

import pytest

from tests.support.compare import compare
from verifier import Layout, LayoutError, Tile, parse, parse_layout
from verifier.algebra.registry import apply
from verifier.core.basis import E, ScaledBasis
from verifier.core.errors import CuteRejection, LayoutSyntaxError
from verifier.core.integers import D, Int, S, symbol
from verifier.core.swizzle import ComposedLayout, Swizzle, compose3
from verifier.oracle.cute_cpp import CppBuilder, CppCase, Query, call_case, layout_case, run_cases

# -- the Swizzle functor -------------------------------------------------------------------------------------------

PARAMS = [(b, m, s) for b in range(-1, 4) for m in range(-1, 4) for s in range(-4, 5)]


def _swizzle_or_rejection(b: int, m: int, s: int) -> Swizzle | CuteRejection:
    try:
        return Swizzle(b, m, s)
    except CuteRejection as exc:
        return exc


SWIZZLES = {p: _swizzle_or_rejection(*p) for p in PARAMS}
VALID = [p for p, sw in SWIZZLES.items() if isinstance(sw, Swizzle)]


def _domain(b: int, m: int, s: int) -> int:
    return 1 << max(1, min(b + m + abs(s) + 1, 11))


def _probes(p: tuple[int, int, int]) -> tuple[int, int, int]:
    rng = random.Random(hash(p) & 0xFFFF)
    n = _domain(*p)
    return rng.randrange(n), rng.randrange(n), rng.randrange(n)


def _swizzle_cases() -> list[CppCase]:
    cases = []
    for b, m, s in PARAMS:  # composition(Sw, N:_1) evaluates Sw at every run-time i < N
        cases.append(CppCase(f"composition(Swizzle<{b},{m},{s}>{{}}, make_layout(Int<{_domain(b, m, s)}>{{}}))", ()))
    for p in VALID:  # static in, static out; run-time in, run-time out
        cb = CppBuilder()
        sw = cb.swizzle(SWIZZLES[p])  # type: ignore[arg-type]
        x0, x1, x2 = _probes(p)
        cases.append(cb.case(f"make_tuple({sw}(Int<{x0}>{{}}), {sw}(Int<{x1}>{{}}), {sw}({cb.int(D(x2))}))"))
    return cases


@pytest.fixture(scope="module")
def swizzle_answers(cute):
    return run_cases(_swizzle_cases())


@pytest.mark.cute
def test_swizzle_invariants_values_and_flags_match_compiled_cute(swizzle_answers) -> None:
    bad = []
    rejected = 0
    for k, p in enumerate(PARAMS):
        r, sw = swizzle_answers[k], SWIZZLES[p]
        if isinstance(sw, CuteRejection):
            rejected += 1
            if r.rejected is None or r.rejected not in str(sw):
                bad.append(f"Sw<{p}>: CuTe {r.rejected or r.result!r}, ours {sw}")
            continue
        out = apply("composition", sw, Layout(S(_domain(*p))))
        if compare(out, r):
            bad.append(f"Sw<{p}> o N:_1: {compare(out, r)}")
        if list(r.values or ()) != [int(sw(D(i))) for i in range(_domain(*p))]:
            bad.append(f"Sw<{p}>: values differ")
    for k, p in enumerate(VALID):
        sw, r = SWIZZLES[p], swizzle_answers[len(PARAMS) + k]
        x0, x1, x2 = _probes(p)
        ours = f"({sw(S(x0))},{sw(S(x1))},{sw(D(x2))})"  # type: ignore[operator]
        if ours != r.result:
            bad.append(f"Sw<{p}> at _{x0}, _{x1}, {x2}: ours {ours}, CuTe {r.result}")
    assert not bad, "\n".join(bad[:20])
    assert rejected > 50 and len(VALID) > 80  # both kinds are exercised


def test_swizzle_of_a_symbol_is_exact() -> None:
    x = symbol("x")
    for p in VALID[::7]:
        sw = SWIZZLES[p]
        expr = sw(x)  # type: ignore[operator]
        assert not expr.static
        for v in range(-70, 300, 3):
            assert expr.evaluate({"x": v}) == int(sw(D(v))), (p, v)  # type: ignore[operator]


# -- masks that reach bit 31 (issue 29, class 2) --------------------------------------------------------------------
# CuTe's masks are int constants (swizzle.hpp:66-68): with bit 31 the mask is negative, shiftr is arithmetic and the
# mask sign-extends against an int64_t offset.  Each swizzle below is applied by compiled CuTe (UBSan, trapping) to
# int and int64_t offsets, and by the model concretely and symbolically (a 32-bit and a 64-bit symbol).

BIT31 = [(1, 30, 1), (2, 28, 2), (3, 26, 3), (1, 29, 2), (2, 25, 5), (1, 0, -31), (2, 27, -3), (3, 24, -5),
         (3, 3, 3), (2, 4, -3)]
PAST_BIT31 = [(2, 29, 2), (1, 31, 1), (1, 0, -32), (31, 0, 31), (2, 0, -31), (3, 27, 3), (1, 32, 0)]


def _bit31_values() -> tuple[list[int], list[int]]:
    rng = random.Random(31)
    v32 = [0, 1, -1, 2, -2, -(1 << 30), 1 << 30, (1 << 31) - 1, -(1 << 31), 0x5555_5555, -0x5555_5556]
    v32 += [rng.randint(-(1 << 31), (1 << 31) - 1) for _ in range(24)]
    v64 = v32 + [5368709120, 1 << 32, (1 << 32) - 1, (1 << 63) - 1, -(1 << 63), -(1 << 40) - 7]
    v64 += [rng.randint(-(1 << 63), (1 << 63) - 1) for _ in range(24)]
    return v32, v64


@pytest.fixture(scope="module")
def bit31_answers(cute):
    from verifier.oracle.adversarial.swizzle import Program

    v32, v64 = _bit31_values()
    prog = Program()
    for b, m, s in BIT31 + PAST_BIT31:
        sw = f"Swizzle<{b},{m},{s}>{{}}"
        prog.add(f"for (int k = 0; k < {len(v32)}; ++k) put({sw}(int(p[k]))); "
                 f"for (int k = {len(v32)}; k < {len(v32) + len(v64)}; ++k) put({sw}(int64_t(p[k])));", v32 + v64)
    return prog.run()


@pytest.mark.cute
def test_masks_reaching_bit_31_match_compiled_cute(bit31_answers) -> None:
    from verifier.core.integers import substitute
    from verifier.core.overflow import under
    from verifier.core.symbols import Symbols

    v32, v64 = _bit31_values()
    table = Symbols()
    table.declare("x", lo=-(1 << 31), hi=(1 << 31) - 1)
    table.declare("y", bits=64, lo=-(1 << 63), hi=(1 << 63) - 1)
    bad = []
    for (b, m, s), a in zip(BIT31, bit31_answers, strict=False):
        assert not a.ub and a.rejected is None and a.values is not None, (b, m, s, a)
        sw = Swizzle(b, m, s)
        with under(table):
            on_int, on_int64 = sw(symbol("x")), sw(symbol("y"))
        for v, want in zip(v32, a.values[:len(v32)], strict=True):
            got = (int(sw(D(v))), int(substitute(on_int, {"x": v})), sw.apply_value(v, 32))
            if any(g != want for g in got):
                bad.append(f"{sw} at int {v}: CuTe {want}, ours {got}")
        for v, want in zip(v64, a.values[len(v32):], strict=True):
            got = (sw.apply_value(v, 64), int(substitute(on_int64, {"y": v})))
            if any(g != want for g in got):
                bad.append(f"{sw} at int64_t {v}: CuTe {want}, ours {got}")
    assert not bad, "\n".join(bad[:20])
    assert any(Swizzle(*p).yyy_msk < 0 for p in BIT31) and any(Swizzle(*p).zzz_msk < 0 for p in BIT31)


@pytest.mark.cute
def test_masks_past_bit_31_do_not_compile(bit31_answers) -> None:
    """``bit_msk << k`` must be an int constant expression (C++17: into bit 31 is allowed, past it is not)."""
    for p, a in zip(PAST_BIT31, bit31_answers[len(BIT31):], strict=True):
        assert a.rejected is not None, (p, a)
        with pytest.raises(CuteRejection):
            Swizzle(*p)


@pytest.mark.cute
def test_sign_reaching_swizzle_is_not_injective_as_in_cute(cute) -> None:
    """``Sw<1,30,1> o _0 o _2:-1073741824``: CuTe maps both coordinates to 0 (0xC0000000 & 0x80000000 shifted
    arithmetically is 0xC0000000), so it is not injective, though its inner layout is."""
    from verifier.core.symbols import Symbols
    from verifier.engine.checks import check
    from verifier.oracle.adversarial.swizzle import Program, _values_body

    c = parse("Sw<1,30,1> o _0 o _2:-1073741824")
    prog = Program()
    prog.add(*_values_body(c, {}, [0, 1], frozenset()))
    (a,) = prog.run()
    assert a.values == [0, 0] == c.values()
    v = check("injective", [c], Symbols())
    assert v.verdict == "refuted" and v.counterexample.coordinate == (0, 1)


@pytest.mark.cute
@pytest.mark.parametrize("prop", ["in_bounds", "bijective"])
def test_sign_extended_mask_against_a_64_bit_offset_leaves_the_extent_as_in_cute(cute, prop) -> None:
    """``Sw<1,30,1> o _0 o M:_1`` with a 64-bit ``M``: the int mask sign-extends over bits 32..63, so
    ``L(5368709120) = 7516192768 >= M`` in CuTe.  in_bounds and bijective are refuted within the default budget (the
    bit-vector route widens past 64 bits to stay exact, bv_encoding.decide), and the counterexample's value is
    compiled CuTe's, outside the extent."""
    from verifier.core.symbols import Symbols
    from verifier.engine.checks import check
    from verifier.oracle.adversarial.swizzle import Program, _values_body

    symbols = Symbols()
    symbols.declare("M", bits=64)
    c = parse("Sw<1,30,1> o _0 o M:_1", symbols)
    v = check(prop, [c, symbol("M")] if prop == "in_bounds" else [c], symbols)
    assert v.verdict == "refuted", v.reason
    assert [d.status for d in v.obligations if d.id == "IN-BOUNDS"] == ["refuted"]
    env, x = dict(v.counterexample.params), int(v.counterexample.coordinate)
    assert env["M"] > (1 << 31) - 1  # the refutation needs a 64-bit M
    prog = Program()
    prog.add(*_values_body(c, env, [x], frozenset({"M"})))
    prog.add(*_values_body(c, {"M": 5368709121}, [5368709120], frozenset({"M"})))
    got, issue = prog.run()
    assert got.values == [int(c(D(x)).evaluate(env))] == [v.counterexample.actual]
    assert not 0 <= got.values[0] < env["M"]  # CuTe leaves the extent at the counterexample
    assert issue.values == [7516192768]  # and at the issue's value
    assert int(c(D(5368709120)).evaluate({"M": 5368709121})) == 7516192768


# -- random differential of the composed-layout algebra --------------------------------------------------------

N_RANDOM = 300


def _leaf(v: int, static: bool) -> Int:
    return S(v) if static else D(v)


def _layout(rng: random.Random, static: float, max_rank: int = 3) -> Layout:
    rank = rng.randint(1, max_rank)
    shapes = [rng.choice([2, 2, 4, 4, 8]) for _ in range(rank)]
    kind = rng.random()
    if kind < 0.55:  # compact, modes in a random order: injective, power-of-2 strides
        order = list(range(rank))
        rng.shuffle(order)
        strides = [0] * rank
        acc = 1
        for i in order:
            strides[i] = acc
            acc *= shapes[i]
    elif kind < 0.8:
        strides = [rng.choice([1, 2, 4, 8, 16, 32]) for _ in range(rank)]
    else:  # non-power-of-2 strides: a swizzle is not XOR-linear through them
        strides = [rng.randint(1, 12) for _ in range(rank)]
    shp = tuple(_leaf(v, rng.random() < static) for v in shapes)
    std = tuple(_leaf(v, rng.random() < static) for v in strides)
    if rank == 1 and rng.random() < 0.5:
        return Layout(shp[0], std[0])
    return Layout(shp, std)


def _swz(rng: random.Random) -> Swizzle:
    if rng.random() < 0.08:
        return Swizzle(0, rng.randint(0, 3), rng.randint(-3, 3))
    b = rng.randint(1, 3)
    return Swizzle(b, rng.randint(0, 3), rng.choice([-1, 1]) * rng.randint(b, 4))


def _offset(rng: random.Random) -> Int:
    r = rng.random()
    if r < 0.7:
        return S(0)
    if r < 0.85:
        return S(rng.randint(1, 5))
    return D(rng.choice([0, 3]))


def _composed(rng: random.Random, static: float) -> ComposedLayout:
    outer: Swizzle | Layout = _swz(rng) if rng.random() < 0.85 else _layout(rng, 1.0, 2)
    return ComposedLayout(outer, _offset(rng), _layout(rng, static))


def _random_case(rng: random.Random) -> tuple[str, tuple]:
    static = rng.choice([1.0, 1.0, 0.5, 0.0])
    kind = rng.choice(["sw_l", "l_sw", "l_sw", "sw_sw", "l_c", "c_l", "c_int", "ri", "li"])
    if kind == "sw_l":
        return "composition", (_swz(rng), _layout(rng, static))
    if kind == "l_sw":
        return "composition", (_layout(rng, 1.0 if rng.random() < 0.85 else 0.5), _swz(rng))
    if kind == "sw_sw":
        a = _swz(rng)
        b = Swizzle(rng.randint(0, min(2, abs(a.shift))), rng.randint(0, 3), a.shift) if rng.random() < 0.6 \
            else _swz(rng)
        return "composition", (a, b)
    if kind == "l_c":
        return "composition", (_layout(rng, static), _composed(rng, static))
    if kind == "c_l":
        return "composition", (_composed(rng, static), _layout(rng, static, 2))
    if kind == "c_int":
        return "composition", (_composed(rng, static), _leaf(rng.choice([2, 4, 8]), rng.random() < 0.5))
    return ("right_inverse" if kind == "ri" else "left_inverse"), (_composed(rng, static),)


RANDOM = [_random_case(random.Random(7000 + k)) for k in range(N_RANDOM)]


@pytest.fixture(scope="module")
def random_answers(cute):
    cases = [call_case(op, *args) for op, args in RANDOM]
    return run_cases(cases, [Query(k) for k in range(len(cases))])


@pytest.mark.cute
def test_random_swizzle_algebra_matches_compiled_cute(random_answers) -> None:
    bad = []
    kinds: dict[str, int] = {"ok": 0, "rejected": 0}
    for (op, args), r in zip(RANDOM, random_answers, strict=True):
        out = apply(op, *args)
        diff = compare(out, r)
        if diff:
            bad.append(f"{op}({', '.join(map(str, args))}): {diff}")
        kinds["rejected" if r.rejected else "ok"] += 1
        if r.ok and isinstance(out.result, ComposedLayout) and r.size is not None:
            assert r.values is not None and len(r.values) == int(out.result.size())
    assert not bad, "\n".join(bad[:20]) + f"\n({len(bad)} of {len(RANDOM)} differ)"
    assert kinds["ok"] >= 150 and kinds["rejected"] >= 30, kinds


@pytest.mark.cute
def test_xor_linearity_obligation_agrees_with_cute_values(random_answers) -> None:
    """composition(L, Sw) is CuTe's guess ``Sw' o L``; SW-3 holds exactly when CuTe's values are L(Sw(i))."""
    seen = {True: 0, False: 0}
    for (op, args), r in zip(RANDOM, random_answers, strict=True):
        if not (op == "composition" and isinstance(args[0], Layout) and isinstance(args[1], Swizzle)) or not r.ok:
            continue
        a, sw = args
        truth = list(r.values or ()) == [int(a(sw(D(i)))) for i in range(int(a.size()))]
        verdict = {o.id: o.status for o in apply(op, *args).obligations}.get("SW-3", "holds")
        assert verdict == ("holds" if truth else "fails"), f"{a} o {sw}"
        seen[truth] += 1
    assert seen[True] >= 20 and seen[False] >= 5, seen


# -- scaled-basis strides ------------------------------------------------------------------------------------------

BASIS_COMPOSITIONS = [
    ("(_4,_4):(_4,_1)", "(_4,_4):(_1@1,_1@0)"),
    ("(_4,(_2,_3)):(_6,(_3,_1))", "(_2,_4):(_1@1@1,_1@0)"),
    ("(4,(2,3)):(6,(3,1))", "(2,4):(1@1@1,1@0)"),
    ("(_8,_8):(_1,_8)", "(_2,_4):(_2@1,_2@0)"),
    ("(_8,(_4,_2)):(_1,(_8,_32))", "((_2,_2),_4):((_1@1@0,_1@1@1),_2@0)"),
    ("(_6,_4):(_4,_1)", "_4:_1@1"),
    ("(_6,_4):(_4,_1)", "_3:_2@0"),
    ("(_6,8):(8,_1)", "(_2,_3):(_3@1,_2@0)"),
    ("(_4,_4):(_4,_1)", "(_4,_4):(_1@1,_1@2)"),  # mode 2 of a rank-2 layout: rejected
    ("_16:_1", "(_4,_4):(_1@1,_1@0)"),  # a coprofile of rank 2 on a rank-1 layout: rejected
    ("(_4,_4):(_4,_1)", "(_4,_4):(_1@1,_1)"),  # E<1> + _1 in coprofile: rejected
    ("(_4,_4):(_4,_1)", "(_4,_4):(_1@1,_0)"),  # E<1> + _0 is fine
]

BASIS_LAYOUTS = [
    "(_4,_4):(_1@1,_1@0)",
    "(_2,_4):(_1@1@1,_1@0)",
    "(4,(2,3)):(1@0,(2@1,1@1@2))",
    "_4:_1@1",
    "(_3,_2):(_2@0,_0)",
    "(_4,_4):(_1@1,_2)",  # a scaled basis plus a run-time int: no operator+, a compile error
]


def _ints(layout: Layout) -> Layout:
    """The same layout with its run-time leaves made static (a second variant of each case)."""
    def f(x):
        if isinstance(x, ScaledBasis):
            return ScaledBasis(f(x.value), x.modes)
        return S(int(x))

    from verifier.core.int_tuple import transform_leaf

    return Layout(transform_leaf(layout.shape, f), transform_leaf(layout.stride, f))


COMPOSE_ARGS = [(parse_layout(a), parse_layout(b)) for a, b in BASIS_COMPOSITIONS]
COMPOSE_ARGS += [(_ints(a), _ints(b)) for a, b in COMPOSE_ARGS]
EVAL_LAYOUTS = [parse_layout(t) for t in BASIS_LAYOUTS]


@pytest.fixture(scope="module")
def basis_answers(cute):
    cases = [call_case("composition", a, b) for a, b in COMPOSE_ARGS] + [layout_case(x) for x in EVAL_LAYOUTS]
    return run_cases(cases)


@pytest.mark.cute
def test_scaled_basis_composition_matches_compiled_cute(basis_answers) -> None:
    bad = []
    for (a, b), r in zip(COMPOSE_ARGS, basis_answers, strict=False):
        out = apply("composition", a, b)
        diff = compare(out, r)
        if diff:
            bad.append(f"{a} o {b}: {diff}")
        if out.result is not None:
            assert all(o.status == "holds" for o in out.obligations if o.id == "CMP-POST"), f"{a} o {b}"
    assert not bad, "\n".join(bad)
    assert sum(r.rejected is not None for r in basis_answers[:len(COMPOSE_ARGS)]) >= 4


@pytest.mark.cute
def test_scaled_basis_layouts_evaluate_to_cute_arithmetic_tuples(basis_answers) -> None:
    for layout, r in zip(EVAL_LAYOUTS, basis_answers[len(COMPOSE_ARGS):], strict=True):
        if r.rejected is not None:
            with pytest.raises(CuteRejection):
                [layout(i) for i in range(int(layout.size()))]
            continue
        assert (str(layout), str(layout.size()), str(layout.cosize())) == (r.result, r.size, r.cosize)
        assert tuple(str(layout(i)) for i in range(int(layout.size()))) == r.printed_values


def test_scaled_basis_values_are_not_integers() -> None:
    layout = parse_layout("(_4,_4):(_1@1,_1@0)")
    assert str(layout(5)) == "(1,1)" and str(layout(S(5))) == "(_1,_1)" and str(layout(S(0))) == "(_0,_0)"
    with pytest.raises(LayoutError, match="arithmetic tuple"):
        layout.values()
    with pytest.raises(LayoutError, match="scaled-basis strides are modelled only"):
        apply("complement", layout)
    with pytest.raises(LayoutError, match="scaled-basis strides on both sides"):
        apply("composition", layout, parse_layout("_4:_1@1"))
    assert str(apply("composition", layout, parse_layout("_4:_1")).result) == "_4:_1@1"
    assert str(E(1, 0)) == "_1@0@1" and E(1, 0).modes == (1, 0)


# -- parsing and printing ------------------------------------------------------------------------------------------

ROUND_TRIPS = [  # as compiled CuTe prints them
    "Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)",
    "Sw<2,0,3> o _0 o Sw<2,0,3> o _0 o (_8,_8):(_1,_8)",
    "_16:_1 o _-3 o Sw<1,0,2>",
    "Sw<0,3,3> o _0 o (_8,_8):(_8,_1)",
    "Sw<1,2,1> o 5 o (8,4):(4,1)",
    "(_4,_4):(_1@1,_1@0)",
    "(_2,_4):(_1@1@1,_1@0)",
    "(4,(2,3)):(1@0,(2@1,3@2@0))",
    "Sw<3,4,3>",
]


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_printed_forms_round_trip(text: str) -> None:
    assert str(parse(text)) == text


def test_two_part_form_is_cute_composition() -> None:
    c = parse("Sw<2,0,-3> o (_8,_8):(_8,_1)")
    assert isinstance(c, ComposedLayout) and str(c) == "Sw<2,0,-3> o _0 o (_8,_8):(_8,_1)"
    assert parse("Sw<0,3,3> o (_8,_8):(_8,_1)") == parse_layout("(_8,_8):(_8,_1)")  # the identity collapses
    assert compose3(Swizzle(0, 3, 3), D(0), parse_layout("_8:_1")) != parse_layout("_8:_1")  # only for a static _0
    nested = parse("Sw<2,0,3> o _0 o Sw<2,0,3> o _0 o (_8,_8):(_1,_8)")
    assert isinstance(nested, ComposedLayout) and isinstance(nested.inner, ComposedLayout)
    assert nested(9) == Swizzle(2, 0, 3)(Swizzle(2, 0, 3)(parse_layout("(_8,_8):(_1,_8)")(9)))


MALFORMED = [
    ("Sw<1,2>", 7, "expected ',' and the shift S"),
    ("Sw<1,2,3", 9, "expected '>' to close the swizzle"),
    ("Sw<a,2,3> o _8:_1", 4, "expected the bit count B"),
    ("Sw<1,2,3> o", 12, "expected a swizzle, a layout or an offset"),
    ("Sw<1,0,2> o _0", 13, "expected a layout Shape:Stride"),
    ("_8:_1 o _8:_1", 1, "needs a swizzle"),
    ("Sw<1,0,2> o _8:_1 o _8:_1", 13, "expected an integer offset"),
    ("Sw<1,0,2> o (1,2) o _8:_1", 13, "a tuple is neither a layout nor an offset"),
    ("Sw<1,0,2> o _0 o _8:_1 o _0", 26, "expected 'o' and one more part"),
    ("(_4,_4@1):(_1,_1)", 7, "only allowed as a stride"),
    ("_8:_1@", 7, "expected a mode index"),
    ("_8:_1@-1", 7, "expected a mode index"),
    ("_8:_1@1@99", 9, "larger than 64"),
    ("Sw<1,0,999> o _8:_1", 8, "larger than 64"),
]


@pytest.mark.parametrize(("text", "column", "fragment"), MALFORMED)
def test_malformed_notation_is_a_one_line_error_with_a_column(text: str, column: int, fragment: str) -> None:
    with pytest.raises(LayoutSyntaxError) as info:
        parse(text)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"column {column}:") and fragment in msg, msg


@pytest.mark.parametrize(("text", "message"), [("Sw<3,0,2> o _8:_1", "abs(SShift) must be more than BBits."),
                                               ("Sw<1,-1,2>", "MBase must be positive."),
                                               ("Sw<-1,0,2>", "BBits must be positive.")])
def test_invalid_swizzles_are_cute_rejections(text: str, message: str) -> None:
    with pytest.raises(CuteRejection) as info:
        parse(text)
    assert message in str(info.value) and "swizzle.hpp:6" in str(info.value) and "\n" not in str(info.value)


def test_unsupported_operands_are_one_line_errors() -> None:
    c = parse("Sw<1,0,2> o _0 o (_4,_4):(_1,_4)")
    with pytest.raises(LayoutError, match="modelled only for composition"):
        apply("complement", c)
    with pytest.raises(LayoutError, match="tiler with swizzled elements"):
        apply("composition", parse_layout("(_4,_4):(_1,_4)"), Tile([c]))
    with pytest.raises(CuteRejection, match="has no domain"):
        parse("_16:_1 o _-3 o Sw<1,0,2>").size()  # type: ignore[union-attr]
