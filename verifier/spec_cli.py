"""``cute-verify run FILE... [--format text|json|sarif|junit] [--jobs N] [--shard I/N] [--output F] [--no-cache]``.

Loads every spec file first (any error: one line naming file, line and key, exit 2, nothing run), runs the checks
of the selected shard, in ``--jobs`` processes, through the result cache, and renders the results (``report.py``)
to stdout or atomically to ``--output``.  Exit status 0 when every verdict is the expected one, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("run", help="run the checks of spec files (*.cute.toml)")
    r.add_argument("files", nargs="+", metavar="FILE", help="spec files, e.g. examples/gemm.cute.toml")
    r.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text", help="report format")
    r.add_argument("--jobs", type=int, default=1, metavar="N", help="decide checks in N processes (default 1)")
    r.add_argument("--shard", metavar="I/N", help="run only shard I of N (1-based; check k goes to shard k %% N + 1)")
    r.add_argument("-o", "--output", metavar="F",
                   help="write the report to F (atomically; a regular file or a new one); - is stdout")
    r.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    r.add_argument("--include-root", action="append", default=[], metavar="DIR",
                   help="also allow includes below DIR (default: only below the including file's folder)")
    r.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from . import batch, spec
    from .errors import LayoutError
    from .files import check_output, write_output
    from .report import render_results, summary_line

    if args.jobs < 1:
        raise LayoutError(f"--jobs must be at least 1, got {args.jobs}")
    if args.output:
        check_output(args.output)
    checks = spec.load(args.files, args.include_root)
    if args.shard:
        checks = batch.shard(checks, *batch.parse_shard(args.shard))
    start = time.monotonic()
    results = batch.run(checks, jobs=args.jobs, cache=None if args.no_cache else batch.ResultCache())
    seconds = time.monotonic() - start
    text = render_results(results, args.format, seconds)
    if args.output and args.output != "-":
        write_output(args.output, text + "\n")
        print(summary_line(results, seconds), file=sys.stderr)
    else:
        print(text)
    return 0 if all(r.matched for r in results) else 1
