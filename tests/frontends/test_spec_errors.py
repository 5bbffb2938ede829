"""Malformed spec files: each gives one line on stderr naming the file, the line and the key, and exit status 2,
before any check runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.cli.app import main

GOOD_CHECK = '''
[[check]]
name = "tiles"
op = "zipped_divide"
args = ["(M,N):(_1,M)", "<_128,_64>"]
assume = ["M % 128 == 0", "N % 64 == 0"]
'''
SYMBOLS = '''[symbols]
M = { min = 1, max = 4096 }
N = { min = 1, max = 4096 }
'''

# (spec text, line, key, words the message must contain)
CASES = {
    "bad TOML": (SYMBOLS + "K = { min = 1,, max = 2 }\n", 4, "K", "TOML syntax"),
    "bad TOML at the end": (SYMBOLS + 'assume = ["M > 1"\n', 4, "", "TOML syntax"),
    "unknown top-level key": ('timeout = 5\nsymbol = { M = {} }\n', 2, "symbol", "unknown key 'symbol'"),
    "unknown check key": (SYMBOLS + GOOD_CHECK + 'expected = "valid"\n', 10, "check[0].expected",
                          "unknown key 'expected'"),
    "unknown assumption key": ('[symbols]\nM = { min = 1, maximum = 8 }\n', 2, "symbols.M.maximum",
                               "unknown assumption 'maximum'"),
    "bad notation": (SYMBOLS + GOOD_CHECK.replace("(M,N):(_1,M)", "(M,N:(_1,M)"), 8, "check[0].args[0]",
                     "argument 1"),
    "unknown symbol": (SYMBOLS + GOOD_CHECK.replace("(M,N):(_1,M)", "(M,Q):(_1,M)"), 8, "check[0].args[0]",
                       "unknown symbol 'Q'"),
    "unknown symbol in a relation": ('assume = ["lda >= M"]\n' + SYMBOLS, 1, "assume[0]", "unknown symbol 'lda'"),
    "top-level key after [symbols]": (SYMBOLS + 'assume = ["N >= M"]\n', 4, "symbols.assume", "before [symbols]"),
    "empty range": ('[symbols]\nM = { min = 10, max = 5 }\n', 2, "symbols.M.max", "empty range"),
    "no multiple in range": ('[symbols]\nM = { min = 1, max = 7, multiple_of = 8 }\n', 2, "symbols.M.multiple_of",
                             "no multiple of 8"),
    "contradictory relations": ('assume = ["M >= 100", "M + 1 <= N", "N <= 50"]\n' + SYMBOLS, 1, "assume[2]",
                                "contradicts"),
    "check assumption contradicts the ranges": (SYMBOLS + GOOD_CHECK.replace('"N % 64 == 0"', '"N > 4096"'), 9,
                                                "check[0].assume", "contradict"),
    "unknown operation": (SYMBOLS + GOOD_CHECK.replace("zipped_divide", "zipped_divider"), 7, "check[0].op",
                          "unknown operation"),
    "bad expectation": (SYMBOLS + GOOD_CHECK + 'expect = "proved"\n', 10, "check[0].expect", "must be one of"),
    "missing args": (SYMBOLS + '[[check]]\nname = "x"\nop = "coalesce"\n', 4, "check[0]", "needs args"),
    "duplicate name": (SYMBOLS + GOOD_CHECK + GOOD_CHECK, 12, "check[1].name", "already used"),
    "missing include": ('include = ["common.cute.toml"]\n', 1, "include[0]", "no such file"),
    "bad timeout": (SYMBOLS + GOOD_CHECK + "timeout = -1\n", 10, "check[0].timeout", "positive"),
    "param outside the range": (SYMBOLS + GOOD_CHECK + "params = { M = 5000 }\n", 10, "check[0].params",
                                "outside the assumptions"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_spec_is_one_line_with_file_line_key(case: str, tmp_path: Path, capsys, monkeypatch) -> None:
    text, line, key, words = CASES[case]
    monkeypatch.chdir(tmp_path)
    Path("bad.cute.toml").write_text(text)
    rc = main(["run", "bad.cute.toml", "--no-cache"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1, err
    prefix = f"cute-verify: error: bad.cute.toml:{line}: " + (f"{key}: " if key else "")
    assert err.startswith(prefix), err
    assert words in err


def test_include_cycle_and_shared_symbols(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.cute.toml").write_text('include = ["b.cute.toml"]\n')
    Path("b.cute.toml").write_text('include = ["a.cute.toml"]\n')
    assert main(["run", "a.cute.toml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cute-verify: error: b.cute.toml:1: include[0]: include cycle: ") and err.count("\n") == 1
    Path("common.toml").write_text(SYMBOLS)
    Path("other.toml").write_text('[symbols]\nM = { min = 1, max = 8 }\n')
    Path("c.cute.toml").write_text('include = ["common.toml", "other.toml"]\n')
    assert main(["run", "c.cute.toml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cute-verify: error: other.toml:2: symbols.M: symbol M is already declared at "
                          "common.toml:2") and err.count("\n") == 1


def test_a_missing_file_and_bad_options_exit_2(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "nothing.cute.toml"]) == 2
    assert capsys.readouterr().err == "cute-verify: error: nothing.cute.toml:1: no such file\n"
    Path("ok.cute.toml").write_text(SYMBOLS + GOOD_CHECK)
    for argv in (["--shard", "3/2"], ["--shard", "x"], ["--jobs", "0"], ["--format", "xml"]):
        assert main(["run", "ok.cute.toml", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("cute-verify: error: ") and err.count("\n") == 1, err
