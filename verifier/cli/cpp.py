"""``cute-verify cpp FILE.cpp::FUNCTION [--arg NAME=LO..HI]... [--assume EXPR]... [--cutlass PATH]
[--format text|json|sarif] [-o F]``.

Compiles the user's function against CuTe's headers with the symbolic run-time integer for its integer parameters,
explores its paths and decides every CuTe layout operation it performs, every ``cute_verify::expect_*`` property it
states and the undefined behaviour of the arithmetic on its run-time integers (``verifier/oracle/cpp.py``).  Reports
at the C++ file's lines.  Exit status: 0 valid, 1 invalid, 2 bad input (a file that does not compile: the
compiler's first error), 3 unknown, 4 internal error."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cli.args import timeout_arg

if TYPE_CHECKING:
    from verifier.oracle.cpp import Report


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    c = sub.add_parser("cpp", help="verify the layouts of a C++ (or CUDA host) function, run on CuTe's own headers")
    c.add_argument("target", metavar="FILE.cpp::FUNCTION", help="the function to run (its integer parameters are "
                   "symbolic)")
    c.add_argument("--arg", action="append", default=[], metavar="NAME=LO..HI",
                   help="the range of an integer parameter (default: 1 .. the type's maximum)")
    c.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="a relation between the parameters, e.g. 'M %% 128 == 0'")
    c.add_argument("--cutlass", metavar="PATH", help="the CUTLASS include folder (default: the nvidia-cutlass "
                   "wheel's 4.2 headers)")
    c.add_argument("--timeout", type=timeout_arg, default=None, metavar="S",
                   help="wall-clock safety net per question, reported as such when it fires (default: a hang guard "
                        "far above the solver's budget, which is the same on any machine load)")
    c.add_argument("--max-paths", type=int, default=64, metavar="N", help="the path bound (unknown past it)")
    c.add_argument("--strict", action="store_true", help="warnings (a partial last tile ...) are errors")
    c.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="report format")
    c.add_argument("-o", "--output", metavar="F", help="write the report to F (atomically) instead of stdout")
    c.add_argument("--print-include", action="store_true",
                   help="print the folder holding cute_verify.hpp (for the program's own -I) and exit")
    c.set_defaults(func=cmd_cpp)


def shown(path: Path) -> str:
    """A file as a report names it: relative to the working folder when it is below it (as compilers print it),
    so reports and SARIF locations do not depend on the machine."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def cmd_cpp(args: argparse.Namespace) -> int:
    from verifier.core.errors import LayoutError
    from verifier.oracle.cpp import parse_ranges, verify_cpp
    from verifier.oracle.symbolic import INCLUDE
    from verifier.run.files import write_atomic

    if args.print_include:
        print(INCLUDE)
        return 0
    include = None
    if args.cutlass:
        include = Path(args.cutlass)
        if not (include / "cute" / "layout.hpp").is_file():
            raise LayoutError(f"--cutlass {args.cutlass}: no cute/layout.hpp there")
    report = verify_cpp(args.target, parse_ranges(args.arg), args.assume, include, args.timeout, args.max_paths,
                        strict=args.strict)
    text = {"text": render_text, "json": render_json, "sarif": render_sarif}[args.format](report)
    if args.output:
        try:
            write_atomic(Path(args.output), text + "\n")
        except OSError as exc:
            raise LayoutError(f"--output {args.output}: {exc.strerror or exc}") from None
        print(f"{len(report.findings)} findings; exit status {report.exit_code}", file=sys.stderr)
    else:
        print(text)
    return report.exit_code


def _params(report: Report, values: dict[str, int]) -> str:
    names = [p.name for p in report.fn.params if p.symbolic is not None]
    return ", ".join(f"{n}={values[n]}" for n in names if n in values) or "any values"


def render_text(report: Report) -> str:
    from verifier.engine.verdicts import INVALID, UNKNOWN, VALID
    from verifier.oracle.cpp import can_implement

    lines = []
    src = report.fn.text.split("\n")
    for f in report.findings:
        v = f.verdict
        at = f"{shown(report.fn.path)}:{f.line}" if f.line else shown(report.fn.path)
        lines.append(f"{at}: {v.verdict}: {f.kind}: {f.what}" + (f": {v.reason}" if v.reason else ""))
        if f.line and 0 < f.line <= len(src):
            lines.append(f"  {f.line} | {src[f.line - 1].strip()}")
        c = v.counterexample
        if c is not None:
            text = f"  counterexample: {_params(report, dict(c.params))}"
            if c.coordinate is not None:
                text += f"; at coordinate {c.coordinate} expected {c.expected}, CuTe gives {c.actual}"
            lines.append(text + f" ({c.obligation}{'; ' + c.note if c.note else ''})")
        if v.guard is not None and v.verdict == INVALID:
            lines.append(f"  condition: {v.guard.condition}")
        for w in (v.warnings if v.verdict == VALID else ()):
            lines.append(f"  warning: {w.id} fails: {w.description}")
    guard = can_implement(report)
    if guard:
        lines.append("guards, as the function's can_implement:")
        lines.extend("  " + g for g in guard.split("\n"))
    lines.append("parameters: " + (", ".join(s.describe() for s in report.symbols) or "none"))
    if report.assumed:
        lines.append("assumed: " + "; ".join(report.assumed))
    # proved counts as valid and refuted as invalid (a property's verdicts): by each verdict's exit code
    n = {k: sum(1 for f in report.findings if f.verdict.exit_code == c) for k, c in ((VALID, 0), (INVALID, 1),
                                                                                     (UNKNOWN, 3))}
    lines.append(f"{len(report.findings)} findings in {report.fn.name} over {report.paths} path(s): "
                 f"{n[VALID]} valid, {n[INVALID]} invalid, {n[UNKNOWN]} unknown")
    return "\n".join(lines)


def render_json(report: Report) -> str:
    from verifier.oracle.cpp import can_implement

    return json.dumps({
        "tool": "cute-layout-verifier", "file": shown(report.fn.path), "function": report.fn.name,
        "parameters": [{"name": s.name, "lo": s.lo, "hi": s.hi, "multiple_of": s.multiple_of, "bits": s.bits}
                       for s in report.symbols],
        "assumed": list(report.assumed), "paths": report.paths, "runs": report.runs,
        "compile_cached": report.cached, "timings": report.timings,
        "findings": [{"line": f.line, "kind": f.kind, "call": f.what, "paths": f.paths, **f.verdict.to_json()}
                     for f in report.findings],
        "can_implement": can_implement(report),
        "exit_code": report.exit_code,
    }, indent=2)


def render_sarif(report: Report) -> str:
    """SARIF 2.1.0 through the spec runs' renderer: each finding a result at its line of the C++ file."""
    from verifier.engine.verdicts import PROVED, REFUTED, VALID
    from verifier.present.report import results_sarif
    from verifier.run.batch import CheckResult
    from verifier.run.spec import Check

    # what passes: proved for a property (its verdicts are proved / refuted), valid for the rest
    results = [CheckResult(Check(f"{report.fn.name}:{f.line} {f.what}", f.verdict.op, False, (f.what,),
                                 PROVED if f.verdict.verdict in (PROVED, REFUTED) else VALID, 0.0,
                                 shown(report.fn.path), f.line or 1),
                           f.verdict, False, 0.0) for f in report.findings]
    return results_sarif(results)
