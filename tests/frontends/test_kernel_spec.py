"""A kernel in one spec: [objects] build a TiledMMA / TiledCopy once and checks name them as $name; the SM80 HGEMM
example (examples/sgemm_sm80.cute.toml) loads, its objects expand, and its fast checks (the TiledMMA contracts and
the planted #3140 bug) are decided as expected.  The whole example runs in the README (minutes, then cached)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.core.errors import LayoutError
from verifier.run import batch, spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sgemm_sm80.cute.toml"


def test_the_example_loads_with_its_objects_expanded():
    checks = spec.load_suite(EXAMPLE)
    assert len(checks) == 13
    assert not any("$" in a for c in checks for a in c.args)
    copy = next(c for c in checks if c.name.startswith("copyA: predicated"))
    assert copy.args[4].startswith("make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16,")
    planted = [c for c in checks if c.name.startswith("BUG")]
    assert len(planted) == 5 and all(c.expect in ("invalid", "refuted") for c in planted)


def test_fast_checks_of_the_example_are_as_expected():
    checks = [c for c in spec.load_suite(EXAMPLE) if c.name.startswith(("mma:", "BUG: an int4"))]
    results = batch.run(checks)
    assert [r.matched for r in results] == [True] * len(checks)
    bug = results[-1]
    assert bug.verdict.verdict == "refuted" and "320" in str(bug.verdict.counterexample)


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
