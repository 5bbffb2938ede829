"""Encoding of the model's expressions into Z3, with C++ integer semantics.

Model
-----
Every integer the algebra computes is an ``Expr`` over named symbols (``M``, ``N``) and, for the engine, witness
variables (a coordinate ``#i``).  ``Encoder`` turns them into Z3 integer terms:

* ``/`` and ``%`` are C++'s: truncating toward zero, the remainder taking the dividend's sign.  Z3's ``div`` is
  Euclidean, so a division is encoded by cases on the signs, except where interval analysis of the operands (from
  the symbols' assumed ranges) already fixes them; then the plain ``div`` is exact and much cheaper to solve.
* A divisor that can be zero is recorded in ``divisors``: the engine checks separately that no division CuTe
  performs can fault; Z3's value for ``x/0`` is arbitrary, so a model that relies on it never replays and is never
  reported as a counterexample.
* CuTe's ``gcd`` and ``lcm`` (Euclid's loop with C++ ``%``) have no closed form; they are encoded exactly when one
  operand is a constant whose Euclid chain is short, else the encoder raises ``Unencodable`` and the engine answers
  ``unknown`` with that reason.

Guarantees: for every assignment of the variables under which no recorded divisor is zero, the Z3 term's value is
the C++ value of the expression (``tests/engine/test_engine.py`` checks this by evaluation).

Each encoder builds its terms in a Z3 context of its own (``ctx``), created when its first term is.  Z3's search
depends on the identifiers of the terms in its context, so a solver run in a shared context (Z3's main one) would
depend on every term the process created before; and translating terms into another context is no cure, as how
the translation numbers them depends on how many references the source terms have (it caches shared ones only).
A context per encoder makes every answer a function of that encoder's own terms, that is of the input alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import z3

from verifier.core.integers import Bool, Const, Expr, Int, Op, Sym
from verifier.core.symbols import Symbols
from verifier.solver.simplify import QUOTIENT, Simplifier, quotient_name

Interval = tuple[int | None, int | None]
_TOP: Interval = (None, None)


def _divisors_of(e: Expr) -> list[Expr]:
    """Every divisor of a ``/`` or ``%`` in ``e``, as written."""
    out: list[Expr] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Op):
            if x.op in ("/", "%") and x.args[1] not in out:
                out.append(x.args[1])
            stack.extend(x.args)
    return out


def _negative(iv: Interval) -> bool:
    return iv[1] is not None and iv[1] < 0


class Unencodable(Exception):
    """The expression uses an operation the encoder cannot express exactly."""


def _mul_bound(a: int | None, b: int | None) -> int | None:
    if a is None or b is None:
        return None
    return a * b


def _interval_mul(x: Interval, y: Interval) -> Interval:
    if None in x or None in y:
        # Non-negative times non-negative stays non-negative even without upper bounds.
        if x[0] is not None and y[0] is not None and x[0] >= 0 and y[0] >= 0:
            return (x[0] * y[0], _mul_bound(x[1], y[1]))
        return _TOP
    products = [a * b for a in x for b in y]  # type: ignore[operator]
    return (min(products), max(products))


@dataclass
class Encoder:
    """Z3 terms for the model's expressions, with one Z3 variable per symbol or witness name."""

    symbols: Symbols
    witnesses: dict[str, Interval] | None = None

    def __post_init__(self) -> None:
        self.vars: dict[str, z3.ArithRef] = {}
        self.divisors: list[Expr] = []
        # A division whose dividend involves a coordinate (a witness) runs only when that coordinate exists: its
        # divisor must be nonzero only where the item's domain is not empty (a zero extent divides by nothing).
        # ``empty_when[d]`` lists the emptiness conditions of the domains it was met in; None: met unconditionally.
        self.empty_when: dict[Expr, list[Bool] | None] = {}
        self.context_empty: Bool | None = None
        self._cache: dict[Expr, z3.ExprRef] = {}
        self._intervals: dict[Expr, Interval] = {}
        self._walked: set[tuple[Expr, Bool | None]] = set()
        if self.witnesses is None:
            self.witnesses = {}
        self.simplifier = Simplifier(self.interval, self._multiple)
        self._ctx: z3.Context | None = None

    @property
    def ctx(self) -> z3.Context:
        """The Z3 context of this encoder's terms (module docstring), created on first use: an encoder used only
        for intervals and simplification creates none."""
        if self._ctx is None:
            from verifier.solver.solve import new_context

            self._ctx = new_context()
        return self._ctx

    # -- variables and assumptions ----------------------------------------------------------------------------

    def var(self, name: str) -> z3.ArithRef:
        """The Z3 term of a symbol: ``m * M÷m`` for a symbol assumed a multiple of ``m``, which states the
        divisibility without a remainder constraint and matches the simplifier's quotient atom."""
        v = self.vars.get(name)
        if v is None:
            m = self._multiple(name)
            v = self.vars[name] = m * z3.Int(quotient_name(name, m), self.ctx) if m > 1 else z3.Int(name, self.ctx)
        return v

    def _multiple(self, name: str) -> int:
        assert self.witnesses is not None
        if name in self.witnesses or QUOTIENT in name or name not in self.symbols:
            return 1
        return self.symbols.table[name].multiple_of

    def bounds(self, name: str) -> Interval:
        assert self.witnesses is not None
        if name in self.witnesses:
            return self.witnesses[name]
        if QUOTIENT in name:
            base, multiple = name.rsplit(QUOTIENT, 1)
            lo, hi = self.bounds(base)
            k = int(multiple)
            return (None if lo is None else -(-lo // k), None if hi is None else hi // k)
        sym = self.symbols.lookup(name)
        if sym is None:
            return _TOP
        m = sym.multiple_of
        return (-(-sym.lo // m) * m, None if sym.hi is None else (sym.hi // m) * m)

    def assumptions(self, names: set[str] | None = None) -> list[z3.BoolRef]:
        """The symbols' ranges, divisibilities and relations, for the symbols in ``names`` (default: all)."""
        out: list[z3.BoolRef] = []
        for sym in self.symbols:
            if names is not None and sym.name not in names:
                continue
            v = self.var(sym.name)
            out.append(v >= sym.lo)
            if sym.hi is not None:
                out.append(v <= sym.hi)
        for rel in self.symbols.relations:
            if names is None or set(rel.expr.symbols()) & names:
                out.append(self.relation(rel))
        return out

    def relation(self, rel: Bool) -> z3.BoolRef:
        """An assumption holds only where it is defined: ``M/(N-1) >= 0`` also says ``N-1 != 0``.  Z3's value for
        ``x/0`` is arbitrary, so without this an assumption that divides by zero could admit any value (or every
        value).  Its divisors are the user's, not CuTe's: they are not recorded in ``divisors``."""
        e = rel.expr
        defined = [self._encode_int(self.simplifier.simplify(d)) != 0 for d in _divisors_of(e)
                   if not self._positive(d) and not _negative(self.interval(d))]
        return z3.And(self._encode_bool(self.simplifier.simplify(e)), *defined, self.ctx)

    # -- interval analysis ------------------------------------------------------------------------------------

    def interval(self, e: Expr) -> Interval:
        got = self._intervals.get(e)
        if got is None:
            got = self._intervals[e] = self._interval(e)
        return got

    def _interval(self, e: Expr) -> Interval:
        if type(e) is Const:
            v = int(e.value)
            return (v, v)
        if type(e) is Sym:
            return self.bounds(e.name)
        assert isinstance(e, Op)
        iv = [self.interval(a) for a in e.args] if e.op not in ("and", "or", "not", "ite") else []
        if e.op == "seq":  # its value is its last operand's; the divisions of the others are collected as divisors
            return iv[-1]
        if e.op == "+":
            (a, b), (c, d) = iv
            return (None if a is None or c is None else a + c, None if b is None or d is None else b + d)
        if e.op == "-":
            (a, b), (c, d) = iv
            return (None if a is None or d is None else a - d, None if b is None or c is None else b - c)
        if e.op == "neg":
            a, b = iv[0]
            return (None if b is None else -b, None if a is None else -a)
        if e.op == "*":
            return _interval_mul(iv[0], iv[1])
        if e.op == "/":
            (a, b), (c, d) = iv
            # d < c: the divisor's interval is empty (contradictory bounds), which tells nothing.
            if a is not None and a >= 0 and c is not None and c >= 1 and (d is None or d >= c):
                return (0 if d is None else a // d, None if b is None else b // c)
            return _TOP
        if e.op == "%":
            (a, _), (c, d) = iv
            if a is not None and a >= 0 and d is not None and c is not None and c >= 1:
                return (0, d - 1)
            return _TOP
        if e.op == "min":
            (a, b), (c, d) = iv
            lo = None if a is None or c is None else min(a, c)
            hi = b if d is None else d if b is None else min(b, d)
            return (lo, hi)
        if e.op == "max":
            (a, b), (c, d) = iv
            lo = a if c is None else c if a is None else max(a, c)
            hi = None if b is None or d is None else max(b, d)
            return (lo, hi)
        if e.op == "abs":
            a, b = iv[0]
            if a is not None and a >= 0:
                return (a, b)
            if b is not None and b <= 0:
                return (-b, None if a is None else -a)
            return (0, None if a is None or b is None else max(-a, b))
        if e.op == "signum":
            return (-1, 1)
        return _TOP

    def _nonneg(self, e: Expr) -> bool:
        lo = self.interval(e)[0]
        return lo is not None and lo >= 0

    def _positive(self, e: Expr) -> bool:
        lo = self.interval(e)[0]
        return lo is not None and lo >= 1

    # -- terms ------------------------------------------------------------------------------------------------

    def term(self, x: Expr | Int) -> z3.ArithRef:
        """The Z3 term of an integer expression, simplified first (``simplify.py``); the divisors of the
        expression as written are recorded before simplification can remove them."""
        e = x.expr if isinstance(x, Int) else x
        self._collect_divisors(e)
        return self._encode_int(self.simplifier.simplify(e))

    def boolean(self, x: Expr | Bool) -> z3.BoolRef:
        e = x.expr if isinstance(x, Bool) else x
        self._collect_divisors(e)
        return self._encode_bool(self.simplifier.simplify(e))

    def simplifies_to_true(self, x: Expr | Bool) -> bool:
        """Whether ``boolean(x)`` would be the constant true: the simplifier proves ``x`` from the intervals and
        divisibilities of the assumptions, and a solver asked for its negation could only answer unsat.  The
        divisors are recorded as ``boolean`` records them; no term is built (and no context created)."""
        e = x.expr if isinstance(x, Bool) else x
        self._collect_divisors(e)
        simple = self.simplifier.simplify(e)
        return type(simple) is Const and simple.value is True

    def record_divisors(self, x: Expr | Int) -> None:
        """Record the divisors of ``x`` as ``term`` would, without building its term."""
        self._collect_divisors(x.expr if isinstance(x, Int) else x)

    def _encode_int(self, e: Expr) -> z3.ArithRef:
        got = self._cache.get(e)
        if got is None:
            got = self._cache[e] = self._term(e)
        return got

    def _encode_bool(self, e: Expr) -> z3.BoolRef:
        got = self._cache.get(e)
        if got is None:
            got = self._cache[e] = self._boolean(e)
        return got

    def _collect_divisors(self, e: Expr) -> None:
        ctx = self.context_empty
        stack = [e]
        while stack:
            x = stack.pop()
            if (x, ctx) in self._walked or not isinstance(x, Op):
                continue
            self._walked.add((x, ctx))
            if x.op in ("/", "%"):
                d = x.args[1]
                lo, hi = self.interval(d)
                if not ((lo is not None and lo > 0) or (hi is not None and hi < 0)):
                    if d not in self.divisors:
                        self.divisors.append(d)
                    guarded = ctx is not None and bool(set(x.args[0].symbols()) & set(self.witnesses or ()))
                    known = self.empty_when.get(d, [])
                    if not guarded or known is None:
                        self.empty_when[d] = None
                    elif all(c != ctx for c in known):
                        self.empty_when[d] = [*known, ctx]  # type: ignore[list-item]
            stack.extend(x.args)

    def nonzero(self, d: Expr) -> z3.BoolRef:
        """The divisor ``d`` is nonzero wherever CuTe divides by it (``empty_when``)."""
        empties = self.empty_when.get(d)
        ok = self.term(d) != 0
        if not empties:
            return ok
        return z3.Or(ok, z3.And(*(self.boolean(c) for c in empties), self.ctx), self.ctx)

    def _term(self, e: Expr) -> z3.ArithRef:
        if type(e) is Const:
            return z3.IntVal(int(e.value), self.ctx)
        if type(e) is Sym:
            return self.var(e.name)
        assert isinstance(e, Op)
        op = e.op
        if op == "ite":
            return z3.If(self._encode_bool(e.args[0]), self._encode_int(e.args[1]), self._encode_int(e.args[2]))
        if op == "seq":  # the value of the last operand; the divisors of all were collected (_collect_divisors)
            return self._encode_int(e.args[-1])
        args = [self._encode_int(a) for a in e.args]
        if op == "+":
            return args[0] + args[1]
        if op == "-":
            return args[0] - args[1]
        if op == "*":
            return args[0] * args[1]
        if op == "neg":
            return -args[0]
        if op == "/":
            return self._tdiv(e.args[0], e.args[1], args[0], args[1])
        if op == "%":
            return self._tmod(e.args[0], e.args[1], args[0], args[1])
        if op == "min":
            return z3.If(args[0] <= args[1], args[0], args[1])
        if op == "max":
            return z3.If(args[0] >= args[1], args[0], args[1])
        if op == "abs":
            return z3.If(args[0] >= 0, args[0], -args[0])
        if op == "signum":
            return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, -1, 0))
        if op in ("gcd", "lcm"):
            return self._gcd_lcm(e)
        raise Unencodable(f"operation {op!r} has no integer encoding")

    def _boolean(self, e: Expr) -> z3.BoolRef:
        if type(e) is Const:
            return z3.BoolVal(bool(e.value), self.ctx)
        assert isinstance(e, Op), f"not a boolean: {e!r}"
        op = e.op
        if op == "and":
            return z3.And(*[self._encode_bool(a) for a in e.args], self.ctx)
        if op == "or":
            return z3.Or(*[self._encode_bool(a) for a in e.args], self.ctx)
        if op == "not":
            return z3.Not(self._encode_bool(e.args[0]))
        if op == "ite":
            return z3.If(self._encode_bool(e.args[0]), self._encode_bool(e.args[1]), self._encode_bool(e.args[2]))
        a, b = (self._encode_int(x) for x in e.args)
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]

    def _tdiv(self, ea: Expr, eb: Expr, a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
        if type(eb) is Const and int(eb.value) != 0:
            k = int(eb.value)
            if self._nonneg(ea):
                return a / k if k > 0 else -(a / -k)
            q = z3.If(a >= 0, a / abs(k), -((-a) / abs(k)))
            return q if k > 0 else -q
        if self._nonneg(ea) and self._positive(eb):
            return a / b
        return z3.If(a >= 0,
                     z3.If(b > 0, a / b, -(a / -b)),
                     z3.If(b > 0, -((-a) / b), (-a) / (-b)))

    def _tmod(self, ea: Expr, eb: Expr, a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
        if self._nonneg(ea) and (self._positive(eb) or (type(eb) is Const and int(eb.value) > 0)):
            return a % b
        return a - b * self._tdiv(ea, eb, a, b)

    def _gcd_lcm(self, e: Op) -> z3.ArithRef:
        # Exact only by unrolling Euclid's loop when one side is constant and small: then every step divides by a
        # known candidate, and the chain length is bounded by the constant.
        x, y = e.args
        const = x if type(x) is Const else y if type(y) is Const else None
        if const is None or abs(int(const.value)) > 4096:
            raise Unencodable(f"{e.op} of two run-time values")
        other = y if const is x else x
        c = abs(int(const.value))
        if c == 0 or not self._positive(other):
            raise Unencodable(f"{e.op} with a possibly non-positive operand")
        t = self._encode_int(other)
        # For positive operands CuTe's gcd is the mathematical one: gcd(t, c) is the largest divisor of c that
        # divides t.
        g: z3.ArithRef = z3.IntVal(1, self.ctx)
        for d in sorted(k for k in range(1, c + 1) if c % k == 0):
            g = z3.If(t % d == 0, z3.IntVal(d, self.ctx), g)
        if e.op == "gcd":
            return g
        return (t / g) * c if const is y else (c / g) * t

    def model_values(self, model: z3.ModelRef, names: Iterable[str]) -> dict[str, int]:
        out = {}
        for name in names:
            v = model.eval(self.var(name), model_completion=True)
            out[name] = v.as_long()
        return out
