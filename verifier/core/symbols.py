"""Symbols: the named run-time integers of a problem (M, N, lda, ...) and what is assumed about them.

A symbol is an integer of a fixed width (int32 unless declared ``i64``) with an inclusive range and an optional
divisibility; by default ``1 <= M <= 2**31-1``, the values a run-time extent can take, and ``0 <= t`` for an index
(a thread, a tile coordinate, a k-tile: ``index_default``); ``hi=None`` leaves it unbounded above (a mathematical
integer: the "for every positive integer" of ``proofs/``).

A range is what the user says.  A default lower bound is only a default: the first lower bound the user states (a
declaration's ``min``, ``--symbol t=0..255``, an assumption ``t >= 0`` or ``t == 0``, a ``--param t=0``) replaces
it, where a stated one is only ever tightened (``Symbol.lo_stated``).  Spec files, the command line and the pytest
helpers declare symbols through this one rule (``declaration``, ``parse_declaration``).

Relations between symbols (``lda >= M``) are boolean expressions.  A ``Symbols`` table is the single place these
live: the parser declares symbols in it, the engine reads their assumptions from it, and concrete evaluation checks
values against it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from math import lcm

from verifier.core.errors import LayoutError
from verifier.core.integers import Bool, Const, Expr, Op, Sym

_FLIPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Symbol:
    """One run-time integer and its assumptions."""

    name: str
    lo: int = 1
    hi: int | None = INT32_MAX
    multiple_of: int = 1
    bits: int = 32
    lo_stated: bool = False  # ``lo`` is the user's (else a default, which a stated lower bound replaces)

    def admits(self, value: int) -> bool:
        return self.lo <= value and (self.hi is None or value <= self.hi) and value % self.multiple_of == 0

    def admits_stated(self, value: int) -> bool:
        """Whether ``value`` is within what the user stated: a default lower bound does not exclude it."""
        return (value >= self.lo or not self.lo_stated) and (self.hi is None or value <= self.hi) \
            and value % self.multiple_of == 0

    def describe(self) -> str:
        text = f"{self.lo} <= {self.name}" + (f" <= {self.hi}" if self.hi is not None else "")
        if self.multiple_of != 1:
            text += f", {self.name} % {self.multiple_of} == 0"
        return text


@dataclass
class Symbols:
    """A table of symbols with their assumptions and the relations between them.

    ``strict`` tables reject names that were not declared (spec files); otherwise a new name is declared with
    the default assumptions when it is first seen (the command line).
    """

    strict: bool = False
    table: dict[str, Symbol] = field(default_factory=dict)
    relations: list[Bool] = field(default_factory=list)
    _anonymous: int = 0

    def declare(self, name: str, **assumptions: int | bool) -> Symbol:
        if name in self.table and not assumptions:
            return self.table[name]
        if "lo" in assumptions and "lo_stated" not in assumptions:
            assumptions["lo_stated"] = True  # a lower bound a caller declares is stated (the defaults say so)
        base = self.table.get(name, Symbol(name))
        sym = replace(base, **assumptions)  # type: ignore[arg-type]  # assumptions name the integer fields
        if sym.bits == 64 and "hi" not in assumptions and base.hi == INT32_MAX:
            sym = replace(sym, hi=INT64_MAX)
        if sym.hi is not None and sym.lo > sym.hi:
            raise LayoutError(f"symbol {name}: empty range {sym.lo}..{sym.hi}")
        if sym.multiple_of < 1:
            raise LayoutError(f"symbol {name}: multiple_of must be positive, got {sym.multiple_of}")
        self.table[name] = sym
        return sym

    def index_default(self, name: str) -> None:
        """``name`` is an index (a thread, a tile coordinate, a k-tile, a stage): unless the user stated its lower
        bound, it starts at 0, the first index, which must be checked as any other."""
        sym = self.table.get(name)
        if sym is not None and not sym.lo_stated and sym.lo > 0:
            self.declare(name, lo=0, lo_stated=False)

    def state_lower(self, name: str, lo: int) -> None:
        """The user states ``lo <= name``: it replaces a default lower bound and tightens a stated one."""
        sym = self.table[name]
        self.declare(name, lo=max(sym.lo, lo) if sym.lo_stated else lo, lo_stated=True)

    def lookup(self, name: str) -> Symbol | None:
        if name in self.table:
            return self.table[name]
        if self.strict:
            return None
        return self.declare(name)

    def fresh_anonymous(self) -> Symbol:
        self._anonymous += 1
        return self.declare(f"?{self._anonymous}")

    def assume(self, relation: Bool) -> None:
        """Add a relation.  The simple ones (``M % 8 == 0``, ``M >= 64``, ``M <= 4096``, and conjunctions of them)
        also tighten the symbol's range and divisibility, which the engine uses directly: an equivalent
        restatement, since the relation stays in the table."""
        for name in relation.expr.symbols():
            if name not in self.table:
                raise LayoutError(f"assumption mentions unknown symbol {name}")
        try:
            self._absorb(relation.expr)
        except LayoutError as exc:
            raise LayoutError(f"the assumption {relation} contradicts the others ({exc})") from None
        self.relations.append(relation)

    def _absorb(self, e: Expr) -> None:
        if not isinstance(e, Op):
            return
        if e.op == "and":
            for a in e.args:
                self._absorb(a)
            return
        if e.op not in _FLIPPED or len(e.args) != 2:
            return
        a, b = e.args
        op = e.op
        if type(a) is Const and type(b) is not Const:
            a, b, op = b, a, _FLIPPED[op]
        if type(b) is not Const or isinstance(b.value, bool):
            return
        k = int(b.value)
        if type(a) is Sym and a.name in self.table:
            sym = self.table[a.name]
            bound = {">=": ("lo", k), ">": ("lo", k + 1), "<=": ("hi", k), "<": ("hi", k - 1),
                     "==": None, "!=": None}[op]

            def tighter_hi(v: int) -> int:
                return v if sym.hi is None else min(sym.hi, v)

            if op == "==":
                self.state_lower(a.name, k)
                self.declare(a.name, hi=tighter_hi(k))
            elif bound is not None:
                key, v = bound
                if key == "lo":
                    self.state_lower(a.name, v)
                elif not sym.lo_stated and v < sym.lo:
                    # a stated upper bound below the default lower bound (``s < 0``, a negative stride): the
                    # user's range, unbounded below within the symbol's width
                    self.declare(a.name, lo=-(2 ** (sym.bits - 1)), hi=v, lo_stated=False)
                else:
                    self.declare(a.name, hi=tighter_hi(v))
        elif (op == "==" and k == 0 and isinstance(a, Op) and a.op == "%" and type(a.args[0]) is Sym
              and a.args[0].name in self.table and type(a.args[1]) is Const and int(a.args[1].value) > 0):
            sym = self.table[a.args[0].name]
            self.declare(sym.name, multiple_of=lcm(sym.multiple_of, int(a.args[1].value)))

    def absorbed(self, e: Expr) -> bool:
        """Whether ``_absorb`` states all of ``e`` in the symbols' own assumptions (bounds, divisibility), so that
        printing it again beside them would say it twice."""
        if isinstance(e, Op) and e.op == "and":
            return all(self.absorbed(a) for a in e.args)
        if not isinstance(e, Op) or e.op not in _FLIPPED or e.op == "!=" or len(e.args) != 2:
            return False
        a, b = e.args
        if type(a) is Const and type(b) is not Const:
            a, b = b, a
        if type(b) is not Const or isinstance(b.value, bool):
            return False
        if type(a) is Sym:
            return a.name in self.table
        return (e.op == "==" and int(b.value) == 0 and isinstance(a, Op) and a.op == "%" and type(a.args[0]) is Sym
                and type(a.args[1]) is Const and int(a.args[1].value) > 0)

    def described(self) -> tuple[str, ...]:
        """The assumptions as printed: each symbol's range and divisibility, then the relations they do not
        already state (deduplicated)."""
        out = [s.describe() for s in self]
        for r in self.relations:
            text = str(r)
            if not self.absorbed(r.expr) and text not in out:
                out.append(text)
        return tuple(out)

    def __iter__(self) -> Iterator[Symbol]:
        return iter(self.table.values())

    def __contains__(self, name: object) -> bool:
        return name in self.table

    def check_values(self, values: Mapping[str, int]) -> None:
        """Raise ``LayoutError`` if ``values`` name an unknown symbol or break an assumption."""
        for name, v in values.items():
            sym = self.table.get(name)
            if sym is None:
                raise LayoutError(f"--param {name}={v}: no symbol named {name} in the input")
            if not sym.admits_stated(v):
                raise LayoutError(f"--param {name}={v}: outside the assumptions {sym.describe()}")
        for rel in self.relations:
            names = set(rel.expr.symbols())
            if names <= values.keys() and not _holds(rel, values):
                raise LayoutError(f"values {dict(values)} break the assumption {rel}")


class DeclarationError(LayoutError):
    """A symbol declaration that admits no value or does not fit its width; ``field`` names the part at fault
    (``min``, ``max``, ``multiple_of``, ``bits``) for the spec loader's ``file:line: key`` messages."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


