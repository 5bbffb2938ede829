"""``cute-verify prove [PATH...] [--rlimit N] [--timeout S] [--json] [--write-docs FILE]``: run a library of theorems.

Each PATH is a Python file defining ``THEOREMS`` (a list of ``verifier.theorems.Theorem``) or a folder of them;
the default is the repository's ``proofs/``.  Prints one row per theorem (theorem, domain, expected, verdict, time,
strategy), or a JSON list with ``--json``; ``--write-docs`` also writes the Markdown report atomically.
Exit status: 0 when every theorem gets its expected verdict, 1 otherwise, 2 on bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cli.common import add_budget_options
from verifier.core.errors import LayoutError
from verifier.run.files import check_output, write_output
from verifier.solver.budget import DEFAULT_RLIMIT

if TYPE_CHECKING:
    from verifier.run.theorems import Theorem

DEFAULT_PATH = Path(__file__).resolve().parent.parent.parent / "proofs"


def cmd_prove(args: argparse.Namespace) -> int:
    from verifier.present.report import proofs_markdown, proofs_table
    from verifier.run.theorems import DEFAULT_RLIMIT, load

    if args.write_docs:
        check_output(args.write_docs, "--write-docs")
    paths = args.paths or [DEFAULT_PATH]
    theorems = load(paths)
    if not theorems:
        raise LayoutError(f"no theorems in {', '.join(map(str, paths))}")
    theorems = _narrowed(theorems, args)
    from verifier.run.status import progress

    rlimit = args.rlimit or DEFAULT_RLIMIT
    results = [t.run(args.timeout, rlimit) for t in progress(theorems, len(theorems), not args.quiet,
                                                             lambda t: t.name)]
    if args.write_docs:
        write_output(args.write_docs, proofs_markdown(results), "--write-docs")
    from verifier.cli.common import emit

    text = json.dumps([r.to_json() for r in results]) if args.json else proofs_table(results)
    emit(args, text)
    return 0 if all(r.ok for r in results) else 1


def _narrowed(theorems: list[Theorem], args: argparse.Namespace) -> list[Theorem]:
    """``--param NAME=VALUE`` and ``--assume EXPR`` added to the assumptions of every theorem that declares the
    symbols they name (a theorem is then decided at that value / under that relation)."""
    import dataclasses
    import re

    from verifier.cli.args import params

    values = params(args.param)
    if not values and not args.assume:
        return theorems
    out = []
    for t in theorems:
        names = set(t.declared())
        extra = [f"{k} == {v}" for k, v in values.items() if k in names]
        extra += [a for a in args.assume if set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", a)) - _FUNCTIONS <= names]
        out.append(dataclasses.replace(t, assume=[*t.assume, *extra]) if extra else t)
    return out


_FUNCTIONS = {"min", "max", "abs", "signum", "gcd", "lcm"}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("prove", help="run a library of theorems (default: proofs/) and check their verdicts")
    p.add_argument("paths", nargs="*", metavar="PATH", help="theorem files (.py) or folders of them")
    add_budget_options(p, 2 * DEFAULT_RLIMIT, 120.0)
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per theorem")
    p.add_argument("--write-docs", metavar="FILE", help="also write the Markdown report, e.g. docs/proofs.md")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="decide every theorem that declares NAME at this value")
    p.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="an assumption added to every theorem that declares its symbols")
    p.set_defaults(func=cmd_prove, own_quiet=True)
