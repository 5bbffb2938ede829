"""Partitioning at layout level against compiled CuTe: ``slice_and_offset``, ``local_tile`` (inner partition) and
``local_partition`` (outer partition), in the original static/dynamic mix, all-dynamic and all-static, with
coordinates and thread indices that are run-time values. CuTe's ``local_tile``/``local_partition`` run on a tensor
over a counting iterator, so the offset CuTe adds to the pointer is read back as the iterator's position."""

from __future__ import annotations

import random
import re

import pytest

from tests.support.compare import compare_view
from verifier import UNDERSCORE, Layout, Tile, parse_int_tuple, parse_layout, parse_tile
from verifier.algebra.registry import apply
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import D, Int, S, symbol
from verifier.core.layouts import Underscore
from verifier.oracle.corpora import variant_of
from verifier.oracle.cute_cpp import CppCase, Query, run_cases, slice_case, tensor_case

VARIANTS = ("original", "dynamic", "static")
_ = UNDERSCORE


def coord_variant(c: object, variant: str) -> object:
    if isinstance(c, Underscore):
        return c
    if type(c) is tuple:
        return tuple(coord_variant(x, variant) for x in c)
    return variant_of(c, variant)


_MARK = 99999999


def _c(text: str) -> object:
    """A coordinate in CuTe notation where a bare ``_`` (not ``_4``) marks a kept mode: ``(_,(1,_))``."""
    parsed = parse_int_tuple(re.sub(r"_(?![0-9-])", f"_{_MARK}", text))
    return transform_leaf(parsed, lambda x: _ if x.static and int(x) == _MARK else x)  # type: ignore[return-value]


# (layout, tiler, [coordinates]): the grid coordinates include the last tile and one past the grid.
TILE_CASES = [
    ("make_layout((8,24))", "(_4,_8)", ["(0,0)", "(1,2)", "(0,1)", "(2,0)", "3", "5", "(1,_)", "(_,2)"]),
    ("(12,16):(16,1)", "(_4,_8)", ["(2,1)", "(0,0)", "(1,_)", "7"]),
    ("(10,24):(1,10)", "(_4,_8)", ["(2,2)", "(0,1)", "8"]),
    ("(64):(1)", "_16:_1", ["3", "0", "4"]),
    ("(32,(4,6)):(1,(32,128))", "<_8:_1,_4:_1>", ["(3,(1,5))", "(0,(0,0))", "(1,_)", "(_,(1,2))"]),
    ("(16,32):(1,16)", "(_4,_8):(_8,_1)", ["(1,3)", "5"]),
    ("(16,32,4):(1,16,512)", "(_8,_16)", ["(1,1,3)", "(0,1)", "(1,0,_)", "(_,_,2)"]),
    ("(8,24):(24,1)", "<_4,_>", ["(1,5)", "(0,_)"]),
    ("(6,9):(1,6)", "(_4,_4)", ["(1,2)", "(0,0)"]),
]

# (layout, thread layout, [thread indices]): indices include the last thread and one past the end.
PART_CASES = [
    ("make_layout((8,24))", "(_4,_8):(_1,_4)", ["0", "5", "31", "32"]),
    ("(16,64):(64,1)", "(_2,_16):(_16,_1)", ["0", "7", "31"]),
    ("(8,24):(1,8)", "_32:_1", ["5", "0"]),
    ("(32,(4,8)):(1,(32,128))", "(_8,(_2,_2)):(_1,(_8,_16))", ["0", "13", "31"]),
    ("(12,20):(1,12)", "(_4,_8):(_8,_1)", ["3", "17"]),
    ("(8,8):(1,8)", "(_2,_2,_2):(_1,_2,_4)", ["3"]),
    ("(16,16):(1,16)", "(_4,_4):(_1,_8)", ["2", "5"]),
]

# (coordinate, layout) for slice_and_offset.
SLICE_CASES = [
    ("(_,(1,_))", "(3,(4,5)):(1,(3,12))"),
    ("(_,1)", "(3,(4,5)):(1,(3,12))"),
    ("(2,_)", "(3,(4,5)):(1,(3,12))"),
    ("(_,_)", "(_3,(_4,_5)):(_1,(_3,_12))"),
    ("_", "(3,(4,5)):(1,(3,12))"),
    ("((1,_),(_,2))", "((2,3),(4,5)):((1,2),(6,24))"),
    ("(_,(_,_))", "(3,(4,5)):(-1,(0,12))"),
    ("(1,(2,3),_)", "(3,(4,5),6):(1,(3,12),60)"),
]


def _arg(text: str) -> object:
    if text.startswith("make_layout("):
        from verifier.oracle.corpora import parse_arg

        return parse_arg(text)
    if text.startswith("<"):
        return parse_tile(text)
    return parse_layout(text) if ":" in text else parse_int_tuple(text)


