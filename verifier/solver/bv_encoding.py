"""The model's expressions as Z3 bit-vectors, exact where every value provably fits.

Swizzles are XORs of bit fields (swizzle.hpp:76-79); over integers they become towers of ``/`` and ``%`` by powers
of two that Z3's arithmetic solvers decide slowly, while bit-blasting decides them at once.  ``BVEncoder`` writes an
expression over ``w``-bit two's-complement bit-vectors, where C++'s truncating ``/`` and ``%`` are exactly
SMT-LIB's ``bvsdiv`` / ``bvsrem``.  The encoding is exact only when no value leaves the ``w``-bit range, so every
subterm's interval (``encoding.Encoder.interval``, from the symbols' assumed ranges and the witnesses' bounds) must
lie within ``[-2^(w-2), 2^(w-2)]``.  ``w`` is 64 unless a query over a 64-bit symbol needs more (its range, a
sign-extended swizzle mask: ``encode``), up to ``MAX_WIDTH``; past it ``Unencodable`` is raised and the caller keeps
the integer encoding.

``decide(holds, ranges, symbols)`` proves ``holds`` for every witness in its range and every admitted symbol value
(``unsat`` of the negation) or returns a model (to be replayed concretely by the caller before it is believed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import z3

from verifier.core.integers import Bool, Const, Expr, Int, Op, Sym
from verifier.core.symbols import Symbols
from verifier.solver.budget import Budget
from verifier.solver.encoding import Encoder, Unencodable

WIDTH = 64
# The widest encoding tried: a product of two 64-bit values fits.  Bit-blasting costs grow with the width.
MAX_WIDTH = 130


class TooNarrow(Unencodable):
    """A value of magnitude up to ``need`` may not fit in ``width`` bits (with a bit to spare)."""

    def __init__(self, need: int, width: int) -> None:
        super().__init__(f"a value may not fit in {width} bits")
        self.need = need


class BVEncoder:
    """Bit-vector terms for the model's expressions, ``width`` bits wide; ``TooNarrow`` when a value may not fit."""

    def __init__(self, symbols: Symbols, witnesses: Mapping[str, tuple[int | None, int | None]],
                 width: int = WIDTH) -> None:
        self.symbols = symbols
        self.width = width
        self.limit = 1 << (width - 2)
        self.ints = Encoder(symbols, dict(witnesses))
        self.vars: dict[str, z3.BitVecRef] = {}
        self._cache: dict[Expr, z3.ExprRef] = {}
        # A context of its own (encoding.py: an answer must not depend on terms other work created).
        self.ctx = self.ints.ctx

    def var(self, name: str) -> z3.BitVecRef:
        v = self.vars.get(name)
        if v is None:
            v = self.vars[name] = z3.BitVec(name, self.width, self.ctx)
        return v

    def _bounded(self, e: Expr) -> None:
        lo, hi = self.interval(e)
        if lo is None or hi is None:
            raise Unencodable("a value is unbounded")
        if lo < -self.limit or hi > self.limit:
            raise TooNarrow(max(-lo, hi), self.width)

    def interval(self, e: Expr) -> tuple[int | None, int | None]:
        """The integer encoder's interval, widened soundly where it gives up: an if-then-else lies between its
        branches, a C++ remainder is smaller in magnitude than its divisor and a quotient than its dividend."""
        got = self.ints.interval(e)
        if got[0] is not None and got[1] is not None or not isinstance(e, Op):
            return got
        if e.op == "ite":
            (a, b), (c, d) = self.interval(e.args[1]), self.interval(e.args[2])
            return (None if a is None or c is None else min(a, c), None if b is None or d is None else max(b, d))
        if e.op in ("%", "/"):
            (a, b), (c, d) = self.interval(e.args[0]), self.interval(e.args[1])
            if e.op == "%" and c is not None and d is not None:
                m = max(abs(c), abs(d))
                lo = 0 if a is not None and a >= 0 else -m
                return (lo, m)
            if e.op == "/" and a is not None and b is not None:
                m = max(abs(a), abs(b))
                return (-m, m)
        if e.op in ("+", "-", "*"):
            (a, b), (c, d) = self.interval(e.args[0]), self.interval(e.args[1])
            if None in (a, b, c, d):
                return got
            if e.op == "+":
                return (a + c, b + d)  # type: ignore[operator]
            if e.op == "-":
                return (a - d, b - c)  # type: ignore[operator]
            products = [x * y for x in (a, b) for y in (c, d)]  # type: ignore[operator]
            return (min(products), max(products))
        return got

    def term(self, e: Expr) -> z3.BitVecRef:
        got = self._cache.get(e)
        if got is None:
            got = self._cache[e] = self._term(e)
        return got

    def _term(self, e: Expr) -> z3.BitVecRef:
        self._bounded(e)
        if type(e) is Const:
            return z3.BitVecVal(int(e.value), self.width, self.ctx)
        if type(e) is Sym:
            return self.var(e.name)
        assert isinstance(e, Op)
        if e.op == "ite":
            return z3.If(self.boolean(e.args[0]), self.term(e.args[1]), self.term(e.args[2]))
        if e.op == "seq":  # the last operand's value (decide() adds every divisor of the statement to its negation)
            return self.term(e.args[-1])
        a = [self.term(x) for x in e.args]
        op = e.op
        if op == "+":
            return a[0] + a[1]
        if op == "-":
            return a[0] - a[1]
        if op == "*":
            return a[0] * a[1]
        if op == "neg":
            return -a[0]
        if op == "/":
            return a[0] / a[1]  # bvsdiv: truncating, as C++
        if op == "%":
            return z3.SRem(a[0], a[1])  # the dividend's sign, as C++
        if op == "min":
            return z3.If(a[0] <= a[1], a[0], a[1])
        if op == "max":
            return z3.If(a[0] >= a[1], a[0], a[1])
        if op == "abs":
            return z3.If(a[0] >= 0, a[0], -a[0])
        if op == "signum":
            return z3.If(a[0] > 0, z3.BitVecVal(1, self.width, self.ctx),
                         z3.If(a[0] < 0, z3.BitVecVal(-1, self.width, self.ctx), z3.BitVecVal(0, self.width, self.ctx)))
        raise Unencodable(f"operation {op!r} has no bit-vector encoding here")

    def boolean(self, e: Expr) -> z3.BoolRef:
        if type(e) is Const:
            return z3.BoolVal(bool(e.value), self.ctx)
        assert isinstance(e, Op)
        if e.op == "and":
            return z3.And(*[self.boolean(x) for x in e.args], self.ctx)
        if e.op == "or":
            return z3.Or(*[self.boolean(x) for x in e.args], self.ctx)
        if e.op == "not":
            return z3.Not(self.boolean(e.args[0]))
        if e.op == "ite":
            return z3.If(self.boolean(e.args[0]), self.boolean(e.args[1]), self.boolean(e.args[2]))
        a, b = (self.term(x) for x in e.args)
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op]

    def assumptions(self) -> list[z3.BoolRef]:
        out: list[z3.BoolRef] = []
        for sym in self.symbols:
            v = self.var(sym.name)
            if sym.hi is None:
                raise Unencodable(f"{sym.name} has no upper bound")
            out += [v >= sym.lo, v <= sym.hi]
            if sym.multiple_of > 1:
                out.append(z3.SRem(v, z3.BitVecVal(sym.multiple_of, self.width, self.ctx)) == 0)
        for rel in self.symbols.relations:
            out.append(self.boolean(rel.expr))
        return out



