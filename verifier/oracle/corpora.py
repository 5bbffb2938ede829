"""The corpora the ground truth is checked on, shipped with the package (``oracle/data``): CUTLASS's own unit-test
cases (``CUTLASS_UNIT_CORPUS``) and the parametric GEMM-style corpus (``PARAMETRIC_CORPUS``), and the operands of
their cases, written in CuTe notation plus ``make_layout(S[,LayoutRight])`` and ``shape(S)``,
and the all-static / all-dynamic variants of a case.

A variant changes every integer of the layouts, including the values of scaled-basis strides (``_1@0`` becomes
``1@0``); a swizzle's parameters are template arguments and stay as written, and so does the offset of a composed
layout (the ``_0`` that CuTe's ``composition(Swizzle, Layout)`` itself supplies)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verifier.algebra.registry import TEMPLATE_ARGS
from verifier.core.basis import ScaledBasis
from verifier.core.int_tuple import IntTuple, symbols_of, transform_leaf
from verifier.core.integers import D, Int, S
from verifier.core.layouts import Layout, Tile, TileElement, Underscore, make_layout
from verifier.core.swizzle import ComposedLayout, Fn, Swizzle
from verifier.core.symbols import Symbols
from verifier.notation.cpp import parse, parse_int_tuple, parse_tile

DATA = Path(__file__).resolve().parent / "data"
CUTLASS_UNIT_CORPUS = DATA / "cutlass_unit_cases.json"
PARAMETRIC_CORPUS = DATA / "parametric_cases.json"


def load(path: Path) -> list[dict[str, Any]]:
    """A corpus: a JSON list of cases (objects of JSON values)."""
    cases: list[dict[str, Any]] = json.loads(path.read_text())
    return cases


def parse_arg(text: str) -> object:
    m = re.fullmatch(r"make_layout\((.*?)(?:,(LayoutLeft|LayoutRight))?\)", text.replace(" ", ""))
    if m:
        shape = parse_int_tuple(m.group(1))
        return ("make_layout", shape, m.group(2) or "LayoutLeft")
    m = re.fullmatch(r"shape\((.*)\)", text.replace(" ", ""))
    if m:
        return parse_int_tuple(m.group(1))
    if text.strip().startswith("<"):
        return parse_tile(text)
    return parse(text)


def _leaf_variant(x: Int | ScaledBasis, variant: str) -> Int | ScaledBasis:
    if isinstance(x, ScaledBasis):
        return ScaledBasis(_leaf_variant(x.value, variant), x.modes)  # type: ignore[arg-type]
    if variant == "static":
        return S(int(x))
    if variant == "dynamic":
        return D(int(x))
    return x


def _leaves_variant(t: IntTuple, variant: str) -> IntTuple:
    # A stride's leaf may be a ScaledBasis, which core's IntTuple, and so transform_leaf's leaf type, does not spell
    # (core/basis.py); _leaf_variant keeps a basis a basis.
    return transform_leaf(t, lambda x: _leaf_variant(x, variant))  # type: ignore[arg-type,return-value]


def _layout_variant(layout: Layout, variant: str) -> Layout:
    return Layout(_leaves_variant(layout.shape, variant), _leaves_variant(layout.stride, variant))


def _fn_variant(f: Fn, variant: str) -> Fn:
    if isinstance(f, Layout):
        return _layout_variant(f, variant)
    if isinstance(f, ComposedLayout):
        return ComposedLayout(_fn_variant(f.outer, variant), f.offset, _fn_variant(f.inner, variant))
    return f  # a swizzle: no integers to vary


def _element_variant(e: TileElement, variant: str) -> TileElement:
    if isinstance(e, Layout):
        return _layout_variant(e, variant)
    if isinstance(e, Tile):
        return Tile([_element_variant(x, variant) for x in e.elements])
    if isinstance(e, Underscore):
        return e
    return _leaves_variant(e, variant)


def variant_of(obj: object, variant: str) -> object:
    """The operand with every integer made static, dynamic, or left as written."""
    if isinstance(obj, tuple) and obj and obj[0] == "make_layout":
        _, shape, tag = obj
        return make_layout(_leaves_variant(shape, variant), tag)
    if isinstance(obj, (Layout, ComposedLayout, Swizzle)):
        return _fn_variant(obj, variant)
    if isinstance(obj, (Tile, Underscore, Int, tuple)):
        return _element_variant(obj, variant)
    if isinstance(obj, ScaledBasis):
        return _leaf_variant(obj, variant)
    if variant != "original":
        raise TypeError(f"no {variant} variant of a {type(obj).__name__}")
    return obj


def operands(args: list[str], variant: str) -> list[object]:
    return [variant_of(parse_arg(a), variant) for a in args]


__all__ = ["CUTLASS_UNIT_CORPUS", "PARAMETRIC_CORPUS", "load", "operands", "parametric", "parametric_assignments",
           "parse_arg", "problem", "variant_of"]


# The operations with leading C++ template integers, and how many (their declarations, ``algebra.declare``).
TEMPLATE_OPS = TEMPLATE_ARGS


def parametric(entry: Mapping[str, Any]) -> tuple[str, tuple[object, ...], tuple[int, ...]]:
    """A ``oracle/data/parametric_cases.json`` entry as (operation, operands with their symbols, template integers):
    the leading integer arguments of upcast/downcast/recast_layout are ``N`` or the bit widths."""
    op, args = entry["op"], list(entry["args"])
    k = TEMPLATE_OPS.get(op, 0)
    return op, tuple(operands(args[k:], "original")), tuple(int(a) for a in args[:k])


def parametric_assignments(entry: Mapping[str, Any]) -> list[dict[str, int]]:
    """Every assignment of the entry's symbols in its ``range`` that satisfies its ``assume`` relations."""
    from verifier.notation.cpp import parse_relation
    from verifier.oracle.sweep import grid

    rels = [parse_relation(r) for r in entry.get("assume", [])]
    return [env for env in grid({k: tuple(v) for k, v in entry["range"].items()})
            if all(rel.evaluate(env) for rel in rels)]


