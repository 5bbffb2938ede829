"""Issue 29, class 7: a symbol's range is what the user says, an index starts at 0, and an assumption may not invent
a symbol.  Spec files, the command line and the pytest helpers declare ranges by one rule (core/symbols.py); the
answers at index 0 are judged against the compiled CuTe objects."""

from __future__ import annotations

import pytest

from verifier.cli.app import main
from verifier.core.errors import LayoutError
from verifier.core.symbols import Symbols, parse_declaration
from verifier.notation.cpp import parse
from verifier.run import problems
from verifier.run.spec import load

STRIDED = "(_4,_2):(_1,4*t)"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def assuming(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("assuming:"))


def test_a_stated_lower_bound_replaces_the_default(capsys) -> None:
    rc, out, _ = run(capsys, "check", "injective", STRIDED, "--assume", "t >= 0", "--assume", "t < 8")
    assert rc == 1 and out.startswith("refuted:"), out
    assert assuming(out) == "assuming: 0 <= t <= 7"
    assert "  0  (0, 4)" in out  # the counterexample is t=0


@pytest.mark.parametrize("argv", [["--assume", "t == 0"], ["--param", "t=0"], ["--symbol", "t=0..7"],
                                  ["--symbol", "t=0..", "--assume", "t < 8"]])
def test_every_way_of_saying_zero_admits_it(capsys, argv: list[str]) -> None:
    rc, out, err = run(capsys, "check", "injective", STRIDED, *argv)
    assert rc == 1 and out.startswith("refuted:"), (out, err)
    assert "0 <= t" in assuming(out)


def test_the_default_stays_for_an_extent_and_a_stated_bound_only_tightens(capsys) -> None:
    rc, out, _ = run(capsys, "check", "injective", STRIDED, "--assume", "t < 8")
    assert rc == 0 and assuming(out) == "assuming: 1 <= t <= 7"
    rc, out, _ = run(capsys, "check", "injective", STRIDED, "--assume", "t >= 2", "--assume", "t >= 0")
    assert rc == 0 and assuming(out).startswith("assuming: 2 <= t")
    rc, out, _ = run(capsys, "check", "injective", STRIDED, "--symbol", "t=..7")
    assert rc == 0 and assuming(out) == "assuming: 1 <= t <= 7"


