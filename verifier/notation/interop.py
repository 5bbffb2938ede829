"""Interop with pycute and the CuTe Python DSL: their layouts in, our layouts out in either notation.

pycute (``import pycute``, shipped in the ``nvidia-cutlass`` wheel) models CuTe with plain Python ints, all known
when the layout is built, so ``from_pycute`` makes every leaf static (``_4``); ``to_pycute`` needs concrete values
and gives a ``pycute.Layout`` that evaluates to the same index at every coordinate (tests/unit/test_interop.py checks
it).  ``coerce`` is how the public entry points (``apply``, ``verify``, ``check``, ``parse_layout``, ``parse``)
accept a pycute layout wherever they take one of ours; it recognises pycute objects by their module, so pycute is
imported only by ``to_pycute``.

The CuTe DSL prints layouts differently from C++ ``print``.  What it prints, as found in CUTLASS and in DSL output:

* Python ``print`` of a layout made from a run-time ``Int32`` ``a`` and a ``Constexpr`` ``2`` shows
  ``(?,2):(1,?)``; ``cute.printf`` of the same layout at run time shows ``(8,2):(1,8)``: static integers print as
  bare numbers (no ``_``) and dynamic ones as ``?`` (CUTLASS ``examples/python/CuTeDSL/notebooks/print.ipynb``,
  cell ``print_example``; also https://chrischoy.github.io/posts/cutedsl-basics, section 2).
* A dynamic value with a known divisibility prints as ``?{div=16}``, a 64-bit one as ``?{i64}``, both as
  ``?{i64 div=64}``, and scaled-basis strides as ``1@0``: the layout strings in the MLIR types the DSL emits, as
  dumped in NVIDIA/cutlass ``examples/python/CuTeDSL/blackwell/tutorial_gemm/fp16_gemm_0/
  fp16_gemm_0_014_SCFToControlFlow.mlir`` (``!cute.memref<f16, gmem, align<32>, "(?,?{div=8192}):(?{i64
  div=8192},1)">``), ``.../hopper/dense_gemm_persistent/dense_gemm_persistent_005_CuteExpandOps.mlir``
  (``"((128,128),(?,?,?)):((?{i64},1),(?{i64 div=128},128,?{i64}))"``) and ``.../blackwell/mixed_input_gemm/
  mixed_input_gemm_014_SCFToControlFlow.mlir`` (``"((1024,1,1),(?,?,?)):((1@0,0,0),(1024@0,1@1,1@2))"``).

``parse_dsl`` reads that form: a number is a static integer; each ``?`` is a fresh anonymous run-time symbol of the
``Symbols`` table with the printed assumptions (``div=8`` becomes ``multiple_of=8``, i.e. ``% 8 == 0``; ``i64``
makes it a 64-bit value, ``1 <= ? <= 2**63-1``).  ``to_dsl`` writes it: static leaves as numbers, dynamic ones as
``?`` (``values=True``: concrete dynamic values as numbers, as ``cute.printf`` does), a bare symbol with its
``{i64 div=N}`` annotation from the table.  ``to_cpp`` is C++ ``print``'s form, ``str(layout)``.  Malformed DSL text
raises one ``LayoutSyntaxError`` naming the column.
"""

from __future__ import annotations

import re

from verifier.core.basis import ScaledBasis
from verifier.core.errors import LayoutError, LayoutSyntaxError
from verifier.core.int_tuple import IntTuple, congruent, format_tuple, leaves
from verifier.core.integers import Int, S, Sym, symbol
from verifier.core.layouts import Layout
from verifier.core.symbols import Symbols

_MAX = 2**63 - 1
MAX_LENGTH = 64 * 1024
MAX_DEPTH = 16


# -- pycute ---------------------------------------------------------------------------------------------------------


def is_pycute(obj: object) -> bool:
    """Whether ``obj`` is a pycute layout (checked by module, without importing pycute)."""
    return type(obj).__module__.split(".")[0] == "pycute" and type(obj).__name__ == "Layout"


