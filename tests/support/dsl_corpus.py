"""The corpus of the DSL differential tests (tests/differential/test_dsl_differential.py): CUTLASS's unit-test
cases in their three variants, the seeds' cases, and seeded random cases across every operation both the C++
headers and the DSL's Python API support.  Random cases are skeletons whose run-time leaves are named symbols, each run
with several assignments: one compiled jit function serves them all (verifier/dsl/harness.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from tests.support.layout_gen import random_layout
from verifier import Layout, Tile
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import D, Int, S, symbol
from verifier.core.operands import map_leaves
from verifier.dsl.harness import DslCase, Unsupported, case_code
from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS, operands, parse_arg, variant_of

DATA = Path(__file__).parents[1] / "data"
N_RANDOM = 1200
ASSIGNMENTS = 4
RECAST_OPS = ("upcast", "downcast", "recast_layout")


def _expressible(case: DslCase) -> bool:
    try:
        case_code(case)
    except Unsupported:
        return False
    return True


def excluded() -> list[tuple[str, str]]:
    """The corpus cases the DSL's Python API cannot express, with the reason (none is dropped silently)."""
    out = []
    for c in json.loads(CUTLASS_UNIT_CORPUS.read_text()):
        for v in ("original", "dynamic", "static"):
            try:
                case_code(DslCase(c["op"], tuple(operands(c["args"], v))))
            except Unsupported as exc:
                out.append((f"{c['file']}:{c['line']} [{v}]", str(exc)))
    for c in json.loads((DATA / "seed_cases.json").read_text()):
        k = 2 if c["op"] == "recast_layout" else 0
        args = (*(int(a) for a in c["args"][:k]), *(variant_of(parse_arg(a), "original") for a in c["args"][k:]))
        try:
            case_code(DslCase(c["op"], tuple(args)))
        except Unsupported as exc:
            out.append((f"seed {c['seed']} {c['file']}:{c['line']}", str(exc)))
    return out


def cutlass_cases() -> list[tuple[str, DslCase]]:
    out = []
    for c in json.loads(CUTLASS_UNIT_CORPUS.read_text()):
        for v in ("original", "dynamic", "static"):
            case = DslCase(c["op"], tuple(operands(c["args"], v)))
            if _expressible(case):
                out.append((f"{c['file']}:{c['line']} {c['op']}({', '.join(c['args'])}) [{v}]", case))
    return out


def seed_cases() -> list[tuple[str, DslCase]]:
    out = []
    for c in json.loads((DATA / "seed_cases.json").read_text()):
        k = 2 if c["op"] == "recast_layout" else 0
        args = (*(int(a) for a in c["args"][:k]), *(variant_of(parse_arg(a), "original") for a in c["args"][k:]))
        case = DslCase(c["op"], tuple(args), tuple(c.get("params") or [{}]))
        if _expressible(case):
            out.append((f"seed {c['seed']} {c['file']}:{c['line']} {c['op']}({', '.join(c['args'])})", case))
    return out


def _skeleton(obj: object, names: dict[int, str]) -> object:
    """Every run-time leaf a fresh symbol ``x0, x1 ...``; ``names`` maps the symbol's number to its first value."""

    def leaf(x: Int) -> Int:
        if x.static:
            return x
        name = f"x{len(names)}"
        names[len(names)] = int(x)  # type: ignore[assignment]
        return symbol(name)

    return map_leaves(obj, leaf)


def _layout(rng: random.Random, p: float, max_rank: int = 3, max_size: int = 256) -> Layout:
    layout = random_layout(rng, max_rank=max_rank, max_depth=2, p_static=p, max_size=max_size)[0]
    # A run-time 0 stride makes both CuTes divide by zero in most operations (a SIGFPE in the DSL costs a rerun
    # of its batch); those cases come from CUTLASS's dynamic variants. Here a zero stride is static.
    return Layout(layout.shape, transform_leaf(layout.stride, lambda x: S(0) if x.dynamic and int(x) == 0 else x))


def _int(rng: random.Random, lo: int, hi: int, p: float) -> Int:
    v = rng.randint(lo, hi)
    return S(v) if rng.random() < p else D(v)


