"""`cute-verify dsl FILE.py::FUNCTION`: the tracer of a user's host-side @cute.jit function, on the bundled
example (examples/dsl_tiles.py, one planted layout bug, and its fixed version) and on small programs written here."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from verifier.cli.app import main
from verifier.core.layouts import Layout
from verifier.dsl import assert_layouts_valid, crosscheck, trace, verify_function
from verifier.dsl.harness import DslCase, run
from verifier.notation.cpp import parse_layout

ROOT = Path(__file__).resolve().parents[2]
BUGGY = "examples/dsl_tiles.py::cta_tile"
FIXED = "examples/dsl_tiles_fixed.py::cta_tile"
# Realistic sizes (tests/support/sizes.py): near 2^31 CuTe's ceil_div(M, _128) itself overflows int32.
ARGS = ["--arg", "M=1..16384", "--arg", "K=1..16384", "--arg", "lda=1..16384", "--arg", "bm=0..127",
        "--arg", "bk=0..511", "--assume", "bm*128 < M", "--assume", "bk*32 < K"]
RANGES = {"M": (1, 16384), "K": (1, 16384), "lda": (1, 16384), "bm": (0, 127), "bk": (0, 511)}
RELATIONS = ["bm*128 < M", "bk*32 < K"]
SCHEMA = Path(__file__).parents[1] / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(autouse=True)
def _root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _line(path: str, text: str) -> int:
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if text in line)


@pytest.mark.cute
def test_the_planted_bug_is_found_at_its_line(capsys) -> None:
    assert main(["dsl", BUGGY, *ARGS]) == 1
    out = capsys.readouterr().out
    line = _line("examples/dsl_tiles.py", "vec = cute.recast_layout")
    assert f"examples/dsl_tiles.py:{line}: invalid: cute.recast_layout(128, 16, (_128,_32):(lda,_1))" in out
    assert "counterexample: M=" in out and "lda=" in out and "?" not in out.split("counterexample:")[1].split("\n")[0]
    assert "1 valid, 1 invalid" in out
    assert "the CuTe DSL's own trace of the function agrees with the tracer at every operation" in out


@pytest.mark.cute
def test_the_fixed_version_is_valid(capsys) -> None:
    assert main(["dsl", FIXED, *ARGS]) == 0
    out = capsys.readouterr().out
    assert "2 valid, 0 invalid, 0 unknown" in out and "lda % 8 == 0 (line" in out


@pytest.mark.cute
def test_the_counterexample_replays_in_the_dsl() -> None:
    """The refutation's values, run through the real DSL: the 128-bit view's row stride times 8 is not lda."""
    t, findings = verify_function(BUGGY, RANGES, RELATIONS)
    bad = [f for f in findings if f.verdict.verdict == "invalid"]
    assert len(bad) == 1
    params = bad[0].verdict.counterexample.params
    assert set(params) <= set(t.params) and params["lda"] % 8 != 0
    tile = parse_layout("(_128,_32):(lda,_1)")
    (r,) = run([DslCase("recast_layout", (16, 128, tile), ({"lda": params["lda"]},))])
    stride = int(r.values[0].split(":")[1].strip("()").split(",")[0])
    assert stride * 8 != params["lda"]


def test_json_and_sarif_reports(capsys, tmp_path) -> None:
    assert main(["dsl", BUGGY, *ARGS, "--format", "json", "--no-crosscheck"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["function"] == "cta_tile" and report["semantics"] == "dsl" and report["exit_code"] == 1
    ops = {o["line"]: o for o in report["operations"]}
    line = _line("examples/dsl_tiles.py", "vec = cute.recast_layout")
    assert ops[line]["verdict"] == "invalid" and ops[line]["dsl_result"] == "(128,4):(?,1)"
    assert [f["fact"] for f in report["facts"]] == ["M % 128 == 0", "K % 32 == 0"]
    out = tmp_path / "dsl.sarif"
    assert main(["dsl", BUGGY, *ARGS, "--format", "sarif", "--output", str(out), "--no-crosscheck"]) == 1
    log = json.loads(out.read_text())
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).validate(log)
    (result,) = log["runs"][0]["results"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("examples/dsl_tiles.py") and loc["region"]["startLine"] == line
    assert result["level"] == "error" and "lda=" in result["message"]["text"]


def test_python_api_and_pytest_helper() -> None:
    assert_layouts_valid(FIXED, RANGES, RELATIONS)
    with pytest.raises(AssertionError, match="invalid: cute.recast_layout"):
        assert_layouts_valid(BUGGY, RANGES, RELATIONS)


@pytest.mark.cute
def test_the_dsl_traces_the_same_forms() -> None:
    for target in (BUGGY, FIXED):
        assert crosscheck(trace(target, RANGES, RELATIONS)) == []


PROGRAM = '''
import cutlass
import cutlass.cute as cute


@cute.jit
def f(M: cutlass.Int32, N: cutlass.Int32):
    A = cute.make_layout((M, N))
    tid = cute.arch.thread_idx()[0]
    part = cute.zipped_divide(A, (32, 4))
    row = cute.make_layout((8, tid), stride=(1, 8))
    comp = cute.composition(row, cute.make_layout(4, stride=2))
    frag = cute.make_fragment_like(A)
    bad = cute.right_inverse(A)
'''


def test_untied_values_refusals_and_divides(tmp_path, capsys) -> None:
    src = tmp_path / "prog.py"
    src.write_text(PROGRAM)
    sizes = ["--arg", "M=1..16384", "--arg", "N=1..16384"]
    rc = main(["dsl", f"{src}::f", "--no-crosscheck", *sizes])
    out = capsys.readouterr().out
    assert rc == 1
    assert f"{src}:10: valid: cute.zipped_divide((M,N):(_1,M), (_32,_4))" in out  # a partial last tile: a warning
    assert "  warning: DIV-EXACT fails" in out
    assert "untied: u1_L9 = cute.arch.thread_idx() at line 9" in out and "unconstrained" in out
    assert "untied run-time values (unconstrained): u1_L9" in out
    assert f"{src}:14: invalid: cute.right_inverse((M,N):(_1,M)): the CuTe DSL refuses this while tracing" in out
    assert "not modelled: cute.make_fragment_like(...) at line 13: the tracer does not verify it" in out
    assert main(["dsl", f"{src}::f", "--no-crosscheck", "--strict", *sizes]) == 1
    assert f"{src}:10: invalid: cute.zipped_divide" in capsys.readouterr().out
    t = trace(f"{src}::f")
    assert [r.op for r in t.ops] == ["zipped_divide", "composition", "right_inverse"]
    assert isinstance(t.ops[1].args[0], Layout)


def test_an_error_in_the_user_s_code_is_bad_input(tmp_path, capsys) -> None:
    src = tmp_path / "raises.py"
    src.write_text("import cutlass\nimport cutlass.cute as cute\n\n\n@cute.jit\ndef f(M: cutlass.Int32):\n"
                   "    L = cute.make_layout((M, 4))\n    {}['missing']\n")
    assert main(["dsl", f"{src}::f", "--no-crosscheck"]) == 2
    err = capsys.readouterr().err
    assert f"{src}:8: the function raised KeyError" in err and err.count("\n") == 1


def test_a_syntax_error_is_reported_at_its_line(tmp_path, capsys) -> None:
    src = tmp_path / "broken.py"
    src.write_text("import cutlass\nimport cutlass.cute as cute\n\n\ndef f(M: cutlass.Int32):\n"
                   "    L = cute.make_layout((M, 4)\n    return L\n")
    assert main(["dsl", f"{src}::f", "--no-crosscheck"]) == 2
    err = capsys.readouterr().err
    assert f"{src}:6: importing it raised SyntaxError" in err and err.count("\n") == 1, err


def test_a_target_that_is_not_a_function_is_bad_input(tmp_path, capsys) -> None:
    # a class has no Python body to trace: once an internal error (AttributeError: __globals__)
    src = tmp_path / "klass.py"
    src.write_text("class k:\n    def __init__(self, M: int) -> None:\n        pass\n")
    assert main(["dsl", f"{src}::k", "--no-crosscheck"]) == 2
    err = capsys.readouterr().err
    assert "'k' is not a Python function" in err and err.count("\n") == 1, err


@pytest.mark.cute
def test_the_crosscheck_takes_a_relative_path_outside_the_repository(tmp_path, monkeypatch) -> None:
    # The real DSL runs in a subprocess whose working folder is the package root: a path relative to the user's
    # folder must reach it resolved.
    (tmp_path / "prog.py").write_text(PROGRAM.replace("    tid = cute.arch.thread_idx()[0]\n", "")
                                      .replace("(8, tid)", "(8, 4)").replace("    frag = cute.make_fragment_like(A)\n",
                                                                            ""))
    monkeypatch.chdir(tmp_path)
    t = trace("prog.py::f", {"M": (1, 64), "N": (1, 64)})
    assert [r.op for r in t.ops] == ["zipped_divide", "composition", "right_inverse"]
    assert crosscheck(t) == []


@pytest.mark.parametrize("argv, message", [
    (["dsl", "nowhere.py::f"], "nowhere.py: no such file"),
    (["dsl", "examples/dsl_tiles.py"], "expected FILE.py::FUNCTION"),
    (["dsl", "examples/dsl_tiles.py::nope"], "no function 'nope'"),
    (["dsl", BUGGY, "--arg", "M=9..1"], "the range is empty"),
    (["dsl", BUGGY, "--arg", "Q=1..2"], "cta_tile has no parameter of that name"),
    (["dsl", BUGGY, "--arg", "M"], "expected NAME=LO..HI"),
])
def test_bad_input_is_one_line_exit_2(argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
