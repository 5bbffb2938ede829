"""Signed overflow in CuTe's own arithmetic: every intermediate of an operation, in CuTe's integer types.

CuTe computes in its leaf types: a dynamic leaf is an ``int`` (32 bits) unless its symbol is declared 64-bit, a
static leaf is a ``C<v>`` of ``int``, and C++'s usual conversions give ``int op int64`` the type ``int64``.  A
signed result outside its type is undefined behaviour (in practice it wraps: compiled CuTe's ``ceil_div(M, _2)``
at ``M = 2^31-1`` is negative).  While ``algebra.apply`` runs an operation, ``watching`` installs a watch on the
integer arithmetic (``integers.py``) that records, for each ``+ - * / neg abs lcm`` CuTe executes, an ``OVF-ARITH``
obligation: its result fits in its type.  The obligation names the innermost CuTe computation in progress
(``ceil_div(M, _2)`` at ``int_tuple.hpp:344``, set by ``integers.site``) and the intermediate that must fit.

Cheap when the leaves are constants: a concrete result is compared with its type's range on the spot and only an
overflow is recorded (as a failing obligation).  A symbolic result is recorded unless the symbols' ranges
(``under``: the table in force) bound it inside the type by interval arithmetic.  A symbol declared without an
upper bound (``hi=None``, a mathematical integer) is no C++ ``int``: expressions over it record nothing.

A static result out of range is a constant-expression overflow: a compile error (``C<t*u>``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from verifier.core.integers import (
    _SITE,
    _WATCH,
    FALSE,
    Bool,
    Const,
    Expr,
    Int,
    Op,
    Sym,
    and_,
    format_expr,
    ge,
    le,
    watch_closed,
    watch_opened,
)
from verifier.core.obligations import _active, record
from verifier.core.symbols import Symbols

OVF_ARITH = "OVF-ARITH"
OVERFLOW = "signed overflow: undefined behaviour (the value wraps in compiled code)"
COMPILE = "a constant-expression overflow: CuTe does not compile"

_TABLE: ContextVar[Symbols | None] = ContextVar("overflow_table", default=None)

Interval = tuple[int | None, int | None]
_TOP: Interval = (None, None)


def limits(bits: int) -> tuple[int, int]:
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


@contextmanager
def under(symbols: Symbols) -> Iterator[None]:
    """The symbols' widths and ranges in force for the operations run inside."""
    token = _TABLE.set(symbols)
    try:
        yield
    finally:
        _TABLE.reset(token)


def add_wide(a: Int, b: Int) -> Int:
    """``a + b`` where one operand's C++ type is ``int64_t`` although its value may fit an ``int`` (a composed
    layout's ``O + B(c)`` over an ``int64_t`` leaf): the sum is watched as an ``int64_t``."""
    from verifier.core.integers import unwatched

    with unwatched():
        r = a + b
    watch = _WATCH.get()
    if isinstance(watch, _Watch):
        watch("+", (a, b), r, wide=True)
    return r


def wide(e: Expr) -> bool:
    """Whether CuTe computes ``e`` in ``int64``: it involves a symbol the table in force (``under``) declares
    64-bit (the usual conversions make ``int op int64`` an ``int64``)."""
    table = _TABLE.get()
    if table is None:
        return False
    return any(sym is not None and sym.bits == 64 for sym in (table.table.get(n) for n in e.symbols()))


