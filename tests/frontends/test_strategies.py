"""The promises of verifier.strategies, checked on what they draw: congruence, positive shapes, compactness and
injectivity by enumeration (for every drawn assignment of the symbols), assignments inside the assumptions."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from verifier import Layout, Symbols, Tile, parse_relation
from verifier import strategies as vs
from verifier.core.int_tuple import congruent, depth, leaves, rank
from verifier.core.layouts import UNDERSCORE, size

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _table() -> Symbols:
    t = Symbols()
    t.declare("M", lo=1, hi=6)
    t.declare("N", lo=2, hi=40, multiple_of=4)
    return t


def _image(layout: Layout, env: dict[str, int]) -> list[int]:
    concrete = layout.substitute(env)
    return concrete.values()


@FAST
@given(st.data())
def test_shapes_are_positive_with_requested_rank_depth_and_flags(data: st.DataObject) -> None:
    static = data.draw(st.sampled_from([True, False, None]))
    shape = data.draw(vs.shapes(rank=(2, 3), depth=2, static=static))
    assert 2 <= rank(shape) <= 3 and depth(shape) <= 2
    for leaf in leaves(shape):
        assert leaf.value is not None and leaf.value >= 1
        if static is not None:
            assert leaf.static is static


@FAST
@given(st.data())
def test_symbolic_shapes_stay_positive_for_every_assignment(data: st.DataObject) -> None:
    table = _table()
    shape = data.draw(vs.shapes(symbols=table, rank=(1, 3)))
    env = data.draw(vs.assignments(table))
    assert all(x.evaluate(env) >= 1 for x in leaves(shape))


@FAST
@given(st.data())
def test_layouts_are_congruent(data: st.DataObject) -> None:
    layout = data.draw(vs.layouts(symbols=data.draw(st.sampled_from([None, _table()])), depth=3))
    assert congruent(layout.shape, layout.stride)
    assert str(Layout(layout.shape, layout.stride)) == str(layout)


@FAST
@given(st.data())
def test_compact_layouts_are_bijections_onto_their_size(data: st.DataObject) -> None:
    table = _table()
    layout = data.draw(vs.layouts(compact=True, symbols=table, depth=3))
    env = data.draw(vs.assignments(table, max_value=8))
    image = _image(layout, env)
    assert sorted(image) == list(range(len(image)))


@FAST
@given(st.data())
def test_injective_layouts_are_injective(data: st.DataObject) -> None:
    table = _table()
    layout = data.draw(vs.layouts(injective=True, symbols=table, depth=3, max_extent=4))
    env = data.draw(vs.assignments(table, max_value=8))
    image = _image(layout, env)
    assert len(set(image)) == len(image)


@FAST
@given(st.data())
def test_non_injective_layouts_collide_and_non_compact_ones_are_not_bijections(data: st.DataObject) -> None:
    table = _table()
    env = data.draw(vs.assignments(table, max_value=8))
    bad = data.draw(vs.layouts(injective=False, symbols=table, max_extent=4))
    image = _image(bad, env)
    assert len(set(image)) < len(image)
    loose = data.draw(vs.layouts(compact=False, injective=data.draw(st.sampled_from([True, None])), symbols=table,
                                  max_extent=4))
    image = _image(loose, env)
    assert sorted(image) != list(range(len(image)))


def test_injective_strategy_reaches_non_compact_layouts() -> None:
    # Not only permuted compact layouts: gaps and negative strides occur.
    seen: list[bool] = []

    @settings(max_examples=80, deadline=None)
    @given(vs.layouts(injective=True, static=True, max_extent=4))
    def probe(layout: Layout) -> None:
        image = layout.values()
        seen.append(sorted(image) == list(range(len(image))))

    probe()
    assert True in seen and False in seen


@FAST
@given(st.data())
def test_assignments_satisfy_ranges_divisibility_and_relations(data: st.DataObject) -> None:
    table = _table()
    table.declare("K", lo=16, hi=2**31 - 1, multiple_of=16)
    table.assume(parse_relation("N >= M", table))
    env = data.draw(vs.assignments(table, max_value=128))
    assert set(env) == {"M", "N", "K"}
    for sym in table:
        assert sym.admits(env[sym.name])
    assert env["N"] >= env["M"]
    table.check_values(env)  # the table's own check agrees


@FAST
@given(st.data())
def test_assignments_of_a_symbol_unbounded_above_and_of_int64_bounds(data: st.DataObject) -> None:
    # hi=None (a mathematical integer, proofs/) once raised TypeError; int64 bounds are beyond a float's precision
    table = Symbols()
    table.declare("M", lo=1, hi=None)
    table.declare("P", lo=2**62 + 1, hi=2**62 + 40, multiple_of=3, bits=64)
    env = data.draw(vs.assignments(table, max_value=8))
    assert 1 <= env["M"] <= 8
    for sym in table:
        assert sym.admits(env[sym.name]), (sym, env)


@FAST
@given(st.data())
def test_tilers_divide_their_shape(data: st.DataObject) -> None:
    shape = data.draw(vs.shapes(rank=2, depth=1, static=True))
    tiler = data.draw(vs.tilers(shape, rank=(1, 2), divides=True))
    assert isinstance(tiler, Tile) and 1 <= len(tiler) <= 2
    for k, e in enumerate(tiler.elements):
        if e == UNDERSCORE:
            continue
        n = int(size(e.shape if isinstance(e, Layout) else e))
        assert int(size(shape[k])) % n == 0


@FAST
@given(vs.int_tuples(st.integers(0, 9), rank=(1, 4), depth=3, max_leaves=7))
def test_int_tuples_respect_rank_depth_and_leaf_budget(t: object) -> None:
    def count(x: object) -> int:
        return sum(count(y) for y in x) if isinstance(x, tuple) else 1

    def dep(x: object) -> int:
        return 1 + max(dep(y) for y in x) if isinstance(x, tuple) else 0

    assert count(t) <= 7 and dep(t) <= 3
    assert 1 <= (len(t) if isinstance(t, tuple) else 1) <= 4


def test_contradictory_requests_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        vs.layouts(compact=True, injective=False)
    empty = Symbols()
    empty.declare("M", lo=3, hi=5, multiple_of=8)
    with pytest.raises(InvalidArgument):
        vs.assignments(empty)


@FAST
@given(vs.swizzles())
def test_swizzles_compile_and_stay_below_bit_31(sw) -> None:
    # the constructor raises CuteRejection for what CuTe does not compile; the masks are 32-bit int constants
    assert -(1 << 31) <= sw.yyy_msk < 1 << 31 and -(1 << 31) <= sw.zzz_msk < 1 << 31
    assert sw.bits <= abs(sw.shift) <= sw.bits + 4


def test_swizzles_reach_the_sign_bit_corner() -> None:
    seen = set()

    @settings(max_examples=80, deadline=None, database=None)
    @given(vs.swizzles(corner=0.9))
    def draw(sw) -> None:
        seen.add((sw.yyy_msk < 0, sw.zzz_msk < 0))

    draw()
    assert (True, False) in seen and (False, True) in seen


def test_swizzles_reject_a_top_past_bit_31() -> None:
    with pytest.raises(InvalidArgument):
        vs.swizzles(top=32).example()
