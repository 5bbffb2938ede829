"""The operands of an operation, whatever their kind: a layout, a tiler ``<...>``, a composed layout
``A o O o B``, a swizzle, an integer, an int tuple or a coordinate (which may hold ``_``).

Every operand kind offers the same three things, written once here: ``map_leaves`` (the operand with a function
applied to each integer leaf: shapes, strides, a composed layout's offset and inner layout, the values of
scaled-basis strides), ``substitute`` (symbol values put in) and ``symbols`` (the symbols it mentions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from verifier.core.basis import ScaledBasis
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import Int
from verifier.core.integers import substitute as substitute_int
from verifier.core.layouts import Layout, Tile
from verifier.core.swizzle import ComposedLayout, Swizzle

Leaf = Callable[[Int], Int]


def _through_basis(leaf: Leaf) -> Leaf:
    def f(x: Int) -> Int:
        if isinstance(x, ScaledBasis):
            return ScaledBasis(f(x.value), x.modes)
        return leaf(x)

    return f


def map_leaves(obj: object, leaf: Leaf) -> object:
    """``obj`` with ``leaf`` applied to every integer leaf (a scaled basis ``v@i`` keeps its modes, ``leaf`` sees
    ``v``); a swizzle's parameters are template arguments and stay as written, and so does ``_``."""
    f = _through_basis(leaf)
    if isinstance(obj, Layout):
        return Layout(transform_leaf(obj.shape, f), transform_leaf(obj.stride, f))
    if isinstance(obj, Tile):
        return Tile([map_leaves(e, leaf) for e in obj.elements])  # type: ignore[misc]
    if isinstance(obj, ComposedLayout):
        return ComposedLayout(map_leaves(obj.outer, leaf), f(obj.offset), map_leaves(obj.inner, leaf))  # type: ignore[arg-type]  # map_leaves keeps the kind
    if isinstance(obj, Swizzle):
        return obj
    if isinstance(obj, Int) or type(obj) is tuple:
        return transform_leaf(obj, lambda x: f(x) if isinstance(x, Int) else x)
    return obj


def substitute(obj: object, values: Mapping[str, int]) -> object:
    """``obj`` with the given symbol values put in (each operand kind's own ``substitute``)."""
    if isinstance(obj, (Layout, ComposedLayout, Swizzle)):
        return obj.substitute(values)
    if isinstance(obj, Tile):
        return Tile([substitute(e, values) for e in obj.elements])  # type: ignore[misc]
    if isinstance(obj, Int):
        return substitute_int(obj, values)
    if type(obj) is tuple:  # an int tuple, or a coordinate that may hold _
        return tuple(substitute(x, values) for x in obj)
    return obj


def symbols(obj: object) -> set[str]:
    """The symbols ``obj`` mentions."""
    found: set[str] = set()

    def leaf(x: Int) -> Int:
        found.update(x.symbols())
        return x

    map_leaves(obj, leaf)
    return found


__all__ = ["map_leaves", "substitute", "symbols"]