def _tile_queries() -> list[tuple[str, tuple]]:
    out = []
    for a, t, coords in TILE_CASES:
        for v in VARIANTS:
            for c in coords if v != "static" else coords[:2]:
                out.append(("local_tile", (variant_of(_arg(a), v), variant_of(_arg(t), v), coord_variant(_c(c), v))))
    for a, thr, idx in PART_CASES:
        for v in VARIANTS:
            for i in idx if v != "static" else idx[:2]:
                out.append(("local_partition", (variant_of(_arg(a), v), variant_of(_arg(thr), v),
                                                variant_of(parse_int_tuple(i), v))))
    for c, a in SLICE_CASES:
        for v in VARIANTS:
            out.append(("slice_and_offset", (coord_variant(_c(c), v), variant_of(_arg(a), v))))
    return out


CASES = _tile_queries()


def _cpp(op: str, args: tuple) -> CppCase:
    if op == "slice_and_offset":
        return slice_case(*args)
    layout, tiler, coord = args
    return tensor_case(op, layout, tiler, coord=coord)


@pytest.fixture(scope="module")
def answers(cute):
    cases = [_cpp(op, args) for op, args in CASES]
    return run_cases(cases, [Query(k) for k in range(len(cases))])


def _label(op: str, args: tuple) -> str:
    return f"{op}({', '.join(map(str, args))})"


@pytest.mark.cute
def test_partitions_match_compiled_cute(answers) -> None:
    bad = []
    for (op, args), r in zip(CASES, answers, strict=True):
        diff = compare_view(apply(op, *args), r, tensor=op != "slice_and_offset")
        if diff:
            bad.append(f"{_label(op, args)}: {diff}")
    assert not bad, "\n".join(bad[:30]) + f"\n({len(bad)} of {len(CASES)} differ)"
    assert sum(r.ok for r in answers) >= 130 and len({op for op, _ in CASES}) == 3


@pytest.mark.cute
def test_corpus_has_run_time_coordinates_and_rejections(answers) -> None:
    dyn = [args for op, args in CASES if op != "slice_and_offset" and any(
        isinstance(x, Int) and x.dynamic for x in _leaves(args[2]))]
    assert len(dyn) >= 60
    assert any(r.rejected for r in answers)  # a thread layout of higher rank than the tensor


def _leaves(c: object) -> list:
    if type(c) is tuple:
        return [x for e in c for x in _leaves(e)]
    return [c]


def test_seed_002_inner_and_outer_partition() -> None:
    """Seed 002 lines 10-26: an (8,24) tensor, tiles of (_4,_8): a CTA's tile is (_4,_8), a thread's part (2,3)."""
    a = parse_layout("(8,24):(_1,8)")
    cta = apply("local_tile", a, parse_int_tuple("(_4,_8)"), (D(1), D(2))).result
    assert str(cta.layout) == "(_4,_8):(_1,8)" and int(cta.offset) == 4 + 2 * 8 * 8
    thr = apply("local_partition", a, parse_layout("(_4,_8):(_1,_4)"), D(9)).result
    assert str(thr.layout) == "(2,3):(_4,64)"
    assert int(thr.offset) == 1 + 2 * 8  # thread 9 is (1,2) in the column-major (_4,_8) thread layout


def test_out_of_grid_coordinates_fail_ix2() -> None:
    a = parse_layout("(8,24):(_1,8)")
    out = apply("local_tile", a, parse_int_tuple("(_4,_8)"), (D(2), D(0)))
    assert [o.status for o in out.obligations if o.id == "IX-2"] == ["fails"]
    out = apply("local_partition", a, parse_layout("(_4,_8):(_1,_4)"), D(32))
    assert [o.status for o in out.obligations if o.id == "IX-2"] == ["fails"]
    ok = apply("local_partition", a, parse_layout("(_4,_8):(_1,_4)"), D(31))
    assert all(o.status == "holds" for o in ok.obligations)


def test_non_compact_thread_layout_fails_ix3() -> None:
    """get_hier_coord is only valid for compact layouts (layout.hpp:244): with a gap the thread's coordinate does
    not map back to its index."""
    out = apply("local_partition", parse_layout("(8,8):(1,8)"), parse_layout("(_4,_2):(_1,_8)"), D(5))
    assert [o.status for o in out.obligations if o.id == "IX-3"] == ["fails"]


def test_overhanging_tile_is_an_over_approximation() -> None:
    """A (10,24) tensor in (_4,_8) tiles: a 3x3 grid covering 12 rows; the last row of tiles reads past A."""
    out = apply("local_tile", parse_layout("(10,24):(_1,10)"), parse_int_tuple("(_4,_8)"), (D(2), D(0)))
    assert str(out.result) == "8 o (_4,_8):(_1,10)"
    assert "DIV-EXACT" in {o.id for o in out.obligations if o.status == "fails"}


