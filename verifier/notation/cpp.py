"""CuTe notation: parse and print layouts, int tuples and tilers as CuTe's ``print`` writes them.

Grammar (whitespace is ignored)::

    layout   := tuple ':' tuple
    tile     := '<' element (',' element)* '>'        element := layout | tuple | '_' | tile
    coord    := '(' coord (',' coord)* ')' | '_' | expr   a coordinate; '_' slices that mode (``slice``, ``local_tile``)
    tuple    := '(' tuple (',' tuple)* ')' | expr      a one-leaf '(e)' followed by an operator is a parenthesis
    expr     := term (('+'|'-') term)*
    term     := unary (('*'|'/'|'%') unary)*
    unary    := '-' unary | atom
    atom     := '_' INT | '_-' INT | INT | NAME | '?' | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
    stride leaf := expr ('@' INT)*                    a scaled basis: '_1@0@1' is CuTe's E<1,0>
    swizzle  := 'Sw' '<' ['-'] INT ',' ['-'] INT ',' ['-'] INT '>'
    composed := swizzle 'o' layout | part 'o' expr 'o' part ('o' expr 'o' part)*     part := swizzle | layout
    relation := expr CMP expr (CMP expr)* (('&&'|'||') relation)*   (``lda >= M``; ``1 <= M <= 64`` chains)

``_8`` is a static integer, ``8`` a dynamic value, ``M`` a named run-time symbol, ``?`` an anonymous one, and
``(M+127)/128`` an expression with C++ truncating division.  Arithmetic in the notation follows CuTe's
static/dynamic rules (``_2*_4`` is ``_8``; ``_2*M`` is dynamic).

Guarantees: ``str(parse_layout(s))`` is ``s`` for any layout printed by this module or by CuTe; every malformed
input raises one ``LayoutSyntaxError`` (or ``LayoutError``) whose message names the column and the problem.  Inputs
longer than 64 Ki characters or nested deeper than 16 levels are refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from verifier.core.basis import ScaledBasis
from verifier.core.errors import LayoutError, LayoutSyntaxError
from verifier.core.int_tuple import IntTuple, congruent, format_tuple, leaves, product
from verifier.core.integers import (
    FUNCTIONS,
    Bool,
    D,
    Int,
    S,
    and_,
    eq,
    ge,
    gt,
    le,
    lt,
    ne,
    or_,
    symbol,
)
from verifier.core.integers import abs_ as _abs
from verifier.core.integers import gcd as _gcd
from verifier.core.integers import lcm as _lcm
from verifier.core.integers import max_ as _max
from verifier.core.integers import min_ as _min
from verifier.core.integers import signum as _signum
from verifier.core.layouts import UNDERSCORE, Layout, Tile, TileElement, make_layout
from verifier.core.swizzle import ComposedLayout, Fn, Swizzle, compose3
from verifier.core.symbols import Symbols

MAX_LENGTH = 64 * 1024
MAX_DEPTH = 16
MAX_OPERATORS = 256
INT64_MAX = 2**63 - 1
MAX_BASIS_MODE = 64
MAX_SWIZZLE_PARAM = 64

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<static>_-?[0-9]+)
  | (?P<int>[0-9]+)
  | (?P<name>[A-Za-z][A-Za-z0-9_]*)
  | (?P<under>_)
  | (?P<op2>&&|\|\||==|!=|<=|>=)
  | (?P<punct>[()<>,:+\-*/%?])
  | (?P<at>@)
  | (?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_KNOWN_BAD_OPERATORS = set("^&|!~=@[]{};.\\$#'\"`")


# The functions notation may call, with CuTe's names.
_FUNCTIONS: dict[str, Callable[..., Int]] = {
    "min": _min, "max": _max, "abs": _abs, "signum": _signum, "gcd": _gcd, "lcm": _lcm}


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[Token]:
    if len(text) > MAX_LENGTH:
        raise LayoutSyntaxError(f"input is {len(text)} characters long; the limit is {MAX_LENGTH}", "", 0)
    tokens: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        assert kind is not None
        if kind == "ws":
            continue
        if kind == "bad":
            ch = m.group()
            what = "unknown operator" if ch in _KNOWN_BAD_OPERATORS else "unexpected character"
            raise LayoutSyntaxError(f"{what} {ch!r}", text, m.start())
        tokens.append(Token(kind, m.group(), m.start()))
    tokens.append(Token("end", "", len(text)))
    return tokens


_SMEM_PTR = re.compile(r"smem_ptr\[(\d{1,4})b\]\(unset\)")
_SMEM_PTR_NAME = re.compile(r"smemptrflag(\d+)_*")


class _Parser:
    def __init__(self, text: str, symbols: Symbols | None) -> None:
        self.text = text
        # CuTe prints smem_ptr_flag_bits<B> as 'smem_ptr[Bb](unset)'; read it as one name of equal width.
        self.tokens = _tokenize(_SMEM_PTR.sub(lambda m: f"smemptrflag{m.group(1)}".ljust(len(m.group(0)), "_"), text))
        self.i = 0
        self.symbols = symbols if symbols is not None else Symbols()
        self.depth = 0
        self.operators = 0
        # Positions of the leaves of the tuple most recently parsed, in leaf order, for later validation.
        self.leaf_pos: dict[int, list[int]] = {}
        # Scaled-basis leaves ('_1@0') are allowed while a stride is being parsed.
        self.in_stride = False
        # '_' leaves are allowed while a coordinate is being parsed ('(_,2)': slice mode 0, take row 2 of mode 1).
        self.in_coord = False

    # -- token helpers ---------------------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        t = self.tokens[self.i]
        self.i += 1
        return t

    def error(self, message: str, pos: int | None = None) -> LayoutSyntaxError:
        return LayoutSyntaxError(message, self.text, self.tok.pos if pos is None else pos)

    def describe(self, t: Token) -> str:
        return "the end of the input" if t.kind == "end" else repr(t.text)

    def expect(self, text: str, context: str) -> Token:
        if self.tok.text != text or self.tok.kind in ("end",):
            raise self.error(f"expected {text!r} {context}, found {self.describe(self.tok)}")
        return self.advance()

    def enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nesting deeper than {MAX_DEPTH} levels", pos)

    def leave(self) -> None:
        self.depth -= 1

    def at_end(self, what: str) -> None:
        if self.tok.kind != "end":
            if self.tok.text in ")>" and self.tok.kind == "punct":
                raise self.error(f"unbalanced {self.tok.text!r} after the {what}")
            raise self.error(f"unexpected {self.describe(self.tok)} after the {what}")

    # -- int tuples ------------------------------------------------------------------------------------------
    def int_tuple(self, leaves_out: list[tuple[Int, int]]) -> IntTuple:
        """A tuple or an expression leaf; appends (leaf, position) pairs to ``leaves_out`` in leaf order."""
        t = self.tok
        if t.kind == "under" and self.in_coord:
            self.advance()
            return UNDERSCORE  # type: ignore[return-value]
        if t.text == "(" and t.kind == "punct":
            start = t.pos
            self.enter(start)
            self.advance()
            if self.tok.text == ")":
                raise self.error("empty tuple '()'")
            mark = len(leaves_out)
            items: list[IntTuple] = [self.int_tuple(leaves_out)]
            while self.tok.text == ",":
                self.advance()
                items.append(self.int_tuple(leaves_out))
            if self.tok.text != ")":
                if self.tok.kind == "end":
                    raise self.error(f"unbalanced '(' at column {start + 1}: missing ')'")
                raise self.error(f"expected ',' or ')' in the tuple opened at column {start + 1}, "
                                 f"found {self.describe(self.tok)}")
            self.advance()
            self.leave()
            # '(e)' followed by an arithmetic operator is a parenthesised expression, not a rank-1 tuple.
            if (len(items) == 1 and isinstance(items[0], Int) and ((self.tok.kind == "punct"
                    and self.tok.text in "+-*/%") or self.tok.kind == "at")):
                del leaves_out[mark:]
                value = self._continue_expr(items[0])
                if self.tok.kind == "at":
                    value = self._basis(value)  # type: ignore[assignment]
                leaves_out.append((value, start))
                return value
            return tuple(items)
        pos = t.pos
        value = self.expr()
        if self.tok.kind == "at":
            value = self._basis(value)  # type: ignore[assignment]
        leaves_out.append((value, pos))
        return value

    def _basis(self, value: Int) -> ScaledBasis:
        """``v@i@j``: a scaled-basis stride leaf; CuTe prints ``E<j,i>`` this way (arithmetic_tuple.hpp:474)."""
        if not self.in_stride:
            raise self.error("a scaled basis 'v@i' is only allowed as a stride")
        modes: list[int] = []
        while self.tok.kind == "at":
            self.advance()
            t = self.tok
            if t.kind != "int":
                raise self.error(f"expected a mode index (a non-negative integer) after '@', found "
                                 f"{self.describe(t)}")
            if int(t.text) > MAX_BASIS_MODE:
                raise self.error(f"mode index {t.text} is larger than {MAX_BASIS_MODE}")
            modes.append(int(self.advance().text))
        return ScaledBasis(value, tuple(reversed(modes)))

    # -- swizzles and composed layouts -------------------------------------------------------------------------
    def at_swizzle(self) -> bool:
        return self.tok.kind == "name" and self.tok.text == "Sw" and self.peek().text == "<"

    def swizzle(self) -> Swizzle:
        """``Sw<B,M,S>``; CuTe's own invariants (swizzle.hpp:61-63) raise ``CuteRejection``."""
        start = self.advance().pos  # 'Sw'
        self.advance()  # '<'
        params: list[int] = []
        for k, what in enumerate(("the bit count B", "the base M", "the shift S")):
            if k:
                if self.tok.text != "," or self.tok.kind != "punct":
                    raise self.error(f"expected ',' and {what} in the swizzle Sw<B,M,S> opened at column "
                                     f"{start + 1}, found {self.describe(self.tok)}")
                self.advance()
            sign = 1
            if self.tok.kind == "punct" and self.tok.text == "-":
                self.advance()
                sign = -1
            if self.tok.kind != "int":
                raise self.error(f"expected {what} (an integer) in the swizzle Sw<B,M,S>, found "
                                 f"{self.describe(self.tok)}")
            v = int(self.tok.text)
            if v > MAX_SWIZZLE_PARAM:
                raise self.error(f"swizzle parameter {v} is larger than {MAX_SWIZZLE_PARAM}")
            params.append(sign * v)
            self.advance()
        if self.tok.text != ">" or self.tok.kind != "punct":
            raise self.error(f"expected '>' to close the swizzle Sw<B,M,S> opened at column {start + 1}, found "
                             f"{self.describe(self.tok)}")
        self.advance()
        return Swizzle(*params)

    def composed_part(self) -> tuple[Swizzle | Layout | Int, int]:
        pos = self.tok.pos
        if self.at_swizzle():
            return self.swizzle(), pos
        flag = _SMEM_PTR_NAME.fullmatch(self.tok.text) if self.tok.kind == "name" else None
        if flag is not None:
            from verifier.core.swizzle import SmemPtrFlag

            self.advance()
            return SmemPtrFlag(int(flag.group(1))), pos
        if self.tok.kind == "end":
            raise self.error("expected a swizzle, a layout or an offset after 'o'")
        save = self.i
        part = self.int_tuple([])
        if self.tok.text == ":":
            self.i = save
            return self.layout(), pos
        if not isinstance(part, Int):
            raise LayoutSyntaxError("a tuple is neither a layout nor an offset in a composed layout", self.text, pos)
        return part, pos

    def composed(self, first: tuple[Swizzle | Layout | Int, int] | None = None) -> Fn:
        """``Sw<B,M,S> o L`` (CuTe's ``composition(Sw, L)``) or ``A o O o B [o O2 o B2 ...]`` (a ComposedLayout,
        nested to the right as CuTe prints it)."""
        parts = [first if first is not None else self.composed_part()]
        while self.tok.kind == "name" and self.tok.text == "o":
            self.advance()
            parts.append(self.composed_part())
        if len(parts) == 2:
            (sw, pos), (lay, lpos) = parts
            if not isinstance(sw, Swizzle):
                raise LayoutSyntaxError("'X o L' needs a swizzle X = Sw<B,M,S>; a composed layout is A o OFFSET o B",
                                        self.text, pos)
            if not isinstance(lay, Layout):
                raise LayoutSyntaxError("expected a layout Shape:Stride after 'Sw<B,M,S> o'", self.text, lpos)
            return compose3(sw, S(0), lay)
        if len(parts) % 2 == 0:
            raise LayoutSyntaxError("a composed layout is A o OFFSET o B: expected 'o' and one more part",
                                    self.text, parts[-1][1])
        for k, (part, pos) in enumerate(parts):
            if k % 2 == 1 and not isinstance(part, Int):
                raise LayoutSyntaxError("expected an integer offset between the two functions of 'A o OFFSET o B'",
                                        self.text, pos)
            if k % 2 == 0 and isinstance(part, Int):
                raise LayoutSyntaxError("expected a swizzle Sw<B,M,S> or a layout Shape:Stride, found an integer",
                                        self.text, pos)
        result: Fn = parts[-1][0]  # type: ignore[assignment]
        for k in range(len(parts) - 3, -1, -2):
            result = ComposedLayout(parts[k][0], parts[k + 1][0], result)  # type: ignore[arg-type]
        return result

    # -- expressions -----------------------------------------------------------------------------------------
    def _continue_expr(self, left: Int) -> Int:
        left = self._term_rest(left)
        return self._expr_rest(left)

    def expr(self) -> Int:
        return self._expr_rest(self.term())

    def _count_operator(self, pos: int) -> None:
        self.operators += 1
        if self.operators > MAX_OPERATORS:
            raise self.error(f"more than {MAX_OPERATORS} arithmetic operators", pos)

    def _expr_rest(self, left: Int) -> Int:
        while self.tok.kind == "punct" and self.tok.text in "+-":
            self._count_operator(self.tok.pos)
            op = self.advance().text
            right = self.term()
            left = left + right if op == "+" else left - right
        return left

    def term(self) -> Int:
        return self._term_rest(self.unary())

    def _term_rest(self, left: Int) -> Int:
        from verifier.core.errors import UndefinedBehavior

        while self.tok.kind == "punct" and self.tok.text in "*/%":
            self._count_operator(self.tok.pos)
            op_tok = self.advance()
            right = self.unary()
            if op_tok.text in "/%" and right.value == 0:
                # Even with a symbolic dividend: CuTe would divide by zero for every value.
                raise self.error("division by zero in the notation", op_tok.pos)
            try:
                if op_tok.text == "*":
                    left = left * right
                elif op_tok.text == "/":
                    left = left / right
                else:
                    left = left % right
            except UndefinedBehavior:
                raise self.error("division by zero in the notation", op_tok.pos) from None
        return left

    def unary(self) -> Int:
        if self.tok.kind == "punct" and self.tok.text == "-":
            pos = self.advance().pos
            self.enter(pos)
            v = -self.unary()
            self.leave()
            return v
        return self.atom()

    def atom(self) -> Int:
        t = self.tok
        if t.kind == "static":
            self.advance()
            return S(self._literal(t.text[1:], t.pos))
        if t.kind == "int":
            self.advance()
            return D(self._literal(t.text, t.pos))
        if t.kind == "punct" and t.text == "?":
            self.advance()
            nxt = self.tok
            if nxt.kind == "int" and nxt.pos == t.pos + 1:  # '?2': the second '?' already seen, as printed
                self.advance()
                name = f"?{nxt.text}"
                if name not in self.symbols.table:
                    raise self.error(f"unknown symbol {name!r} (the input has no {nxt.text}th '?')", t.pos)
                return symbol(name)
            return symbol(self.symbols.fresh_anonymous().name)
        if t.kind == "name":
            self.advance()
            if self.tok.text == "(" and self.tok.kind == "punct":
                return self._call(t)
            if t.text in FUNCTIONS:
                raise self.error(f"function {t.text} needs arguments", t.pos)
            if self.symbols.lookup(t.text) is None:
                raise self.error(f"unknown symbol {t.text!r}", t.pos)
            return symbol(t.text)
        if t.kind == "punct" and t.text == "(":
            self.enter(t.pos)
            self.advance()
            v = self.expr()
            if self.tok.text == ",":
                raise self.error("a tuple cannot be an operand of arithmetic")
            self.expect(")", f"to close the parenthesis at column {t.pos + 1}")
            self.leave()
            return v
        if t.kind == "under":
            raise self.error("'_' (Underscore) is only allowed as an element of a tiler <...> or of a coordinate "
                             "such as (_,2)")
        if t.kind == "op2" or (t.kind == "punct" and t.text in "<>"):
            raise self.error(f"unknown operator {t.text!r} in an integer")
        if t.kind == "end":
            raise self.error("unexpected end of input: expected an integer or '('")
        raise self.error(f"expected an integer, found {self.describe(t)}")

    def _call(self, name: Token) -> Int:
        arity = FUNCTIONS.get(name.text)
        if arity is None:
            raise self.error(f"unknown function {name.text!r}", name.pos)
        self.enter(name.pos)
        self.advance()  # '('
        args = [self.expr()]
        while self.tok.text == ",":
            self.advance()
            args.append(self.expr())
        self.expect(")", f"to close {name.text}(")
        self.leave()
        if len(args) != arity:
            raise self.error(f"{name.text} takes {arity} argument(s), got {len(args)}", name.pos)
        return _FUNCTIONS[name.text](*args)

    def _literal(self, digits: str, pos: int) -> int:
        shown = digits if len(digits) <= 40 else f"{digits[:20]}...({len(digits)} digits)"
        # Checked on the length first: Python refuses to convert more than 4300 digits at all.
        if len(digits.lstrip("-").lstrip("0")) > 19 or not -INT64_MAX - 1 <= int(digits) <= INT64_MAX:
            raise self.error(f"integer {shown} does not fit in 64 bits", pos)
        return int(digits)

    # -- layouts and tiles -----------------------------------------------------------------------------------
    def layout(self) -> Layout:
        shape_leaves: list[tuple[Int, int]] = []
        start = self.tok.pos
        shape = self.int_tuple(shape_leaves)
        if self.tok.text != ":":
            if self.tok.kind == "end":
                raise self.error("expected ':' between the shape and the stride (a layout is Shape:Stride)")
            raise self.error(f"expected ':' after the shape, found {self.describe(self.tok)}")
        self.advance()
        stride_pos = self.tok.pos
        stride_leaves: list[tuple[Int, int]] = []
        self.in_stride = True
        stride = self.int_tuple(stride_leaves)
        self.in_stride = False
        if not congruent(shape, stride):
            raise LayoutSyntaxError(
                f"shape {format_tuple(shape)} and stride {format_tuple(stride)} are not congruent "
                "(they must have the same nesting)", self.text, stride_pos)
        _check_shape_leaves(self, shape_leaves)
        _check_size(self, shape, start)
        return Layout(shape, stride)

    def tile(self) -> Tile:
        start = self.expect("<", "to open a tiler").pos
        self.enter(start)
        elements = [self.tile_element()]
        while self.tok.text == ",":
            self.advance()
            elements.append(self.tile_element())
        if self.tok.text != ">":
            if self.tok.kind == "end":
                raise self.error(f"unbalanced '<' at column {start + 1}: missing '>'")
            raise self.error(f"expected ',' or '>' in the tiler, found {self.describe(self.tok)}")
        self.advance()
        self.leave()
        return Tile(elements)

    def tile_element(self) -> TileElement:
        t = self.tok
        if t.kind == "under":
            self.advance()
            return UNDERSCORE
        if t.text == "<" and t.kind == "punct":
            return self.tile()
        save = self.i
        leaves_out: list[tuple[Int, int]] = []
        shape = self.int_tuple(leaves_out)
        if self.tok.text == ":":
            self.i = save
            return self.layout()
        _check_shape_leaves(self, leaves_out)
        return shape

    # -- relations -------------------------------------------------------------------------------------------
    def relation(self) -> Bool:
        left = self.comparison()
        while self.tok.kind == "op2" and self.tok.text in ("&&", "||"):
            op = self.advance().text
            right = self.comparison()
            left = and_(left, right) if op == "&&" else or_(left, right)
        return left

    def comparison(self) -> Bool:
        lhs = self.expr()
        t = self.tok
        ops = {"==": eq, "!=": ne, "<=": le, ">=": ge, "<": lt, ">": gt}
        if t.text not in ops:
            raise self.error(f"expected a comparison (==, !=, <, <=, >, >=), found {self.describe(t)}")
        self.advance()
        rhs = self.expr()
        result = ops[t.text](lhs, rhs)
        # A chained comparison, as the tool prints ranges: '1 <= M <= 64' is '1 <= M && M <= 64'.
        while self.tok.text in ops and self.tok.kind in ("op2", "punct"):
            op = self.advance().text
            lhs, rhs = rhs, self.expr()
            result = and_(result, ops[op](lhs, rhs))
        return result


