"""``slice_and_offset`` of composed layouts (verifier/composed_slice.py) against compiled CuTe 4.2: the sliced
layout as printed (the swizzle kept, or decayed into a plain layout with static or run-time strides), the pointer
offset as printed, and the values, on generated swizzled layouts with static, run-time and nested coordinates; and
symbolic slices, decided by the engine and replayed on compiled CuTe at concrete values."""

from __future__ import annotations

import random

import pytest

from verifier.algebra import apply
from verifier.cute_cpp import CppBuilder, CppCase, run_cases
from verifier.gmma import SmemPtrFlag
from verifier.integers import D, S
from verifier.layouts import Layout, Underscore
from verifier.notation import parse
from verifier.swizzle import ComposedLayout, Swizzle

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


def test_slices_match_compiled_cute(answers) -> None:
    bad = [f"slice_and_offset({c}, {layout}): {d}" for (c, layout), r in zip(CASES, answers, strict=True)
           if (d := _diff(c, layout, r)) is not None]
    assert not bad, f"{len(bad)} of {len(CASES)} differ:\n" + "\n".join(bad[:20])
