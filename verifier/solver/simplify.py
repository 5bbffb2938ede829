"""Simplification of the model's expressions under the symbols' assumptions, before they reach Z3.

Why: CuTe's algebra, followed branch for branch, builds terms such as ``(1+M-1)/M*1`` or ``min(M,M*N)``.  They
are exact, but each symbolic division or ``min`` is a case split or a nonlinear constraint for Z3, and a handful
of them make a claim undecidable in practice.  Most are constants or polynomials once the ranges of the symbols
are taken into account: ``M >= 1`` makes ``(1+M-1)/M`` one and ``min(M,M*N)`` just ``M``.

Model
-----
An integer expression is brought to a polynomial normal form over *atoms*: symbols, and the operations a
polynomial cannot express (``/``, ``%``, ``min``, ``max``, ``abs``, ``signum``, ``gcd``, ``lcm``, ``ite``) with
simplified arguments.  A symbol ``M`` assumed to be a multiple of ``m`` is the polynomial ``m*M÷m`` over the
quotient atom ``M÷m`` (the encoder makes ``M`` that product), so ``(M+7)/8`` with ``8 | M`` is the polynomial
``M÷8``.  The rewrites use only interval facts that hold for every allowed value (each symbol's range and
divisibility, witnesses ``>= 0``, as ``Encoder.interval`` computes them):

* ``x / y`` and ``x % y`` with ``x >= 0`` and ``y >= 1``: ``x == A*y + r`` with ``0 <= r < y`` gives the quotient
  ``A`` and the remainder ``r`` (C++ truncation is floor division here);
* ``min``, ``max``, ``abs``, ``signum`` are decided by the sign of a difference or of the argument; a sign is read
  from intervals, after factoring out a common positive atom (``M - M*N == M*(1-N) <= 0``);
* a comparison is decided when the sign of the difference is known, else written as ``P op Q`` with no term
  common to both sides.

Guarantee: under every assignment that satisfies the assumptions and under which no division of the *original*
expression has a zero divisor, the simplified expression has the original's value.  The encoder collects the
divisors from the original expression, so a division that simplification removes is still checked for zero.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd

from verifier.core.integers import Const, Expr, Op, Sym

Interval = tuple[int | None, int | None]
Mono = tuple[tuple[Expr, int], ...]  # atoms with their powers, in a canonical order
Poly = dict[Mono, int]  # monomial -> non-zero coefficient

QUOTIENT = "÷"
MAX_TERMS = 256
_COMPARE = ("==", "!=", "<", "<=", ">", ">=")


def quotient_name(name: str, m: int) -> str:
    """The atom ``M÷m`` that stands for ``M / m`` when ``m`` divides ``M``."""
    return f"{name}{QUOTIENT}{m}"


class Simplifier:
    """Simplifies expressions; ``interval`` bounds an expression over the allowed values, ``multiple`` gives the
    divisibility assumed of a symbol (1 when none).

    Two passes: the rules, then the rules again with constant factors split out of moduli (``u % (c*k)`` into
    ``u % c + c*((u / c) % k)``).  Splitting at once would hide ``u % (y*k)`` from the rules that need it whole."""

    def __init__(self, interval: Callable[[Expr], Interval], multiple: Callable[[str], int]) -> None:
        self._passes = (_Pass(interval, multiple, split=False), _Pass(interval, multiple, split=True))

    def simplify(self, e: Expr) -> Expr:
        first, second = self._passes
        return second.simplify(first.simplify(e))


class _Pass:
    def __init__(self, interval: Callable[[Expr], Interval], multiple: Callable[[str], int], split: bool) -> None:
        self.interval = interval
        self.multiple = multiple
        self.split = split
        self._memo: dict[Expr, Expr] = {}
        self._polys: dict[Expr, Poly] = {}
        self._keys: dict[Expr, str] = {}
        self._monos: dict[Mono, Interval] = {}  # each monomial's interval: the intervals of one pass are fixed

    # -- entry point ------------------------------------------------------------------------------------------

    def simplify(self, e: Expr) -> Expr:
        got = self._memo.get(e)
        if got is None:
            got = self._memo[e] = self._simplify(e)
        return got

    def _simplify(self, e: Expr) -> Expr:
        if type(e) is Const:
            return e
        if type(e) is Sym:
            return self.expr(self.poly(e))
        assert isinstance(e, Op)
        op = e.op
        if op in ("+", "-", "*", "neg"):
            return self.expr(self.poly(e))
        if op in _COMPARE:
            return self._compare(op, self.poly(e.args[0]), self.poly(e.args[1]))
        if op in ("and", "or"):
            return self._connective(op, [self.simplify(a) for a in e.args])
        if op == "not":
            a = self.simplify(e.args[0])
            return Const(not a.value) if type(a) is Const else Op("not", (a,))
        if op == "ite":
            c = self.simplify(e.args[0])
            if type(c) is Const:
                return self.simplify(e.args[1] if c.value else e.args[2])
            return Op("ite", (c, self.simplify(e.args[1]), self.simplify(e.args[2])))
        return self.expr(self.poly(e))

    # -- polynomials ------------------------------------------------------------------------------------------

    def poly(self, e: Expr) -> Poly:
        got = self._polys.get(e)
        if got is None:
            got = self._polys[e] = self._poly(e)
        return got

    def _poly(self, e: Expr) -> Poly:
        if type(e) is Const:
            return {(): int(e.value)} if e.value else {}
        if type(e) is Sym:
            m = self.multiple(e.name)
            if m > 1:
                return {((Sym(quotient_name(e.name, m)), 1),): m}
            return {((e, 1),): 1}
        assert isinstance(e, Op)
        op, args = e.op, e.args
        if op == "seq":
            # The value of the last operand.  Dropping the others (and any other subterm, 0*(x/y), x-x) is sound
            # here because the encoder collects the divisors of an expression before simplifying it
            # (encoding.Encoder.term): a division dropped here is still decided by DIV0.
            return self.poly(args[-1])
        if op == "+":
            return self._fold(_add(self.poly(args[0]), self.poly(args[1])))
        if op == "-":
            return self._fold(_add(self.poly(args[0]), _scale(self.poly(args[1]), -1)))
        if op == "neg":
            return _scale(self.poly(args[0]), -1)
        if op == "*":
            a, b = self.poly(args[0]), self.poly(args[1])
            if len(a) * len(b) <= MAX_TERMS:
                return self._mul(a, b)
            return self._atom(Op("*", (self.expr(a), self.expr(b))))
        if op in ("/", "%"):
            return self._divide(op, self.poly(args[0]), self.poly(args[1]))
        if op in ("min", "max"):
            a, b = self.poly(args[0]), self.poly(args[1])
            d = self.bounds(_add(a, _scale(b, -1)))
            first = (d[1] is not None and d[1] <= 0) if op == "min" else (d[0] is not None and d[0] >= 0)
            second = (d[0] is not None and d[0] >= 0) if op == "min" else (d[1] is not None and d[1] <= 0)
            if first:
                return a
            if second:
                return b
            return self._atom(Op(op, (self.expr(a), self.expr(b))))
        if op == "abs":
            a = self.poly(args[0])
            lo, hi = self.bounds(a)
            if lo is not None and lo >= 0:
                return a
            if hi is not None and hi <= 0:
                return _scale(a, -1)
            return self._atom(Op("abs", (self.expr(a),)))
        if op == "signum":
            a = self.poly(args[0])
            lo, hi = self.bounds(a)
            if not a:
                return {}
            if lo is not None and lo >= 1:
                return {(): 1}
            if hi is not None and hi <= -1:
                return {(): -1}
            return self._atom(Op("signum", (self.expr(a),)))
        if op == "ite":
            s = self.simplify(e)
            return self._atom(s) if isinstance(s, Op) and s.op == "ite" else self.poly(s)
        return self._atom(Op(op, tuple(self.simplify(a) for a in args)))

    def _fold(self, p: Poly) -> Poly:
        """``c*(x % y) + c*y*(x / y) == c*x`` (C++ division and remainder, ``y != 0``), wherever a sum holds both."""
        for m, c in list(p.items()):
            if m not in p:
                continue
            for atom, power in m:
                if not (isinstance(atom, Op) and atom.op == "%" and power == 1):
                    continue
                y = self.poly(atom.args[1])
                if len(y) != 1:
                    continue
                ((ym, yc),) = y.items()
                f = dict(m)
                del f[atom]
                others = dict(f)
                quotient = self._lone_atom(self.poly(Op("/", atom.args)))
                if quotient is None:
                    continue
                f[quotient] = f.get(quotient, 0) + 1
                for a, q in ym:
                    f[a] = f.get(a, 0) + q
                partner = self._mono(f)
                if p.get(partner) == c * yc:
                    p = dict(p)
                    del p[m], p[partner]
                    x = self._mul(self.poly(atom.args[0]), {self._mono(others): c})
                    return self._fold(_add(p, x))
        return p

    def _atom(self, e: Expr) -> Poly:
        if type(e) is Const:
            return {(): int(e.value)} if e.value else {}
        return {((e, 1),): 1}

    def _key(self, e: Expr) -> str:
        k = self._keys.get(e)
        if k is None:
            from verifier.core.integers import format_expr

            k = self._keys[e] = format_expr(e)
        return k

    def _mono(self, factors: dict[Expr, int]) -> Mono:
        return tuple(sorted(factors.items(), key=lambda f: self._key(f[0])))

    def _mul(self, a: Poly, b: Poly) -> Poly:
        out: Poly = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                f = dict(ma)
                for atom, p in mb:
                    f[atom] = f.get(atom, 0) + p
                m = self._mono(f)
                out[m] = out.get(m, 0) + ca * cb
        return {m: c for m, c in out.items() if c}

    # -- division ---------------------------------------------------------------------------------------------

    def _divide(self, op: str, x: Poly, y: Poly) -> Poly:
        keep = self._atom(Op(op, (self.expr(x), self.expr(y))))
        if y == {(): 1} or y == {(): -1}:
            return (x if y == {(): 1} else _scale(x, -1)) if op == "/" else {}
        if not x:
            return {}
        if not (self._nonneg(x) and self._positive(y)):
            return keep
        inner = self._lone_atom(x)
        if isinstance(inner, Op) and inner.op in ("/", "%"):
            u, v = self.poly(inner.args[0]), self.poly(inner.args[1])
            if self._nonneg(u) and self._positive(v):
                if inner.op == "/":
                    # (u / v) / y == u / (v*y) and (u / v) % y == u % (v*y) / v, for u >= 0 and v, y >= 1.
                    if op == "/":
                        return self._divide("/", u, self._mul(v, y))
                elif op == "%" and self._divides(y, v):
                    # (u % (y*k)) % y == u % y.
                    return self._divide("%", u, y)
                elif op == "/":
                    k, rest = self._split(v, y)
                    if k and not rest and self._positive(k):
                        # (u % (y*k)) / y == (u / y) % k.
                        return self._divide("%", self._divide("/", u, y), k)
        quotient, rest = self._split(x, y)
        for j in (0, 1, -1, 2):
            r = _add(rest, _scale(y, -j))
            if self._nonneg(r) and self._below(r, y):
                q = _add(quotient, {(): j} if j else {})
                return q if op == "/" else r
        if quotient and self._nonneg(rest):
            # x == A*y + r with r >= 0: x / y == A + r / y and x % y == r % y.
            part = self._divide(op, rest, y)
            return _add(quotient, part) if op == "/" else part
        if op == "%" and self.split and len(y) == 1:
            ((ym, yc),) = y.items()
            if ym and yc > 1:
                # u % (c*k) == u % c + c*((u / c) % k), the mixed radix form the rules above fold.
                c: Poly = {(): yc}
                low = self._divide("%", x, c)
                return _add(low, _scale(self._divide("%", self._divide("/", x, c), {ym: 1}), yc))
        return keep

    def _lone_atom(self, p: Poly) -> Expr | None:
        if len(p) == 1:
            ((m, c),) = p.items()
            if c == 1 and len(m) == 1 and m[0][1] == 1:
                return m[0][0]
        return None

    def _divides(self, y: Poly, v: Poly) -> bool:
        k, rest = self._split(v, y)
        return bool(k) and not rest and self._positive(k)

    def _below(self, r: Poly, y: Poly) -> bool:
        """``r < y``: by the sign of ``y - r``, or because ``r`` is a remainder ``u % v`` with ``v | y``."""
        if self._positive(_add(y, _scale(r, -1))):
            return True
        atom = self._lone_atom(r)
        if isinstance(atom, Op) and atom.op == "%":
            v = self.poly(atom.args[1])
            return v == y or self._divides(v, y)
        return False

    def _split(self, x: Poly, y: Poly) -> tuple[Poly, Poly]:
        """``x == A*y + r`` with ``A`` collecting the monomials of ``x`` that the monomial ``y`` divides."""
        if len(y) != 1:
            return {}, x
        ((ym, yc),) = y.items()
        yf = dict(ym)
        quotient: Poly = {}
        rest: Poly = {}
        for m, c in x.items():
            f = dict(m)
            if all(f.get(a, 0) >= p for a, p in yf.items()):
                q, r = divmod(c, yc)
                if q:
                    g = {a: p - yf.get(a, 0) for a, p in f.items() if p - yf.get(a, 0)}
                    qm = self._mono(g)
                    quotient[qm] = quotient.get(qm, 0) + q
                if r:
                    rest[m] = rest.get(m, 0) + r
            else:
                rest[m] = rest.get(m, 0) + c
        return {m: c for m, c in quotient.items() if c}, {m: c for m, c in rest.items() if c}

    # -- signs ------------------------------------------------------------------------------------------------

    def bounds(self, p: Poly) -> Interval:
        """Bounds of a polynomial over the allowed values; a common positive atom is factored out when the plain
        interval sum cannot tell the sign."""
        lo, hi = self._sum(p)
        if (lo is not None and lo >= 0) or (hi is not None and hi <= 0) or len(p) < 2:
            return lo, hi
        if () in p and len(p) > 2:
            c = p[()]
            blo, bhi = self.bounds({m: k for m, k in p.items() if m})
            return (lo if blo is None else max(lo, blo + c) if lo is not None else blo + c,
                    hi if bhi is None else min(hi, bhi + c) if hi is not None else bhi + c)
        common = None
        for m in p:
            atoms = {a for a, _ in m}
            common = atoms if common is None else common & atoms
        for a in sorted(common or (), key=self._key):
            alo = self.interval(a)[0]
            if alo is None or alo < 1:
                continue
            reduced: Poly = {}
            for m, c in p.items():
                f = dict(m)
                f[a] -= 1
                reduced[self._mono({k: v for k, v in f.items() if v})] = c
            qlo, qhi = self.bounds(reduced)
            # p == a*q with a >= 1: p has q's sign, and |p| >= |q|.
            return (qlo if qlo is not None and qlo >= 0 else lo, qhi if qhi is not None and qhi <= 0 else hi)
        return lo, hi

    def _sum(self, p: Poly) -> Interval:
        lo: int | None = 0
        hi: int | None = 0
        monos = self._monos
        for m, c in p.items():
            iv = monos.get(m)
            if iv is None:
                iv = (1, 1)
                for a, power in m:
                    for _ in range(power):
                        iv = _imul(iv, self.interval(a))
                monos[m] = iv
            mlo, mhi = _imul(iv, (c, c))
            lo = None if lo is None or mlo is None else lo + mlo
            hi = None if hi is None or mhi is None else hi + mhi
        return lo, hi

    def _nonneg(self, p: Poly) -> bool:
        lo = self.bounds(p)[0]
        return lo is not None and lo >= 0

    def _positive(self, p: Poly) -> bool:
        lo = self.bounds(p)[0]
        return lo is not None and lo >= 1

    # -- booleans ---------------------------------------------------------------------------------------------

    def _compare(self, op: str, a: Poly, b: Poly) -> Expr:
        d = _add(a, _scale(b, -1))
        lo, hi = self.bounds(d)
        zero = not d
        truth = {
            "==": True if zero else False if (lo is not None and lo > 0) or (hi is not None and hi < 0) else None,
            "<": True if hi is not None and hi < 0 else False if lo is not None and lo >= 0 else None,
            "<=": True if hi is not None and hi <= 0 else False if lo is not None and lo > 0 else None,
        }
        flip = {"!=": "==", ">=": "<", ">": "<="}
        if op in flip:
            t = truth[flip[op]]
            if t is not None:
                return Const(not t)
        else:
            t = truth[op]
            if t is not None:
                return Const(t)
        g = 0
        for c in d.values():
            g = gcd(g, c)
        left = {m: c // g for m, c in d.items() if c > 0}
        right = {m: -c // g for m, c in d.items() if c < 0}
        return Op(op, (self.expr(left), self.expr(right)))

    @staticmethod
    def _connective(op: str, args: list[Expr]) -> Expr:
        absorbing = op == "or"
        kept = []
        for a in args:
            if type(a) is Const:
                if bool(a.value) == absorbing:
                    return Const(absorbing)
                continue
            kept.append(a)
        if not kept:
            return Const(not absorbing)
        return kept[0] if len(kept) == 1 else Op(op, tuple(kept))

    # -- back to expressions ----------------------------------------------------------------------------------

    def expr(self, p: Poly) -> Expr:
        if not p:
            return Const(0)
        terms = sorted(p.items(), key=lambda t: (len(t[0]) == 0, [self._key(a) for a, _ in t[0]]))
        out: Expr | None = None
        for m, c in terms:
            factors: list[Expr] = [a for a, power in m for _ in range(power)]
            mag = abs(c)
            if mag != 1 or not factors:
                factors.insert(0, Const(mag))
            term = factors[0]
            for f in factors[1:]:
                term = Op("*", (term, f))
            if out is None:
                out = term if c > 0 else Op("neg", (term,))
            else:
                out = Op("+" if c > 0 else "-", (out, term))
        assert out is not None
        return out


def _add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + c
    return {m: c for m, c in out.items() if c}


def _scale(a: Poly, k: int) -> Poly:
    return {m: c * k for m, c in a.items()} if k else {}


def _imul(x: Interval, y: Interval) -> Interval:
    if None in x or None in y:
        if x[0] is not None and y[0] is not None and x[0] >= 0 and y[0] >= 0:
            return x[0] * y[0], (None if x[1] is None or y[1] is None else x[1] * y[1])
        if x == (0, 0) or y == (0, 0):
            return 0, 0
        # A constant factor of known sign keeps the half-bounded side.
        for p, q in ((x, y), (y, x)):
            if p[0] is not None and p[0] == p[1]:
                k = p[0]
                lo, hi = q
                if k >= 0:
                    return (None if lo is None else lo * k), (None if hi is None else hi * k)
                return (None if hi is None else hi * k), (None if lo is None else lo * k)
        return None, None
    products = [a * b for a in x for b in y]  # type: ignore[operator]
    return min(products), max(products)


__all__ = ["QUOTIENT", "Simplifier", "quotient_name"]