def _check_shape_leaves(p: _Parser, shape_leaves: list[tuple[Int, int]]) -> None:
    for leaf, pos in shape_leaves:
        v = leaf.value
        if v is not None and v <= 0:
            raise LayoutSyntaxError(f"shape {leaf} must be positive", p.text, pos)


def _check_size(p: _Parser, shape: IntTuple, pos: int) -> None:
    if all(x.concrete for x in leaves(shape)):
        n = product(shape).value
        if n is not None and n > INT64_MAX:
            raise LayoutSyntaxError(f"layout size {n} does not fit in 64 bits", p.text, pos)


# -- public entry points ----------------------------------------------------------------------------------------


def _from_pycute(obj: object) -> Layout:
    from verifier.notation.interop import from_pycute

    return from_pycute(obj)



# -- CuTe's C++ type spelling ------------------------------------------------------------------------------------
#
# Kernels name static layouts by their types: ``Layout<Shape<_2,_2,_1>>``, ``Layout<Shape<_8,_64>, Stride<_64,_1>>``,
# ``Shape<Int<128>, _64>``.  They are read as the print form they stand for; a ``Layout`` without a stride has
# CuTe's default, ``LayoutLeft`` (compact column-major, a ``_0`` stride for a static extent 1), as ``parse_layout``
# gives a shape alone (``Layout<Shape<_2,_2,_1>>`` prints ``(_2,_2,_1):(_1,_2,_0)`` in CuTe 4.2).

