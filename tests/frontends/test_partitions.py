"""The TiledMMA / TiledCopy partition functions in every front end (issue 28, point 4): ``partition_A/B/C``,
``partition_S/D``, ``retile_S/D`` and ``get_layout*_TV`` in ``eval``, ``draw``, ``check`` (each layout property),
the operations and spec files; a misspelled one gets a suggestion.  What they compute is compared with compiled
CuTe in tests/differential/test_partition_text.py; here, that each front end takes them and agrees with the
Python API (``verifier.algebra.tiled``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.algebra.tiled import TiledCopy, TiledMMA, parse_tiled
from verifier.cli.app import main
from verifier.notation.cpp import parse_layout

MMA = "make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN, (_2,_2,_1):(_1,_2,_0), <_32,_32,_16>)"
COPY = "make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16, (_16,_8):(_8,_1), (_1,_8):(_0,_1))"
C = "(_64,_64):(_1,_64)"
PART_C = f"partition_C({MMA}, {C}, t)"
PART_S = f"partition_S({COPY}, (_128,_64):(_64,_1), t)"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _api_values(t: int) -> list[int]:
    """The elements of C thread t's partition holds, from the Python API (an offset and a layout)."""
    mma = parse_tiled(MMA)
    assert isinstance(mma, TiledMMA)
    part = mma.partition_C(parse_layout(C), t)
    return [int(part.offset) + int(part.layout(i)) for i in range(int(part.layout.size()))]


@pytest.mark.parametrize("t", [0, 5, 127])
def test_eval_of_a_thread_partition_is_the_elements_it_holds(capsys, t):
    rc, out, err = run(capsys, "eval", PART_C, "--param", f"t={t}", "--json")
    assert rc == 0, err
    got = json.loads(out)
    assert got["values"] == _api_values(t)
    assert got["result"].startswith(f"Sw<0,4,3> o {_api_values(t)[0]} o ")


def test_eval_and_draw_take_the_tv_queries(capsys, tmp_path):
    rc, out, err = run(capsys, "eval", f"get_layoutC_TV({MMA})")
    assert rc == 0 and out.splitlines()[1] == "size   : _1024", err
    rc, out, err = run(capsys, "draw", "--tv", f"get_layoutC_TV({MMA})", "-o", str(tmp_path / "tv.svg"))
    assert rc == 0 and (tmp_path / "tv.svg").read_text().startswith("<svg"), err
    rc, out, err = run(capsys, "draw", f"partition_C({MMA}, {C}, 5)", "-o", str(tmp_path / "p.svg"))
    assert rc == 0 and "wrote" in out, err


def test_the_thread_index_is_an_index_operand(capsys):
    rc, out, err = run(capsys, "check", "injective", PART_C)
    assert rc == 0 and out.startswith("proved: injective(") and "0 <= t" in out, (out, err)
    # The view as printed, read back (an object handed to verifier.testing, a cached spec operand): its offset's
    # symbol is still the thread's, from 0.
    printed = out.split("injective(", 1)[1].rsplit(")", 1)[0]
    assert printed.startswith("Sw<0,4,3> o t%")
    rc, again, err = run(capsys, "check", "injective", printed)
    assert rc == 0 and "0 <= t" in again, (again, err)


@pytest.mark.parametrize("argv, status, verdict", [
    (["bijective", f"get_layoutC_TV({MMA})"], 0, "proved"),
    (["injective", PART_S], 0, "proved"),
    (["in_bounds", PART_C, "4096"], 0, "proved"),
    # C holds 4096 elements: every thread has values in its columns 32..63, past a bound of 2048.
    (["in_bounds", PART_C, "2048"], 1, "refuted"),
    (["surjective", f"retile_S({COPY}, (_8,_4,_2):(_1,_8,_32))", "64"], 0, "proved"),
    (["equivalent", PART_C, f"partition_C({MMA}, {C}, t)"], 0, "proved"),
    (["no_overflow", f"partition_C({MMA}, (M,N):(_1,M), t)", "--symbol", "M=1..4096", "--symbol", "N=1..4096"],
     0, "proved"),
    (["no_overflow", f"partition_C({MMA}, (M,N):(_1,M), t)"], 1, "refuted"),
])
def test_check_takes_partitions_in_every_layout_property(capsys, argv, status, verdict):
    rc, out, err = run(capsys, "check", *argv)
    assert rc == status and out.startswith(verdict), (out, err)
    if verdict == "refuted":
        assert "counterexample" in out


def test_no_overflow_of_a_partition_checks_its_offset(capsys):
    """The view's offset (crd2idx of the thread's coordinate in C, an int in CuTe) is an intermediate too: with a
    run-time leading dimension up to 2^31-1 it overflows, with the counterexample replayed."""
    rc, out, err = run(capsys, "check", "no_overflow", f"partition_C({MMA}, (_64,_64):(_1,ld), t)", "-v")
    assert rc == 1 and "[refuted] OVF-OFFSET" in out, (out, err)


