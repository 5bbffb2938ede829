"""Deriving a guard when the symbol table already holds relations (--assume): the table is copied per candidate,
not deep-copied (its relations are immutable expressions that refuse deepcopy, which crashed with a traceback)."""

from __future__ import annotations

from verifier import Symbols, parse, parse_layout, parse_relation
from verifier.cli.app import main
from verifier.engine.verdicts import INVALID, Policy
from verifier.engine.verify import verify


def test_guard_is_derived_on_top_of_assumptions() -> None:
    table = Symbols()
    a = parse_layout("(M,N):(_1,M)", table)
    table.assume(parse_relation("M <= N", table))
    v = verify("zipped_divide", [a, parse("<_128,_64>", table)], table, policy=Policy(strict=True))
    assert v.verdict == INVALID and v.guard is not None
    # The overflow bounds join the guard (OVF-ARITH: ceil_div(M, _128) overflows near 2^31; with M <= N the
    # result's padded extent M*N is bounded too).
    assert v.guard.condition == "M % 128 == 0 and N % 64 == 0 and M <= 33554304 and N <= 16777152"
    assert len(table.relations) == 1  # the caller's table is untouched


def test_cli_assume_with_an_invalid_verdict_exits_1(capsys) -> None:
    # A partial tile is invalid only under --strict (issue 13); without it, valid with the same guard.
    sizes = ["--assume", "M <= 65536", "--assume", "N <= 16384"]  # realistic sizes: no int32 overflow
    rc = main(["zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0", "--strict", *sizes])
    out = capsys.readouterr().out
    assert rc == 1 and "condition: N % 64 == 0" in out
    rc = main(["zipped_divide", "(M,N):(_1,M)", "<_128,_64>", "--assume", "M % 128 == 0", *sizes])
    out = capsys.readouterr().out
    assert rc == 0 and "condition: N % 64 == 0" in out
