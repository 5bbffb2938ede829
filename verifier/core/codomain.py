"""The values of layout-like functions as integer components, so that properties and postconditions compare
coordinates (scaled-basis layouts: identity tensors, TMA coordinate tensors) the way they compare indices.

A layout with scaled-basis strides (``(M,K):(_1@0,_1@1)``) maps a coordinate to an arithmetic tuple; its codomain
has one integer *component* per basis path that its strides use (``E<0>``, ``E<1>``, ``E<1,0>`` ...).  Two values
are equal exactly when every component is, and a layout is injective exactly when no two coordinates agree on every
component.  An integer-valued function (a plain layout, a swizzle, a composed layout) has the single component
``()``.  ``component(v, path)`` reads a component the way ``basis_get`` reads a coordinate
(arithmetic_tuple.hpp:268-278): a missing mode is 0 (arithmetic tuples pad with ``_0``), ``get<0>`` of an integer
is the integer, and any other mode of an integer is 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.core.basis import ArithTuple, ScaledBasis, Value, as_arith
from verifier.core.errors import LayoutError
from verifier.core.int_tuple import leaves
from verifier.core.integers import Bool, Int, S, and_, eq, ge, lt, ne, or_

Path = tuple[int, ...]


def paths_of(*fns: object) -> list[Path]:
    """The codomain components of the functions ``fns``: every basis path their strides use, in order; ``[()]``
    when every stride is an integer."""
    from verifier.core.layouts import Layout
    from verifier.core.swizzle import ComposedLayout

    found: dict[Path, None] = {}
    for f in fns:
        if isinstance(f, Layout) and not isinstance(f, ComposedLayout):  # a composed layout's values are integers
            for d in leaves(f.stride):
                if type(d) is ScaledBasis and d.modes:  # type: ignore[comparison-overlap]  # a stride leaf may be a scaled basis
                    found.setdefault(d.modes, None)
    return sorted(found) if found else [()]


def component(v: Value, path: Path) -> Int:
    """Component ``path`` of the value ``v`` (an integer, a scaled basis or an arithmetic tuple)."""
    x: object = as_arith(v)
    for n in path:
        if type(x) is ArithTuple:
            x = x.items[n] if n < len(x.items) else S(0)
        elif n != 0:
            return S(0)
    while type(x) is ArithTuple:  # a longer path's value read at a shorter one: its leading mode
        x = x.items[0] if x.items else S(0)
    if type(x) is not Int:
        raise LayoutError(f"the value {v} has no integer at mode {path}")
    return x


def value_paths(*values: Value) -> list[Path]:
    """Every leaf path of the values (as arithmetic tuples): the components on which they can differ."""
    found: dict[Path, None] = {}

    def walk(x: object, path: Path) -> None:
        if type(x) is ArithTuple:
            for k, y in enumerate(x.items):
                walk(y, (*path, k))
        else:
            found.setdefault(path, None)

    for v in values:
        walk(as_arith(v), ())
    return sorted(found) or [()]


def same_values(a: Value, b: Value) -> Bool:
    """``a == b`` as coordinates, over the components either of them has."""
    return same(a, b, value_paths(a, b))


def components(v: Value, paths: Sequence[Path]) -> list[Int]:
    return [component(v, p) for p in paths]


def same(a: Value, b: Value, paths: Sequence[Path]) -> Bool:
    """``a == b`` as coordinates: every component equal."""
    return and_(*(eq(x, y) for x, y in zip(components(a, paths), components(b, paths))))


def differ(a: Value, b: Value, paths: Sequence[Path]) -> Bool:
    """``a != b`` as coordinates: some component differs."""
    return or_(*(ne(x, y) for x, y in zip(components(a, paths), components(b, paths))))


def within(v: Value, extents: Sequence[Int], paths: Sequence[Path]) -> Bool:
    """``0 <= v_k < extents[k]`` for every component ``k``."""
    return and_(*(and_(ge(x, S(0)), lt(x, e)) for x, e in zip(components(v, paths), extents)))


def coshape_components(layout: object, paths: Sequence[Path]) -> list[Int]:
    """Per component, ``1 + Σ (s-1)*|d|`` over the modes whose stride lies on that component: the extent of the
    codomain box CuTe's ``coshape`` gives (layout.hpp:646-656)."""
    from verifier.core.basis import basis_abs
    from verifier.core.layouts import Layout

    if not isinstance(layout, Layout):
        raise LayoutError(f"{layout} has no scaled-basis codomain")
    out = []
    for p in paths:
        acc = S(1)
        for s, d in zip(leaves(layout.shape), leaves(layout.stride)):
            if type(d) is ScaledBasis:  # type: ignore[comparison-overlap]  # a stride leaf may be a scaled basis
                if d.modes == p:
                    acc = acc + (s - S(1)) * basis_abs(d).value
            elif p == ():
                acc = acc + (s - S(1)) * basis_abs(d)  # type: ignore[operator]
        out.append(acc)
    return out


def is_vector_valued(*fns: object) -> bool:
    return paths_of(*fns) != [()]


__all__ = ["coshape_components", "component", "components", "differ", "is_vector_valued", "paths_of", "same",
           "same_values", "value_paths", "within"]
