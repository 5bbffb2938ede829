"""Symbols: the named run-time integers of a problem (M, N, lda, ...) and what is assumed about them.

A symbol is an integer of a fixed width (int32 unless declared ``i64``) with an inclusive range and an optional
divisibility; by default ``1 <= M <= 2**31-1``, the values a run-time extent can take; ``hi=None`` leaves it
unbounded above (a mathematical integer: the "for every positive integer" of ``proofs/``).  Relations between symbols
(``lda >= M``) are boolean expressions.  A ``Symbols`` table is the single place these live: the parser declares
symbols in it, the engine reads their assumptions from it, and concrete evaluation checks values against it.
"""

from __future__ import annotations

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

    def admits(self, value: int) -> bool:
        return self.lo <= value and (self.hi is None or value <= self.hi) and value % self.multiple_of == 0

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

    def declare(self, name: str, **assumptions: int) -> Symbol:
        if name in self.table and not assumptions:
            return self.table[name]
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
                self.declare(a.name, lo=max(sym.lo, k), hi=tighter_hi(k))
            elif bound is not None:
                key, v = bound
                self.declare(a.name, **{key: max(sym.lo, v) if key == "lo" else tighter_hi(v)})
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
            if not sym.admits(v):
                raise LayoutError(f"--param {name}={v}: outside the assumptions {sym.describe()}")
        for rel in self.relations:
            names = set(rel.expr.symbols())
            if names <= values.keys() and not _holds(rel, values):
                raise LayoutError(f"values {dict(values)} break the assumption {rel}")


def _holds(rel: Bool, values: Mapping[str, int]) -> bool:
    """``rel`` at ``values``; an assumption that divides by zero there does not hold (it is undefined in C++)."""
    from verifier.core.errors import UndefinedBehavior

    try:
        return bool(rel.evaluate(dict(values)))
    except UndefinedBehavior:
        return False
