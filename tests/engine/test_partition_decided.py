"""local_tile / local_partition are decided by the claims of the zipped_divide they slice and by their coordinate
bounds (IX-2, IX-3), and a fixed ``--param`` is a symbol with one value: counterexamples name that value.

Each refutation is replayed against compiled CuTe: the view CuTe computes at the counterexample's values pads past
the tensor (DIV-EXACT) or starts outside it (IX-2)."""

from __future__ import annotations

import json

import pytest

from verifier.cli.app import main
from verifier.core.symbols import Symbols
from verifier.engine.verify import verify
from verifier.notation.cpp import parse, parse_layout, parse_relation, parse_tile
from verifier.oracle.cute_cpp import run_cases, tensor_case
from verifier.run.problems import build


def _verify(op: str, texts: list[str], assume: tuple[str, ...] = (), params: dict[str, int] | None = None):
    symbols = Symbols()
    args = build(op, texts, symbols, assume, params or {})
    return verify(op, args, symbols)


@pytest.mark.cute
def test_concrete_partial_tile_is_decided_like_zipped_divide(cute):
    v = _verify("local_tile", ["(12,12):(_1,12)", "<_8,_8>", "0"])
    z = _verify("zipped_divide", ["(12,12):(_1,12)", "<_8,_8>"])
    # A partial last tile is a warning with its counterexample (issue 13's severities), decided for both.
    assert v.verdict == z.verdict == "valid"
    w = next(w for w in v.warnings if w.id == "DIV-EXACT")
    assert w.counterexample is not None and (w.counterexample.expected, w.counterexample.actual) == (12, 16)
    # Compiled CuTe: the tile grid is 2x2 tiles of 8 over a 12x12 tensor, so the last tile reads past it.
    res = run_cases([tensor_case("local_tile", parse_layout("(12,12):(_1,12)"), parse_tile("<_8,_8>"),
                                 coord=(parse("1"), parse("1")))])[0]
    assert res.offset == str(8 + 8 * 12) and res.result == "(_8,_8):(_1,12)"
    assert 8 + 8 * 12 + 7 + 7 * 12 >= 12 * 12  # its last element is past the 144 elements of the tensor


# Realistic sizes: near 2^31 CuTe's int32 arithmetic overflows (OVF-ARITH / OVF-RESULT, tests/test_overflow.py).
SIZES = ("M <= 65536", "N <= 16384")


@pytest.mark.parametrize("texts,assume", [
    (["(M,N):(_1,M)", "<_128,_64>", "(0,0)"], ("M % 128 == 0", "N % 64 == 0", *SIZES)),
    (["(M,K):(_1,lda)", "<_128,_32>", "(m,k)"],
     ("M % 128 == 0", "K % 32 == 0", "lda >= M", "m < M/128", "k < K/32", "lda <= 65536", "K <= 16384")),
    (["(M,N):(_1,M)", "(_128,_64)", "(m,n)"], ("M % 128 == 0", "N % 64 == 0", "m < M/128", "n < N/64", *SIZES)),
])
def test_symbolic_tiles_are_valid_when_exact_and_in_bounds(texts, assume):
    assert _verify("local_tile", texts, assume).verdict == "valid"


def test_tile_coordinate_outside_the_grid_is_invalid():
    v = _verify("local_tile", ["(M,N):(_1,M)", "<_128,_64>", "(m,n)"], ("M % 128 == 0", "N % 64 == 0"))
    w = next(w for w in v.warnings if w.id == "IX-2")  # a view outside the tensor: it needs predication
    assert w.counterexample is not None
    env = w.counterexample.params
    assert env["m"] >= env["M"] // 128 or env["n"] >= env["N"] // 64


def test_local_partition_decided():
    ok = _verify("local_partition", ["(M,N):(_1,M)", "(_32,_8):(_8,_1)", "t"],
                 ("M % 32 == 0", "N % 8 == 0", "t < 256", "t >= 0", *SIZES))
    assert ok.verdict == "valid"
    bad = _verify("local_partition", ["(M,N):(_1,M)", "(_32,_8):(_8,_1)", "t"], ("t < 256", "t >= 0"))
    assert [w.id for w in bad.warnings if w.id == "DIV-EXACT"]
    assert _verify("local_partition", ["(M,N):(_1,M)", "(_32,_8):(_8,_2)", "t"],
                   ("t < 256", "t >= 0")).counterexample.obligation == "IX-3"  # not compact


def test_counterexample_keeps_the_fixed_parameter(capsys):
    assert main(["upcast", "4", "(_8,_8):(_1,M)", "--param", "M=9", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["counterexample"]["params"] == {"M": 9}
    for ob in doc["obligations"]:
        if ob["counterexample"]:
            assert ob["counterexample"]["params"]["M"] == 9
    v = _verify("local_tile", ["(M,N):(_1,M)", "<_8,_8>", "(0,0)"], params={"M": 12})
    w = next(w for w in v.warnings if w.id == "DIV-EXACT")
    assert w.counterexample is not None and w.counterexample.params["M"] == 12


def test_a_relation_still_applies_to_a_fixed_parameter():
    symbols = Symbols()
    symbols.declare("M")
    symbols.assume(parse_relation("M % 8 == 0", symbols))
    with pytest.raises(Exception, match="M"):
        build("upcast", ["4", "(_8,_8):(_1,M)"], symbols, (), {"M": 9})
