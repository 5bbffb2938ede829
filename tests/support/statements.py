"""Random statements of the kind tilings write (sums, products, C++ division and remainder by constants and by
symbols, a tiling's round-up) over symbols of small declared ranges: the inputs the solver's shortcuts are checked
against Z3 on (tests/engine/test_finite.py, test_smallest.py, test_guard_points.py)."""

from __future__ import annotations

import random

from verifier.core.integers import Bool, D, Int, and_, eq, ge, le, lt, mod, ne, not_, or_, symbol
from verifier.core.symbols import Symbols


def table(rng: random.Random, names: tuple[str, ...]) -> Symbols:
    sy = Symbols()
    for n in names:
        lo = rng.choice([0, 1, 1, 2])
        width = rng.choice([3, 8, 15, 16, 40, 64, 300])  # 300: too many values, never decided here
        sy.declare(n, lo=lo, hi=lo + width, multiple_of=rng.choice([1, 1, 1, 2, 4]))
    return sy


def term(rng: random.Random, names: tuple[str, ...], depth: int) -> Int:
    if depth == 0 or rng.random() < 0.25:
        return symbol(rng.choice(names)) if rng.random() < 0.7 else D(rng.randint(0, 40))
    a, b = term(rng, names, depth - 1), term(rng, names, depth - 1)
    c = rng.choice([1, 2, 3, 4, 8, 16, 32, 128])
    op = rng.choice(["+", "-", "*c", "/c", "%c", "/s", "%s", "ceil"])
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*c":
        return a * c
    if op == "/c":
        return a / c
    if op == "%c":
        return mod(a, c)
    if op == "/s":
        return a / symbol(rng.choice(names))  # a divisor that may be zero: undefined there
    if op == "%s":
        return mod(a, symbol(rng.choice(names)))
    return c * ((a + c - 1) / c)  # a tiling's round-up


def statement(rng: random.Random, names: tuple[str, ...]) -> Bool:
    def atom() -> Bool:
        a, b = term(rng, names, 2), term(rng, names, 2)
        return rng.choice([eq, ne, lt, le, ge])(a, b)

    shape = rng.random()
    if shape < 0.6:
        return atom()
    if shape < 0.8:
        return or_(atom(), atom())
    return and_(atom(), not_(atom()))