def declaration(name: str, lo: int | None = None, hi: int | None = None, multiple_of: int = 1,
                bits: int = 32) -> Symbol:
    """The one declaration of a symbol, shared by spec files (``M = { min = 1, max = 4096 }``), the command line
    (``--symbol M=1..4096``) and the pytest helpers: ``lo`` / ``hi`` left out keep the defaults (``1 <= M``, the
    index default of ``Symbols.index_default``, the top of the width); a stated ``lo`` is the user's."""
    if bits not in (32, 64):
        raise DeclarationError("bits", f"must be 32 or 64, got {bits}")
    top = INT32_MAX if bits == 32 else INT64_MAX
    for k, v in (("min", lo), ("max", hi)):
        if v is not None and not -top - 1 <= v <= top:
            raise DeclarationError(k, f"{v} does not fit in int{bits}")
    if multiple_of < 1:
        raise DeclarationError("multiple_of", f"must be positive, got {multiple_of}")
    low = 1 if lo is None else lo
    high = top if hi is None else hi
    if low > high:
        if lo is not None:
            raise DeclarationError("max" if hi is not None else "min", f"empty range: min {low} > max {high}")
        low = -top - 1  # only an upper bound, below the default lower bound: the user's range, as for ``s < 0``
    if -(-low // multiple_of) * multiple_of > high:
        raise DeclarationError("multiple_of", f"no multiple of {multiple_of} lies in {low}..{high}")
    return Symbol(name, lo=low, hi=high, multiple_of=multiple_of, bits=bits, lo_stated=lo is not None)


_DECLARATION = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(-?[0-9]+)?\s*\.\.\s*(-?[0-9]+)?\s*(?::\s*i(32|64))?\s*$")


def parse_declaration(text: str) -> Symbol:
    """``NAME=LO..HI`` (either bound may be left out; ``:i64`` for a 64-bit symbol), as ``--symbol`` takes it."""
    m = _DECLARATION.match(text)
    if not m:
        raise LayoutError(f"expected NAME=LO..HI (either bound may be left out, :i64 for 64 bits), e.g. t=0..255, "
                          f"got {text.strip()[:60]!r}")
    name, lo, hi, bits = m.groups()
    for v in (lo, hi):
        if v is not None and len(v.lstrip("-").lstrip("0")) > 19:
            raise LayoutError(f"{name}: {v[:30]} does not fit in int64")
    try:
        return declaration(name, None if lo is None else int(lo), None if hi is None else int(hi),
                           bits=int(bits or 32))
    except DeclarationError as exc:
        raise LayoutError(f"{name}: {exc}") from None


def _holds(rel: Bool, values: Mapping[str, int]) -> bool:
    """``rel`` at ``values``; an assumption that divides by zero there does not hold (it is undefined in C++)."""
    from verifier.core.errors import UndefinedBehavior

    try:
        return bool(rel.evaluate(dict(values)))
    except UndefinedBehavior:
        return False
