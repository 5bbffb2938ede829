"""``cute-verify run FILE... [--format text|json|sarif|junit] [--jobs N] [--shard I/N] [--output F] [--no-cache]``.

Loads every spec file first (any error: one line naming file, line and key, exit 2, nothing run), runs the checks
of the selected shard, in ``--jobs`` processes, through the result cache, and renders the results (``report.py``)
to stdout or atomically to ``--output``.  Exit status 0 when every verdict is the expected one, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cli.args import timeout_arg

if TYPE_CHECKING:
    from verifier.core.symbols import Symbols
    from verifier.run.batch import CheckResult
    from verifier.run.spec import Check


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("run", help="run the checks of spec files (*.cute.toml)",
                       description="Run the checks of spec files and compare each verdict with the expected one.",
                       epilog="example: cute-verify run examples/gemm.cute.toml --format sarif -o layouts.sarif\n"
                              "         cute-verify run kernels/          (every *.cute.toml below kernels/)\n\n"
                              "exit status: 0 every verdict as expected, 1 not, 2 bad input (a spec file error names "
                              "its file, line and key), 4 internal error",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("files", nargs="+", metavar="PATH",
                   help="spec files, or folders searched for *.cute.toml, e.g. examples/gemm.cute.toml")
    r.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text", help="report format")
    r.add_argument("--json", action="store_true", help="the same as --format json")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a value for a symbol, in every check that uses it")
    r.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="an assumption added to every check that uses its symbols, e.g. 'M <= 4096'")
    r.add_argument("--timeout", type=timeout_arg, metavar="S",
                   help="the time budget of every check, in seconds (default: the spec file's)")
    r.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="decide checks in N processes (default: the number of cores; -j 1 decides in this process)")
    r.add_argument("--shard", metavar="I/N", help="run only shard I of N (1-based; check k goes to shard k %% N + 1)")
    r.add_argument("-o", "--output", metavar="F",
                   help="write the report to F (atomically; a regular file or a new one); - is stdout")
    r.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    r.add_argument("--include-root", action="append", default=[], metavar="DIR",
                   help="also allow includes below DIR (default: only below the including file's folder)")
    r.set_defaults(func=cmd_run, own_quiet=True)


def cmd_run(args: argparse.Namespace) -> int:
    from verifier.core.errors import LayoutError
    from verifier.present.report import render_results, summary_line
    from verifier.run import batch, spec
    from verifier.run.files import check_output, write_output

    jobs = batch.default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise LayoutError(f"--jobs must be at least 1, got {jobs}")
    if args.output:
        check_output(args.output)
    fmt = "json" if args.json else args.format
    checks = spec.load(discover(args.files), args.include_root)
    checks = _with_options(checks, args)
    if args.shard:
        checks = batch.shard(checks, *batch.parse_shard(args.shard))
    start = time.monotonic()
    # Text to standard output streams: each check's lines as soon as it and the checks before it are decided.
    stream = fmt == "text" and (not args.output or args.output == "-")
    if any(c.cpp is not None for c in checks):
        import verifier.oracle.cpp  # noqa: F401  (registers the cpp front end with run/batch.py)
    results = batch.run(checks, jobs=jobs, cache=None if args.no_cache else batch.ResultCache(),
                        progress=not args.quiet, on_result=_printer(args) if stream else None)
    seconds = time.monotonic() - start
    if stream:
        from verifier.cli.common import emit

        if args.verbose:
            emit(args, _verbose_text(results))
        emit(args, summary_line(results, seconds))
        return 0 if all(r.matched for r in results) else 1
    text = render_results(results, fmt, seconds)
    if fmt == "text" and args.quiet:  # the checks not as expected, and the summary
        text = "\n".join(line for line in text.splitlines() if not line.startswith(("ok ", "   ")))
    if fmt == "text" and args.verbose:
        text += "\n" + _verbose_text(results)
    if args.output and args.output != "-":
        write_output(args.output, text + "\n")
        print(summary_line(results, seconds), file=sys.stderr)
    else:
        from verifier.cli.common import emit

        emit(args, text, json_output=fmt != "text")
    return 0 if all(r.matched for r in results) else 1


def _printer(args: argparse.Namespace) -> Callable[[CheckResult], None]:
    """Prints a check's lines as it is decided (``-q``: only a check not as expected)."""
    from verifier.cli.common import emit
    from verifier.present.report import result_text

    def show(r: CheckResult) -> None:
        if args.quiet and r.matched:
            return
        emit(args, "\n".join(result_text(r)))
        sys.stdout.flush()

    return show


def _verbose_text(results: list[CheckResult]) -> str:
    """``-v``: every check's verdict in full."""
    from verifier.present.report import to_text

    return "\n".join(f"--- {r.check.file}:{r.check.line} {r.check.name}\n{to_text(r.verdict, verbose=True)}"
                     for r in results)


def discover(paths: list[str]) -> list[str]:
    """Files as given; a folder stands for every ``*.cute.toml`` below it (sorted, hidden folders skipped)."""
    from verifier.core.errors import LayoutError

    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(f for f in path.rglob("*.cute.toml")
                           if not any(part.startswith(".") for part in f.relative_to(path).parts))
            if not found:
                raise LayoutError(f"{p}: no *.cute.toml below this folder")
            out += [str(f) for f in found]
        else:
            out.append(p)
    return out


def _with_options(checks: list[Check], args: argparse.Namespace) -> list[Check]:
    """``--param``, ``--assume`` and ``--timeout`` applied to every check they concern (a check's own ``params``
    win over ``--param``)."""
    import dataclasses

    from verifier.cli.args import params
    from verifier.core.errors import LayoutError
    from verifier.notation.cpp import parse_relation

    values = params(args.param)
    if not (values or args.assume or args.timeout):
        return checks
    out = []
    for c in checks:
        _, table = c.problem()
        used = set(table.table)
        declared = {s.name for s in c.symbols}
        for name in values:
            if name not in declared:
                raise LayoutError(f"--param {name}: no spec file of {c.file} declares a symbol {name}")
        extra = []
        for text in args.assume:
            try:
                names = set(parse_relation(text, _strict(c)).expr.symbols())
            except LayoutError as exc:
                raise LayoutError(f"--assume {text!r}: {exc} (in {c.file})") from None
            if names & used:
                extra.append(text)
        mine = dict(c.params)
        new_params = tuple({**{k: v for k, v in values.items() if k in used}, **mine}.items())
        c = dataclasses.replace(c, params=new_params, assume=(*c.assume, *extra),
                                timeout=args.timeout or c.timeout)
        try:
            c.problem()
        except LayoutError as exc:
            raise LayoutError(f"{c.file}:{c.line}: check {c.name!r} with the command line's options: {exc}") \
                from None
        out.append(c)
    return out


def _strict(c: Check) -> Symbols:
    from verifier.core.symbols import Symbols

    table = Symbols(strict=True)
    for s in c.symbols:
        table.table[s.name] = s
    return table
