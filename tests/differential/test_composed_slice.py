"""``slice_and_offset`` of composed layouts (verifier/composed_slice.py) against compiled CuTe 4.2: the sliced
layout as printed (the swizzle kept, or decayed into a plain layout with static or run-time strides), the pointer
offset as printed, and the values, on generated swizzled layouts with static, run-time and nested coordinates; and
symbolic slices, decided by the engine and replayed on compiled CuTe at concrete values."""

from __future__ import annotations

import random

import pytest

from verifier.algebra.registry import apply
from verifier.core.integers import D, S
from verifier.core.layouts import Layout, Underscore
from verifier.core.swizzle import ComposedLayout, SmemPtrFlag, Swizzle
from verifier.notation.cpp import parse
from verifier.oracle.cute_cpp import CppBuilder, CppCase, run_cases

_ = Underscore()


def _int(rng: random.Random, v: int) -> object:
    return S(v) if rng.random() < 0.7 else D(v)


def _swizzle(rng: random.Random) -> Swizzle:
    b = rng.choice([1, 2, 2, 3, 3, 3])
    s = rng.choice([b, b + 1, 3 if b <= 3 else b, -max(b, 3)])
    return Swizzle(b, rng.randint(0, 4), s)


def _inner(rng: random.Random) -> Layout:
    rows, cols = rng.choice([4, 8, 16]), rng.choice([8, 16, 32, 64])
    if rng.random() < 0.5:
        shape, stride = [rows, cols], [cols, 1]
    else:
        shape, stride = [rows, cols], [1, rows]
    if rng.random() < 0.3:
        shape, stride = [*shape, 2], [*stride, rows * cols]
    p_dyn = 0.15
    return Layout(tuple(S(x) if rng.random() > p_dyn else D(x) for x in shape),
                  tuple(S(d) if d == 1 or rng.random() > p_dyn else D(d) for d in stride))


def _coord(rng: random.Random, layout: Layout) -> tuple:
    while True:
        c = tuple(_ if rng.random() < 0.5 else _int(rng, rng.randrange(int(s))) for s in layout.shape)
        if any(isinstance(x, Underscore) for x in c):
            return c


def _offset(rng: random.Random):
    k = rng.random()
    return S(0) if k < 0.6 else SmemPtrFlag(16) if k < 0.75 else S(rng.choice([8, 16, 64])) if k < 0.9 else D(32)


def _cases(rng: random.Random, n: int) -> list[tuple[tuple, ComposedLayout]]:
    out = []
    while len(out) < n:
        inner = _inner(rng)
        out.append((_coord(rng, inner), ComposedLayout(_swizzle(rng), _offset(rng), inner)))
    return out


