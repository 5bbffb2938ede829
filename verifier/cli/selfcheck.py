"""``cute-verify selfcheck [--cutlass PATH] [OP...]``: the model proved equal to CuTe's own headers, run on
symbolic run-time integers (``oracle/selfcheck.py``), over the registry's operations and the operand corpus.

Exit status: 0 every operand structure proved equal, 1 a disagreement (with its path, leaf and replayed witness),
3 some unknown (with the reason), 2 bad input (an unknown operation, a folder without ``cute/layout.hpp``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from verifier.cli.args import UsageError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("selfcheck", help="prove the model equal to CuTe's own headers run on symbolic integers",
                       description="For every registry operation (or the OPs named) and a corpus of operand "
                                   "structures, run CuTe's headers on symbolic run-time integers, explore every "
                                   "path, and prove with Z3 that the model computes the same result and the "
                                   "same undefined behaviour on each.")
    p.add_argument("ops", nargs="*", metavar="OP", help="operations to check (default: all with a C++ call)")
    p.add_argument("--cutlass", metavar="PATH",
                   help="a CUTLASS include folder (holding cute/layout.hpp) instead of the installed 4.2 headers")
    p.add_argument("--max-paths", type=int, default=32, metavar="N",
                   help="paths explored per operand structure before it is unknown (default 32)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.set_defaults(func=cmd_selfcheck)


def cmd_selfcheck(args: argparse.Namespace) -> int:
    from verifier.algebra.registry import REGISTRY

    unknown_ops = [op for op in args.ops if op not in REGISTRY]
    if unknown_ops:
        raise UsageError(f"unknown operation {unknown_ops[0]!r}; known: {', '.join(sorted(REGISTRY))}")
    if args.max_paths < 1:
        raise UsageError("--max-paths must be at least 1")
    if args.cutlass is not None:
        folder = Path(args.cutlass)
        if (folder / "include" / "cute" / "layout.hpp").is_file():
            folder = folder / "include"
        if not (folder / "cute" / "layout.hpp").is_file():
            raise UsageError(f"--cutlass {args.cutlass}: no cute/layout.hpp there (nor under include/)")
        os.environ["CUTE_INCLUDE"] = str(folder.resolve())  # cute_cpp.cute_include reads it; the cache keys on it
    from verifier.oracle.selfcheck import report, selfcheck

    findings, skipped = selfcheck(args.ops or None, max_paths=args.max_paths)
    text = report(findings, skipped, as_json=args.format == "json")
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    if any(f.status == "disagrees" for f in findings):
        return 1
    return 3 if any(f.status != "proved" for f in findings) else 0