def _tile(rng: random.Random, a: Layout, p: float) -> Tile:
    elems: list[object] = []
    for _ in range(rng.randint(1, a.rank())):
        r = rng.random()
        if r < 0.5:
            elems.append(_layout(rng, p, max_rank=1, max_size=8))
        elif r < 0.85:
            elems.append(_int(rng, 1, 6, p))
        else:
            from verifier.core.layouts import Underscore

            elems.append(Underscore())
    return Tile(elems)  # type: ignore[arg-type]


OPS = ("coalesce", "filter", "composition", "composition", "composition", "complement", "complement",
       "right_inverse", "left_inverse", "logical_divide", "logical_divide", "zipped_divide", "tiled_divide",
       "flat_divide", "logical_product", "logical_product", "zipped_product", "tiled_product", "flat_product",
       "blocked_product", "raked_product", "upcast", "upcast", "downcast", "downcast", "recast_layout",
       "max_common_vector", "max_common_layout", "nullspace")


def _random_case(rng: random.Random) -> tuple[str, tuple[object, ...]]:
    p = rng.choice([1.0, 0.5, 0.5, 0.0, 0.0])
    a = _layout(rng, p)
    op = rng.choice(OPS)
    if op in ("coalesce", "filter", "right_inverse", "left_inverse", "nullspace"):
        return op, (a,)
    if op in ("upcast", "downcast"):
        return op, (rng.choice([2, 4]), a)
    if op == "recast_layout":
        old, new = rng.choice([(8, 16), (16, 8), (16, 32), (32, 8), (8, 32), (4, 8), (32, 16)])
        return op, (old, new, a)
    if op == "complement":
        return op, (a, _int(rng, 1, 96, p))
    if op in ("max_common_vector", "max_common_layout"):
        return op, (a, _layout(rng, p))
    if op == "composition":
        r = rng.random()
        if r < 0.6:
            return op, (a, _layout(rng, p, max_size=64))
        if r < 0.8:
            return op, (a, _int(rng, 1, 12, p))
        return op, (a, _tile(rng, a, p))
    if op in ("blocked_product", "raked_product"):
        return op, (a, _layout(rng, p, max_rank=2, max_size=16))
    if rng.random() < 0.5:
        return op, (a, _layout(rng, p, max_rank=2, max_size=16))
    return op, (a, _tile(rng, a, p))


def _reroll(name: str, first: int, rng: random.Random, shape: set[str]) -> int:
    if name in shape:
        return rng.randint(1, 6)
    v = 0
    while v == 0:
        v = rng.randint(-4, 24)
    return v if first != 0 else first


def random_cases(n: int = N_RANDOM, seed: int = 18) -> list[tuple[str, DslCase]]:
    """``n`` seeded random skeletons, each with ``ASSIGNMENTS`` assignments of its run-time leaves (the first the
    generated values), plus symbolic divisibility facts on some of them (``cute.assume``)."""
    from verifier.core.int_tuple import symbols_of

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        op, args = _random_case(rng)
        names: dict[int, str] = {}
        k = 2 if op == "recast_layout" else (1 if op in RECAST_OPS else 0)
        skel = (*args[:k], *(_skeleton(a, names) for a in args[k:]))
        shape_syms: set[str] = set()
        for a in skel[k:]:
            if isinstance(a, Layout):
                shape_syms |= symbols_of(a.shape)
            elif isinstance(a, Tile):
                for e in a.elements:
                    shape_syms |= e.symbols() if isinstance(e, Layout) else (
                        symbols_of(e) if isinstance(e, Int) or type(e) is tuple else set())
            elif isinstance(a, Int) or type(a) is tuple:
                shape_syms |= symbols_of(a)  # type: ignore[arg-type]
        first = {f"x{i}": v for i, v in names.items()}
        envs = [first] + [{s: _reroll(s, v, rng, shape_syms) for s, v in first.items()}
                          for _ in range(ASSIGNMENTS - 1 if first else 0)]
        divisible: dict[str, int] = {}
        if first and rng.random() < 0.2:  # a divisibility fact, with values that honour it
            s = rng.choice(sorted(first))
            d = rng.choice([2, 4, 8])
            divisible[s] = d
            envs = [{**e, s: d * rng.randint(1, 4) * (1 if e[s] > 0 else -1)} for e in envs]
        case = DslCase(op, skel, tuple(envs), divisible)
        if _expressible(case):
            out.append((f"random[{len(out)}] {op}({', '.join(map(str, skel))})", case))
    return out


def corpus() -> list[tuple[str, DslCase]]:
    return cutlass_cases() + seed_cases() + random_cases()