_TYPE_NAMES = re.compile(r"\b(Layout|Shape|Stride|Int|C)\s*<")


def _type_args(text: str, start: int) -> tuple[list[str], int]:
    """The top-level arguments of the ``<...>`` opened at ``text[start]``, and the index after its ``>``."""
    depth, args, cur = 0, [], start + 1
    for k in range(start, len(text)):
        ch = text[k]
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
            if depth == 0:
                args.append(text[cur:k])
                return [a.strip() for a in args], k + 1
        elif ch == "," and depth == 1:
            args.append(text[cur:k])
            cur = k + 1
    raise LayoutSyntaxError("unbalanced '<' in a C++ type", text, start)


def cpp_types(text: str) -> str:
    """``text`` with CuTe's C++ type names (``Layout<Shape<...>, Stride<...>>``, ``Int<N>``) in print form."""
    m = _TYPE_NAMES.search(text)
    if m is None:
        return text
    name, open_at = m.group(1), m.end() - 1
    args, end = _type_args(text, open_at)
    inner = [cpp_types(a) for a in args]
    if name in ("Int", "C"):
        if len(inner) != 1 or not re.fullmatch(r"-?[0-9]+", inner[0]):
            raise LayoutSyntaxError(f"{name}<N> takes one integer", text, m.start())
        shown = "_" + inner[0]
    elif name == "Layout":
        if not 1 <= len(inner) <= 2:
            raise LayoutSyntaxError("Layout<Shape, Stride> takes a shape and an optional stride", text, m.start())
        # a Layout without a stride is LayoutLeft's: the compact column-major layout of its (static) shape
        shown = ":".join(inner) if len(inner) == 2 else str(make_layout(parse_shape(inner[0])))
    else:
        shown = "(" + ",".join(inner) + ")"
    return text[:m.start()] + shown + cpp_types(text[end:])


