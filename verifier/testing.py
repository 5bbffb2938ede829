"""Assertions for test suites: ``assert_valid``, ``assert_equivalent``, ``assert_bijective`` and ``assert_proved``.

Each decides its question with the engine, for every value the assumptions allow, and returns the verdict when it
is ``valid``/``proved``.  Otherwise it raises ``AssertionError`` whose message is the verdict with its
counterexample and, at the counterexample's values, the table of the layout around the failing coordinate (CuTe's
wrong result for an operation, the operand layouts for a property).  Operands are CuTe notation (``str``), plain
integers, or this package's objects (printed and parsed back).  ``symbols`` declares assumptions as spec files do:
``{"M": {"min": 1, "max": 4096, "multiple_of": 8}}``; other names get the defaults (int32, ``1 <= M``; an index
``0 <= t``), and a bound stated in ``assume`` replaces a default one (``core/symbols.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from verifier.core.errors import LayoutError
from verifier.core.layouts import Layout
from verifier.core.symbols import DeclarationError, Symbols, declaration
from verifier.engine.verdicts import PROVED, VALID, Verdict
from verifier.notation.cpp import show
from verifier.run import problems

_KEYS = ("min", "max", "multiple_of", "bits")


def _symbols(declared: Mapping[str, Mapping[str, int]] | None) -> Symbols:
    table = Symbols()
    for name, assumptions in (declared or {}).items():
        unknown = set(assumptions) - set(_KEYS)
        if unknown:
            raise LayoutError(f"symbol {name}: unknown assumption(s) {sorted(unknown)}; use {', '.join(_KEYS)}")
        try:
            sym = declaration(name, assumptions.get("min"), assumptions.get("max"),
                              assumptions.get("multiple_of", 1), assumptions.get("bits", 32))
        except DeclarationError as exc:
            raise LayoutError(f"symbol {name}: {exc.field}: {exc}") from None
        table.table[name] = sym
    return table


def _texts(args: Sequence[object]) -> list[str]:
    return [a if isinstance(a, str) else str(a) if isinstance(a, int) else show(a) for a in args]


def context_tables(v: Verdict, op: str, args: Sequence[object], is_property: bool) -> list[tuple[str, str]]:
    """Titled tables around the counterexample's coordinate, at its values (none when there is nothing concrete
    to show)."""
    from verifier.algebra import registry
    from verifier.contracts.claims import substitute_operand
    from verifier.present.tables import print_window

    c = v.counterexample
    if c is None:
        return []
    marks = [] if c.coordinate is None else [c.coordinate] if isinstance(c.coordinate, int) else list(c.coordinate)
    at = ", ".join(f"{k}={x}" for k, x in c.params.items()) or "these operands"
    try:
        concrete = [substitute_operand(a, c.params) for a in args]
        if is_property:
            shown = [(f"argument {k + 1} at {at}", a) for k, a in enumerate(concrete) if isinstance(a, Layout)]
        else:
            result = registry.apply(op, *concrete).result
            result = getattr(result, "layout", result)
            shown = [(f"CuTe's {op} at {at}: {result}", result)] if isinstance(result, Layout) else []
        out = []
        for title, layout in shown:
            mark = " (* marks the failing coordinate)" if marks else ""
            out.append((title + mark, print_window(layout, marks)))
        return out
    except (LayoutError, ArithmeticError, KeyError):
        return []


def _decide(op: str, args: Sequence[object], assume: Sequence[str], params: Mapping[str, int] | None,
            symbols: Mapping[str, Mapping[str, int]] | None, timeout: float | None, is_property: bool,
            **options: object) -> Verdict:
    from verifier.engine.problem import Operation, Property, decide
    from verifier.present.report import failure_message

    __tracebackhide__ = True
    table = _symbols(symbols)
    parsed = problems.build(op, _texts(args), table, list(assume), dict(params or {}), prop=is_property)
    v = decide(Property(op, tuple(parsed), table, tuple(options.items()), timeout=timeout) if is_property
               else Operation(op, tuple(parsed), table, timeout=timeout))
    if v.verdict not in (VALID, PROVED):
        raise AssertionError(failure_message(v, context_tables(v, op, parsed, is_property)))
    return v


def assert_valid(op: str, *args: object, assume: Sequence[str] = (), params: Mapping[str, int] | None = None,
                 symbols: Mapping[str, Mapping[str, int]] | None = None, timeout: float | None = None) -> Verdict:
    """CuTe's ``op(*args)`` is correct for every allowed value: ``assert_valid("upcast", 2, "(M):(_1)")``."""
    __tracebackhide__ = True
    return _decide(op, args, assume, params, symbols, timeout, False)


def assert_proved(prop: str, *args: object, assume: Sequence[str] = (), params: Mapping[str, int] | None = None,
                  symbols: Mapping[str, Mapping[str, int]] | None = None, timeout: float | None = None,
                  **options: object) -> Verdict:
    """A property of ``cute-verify check`` holds for every allowed value: ``assert_proved("injective", L)``."""
    __tracebackhide__ = True
    return _decide(prop, args, assume, params, symbols, timeout, True, **options)


def assert_equivalent(a: object, b: object, *, extended: bool = False, assume: Sequence[str] = (),
                      params: Mapping[str, int] | None = None, symbols: Mapping[str, Mapping[str, int]] | None = None,
                      timeout: float | None = None) -> Verdict:
    """``a`` and ``b`` are the same function on their domain (``extended``: on every non-negative coordinate)."""
    __tracebackhide__ = True
    options = {"extended": True} if extended else {}
    return _decide("equivalent", (a, b), assume, params, symbols, timeout, True, **options)


def assert_bijective(layout: object, *, assume: Sequence[str] = (), params: Mapping[str, int] | None = None,
                     symbols: Mapping[str, Mapping[str, int]] | None = None, timeout: float | None = None) -> Verdict:
    """``layout`` maps ``[0, size)`` one-to-one onto ``[0, size)``."""
    __tracebackhide__ = True
    return _decide("bijective", (layout,), assume, params, symbols, timeout, True)


__all__ = ["assert_bijective", "assert_equivalent", "assert_proved", "assert_valid"]
