"""Operands of ported test cases, written in CuTe notation plus ``make_layout(S[,LayoutRight])`` and ``shape(S)``,
and the all-static / all-dynamic variants of a case."""

from __future__ import annotations

import re

from verifier import Layout, Tile, make_layout, parse, parse_int_tuple, parse_layout, parse_tile
from verifier.int_tuple import transform_leaf
from verifier.integers import D, Int, S
from verifier.layouts import Underscore

UNSUPPORTED = re.compile(r"Sw<|@")


def supported(args: list[str]) -> bool:
    return not any(UNSUPPORTED.search(a) for a in args)


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


def _leaf_variant(x: Int, variant: str) -> Int:
    if variant == "static":
        return S(int(x))
    if variant == "dynamic":
        return D(int(x))
    return x


def variant_of(obj: object, variant: str) -> object:
    """The operand with every integer made static, dynamic, or left as written."""
    if isinstance(obj, tuple) and obj and obj[0] == "make_layout":
        _, shape, tag = obj
        return make_layout(transform_leaf(shape, lambda x: _leaf_variant(x, variant)), tag)
    if isinstance(obj, Layout):
        f = lambda x: _leaf_variant(x, variant)  # noqa: E731
        return Layout(transform_leaf(obj.shape, f), transform_leaf(obj.stride, f))
    if isinstance(obj, Tile):
        return Tile([variant_of(e, variant) for e in obj.elements])
    if isinstance(obj, Underscore):
        return obj
    return transform_leaf(obj, lambda x: _leaf_variant(x, variant))  # type: ignore[arg-type]


def operands(args: list[str], variant: str) -> list[object]:
    return [variant_of(parse_arg(a), variant) for a in args]


__all__ = ["operands", "parse_arg", "parse_layout", "supported", "variant_of"]
