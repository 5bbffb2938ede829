"""The ``cute-verify`` command line.

* ``cute-verify OP ARGS... [--assume EXPR]... [--param NAME=VALUE]... [--timeout S] [--json]``: is the algebra
  operation ``OP`` (named as in CuTe: ``composition A B``, ``complement L [COTARGET]``, ``upcast N L`` ...), as
  CuTe computes it, valid for every allowed value of the symbols?  Prints the verdict, a counterexample, and the
  condition under which it is valid with C++ and Python guards.
* ``cute-verify check PROPERTY ARGS...``: ``compatible S1 S2``, ``injective L``, ``surjective L N``,
  ``bijective L``, ``equivalent L1 L2 [--extended]``, ``in_bounds L EXTENT``, ``no_overflow L [--bits 32|64]``.
* ``cute-verify eval LAYOUT [--param NAME=VALUE]... [--json]``: the layout as CuTe prints it, its size, cosize and
  table.

Exit status: 0 valid / proved, 1 invalid / refuted, 3 unknown, 2 bad input with a one-line message on stderr
(never a traceback).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence

from .errors import LayoutError, UndefinedBehavior
from .int_tuple import format_tuple, leaves
from .layouts import Layout, cosize, rank, size
from .notation import parse_layout
from .symbols import Symbols
from .tables import print_1d, print_layout

TABLE_LIMIT = 4096
VALUES_LIMIT = 1 << 20
_PARAM = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)=(-?\d+)$")


class UsageError(LayoutError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _params(items: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        m = _PARAM.match(item.strip())
        if not m:
            raise UsageError(f"--param {item!r}: expected NAME=INTEGER, e.g. --param M=128")
        if m.group(1) in out:
            raise UsageError(f"--param {m.group(1)} is given twice")
        out[m.group(1)] = int(m.group(2))
    return out


def _evaluate(text: str, params: dict[str, int]) -> tuple[Layout, Layout]:
    symbols = Symbols()
    layout = parse_layout(text, symbols)
    symbols.check_values(params)
    try:
        concrete = layout.substitute(params)
    except UndefinedBehavior as exc:
        raise LayoutError(f"with {_show(params)}: {exc} in the layout's integers") from None
    for leaf in leaves(concrete.shape):
        if leaf.value is not None and leaf.value <= 0:
            raise LayoutError(f"with {_show(params)}: the shape {format_tuple(concrete.shape)} has the "
                              f"non-positive extent {leaf}")
    return layout, concrete


def _show(params: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


def cmd_eval(args: argparse.Namespace) -> int:
    params = _params(args.param)
    original, layout = _evaluate(args.layout, params)
    n, co = size(layout), cosize(layout)
    concrete = layout.concrete
    count = int(n) if concrete else None
    if args.json:
        values = layout.values() if concrete and count is not None and count <= VALUES_LIMIT else None
        print(json.dumps({"result": str(layout), "size": str(n), "cosize": str(co), "values": values}))
        return 0
    print(layout)
    print(f"size   : {n}")
    print(f"cosize : {co}")
    if not concrete:
        names = ", ".join(sorted(n for n in layout.symbols()))
        print(f"values depend on {names}; give --param NAME=VALUE for each to see the table")
    elif count is not None and count > TABLE_LIMIT:
        print(f"(table omitted: {count} entries, more than {TABLE_LIMIT})")
    elif rank(layout) == 2:
        sys.stdout.write(print_layout(layout))
    else:
        sys.stdout.write(print_1d(layout))
    return 0


# Operations whose leading arguments are C++ template integers, not layouts.
TEMPLATE_ARGS = {"upcast": 1, "downcast": 1, "recast_layout": 2}
ORDER_TAGS = ("LayoutLeft", "LayoutRight")


def _operands(op: str, texts: Sequence[str], symbols: Symbols) -> list[object]:
    from .notation import parse, parse_tile

    n_template = TEMPLATE_ARGS.get(op, 0)
    if len(texts) <= n_template:
        raise UsageError(f"{op} needs {n_template} integer(s) and a layout")
    out: list[object] = []
    for k, text in enumerate(texts):
        if k < n_template:
            if not re.fullmatch(r"_?[0-9]+", text.strip()):
                raise UsageError(f"{op}: argument {k + 1} must be a positive integer, got {text!r}")
            out.append(int(text.strip().lstrip("_")))
        elif text.strip() in ORDER_TAGS:
            out.append(text.strip())
        elif text.strip().startswith("<"):
            out.append(parse_tile(text, symbols))
        else:
            try:
                out.append(parse(text, symbols))
            except LayoutError as exc:
                raise LayoutError(f"argument {k + 1} ({text!r}): {exc}") from None
    return out


def _problem(args: argparse.Namespace, op: str) -> tuple[list[object], Symbols]:
    from .claims import substitute_operand
    from .notation import parse_relation

    symbols = Symbols()
    operands = _operands(op, args.args, symbols)
    params = _params(args.param)
    symbols.check_values(params)
    for text in args.assume:
        try:
            symbols.assume(parse_relation(text, symbols))
        except LayoutError as exc:
            raise LayoutError(f"--assume {text!r}: {exc}") from None
    if params:
        try:
            operands = [substitute_operand(o, params) for o in operands]
        except UndefinedBehavior as exc:
            raise LayoutError(f"with {_show(params)}: {exc} in the operands") from None
    if args.timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout}")
    return operands, symbols


def cmd_op(args: argparse.Namespace) -> int:
    from .engine import verify
    from .report import to_json, to_text

    operands, symbols = _problem(args, args.command)
    v = verify(args.command, operands, symbols, timeout=args.timeout)
    print(to_json(v) if args.json else to_text(v))
    return v.exit_code


def cmd_check(args: argparse.Namespace) -> int:
    from .checks import PROPERTIES, check
    from .report import to_json, to_text

    if args.property not in PROPERTIES:
        raise UsageError(f"unknown property {args.property!r}; known: {', '.join(PROPERTIES)}")
    operands, symbols = _problem(args, args.property)
    arity = {"compatible": 2, "injective": 1, "surjective": 2, "bijective": 1, "equivalent": 2, "in_bounds": 2,
             "no_overflow": 1}[args.property]
    if len(operands) != arity:
        raise UsageError(f"check {args.property} takes {arity} argument(s), got {len(operands)}")
    layouts = {"compatible": (), "injective": (0,), "surjective": (0,), "bijective": (0,), "equivalent": (0, 1),
               "in_bounds": (0,), "no_overflow": (0,)}[args.property]
    for k in layouts:
        if not isinstance(operands[k], Layout):
            raise UsageError(f"check {args.property}: argument {k + 1} must be a layout (Shape:Stride)")
    options: dict[str, object] = {}
    if args.property == "equivalent" and args.extended:
        options["extended"] = True
    if args.property == "no_overflow":
        options["bits"] = args.bits
    v = check(args.property, operands, symbols, timeout=args.timeout, **options)
    print(to_json(v) if args.json else to_text(v))
    return v.exit_code


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="an assumption on the symbols, e.g. 'M % 8 == 0' or 'lda >= M'")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
    p.add_argument("--timeout", type=float, default=10.0, metavar="S", help="time budget in seconds (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="cute-verify", description="Verify CuTe layouts whose integers are known only at run time.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    e = sub.add_parser("eval", help="print a layout as CuTe would, with its size, cosize and table")
    e.add_argument("layout", help="a layout in CuTe notation, e.g. '(M,_8):(_1,M)'")
    e.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(func=cmd_eval)
    c = sub.add_parser("check", help="prove or refute a property of layouts")
    c.add_argument("property", help="compatible, injective, surjective, bijective, equivalent, in_bounds, "
                                    "no_overflow")
    c.add_argument("args", nargs="+", help="layouts or shapes in CuTe notation")
    c.add_argument("--extended", action="store_true", help="equivalent: also past the domain, as CuTe evaluates")
    c.add_argument("--bits", type=int, choices=(32, 64), default=32, help="no_overflow: the index width")
    _common(c)
    c.set_defaults(func=cmd_check)
    from cuda_harness.cli import add_parser as add_gpu_parser
    add_gpu_parser(sub)
    from .algebra import OPERATIONS

    for op in OPERATIONS:
        o = sub.add_parser(op, help=f"is CuTe's {op} valid for every allowed value?")
        o.add_argument("args", nargs="+", help="operands in CuTe notation (layouts, <...> tilers, shapes)")
        _common(o)
        o.set_defaults(func=cmd_op)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except LayoutError as exc:
        print(f"cute-verify: error: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print("cute-verify: error: input too deeply nested", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