def _from_py(t: object, where: str) -> IntTuple:
    if isinstance(t, tuple):
        return tuple(_from_py(x, where) for x in t)
    if isinstance(t, bool) or not isinstance(t, int):
        raise LayoutError(f"from_pycute: the {where} has the leaf {t!r}, not an integer")
    return S(t)


def from_pycute(obj: object) -> Layout:
    """A ``pycute.Layout`` as our ``Layout``; every leaf static, as pycute's ints are known when it is built."""
    if not is_pycute(obj):
        raise LayoutError(f"from_pycute: expected a pycute.Layout, got {type(obj).__name__}")
    shape = _from_py(obj.shape, "shape")  # type: ignore[attr-defined]
    stride = _from_py(obj.stride, "stride")  # type: ignore[attr-defined]
    for leaf in leaves(shape):
        if int(leaf) <= 0:
            raise LayoutError(f"from_pycute: the shape {format_tuple(shape)} has the non-positive extent {leaf}")
    if not congruent(shape, stride):
        raise LayoutError(f"from_pycute: shape {format_tuple(shape)} and stride {format_tuple(stride)} are not "
                          "congruent")
    return Layout(shape, stride)


def _to_py(t: object, what: str) -> object:
    if type(t) is tuple:
        return tuple(_to_py(x, what) for x in t)
    if type(t) is ScaledBasis:
        raise LayoutError(f"to_pycute: {what} has the scaled-basis stride {t}; pycute has no scaled bases")
    assert isinstance(t, Int)
    if t.value is None:
        raise LayoutError(f"to_pycute: {what} is symbolic; substitute values first (layout.substitute)")
    return t.value


def to_pycute(layout: Layout) -> object:
    """Our concrete ``Layout`` as a ``pycute.Layout`` (static and dynamic alike become Python ints)."""
    try:
        import pycute
    except ImportError:
        raise LayoutError("to_pycute needs pycute: pip install 'cute-layout-verifier[pycute]'") from None

    layout = coerce(layout)  # type: ignore[assignment]
    if not isinstance(layout, Layout):
        raise LayoutError(f"to_pycute: expected a Layout, got {type(layout).__name__}")
    return pycute.Layout(_to_py(layout.shape, str(layout)), _to_py(layout.stride, str(layout)))


def coerce(obj: object) -> object:
    """A pycute layout becomes ours; anything else is returned unchanged."""
    return from_pycute(obj) if is_pycute(obj) else obj


# -- the CuTe DSL's printed form ----------------------------------------------------------------------------------

_DSL_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<int>[0-9]+)|(?P<q>\?)|(?P<attrs>\{[^{}]*\}?)|(?P<punct>[(),:@-])|(?P<bad>.)", re.DOTALL)
_ATTR = re.compile(r"^(i32|i64|div=([0-9]+))$")