def parse_layout(text: str, symbols: Symbols | None = None) -> Layout:
    """A layout ``Shape:Stride`` in CuTe notation, or a shape alone (CuTe's ``Layout<Shape<...>>``: compact
    column-major, ``make_layout(shape)``); a ``pycute.Layout`` is converted, see interop.py."""
    if not isinstance(text, str):
        return _from_pycute(text)
    text = cpp_types(text)
    p = _Parser(text, symbols)
    if p.tok.kind == "end":
        raise p.error("empty input: expected a layout such as (_4,8):(_1,_4)")
    save = p.i
    p.int_tuple([])
    if p.tok.kind == "end":  # a shape alone
        return make_layout(parse_shape(text, symbols))
    p.i = save
    result = p.layout()
    p.at_end("layout")
    return result


def parse_int_tuple(text: str, symbols: Symbols | None = None) -> IntTuple:
    """An IntTuple (a shape, a coordinate or an integer) in CuTe notation."""
    p = _Parser(text, symbols)
    if p.tok.kind == "end":
        raise p.error("empty input: expected an integer or a tuple")
    result = p.int_tuple([])
    p.at_end("tuple")
    return result


def parse_shape(text: str, symbols: Symbols | None = None) -> IntTuple:
    """An IntTuple whose concrete leaves must be positive."""
    p = _Parser(text, symbols)
    if p.tok.kind == "end":
        raise p.error("empty input: expected a shape")
    leaves_out: list[tuple[Int, int]] = []
    result = p.int_tuple(leaves_out)
    p.at_end("shape")
    _check_shape_leaves(p, leaves_out)
    return result


