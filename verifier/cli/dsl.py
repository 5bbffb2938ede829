"""``cute-verify dsl FILE.py::FUNCTION [--arg NAME=LO..HI]... [--assume EXPR]... [--format text|json|sarif]``.

Traces the user's host-side ``@cute.jit`` function (``tracer.py``) and verifies every layout operation it
performs, with ``dsl`` semantics, for every admitted value of its parameters.  Reports at the user's lines.
Exit status: 0 when every operation is valid, 1 when one is invalid, 3 when none is invalid but one is unknown,
2 on bad input (one line)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.dsl.report import exit_code, render_json, render_sarif, render_text

if TYPE_CHECKING:  # the tracer loads the algebra: on first use, not when cute-verify builds its parser
    pass


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("dsl", help="verify the layouts of a host-side CuTe DSL @cute.jit function")
    d.add_argument("target", metavar="FILE.py::FUNCTION", help="the @cute.jit function to trace")
    d.add_argument("--arg", action="append", default=[], metavar="NAME=LO..HI",
                   help="the range of an integer parameter (default: 1 .. the type's maximum)")
    d.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="a relation between the parameters, e.g. 'bm*128 < M'")
    d.add_argument("--timeout", type=float, default=10.0, metavar="S", help="time budget per operation")
    d.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="report format")
    d.add_argument("--json", action="store_const", const="json", dest="format", help="the same as --format json")
    d.add_argument("-o", "--output", metavar="F", help="write the report to F (atomically) instead of stdout")
    d.add_argument("--strict", action="store_true", help="warnings (a partial last tile ...) are errors")
    d.add_argument("--no-crosscheck", action="store_true",
                   help="do not trace the function with the real CuTe DSL to confirm the tracer's forms")
    d.set_defaults(func=cmd_dsl, own_quiet=True)


def cmd_dsl(args: argparse.Namespace) -> int:
    from verifier.core.errors import LayoutError
    from verifier.run.files import write_atomic

    if args.timeout <= 0:
        raise LayoutError(f"--timeout must be positive, got {args.timeout}")
    from verifier.dsl.tracer import crosscheck, parse_args, trace, verify_trace

    t = trace(args.target, parse_args(args.arg), args.assume)
    findings = verify_trace(t, timeout=args.timeout, strict=args.strict)
    text = {"text": render_text, "json": render_json, "sarif": render_sarif}[args.format](t, findings)
    if not args.no_crosscheck and importlib.util.find_spec("cutlass") is not None:
        diffs = crosscheck(t)
        for d in diffs:
            print(f"cute-verify: warning: {t.path}: the CuTe DSL's own trace differs from the tracer's: {d}",
                  file=sys.stderr)
        if not diffs and args.format == "text":
            text += "\nthe CuTe DSL's own trace of the function agrees with the tracer at every operation"
    if args.output:
        try:
            write_atomic(Path(args.output), text + "\n")
        except OSError as exc:
            raise LayoutError(f"--output {args.output}: {exc.strerror or exc}") from None
        print(f"{len(findings)} layout operations; exit status {exit_code(findings)}", file=sys.stderr)
    else:
        from verifier.cli.common import emit

        if getattr(args, "quiet", False) and args.format == "text":  # -q: the verdict lines only
            text = "\n".join(line for line in text.splitlines() if not line.startswith(" "))
        emit(args, text, json_output=args.format != "text")
    return exit_code(findings)
