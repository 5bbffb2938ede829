"""``cute-verify crd2idx LAYOUT COORD [--param NAME=VALUE]... [--json]``: the index CuTe computes for a coordinate,
in CuTe's own integer types, against the exact index.

CuTe's ``crd2idx`` (stride.hpp:60-124) sums ``coord * stride`` over the modes; an integer coordinate of a tuple
shape is split colexicographically first (``coord % size`` for every mode but the last, which gets the unreduced
quotient).  Each operation is done in the C++ type of its operands: a dynamic ``int`` leaf (``8``, a symbol) is 32
bits, a 64-bit symbol (``{ bits = 64 }``, ``?{i64}``) is ``int64_t``, a static ``_N`` is an ``Int<N>`` whose value
is an ``int``; the wider operand wins, and a literal is an ``int`` (``4294967295`` is -1, as the harness
passes it).  Signed overflow is undefined in C++; what the hardware does, and what is
reported here, is the two's-complement wrap.  The verdict is ``valid`` when CuTe's index is the exact one,
``invalid`` (exit status 1) with both values when it is not.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from verifier.cli.args import UsageError, params
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import IntTuple, crd2idx
from verifier.core.integers import Const, Expr, Int, Op, Sym, format_expr
from verifier.core.layouts import Layout, Underscore
from verifier.core.symbols import Symbols


@dataclass(frozen=True)
class Typed:
    """A value as C++ holds it: wrapped to ``bits`` (two's complement)."""

    value: int
    bits: int

    def _wrap(self, v: int, bits: int) -> Typed:
        m = 1 << bits
        v %= m
        return Typed(v - m if v >= m >> 1 else v, bits)

    def __add__(self, o: Typed) -> Typed:
        return self._wrap(self.value + o.value, max(self.bits, o.bits))

    def __mul__(self, o: Typed) -> Typed:
        return self._wrap(self.value * o.value, max(self.bits, o.bits))

    def tdiv(self, o: Typed) -> Typed:
        q = abs(self.value) // abs(o.value)
        return self._wrap(q if (self.value < 0) == (o.value < 0) else -q, max(self.bits, o.bits))

    def tmod(self, o: Typed) -> Typed:
        return self._wrap(self.value - o.value * self.tdiv(o).value, max(self.bits, o.bits))


def _typed(x: Int, widths: dict[str, int], env: dict[str, int]) -> Typed:
    """The value of ``x`` at ``env`` computed as C++ computes it: every operation of a run-time expression
    (``M*N``) in the wider type of its operands (``int`` for a literal or a symbol, ``int64_t`` for a 64-bit
    symbol), wrapping."""
    return _eval(x.expr, widths, env)


def _eval(e: Expr, widths: dict[str, int], env: dict[str, int]) -> Typed:
    if type(e) is Const:  # a literal leaf is an int (CuTe's run-time int, or Int<N>'s value type): it wraps too
        return Typed(0, 32) + Typed(int(e.value), 32)
    if type(e) is Sym:
        if e.name not in env:
            raise LayoutError(f"symbol {e.name} has no value: give --param {e.name}=VALUE")
        bits = widths.get(e.name, 32)
        return Typed(0, bits) + Typed(env[e.name], bits)
    assert isinstance(e, Op)
    a = [_eval(x, widths, env) for x in e.args]
    if e.op == "+":
        return a[0] + a[1]
    if e.op == "-":
        return a[0] + a[1] * Typed(-1, 32)
    if e.op == "*":
        return a[0] * a[1]
    if e.op in ("/", "%"):
        if a[1].value == 0:
            raise LayoutError(f"division by zero in {format_expr(e)}")
        return a[0].tdiv(a[1]) if e.op == "/" else a[0].tmod(a[1])
    if e.op == "neg":
        return a[0] * Typed(-1, 32)
    bits = max(t.bits for t in a)
    return Typed(0, bits) + Typed(int(Op(e.op, tuple(Const(t.value) for t in a)).evaluate({})), bits)


def _product(shape: IntTuple, widths: dict[str, int], env: dict[str, int]) -> Typed:
    if type(shape) is tuple:
        out = Typed(1, 32)
        for s in shape:
            out = out * _product(s, widths, env)
        return out
    return _typed(shape, widths, env)  # type: ignore[arg-type]


def cute_crd2idx(coord: IntTuple | Typed, shape: IntTuple, stride: IntTuple, widths: dict[str, int],
                 env: dict[str, int]) -> Typed:
    """``crd2idx(coord, shape, stride)`` in CuTe's integer types (stride.hpp:60-124)."""
    if isinstance(coord, tuple):
        if not isinstance(shape, tuple) or not isinstance(stride, tuple):
            raise CuteRejection("Invalid parameters", "stride.hpp:116")
        if not len(coord) == len(shape) == len(stride):
            raise CuteRejection("Mismatched Ranks", "stride.hpp:71")
        out = Typed(0, 32)
        for ci, si, di in zip(coord, shape, stride):
            out = out + cute_crd2idx(ci, si, di, widths, env)
        return out
    c: Typed = coord if isinstance(coord, Typed) else _typed(coord, widths, env)
    if isinstance(shape, tuple):  # crd2idx_itt: split an integer colexicographically
        if not isinstance(stride, tuple) or len(stride) != len(shape):
            raise CuteRejection("Mismatched Ranks", "stride.hpp:71")
        out = Typed(0, 32)
        for k, (s, d) in enumerate(zip(shape, stride)):
            if k == len(shape) - 1:
                return out + cute_crd2idx(c, s, d, widths, env)
            n = _product(s, widths, env)
            out = out + cute_crd2idx(c.tmod(n), s, d, widths, env)
            c = c.tdiv(n)
        return out
    if isinstance(stride, tuple):
        raise CuteRejection("Invalid parameters", "stride.hpp:116")
    return c * _typed(stride, widths, env)


def cmd_crd2idx(args: argparse.Namespace) -> int:
    from verifier.notation.cpp import parse_coord
    from verifier.run.problems import parse_operand

    symbols = Symbols()
    layout = parse_operand(args.layout, symbols, args.dsl)
    if not isinstance(layout, Layout):
        raise UsageError(f"crd2idx: {args.layout!r} is not a layout Shape:Stride")
    try:
        coord = parse_coord(args.coord, symbols)
    except LayoutError as exc:
        raise LayoutError(f"the coordinate {args.coord!r}: {exc}") from None
    integers = [x for x in _leaves(coord) if not isinstance(x, Underscore)]
    if len(integers) != len(_leaves(coord)):
        raise UsageError("crd2idx takes a coordinate without '_' (use slice_and_offset to slice)")
    env = params(args.param, anonymous=True)
    symbols.check_values(env)
    missing = sorted((layout.symbols() | set().union(*(x.symbols() for x in integers))) - set(env))
    if missing:
        raise UsageError(f"symbol {missing[0]} needs a value: --param {missing[0]}=VALUE")
    widths = {s.name: s.bits for s in symbols}
    shown = f"crd2idx({args.coord.strip()}, {layout})"
    where = ", ".join(f"{k}={v}" for k, v in env.items())
    try:
        concrete = layout.substitute(env)
        exact = int(crd2idx(_subst(coord, env), concrete.shape, concrete.stride))
        cute = cute_crd2idx(coord, layout.shape, layout.stride, widths, env)
    except CuteRejection as exc:
        print(json.dumps({"op": "crd2idx", "verdict": "invalid", "reason": str(exc)}) if args.json
              else f"invalid: {shown}: {exc}")
        return 1
    ctype = "int" if cute.bits == 32 else "int64_t"
    ok = cute.value == exact
    if args.json:
        print(json.dumps({"op": "crd2idx", "inputs": [str(layout), args.coord.strip()], "params": env,
                          "verdict": "valid" if ok else "invalid", "index": cute.value, "exact": exact,
                          "type": ctype}))
    elif ok:
        print(f"valid: {shown} = {exact} ({ctype}){' with ' + where if where else ''}")
    else:
        print(f"invalid: {shown}{' with ' + where if where else ''}: CuTe computes {cute.value} in {ctype} "
              f"(it wraps past {2 ** (cute.bits - 1) - 1}), the exact index is {exact}")
    return 0 if ok else 1


def _leaves(t: IntTuple | Underscore) -> list[Int | Underscore]:
    return [x for e in t for x in _leaves(e)] if isinstance(t, tuple) else [t]


def _subst(t: IntTuple, env: dict[str, int]) -> IntTuple:
    from verifier.core.int_tuple import substitute_tuple

    return substitute_tuple(t, env)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    c = sub.add_parser("crd2idx", help="the index CuTe computes at a coordinate, in its own integer types",
                       description="The index CuTe's crd2idx computes at COORD, in CuTe's integer types (a dynamic "
                                   "int leaf is 32 bits and wraps), compared with the exact index.",
                       epilog="example: cute-verify crd2idx '(M,N):(_1,M)' '(3,2)' --param M=65536 --param "
                              "N=65536\n\nexit status: 0 the index is exact, 1 CuTe's index differs (or CuTe "
                              "rejects the coordinate), 2 bad input",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("layout", help="a layout in CuTe notation, e.g. '(M,N):(_1,M)'")
    c.add_argument("coord", help="a coordinate: an integer (1-D) or a tuple such as (3,2) or (3,(1,0))")
    c.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--dsl", action="store_true", help="LAYOUT is in the CuTe DSL's notation")
    c.set_defaults(func=cmd_crd2idx)


__all__ = ["Typed", "add_parser", "cute_crd2idx"]
