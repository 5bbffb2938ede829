"""A problem for the engine: an operation or property, its operands parsed from CuTe notation, and the symbol table
with the assumptions and parameter values they are decided under.

This is the one place that turns text into engine input, shared by ``cute-verify OP``/``check``, spec files
(``spec.py``) and the pytest helpers (``testing.py``), so that all three accept exactly the same notation and
reject bad input with the same one-line ``LayoutError``.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace

from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.integers import FUNCTIONS, Int
from verifier.core.layouts import Layout, Tile, Underscore
from verifier.core.symbols import Symbols
from verifier.notation.cpp import parse, parse_relation, parse_tile

ORDER_TAGS = ("LayoutLeft", "LayoutRight")


def __getattr__(name: str) -> object:
    """``PROPERTY_ARITY`` / ``PROPERTY_LAYOUTS``: each property's arity, and which of its operands must be layouts
    (the others are shapes or extents), from their declarations (``engine.property``), loaded on first use."""
    if name in ("PROPERTY_ARITY", "PROPERTY_LAYOUTS"):
        from verifier.engine.checks import PROPERTIES  # noqa: F401 - declares them
        from verifier.engine.property import DECLARED

        return {n: len(p.operands) if name == "PROPERTY_ARITY" else p.layouts for n, p in DECLARED.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The operand kinds of REGISTRY's signatures (algebra/registry.py).
_KIND_NAMES = {"L": "a layout Shape:Stride", "T": "a tiler (a layout, <...>, a shape or _)", "S": "a shape (an "
               "integer or a tuple)", "C": "a coordinate such as (_,2)", "I": "an integer",
               "O": "an order (a tuple, LayoutLeft or LayoutRight)"}


def _is_int_tuple(x: object, underscore: bool = False) -> bool:
    if type(x) is tuple:
        return all(_is_int_tuple(e, underscore) for e in x)
    return isinstance(x, Int) or (underscore and isinstance(x, Underscore))


def _is_kind(x: object, kind: str) -> bool:
    from verifier.core.swizzle import ComposedLayout, Swizzle

    if kind == "L":
        if isinstance(x, Layout | ComposedLayout | Swizzle):
            return True
        # A TiledCopy / TiledMMA exists only once its module is loaded: importing it (and the atom tables) for
        # every layout operand was a twentieth of a command's start-up (issue 16).
        tiled = sys.modules.get("verifier.algebra.tiled")
        return tiled is not None and isinstance(x, tiled.TiledCopy | tiled.TiledMMA)
    if kind == "T":
        return isinstance(x, Layout | Tile | Underscore | ComposedLayout | Swizzle) or _is_int_tuple(x)
    if kind == "S":
        return _is_int_tuple(x)
    if kind == "C":
        return _is_int_tuple(x, underscore=True)
    if kind == "I":
        return isinstance(x, Int)
    if kind == "O":
        return _is_int_tuple(x) or x in ORDER_TAGS
    return False


def check_signature(op: str, args: Sequence[object]) -> None:
    """A one-line ``LayoutError`` unless ``args`` (after the template integers) have the arity and the kinds that
    ``op`` takes (its registry row's ``operands``)."""
    from verifier.algebra.registry import REGISTRY

    row = REGISTRY.get(op)
    kinds = row.operands if row is not None else None
    if kinds is None:
        return
    lo = sum(not k.endswith("?") for k in kinds)
    if not lo <= len(args) <= len(kinds):
        want = f"{lo}" if lo == len(kinds) else f"{lo} to {len(kinds)}"
        shown = " ".join(_KIND_NAMES[k.rstrip("?").split("|")[0]].split(" ")[1] for k in kinds)
        raise LayoutError(f"{op} takes {want} operand(s) ({shown}), got {len(args)}")
    for k, (x, kind) in enumerate(zip(args, kinds)):
        options = kind.rstrip("?").split("|")
        if not any(_is_kind(x, o) for o in options):
            raise LayoutError(f"{op}: operand {k + 1} must be {' or '.join(_KIND_NAMES[o] for o in options)}")


def is_dsl(text: str) -> bool:
    """Text in the CuTe DSL's notation: a ``?{...}`` attribute, or a ``?`` with neither a static ``_N`` nor a
    name (the C++ form writes statics as ``_N``; the DSL writes them bare and run-time values as ``?``)."""
    return "?{" in text or ("?" in text and not re.search(r"[A-Za-z_]", text))


def parse_operand(text: str, symbols: Symbols, dsl: bool = False) -> object:
    """One operand in CuTe notation, or in the DSL's when ``dsl`` or when it is recognisably the DSL's; the
    TiledMMA / TiledCopy functions (``make_tiled_mma(...)``, ``get_layoutC_TV(...)``, ``partition_C(...)``, ...)
    in either."""
    if is_tiled_text(text):
        return _with_view_indices(parse_tiled(text, symbols), symbols)
    call = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(", text)
    if call and call.group(1) not in FUNCTIONS:  # only integer functions and the tiled ones are called
        from verifier.algebra.tiled_notation import NAMES
        from verifier.core.errors import did_you_mean

        name = call.group(1)
        raise LayoutError(f"column {call.start(1) + 1}: unknown function {name!r}"
                          f"{did_you_mean(name, (*NAMES, *FUNCTIONS))}")
    if dsl or is_dsl(text):
        from verifier.notation.interop import parse_dsl

        return _with_view_indices(parse_dsl(text, symbols), symbols)
    return _with_view_indices(parse_tile(text, symbols) if text.strip().startswith("<") else parse(text, symbols),
                              symbols)


def _with_view_indices(obj: object, symbols: Symbols) -> object:
    """A tensor view ``Sw<0,..> o OFFSET o L`` (a thread's partition, as it is written and printed): a symbol only
    its offset names is a position in the tensor (a thread index), an index that starts at 0."""
    from verifier.core.swizzle import offset_view

    view = offset_view(obj)
    if view is not None:
        from verifier.core.operands import symbols as operand_symbols

        index_defaults(symbols, operand_symbols(view[0]) - operand_symbols(view[1]))
    return obj


def operands(op: str, texts: Sequence[str], symbols: Symbols, dsl: bool = False, prop: bool = False
             ) -> list[object]:
    """Parse the operands of ``op`` (of the property ``op`` when ``prop``): template integers first (``upcast 2
    L``), then layouts, ``<...>`` tilers, shapes, integers and ``LayoutLeft``/``LayoutRight`` tags."""
    from verifier.core.errors import shorten

    # A property has no template integers: the registry (and the algebra it imports) loads for operations only.
    registry = None if prop else importlib.import_module("verifier.algebra.registry")
    n_template = 0 if registry is None else registry.TEMPLATE_ARGS.get(op, 0)
    if len(texts) <= n_template:
        raise LayoutError(f"{op} needs {n_template} integer(s) and a layout")
    out: list[object] = []
    for k, text in enumerate(texts):
        if k < n_template:
            digits = text.strip().lstrip("_")
            if not re.fullmatch(r"[0-9]+", digits) or len(digits.lstrip("0")) > 19:
                raise LayoutError(f"{op}: argument {k + 1} must be a positive integer (int64), got {shorten(text)!r}")
            out.append(int(digits))
        elif text.strip() in ORDER_TAGS:
            out.append(text.strip())
        elif text.strip().startswith("Step<"):  # CuTe's projection Step<_1,X,_1>: X is an Underscore
            out.append(parse(step_text(text), symbols))
        else:
            try:
                out.append(parse_operand(text, symbols, dsl))
            except LayoutError as exc:
                raise LayoutError(f"argument {k + 1} ({shorten(text)!r}): {exc}") from None
    if registry is not None and op in registry.REGISTRY:
        check_signature(op, out[n_template:])
        index_defaults(symbols, index_symbols(registry.REGISTRY[op].indices, out[n_template:]))
    return out


def index_symbols(positions: Sequence[int], args: Sequence[object]) -> set[str]:
    """The symbols of the index operands at ``positions`` (a registry row's ``indices``) that no other operand
    names: a thread, a tile coordinate, a k-tile (a name that is also an extent elsewhere is that extent)."""
    from verifier.core.operands import symbols as operand_symbols

    inside = set().union(*(operand_symbols(a) for k, a in enumerate(args) if k in positions))
    outside = set().union(*(operand_symbols(a) for k, a in enumerate(args) if k not in positions))
    return inside - outside


def index_defaults(symbols: Symbols, names: set[str]) -> None:
    for name in sorted(names):
        symbols.index_default(name)


def declare(symbols: Symbols, declarations: Sequence[str], what: str = "--symbol") -> None:
    """``NAME=LO..HI`` declarations (``core.symbols.parse_declaration``, the spec file's ``[symbols]`` rule) of
    symbols the operands name; each replaces the defaults of its symbol."""
    from verifier.core.symbols import parse_declaration

    seen: set[str] = set()
    for text in declarations:
        try:
            sym = parse_declaration(text)
        except LayoutError as exc:
            raise LayoutError(f"{what} {text.strip()[:60]!r}: {exc}") from None
        if sym.name not in symbols.table:
            raise LayoutError(f"{what} {sym.name}: no operand names a symbol {sym.name}")
        if sym.name in seen:
            raise LayoutError(f"{what} {sym.name} is declared twice")
        seen.add(sym.name)
        old = symbols.table[sym.name]
        if not sym.lo_stated and not old.lo_stated and old.lo < sym.lo:
            sym = replace(sym, lo=old.lo)  # the lower bound left out: the default of its role (an index's 0)
        symbols.table[sym.name] = sym


def is_tiled_text(text: str) -> bool:
    """A call of a function of algebra/tiled.py's notation; its names live in a module of their own
    (``algebra.tiled_notation``) so that other operands never load the tiled module and the atom tables."""
    from verifier.algebra.tiled_notation import is_tiled_text as calls

    return calls(text)


def parse_tiled(text: str, symbols: Symbols) -> object:
    from verifier.algebra.tiled import parse_tiled as parse_it

    return parse_it(text, symbols)


def step_text(text: str) -> str:
    """``Step<_1,X,_1>`` as the coordinate ``(_1,_,_1)`` that it is in CuTe (``X`` is ``Underscore``)."""
    body = text.strip()
    if not body.endswith(">"):
        raise LayoutError(f"{text!r}: a projection is written Step<_1,X,_1>")
    inner = body[len("Step<"):-1]
    inner = "".join(inner.split()).replace("Step<", "(").replace("<", "(").replace(">", ")")
    return "(" + re.sub(r"\bX\b", "_", inner) + ")"


def assume(symbols: Symbols, relations: Sequence[str], what: str = "--assume") -> None:
    """Parse each relation over ``symbols`` and add it to their assumptions.  A relation may only name symbols
    the table already has (those of the operands, or declared): a new name there is a typo, not a new symbol."""
    from verifier.core.errors import shorten

    strict, symbols.strict = symbols.strict, True
    try:
        for text in relations:
            try:
                rel = parse_relation(text, symbols)
                symbols.assume(rel)
                _check_encodable(symbols, rel)
            except LayoutError as exc:
                message = str(exc)
                if "unknown symbol" in message:
                    message += " (no operand names it)"
                raise LayoutError(f"{what} {shorten(text)!r}: {message}") from None
    finally:
        symbols.strict = strict


def _check_encodable(symbols: Symbols, rel: object) -> None:
    """The engine must be able to state an assumption (gcd/lcm are encoded only with a small constant side)."""
    if not any(op in str(rel) for op in ("gcd", "lcm")):
        return
    from verifier.solver.encoding import Encoder, Unencodable

    try:
        Encoder(symbols, {}).boolean(rel)  # type: ignore[arg-type]
    except Unencodable as exc:
        raise LayoutError(f"the engine cannot reason about this assumption ({exc})") from None


def substitute(args: Sequence[object], symbols: Symbols, params: Mapping[str, int]) -> list[object]:
    """The operands with the given symbol values substituted, after checking the values against the assumptions."""
    from verifier.contracts.claims import substitute_operand

    symbols.check_values(params)
    if not params:
        return list(args)
    from verifier.core.integers import D, eq, symbol

    for name, value in params.items():  # the relations that mention a given symbol hold at its value
        if name in symbols.table:
            symbols.assume(eq(symbol(name), D(value)))
    try:
        return [substitute_operand(o, params) for o in args]
    except UndefinedBehavior as exc:
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        raise LayoutError(f"with {shown}: {exc} in the operands") from None


def check_property_operands(prop: str, args: Sequence[object]) -> None:
    """Raise ``LayoutError`` unless ``args`` fit property ``prop`` (arity, and layouts where layouts are needed)."""
    from verifier.engine.checks import PROPERTIES
    from verifier.engine.property import DECLARED

    if prop not in PROPERTIES:
        raise LayoutError(f"unknown property {prop!r}; known: {', '.join(PROPERTIES)}")
    layouts = DECLARED[prop].layouts
    arity = len(DECLARED[prop].operands)
    if len(args) != arity:
        raise LayoutError(f"check {prop} takes {arity} argument(s), got {len(args)}")
    from verifier.core.swizzle import ComposedLayout, Swizzle, offset_view

    for k in layouts:
        composed_ok = not (prop == "conflict_free" and k == 1)
        arg = args[k]
        if prop == "no_overflow":  # a thread's partition, Sw<0,..> o offset o L: an index computation
            composed_ok = offset_view(arg) is not None
        if isinstance(arg, ComposedLayout) and not isinstance(arg.inner, Swizzle) and composed_ok:
            continue  # a swizzled layout (Sw<3,3,3> o _0 o L): a function on L's domain
        if not isinstance(arg, Layout):
            raise LayoutError(f"check {prop}: argument {k + 1} must be a layout (Shape:Stride)"
                              + (" or a composed layout" if composed_ok else ""))
    for k, x in enumerate(args):  # scaled-basis layouts are checked componentwise (codomain.py)
        if k not in layouts and not _is_int_tuple(x):
            raise LayoutError(f"check {prop}: argument {k + 1} must be a shape or an extent (an integer or a tuple)")


def build(op: str, texts: Sequence[str], symbols: Symbols, relations: Sequence[str] = (),
          params: Mapping[str, int] | None = None, prop: bool = False, dsl: bool = False,
          declarations: Sequence[str] = ()) -> list[object]:
    """Parse ``op``'s operands over ``symbols``, declare the ``--symbol`` ranges, add the relations and substitute
    the parameter values."""
    if not prop:
        from verifier.algebra.registry import REGISTRY

        if op not in REGISTRY:
            raise LayoutError(f"unknown operation {op!r}; known: {', '.join(sorted(REGISTRY))}")
    args = operands(op, texts, symbols, dsl, prop)
    declare(symbols, declarations)
    assume(symbols, relations)
    args = substitute(args, symbols, params or {})
    if prop:
        check_property_operands(op, args)
    return args
