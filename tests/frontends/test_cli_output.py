"""``cute-verify rule ID`` explains an obligation id from the catalogue, and ``-o F`` writes any command's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.core.obligations import ERRORS, FIXES, KNOWN, WARNINGS, fix


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_rule_explains_an_id_with_its_severity_source_and_fix(capsys) -> None:
    rc, out, _ = run(capsys, "rule", "DIV-EXACT")
    assert rc == 0
    assert out.startswith("DIV-EXACT (warning)\n")
    assert WARNINGS["DIV-EXACT"] in out and FIXES["DIV-EXACT"] in out
    rc, out, _ = run(capsys, "rule", "cmp-2", "--json")  # ids are case-insensitive, as ruff's
    entry = json.loads(out)
    assert rc == 0 and entry["severity"] == "error" and "layout.hpp:1077" in entry["meaning"]


def test_rule_suggests_the_closest_id_for_a_misspelling(capsys) -> None:
    rc, _, err = run(capsys, "rule", "DIV-EXAKT")
    assert rc == 2 and "did you mean 'DIV-EXACT'?" in err and err.count("\n") == 1


def test_rule_all_lists_every_id_once(capsys) -> None:
    rc, out, _ = run(capsys, "rule", "--all")
    assert rc == 0
    ids = [line.split()[0] for line in out.splitlines()]
    assert sorted(ids) == sorted(KNOWN) and len(ids) == len(set(ids))


def test_every_id_has_a_fix_by_its_longest_prefix() -> None:
    assert fix("OVF-ARITH") == FIXES["OVF-"] and fix("IX-3") == FIXES["IX-"] and fix("CMP-2") == FIXES[""]
    for prefix in FIXES:  # every entry applies to some catalogued id: none is dead
        assert any(i.startswith(prefix) for i in KNOWN), prefix
    assert set(ERRORS).isdisjoint(WARNINGS)


@pytest.mark.parametrize("argv", [["rule", "DIV-EXACT"], ["eval", "(_2,_2):(_1,_2)"],
                                  ["composition", "(_4,_2):(_1,_4)", "(_2,_2):(_2,_1)"],
                                  ["check", "injective", "(_4,_2):(_1,_4)"]])
def test_every_printing_command_writes_its_report_with_o(capsys, tmp_path: Path, argv: list[str]) -> None:
    rc, shown, _ = run(capsys, *argv)
    target = tmp_path / "report.txt"
    rc2, out, _ = run(capsys, *argv, "-o", str(target))
    assert rc2 == rc and out == "" and target.read_text() == shown


def test_o_to_a_missing_folder_is_refused_before_any_work(capsys, tmp_path: Path) -> None:
    rc, out, err = run(capsys, "eval", "(_2):(_1)", "-o", str(tmp_path / "no" / "r.txt"))
    assert rc == 2 and out == "" and "-o" in err and "does not exist" in err


def test_every_command_takes_o_and_json() -> None:
    from verifier.cli.app import build_parser

    for name, parser in build_parser().commands.items():  # type: ignore[attr-defined]
        options = parser._option_string_actions
        assert "-o" in options, name
        if name == "draw":  # a picture: its format is svg, png or latex
            continue
        json_flag = options.get("--json")
        fmt = options.get("--format")
        assert json_flag is not None or (fmt is not None and "json" in (fmt.choices or ())), name


def test_the_atoms_print_json(capsys) -> None:
    rc, out, _ = run(capsys, "gmma_atom", "K", "SW128", "16", "--json")
    assert rc == 0 and json.loads(out)["layout"] == "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"


QUIET = [
    ["eval", "(_2,_2):(_1,_2)"],
    ["check", "injective", "(_4,_2):(_1,4*t)"],
    ["composition", "(M,N):(_1,M)", "(_4,_8)"],
    ["zipped_divide", "(M,N):(_1,M)", "<_128,_64>"],
    ["bank_conflicts", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", "8:_1", "--element-bits", "16", "--access-bits", "128"],
    ["check", "conflict_free", "(_8,_64):(_1,_8)", "8:_8", "--element-bits", "16", "--access-bits", "128"],
    ["gmma_atom", "K", "SW128", "16"],
    ["gmma_canonical", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", "--element-bits", "16", "--major", "K"],
    ["crd2idx", "(M,N):(_1,M)", "(3,2)", "--param", "M=65536", "--param", "N=65536"],
    ["rule", "DIV-EXACT"],
    ["atoms"],
]


@pytest.mark.parametrize("argv", QUIET, ids=lambda a: a[0] + ("-" + a[1] if a[0] == "check" else ""))
def test_q_prints_one_line_and_default_output_lists_nothing_that_held(capsys, argv: list[str]) -> None:
    rc, full, _ = run(capsys, *argv)
    rc_q, quiet, _ = run(capsys, *argv, "-q")
    assert rc_q == rc and quiet.count("\n") == 1 and full.startswith(quiet)
    assert "[proved]" not in full  # ruff's default: what failed, not what held
    rc_v, verbose, _ = run(capsys, *argv, "-v")
    assert rc_v == rc and len(verbose) >= len(full)


def test_a_valid_verdict_without_warnings_is_at_most_ten_lines_and_v_lists_what_held(capsys) -> None:
    argv = ["zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0", "--assume", "N % 64 == 0",
            "--assume", "M <= 65536", "--assume", "N <= 65536"]
    rc, out, _ = run(capsys, *argv)
    assert rc == 0 and out.startswith("valid: ") and len(out.splitlines()) <= 10 and "warning" not in out
    rc, out, _ = run(capsys, *argv, "-v")
    assert rc == 0 and "obligations:" in out and "[proved] DIV-EXACT" in out


def test_long_reasons_are_folded_and_deduplicated() -> None:
    from verifier.present.report import REASON_LIMIT, fold

    assert fold("a; b; a; a") == "a; b (and 2 repeats)"
    long = "; ".join(f"reason {k}" for k in range(200))
    folded = fold(long)
    assert len(folded) < REASON_LIMIT + 60 and folded.endswith("-v shows all)") and fold(long, None) == long
