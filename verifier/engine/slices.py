"""Deciding SLICE-POST of a composed slice (algebra/composed_slice.py) by evaluation at every admitted in-extent
value of the coordinate's symbols, where there are few."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from verifier.algebra.registry import apply
from verifier.core.errors import LayoutError
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import Int, Sym, substitute
from verifier.core.layouts import Layout, Underscore, size
from verifier.core.swizzle import ComposedLayout

EXHAUSTIVE = "every admitted in-extent value of the coordinate's symbols, evaluated (composed_slice.py)"
EXHAUST_LIMIT = 1 << 12


def coordinate_domain(coord: object, c: ComposedLayout) -> dict[str, range] | None:
    """For a concrete composed layout and a coordinate whose symbolic leaves are bare symbols indexing modes of
    static extent, each symbol's in-extent values (SLICE-POST holds outside them by its own statement); else None."""
    if not c.concrete or not isinstance(c.inner, Layout):
        return None
    bounds: dict[str, int] = {}

    def walk(x: object, shape: object) -> bool:
        if isinstance(x, Underscore):
            return True
        if type(x) is tuple:
            return type(shape) is tuple and len(shape) == len(x) and all(walk(a, s) for a, s in zip(x, shape))
        assert isinstance(x, Int)
        if x.concrete:
            return True
        extent = size(shape)  # type: ignore[arg-type]
        if type(x.expr) is not Sym or not extent.concrete:
            return False
        bounds[x.expr.name] = min(bounds.get(x.expr.name, int(extent)), int(extent))
        return True

    if not walk(coord, c.inner.shape):
        return None
    total = 1
    for b in bounds.values():
        total *= max(b, 1)
    return {k: range(max(b, 0)) for k, b in bounds.items()} if total <= EXHAUST_LIMIT else None


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