# -- symbolic extents and coordinates, instantiated with run-time values ----------------------------------------

SYMBOLIC = [
    ("local_tile", (parse_layout("(M,N):(_1,M)"), parse_int_tuple("(_128,_64)"), (symbol("bx"), symbol("by")))),
    ("local_tile", (parse_layout("(M,K):(K,_1)"), parse_int_tuple("(_64,_32)"), (symbol("bx"), _))),
    ("local_partition", (parse_layout("(M,N):(_1,M)"), parse_layout("(_4,_8):(_8,_1)"), symbol("t"))),
]
ENVS = [{"M": 256, "N": 128, "K": 64, "bx": 1, "by": 1, "t": 5},
        {"M": 512, "N": 192, "K": 96, "bx": 3, "by": 2, "t": 31},
        {"M": 200, "N": 100, "K": 40, "bx": 1, "by": 1, "t": 0}]


def _substitute(obj: object, env: dict[str, int]) -> object:
    if isinstance(obj, Layout):
        return obj.substitute(env)
    if isinstance(obj, (Tile, Underscore)):
        return obj
    if type(obj) is tuple:
        return tuple(_substitute(x, env) for x in obj)
    return transform_leaf(obj, lambda x: D(x.evaluate(env)) if not x.static else x)  # type: ignore[arg-type]


@pytest.mark.cute
def test_symbolic_partitions_print_and_match_cute(cute) -> None:
    tile = apply(SYMBOLIC[0][0], *SYMBOLIC[0][1]).result
    assert str(tile.layout) == "(_128,_64):(_1,M)"
    assert tile.offset.evaluate({"M": 300, "bx": 2, "by": 3}) == 2 * 128 + 3 * 64 * 300
    thr = apply(SYMBOLIC[2][0], *SYMBOLIC[2][1]).result
    assert str(thr.layout).startswith("(") and thr.layout.symbols() == {"M", "N"}
    cases = [_cpp(op, args) for op, args in SYMBOLIC]
    queries = [Query(k, env) for k in range(len(cases)) for env in ENVS]
    res = run_cases(cases, queries)
    bad = []
    for q, r in zip(queries, res, strict=True):
        op, args = SYMBOLIC[q.case]
        sym = apply(op, *args).result
        conc = apply(op, *(_substitute(a, q.env) for a in args))
        # The symbolic result, evaluated at the values, is the result computed from the values, which is CuTe's.
        assert sym.layout.substitute(q.env) == conc.result.layout, (op, q.env)
        assert sym.offset.evaluate(q.env) == int(conc.result.offset), (op, q.env)
        diff = compare_view(conc, r)
        if diff:
            bad.append(f"{op} {q.env}: {diff}")
    assert not bad, "\n".join(bad)


# -- a seeded random corpus: skeletons compiled once, run with many run-time values -----------------------------


def _random_cases() -> list[tuple[str, tuple]]:
    from tests.support.layout_gen import random_layout

    rng = random.Random(2002)
    out: list[tuple[str, tuple]] = []
    for _k in range(36):
        a = random_layout(rng, max_rank=3, max_depth=2, p_static=0.3, max_size=256)[0]
        r = a.rank()
        if rng.random() < 0.5:
            k = rng.randint(1, r)
            tiler: object = tuple(S(rng.choice([1, 2, 3, 4])) for _ in range(k))
            for _i in range(8):
                tiled = apply("zipped_divide", a, tiler).result
                if tiled is None:
                    break
                rest = tiled.shape[1]
                nr = len(rest) if type(rest) is tuple else 1
                coord = tuple(D(rng.randint(0, 4)) for _ in range(nr)) if rng.random() < 0.7 else D(rng.randint(0, 9))
                out.append(("local_tile", (a, tiler, coord)))
        else:
            thr = rng.choice(["(_2,_2):(_1,_2)", "(_2,_3):(_3,_1)", "_4:_1", "(_3,_2):(_1,_3)"])
            t = parse_layout(thr)
            if t.rank() > r:
                t = parse_layout("_4:_1")
            for _i in range(8):
                out.append(("local_partition", (a, t, D(rng.randint(0, int(t.size()) - 1)))))
    return out


RANDOM = _random_cases()


@pytest.mark.cute
def test_random_partitions_match_cute(cute) -> None:
    cases = [_cpp(op, args) for op, args in RANDOM]
    res = run_cases(cases, [Query(k) for k in range(len(cases))])
    bad = [f"{_label(op, args)}: {d}" for (op, args), r in zip(RANDOM, res, strict=True)
           if (d := compare_view(apply(op, *args), r))]
    assert not bad, "\n".join(bad[:20]) + f"\n({len(bad)} of {len(RANDOM)} differ)"
    assert len(RANDOM) >= 250 and sum(r.ok for r in res) >= 150