def problem(entry: Mapping[str, Any]) -> tuple[str, list[object], Symbols]:
    """A parametric corpus entry as (operation, arguments, symbol table with its assumptions)."""
    from verifier.notation.cpp import parse_relation

    op, ops, template = parametric(entry)
    sy = Symbols()
    for o in ops:
        for name in _names(o):
            # The engine's domain is the ground truth's sweep: a range that starts below the default 1 (a stride S
            # from 0) widens it, otherwise a value swept there would not be one the verdict speaks of; and its upper
            # end bounds it, so that the verdict speaks of the values swept (near 2^31 CuTe's int32 arithmetic
            # overflows, OVF-ARITH; tests/test_overflow.py sweeps there against trapping compiled CuTe).
            lo, hi = entry.get("range", {}).get(name, [1, None])
            sy.declare(name, **({"lo": lo} if lo < 1 else {}), **({"hi": hi} if hi is not None else {}))
    for text in entry.get("assume", []):
        sy.assume(parse_relation(text, sy))
    return op, [*template, *ops], sy


def _names(obj: object) -> list[str]:
    """The symbols of ``obj`` in the order the parser meets them (``M`` before ``N`` in ``(M,N):(_1,M)``): the
    order of the table, and so of a guard's conjuncts and of the weakest-first search's ties, must not be the
    order of a set of strings, which changes with each process's string hashing."""
    if isinstance(obj, Layout):
        return _names((obj.shape, obj.stride))
    if isinstance(obj, Tile):
        return list(dict.fromkeys(n for e in obj.elements for n in _names(e)))
    if type(obj) is tuple:
        return list(dict.fromkeys(n for e in obj for n in _names(e)))
    if isinstance(obj, Int):
        return sorted(symbols_of(obj))  # within one expression (M*N): by name
    return []