FIXED = [("(_,2)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"), ("(2,_)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"),
         ("(_,_)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"), ("(_,_9)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"),
         ("(_3,_)", "Sw<2,0,3> o _0 o (_8,_8):(_8,_1)"),
         ("(_,(_1,_))", "Sw<3,3,3> o _0 o (_8,(_8,_8)):(_64,(_1,_8))"),
         ("(_,_3)", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"),
         ("(_,_,_1)", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64,_2):(_64,_1,_512)"),
         ("(_,_)", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"),
         ("(_,_,1)", "Sw<3,3,3> o _16 o (_8,_64,_2):(_64,_1,_512)"),
         ("(_,2)", "Sw<3,3,3> o _0 o (_8,4):(4,_1)"),  # a run-time diced mode: CuTe does not compile it
         ("(_,_5)", "Sw<1,2,3> o _0 o (_8,_32):(_32,_1)"), ("(_,_5)", "Sw<0,4,3> o _0 o (_8,_32):(_32,_1)"),
         ("(_1,_)", "Sw<2,1,-3> o _0 o (_8,_32):(_32,_1)")]


def _parse(text: str):
    return parse(text)


CASES = [(_parse(c), _parse(layout)) for c, layout in FIXED] + _cases(random.Random(4242), 180)


def _case(coord, layout) -> CppCase:
    b = CppBuilder()
    return b.case(b.call("slice_and_offset", b.coord(coord), b.operand(layout)))


@pytest.fixture(scope="module")
def answers(cute):
    return run_cases([_case(c, layout) for c, layout in CASES])


def _diff(coord, layout, r) -> str | None:
    out = apply("slice_and_offset", coord, layout)
    if r.rejected is not None:
        return None if out.rejection is not None else f"CuTe rejects ({r.rejected}); we computed {out.result}"
    if out.rejection is not None or out.undefined:
        return f"CuTe computed {r.offset} o {r.result}; we said {out.rejection or out.undefined}"
    view = out.result
    if (str(view.layout), str(view.offset)) != (r.result, r.offset):
        return f"{view.offset} o {view.layout} vs CuTe {r.offset} o {r.result}"
    if r.values is not None and tuple(view.layout.values()) != r.values:
        return f"values {view.layout.values()[:8]} vs CuTe {r.values[:8]}"
    return None


@pytest.mark.cute
def test_slices_match_compiled_cute(answers) -> None:
    bad = [f"slice_and_offset({c}, {layout}): {d}" for (c, layout), r in zip(CASES, answers, strict=True)
           if (d := _diff(c, layout, r)) is not None]
    assert not bad, f"{len(bad)} of {len(CASES)} differ:\n" + "\n".join(bad[:20])


def _layout_case(layout) -> CppCase:
    b = CppBuilder()
    return b.case(b.operand(layout))


def _full_index(coord: tuple, shape: tuple, i: int) -> int:
    """The 1-D (column-major) index of ``coord`` with the ``_`` modes at the slice's 1-D index ``i``."""
    free = [int(s) for c, s in zip(coord, shape) if isinstance(c, Underscore)]
    sub = []
    for s in free:
        sub.append(i % s)
        i //= s
    idx, mult, it = 0, 1, iter(sub)
    for c, s in zip(coord, shape):
        idx += (next(it) if isinstance(c, Underscore) else int(c)) * mult
        mult *= int(s)
    return idx


def _post_fails(coord, layout) -> bool:
    out = apply("slice_and_offset", coord, layout)
    return any(o.id == "SLICE-POST" and o.condition.value is False for o in out.obligations)


@pytest.mark.cute
def test_slice_postcondition_refutations_replay_on_compiled_cute(answers) -> None:
    """Where SLICE-POST fails, compiled CuTe's own slice addresses other elements than its own unsliced tensor:
    a nonzero offset whose addition to the sliced-off part carries (CuTe combines them with XOR), or a run-time
    extent that hides the Y/Z collision that would have kept the swizzle (swizzle_layout.hpp:258-268)."""
    failing = [(k, c, layout) for k, (c, layout) in enumerate(CASES)
               if answers[k].ok and not any(type(x) is tuple for x in c) and _post_fails(c, layout)]
    holding = [(k, c, layout) for k, (c, layout) in enumerate(CASES)
               if answers[k].ok and not any(type(x) is tuple for x in c) and not _post_fails(c, layout)]
    assert len(failing) >= 10 and len(holding) >= 100
    whole = run_cases([_layout_case(layout) for _, _, layout in failing + holding])
    for (k, c, layout), w in zip(failing + holding, whole, strict=True):
        sliced, off = answers[k].values, int(answers[k].offset.lstrip("_"))
        agree = all(sliced[i] + off == w.values[_full_index(c, layout.shape, i)] for i in range(len(sliced)))
        assert agree == ((k, c, layout) in holding), (str(c), str(layout), answers[k].result)


SYMBOLIC = [
    ("(_,k)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", ["k >= 0", "k < 64"], "valid"),
    ("(r,_)", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", ["r >= 0", "r < 8"], "valid"),
    ("(_,_,s)", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64,_4):(_64,_1,_512)", ["s >= 0", "s < 4"], "valid"),
    ("(_,_,s)", "Sw<3,3,3> o _16 o (_8,_64,_4):(_64,_1,_512)", ["s >= 0", "s < 4"], "valid"),
    ("(r,_)", "Sw<3,3,3> o _8 o (_8,_64):(_64,_1)", ["r >= 0", "r < 8"], "invalid"),  # a carry from the offset
]


def _verify(coord: str, layout: str, assume: list[str]):
    from verifier.core.symbols import Symbols
    from verifier.engine.verify import verify
    from verifier.run.problems import assume as add

    symbols = Symbols()
    args = [parse(coord, symbols), parse(layout, symbols)]
    add(symbols, assume)
    return args, verify("slice_and_offset", args, symbols)


@pytest.mark.parametrize(("coord", "layout", "assume", "want"), SYMBOLIC)
def test_symbolic_slices(coord: str, layout: str, assume: list[str], want: str) -> None:
    _, v = _verify(coord, layout, assume)
    assert v.verdict == want, (v.verdict, v.reason)
    post = next(d for d in v.obligations if d.id == "SLICE-POST")
    assert post.status == ("proved" if want == "valid" else "refuted")


@pytest.mark.cute
def test_symbolic_refutation_replays_on_compiled_cute(cute) -> None:
    """The counterexample of the refuted symbolic slice, on compiled CuTe: its slice and its whole tensor disagree."""
    coord, layout, assume, _ = SYMBOLIC[-1]
    args, v = _verify(coord, layout, assume)
    env = dict(v.counterexample.params)
    c = tuple(x if isinstance(x, Underscore) else D(x.evaluate(env)) for x in args[0])
    sliced, whole = run_cases([_case(c, args[1]), _layout_case(args[1])])
    off = int(sliced.offset.lstrip("_"))
    assert any(sliced.values[i] + off != whole.values[_full_index(c, args[1].shape, i)]
               for i in range(len(sliced.values)))


def _verify_in(coord: str, layout: str, lo: int, hi: int, name: str = "r", **kw):
    from verifier.core.symbols import Symbols
    from verifier.engine.verify import verify

    symbols = Symbols()
    symbols.declare(name, lo=lo, hi=hi)
    args = [parse(coord, symbols), parse(layout, symbols)]
    return args, verify("slice_and_offset", args, symbols, **kw)


def _slice_against_tensor(layout: str, rs: list[int], offsets: list[int] | None = None) -> list[tuple[list, list]]:
    """Compiled CuTe under UBSan: for each ``r`` (and offset ``F``), the slice ``(r,_)`` of the composed layout,
    ``offset + view(i)``, against the tensor's own addressing ``L(make_coord(r, i))``."""
    from verifier.oracle.adversarial.swizzle import Cpp, Program

    prog = Program()
    for k, r in enumerate(rs):
        c = parse(layout if offsets is None else layout.replace("F", str(offsets[k])))
        cpp = Cpp()
        text = cpp.composed(c, {})
        cols = int(c.inner.shape[1])
        prog.add(f"auto L = {text}; int r = {cpp.slot(r)}; auto so = slice_and_offset(make_coord(r, _), L); "
                 f"auto V = get<0>(so); long long o = (long long)(get<1>(so)); "
                 f"for (int i = 0; i < int(size(V)); ++i) put(o + (long long)V(i)); "
                 f"for (int i = 0; i < {cols}; ++i) put(L(make_coord(r, i)));", cpp.params)
    out = []
    for a in prog.run():
        assert a.rejected is None and not a.ub and a.values is not None, a
        half = len(a.values) // 2
        out.append((a.values[:half], a.values[half:]))
    return out


@pytest.mark.cute
def test_no_overflow_is_recorded_for_the_xor_encoding(cute) -> None:
    """Issue 29, class 3: the bit decomposition of the XOR (``F%2147483648+_2147483648``) is the tool's arithmetic,
    never CuTe's; compiled CuTe under UBSan is correct at every tuple, and the tool says valid with no OVF-ARITH."""
    from verifier.core.symbols import Symbols
    from verifier.engine.verify import verify

    symbols = Symbols()
    symbols.declare("r", lo=1, hi=7)
    symbols.declare("F", lo=512, hi=4096, multiple_of=512)
    layout = "Sw<3,3,3> o F o (_8,_64):(_64,_1)"
    args = [parse("(r,_)", symbols), parse(layout, symbols)]
    v = verify("slice_and_offset", args, symbols, derive=False)
    assert v.verdict == "valid", v.reason
    assert not any(d.id.startswith("OVF") for d in v.obligations), [d.id for d in v.obligations]
    tuples = [(r, f) for r in range(1, 8) for f in range(512, 4097, 512)]
    for (r, f), (view, whole) in zip(tuples, _slice_against_tensor(layout, [r for r, _ in tuples],
                                                                    [f for _, f in tuples]), strict=True):
        assert view == whole, (r, f)


@pytest.mark.cute
@pytest.mark.parametrize(("lo", "hi"), [(1, 12), (-3, -1)])
def test_slices_outside_the_extent_are_judged_against_the_tensor(cute, lo: int, hi: int) -> None:
    """Issue 29, class 4: a coordinate past the end (or below 0) of a swizzled layout's mode.  SLICE-IN is reported
    (a warning, with its counterexample), and SLICE-POST compares the slice with the tensor's own addressing:
    CuTe's slice at r=8 addresses element 0 where the tensor addresses 512."""
    layout = "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"
    _, v = _verify_in("(r,_)", layout, lo, hi, derive=False)
    slice_in = next(d for d in v.obligations if d.id == "SLICE-IN")
    assert slice_in.status == "refuted" and slice_in.severity == "warning" and slice_in.counterexample is not None
    rs = list(range(lo, hi + 1))
    cute_agrees = {r: view == whole for r, (view, whole) in zip(rs, _slice_against_tensor(layout, rs), strict=True)}
    assert v.verdict == ("valid" if all(cute_agrees.values()) else "invalid"), (v.verdict, cute_agrees)
    if v.verdict == "invalid":
        assert v.counterexample.obligation == "SLICE-POST"
        assert not cute_agrees[int(v.counterexample.params["r"])]
    else:
        assert v.warnings and "SLICE-IN" in {d.id for d in v.warnings}
    assert not cute_agrees.get(8, False) if hi >= 8 else True


def test_slice_in_is_a_warning_of_every_slice() -> None:
    """A plain layout's slice past the end is defined (crd2idx is linear), but the view leaves the tensor: SLICE-IN
    is a warning (invalid under --strict), with its counterexample."""
    from verifier.engine.verdicts import Policy

    _, v = _verify_in("(r,_)", "(_8,_64):(_64,_1)", 0, 12, derive=False)
    assert v.verdict == "valid" and [d.id for d in v.warnings] == ["SLICE-IN"]
    assert v.warnings[0].counterexample.params["r"] >= 8
    _, strict = _verify_in("(r,_)", "(_8,_64):(_64,_1)", 0, 12, derive=False, policy=Policy(strict=True))
    assert strict.verdict == "invalid" and strict.counterexample.obligation == "SLICE-IN"
    _, inside = _verify_in("(_,c)", "(_8,_64):(_64,_1)", 0, 63, name="c", derive=False)
    assert inside.verdict == "valid" and not inside.warnings


def test_symbolic_extent_is_unknown_with_its_reason() -> None:
    _, v = _verify("(_,_,s)", "Sw<3,3,3> o _0 o (M,_64,_4):(_64,_1,_512)", ["s >= 0", "s < 4", "M >= 1"])
    assert v.verdict == "unknown" and "static size" in v.reason