class _Watch:
    """One operation's watch: records into the active ``Recorder``, each condition once."""

    def __init__(self, op: str, table: Symbols | None) -> None:
        self.op = op
        self.table = table
        self.seen: set[Expr] = set()
        self.intervals: dict[Expr, Interval] = {}
        self.bounds: dict[str, Interval] = {}
        if table is not None:
            self.bounds = {sym.name: (sym.lo, sym.hi) for sym in table}
            self._tighten(table)

    def _tighten(self, table: Symbols) -> None:
        """Lower each symbol's upper bound through the relations ``X < e`` / ``X <= e`` (``m < (M+127)/128``):
        assumptions, so the bound is sound, and it keeps the obligations of in-range tile coordinates away."""
        for _ in range(3):
            changed = False
            for rel in table.relations:
                e = rel.expr
                if not (isinstance(e, Op) and e.op in ("<", "<=", ">", ">=") and len(e.args) == 2):
                    continue
                a, b = e.args
                op = e.op
                if type(b) is Sym and type(a) is not Sym:
                    a, b, op = b, a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
                if type(a) is not Sym or a.name not in self.bounds or op not in ("<", "<="):
                    continue
                self.intervals.clear()
                hi = self.interval(b)[1]
                if hi is None:
                    continue
                hi -= 1 if op == "<" else 0
                lo, old = self.bounds[a.name]
                if old is None or hi < old:
                    self.bounds[a.name] = (lo, hi)
                    changed = True
            if not changed:
                break
        self.intervals.clear()

    def __call__(self, op: str, args: tuple[Int, ...], r: Int, wide: bool = False) -> None:
        e = r.expr
        if type(e) is Const:
            v = e.value
            if -0x80000000 <= v <= 0x7FFFFFFF:
                return
            # A concrete operand outside int32 is a 64-bit value (C++ types such a literal long); ``wide``: an
            # operand whose C++ type is known to be int64_t, whatever its value.
            bits = 64 if wide or any(type(a.expr) is Const and not -0x80000000 <= a.expr.value <= 0x7FFFFFFF
                                     for a in args) else 32
            lo, hi = limits(bits)
            if lo <= v <= hi:
                return
            self._record(op, args, r, bits, FALSE, COMPILE if r.static else OVERFLOW)
            return
        bits = 64 if wide else 32
        table = self.table
        if table is not None:
            for name in e.symbols():
                sym = table.table.get(name)
                if sym is None:
                    continue
                if sym.hi is None:
                    return  # a mathematical integer
                if sym.bits == 64:
                    bits = 64
        if e in self.seen or _cannot_overflow(op, args, self if table is not None else None):
            return
        self.seen.add(e)
        lo, hi = limits(bits)
        if table is not None:
            a, b = self.interval(e)
            if a is not None and b is not None and lo <= a and b <= hi:
                return
        self._record(op, args, r, bits, and_(ge(r, lo), le(r, hi)), OVERFLOW)

    def _record(self, op: str, args: tuple[Int, ...], r: Int, bits: int, cond: Bool, how: str) -> None:
        where = _SITE.get()
        shown = _shown(op, args)
        if where is not None:
            name, source, operands = where
            call = f"{name}({', '.join(map(str, operands))})"
            text = f"{call} in {self.op}: {shown} fits in int{bits}" if call != shown else \
                f"{call} in {self.op} fits in int{bits}"
        else:
            source = f"{self.op} (its arithmetic)"
            text = f"{shown} in {self.op} fits in int{bits}"
        token = _WATCH.set(None)  # the obligation's own condition is not CuTe's arithmetic
        try:
            record(OVF_ARITH, text, source, how, cond)
        finally:
            _WATCH.reset(token)

    # -- interval arithmetic over the symbols' ranges ----------------------------------------------------------

    def interval(self, e: Expr) -> Interval:
        got = self.intervals.get(e)
        if got is None:
            got = self.intervals[e] = self._interval(e)
        return got

    def _interval(self, e: Expr) -> Interval:
        if type(e) is Const:
            return int(e.value), int(e.value)
        if type(e) is Sym:
            return self.bounds.get(e.name, _TOP)
        assert isinstance(e, Op)
        if e.op in ("and", "or", "not", "==", "!=", "<", "<=", ">", ">="):
            return 0, 1
        if e.op == "ite":
            (a, b), (c, d) = self.interval(e.args[1]), self.interval(e.args[2])
            return _lo(a, c), _hi(b, d)
        iv = [self.interval(x) for x in e.args]
        if e.op == "seq":  # the value is the last operand's (integers.py: the others are kept for their divisions)
            return iv[-1]
        if e.op == "+":
            (a, b), (c, d) = iv
            return _add(a, c), _add(b, d)
        if e.op == "-":
            (a, b), (c, d) = iv
            return _add(a, _neg(d)), _add(b, _neg(c))
        if e.op == "neg":
            a, b = iv[0]
            return _neg(b), _neg(a)
        if e.op == "*":
            return _mul(iv[0], iv[1])
        if e.op == "/":
            (a, b), (c, d) = iv
            if a is not None and a >= 0 and c is not None and c >= 1:
                return (0 if d is None else a // d), (None if b is None else b // c)
            return _TOP
        if e.op == "%":
            (a, b), (c, d) = iv
            if a is not None and a >= 0 and c is not None and c >= 1:
                return 0, _min_hi(b, None if d is None else d - 1)
            return _TOP
        if e.op in ("min", "max"):
            (a, b), (c, d) = iv
            if e.op == "min":
                return (None if a is None or c is None else min(a, c)), _min_hi(b, d)
            return _max_lo(a, c), (None if b is None or d is None else max(b, d))
        if e.op == "abs":
            a, b = iv[0]
            if a is not None and a >= 0:
                return a, b
            if a is None or b is None:
                return 0, None
            return 0, max(-a, b)
        if e.op == "signum":
            return -1, 1
        return _TOP


def _cannot_overflow(op: str, args: tuple[Int, ...], watch: _Watch | None) -> bool:
    """A result no larger in magnitude than an operand, which is checked where it is computed: ``x*1``, and a
    quotient whose divisor cannot be -1 (only ``INT_MIN / -1`` overflows)."""
    if op == "*":
        return any(type(a.expr) is Const and a.expr.value == 1 for a in args)
    if op == "/":
        d = args[1].expr
        if type(d) is Const:
            return d.value != -1
        if watch is not None:
            lo = watch.interval(d)[0]
            return lo is not None and lo >= 0
    return False


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _neg(a: int | None) -> int | None:
    return None if a is None else -a


def _lo(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else min(a, b)


def _hi(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else max(a, b)


def _min_hi(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _max_lo(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else max(a, b)


def _mul(x: Interval, y: Interval) -> Interval:
    (a, b), (c, d) = x, y
    if None in (a, b, c, d):
        if a is not None and c is not None and a >= 0 and c >= 0:
            return a * c, (None if b is None or d is None else b * d)
        return _TOP
    products = [a * c, a * d, b * c, b * d]  # type: ignore[operator]
    return min(products), max(products)


def _shown(op: str, args: tuple[Int, ...]) -> str:
    if len(args) == 1:
        return f"{op}({args[0]})" if op != "neg" else f"-{args[0]}"
    if op in ("lcm",):
        return f"lcm({args[0]}, {args[1]})"
    return format_expr(Op(op, tuple(_leaf(a) for a in args)))


def _leaf(a: Int) -> Expr:
    """An operand as it prints in the obligation: a static integer keeps its ``_``."""
    return Sym(f"_{a.value}") if a.static else a.expr


@contextmanager
def watching(op: str) -> Iterator[None]:
    """Watch the arithmetic of one operation (``algebra.apply``) while a ``Recorder`` is active."""
    if _active.get() is None:
        yield
        return
    watch_opened()
    token = _WATCH.set(_Watch(op, _TABLE.get()))
    try:
        yield
    finally:
        _WATCH.reset(token)
        watch_closed()




# -- OVF-RESULT: the result's own evaluation -------------------------------------------------------------------

OVF_RESULT = "OVF-RESULT"


def _width(layout: object, symbols: Symbols) -> int | None:
    """The index type of a layout's evaluation: int64 if a leaf involves a 64-bit symbol; None when a leaf is
    over a mathematical integer (``hi=None``) or the layout is not plain (a swizzle, a scaled basis)."""
    from verifier.core.int_tuple import leaves
    from verifier.core.layouts import Layout

    if not isinstance(layout, Layout):
        return None
    bits = 32
    for x in (*leaves(layout.shape), *leaves(layout.stride)):
        if type(x) is not Int:
            return None
        for name in x.expr.symbols():
            sym = symbols.table.get(name)
            if sym is not None and sym.hi is None:
                return None
            if sym is not None and sym.bits == 64:
                bits = 64
    return bits


def evaluation_fits(layout: object, bits: int) -> Bool:
    """Every intermediate of ``L(i)`` for ``0 <= i < size(L)`` fits in ``int<bits>``: the partial products of the
    extents (``size``, and idx2crd's divisors), each ``coord * stride`` term at its extreme coordinate, and the
    partial sums of crd2idx at their extremes (stride.hpp:60-124)."""
    from verifier.core.int_tuple import leaves
    from verifier.core.integers import D, max_, min_

    lo, hi = limits(bits)
    with _unwatched_here():
        shapes = list(leaves(layout.shape))  # type: ignore[attr-defined]
        strides = list(leaves(layout.stride))  # type: ignore[attr-defined]
        parts: list[Bool] = []

        def fits(x: Int) -> Bool:
            return and_(ge(x, lo), le(x, hi))

        prod: Int = D(1)
        for s in shapes:
            prod = prod * s
            parts.append(fits(prod))
        low: Int = D(0)
        high: Int = D(0)
        for s, d in zip(shapes, strides):
            term = (s - 1) * d
            parts.append(fits(term))
            low = low + min_(term, D(0))
            high = high + max_(term, D(0))
            parts.append(and_(fits(low), fits(high)))
        return and_(*parts)


def result_condition(args: tuple[object, ...], result: object, symbols: Symbols) -> Bool | None:
    """OVF-RESULT: where every operand evaluates without overflow, so does the result; None when it does not
    apply (a result or an operand that is not a plain layout)."""
    from verifier.core.layouts import Layout

    inner = getattr(result, "layout", result)  # an offset view: its layout
    bits = _width(inner, symbols)
    if bits is None:
        return None
    layouts = [a for a in args if isinstance(a, Layout)]
    if not layouts:
        return None
    widths = [_width(a, symbols) for a in layouts]
    if any(w is None for w in widths):
        return None
    from verifier.core.integers import not_, or_

    operands = and_(*(evaluation_fits(a, w) for a, w in zip(layouts, widths)))  # type: ignore[arg-type]
    return or_(not_(operands), evaluation_fits(inner, bits))


@contextmanager
def _unwatched_here() -> Iterator[None]:
    token = _WATCH.set(None)
    try:
        yield
    finally:
        _WATCH.reset(token)
