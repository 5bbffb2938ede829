"""The guard search (verifier/engine/guards.py): candidates come weakest first without building their product, a
kernel operation's guard constrains only problem sizes, a vectorised access contributes its width as a modulus, and
no search runs where no guard can help."""

from __future__ import annotations

import itertools

import pytest

from verifier.core.symbols import Symbols
from verifier.engine.guards import (
    _atoms,
    _hopeless,
    _weakest_first,
    _weight,
    derive_guard,
    guard_symbols,
)
from verifier.run.problems import build as build_problem
from verifier.solver.budget import Budget


@pytest.mark.parametrize("names,moduli", [(["M", "K", "ldA"], [2, 4, 8, 64, 128]), (["a", "b"], [2, 3, 6]),
                                          (["X", "Y", "Z", "W"], [2, 16]), (["N"], [])])
def test_lazy_order_is_the_sorted_order(names, moduli):
    per = [_atoms(n, moduli) for n in names]
    ref = sorted(itertools.product(*per), key=lambda c: (_weight(c), [a[2] for a in c]))
    assert [[a[2] for a in c] for c in _weakest_first(per)] == [[a[2] for a in c] for c in ref]


def test_nine_symbols_cost_nothing_up_front():
    per = [_atoms(f"x{i}", [2, 8, 64, 128, 8192, 16384]) for i in range(9)]  # 8**9 = 134 million candidates
    first = list(itertools.islice(_weakest_first(per), 20))
    assert [a[2] for a in first[0]] == [""] * 9 and _weight(first[1]) == 2


COPY = "make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16, (_16,_8):(_8,_1), (_1,_8):(_0,_1))"
# Realistic sizes: near 2^31 the tile offsets m*128*ldA themselves overflow int32 (OVF-ARITH), a different finding.
ASSUME = ["ldA >= K", "M <= 16384", "ldA <= 16384", "m >= 0", "m < (M+127)/128", "k >= 0", "k < (K+63)/64", "t >= 0",
          "t < 128"]


def _problem(op: str, last: str, assume=ASSUME, thr: str = COPY):
    symbols = Symbols()
    args = build_problem(op, ["(M,K):(ldA,_1)", "(_128,_128,_64)", "(m,n,k)", "Step<_1,X,_1>", thr, "t", last],
                         symbols, [*assume, "n >= 0", "n < 8"], {})
    return args, symbols


def test_guard_symbols_leave_out_tile_coordinates_and_threads():
    args, symbols = _problem("vectorized_copy", "8")
    assert guard_symbols("vectorized_copy", args, [s.name for s in symbols]) == ["M", "K", "ldA"]
    # Other operations keep every symbol.
    assert guard_symbols("composition", args, ["M", "t"]) == ["M", "t"]


def test_unaligned_leading_dimension_gets_its_guard():
    # The vector width 8 is a run-time value here, written in no shape: the access width is a modulus all the same.
    args, symbols = _problem("vectorized_copy", "8")
    guard, note = derive_guard("vectorized_copy", args, symbols, Budget(), covers=("ALIGN",))
    assert note is None and guard is not None and guard.condition == "ldA % 8 == 0"
    assert "int M, int K, int ldA" in guard.cpp and "t" not in guard.cpp.split("(")[1].split(")")[0].split()


def test_no_guard_for_a_residue_that_is_always_short():
    args, symbols = _problem("predicated_copy", "(M-1,K)")
    why = _hopeless("predicated_copy", args, symbols, ["M", "K", "ldA"], ("PRED-COVER",), Budget())
    assert why is not None and "PRED-COVER fails at every value the assumptions admit" in why


def test_no_guard_for_threads_outside_the_tile():
    thr = "make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16, (_48,_8):(_8,_1), (_1,_8):(_0,_1))"
    args, symbols = _problem("predicated_copy", "(M,K)", [*ASSUME[:-1], "t < 384"], thr)
    why = _hopeless("predicated_copy", args, symbols, ["M", "K", "ldA"], ("THR-ONCE", "COVER-THR"), Budget())
    assert why is not None and "THR-ONCE fails for values of t" in why
    # A claim of the problem sizes can be guarded: no early answer.
    assert _hopeless("predicated_copy", args, symbols, ["M", "K", "ldA"], ("PRED-IN",), Budget()) is None


def test_an_instance_that_holds_does_not_make_the_search_hopeless():
    # DIV-EXACT is recorded per mode: the static mode 1 (_8 by _8) holds, mode 0 (M by 128) fails; the failing ID
    # shared with a holding instance must not read as "no guard on M can help".
    symbols = Symbols()
    args = build_problem("zipped_divide", ["(M,_8):(_1,M)", "<_128,_8>"], symbols, ["M <= 4096"], {})
    guard, note = derive_guard("zipped_divide", args, symbols, Budget(), covers=("DIV-EXACT",))
    assert note is None and guard is not None and guard.condition == "M % 128 == 0"
