"""The algebra's differential corpora, shared by the differential tests and the engine's postcondition tests:
``CUTLASS_CASES``, CUTLASS's own unit-test cases (``oracle/data/cutlass_unit_cases.json``) in their original
static/dynamic mix and all-dynamic and all-static variants, and ``RANDOM_CASES``, 3,000+ seeded random calls across
the operations with mixed static/dynamic leaves, valid and invalid inputs (rejections and undefined behaviour
included)."""

from __future__ import annotations

import json
import random

from tests.support.layout_gen import random_layout
from verifier import Layout, Tile
from verifier.core.integers import D, S
from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS

N_CASES = 3100
N_SKELETONS = 110
PER_SKELETON = 24


def _layout(rng: random.Random, p_static: float, max_rank: int = 3, max_size: int = 256) -> Layout:
    return random_layout(rng, max_rank=max_rank, max_depth=2, p_static=p_static, max_size=max_size)[0]


def _int(rng: random.Random, lo: int, hi: int, p_static: float):
    v = rng.randint(lo, hi)
    return S(v) if rng.random() < p_static else D(v)


def _tile(rng: random.Random, a: Layout, p_static: float) -> Tile:
    k = rng.randint(1, a.rank())
    elems = []
    for _ in range(k):
        r = rng.random()
        if r < 0.5:
            elems.append(_layout(rng, p_static, max_rank=1, max_size=8))
        elif r < 0.85:
            elems.append(_int(rng, 1, 6, p_static))
        else:
            from verifier import UNDERSCORE

            elems.append(UNDERSCORE)
    return Tile(elems)


def _case(rng: random.Random, static: bool) -> tuple[str, tuple, tuple[int, ...]]:
    p = 1.0 if static else rng.choice([0.0, 0.5])
    a = _layout(rng, p)
    op = rng.choice(["coalesce", "filter", "composition", "composition", "composition", "complement",
                     "complement", "right_inverse", "left_inverse", "logical_divide", "logical_divide",
                     "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "logical_product",
                     "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product",
                     "upcast", "downcast", "max_common_vector", "max_common_layout", "nullspace",
                     "make_layout_like"])
    if op in ("coalesce", "filter", "right_inverse", "left_inverse", "nullspace", "make_layout_like"):
        return op, (a,), ()
    if op in ("upcast", "downcast"):
        return op, (a,), (rng.choice([2, 4]),)
    if op == "complement":
        if rng.random() < 0.5:
            return op, (a,), ()
        return op, (a, _int(rng, 1, 64, p)), ()
    if op in ("max_common_vector", "max_common_layout"):
        return op, (a, _layout(rng, p)), ()
    if op == "composition":
        r = rng.random()
        if r < 0.6:
            return op, (a, _layout(rng, p, max_size=64)), ()
        if r < 0.8:
            return op, (a, _int(rng, 1, 12, p)), ()
        return op, (a, _tile(rng, a, p)), ()
    if op in ("blocked_product", "raked_product"):
        return op, (a, _layout(rng, p, max_rank=2, max_size=16)), ()
    # divides and products: a layout tiler or a by-mode tiler
    if rng.random() < 0.5:
        return op, (a, _layout(rng, p, max_rank=2, max_size=16)), ()
    return op, (a, _tile(rng, a, p)), ()


def _reroll_int(x, rng: random.Random, lo: int, hi: int):
    return D(rng.randint(lo, hi)) if x.dynamic else x


def _reroll(obj, rng: random.Random):
    """The same static structure (so the same compiled CuTe function) with new run-time values."""
    from verifier.core.int_tuple import transform_leaf
    from verifier.core.layouts import Underscore

    if isinstance(obj, Layout):
        return Layout(transform_leaf(obj.shape, lambda x: _reroll_int(x, rng, 1, 6)),
                      transform_leaf(obj.stride, lambda x: _reroll_int(x, rng, -4, 24)))
    if isinstance(obj, Tile):
        return Tile([_reroll(e, rng) for e in obj.elements])
    if isinstance(obj, Underscore):
        return obj
    return transform_leaf(obj, lambda x: _reroll_int(x, rng, 1, 12))


def _size_ok(args: tuple) -> bool:
    return all(int(a.size()) <= 256 for a in args if isinstance(a, Layout))


def _cases() -> list[tuple[str, tuple, tuple[int, ...]]]:
    """Skeletons with run-time leaves, each instantiated with many run-time values (one compile serves them
    all), plus all-static cases (each its own compile: CuTe's static checks and rejections live there)."""
    rng = random.Random(3000)
    out: list[tuple[str, tuple, tuple[int, ...]]] = []
    while len(out) < N_SKELETONS * PER_SKELETON:
        op, args, t = _case(rng, static=False)
        if not any(x.dynamic for a in args for x in _leaves(a)):
            continue
        for _ in range(PER_SKELETON):
            for _try in range(20):
                new = tuple(_reroll(a, rng) for a in args)
                if _size_ok(new):
                    out.append((op, new, t))
                    break
    while len(out) < N_CASES:
        out.append(_case(rng, static=True))
    return out


def _leaves(obj):
    from verifier.core.int_tuple import leaves

    if isinstance(obj, Layout):
        return [*leaves(obj.shape), *leaves(obj.stride)]
    if isinstance(obj, Tile):
        return [x for e in obj.elements for x in _leaves(e)]
    if isinstance(obj, (tuple,)) or hasattr(obj, "expr"):
        return list(leaves(obj))
    return []


RANDOM_CASES = _cases()

CUTLASS_DATA = json.loads(CUTLASS_UNIT_CORPUS.read_text())
CUTLASS_VARIANTS = ("original", "dynamic", "static")
CUTLASS_CASES = [(c, v) for c in CUTLASS_DATA for v in CUTLASS_VARIANTS]
