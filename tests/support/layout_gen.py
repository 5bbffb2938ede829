"""Seeded random CuTe layouts for differential tests: mixed static/dynamic leaves, nesting, zero and negative
strides, and symbolic leaves (symbols and expressions over them) with the values to substitute.

Seeded ``random`` rather than ``verifier.strategies`` on purpose: the same seed gives the same layouts, so the
compiled-CuTe translation units built from them stay cached (cute_cpp.py keys binaries by source hash).  The
symbolic leaf forms are the strategies' ``SYMBOLIC_FORMS``."""

from __future__ import annotations

import random

from verifier import Layout
from verifier.core.integers import D, Int, S, symbol
from verifier.strategies import SYMBOLIC_FORMS

SYMBOLS = ("M", "N", "K")


def _leaf(rng: random.Random, lo: int, hi: int, p_static: float) -> Int:
    v = rng.randint(lo, hi)
    return S(v) if rng.random() < p_static else D(v)


def _symbolic_leaf(rng: random.Random, env: dict[str, int], value_range: tuple[int, int]) -> Int:
    name = rng.choice(SYMBOLS)
    env.setdefault(name, rng.randint(*value_range))
    return SYMBOLIC_FORMS[rng.randrange(len(SYMBOLIC_FORMS))](symbol(name))


def random_tuple(rng: random.Random, depth: int, make_leaf) -> object:
    if depth == 0 or rng.random() < 0.45:
        return make_leaf()
    return tuple(random_tuple(rng, depth - 1, make_leaf) for _ in range(rng.randint(1, 3)))


def random_layout(rng: random.Random, *, max_rank: int = 4, max_depth: int = 3, p_static: float = 0.5,
                  p_symbol: float = 0.0, max_size: int = 1024) -> tuple[Layout, dict[str, int]]:
    """A random layout and the symbol values to evaluate it with (empty when it has no symbols)."""
    while True:
        env: dict[str, int] = {}

        def shape_leaf(env: dict[str, int] = env) -> Int:
            if rng.random() < p_symbol:
                return _symbolic_leaf(rng, env, (1, 4))
            return _leaf(rng, 1, 6, p_static)

        if rng.random() < 0.15:
            shape: object = shape_leaf()
        else:
            shape = tuple(random_tuple(rng, max_depth - 1, shape_leaf) for _ in range(rng.randint(1, max_rank)))

        def stride_like(t: object, env: dict[str, int] = env) -> object:
            if isinstance(t, tuple):
                return tuple(stride_like(x) for x in t)
            if rng.random() < p_symbol:
                return _symbolic_leaf(rng, env, (1, 4))
            r = rng.random()
            if r < 0.12:
                return S(0) if rng.random() < 0.5 else D(0)
            return _leaf(rng, -8 if r < 0.25 else 1, 24, p_static)

        layout = Layout(shape, stride_like(shape))
        concrete = layout.substitute(env)
        if int(concrete.size()) <= max_size:
            return layout, env