def _divisors(e: Expr) -> list[Expr]:
    """Every divisor of a ``/`` or ``%`` in ``e`` that is not a non-zero constant."""
    out: dict[Expr, None] = {}
    stack, seen = [e], set()
    while stack:
        x = stack.pop()
        if x in seen or not isinstance(x, Op):
            continue
        seen.add(x)
        if x.op in ("/", "%") and not (type(x.args[1]) is Const and int(x.args[1].value) != 0):
            out.setdefault(x.args[1], None)
        stack.extend(x.args)
    return list(out)


# Z3 counts bit-blasted work in many more resource units per second than integer arithmetic: about 2e7 units/s on
# the swizzle queries of tests/engine/test_smem_properties.py against the 1e6 units/s that budget.UNITS_PER_SECOND
# calibrates.  A bit-vector query is charged its units divided by this rate, so a budget buys it about the same
# nominal time as an integer query (the count is deterministic either way).
BV_RATE = 10


def decide(holds: Bool, ranges: Sequence[tuple[str, Int, Int]], symbols: Symbols,
           budget: Budget) -> tuple[str, dict[str, int] | None]:
    """``("proved", None)``, ``("sat", values)`` (a candidate to replay) or ``("unknown", None)`` within ``budget``'s
    Z3 resource units (so the answer does not depend on the machine's load); raises ``Unencodable`` when the
    bit-vector encoding would not be exact."""
    from verifier.solver.solve import check_sat, rlimit_count

    if budget.left() < 1000:
        return "unknown", None
    enc, s = encode(holds, ranges, symbols)
    before = rlimit_count(s)
    r = check_sat(s, budget.net_seconds(), rlimit=budget.left() * BV_RATE)
    budget.spend(max(0, rlimit_count(s) - before) // BV_RATE)
    if r == z3.unsat:
        return "proved", None
    if r == z3.sat:
        m = s.model()
        names = [sym.name for sym in symbols] + [w for w, _, _ in ranges]
        return "sat", {n: _signed(m.eval(enc.var(n), model_completion=True).as_long(), enc.width) for n in names}
    return "unknown", None


def encode(holds: Bool, ranges: Sequence[tuple[str, Int, Int]], symbols: Symbols) -> tuple[BVEncoder, z3.Solver]:
    """A solver holding the negation of ``holds``, with the assumptions and the witnesses' ranges, on bit-vectors of
    the narrowest width from ``WIDTH`` up in which every value of the query fits (``BVEncoder._bounded``);
    ``Unencodable`` where none up to ``MAX_WIDTH`` does.

    A 64-bit symbol ranges up to ``2^63 - 1``, and a swizzle mask that sign-extends over an ``int64_t`` offset
    reads its bit 63, whose field weighs ``-2^63`` (``Swizzle._symbolic``): such a query does not fit 64 bits with a
    bit to spare, and the integer encoding's towers of ``/`` and ``%`` by powers of two leave Z3's SMT core
    undecided within any budget (``Sw<1,30,1> o _0 o M:_1``, issue 29 class 2).  A wider bit-vector is as exact
    and bit-blasts as deterministically.  A query that fits 64 bits is encoded as it always was, and so is one
    over ``int`` symbols only (``Unencodable`` past 64 bits, as before): its values past 64 bits come only from a
    coordinate past ``int`` in a swizzle's ``int64_t`` form (``Swizzle.__call__``), the integer route decides those
    queries, and a wider bit route tried first would spend their share of the budget."""
    bounds: dict[str, tuple[int | None, int | None]] = {}
    probe = Encoder(symbols, {})
    for w, lo, hi in ranges:
        lo_iv = probe.interval(lo.expr) if not bounds else Encoder(symbols, dict(bounds)).interval(lo.expr)
        hi_iv = Encoder(symbols, dict(bounds)).interval(hi.expr)
        if lo_iv[0] is None or hi_iv[1] is None:
            raise Unencodable(f"the range of {w} is unbounded")
        bounds[w] = (lo_iv[0], hi_iv[1] - 1)
    widest = MAX_WIDTH if any(sym.bits == 64 for sym in symbols) else WIDTH
    width = WIDTH
    while True:
        try:
            return _encode(holds, ranges, symbols, bounds, width)
        except TooNarrow as e:
            width = max(width + 1, e.need.bit_length() + 2)
            if width > widest:
                raise Unencodable(f"a value may not fit in {widest} bits") from None


def _encode(holds: Bool, ranges: Sequence[tuple[str, Int, Int]], symbols: Symbols,
            bounds: Mapping[str, tuple[int | None, int | None]], width: int) -> tuple[BVEncoder, z3.Solver]:
    enc = BVEncoder(symbols, bounds, width)
    # The solver first, then each term as it is asserted: Z3's search depends on the identifiers of the terms in
    # the context (encoding.py), and making the solver makes some.
    s = z3.Solver(ctx=enc.ctx)
    s.add(*enc.assumptions())
    for w, lo, hi in ranges:
        v = enc.var(w)
        s.add(v >= enc.term(lo.expr), v < enc.term(hi.expr))
    # A proof also shows that no divisor is zero: the negation is "fails, or divides by zero somewhere".
    zero = [enc.term(d) == 0 for d in _divisors(holds.expr)]
    s.add(z3.Or(z3.Not(enc.boolean(holds.expr)), *zero, enc.ctx))
    return enc, s


def _signed(v: int, width: int) -> int:
    return v - (1 << width) if v >> (width - 1) else v


__all__ = ["BVEncoder", "decide", "encode"]
