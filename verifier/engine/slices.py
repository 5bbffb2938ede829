"""Deciding SLICE-POST of a composed slice (algebra/composed_slice.py) by evaluation at every admitted value of the
coordinate's symbols, where there are few."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from verifier.algebra.registry import apply
from verifier.core.errors import LayoutError
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import Int, Sym, substitute
from verifier.core.layouts import Layout, Underscore
from verifier.core.swizzle import ComposedLayout
from verifier.core.symbols import Symbols

EXHAUSTIVE = "every admitted value of the coordinate's symbols, evaluated (composed_slice.py)"
EXHAUST_LIMIT = 1 << 12


def coordinate_domain(coord: object, c: ComposedLayout, symbols: Symbols) -> dict[str, range] | None:
    """For a concrete composed layout and a coordinate whose symbolic leaves are bare symbols, each symbol's
    admitted values (past the end and below 0 included: SLICE-POST is judged against the tensor's addressing
    everywhere) when there are few; else None."""
    if not c.concrete or not isinstance(c.inner, Layout):
        return None
    names: set[str] = set()

    def walk(x: object) -> bool:
        if isinstance(x, Underscore):
            return True
        if type(x) is tuple:
            return all(walk(a) for a in x)
        assert isinstance(x, Int)
        if x.concrete:
            return True
        if type(x.expr) is not Sym:
            return False
        names.add(x.expr.name)
        return True

    if not walk(coord):
        return None
    out: dict[str, range] = {}
    total = 1
    for name in sorted(names):
        sym = symbols.table.get(name)
        if sym is None or sym.hi is None:
            return None
        out[name] = range(sym.lo, sym.hi + 1)
        total *= len(out[name])
        if total > EXHAUST_LIMIT:
            return None
    return out


def decide_exhaustively(op: str, args: tuple[object, object], domain: Mapping[str, range],
                        symbols: object) -> dict[str, int] | None:
    """The first admitted assignment of ``domain`` where SLICE-POST fails, or None when it holds at all of them.
    Each assignment is computed concretely (the symbolic condition shares subterms that a tree walk would repeat)."""
    names = sorted(domain)
    coord, layout = args
    for combo in itertools.product(*(domain[n] for n in names)):
        values = dict(zip(names, combo))
        try:
            symbols.check_values(values)  # type: ignore[attr-defined]
        except LayoutError:
            continue  # not admitted by the assumptions
        at = transform_leaf(coord, lambda x, v=values: x if isinstance(x, Underscore) else substitute(x, v))  # type: ignore
        out = apply(op, at, layout)
        if out.rejection is not None or out.undefined is not None or any(
                o.id == "SLICE-POST" and o.condition.value is False for o in out.obligations):
            return values
    return None
