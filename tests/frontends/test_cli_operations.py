"""Issue 17, point 4: every documented operation usable from the command line.

* Each operation of the list of docs/commands.md has a CLI example (``operation_examples()``, shown in each operation's
  ``--help``) that runs on a representative dynamic case and is decided (exit 0 or 1), not ``unknown``.
* ``cute-verify crd2idx``: the index in CuTe's integer types, checked against compiled CuTe.
* Coordinates holding ``_``, identity / swizzled layouts in ``eval``, and the DSL notation on every command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier.cli.app import main, operation_examples

ROOT = Path(__file__).resolve().parents[2]
OPERATION_EXAMPLES = operation_examples()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _readme_operations() -> list[str]:
    """The operations docs/commands.md lists under "Operations" (`zipped/tiled/flat_divide` expanded)."""
    text = (ROOT / "docs" / "commands.md").read_text()
    m = re.search(r"\nOperations: (.*?)\. A `static_assert`", text, re.S)
    assert m, "the list of operations in docs/commands.md"
    names: list[str] = []
    for item in re.findall(r"`([a-z_/]+)`", m.group(1)):
        if "/" in item:
            *heads, last = item.split("/")  # zipped/tiled/flat_divide
            suffix = last.split("_", 1)[1]
            names += [f"{h}_{suffix}" for h in heads] + [last]
        else:
            names.append(item)
    return [n for n in names if n != "_"]


def test_every_readme_operation_has_an_example() -> None:
    ops = _readme_operations()
    assert {"coalesce", "zipped_divide", "flat_product", "raked_product", "local_partition"} <= set(ops)
    assert set(ops) <= set(OPERATION_EXAMPLES), sorted(set(ops) - set(OPERATION_EXAMPLES))


@pytest.mark.parametrize("op", sorted(OPERATION_EXAMPLES))
def test_operation_example_is_decided(capsys, op: str) -> None:
    argv = OPERATION_EXAMPLES[op]
    assert argv[0] == op and any(re.search(r"[MNK]", a) for a in argv[1:]), "a dynamic (symbolic) case"
    rc, out, err = run(capsys, *argv, "--json")
    assert rc in (0, 1), (op, rc, out[-800:], err)
    v = json.loads(out)
    assert v["verdict"] in ("valid", "invalid"), (op, v["reason"])


@pytest.mark.parametrize("op", ["zipped_divide", "slice_and_offset", "local_partition"])
def test_operation_help_shows_its_example_and_exit_statuses(capsys, op: str) -> None:
    with pytest.raises(SystemExit):
        main([op, "--help"])
    out = capsys.readouterr().out
    assert "example: cute-verify " + op in out
    assert "exit status: 0 valid, 1 invalid, 2 bad input, 3 unknown" in out


# -- crd2idx -----------------------------------------------------------------------------------------------------

CRD2IDX = [
    ("(M,N):(_1,M)", "(3,2)", {"M": 4, "N": 8}),
    ("(M,N):(_1,M)", "(65535,65535)", {"M": 65536, "N": 65536}),  # 2^32 - 1: wraps in int
    ("(M,N):(_1,M)", "(32767,65535)", {"M": 32768, "N": 65536}),  # 2^31 - 1: the largest int, exact
    ("(M,N):(N,_1)", "(40000,3)", {"M": 65536, "N": 65536}),
    ("(_65536,_65536):(_1,_65536)", "(65535,65535)", {}),
    ("(M,(N,_2)):(_1,(M,M*N))", "5", {"M": 2, "N": 3}),
    ("(M,(N,_2)):(_1,(M,M*N))", "(1,(2,1))", {"M": 70000, "N": 40000}),
    ("(M,N):(_1,M)", "4294967295", {"M": 65536, "N": 65536}),  # a dynamic int coordinate: it is -1 already
    ("(M,N):(_1,M)", "(70000,1)", {"M": 70000, "N": 40000}),
    ("(M,(N,_2)):(_1,(M,M*N))", "(1,(1,1))", {"M": 70000, "N": 40000}),  # M*N wraps in int
]


@pytest.mark.cute
@pytest.mark.parametrize(("layout", "coord", "env"), CRD2IDX)
def test_crd2idx_is_what_compiled_cute_computes(cute, capsys, layout: str, coord: str, env: dict[str, int]) -> None:
    from verifier import Symbols, parse_layout
    from verifier.notation.cpp import parse_coord
    from verifier.oracle.cute_cpp import Query, apply_case, run_cases

    argv = ["crd2idx", layout, coord, "--json", *[f"--param={k}={v}" for k, v in env.items()]]
    rc, out, err = run(capsys, *argv)
    v = json.loads(out)
    table = Symbols()
    lay = parse_layout(layout, table)
    c = parse_coord(coord, table)
    [r] = run_cases([apply_case(lay, c)], [Query(0, env)])
    assert r.ok and r.result is not None, r
    assert v["index"] == int(r.result), (v, r.result)  # CuTe's own int arithmetic, wrap included
    assert v["verdict"] == ("valid" if v["index"] == v["exact"] else "invalid")
    assert rc == (0 if v["verdict"] == "valid" else 1)


def test_crd2idx_reports_the_wrap_with_both_values(capsys) -> None:
    rc, out, _ = run(capsys, "crd2idx", "(M,N):(_1,M)", "(65535,65535)", "--param", "M=65536", "--param", "N=65536")
    assert rc == 1
    assert out == ("invalid: crd2idx((65535,65535), (M,N):(_1,M)) with M=65536, N=65536: CuTe computes -1 in int "
                   "(it wraps past 2147483647), the exact index is 4294967295\n")


@pytest.mark.parametrize(("argv", "words"), [
    (["crd2idx", "(M,N):(_1,M)", "(3,2)"], "symbol M needs a value"),
    (["crd2idx", "(_4,_8):(_1,_4)", "(_,3)"], "without '_'"),
    (["crd2idx", "(_4,_8)", "3"], "is not a layout"),
    (["crd2idx", "(_4,_8):(_1,_4)", "(3"], "the coordinate"),
])
def test_crd2idx_bad_input(capsys, argv: list[str], words: str) -> None:
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and words in err and err.count("\n") == 1


# -- coordinates, identity and swizzled layouts, DSL notation --------------------------------------------------


def test_slice_takes_a_coordinate_with_underscore(capsys) -> None:
    # The offset 2*M is CuTe's crd2idx: past int32 for M > 2^30 (OVF-ARITH), so realistic sizes.
    rc, out, _ = run(capsys, "slice_and_offset", "(_,2)", "(M,N):(_1,M)", "--assume", "M <= 65536")
    assert rc == 0 and out.startswith("valid: slice_and_offset((_,2), (M,N):(_1,M))\nresult : 2*M o (M):(_1)\n")
    rc, out, _ = run(capsys, "slice", "(1,(_,_))", "(M,(N,K)):(_1,(M,M*N))")
    assert rc == 0 and "result : (N,K):(M,M*N)" in out


def test_eval_identity_layout(capsys) -> None:
    rc, out, err = run(capsys, "eval", "(_4,_2):(_1@0,_1@1)", "--json")
    assert rc == 0 and err == ""
    assert json.loads(out)["values"] == ["(0,0)", "(1,0)", "(2,0)", "(3,0)", "(0,1)", "(1,1)", "(2,1)", "(3,1)"]
    rc, out, _ = run(capsys, "eval", "(_4,_2):(_1@0,_1@1)")
    assert rc == 0 and " 3  | (3,0) | (3,1) |" in out


@pytest.mark.cute
def test_eval_swizzled_layout_matches_cute(cute, capsys) -> None:
    from verifier import parse
    from verifier.oracle.cute_cpp import CppBuilder, Query, run_cases

    text = "Sw<2,0,2> o (_4,_4):(_4,_1)"
    rc, out, _ = run(capsys, "eval", text, "--json")
    values = json.loads(out)["values"]
    b = CppBuilder()
    [r] = run_cases([b.case(b.composed(parse(text)), "swizzled")], [Query(0)])  # type: ignore[arg-type]
    assert rc == 0 and r.values is not None and list(r.values) == values


def test_dsl_notation_is_accepted_wherever_a_layout_is(capsys) -> None:
    rc, out, _ = run(capsys, "composition", "(?,4):(1,?{div=8})", "<_2>")
    assert rc == 0 and out.startswith("valid: composition((?,_4):(_1,?), <_2>)")
    rc, out, _ = run(capsys, "check", "injective", "(?{div=4},4):(1,?{div=4})", "--dsl")
    assert rc in (0, 1)
    rc, out, _ = run(capsys, "eval", "(?,4):(1,?)", "--param", "?1=2", "--param", "?2=2", "--json")
    assert rc == 0 and json.loads(out)["values"] == [0, 1, 2, 3, 4, 5, 6, 7]


def test_draw_swizzled_and_identity_layouts(capsys) -> None:
    rc, out, _ = run(capsys, "draw", "Sw<1,1,1> o (_4,_4):(_4,_1)", "-o", "-")
    assert rc == 0 and out.count('class="cell"') == 16
    assert ">6<" in out  # row 1 starts at index 6: the swizzle moved it (eval shows the same table)
    rc, out, _ = run(capsys, "draw", "(_4,_2):(_1@0,_1@1)", "-o", "-")
    assert rc == 0 and out.count('class="cell"') == 8 and "(3,1)" in out