class _DslParser:
    def __init__(self, text: str, symbols: Symbols) -> None:
        if len(text) > MAX_LENGTH:
            raise LayoutSyntaxError(f"input is {len(text)} characters long; the limit is {MAX_LENGTH}", "", 0)
        self.text = text
        self.symbols = symbols
        self.tokens: list[tuple[str, str, int]] = []
        for m in _DSL_TOKEN.finditer(text):
            kind = m.lastgroup
            assert kind is not None
            if kind == "ws":
                continue
            if kind == "bad":
                hint = " (the DSL writes static integers without '_': 8, not _8)" if m.group() == "_" else ""
                raise LayoutSyntaxError(f"unexpected character {m.group()!r} in CuTe DSL notation{hint}", text,
                                        m.start())
            self.tokens.append((kind, m.group(), m.start()))
        self.tokens.append(("end", "", len(text)))
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> tuple[str, str, int]:
        return self.tokens[self.i]

    def error(self, message: str, pos: int | None = None) -> LayoutSyntaxError:
        return LayoutSyntaxError(message, self.text, self.tok[2] if pos is None else pos)

    def found(self) -> str:
        return "the end of the input" if self.tok[0] == "end" else repr(self.tok[1])

    def tuple_(self, stride: bool, out: list[tuple[Int, int]]) -> IntTuple:
        kind, text, pos = self.tok
        if kind == "punct" and text == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.error(f"nesting deeper than {MAX_DEPTH} levels")
            self.i += 1
            items = [self.tuple_(stride, out)]
            while self.tok[1] == ",":
                self.i += 1
                items.append(self.tuple_(stride, out))
            if self.tok[1] != ")":
                if self.tok[0] == "end":
                    raise self.error(f"unbalanced '(' at column {pos + 1}: missing ')'")
                raise self.error(f"expected ',' or ')' in the tuple opened at column {pos + 1}, found {self.found()}")
            self.i += 1
            self.depth -= 1
            return tuple(items)
        leaf = self.leaf()
        out.append((leaf, pos))
        if self.tok[1] == "@":
            if not stride:
                raise self.error("a scaled basis 'v@i' is only allowed as a stride")
            modes: list[int] = []
            while self.tok[1] == "@":
                self.i += 1
                if self.tok[0] != "int":
                    raise self.error(f"expected a mode index after '@', found {self.found()}")
                if len(self.tok[1]) > 2 or int(self.tok[1]) > 64:
                    raise self.error(f"mode index {self.tok[1][:20]} is larger than 64")
                modes.append(int(self.tok[1]))
                self.i += 1
            return ScaledBasis(leaf, tuple(reversed(modes)))  # type: ignore[return-value]
        return leaf

    def leaf(self) -> Int:
        kind, text, pos = self.tok
        if kind == "punct" and text == "-":
            self.i += 1
            if self.tok[0] != "int":
                raise self.error(f"expected digits after '-', found {self.found()}")
            return S(-self.number())
        if kind == "int":
            return S(self.number())
        if kind == "q":
            self.i += 1
            return self.unknown(pos)
        if kind == "attrs":
            raise self.error("'{...}' must follow '?'")
        if kind == "end":
            raise self.error("unexpected end of input: expected an integer, '?' or '('")
        raise self.error(f"expected an integer, '?' or '(', found {self.found()}")

    def number(self) -> int:
        _, text, pos = self.tok
        if len(text.lstrip("0")) > 19 or int(text) > _MAX:
            raise self.error(f"integer {text[:20]}{'...' if len(text) > 20 else ''} does not fit in 64 bits", pos)
        v = int(text)
        self.i += 1
        return v

    def unknown(self, pos: int) -> Int:
        """``?`` or ``?{i64 div=8}``: a fresh anonymous symbol with the printed assumptions."""
        assumptions: dict[str, int] = {}
        if self.tok[0] == "attrs":
            _, text, apos = self.tok
            if not text.endswith("}"):
                raise self.error("unbalanced '{': missing '}'", apos)
            for attr in text[1:-1].split():
                m = _ATTR.match(attr)
                if not m:
                    raise self.error(f"unknown attribute {attr!r} in '?{{...}}' (expected i32, i64 or div=N)", apos)
                if m.group(2) is not None:
                    d = int(m.group(2)) if len(m.group(2).lstrip("0")) <= 19 else _MAX + 1
                    if d < 1 or d > _MAX:
                        raise self.error(f"div={m.group(2)[:20]} must be a positive 64-bit integer", apos)
                    assumptions["multiple_of"] = d
                else:
                    assumptions["bits"] = 64 if m.group(1) == "i64" else 32
            if not text[1:-1].split():
                raise self.error("empty '{}' after '?'", apos)
            self.i += 1
        sym = self.symbols.fresh_anonymous()
        if assumptions:
            sym = self.symbols.declare(sym.name, **assumptions)
        if sym.hi is not None and sym.multiple_of > sym.hi:
            raise self.error(f"div={sym.multiple_of} is larger than every {sym.bits}-bit value", pos)
        return symbol(sym.name)

    def at_end(self, what: str) -> None:
        if self.tok[0] != "end":
            raise self.error(f"unexpected {self.found()} after the {what}")


