"""The bit-vector route past 64 bits (``solver/bv_encoding.encode``, issue 29 class 2).

A 64-bit symbol ranges up to ``2^63 - 1`` and a swizzle mask that sign-extends over an ``int64_t`` offset reads
bit 63 (a field of weight ``-2^63``): such queries do not fit 64-bit bit-vectors with a bit to spare, and on the
integer encoding Z3's SMT core does not decide them within any budget.  They are encoded on the narrowest wider
bit-vector in which every value fits, which is as exact; a query that fits 64 bits keeps its encoding.
"""

from __future__ import annotations

import pytest
import z3

from verifier.core.integers import D, symbol
from verifier.core.overflow import under
from verifier.core.symbols import Symbols
from verifier.engine.checks import _items, check
from verifier.engine.decide import BITS
from verifier.engine.verdicts import PROVED, REFUTED
from verifier.notation.cpp import parse
from verifier.solver.bv_encoding import MAX_WIDTH, WIDTH, BVEncoder, encode
from verifier.solver.encoding import Unencodable

SIGN_EXTENDED = "Sw<1,30,1> o _0 o M:_1"
TOP = (1 << 63) - 1


def _symbols(bits: int) -> Symbols:
    symbols = Symbols()
    symbols.declare("M", bits=bits)
    return symbols


def test_a_query_over_a_64_bit_symbol_is_encoded_wider_and_exactly() -> None:
    symbols = _symbols(64)
    c = parse(SIGN_EXTENDED, symbols)
    with under(symbols):
        (item,) = _items("in_bounds", [c, symbol("M")], {})
        value = c(symbol("#i"))
    enc, _ = encode(item.holds, item.ranges, symbols)
    assert WIDTH < enc.width <= MAX_WIDTH
    # The encoding's guarantee at that width: the term's value is the model's, at every bit position's corners
    # (the sign-extended field of bit 63 included), where a 64-bit encoding would wrap.
    wide = BVEncoder(symbols, {"#i": (0, TOP - 1)}, enc.width)
    term = wide.term(value.expr)
    corners = sorted({v for k in range(63) for v in ((1 << k) - 1, 1 << k, (1 << k) + 1)} | {TOP - 1})
    for x in corners:
        got = z3.simplify(z3.substitute(term, (wide.var("#i"), z3.BitVecVal(x, enc.width, wide.ctx)))).as_long()
        got -= (1 << enc.width) if got >> (enc.width - 1) else 0
        assert got == int(c(D(x)).evaluate({"M": TOP})), x


def test_a_query_that_fits_64_bits_keeps_its_encoding_and_one_over_int_symbols_is_never_widened() -> None:
    symbols = _symbols(32)
    c = parse("Sw<3,4,3> o _0 o (M,_64):(_64,_1)", symbols)
    with under(symbols):
        (item,) = _items("in_bounds", [c, symbol("M") * 64], {})
    assert encode(item.holds, item.ranges, symbols)[0].width == WIDTH
    # With an int M the coordinate stays an int, but the swizzle's int64_t form (a witness past int) reads bit 63:
    # the integer route decides it, as before.
    c = parse(SIGN_EXTENDED, symbols)
    with under(symbols):
        (item,) = _items("in_bounds", [c, symbol("M")], {})
    with pytest.raises(Unencodable):
        encode(item.holds, item.ranges, symbols)


def test_the_sign_extended_swizzle_over_a_64_bit_symbol_is_decided_within_the_default_budget() -> None:
    """Unknown on the integer encoding within any budget before; now in_bounds is refuted (replayed: the value at the
    counterexample leaves the extent) and injective proved (the shifted bits 31..62 form a triangular XOR), both on
    the bit-vector route."""
    symbols = _symbols(64)
    c = parse(SIGN_EXTENDED, symbols)
    v = check("in_bounds", [c, symbol("M")], symbols)
    assert v.verdict == REFUTED and v.obligations[0].route == BITS, v.reason
    env, x = dict(v.counterexample.params), int(v.counterexample.coordinate)
    assert not 0 <= int(c(D(x)).evaluate(env)) < env["M"] and v.counterexample.actual == int(c(D(x)).evaluate(env))
    v = check("injective", [c], symbols)
    assert v.verdict == PROVED and v.obligations[0].route == BITS, v.reason
    v = check("bijective", [c], symbols)
    assert v.verdict == REFUTED and [d.status for d in v.obligations] == [PROVED, REFUTED], v.reason


def test_the_verdict_does_not_depend_on_dead_z3_memory_in_the_process() -> None:
    """Z3's QF_BV strategy skips a simplification once the process's whole Z3 allocation passes 300 MB: dead
    contexts of earlier work, held by a reference cycle until Python's collector runs, flipped ``injective`` below
    from proved to unknown ("0 Z3 resource units") late in a long test process.  ``solve.settle_memory`` collects
    them before a check."""
    import gc

    import z3

    symbols = _symbols(64)
    c = parse(SIGN_EXTENDED, symbols)
    gc.disable()
    try:
        ctx = z3.Context()
        x, y = z3.BitVecs("x y", 704, ctx)
        goal = z3.Goal(ctx=ctx)
        goal.add(x * y == 12345)
        cycle: list[object] = [ctx, goal, z3.Tactic("bit-blast", ctx)(goal)]
        cycle.append(cycle)
        del ctx, x, y, goal, cycle
        assert z3.Probe("memory")(z3.Goal()) > 300  # the dead context is still allocated
        v = check("injective", [c], symbols)
    finally:
        gc.enable()
    assert v.verdict == PROVED and v.obligations[0].route == BITS, v.reason