@pytest.mark.parametrize(("argv", "words"), [
    (["--assume", "Q % 128 == 0"], ["--assume 'Q % 128 == 0'", "unknown symbol 'Q'", "no operand"]),
    (["--assume", "t + Q > 1"], ["unknown symbol 'Q'"]),
    (["--symbol", "Q=0..7"], ["--symbol Q", "no operand"]),
    (["--symbol", "t=0..7", "--symbol", "t=1..3"], ["twice"]),
    (["--symbol", "t=9..7"], ["empty range"]),
    (["--symbol", "t=0..99999999999"], ["does not fit in int32"]),
    (["--symbol", "t:0..7"], ["NAME=LO..HI"]),
])
def test_bad_declarations_are_one_line_naming_them(capsys, argv: list[str], words: list[str]) -> None:
    rc, out, err = run(capsys, "check", "injective", STRIDED, *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1, (rc, out, err)
    for w in words:
        assert w in err, (w, err)


def test_an_index_starts_at_zero_by_default_and_an_extent_at_one() -> None:
    symbols = Symbols()
    problems.build("local_partition", ["(M,N):(_1,M)", "(_2,_2):(_1,_2)", "t"], symbols, ["t < 4"])
    assert symbols.table["t"].describe() == "0 <= t <= 3"
    assert symbols.table["M"].lo == 1
    symbols = Symbols()  # a name that is an extent elsewhere is that extent
    problems.build("local_tile", ["(M,N):(_1,M)", "<_128,_64>", "(M,n)"], symbols)
    assert symbols.table["M"].lo == 1 and symbols.table["n"].lo == 0
    symbols = Symbols()  # a stated lower bound is the user's, also for an index
    problems.build("local_partition", ["(M,N):(_1,M)", "(_2,_2):(_1,_2)", "t"], symbols, ["t >= 1", "t < 4"])
    assert symbols.table["t"].describe() == "1 <= t <= 3"


def test_the_help_example_of_predicated_copy_decides_thread_and_tile_zero(capsys) -> None:
    from verifier.algebra.registry import REGISTRY

    rc, out, _ = run(capsys, "predicated_copy", *REGISTRY["predicated_copy"].example)
    assert rc == 0, out
    line = assuming(out)
    for index in ("0 <= t <= 255", "0 <= m", "0 <= k"):
        assert index in line, line


def test_spec_files_and_the_command_line_share_one_rule(tmp_path, capsys) -> None:
    spec = tmp_path / "k.cute.toml"
    spec.write_text('[symbols]\nM = { max = 4096 }\nN = { max = 4096 }\nt = { max = 3 }\ns = { min = 0, max = 7 }\n'
                    '[[check]]\nname = "part"\nop = "local_partition"\n'
                    'args = ["(M,N):(_1,M)", "(_2,_2):(_1,_2)", "t"]\n'
                    '[[check]]\nname = "strided"\nproperty = "injective"\nargs = ["(_4,_2):(_1,4*s)"]\n'
                    'expect = "refuted"\n')
    checks = {c.name: c for c in load([spec])}
    _, table = checks["part"].problem()
    cli = Symbols()
    problems.build("local_partition", ["(M,N):(_1,M)", "(_2,_2):(_1,_2)", "t"], cli, [],
                   declarations=["M=..4096", "N=..4096", "t=..3"])
    assert [table.table[n] for n in "MNt"] == [cli.table[n] for n in "MNt"]
    assert table.table["t"].describe() == "0 <= t <= 3"
    assert parse_declaration("s=0..7") in checks["strided"].symbols
    assert main(["run", str(spec)]) == 0, capsys.readouterr()


def test_the_pytest_helpers_declare_by_the_same_rule() -> None:
    from verifier.testing import assert_proved

    with pytest.raises(AssertionError, match="INJECTIVE"):
        assert_proved("injective", STRIDED, symbols={"t": {"min": 0, "max": 7}})
    assert_proved("injective", STRIDED, symbols={"t": {"max": 7}})
    with pytest.raises(LayoutError, match="unknown symbol 'Q'"):
        assert_proved("injective", STRIDED, assume=["Q > 1"])


@pytest.mark.cute
def test_zero_is_what_compiled_cute_breaks_at(capsys) -> None:
    """At t=0 the layout CuTe builds maps two coordinates to one offset, and thread 0's partition is where the
    tool's model (decided from 0 now) says it is."""
    from verifier.oracle.cute_cpp import Query, layout_case, run_cases, tensor_case

    layout = parse(STRIDED, Symbols())
    part = parse("(M,N):(_1,M)", Symbols())
    thr = parse("(_2,_2):(_1,_2)", Symbols())
    from verifier.core.integers import symbol

    [strided, thread0] = run_cases([layout_case(layout), tensor_case("local_partition", part, thr, coord=symbol("t"))],
                                   [Query(0, {"t": 0}), Query(1, {"M": 4, "N": 4, "t": 0})])
    assert strided.values is not None and len(set(strided.values)) < len(strided.values)  # not injective at t=0
    rc, out, _ = run(capsys, "check", "injective", STRIDED, "--symbol", "t=0..7")
    assert rc == 1 and "  0  (0, 4)" in out
    c0, c1 = 0, 4  # the witness: coordinates 0 and 4 collide in CuTe's layout
    assert strided.values[c0] == strided.values[c1]
    rc, out, _ = run(capsys, "local_partition", "(M,N):(_1,M)", "(_2,_2):(_1,_2)", "t", "--param", "M=4",
                     "--param", "N=4", "--param", "t=0")
    assert rc == 0, out
    assert f"result : {thread0.offset} o {thread0.result}\n" in out, (thread0, out)
    rc, out, _ = run(capsys, "local_partition", "(M,N):(_1,M)", "(_2,_2):(_1,_2)", "t", "--symbol", "t=..3")
    assert "0 <= t <= 3" in assuming(out)  # the symbolic answer covers that thread
