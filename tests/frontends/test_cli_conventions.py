"""Issue 17, point 5: the conventions of the ecosystem (ruff, pytest): --version, help, the same flags on every
command, -q/-v, colour with NO_COLOR, [tool.cute-verify] defaults, run DIR, progress, assumptions printed once and
parseable, SARIF with uriBaseId, JUnit escaping, the committed GitHub Actions workflow."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from verifier import __version__
from verifier.cli.app import build_parser, command_of, main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out == f"cute-verify {__version__}\n"


def test_top_level_help_has_description_examples_and_exit_statuses(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "Prove or refute properties of CuTe layouts" in out
    assert "examples:\n  cute-verify zipped_divide" in out
    assert "exit status: 0 valid / proved" in out and "4 internal error (please report" in out
    assert "{eval,check" not in out  # commands listed one per line with their help, not a brace list
    assert re.search(r"^\s+crd2idx\s+the index CuTe computes", out, re.M)


COMMANDS_WITH = {
    "--param": ["eval", "check", "composition", "run", "draw", "crd2idx", "gpu", "prove"],
    "--assume": ["eval", "check", "composition", "run", "draw", "gpu", "prove"],
    "--timeout": ["check", "composition", "run", "draw", "prove", "gpu"],
    "--json": ["eval", "check", "composition", "run", "prove", "gpu", "crd2idx"],
    "-q": ["eval", "check", "composition", "run", "draw", "prove", "gpu", "crd2idx"],
    "--color": ["eval", "check", "composition", "run", "draw", "prove", "gpu", "crd2idx"],
}


@pytest.mark.parametrize("flag", sorted(COMMANDS_WITH))
def test_the_same_flags_on_every_command(flag: str) -> None:
    commands = build_parser().commands  # type: ignore[attr-defined]
    for name in COMMANDS_WITH[flag]:
        options = {o for a in commands[name]._actions for o in a.option_strings}
        assert flag in options, (name, flag)


def test_output_flag_is_dash_o_wherever_a_file_is_written() -> None:
    commands = build_parser().commands  # type: ignore[attr-defined]
    for name in ("run", "draw"):
        options = {o for a in commands[name]._actions for o in a.option_strings}
        assert {"-o", "--output"} <= options, name


def test_quiet_and_color(capsys, monkeypatch) -> None:
    argv = ["composition", "(M,N):(_1,M)", "(M,N):(N,_1)"]
    rc, out, _ = run(capsys, *argv, "-q")
    assert rc == 1 and out.count("\n") == 1 and out.startswith("invalid: composition(")
    rc, out, _ = run(capsys, *argv, "-q", "--color", "always")
    assert out.startswith("\x1b[31minvalid\x1b[0m: composition(")
    monkeypatch.setenv("NO_COLOR", "1")
    rc, out, _ = run(capsys, *argv, "-q", "--color", "auto")
    assert out.startswith("invalid: ")
    rc, out, _ = run(capsys, *argv, "--json", "--color", "always")
    assert "\x1b[" not in out and json.loads(out)["verdict"] == "invalid"  # never in JSON


def test_pyproject_defaults(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.cute-verify]\ncolor = "always"\ntimeout = 300\nquiet = true\n')
    rc, out, _ = run(capsys, "composition", "(M,N):(_1,M)", "(M,N):(N,_1)")
    assert out.startswith("\x1b[31minvalid") and out.count("\n") == 1
    rc, out, _ = run(capsys, "composition", "(M,N):(_1,M)", "(M,N):(N,_1)", "--color", "never")
    assert out.startswith("invalid")  # the command line wins
    (tmp_path / "pyproject.toml").write_text("[tool.cute-verify]\ntimeout = inf\n")
    rc, out, err = run(capsys, "eval", "_8:_1")
    assert rc == 2 and "pyproject.toml: [tool.cute-verify] timeout" in err
    (tmp_path / "pyproject.toml").write_text("[tool.cute-verify]\nfrobnicate = 1\n")
    rc, out, err = run(capsys, "eval", "_8:_1")
    assert rc == 2 and "option no command takes: frobnicate" in err


def test_pyproject_format_applies_to_the_commands_that_offer_it(capsys, tmp_path: Path, monkeypatch) -> None:
    # Each command has its own --format choices: a value is set where it is offered, an error only where no
    # command offers it (issue 29, 12).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.cute-verify]\nformat = "json"\n')
    rc, out, err = run(capsys, "composition", "(M,N):(_1,M)", "(M,N):(N,_1)")
    assert rc == 1 and json.loads(out)["verdict"] == "invalid", err
    rc, out, err = run(capsys, "draw", "(_2,_2):(_1,_2)", "-o", "x.svg")  # draw's formats: from OUT
    assert rc == 0 and (tmp_path / "x.svg").read_text().startswith("<"), err
    (tmp_path / "pyproject.toml").write_text('[tool.cute-verify]\nformat = "sarif"\n')
    spec = tmp_path / "a.cute.toml"
    spec.write_text('[[check]]\nname = "c"\nop = "coalesce"\nargs = ["(_2,_2):(_1,_2)"]\n')
    rc, out, err = run(capsys, "run", str(spec), "--no-cache")
    assert rc == 0 and json.loads(out)["version"] == "2.1.0", err
    rc, out, err = run(capsys, "coalesce", "(_2,_2):(_1,_2)")  # no sarif here: the text report
    assert rc == 0 and out.startswith("valid"), err
    (tmp_path / "pyproject.toml").write_text('[tool.cute-verify]\nformat = "yaml"\n')
    rc, out, err = run(capsys, "coalesce", "(_2,_2):(_1,_2)")
    assert rc == 2 and "[tool.cute-verify] format must be one of" in err and "sarif" in err and "svg" in err


def test_run_discovers_spec_files_below_a_folder(capsys, tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()
    check = '[[check]]\nname = "{}"\nproperty = "bijective"\nargs = ["(_4,_8):(_1,_4)"]\n'
    (tmp_path / "a" / "one.cute.toml").write_text(check.format("one"))
    (tmp_path / "a" / "b" / "two.cute.toml").write_text(check.format("two"))
    (tmp_path / ".hidden" / "three.cute.toml").write_text(check.format("three"))
    (tmp_path / "a" / "notes.toml").write_text("x = 1\n")
    rc, out, _ = run(capsys, "run", str(tmp_path), "--no-cache", "--json")
    names = [r["check"] for r in json.loads(out)["results"]]
    assert rc == 0 and sorted(names) == ["one", "two"]
    assert "three" not in names
    rc, _, err = run(capsys, "run", str(tmp_path / "a" / "b" / ".."), "--no-cache", "-q")
    assert rc == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, _, err = run(capsys, "run", str(empty))
    assert rc == 2 and "no *.cute.toml below this folder" in err


def test_progress_line_only_on_a_terminal(monkeypatch, capsys) -> None:
    from verifier.run.status import StatusLine, progress

    items = [1, 2, 3]
    assert list(progress(items, 3, True)) == items and capsys.readouterr().err == ""  # not a terminal here
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert list(progress(items, 3, True, lambda k: f"item {k}")) == items
    err = capsys.readouterr().err
    assert "[2/3]" in err and "deciding item 3" in err and err.endswith("\r\x1b[K")  # drawn, then erased
    assert list(progress(items, 3, False)) == items and capsys.readouterr().err == ""
    assert not StatusLine(lambda: "x", enabled=False).enabled


def test_assumptions_printed_once_and_parse_back(capsys) -> None:
    from verifier import Symbols, parse_relation

    rc, out, _ = run(capsys, "zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0",
                     "--assume", "1 <= N <= 4096", "--assume", "N <= 2*M")
    line = next(x for x in out.splitlines() if x.startswith("assuming: "))
    assert line == "assuming: 1 <= M <= 2147483647, M % 128 == 0; 1 <= N <= 4096; N <= 2*M"
    table = Symbols()
    for part in re.split(r"; |, ", line.removeprefix("assuming: ")):
        parse_relation(part, table)  # every printed assumption parses back


def test_chained_assumption(capsys) -> None:
    rc, out, _ = run(capsys, "check", "in_bounds", "(M):(_1)", "_64", "--assume", "1 <= M <= 64")
    assert rc == 0 and out.startswith("proved: ")
    rc, out, _ = run(capsys, "check", "in_bounds", "(M):(_1)", "_64", "--assume", "1 <= M <= 65")
    assert rc == 1 and "65" in out


SPEC = '''[[check]]
name = "bad\\u0001name <&> \\"quoted\\""
op = "composition"
args = ["(2,3):(1,2)", "(2,3):(3,1)"]
expect = "valid"
'''


def test_sarif_locations_are_relative_to_the_repository(capsys, tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "kernels").mkdir()
    (repo / "kernels" / "k.cute.toml").write_text(SPEC)
    logs = []
    for cwd in (repo, repo / "kernels", tmp_path):
        monkeypatch.chdir(cwd)
        spec = Path(repo / "kernels" / "k.cute.toml")
        rc, out, _ = run(capsys, "run", str(spec.relative_to(cwd) if cwd != tmp_path else spec), "--no-cache",
                         "--format", "sarif")
        log = json.loads(out)
        loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        logs.append(loc)
        assert log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.resolve().as_uri() + "/"
    assert logs[0] == logs[1] == logs[2] == {"uri": "kernels/k.cute.toml", "uriBaseId": "SRCROOT"}


def test_junit_escapes_any_name(capsys, tmp_path: Path) -> None:
    (tmp_path / "k.cute.toml").write_text(SPEC)
    rc, out, _ = run(capsys, "run", str(tmp_path / "k.cute.toml"), "--no-cache", "--format", "junit")
    root = ET.fromstring(out)  # well-formed XML
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == 'bad\\x01name <&> "quoted"'


def test_workflow_is_the_one_the_docs_describe() -> None:
    import yaml

    text = (ROOT / ".github" / "workflows" / "layouts.yml").read_text()
    readme = (ROOT / "docs" / "ci.md").read_text()
    m = re.search(r"JUnit report in the run's artifacts:\n\n```yaml\n(.*?)```", readme, re.S)
    assert m and m.group(1) == text
    wf = yaml.safe_load(text)
    job = wf["jobs"]["cute-layouts"]
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert any("cute-verify run examples/gemm.cute.toml" in r for r in runs)
    assert job["strategy"]["matrix"]["shard"] == [1, 2]
    # Each command of the workflow parses with this CLI.
    parser = build_parser()
    for r in runs:
        for line in r.splitlines():
            if line.startswith("cute-verify "):
                argv = line.split("|")[0].replace("${{ matrix.shard }}", "1").split()[1:]
                parser.parse_args(argv)


def test_version_in_a_subprocess() -> None:
    p = subprocess.run([sys.executable, "-m", "verifier.cli.app", "--version"], capture_output=True, text=True,
                       cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0 and p.stdout == f"cute-verify {__version__}\n"


def test_anonymous_symbols_print_and_parse_back(capsys) -> None:
    from verifier import Symbols, parse_relation
    from verifier.notation.interop import parse_dsl

    rc, out, _ = run(capsys, "composition", "(?,?{div=64}):(1,?)", "<_64>", "--assume", "1 <= ?2 <= 128")
    line = next(x for x in out.splitlines() if x.startswith("assuming: "))
    assert "1 <= ?2 <= 128, ?2 % 64 == 0" in line
    table = Symbols()
    parse_dsl("(?,?{div=64}):(1,?)", table)
    for part in re.split(r"; |, ", line.removeprefix("assuming: ")):
        parse_relation(part, table)
    rc, _, err = run(capsys, "composition", "(?,4):(1,?)", "<_2>", "--assume", "?7 <= 4")
    assert rc == 2 and "unknown symbol '?7'" in err


def test_prove_param_narrows_the_theorems_that_declare_it(capsys) -> None:
    path = str(ROOT / "proofs" / "divide_product.py")
    rc, out, _ = run(capsys, "prove", path, "--json")
    before = {r["theorem"]: r["verdict"] for r in json.loads(out)}
    rc, out, _ = run(capsys, "prove", path, "--json", "--param", "M=128")
    after = {r["theorem"]: r["verdict"] for r in json.loads(out)}
    assert before["logical-divide-strided-needs-16"] == "refuted"
    assert after["logical-divide-strided-needs-16"] == "proved" and rc == 1  # M=128 is a multiple of 16


def _shape(parser: argparse.ArgumentParser) -> list[tuple[object, ...]]:
    return [(a.dest, tuple(a.option_strings), a.nargs, a.default, a.choices, a.required, a.help)
            for a in parser._actions]


def test_a_command_line_builds_its_own_command_alone_and_the_same() -> None:
    """``main`` builds only the parser of the command it runs (issue 16: start-up): for every command, that parser
    is the one the whole command line has, and a word that is no command gets the whole parser (its error lists
    them all)."""
    whole = build_parser().commands  # type: ignore[attr-defined]
    for name in whole:
        assert command_of([name, "x"]) == name and command_of(["--debug", name]) == name
        alone = build_parser(only=name).commands  # type: ignore[attr-defined]
        assert name in alone and len(alone) < len(whole), name  # a module's commands come together (gmma_*)
        for other in alone:
            assert _shape(alone[other]) == _shape(whole[other]), (name, other)
            assert (alone[other].epilog, alone[other].description) == (whole[other].epilog, whole[other].description)
    assert command_of(["compositon", "(_2):(_1)"]) is None
    assert command_of(["--help"]) is None and command_of(["--version"]) is None and command_of([]) is None


def test_a_misspelled_command_is_reported_against_every_command(capsys) -> None:
    rc, _, err = run(capsys, "compositon", "(_2):(_1)", "(_2):(_1)")
    assert rc == 2 and "unknown command 'compositon' (did you mean 'composition'?)" in err
    rc, _, err = run(capsys, "evl", "(_2):(_1)")  # a fixed command, known only to the whole parser
    assert rc == 2 and "unknown command 'evl' (did you mean 'eval'?)" in err
    rc, _, err = run(capsys, "xyzzy", "(_2):(_1)")
    assert rc == 2 and "unknown command 'xyzzy'; cute-verify --help" in err and "did you mean" not in err


@pytest.mark.parametrize(("argv", "expected"), [
    (["check", "injectve", "_2:_1"], "unknown property 'injectve' (did you mean 'injective'?)"),
    (["composition", "_2:_1", "_2:_1", "--asume", "M > 0"], "--asume M > 0 (did you mean '--assume'?)"),
    (["eval", "_2:_1", "--parm", "M=1"], "(did you mean '--param'?)"),
])
def test_a_misspelled_property_or_option_gets_a_suggestion(capsys, argv, expected) -> None:
    rc, _, err = run(capsys, *argv)
    assert rc == 2 and expected in err, err


@pytest.mark.parametrize("text", [
    '[tool.cute-verify]\nquiet = true\n',
    '[ tool . "cute-verify" ]\nquiet = true\n',
    '[tool]\ncute-verify = { quiet = true }\n',
    '[tool]\n"cute-verify".quiet = true\n',
    'tool.cute-verify.quiet = true\n',
    'tool = { cute-verify = { quiet = true } }\n',
    '[tool.ruff]\nline-length = 120\n[tool.cute-verify]\nquiet = true\n',
    '[project.scripts]\ncute-verify = { quiet = true }\n[tool.cute-verify]\nquiet = true\n',
])
def test_every_spelling_of_the_table_is_read(capsys, tmp_path: Path, monkeypatch, text: str) -> None:
    """The TOML parser is skipped for a pyproject that cannot configure us (issue 16: start-up); each way TOML
    can spell ``[tool.cute-verify]`` is still read (here ``quiet``: the verdict line only)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(text)
    rc, out, _ = run(capsys, "composition", "(M,N):(_1,M)", "(M,N):(N,_1)")
    assert rc == 1 and out.count("\n") == 1, (text, out)


def test_a_pyproject_that_only_names_the_console_script_is_not_parsed(capsys, tmp_path: Path, monkeypatch) -> None:
    """A project that installs us mentions ``cute-verify`` only as a console script (or in a comment): no table
    can be there, so the TOML parser is not run, even on a file it would reject."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project.scripts]\ncute-verify = "verifier.cli:main"\n'
                                             '# configure cute-verify later\n[project]\nname = = broken\n')
    rc, out, err = run(capsys, "eval", "_8:_1")
    assert rc == 0 and err == "" and out.startswith("_8:_1")
    (tmp_path / "pyproject.toml").write_text('[tool]\ncute-verify = "oops"\n')
    rc, out, err = run(capsys, "eval", "_8:_1")
    assert rc == 2 and "[tool.cute-verify] must be a table" in err
