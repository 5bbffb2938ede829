"""A kernel in one spec: [objects] build a TiledMMA / TiledCopy once and checks name them as $name; the SM80 HGEMM
example (examples/sgemm_sm80.cute.toml) loads, its objects expand, every check is decided as expected, and each
planted bug is reported with a counterexample naming M, N, K and the thread index (issue 15, acceptance point 2);
the unaligned cp.async gets its guard ``ldA % 8 == 0`` (point 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.core.errors import LayoutError
from verifier.run import batch, spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sgemm_sm80.cute.toml"


def test_the_example_loads_with_its_objects_expanded():
    checks = spec.load_suite(EXAMPLE)
    assert len(checks) == 14
    assert not any("$" in a for c in checks for a in c.args)
    copy = next(c for c in checks if c.name.startswith("copyA: predicated"))
    assert copy.args[4].startswith("make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16,")
    planted = [c for c in checks if c.name.startswith("BUG")]
    assert len(planted) == 5 and all(c.expect in ("invalid", "refuted") for c in planted)


@pytest.fixture(scope="module")
def results():
    return {r.check.name: r for r in batch.run(spec.load_suite(EXAMPLE))}


def test_every_check_of_the_example_is_as_expected(results):
    assert {name: r.verdict.verdict for name, r in results.items() if not r.matched} == {}
    int4 = results["mma (int4, CUTLASS #3140): the B layout of SM80_16x8x32_S32S4S4S32_TN leaves elements unread"]
    assert "320" in str(int4.verdict.counterexample)


# The bugs, the thread index each counterexample must name, and the thread the witness picks (None: any).
PLANTED = {
    "BUG: the predicate compares against (K,M) instead of (M,K)": ("t", "PRED-IN", None),
    "BUG: the B residue forgets the last row (N-1)": ("t", "PRED-COVER", None),
    "BUG: 128-bit cp.async without the ldA % 8 == 0 guard": ("t", "ALIGN", None),
    "BUG: 384 threads x 8 values over the 128x64 tile (issue #2980's shape of mistake)": ("u", "THR-ONCE", 256),
    "BUG: B loaded with make_tiled_copy_B of the int4 SM80_16x8x32_S32S4S4S32_TN (CUTLASS #3140): threads overlap":
        ("t", "THR-ONCE", None),
}


@pytest.mark.parametrize("name", PLANTED)
def test_each_planted_bug_names_m_n_k_and_the_thread(results, name):
    r = results[name]
    thread, obligation, which = PLANTED[name]
    cex = r.verdict.counterexample
    assert r.verdict.verdict == "invalid" and cex is not None and cex.obligation == obligation
    assert {"M", "N", "K", thread} <= set(cex.params)
    if which is not None:
        assert cex.params[thread] == which
    # The counterexample replays: CuTe's result at these values breaks the contract (the engine's concrete model).
    from verifier.engine.decide import valid_at

    args, _ = r.check.problem()
    assert not valid_at(r.check.op, args, cex.params)


def test_the_unaligned_copy_gets_its_leading_dimension_guard(results):
    v = results["BUG: 128-bit cp.async without the ldA % 8 == 0 guard"].verdict
    assert "ldA" in v.counterexample.params and v.counterexample.params["ldA"] % 8 != 0
    assert v.guard is not None and v.guard.condition == "ldA % 8 == 0"


def test_no_guard_where_none_can_help(results):
    notes = {name: results[name].verdict.guard_note for name in PLANTED}
    assert "fails at every value the assumptions admit" in notes["BUG: the B residue forgets the last row (N-1)"]
    assert "fails for values of u" in notes[
        "BUG: 384 threads x 8 values over the 128x64 tile (issue #2980's shape of mistake)"]


def test_unknown_object_is_a_spec_error(tmp_path):
    f = tmp_path / "k.cute.toml"
    f.write_text('[objects]\nmma = "make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN, (_2,_2,_1):(_1,_2,_0))"\n\n'
                 '[[check]]\nname = "x"\nproperty = "bijective"\nargs = ["get_layoutC_TV($mmb)"]\n')
    with pytest.raises(LayoutError, match=r"k.cute.toml:\d+: .*unknown object \$mmb"):
        spec.load_suite(f)


def test_bad_tiled_text_is_a_one_line_error(tmp_path):
    f = tmp_path / "k.cute.toml"
    f.write_text('[[check]]\nname = "x"\nproperty = "bijective"\n'
                 'args = ["get_layoutC_TV(make_tiled_mma(NO_SUCH_ATOM, (_2,_2,_1):(_1,_2,_0)))"]\n')
    with pytest.raises(LayoutError, match="no atom named 'NO_SUCH_ATOM'"):
        spec.load_suite(f)
