"""``cute-verify rule ID``: what an obligation id means, its severity and how to fix it (as ``ruff rule``).

The text comes from the catalogue (``core/obligations.py``: ``ERRORS`` / ``WARNINGS`` with the CuTe source that
justifies the severity, and ``FIXES``); ``cute-verify rule --all`` lists every id.
"""

from __future__ import annotations

import argparse
import json

from verifier.cli.args import UsageError
from verifier.cli.common import emit
from verifier.core.errors import did_you_mean
from verifier.core.obligations import ERRORS, KNOWN, WARNINGS, fix, severity


def describe(id: str) -> dict[str, str]:
    """The catalogue's entry for ``id``."""
    return {"id": id, "severity": severity(id), "meaning": WARNINGS.get(id) or ERRORS[id], "fix": fix(id)}


def cmd_rule(args: argparse.Namespace) -> int:
    if args.all:
        entries = [describe(i) for i in sorted(KNOWN)]
        text = "\n".join(f"{e['id']:<18} {e['severity']:<8} {e['meaning']}" for e in entries)
        emit(args, json.dumps(entries, indent=2) if args.json else text)
        return 0
    if args.id is None:
        raise UsageError("give an obligation id (e.g. DIV-EXACT) or --all")
    id = args.id.upper()
    if id not in KNOWN:
        raise UsageError(f"no obligation {args.id!r}{did_you_mean(id, KNOWN)}; cute-verify rule --all lists them")
    e = describe(id)
    text = f"{e['id']} ({e['severity']})\n\nWhat it means: {e['meaning']}\n\nHow to fix it: {e['fix']}"
    emit(args, json.dumps(e, indent=2) if args.json else text)
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("rule", help="explain an obligation id: what it means, its severity, how to fix it",
                       description="What an obligation id (DIV-EXACT, CMP-2, OVF-ARITH, ...) means, the CuTe line "
                                   "behind it, its severity and how to fix it.",
                       epilog="example: cute-verify rule DIV-EXACT\n\nexit status: 0, or 2 for an unknown id",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("id", nargs="?", help="an obligation id, as verdicts print it")
    r.add_argument("--all", action="store_true", help="list every id with its severity")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.set_defaults(func=cmd_rule)


__all__ = ["add_parser", "cmd_rule", "describe"]
