"""A problem for the engine: an operation or property, its operands parsed from CuTe notation, and the symbol table
with the assumptions and parameter values they are decided under.

This is the one place that turns text into engine input, shared by ``cute-verify OP``/``check``, spec files
(``spec.py``) and the pytest helpers (``testing.py``), so that all three accept exactly the same notation and
reject bad input with the same one-line ``LayoutError``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .errors import LayoutError, UndefinedBehavior
from .layouts import Layout
from .notation import parse, parse_relation, parse_tile
from .symbols import Symbols

# Operations whose leading arguments are C++ template integers, not layouts.
TEMPLATE_ARGS = {"upcast": 1, "downcast": 1, "recast_layout": 2}
ORDER_TAGS = ("LayoutLeft", "LayoutRight")
# Each property's arity, and which of its operands must be layouts (the others are shapes or extents).
PROPERTY_ARITY = {"compatible": 2, "injective": 1, "surjective": 2, "bijective": 1, "equivalent": 2, "in_bounds": 2,
                  "no_overflow": 1, "conflict_free": 2}
PROPERTY_LAYOUTS = {"compatible": (), "injective": (0,), "surjective": (0,), "bijective": (0,), "equivalent": (0, 1),
                    "in_bounds": (0,), "no_overflow": (0,), "conflict_free": (0, 1)}


def operands(op: str, texts: Sequence[str], symbols: Symbols) -> list[object]:
    """Parse the operands of ``op``: template integers first (``upcast 2 L``), then layouts, ``<...>`` tilers,
    shapes, integers and ``LayoutLeft``/``LayoutRight`` tags."""
    n_template = TEMPLATE_ARGS.get(op, 0)
    if len(texts) <= n_template:
        raise LayoutError(f"{op} needs {n_template} integer(s) and a layout")
    out: list[object] = []
    for k, text in enumerate(texts):
        if k < n_template:
            if not re.fullmatch(r"_?[0-9]+", text.strip()):
                raise LayoutError(f"{op}: argument {k + 1} must be a positive integer, got {text!r}")
            out.append(int(text.strip().lstrip("_")))
        elif text.strip() in ORDER_TAGS:
            out.append(text.strip())
        else:
            try:
                out.append(parse_tile(text, symbols) if text.strip().startswith("<") else parse(text, symbols))
            except LayoutError as exc:
                raise LayoutError(f"argument {k + 1} ({text!r}): {exc}") from None
    return out


def assume(symbols: Symbols, relations: Sequence[str], what: str = "--assume") -> None:
    """Parse each relation over ``symbols`` and add it to their assumptions."""
    for text in relations:
        try:
            symbols.assume(parse_relation(text, symbols))
        except LayoutError as exc:
            raise LayoutError(f"{what} {text!r}: {exc}") from None


def substitute(args: Sequence[object], symbols: Symbols, params: Mapping[str, int]) -> list[object]:
    """The operands with the given symbol values substituted, after checking the values against the assumptions."""
    from .claims import substitute_operand

    symbols.check_values(params)
    if not params:
        return list(args)
    try:
        return [substitute_operand(o, params) for o in args]
    except UndefinedBehavior as exc:
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        raise LayoutError(f"with {shown}: {exc} in the operands") from None


def check_property_operands(prop: str, args: Sequence[object]) -> None:
    """Raise ``LayoutError`` unless ``args`` fit property ``prop`` (arity, and layouts where layouts are needed)."""
    from .checks import PROPERTIES

    if prop not in PROPERTIES:
        raise LayoutError(f"unknown property {prop!r}; known: {', '.join(PROPERTIES)}")
    arity = PROPERTY_ARITY[prop]
    if len(args) != arity:
        raise LayoutError(f"check {prop} takes {arity} argument(s), got {len(args)}")
    from .swizzle import ComposedLayout, Swizzle

    for k in PROPERTY_LAYOUTS[prop]:
        composed_ok = prop != "no_overflow" and not (prop == "conflict_free" and k == 1)
        if isinstance(args[k], ComposedLayout) and not isinstance(args[k].inner, Swizzle) and composed_ok:
            continue  # a swizzled layout (Sw<3,3,3> o _0 o L): a function on L's domain
        if not isinstance(args[k], Layout):
            raise LayoutError(f"check {prop}: argument {k + 1} must be a layout (Shape:Stride)"
                              + (" or a composed layout" if composed_ok else ""))


def build(op: str, texts: Sequence[str], symbols: Symbols, relations: Sequence[str] = (),
          params: Mapping[str, int] | None = None, prop: bool = False) -> list[object]:
    """Parse ``op``'s operands over ``symbols``, add the relations and substitute the parameter values."""
    from .algebra import OPERATIONS

    if not prop and op not in OPERATIONS:
        raise LayoutError(f"unknown operation {op!r}; known: {', '.join(sorted(OPERATIONS))}")
    args = operands(op, texts, symbols)
    assume(symbols, relations)
    args = substitute(args, symbols, params or {})
    if prop:
        check_property_operands(op, args)
    return args
