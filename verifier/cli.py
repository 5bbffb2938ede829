"""The ``cute-verify`` command line.

``cute-verify eval LAYOUT [--param NAME=VALUE]... [--json]`` prints a layout as CuTe would, its size and cosize,
and its table.  Exit status: 0 on success, 2 on bad input with a one-line message on stderr (never a traceback).
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


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="cute-verify", description="Verify CuTe layouts whose integers are known only at run time.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    e = sub.add_parser("eval", help="print a layout as CuTe would, with its size, cosize and table")
    e.add_argument("layout", help="a layout in CuTe notation, e.g. '(M,_8):(_1,M)'")
    e.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(func=cmd_eval)
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
