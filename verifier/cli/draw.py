"""``cute-verify draw``: pictures of layouts, thread/value layouts and counterexamples (pictures.py).

* ``cute-verify draw LAYOUT -o OUT [--param NAME=VALUE]... [--format svg|png|latex] [--tv [--tile SHAPE]]
  [--dsl]``: the layout's index grid; ``--tv`` draws a ``(thr,val) -> idx`` layout over the tile, coloured by
  thread; ``--dsl`` reads LAYOUT in the CuTe DSL's notation (``(?,4):(1,?{div=8})``).
* ``cute-verify draw --counterexample OP|PROPERTY ARGS... -o OUT [--assume EXPR]... [--timeout S]``: decides the
  operation or check as ``cute-verify OP`` / ``cute-verify check`` do and draws the counterexample: the result
  (or the checked layout) at the counterexample's values, the failing coordinate, colliding and out-of-bounds
  cells.  Prints the verdict line and exits with its status (1: refuted / invalid); 2 if there is none to draw.

The format comes from ``--format`` or OUT's extension (``.svg``, ``.png``, ``.tex``); ``-o -`` writes SVG or TikZ
to standard output.  Files are written atomically.  Bad input exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cli.args import params
from verifier.cli.common import add_budget_options
from verifier.core.errors import LayoutError
from verifier.core.layouts import Layout
from verifier.core.symbols import Symbols
from verifier.run.files import check_output, write_output

if TYPE_CHECKING:
    from verifier.present.pictures import Picture

FORMATS = {".svg": "svg", ".png": "png", ".tex": "latex"}


def _params(items: list[str], anonymous: bool) -> dict[str, int]:
    """``--param NAME=VALUE``; with ``--dsl`` also ``?K=VALUE`` for the K-th ``?`` of the layout (from 1)."""
    return params(items, anonymous)


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if args.output == "-":
        return "svg"
    fmt = FORMATS.get(Path(args.output).suffix.lower())
    if fmt is None:
        raise LayoutError(f"-o {args.output}: cannot tell the format from the extension; use .svg, .png or .tex, "
                          "or --format svg|png|latex")
    return fmt


def _write(path: str, data: str | bytes) -> None:
    if path == "-" and isinstance(data, bytes) and sys.stdout.isatty():
        raise LayoutError("PNG output to a terminal: -o FILE.png, or redirect standard output")
    write_output(path, data, "-o")


def _render(picture: Picture, fmt: str) -> str | bytes:
    from verifier.present import pictures

    render: dict[str, Callable[[Picture], str | bytes]] = {"svg": pictures.svg, "latex": pictures.tikz,
                                                            "png": pictures.png}
    return render[fmt](picture)


def cmd_draw(args: argparse.Namespace) -> int:
    from verifier.cli.args import UsageError
    from verifier.present import pictures

    fmt = _format(args)
    check_output(args.output, "-o")
    if args.counterexample:
        return _draw_counterexample(args, fmt)
    if len(args.args) != 1:
        raise UsageError("draw takes one layout (or --counterexample OP ARGS...)")
    if args.assume:
        raise UsageError("--assume is for --counterexample; give values with --param NAME=VALUE")
    symbols = Symbols()
    if args.dsl:
        from verifier.notation.interop import parse_dsl_layout

        layout: object = parse_dsl_layout(args.args[0], symbols)
    else:
        from verifier.run.problems import parse_operand  # CuTe's notation and the TiledMMA / TiledCopy functions

        layout = parse_operand(args.args[0], symbols)
    from verifier.core.swizzle import ComposedLayout

    if not isinstance(layout, Layout | ComposedLayout):
        raise UsageError(f"draw: {args.args[0]!r} is not a layout Shape:Stride")
    params = _params(args.param, anonymous=args.dsl)
    symbols.check_values(params)
    tile = None
    if args.tile is not None:
        if not args.tv:
            raise UsageError("--tile goes with --tv")
        from verifier.notation.cpp import parse_shape

        try:
            tile = parse_shape(args.tile)
        except LayoutError as exc:
            raise LayoutError(f"--tile {args.tile!r}: {exc}") from None
    picture = pictures.tv_picture(layout, tile, params) if args.tv else pictures.layout_picture(layout, params)
    _write(args.output, _render(picture, fmt))
    if args.output != "-":
        print(f"wrote {args.output}: {picture.title}, {picture.rows}x{picture.cols} cells ({fmt})")
    return 0


def _draw_counterexample(args: argparse.Namespace, fmt: str) -> int:
    from verifier.algebra.registry import OPERATIONS
    from verifier.cli.args import UsageError
    from verifier.cli.common import problem_from
    from verifier.engine.checks import PROPERTIES
    from verifier.engine.problem import Operation, Property, decide
    from verifier.present import pictures
    from verifier.present.report import to_text

    if args.tv or args.tile or args.dsl:
        raise UsageError("--tv, --tile and --dsl do not go with --counterexample")
    words = args.args[1:] if args.args[0] == "check" else args.args  # `draw --counterexample check injective L`
    if not words:
        raise UsageError("--counterexample needs an operation or property and its operands")
    op, rest = words[0], words[1:]
    if op not in OPERATIONS and op not in PROPERTIES:
        raise UsageError(f"--counterexample: unknown operation or property {op!r}")
    ns = argparse.Namespace(args=rest, param=args.param, assume=args.assume, timeout=args.timeout,
                            rlimit=args.rlimit)
    operands, symbols = problem_from(ns, op, prop=op in PROPERTIES)
    verdict = decide(Property(op, tuple(operands), symbols, timeout=args.timeout, rlimit=args.rlimit)
                     if op in PROPERTIES else
                     Operation(op, tuple(operands), symbols, timeout=args.timeout, rlimit=args.rlimit, derive=False))
    if verdict.counterexample is None:
        raise LayoutError(f"no counterexample to draw: {to_text(verdict, details=False).splitlines()[0]}")
    layout, bound = pictures.counterexample_layout(op, operands, verdict)
    picture = pictures.counterexample_picture(layout, verdict, bound)
    _write(args.output, _render(picture, fmt))
    print(to_text(verdict, details=False).splitlines()[0])
    if args.output != "-":
        print(f"wrote {args.output}: {picture.title}, {picture.rows}x{picture.cols} cells, counterexample marked "
              f"({fmt})")
    return verdict.exit_code


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("draw", help="draw a layout, a thread/value layout or a counterexample (SVG, PNG, TikZ)")
    d.add_argument("args", nargs="+", help="a layout, or with --counterexample: OP|PROPERTY and its operands")
    d.add_argument("-o", "--output", required=True, metavar="OUT", help="output file (.svg, .png, .tex) or -")
    d.add_argument("--format", choices=("svg", "png", "latex"), help="output format (default: from OUT)")
    d.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a value for a symbol")
    d.add_argument("--tv", action="store_true", help="LAYOUT is (thr,val) -> idx: colour by thread")
    d.add_argument("--tile", metavar="SHAPE", help="--tv: the (M,N) index grid (default: one row)")
    d.add_argument("--dsl", action="store_true", help="LAYOUT is in the CuTe DSL's notation, e.g. (?,4):(1,?)")
    d.add_argument("--counterexample", action="store_true",
                   help="decide OP ARGS (or check PROPERTY ARGS) and draw its counterexample")
    d.add_argument("--assume", action="append", default=[], metavar="EXPR", help="--counterexample: assumption")
    add_budget_options(d)
    d.set_defaults(func=cmd_draw)
