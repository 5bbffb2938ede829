"""Properties of scaled-basis (coordinate-valued) and swizzled layouts, decided symbolically, against brute force
over the values compiled CuTe 4.2 prints.

* ``injective`` / ``bijective`` / ``in_bounds`` / ``equivalent`` of concrete scaled-basis and swizzled layouts agree
  with counting over CuTe's own values (the layouts are built and evaluated by compiled CuTe);
* the same properties with symbols are decided (proved, or refuted with a counterexample that replays on CuTe);
* ``cute-verify check injective "(M,K):(_1@0,_1@1)"`` is decided, without a traceback;
* the two scaled-basis compositions of PyCuTe's tests compile in CuTe 4.2 with the results the algebra gives.
"""

from __future__ import annotations

import itertools
import random

import pytest

from verifier.cli.app import main
from verifier.core.swizzle import ComposedLayout, Swizzle
from verifier.core.symbols import Symbols
from verifier.engine.checks import check
from verifier.engine.verdicts import PROVED, REFUTED, VALID
from verifier.engine.verify import verify
from verifier.notation.cpp import parse, parse_layout
from verifier.oracle.cute_cpp import call_case, layout_case, run_cases


def _basis_layouts(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        r = rng.randint(1, 3)
        shapes = [rng.choice([1, 2, 3, 4]) for _ in range(r)]
        strides = []
        for _ in range(r):
            mode = rng.choice(["@0", "@1", "@1@0", "@0@1"][: rng.randint(2, 4)])
            strides.append(f"_{rng.choice([0, 1, 1, 2, 3])}{mode}")
        out.append(f"({','.join(f'_{s}' for s in shapes)}):({','.join(strides)})")
    return out


def _swizzled_layouts(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        b, m = rng.randint(1, 3), rng.randint(0, 3)
        s = rng.randint(b, 4)
        rows, cols = rng.choice([2, 4, 8]), rng.choice([4, 8, 16, 32])
        major = rng.choice([f"({rows},{cols}):({cols},_1)", f"(_{rows},_{cols}):(_1,_{rows})",
                            f"(_{rows},_{cols}):(_{cols * 2},_1)", f"(_{rows},_{cols}):(_{cols},_2)"])
        out.append(f"Sw<{b},{m},{s}> o _0 o {major}")
    return out


RNG = random.Random(19)
BASIS = _basis_layouts(RNG, 40) + ["(_4,_4):(_1@0,_1@1)", "(_2,_3):(_1@1,_1@0)", "(_4,_2):(_1@0,_2@0)"]
SWIZZLED = _swizzled_layouts(RNG, 40) + ["Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", "Sw<2,4,3> o _0 o (_8,_32):(_32,_1)"]


@pytest.fixture(scope="module")
def cute_values(cute) -> dict[str, tuple[str, ...]]:
    objs = [parse(t) for t in BASIS + SWIZZLED]
    cases = []
    for o in objs:
        if isinstance(o, ComposedLayout):
            cases.append(call_case("composition", o.outer, o.inner))
        else:
            cases.append(layout_case(o))
    res = run_cases(cases)
    out = {}
    for text, r in zip(BASIS + SWIZZLED, res, strict=True):
        if r.ok:
            assert r.printed_values is not None
            out[text] = r.printed_values
    return out


def _verdict(prop: str, *texts: str) -> str:
    symbols = Symbols()
    args = [parse(t, symbols) for t in texts]
    return check(prop, args, symbols).verdict


def _components(text: str) -> dict[tuple[int, ...], int]:
    """A value as CuTe prints it (``3``, ``_3``, ``3@1@0``, ``(_0,(1,2))``) as its non-zero components by path."""
    out: dict[tuple[int, ...], int] = {}

    def walk(t: str, path: tuple[int, ...]) -> None:
        t = t.strip()
        if t.startswith("("):
            depth, start, k = 0, 1, 0
            for pos, ch in enumerate(t):
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                if (ch == "," and depth == 1) or (ch == ")" and depth == 0):
                    walk(t[start:pos], (*path, k))
                    start, k = pos + 1, k + 1
            return
        value, *modes = t.split("@")
        where = path + tuple(int(m) for m in reversed(modes))
        while where and where[-1] == 0:  # get<0> of an integer is the integer
            where = where[:-1]
        if int(value.lstrip("_")):
            out[where] = out.get(where, 0) + int(value.lstrip("_"))

    walk(text, ())
    return out


def _codomain_box(values: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    """CuTe's printed values as integer tuples over every path any of them uses."""
    comps = [_components(v) for v in values]
    paths = sorted({p for c in comps for p in c})
    return tuple(tuple(c.get(p, 0) for p in paths) for c in comps)


@pytest.mark.cute
def test_injective_agrees_with_cute_values(cute_values) -> None:
    assert len(cute_values) >= 60
    bad = []
    for text, values in cute_values.items():
        pts = _codomain_box(values)
        truth = len(set(pts)) == len(pts)
        got = _verdict("injective", text)
        if got != (PROVED if truth else REFUTED):
            bad.append(f"injective {text}: {got}, CuTe's values say {truth}")
    assert not bad, "\n".join(bad)


@pytest.mark.cute
def test_bijective_and_in_bounds_agree_with_cute_values(cute_values) -> None:
    bad = []
    for text in SWIZZLED:
        if text not in cute_values:
            continue
        values = [int(v) for v in cute_values[text]]
        n = len(values)
        truth = sorted(values) == list(range(n))
        got = _verdict("bijective", text)
        if got != (PROVED if truth else REFUTED):
            bad.append(f"bijective {text}: {got}, CuTe says {truth}")
        extent = max(values) + 1 - RNG.randint(0, 1)
        truth = all(0 <= v < extent for v in values)
        got = _verdict("in_bounds", text, str(extent))
        if got != (PROVED if truth else REFUTED):
            bad.append(f"in_bounds {text} {extent}: {got}, CuTe says {truth}")
    for text in BASIS:
        if text not in cute_values:
            continue
        pts = _codomain_box(cute_values[text])
        box = tuple(max(p[k] for p in pts) + 1 for k in range(len(pts[0])))
        inside = all(x >= 0 for p in pts for x in p)
        truth = inside and len(set(pts)) == len(pts) == len(list(itertools.product(*(range(b) for b in box))))
        got = _verdict("bijective", text)
        if got != (PROVED if truth else REFUTED):
            bad.append(f"bijective {text}: {got}, CuTe's values say {truth}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(("prop", "texts", "assume", "want"), [
    ("injective", ["(M,K):(_1@0,_1@1)"], [], PROVED),
    ("bijective", ["(M,K):(_1@0,_1@1)"], [], PROVED),
    ("in_bounds", ["(M,K):(_1@0,_1@1)", "(M,K)"], [], PROVED),
    ("in_bounds", ["(M,(_2,K)):(_1@0,(M@0,_1@1))", "(M,K)"], [], REFUTED),
    ("injective", ["(M,K):(_1@0,_1@0)"], [], REFUTED),
    ("equivalent", ["(M,K):(_1@0,_1@1)", "(M,K):(_1@1,_1@0)"], [], REFUTED),
    ("equivalent", ["(M,K):(_1@0,_1@1)", "(M,K):(_1@0,M@0)"], ["K == 1"], PROVED),
    ("injective", ["Sw<3,3,3> o _0 o (_8,M):(M,_1)"], [], PROVED),
    ("bijective", ["Sw<3,3,3> o _0 o (_8,M):(M,_1)"], ["M % 64 == 0"], PROVED),
    ("bijective", ["Sw<3,3,3> o _0 o (_8,M):(M,_1)"], [], REFUTED),
    ("in_bounds", ["Sw<3,4,3> o _0 o (_8,_64,S):(_64,_1,_512)", "512*S"], [], PROVED),
    ("bijective", ["Sw<3,4,3> o _0 o (_8,_64,S):(_64,_1,_512)"], [], PROVED),
    ("equivalent", ["Sw<3,3,3> o _0 o (_8,M):(M,_1)", "Sw<3,3,3> o _0 o (_8,M):(M,_1)"], [], PROVED),
    ("equivalent", ["Sw<3,3,3> o _0 o (_8,M):(M,_1)", "(_8,M):(M,_1)"], ["M % 64 == 0"], REFUTED),
])
def test_symbolic_properties(prop: str, texts: list[str], assume: list[str], want: str) -> None:
    from verifier.run.problems import assume as add

    symbols = Symbols()
    args = [parse(t, symbols) for t in texts]
    add(symbols, assume)
    v = check(prop, args, symbols)
    assert v.verdict == want, v
    if want == REFUTED:
        assert v.counterexample is not None


@pytest.mark.cute
def test_symbolic_refutations_replay_on_cute(cute) -> None:
    """A refuted swizzled bijectivity: the counterexample's M, built and evaluated by compiled CuTe, is not a
    bijection onto [0, 8*M)."""
    symbols = Symbols()
    layout = parse("Sw<3,3,3> o _0 o (_8,M):(M,_1)", symbols)
    v = check("bijective", [layout], symbols)
    assert v.verdict == REFUTED and v.counterexample is not None
    m = v.counterexample.params["M"]
    concrete = layout.substitute({"M": m})
    assert isinstance(concrete, ComposedLayout) and isinstance(concrete.outer, Swizzle)
    (r,) = run_cases([call_case("composition", concrete.outer, concrete.inner)])
    assert r.values is not None and sorted(r.values) != list(range(8 * m))


def test_cli_injective_of_an_identity_layout_is_decided(capsys) -> None:
    assert main(["check", "injective", "(M,K):(_1@0,_1@1)"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("proved") and "Traceback" not in out.err


@pytest.mark.cute
def test_pycute_scaled_basis_compositions_compile_in_cute(cute) -> None:
    """The issue says CuTe rejects these two; compiled CuTe 4.2 builds them, with the results the algebra gives and
    CuTe's own postcondition holding (B's values are coordinates of A; A evaluates them past mode 0's extent)."""
    pairs = [("(_4,_5):(_5,_1)", "_30:_1@0"), ("(_4,(_4,_3),_1):(_3,(_12,_1),_0)", "_12:_1@0@1")]
    res = run_cases([call_case("composition", parse_layout(a), parse_layout(b)) for a, b in pairs])
    for (a, b), r in zip(pairs, res, strict=True):
        assert r.ok and r.rejected is None
        v = verify("composition", [parse_layout(a), parse_layout(b)], Symbols())
        assert v.verdict == VALID and v.result == r.result


def test_symbolic_swizzle_is_the_swizzle() -> None:
    """The symbolic form of Sw<B,M,S>(x) (an if-then-else per bit) evaluates to CuTe's XOR at every x, negative
    ones included (two's complement)."""
    from verifier.core.integers import S, symbol

    x = symbol("x")
    rng = random.Random(7)
    for b, m, s in [(3, 2, 5), (3, 3, 3), (2, 4, -3), (1, 0, 1), (3, 4, 3), (2, 1, 4), (0, 4, 3)]:
        sw = Swizzle(b, m, s)
        e = sw(x)
        for v in [*range(0, 2048), *(rng.randint(-(1 << 20), 1 << 20) for _ in range(200))]:
            assert e.evaluate({"x": v}) == int(sw(S(v))), (sw, v)