def parse_dsl(text: str, symbols: Symbols | None = None) -> Layout | IntTuple:
    """A layout ``Shape:Stride`` or an IntTuple as the CuTe DSL prints it (``(?,4):(1,?{div=8})``)."""
    table = symbols if symbols is not None else Symbols()
    p = _DslParser(text, table)
    if p.tok[0] == "end":
        raise p.error("empty input: expected a layout such as (?,4):(1,?)")
    shape_leaves: list[tuple[Int, int]] = []
    shape = p.tuple_(False, shape_leaves)
    if p.tok[1] != ":":
        p.at_end("tuple")
        return shape
    p.i += 1
    stride_pos = p.tok[2]
    stride = p.tuple_(True, [])
    p.at_end("layout")
    if not congruent(shape, stride):
        raise LayoutSyntaxError(f"shape {format_tuple(shape)} and stride {format_tuple(stride)} are not congruent "
                                "(they must have the same nesting)", text, stride_pos)
    for leaf, pos in shape_leaves:
        if leaf.value is not None and leaf.value <= 0:
            raise LayoutSyntaxError(f"shape {leaf.value} must be positive", text, pos)
    return Layout(shape, stride)


def parse_dsl_layout(text: str, symbols: Symbols | None = None) -> Layout:
    """Like ``parse_dsl`` but the text must be a layout."""
    result = parse_dsl(text, symbols)
    if not isinstance(result, Layout):
        raise LayoutSyntaxError("expected ':' between the shape and the stride (a layout is Shape:Stride)", text,
                                len(text))
    return result


def _dsl_leaf(x: Int | ScaledBasis, symbols: Symbols | None, values: bool) -> str:
    if type(x) is ScaledBasis:
        return _dsl_leaf(x.value, symbols, values) + "".join(f"@{n}" for n in reversed(x.modes))
    assert type(x) is Int
    if x.static or (values and x.value is not None):
        return str(int(x))  # a static _0 that keeps a dropped division (seq) is 0 to the DSL too
    if type(x.expr) is Sym and symbols is not None and x.expr.name in symbols:
        sym = symbols.table[x.expr.name]
        attrs = (["i64"] if sym.bits == 64 else []) + ([f"div={sym.multiple_of}"] if sym.multiple_of > 1 else [])
        if attrs:
            return "?{" + " ".join(attrs) + "}"
    return "?"


def _dsl_tuple(t: IntTuple, symbols: Symbols | None, values: bool) -> str:
    if type(t) is tuple:
        return "(" + ",".join(_dsl_tuple(x, symbols, values) for x in t) + ")"
    return _dsl_leaf(t, symbols, values)  # type: ignore[arg-type]


def to_dsl(x: Layout | IntTuple, symbols: Symbols | None = None, values: bool = False) -> str:
    """The CuTe DSL's printed form: static integers as numbers, dynamic ones as ``?`` (annotated from
    ``symbols`` as ``?{i64 div=8}`` for a bare symbol), or with ``values`` concrete dynamic values as numbers."""
    x = coerce(x)  # type: ignore[assignment]
    if isinstance(x, Layout):
        return f"{_dsl_tuple(x.shape, symbols, values)}:{_dsl_tuple(x.stride, symbols, values)}"
    return _dsl_tuple(x, symbols, values)


def to_cpp(x: Layout | IntTuple) -> str:
    """C++ ``print``'s form (``(M,_8):(_1,M)``), the notation the rest of this tool reads and writes."""
    x = coerce(x)  # type: ignore[assignment]
    return str(x) if isinstance(x, Layout) else format_tuple(x)


def to_notation(x: Layout | IntTuple, notation: str = "cpp", symbols: Symbols | None = None) -> str:
    """``x`` in ``"cpp"`` (C++ ``print``) or ``"dsl"`` (CuTe DSL) notation."""
    if notation == "cpp":
        return to_cpp(x)
    if notation == "dsl":
        return to_dsl(x, symbols)
    raise LayoutError(f"unknown notation {notation!r}: expected 'cpp' or 'dsl'")


__all__ = ["coerce", "from_pycute", "is_pycute", "parse_dsl", "parse_dsl_layout", "to_cpp", "to_dsl",
           "to_notation", "to_pycute"]
