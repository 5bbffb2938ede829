"""The ``cute-verify`` command line.

* ``cute-verify OP ARGS... [--assume EXPR]... [--param NAME=VALUE]... [--timeout S] [--json]``: is the algebra
  operation ``OP`` (named as in CuTe: ``composition A B``, ``complement L [COTARGET]``, ``upcast N L`` ...), as
  CuTe computes it, valid for every allowed value of the symbols?  Prints the verdict, a counterexample, and the
  condition under which it is valid with C++ and Python guards.
* ``cute-verify check PROPERTY ARGS...``: ``compatible S1 S2``, ``injective L``, ``surjective L N``,
  ``bijective L``, ``equivalent L1 L2 [--extended]``, ``in_bounds L EXTENT``, ``no_overflow L [--bits 32|64]``,
  ``conflict_free SMEM ACCESS --element-bits B --access-bits W [--offset EXPR]`` (banks.py).
* ``cute-verify bank_conflicts SMEM ACCESS --element-bits B --access-bits W``: wavefronts per phase (banks_cli.py).
* ``cute-verify eval LAYOUT [--param NAME=VALUE]... [--json]``: the layout as CuTe prints it, its size, cosize and
  table.
* ``cute-verify run FILE...``: the checks of spec files (``spec_cli.py``): text, JSON, SARIF or JUnit reports.

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


def _problem(args: argparse.Namespace, op: str, prop: bool = False) -> tuple[list[object], Symbols]:
    from .problems import build

    if args.timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {args.timeout}")
    symbols = Symbols()
    operands = build(op, args.args, symbols, args.assume, _params(args.param), prop=prop)
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
    if args.property == "conflict_free":
        from .banks_cli import cmd_check_conflict_free

        return cmd_check_conflict_free(args)
    operands, symbols = _problem(args, args.property, prop=True)
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
                                    "no_overflow, conflict_free")
    c.add_argument("args", nargs="+", help="layouts or shapes in CuTe notation")
    c.add_argument("--extended", action="store_true", help="equivalent: also past the domain, as CuTe evaluates")
    c.add_argument("--bits", type=int, choices=(32, 64), default=32, help="no_overflow: the index width")
    from .banks_cli import add_options as add_bank_options
    from .banks_cli import add_parser as add_banks

    add_bank_options(c)
    _common(c)
    c.set_defaults(func=cmd_check)
    from cuda_harness.cli import add_parser as add_gpu

    from . import spec_cli
    from .algebra import OPERATIONS
    from .draw_cli import add_parser as add_draw
    from .prove_cli import add_parser as add_prove

    spec_cli.add_parser(sub)
    add_prove(sub)
    add_draw(sub)
    add_banks(sub)
    add_gpu(sub)
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
    except BrokenPipeError:
        # The reader (``| head``) closed the pipe: not an error of ours; keep Python from reporting it at exit.
        sys.stdout = None  # type: ignore[assignment]
        return 0


if __name__ == "__main__":
    sys.exit(main())
