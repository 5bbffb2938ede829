"""``cute-verify OP ...`` and ``cute-verify check ...``: the command-line contract of the engine.

Exit status 0 valid/proved, 1 invalid/refuted, 3 unknown, 2 bad input (one line, no traceback); ``--json`` prints
one object with the documented keys; human output starts with the verdict, then the counterexample table, the
condition and the guards.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from verifier.cli.app import main

KEYS = {"op", "inputs", "result", "verdict", "obligations", "counterexample", "condition",
        "condition_is_necessary"}
OBLIGATION_KEYS = {"id", "source", "description", "cute_checks", "status", "condition", "counterexample"}
COUNTEREXAMPLE_KEYS = {"params", "coordinate", "expected", "actual", "obligation"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# Realistic sizes: at the default 1 <= M, N <= 2^31-1 CuTe's ceil_div(M, _128) overflows (OVF-ARITH).
SIZES = ("--assume", "M <= 65536", "--assume", "N <= 16384")


def test_invalid_operation_exits_1_with_counterexample_and_guard(capsys) -> None:
    # A partial tile is a warning (issue 13): invalid, exit 1, only under --strict.
    rc, out, err = run(capsys, "zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--strict", *SIZES)
    assert rc == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("invalid: zipped_divide((M,N):(_1,M), <_128,_64>)")
    assert lines.index("counterexample:") < next(k for k, x in enumerate(lines) if x.startswith("condition:"))
    assert ("condition: M % 128 == 0 and N % 64 == 0  (sufficient: proved; necessary: proved; covers DIV-EXACT)"
            in lines)
    assert "    return M % 128 == 0 && N % 64 == 0;" in lines


def test_valid_operation_exits_0(capsys) -> None:
    rc, out, _ = run(capsys, "zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0",
                     "--assume", "N % 64 == 0", *SIZES)
    assert rc == 0 and out.startswith("valid: ")


def test_json_has_the_contract_keys(capsys) -> None:
    rc, out, _ = run(capsys, "composition", "(2,3):(1,2)", "(2,3):(3,1)", "--json")
    assert rc == 1
    obj = json.loads(out)
    assert KEYS <= set(obj)
    assert obj["verdict"] == "invalid" and obj["result"] == "((1,2),(2,1)):((3,4),(1,2))"
    assert obj["inputs"] == ["(2,3):(1,2)", "(2,3):(3,1)"]
    assert COUNTEREXAMPLE_KEYS <= set(obj["counterexample"])
    assert obj["counterexample"]["obligation"] == "CMP-POST"
    for ob in obj["obligations"]:
        assert OBLIGATION_KEYS <= set(ob)
        assert ob["status"] in ("proved", "refuted", "unknown")
    # The obligation the counterexample breaks is listed, refuted, with that counterexample.
    (broken,) = [ob for ob in obj["obligations"] if ob["id"] == "CMP-POST"]
    assert broken["status"] == "refuted" and broken["counterexample"] == obj["counterexample"]


def test_param_makes_the_problem_concrete(capsys) -> None:
    rc, out, _ = run(capsys, "upcast", "2", "(M,K):(K,_1)", "--param", "K=4", "--param", "M=8", "--json")
    obj = json.loads(out)
    assert rc == 0 and obj["verdict"] == "valid" and obj["result"] == "(8,2):(2,_1)"


def test_param_reaches_inside_a_composed_layout(capsys) -> None:
    """--param substitutes into a composed layout's inner layout as into a plain one: the same verdict as writing
    the value (issue 14's reproducer, which once ignored --param and answered unknown)."""
    written = run(capsys, "composition", "Sw<1,0,1> o _0 o (2,_2):(_2,_1)", "(_4):(_1)")
    param = run(capsys, "composition", "Sw<1,0,1> o _0 o (M,_2):(_2,_1)", "(_4):(_1)", "--param", "M=2")
    assert written[0] == param[0] == 0
    assert param[1].startswith("valid: composition(Sw<1,0,1> o _0 o (2,_2):(_2,_1), (_4):(_1))")
    assert written[1].splitlines()[:2] == param[1].splitlines()[:2]


def test_unknown_exits_3(capsys) -> None:
    rc, out, _ = run(capsys, "composition", "(M,N):(_1,M)", "(N,M):(M,_1)", "--timeout", "0.000001", "--json")
    assert rc == 3 and json.loads(out)["verdict"] == "unknown"


@pytest.mark.parametrize(("argv", "rc", "verdict"), [
    (["check", "injective", "(M,N):(_1,M)"], 0, "proved"),
    (["check", "injective", "(M,N):(_1,K)"], 1, "refuted"),
    (["check", "bijective", "(M,N):(N,_1)"], 0, "proved"),
    (["check", "surjective", "(M,_2):(_1,_0)", "M"], 0, "proved"),
    (["check", "in_bounds", "(M,N):(_1,M)", "M*N"], 0, "proved"),
    (["check", "equivalent", "(M,N):(_1,M)", "(M*N):(_1)", "--extended"], 0, "proved"),
    (["check", "no_overflow", "(M,N):(_1,M)"], 1, "refuted"),
    (["check", "no_overflow", "(M,N):(_1,M)", "--bits", "64"], 0, "proved"),
    (["check", "compatible", "(M,N)", "(M,(A,B))", "--assume", "N == A*B"], 0, "proved"),
])
def test_checks(capsys, argv: list[str], rc: int, verdict: str) -> None:
    got, out, _ = run(capsys, *argv, "--json")
    assert (got, json.loads(out)["verdict"]) == (rc, verdict)


BAD = [
    (["composition", "(2,3:(1,2)", "8:1"], "column 5"),
    (["upcast", "x", "8:1"], "positive integer"),
    (["upcast", "8:1"], "needs"),
    (["check", "sorted", "8:1"], "unknown property"),
    (["check", "injective", "8:1", "8:1"], "takes 1"),
    (["check", "injective", "(8,2)"], "must be a layout"),
    (["composition", "(M):(_1)", "(_2):(_1)", "--assume", "K >"], "--assume"),
    (["composition", "(M):(_1)", "(_2):(_1)", "--param", "Q=2"], "Q"),
    (["composition", "(M):(_1)", "(_2):(_1)", "--timeout", "-1"], "--timeout"),
    (["frobnicate", "8:1"], "frobnicate"),
]


@pytest.mark.parametrize(("argv", "word"), BAD)
def test_bad_input_exits_2_with_one_line(capsys, argv: list[str], word: str) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1 and word in err, (rc, out, err)
    assert "Traceback" not in err


def test_as_a_process() -> None:
    p = subprocess.run([sys.executable, "-m", "verifier.cli.app", "upcast", "2", "(16):(1)"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1 and p.stdout.startswith("invalid: upcast(2, (16):(1))") and "(16):(0)" in p.stdout


def test_guard_derivation_keeps_relations(capsys) -> None:
    # The guard search copies the symbol table; with a relation in it the copy must not fail.
    rc, out, err = run(capsys, "zipped_divide", "(M,K):(_1,ldA)", "<_128,_32>", "--assume", "ldA >= M",
                       "--assume", "ldA <= 65536", "--assume", "K <= 16384")
    assert rc == 0 and err == ""
    assert ("condition: M % 128 == 0 and K % 32 == 0  (sufficient: proved; necessary: proved; covers DIV-EXACT)"
            in out.splitlines())