def test_an_operation_takes_a_partition_and_a_retile(capsys):
    rc, out, err = run(capsys, "coalesce", PART_S)
    assert rc == 0 and out.startswith("valid"), (out, err)
    rc, out, err = run(capsys, "composition", f"retile_D({COPY}, (_8,_4,_2):(_1,_8,_32))", "(_4,_2)")
    assert rc == 0 and out.startswith("valid"), (out, err)


@pytest.mark.parametrize("text, message", [
    (f"partiton_C({MMA}, {C}, t)", "did you mean 'partition_C'?"),
    (f"partition_C(make_tiled_mna(SM80_16x8x8_F16F16F16F16_TN), {C}, t)", "did you mean 'make_tiled_mma'?"),
    (f"retile(({COPY}), {C})", "did you mean 'retile_S'?"),
    (f"partition_S({MMA}, {C}, t)", "the first argument must be a TiledCopy"),
    (f"partition_C({MMA}, {C})", "partition_C takes 3 arguments: partition_C(TILED_MMA, TENSOR, THREAD)"),
    (f"partition_C({MMA}, {C}, (1,2))", "the thread index '(1,2)' must be an integer or a symbol"),
    (f"partition_D({COPY}, Sw<3,3,3> o _0 o (_128,_64):(_64,_1), t)", "a swizzled or composed tensor is not modelled"),
    # Compiled CuTe's make_fragment_A of an SS GMMA is a descriptor tensor, (_1,_1,_4):(_0,_0,_256) for a 128x64
    # K-major INTER tile: not the register fragment the model would compute.
    ("partition_fragment_A(make_tiled_mma(SM90_64x64x16_F16F16F16_SS<GMMA::Major::K, GMMA::Major::K, "
     "GMMA::ScaleIn::One, GMMA::ScaleIn::One>, (_2,_1,_1):(_1,_0,_0)), (_128,_64):(_64,_1), 0)",
     "reads A from shared memory through descriptors; its fragment is not modelled"),
])
def test_bad_partitions_are_one_line_errors(capsys, text, message):
    for argv in (["eval", text], ["check", "injective", text], ["draw", text, "-o", "-"]):
        rc, out, err = run(capsys, *argv)
        assert rc == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_a_spec_file_checks_partitions(tmp_path: Path):
    from verifier.run import batch, spec

    path = tmp_path / "partitions.cute.toml"
    path.write_text(f'''
[symbols]
t = {{ min = 0, max = 127 }}
M = {{ min = 1, max = 4096 }}

[objects]
mma = "{MMA}"
copy = "{COPY}"

[[check]]
name = "a thread's C partition stays in C"
property = "in_bounds"
args = ["partition_C($mma, {C}, t)", "4096"]

[[check]]
name = "a partial tile of C: the last threads' values are past M (predication needed)"
property = "in_bounds"
args = ["partition_C($mma, (M,_64):(_1,M), t)", "M*64"]
expect = "refuted"

[[check]]
name = "a thread's copy partition is a valid coalesce"
op = "coalesce"
args = ["partition_D($copy, (_128,_64):(_64,_1), t)"]

[[check]]
name = "retile_S of a fragment"
op = "coalesce"
args = ["retile_S($copy, (_8,_4,_2):(_1,_8,_32))"]
''')
    results = batch.run(spec.load_suite(path))
    assert [(r.check.name, r.verdict.verdict, r.matched) for r in results if not r.matched] == []
    partial = next(r for r in results if r.check.name.startswith("a partial tile"))
    assert {"M", "t"} <= set(partial.verdict.counterexample.params)


def test_spaces_are_free_as_in_cpp(capsys):
    copy = COPY.replace("uint128_t,uint128_t", "uint128_t, uint128_t")
    spaced = f" partition_S( {copy} , (_128,_64):(_64,_1) , 77 ) "
    assert run(capsys, "eval", spaced, "--json")[1] == run(capsys, "eval", PART_S, "--param", "t=77", "--json")[1]


def test_the_copy_partition_agrees_with_the_python_api(capsys):
    copy = parse_tiled(COPY)
    assert isinstance(copy, TiledCopy)
    part = copy.partition_S(parse_layout("(_128,_64):(_64,_1)"), 77)
    rc, out, err = run(capsys, "eval", PART_S, "--param", "t=77", "--json")
    assert rc == 0, err
    assert json.loads(out)["values"] == [int(part.offset) + int(part.layout(i)) for i in range(int(part.layout.size()))]


def test_the_pytest_helpers_take_partitions():
    from verifier.testing import assert_proved, assert_valid

    assert_proved("in_bounds", PART_C, "4096")
    assert_valid("coalesce", f"retile_D({COPY}, (_8,_4,_2):(_1,_8,_32))")
    with pytest.raises(AssertionError, match="refuted: in_bounds"):
        assert_proved("in_bounds", PART_C, "2048")


def test_eval_of_a_tiled_object_points_at_its_layouts(capsys):
    rc, out, err = run(capsys, "eval", MMA)
    assert rc == 2 and "a TiledMMA is not a layout: give one of its layouts, get_layoutC_TV(...)" in err, err
