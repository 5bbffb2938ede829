"""Two severities with CuTe's documented contract as the line (issue 13): results CuTe documents (and CUTLASS's
unit tests assert) are ``valid``, with a warning where a stricter clause fails; ``--strict`` makes each warning an
error with the same counterexample and guard; ``--select`` / ``--ignore`` pick obligations as ruff does; spec files,
SARIF and JUnit carry the severities."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from verifier.cli.app import main
from verifier.core.errors import LayoutError
from verifier.core.obligations import ERRORS, WARNINGS, severity
from verifier.core.symbols import Symbols
from verifier.engine.verdicts import INVALID, VALID, Policy
from verifier.engine.verify import verify
from verifier.run import problems

ROOT = Path(__file__).resolve().parents[2]


def _json(capsys, *argv: str) -> tuple[int, dict]:
    rc = main([*argv, "--json"])
    out, _ = capsys.readouterr()
    return rc, json.loads(out)


# CUTLASS's unit tests assert these results (logical_divide.cpp, left_inverse.cpp): never invalid.
CUTLASS_ASSERTED = [
    (["logical_divide", "48:_1", "_32:_1"], "DIV-EXACT"),
    (["logical_divide", "_48:_1", "_32:_1"], "DIV-EXACT"),
    (["left_inverse", "((_3,_7)):((_0,_0))"], "LI-3"),
    (["complement", "(_4,_2):(_1,_16)", "40"], "CPL-POST-BOUND"),
    # A realistic bound: at K near 2^31 CuTe's ceil_div(K, _32) overflows (OVF-ARITH, an error).
    (["complement", "(_4,_2):(_1,_16)", "K", "--assume", "K <= 65536"], "CPL-POST-BOUND"),
    (["upcast", "2", "(4):(32)"], "RC-SIZE"),
    (["upcast", "4", "1:_1"], "RC-SIZE"),
]


# Realistic problem sizes for the divides: at the default 1 <= M, N <= 2^31-1 CuTe's ceil_div(M, _128) overflows
# (OVF-ARITH, an error: tests/test_overflow.py); these tests are about the partial tiles.
SIZES = ["--assume", "M <= 65536", "--assume", "N <= 16384"]


@pytest.mark.parametrize(("argv", "warning"), CUTLASS_ASSERTED)
def test_documented_results_are_valid_with_a_warning_and_invalid_under_strict(capsys, argv, warning) -> None:
    rc, v = _json(capsys, *argv)
    assert rc == 0 and v["verdict"] == VALID, v["reason"]
    assert warning in v["warnings"]
    failing = [o for o in v["obligations"] if o["id"] == warning and o["status"] == "refuted"]
    assert failing and failing[0]["severity"] == "warning" and failing[0]["counterexample"] is not None
    rc, s = _json(capsys, *argv, "--strict")
    assert rc == 1 and s["verdict"] == INVALID and "an error under --strict" in s["reason"]
    assert s["counterexample"]["obligation"] in v["warnings"]


def test_left_inverse_quasi_inverse_is_the_error(capsys) -> None:
    rc, v = _json(capsys, "left_inverse", "((_3,_7)):((_0,_0))")
    li_post = next(o for o in v["obligations"] if o["id"] == "LI-POST")
    assert li_post["status"] == "proved" and li_post["severity"] == "error"


@pytest.mark.parametrize("op", ["zipped_divide", "logical_divide", "tiled_divide", "flat_divide"])
def test_partial_tiles_are_warnings_with_their_guard(capsys, op: str) -> None:
    rc, v = _json(capsys, op, "(M,N):(_1,M)", "<_128,_64>", "--timeout", "20", *SIZES)
    assert rc == 0 and v["verdict"] == VALID and v["warnings"] == ["DIV-EXACT", "DIV-EXACT"]
    cex = next(o["counterexample"] for o in v["obligations"] if o["id"] == "DIV-EXACT")
    assert cex["params"] == {"M": 1, "N": 1}
    assert v["condition"] == "M % 128 == 0 and N % 64 == 0" and v["condition_covers"] == ["DIV-EXACT"]
    assert "return M % 128 == 0 && N % 64 == 0;" in v["guard_cpp"]
    rc, s = _json(capsys, op, "(M,N):(_1,M)", "<_128,_64>", "--strict", "--timeout", "20", *SIZES)
    assert rc == 1 and s["verdict"] == INVALID
    assert s["counterexample"] == cex
    assert (s["condition"], s["guard_cpp"], s["condition_covers"]) == (v["condition"], v["guard_cpp"],
                                                                        v["condition_covers"])


def test_text_output_lists_the_warnings(capsys) -> None:
    assert main(["zipped_divide", "(M,N):(_1,M)", "<_128,_64>", *SIZES]) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: zipped_divide((M,N):(_1,M), <_128,_64>) (2 warnings; --strict makes them errors)")
    assert "warning: DIV-EXACT fails: the tiles cover A exactly" in out and "covers DIV-EXACT" in out
    assert "(warning): the tiles cover A exactly" not in out  # each failing warning is shown once (ruff's way)
    assert main(["zipped_divide", "(M,N):(_1,M)", "<_128,_64>", *SIZES, "-v"]) == 0
    assert "[refuted] DIV-EXACT (layout.hpp:1555-1582) (warning): the tiles cover A exactly" in capsys.readouterr().out


def test_real_cute_bugs_stay_errors(capsys) -> None:
    rc, v = _json(capsys, "upcast", "2", "(16):(1)")
    assert rc == 1 and v["verdict"] == INVALID and v["counterexample"]["obligation"] == "UP-2"
    rc, v = _json(capsys, "composition", "(2,3):(1,2)", "(2,3):(3,1)")
    assert rc == 1 and v["counterexample"]["obligation"].startswith("CMP")


def test_select_and_ignore_pick_obligations_like_ruff(capsys) -> None:
    rc, v = _json(capsys, "zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--ignore", "DIV-EXACT", "--strict",
                  *SIZES)
    assert rc == 0 and v["verdict"] == VALID and v["warnings"] == []
    assert {o["severity"] for o in v["obligations"] if o["id"] == "DIV-EXACT"} == {"ignored"}
    # A prefix selects every ID under it: CMP selects CMP-POST and CMP-POST-SIZE.
    rc, v = _json(capsys, "composition", "(2,3):(1,2)", "(2,3):(3,1)", "--select", "CMP")
    assert rc == 1 and v["verdict"] == INVALID
    rc, v = _json(capsys, "composition", "(2,3):(1,2)", "(2,3):(3,1)", "--ignore", "CMP-POST,CMP-POST-SIZE")
    assert rc == 0 and v["verdict"] == VALID
    rc, v = _json(capsys, "composition", "(2,3):(1,2)", "(2,3):(3,1)", "--select", "DIV-EXACT")
    assert rc == 0
    assert main(["composition", "(2,3):(1,2)", "(2,3):(3,1)", "--select", "CMP-POTS"]) == 2
    assert "unknown obligation 'CMP-POTS'" in capsys.readouterr().err


def test_every_obligation_has_one_severity_and_a_justification() -> None:
    assert not set(ERRORS) & set(WARNINGS)
    assert all(text.strip() for text in (*ERRORS.values(), *WARNINGS.values()))
    doc = (ROOT / "docs" / "semantics.md").read_text()
    for id in (*ERRORS, *WARNINGS):
        assert f"| `{id}` | {severity(id)} |" in doc, id


def test_python_api_policy() -> None:
    table = Symbols()
    args = problems.build("zipped_divide", ["(M,N):(_1,M)", "<_128,_64>"], table)
    table.declare("M", hi=65536)
    table.declare("N", hi=16384)
    assert verify("zipped_divide", args, table, derive=False).verdict == VALID
    assert verify("zipped_divide", args, table, derive=False, policy=Policy(strict=True)).verdict == INVALID
    with pytest.raises(LayoutError):
        Policy(select=("NOPE",))


SPEC = '''{strict}
[symbols]
M = {{ min = 1, max = 4096 }}
N = {{ min = 1, max = 4096 }}

[[check]]
name = "tiles"
op = "zipped_divide"
args = ["(M,N):(_1,M)", "<_128,_64>"]
{ignore}
'''


def test_spec_files_strict_and_ignore(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.cute.toml").write_text(SPEC.format(strict="", ignore=""))
    assert main(["run", "a.cute.toml", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["run", "a.cute.toml", "--no-cache", "--format", "sarif"]) == 0
    sarif = json.loads(capsys.readouterr().out)
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("DIV-EXACT", "warning")] * 2
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["DIV-EXACT"]["defaultConfiguration"]["level"] == "warning"
    assert rules["DIV-POST"]["defaultConfiguration"]["level"] == "error"
    assert main(["run", "a.cute.toml", "--no-cache", "--format", "junit"]) == 0
    case = ET.fromstring(capsys.readouterr().out).find(".//testcase")
    assert case is not None and case.find("failure") is None
    assert "warning: DIV-EXACT fails" in (case.findtext("system-out") or "")

    Path("b.cute.toml").write_text(SPEC.format(strict="strict = true", ignore=""))
    assert main(["run", "b.cute.toml", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "invalid, expected valid" in out
    Path("c.cute.toml").write_text(SPEC.format(strict="strict = true", ignore='ignore = ["DIV-EXACT"]'))
    assert main(["run", "c.cute.toml", "--no-cache"]) == 0
    capsys.readouterr()
    Path("d.cute.toml").write_text(SPEC.format(strict="", ignore='ignore = ["DIV-EXAKT"]'))
    assert main(["run", "d.cute.toml", "--no-cache"]) == 2
    assert "d.cute.toml:10: check[0].ignore: unknown obligation 'DIV-EXAKT'" in capsys.readouterr().err


def test_the_guard_search_says_when_it_found_nothing() -> None:
    from verifier.engine.guards import NO_GUARD, NO_GUARD_IN_TIME, derive_guard
    from verifier.solver.budget import Budget

    table = Symbols()
    args = problems.build("zipped_divide", ["(M,N):(_1,M)", "<_128,_64>"], table)
    assert derive_guard("zipped_divide", args, table, Budget(0)) == (None, NO_GUARD_IN_TIME)
    # No candidate of the form X % t == 0 / X >= 2 removes an overshooting complement bound for every S.
    table = Symbols()
    args = problems.build("complement", ["(M):(S)", "N"], table, ["S <= 15", "M <= 16", "N <= 16"])
    v = verify("complement", args, table, timeout=20)
    assert v.verdict == VALID and v.guard is None and v.guard_note in (NO_GUARD, NO_GUARD_IN_TIME)
    assert v.to_json()["guard_note"] == v.guard_note
