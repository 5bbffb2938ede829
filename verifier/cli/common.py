"""What the commands share: building a problem from the command line, the budget and severity options, and the
one place output is written (``emit``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from verifier.cli.args import params, timeout_arg
from verifier.core.symbols import Symbols
from verifier.solver.budget import DEFAULT_RLIMIT, DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from verifier.engine.verdicts import Policy


def problem_from(args: argparse.Namespace, op: str, prop: bool = False) -> tuple[list[object], Symbols]:
    from verifier.run.problems import build

    if getattr(args, "format", None) == "json":
        args.json = True
    symbols = Symbols()
    operands = build(op, args.args, symbols, args.assume, params(args.param, anonymous=True), prop=prop,
                     dsl=getattr(args, "dsl", False), declarations=getattr(args, "symbol", ()))
    return operands, symbols


def emit(args: argparse.Namespace, text: str, json_output: bool | None = None) -> None:
    """Print a command's report, coloured where ``--color`` says (never in JSON); ``-q`` is ``app._run``'s."""
    from verifier.cli.conventions import paint, use_color

    if json_output is None:
        json_output = bool(getattr(args, "json", False))
    print(text if json_output else paint(text, use_color(getattr(args, "color", "never"))))


def policy_from(args: argparse.Namespace) -> Policy:
    from verifier.engine.verdicts import Policy

    return Policy.parse(args.strict, args.select, args.ignore)


def add_budget_options(p: argparse.ArgumentParser, rlimit: int = DEFAULT_RLIMIT,
                       timeout: float = DEFAULT_TIMEOUT) -> None:
    p.add_argument("--rlimit", type=_rlimit_arg, default=None, metavar="N",
                   help=f"the solver's budget in Z3 resource units, the same on any machine load (default {rlimit:,})")
    p.add_argument("--timeout", type=timeout_arg, default=timeout, metavar="S",
                   help=f"wall-clock safety net in seconds, reported as such when it fires (default {timeout:g})")


def _rlimit_arg(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of Z3 resource units, got {text!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {n}")
    return n