def parse_coord(text: str, symbols: Symbols | None = None) -> IntTuple:
    """A coordinate: an IntTuple whose leaves may also be ``_`` (CuTe's Underscore), as ``slice(c, L)``,
    ``slice_and_offset`` and ``local_tile`` take it: ``(_,2)`` keeps mode 0 and fixes mode 1 at 2."""
    p = _Parser(text, symbols)
    if p.tok.kind == "end":
        raise p.error("empty input: expected a coordinate such as (_,2)")
    p.in_coord = True
    result = p.int_tuple([])
    p.at_end("coordinate")
    return result


def parse_tile(text: str, symbols: Symbols | None = None) -> Tile:
    """A by-mode tiler ``<L0, L1, ...>``."""
    p = _Parser(text, symbols)
    result = p.tile()
    p.at_end("tiler")
    return result


def parse(text: str, symbols: Symbols | None = None) -> Layout | Tile | IntTuple | Fn:
    """A layout, a tiler, an IntTuple, a swizzle ``Sw<B,M,S>`` or a composed layout ``Sw<B,M,S> o L`` /
    ``A o OFFSET o B``, whichever ``text`` is (a ``pycute.Layout`` is converted, see interop.py)."""
    if not isinstance(text, str):
        return _from_pycute(text)
    text = cpp_types(text)
    p = _Parser(text, symbols)
    if p.tok.kind == "end":
        raise p.error("empty input")
    if p.at_swizzle():
        sw_pos = p.tok.pos
        sw = p.swizzle()
        if p.tok.kind == "name" and p.tok.text == "o":
            composed = p.composed((sw, sw_pos))
            p.at_end("composed layout")
            return composed
        p.at_end("swizzle")
        return sw
    if p.tok.text == "<" and p.tok.kind == "punct":
        result: Layout | Tile | IntTuple | Fn = p.tile()
        p.at_end("tiler")
        return result
    save = p.i
    leaves_out: list[tuple[Int, int]] = []
    p.in_coord = True
    shape = p.int_tuple(leaves_out)
    p.in_coord = False
    if p.tok.text == ":":
        p.i = save
        start = p.tok.pos
        result = p.layout()
        if p.tok.kind == "name" and p.tok.text == "o":
            result = p.composed((result, start))
            p.at_end("composed layout")
            return result
        p.at_end("layout")
        return result
    p.at_end("tuple")
    return shape


def parse_relation(text: str, symbols: Symbols | None = None) -> Bool:
    """An assumption over symbols: ``lda >= M``, ``M % 8 == 0 && N <= 4096``."""
    p = _Parser(text, symbols)
    result = p.relation()
    p.at_end("assumption")
    return result


def parse_offset(text: str, symbols: Symbols) -> Int:
    """The integer expression of ``conflict_free``'s ``--offset`` (a spec file's ``offset``), over ``symbols``."""
    try:
        v = parse(text, symbols)
    except LayoutError as exc:
        raise LayoutError(f"--offset {text!r}: {exc}") from None
    if not isinstance(v, Int):
        raise LayoutError(f"--offset {text!r}: expected an integer expression")
    return v


def show(arg: object) -> str:
    """An operand as CuTe notation."""
    if isinstance(arg, Int) or type(arg) is tuple:
        return format_tuple(arg)
    return str(arg)
