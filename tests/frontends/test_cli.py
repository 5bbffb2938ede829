"""The ``cute-verify`` command line: output of ``eval``, ``--json``, and exit status 2 with one line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.cli.app import main

ROOT = Path(__file__).resolve().parents[2]

# CuTe's print_layout of (3,(2,3)):(3,(12,1)) (util/print_tensor.hpp): cosize 21 has 2 digits, so cells are 4 wide.
TABLE = (
    "(3,(2,3)):(3,(12,1))\n"
    "       0    1    2    3    4    5 \n"
    "    +----+----+----+----+----+----+\n"
    " 0  |  0 | 12 |  1 | 13 |  2 | 14 |\n"
    "    +----+----+----+----+----+----+\n"
    " 1  |  3 | 15 |  4 | 16 |  5 | 17 |\n"
    "    +----+----+----+----+----+----+\n"
    " 2  |  6 | 18 |  7 | 19 |  8 | 20 |\n"
    "    +----+----+----+----+----+----+\n"
)
EVAL_OUTPUT = "(3,(2,3)):(3,(12,1))\nsize   : 18\ncosize : 21\n" + TABLE


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _colex_values(shape: list[int], stride: list[int]) -> list[int]:
    """Index of every 1-D coordinate of a flat layout, computed independently: colexicographic order."""
    n = 1
    for s in shape:
        n *= s
    values = []
    for i in range(n):
        idx, rest = 0, i
        for s, d in zip(shape, stride):
            idx += (rest % s) * d
            rest //= s
        values.append(idx)
    return values


# ----------------------------------------------------------------------------------------------------------------
# eval
# ----------------------------------------------------------------------------------------------------------------


def test_eval_prints_layout_size_cosize_and_table(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(3,(2,3)):(3,(12,1))")
    assert rc == 0
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "(3,(2,3)):(3,(12,1))"
    assert "size   : 18" in lines
    assert "cosize : 21" in lines
    assert "       0    1    2    3    4    5 " in lines
    assert " 0  |  0 | 12 |  1 | 13 |  2 | 14 |" in lines
    assert out == EVAL_OUTPUT


def test_eval_with_params_substitutes(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(M,N):(_1,M)", "--param", "M=2", "--param", "N=3")
    assert rc == 0 and err == ""
    assert out.splitlines()[:3] == ["(2,3):(_1,2)", "size   : 6", "cosize : 6"]
    assert " 1  | 1 | 3 | 5 |" in out.splitlines()


def test_eval_symbolic_without_params(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(M,N):(_1,M)")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "(M,N):(_1,M)"
    assert lines[1] == "size   : M*N"
    assert "M" in lines[3] and "N" in lines[3]
    assert "|" not in out


def test_eval_rank1_prints_every_index(capsys) -> None:
    rc, out, _ = run(capsys, "eval", "(8):(2)")
    assert rc == 0
    assert out.splitlines()[1:3] == ["size   : 8", "cosize : 15"]
    assert out.splitlines()[-1].split()[2:] == [str(2 * i) for i in range(8)]


# ----------------------------------------------------------------------------------------------------------------
# --json
# ----------------------------------------------------------------------------------------------------------------

KEYS = {"result", "size", "cosize", "values"}


def test_json_concrete(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(3,(2,3)):(3,(12,1))", "--json")
    assert rc == 0 and err == ""
    assert out.count("\n") == 1
    doc = json.loads(out)
    assert set(doc) == KEYS
    assert doc["result"] == "(3,(2,3)):(3,(12,1))"
    assert doc["size"] == "18"
    assert doc["cosize"] == "21"
    assert doc["values"] == _colex_values([3, 2, 3], [3, 12, 1])
    assert doc["values"] == [0, 3, 6, 12, 15, 18, 1, 4, 7, 13, 16, 19, 2, 5, 8, 14, 17, 20]


def test_json_with_params_is_concrete(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(M,N):(_1,M)", "--param", "M=2", "--param", "N=3", "--json")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == KEYS
    assert doc == {"result": "(2,3):(_1,2)", "size": "6", "cosize": "6", "values": [0, 1, 2, 3, 4, 5]}


def test_json_with_params_nested(capsys) -> None:
    rc, out, _ = run(capsys, "eval", "(M,(N,2)):(N*2,(1,M*N*2))", "--param", "M=3", "--param", "N=4", "--json")
    assert rc == 0
    doc = json.loads(out)
    assert set(doc) == KEYS
    assert doc["result"] == "(3,(4,2)):(8,(1,24))"
    assert doc["size"] == "24"
    assert doc["cosize"] == str(2 * 8 + 3 * 1 + 1 * 24 + 1)
    assert doc["values"] == _colex_values([3, 4, 2], [8, 1, 24])


def test_json_without_params_has_null_values(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(M,N):(_1,M)", "--json")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert doc["values"] is None
    assert doc["result"] == "(M,N):(_1,M)"
    assert doc["size"] == "M*N"


def test_json_without_params_has_exactly_the_documented_keys(capsys) -> None:
    """README and the brief: --json prints exactly {"result", "size", "cosize", "values"}."""
    rc, out, _ = run(capsys, "eval", "(M,N):(_1,M)", "--json")
    assert rc == 0
    assert set(json.loads(out)) == KEYS


# ----------------------------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------------------------

BAD = [
    pytest.param(["eval", "(2,3:(1,2)"], ["column 5"], id="malformed"),
    pytest.param(["eval", "(2,3):(1,(2,3))"], ["column 7", "congruent"], id="not-congruent"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "K=3"], ["K"], id="unknown-symbol-param"),
    pytest.param(["eval", "8:1", "--param", "M=1"], ["M"], id="param-without-symbols"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "M=abc"], ["M=abc"], id="param-not-integer"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "M"], ["NAME=INTEGER"], id="param-no-value"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "M=0", "--assume", "M >= 1"], ["M=0", "1 <= M"],
                 id="param-violates-assumption"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "M=0"], ["M=0", "non-positive extent"], id="param-zero-extent"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "M=-3"], ["M=-3"], id="param-negative"),
    pytest.param(["eval", "(M,N):(_1,M)", "--param", "M=2", "--param", "M=3"], ["twice"], id="param-twice"),
    pytest.param([], ["command"], id="no-subcommand"),
    pytest.param(["eval"], ["layout"], id="no-layout"),
    pytest.param(["frobnicate", "8:1"], ["frobnicate"], id="unknown-subcommand"),
    pytest.param(["eval", "8:1", "--bogus"], ["--bogus"], id="unknown-option"),
    pytest.param(["eval", ""], ["empty input"], id="empty-layout"),
    pytest.param(["eval", "(M):(4/(M-1))", "--param", "M=1"], ["division by zero"], id="division-by-zero-after-param"),
    pytest.param(["eval", "(M-2):(1)", "--param", "M=1"], ["-1"], id="negative-shape-after-param"),
]


@pytest.mark.parametrize(("argv", "words"), BAD)
def test_bad_input_exits_2_with_one_line(capsys, argv: list[str], words: list[str]) -> None:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse must not exit on its own
        pytest.fail(f"SystemExit({exc.code}) instead of a return value")
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("cute-verify: error: ")
    for w in words:
        assert w in err, (w, err)


def test_good_input_exits_0(capsys) -> None:
    assert main(["eval", "8:_1"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("8:_1\nsize   : 8\ncosize : 8\n") and err == ""


# ----------------------------------------------------------------------------------------------------------------
# As a process
# ----------------------------------------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "verifier.cli.app", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_subprocess_eval() -> None:
    proc = _cli("eval", "(3,(2,3)):(3,(12,1))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EVAL_OUTPUT
    assert proc.stderr == ""


def test_subprocess_bad_input() -> None:
    for args in (["eval", "(2,3):(1,(2,3))"], ["eval", "(M,N):(_1,M)", "--param", "M=0"], []):
        proc = _cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stdout == ""
        assert "Traceback" not in proc.stderr
        assert proc.stderr.startswith("cute-verify: error: ") and proc.stderr.count("\n") == 1, proc.stderr


def test_subprocess_division_by_zero_after_substitution() -> None:
    proc = _cli("eval", "(M):(4/(M-1))", "--param", "M=1")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("cute-verify: error: ") and proc.stderr.count("\n") == 1


def test_the_console_script_is_the_cli() -> None:
    """``cute-verify`` as installed: its entry point (pyproject's and the installed distribution's) is a callable,
    also ``verifier.cli:main`` of installs made before the command line became a package, and the script ends bad
    input in one line with exit 2 (a stale script once called the module ``verifier.cli.main`` and crashed)."""
    import importlib
    import importlib.metadata

    import verifier.cli
    import verifier.cli.app  # noqa: F401  (importing the dispatcher must not replace verifier.cli.main)
    from verifier.run.spec import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["cute-verify"]
    module, _, name = declared.partition(":")
    assert callable(getattr(importlib.import_module(module), name))
    assert callable(verifier.cli.main)
    (ep,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "cute-verify"]
    assert ep.value == declared and callable(ep.load())
    script = Path(sys.executable).parent / "cute-verify"
    assert script.is_file(), f"{script}: the package is not installed here (pip install -e .)"
    for argv, message in ((["composition", "(_2):(_1)"], "composition takes 2 operand(s)"),
                          (["upcast", "2", "3"], "operand 1 must be a layout"),
                          (["eval", "(2,3:(1,2)"], "column 5"),
                          (["zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--timeout", "inf"], "finite number")):
        p = subprocess.run([str(script), *argv], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and p.stdout == "", (argv, p.stdout, p.stderr)
        assert p.stderr.count("\n") == 1 and message in p.stderr, (argv, p.stderr)
    p = subprocess.run([str(script), "check", "--help"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith("usage: cute-verify check"), p.stderr
