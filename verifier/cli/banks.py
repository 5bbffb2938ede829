"""``cute-verify bank_conflicts`` and the options of ``cute-verify check conflict_free`` (banks.py).

* ``cute-verify check conflict_free SMEM ACCESS --element-bits B --access-bits W [--offset EXPR] [--assume ...]
  [--json]``: proved when every phase of the access takes one wavefront, for every admitted value of the symbols
  (a stage index in ``--offset`` included), or refuted with the two colliding threads, their byte addresses, words
  and bank.
* ``cute-verify bank_conflicts SMEM ACCESS --element-bits B --access-bits W [--offset N] [--param NAME=VALUE]...
  [--json]``: the wavefronts of each phase, counted on concrete values, with the worst bank's words.

``SMEM`` maps a tile coordinate to an element offset (``Sw<3,3,3> o _0 o (_8,_64):(_64,_1)``); ``ACCESS`` maps the
thread index of one instruction to the 1-D tile coordinate of its first element (``8:_1``: thread t reads row t).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from verifier.core.errors import LayoutError
from verifier.notation.cpp import parse_offset

if TYPE_CHECKING:
    from verifier.core.symbols import Symbols


def check_options(args: argparse.Namespace, symbols: Symbols) -> dict[str, Any]:
    """The options of ``check conflict_free`` from the command line (bad input: a one-line LayoutError)."""
    from verifier.engine.banks import AccessModel

    if args.element_bits is None or args.access_bits is None:
        raise LayoutError("check conflict_free needs --element-bits B and --access-bits W")
    AccessModel(args.element_bits, args.access_bits)
    out: dict[str, Any] = {"element_bits": args.element_bits, "access_bits": args.access_bits}
    if args.offset is not None:
        out["offset"] = parse_offset(args.offset, symbols)
    return out


def cmd_check_conflict_free(args: argparse.Namespace) -> int:
    """``check conflict_free``: the symbols that only ``--offset`` names (a stage or k-block index) are indices,
    ``0 <= s``, unless an assumption narrows them; the others are as everywhere (``1 <= M``)."""
    from verifier.cli.args import params as _params
    from verifier.cli.common import policy_from
    from verifier.core.symbols import Symbols
    from verifier.engine.problem import Property, decide
    from verifier.present.report import to_json, to_text
    from verifier.run.problems import build

    symbols = Symbols()
    if args.offset is not None:
        for name in index_names(args.offset, [args.args[0], args.args[1]] if len(args.args) >= 2 else args.args):
            symbols.declare(name)
            symbols.index_default(name)
    operands = build("conflict_free", args.args, symbols, args.assume, _params(args.param), prop=True,
                     declarations=args.symbol)
    options = check_options(args, symbols)
    v = decide(Property("conflict_free", tuple(operands), symbols, tuple(options.items()), policy_from(args),
                        args.timeout))
    print(to_json(v) if args.json else to_text(v, verbose=args.verbose))
    return v.exit_code


def index_names(offset: str, others: list[str]) -> list[str]:
    """Names in ``offset`` that no operand mentions."""
    import re

    words = set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", offset)) - {"min", "max", "abs", "gcd", "lcm", "signum"}
    used = set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", " ".join(others)))
    return sorted(words - used)


def cmd_bank_conflicts(args: argparse.Namespace) -> int:
    from verifier.cli.args import params as _params
    from verifier.core.symbols import Symbols
    from verifier.engine.banks import AccessModel
    from verifier.engine.problem import BankConflicts, decide
    from verifier.run.problems import build

    model = AccessModel(args.element_bits, args.access_bits)
    symbols = Symbols()
    if args.offset is not None:
        for name in index_names(args.offset, [args.smem, args.access]):
            symbols.declare(name)
            symbols.index_default(name)
    smem, access = build("conflict_free", [args.smem, args.access], symbols, (), _params(args.param), prop=True)
    offset = 0
    if args.offset is not None:
        off = parse_offset(args.offset, symbols)
        from verifier.core.integers import substitute

        off = substitute(off, _params(args.param))
        if not off.concrete:
            raise LayoutError("bank_conflicts counts concrete patterns: give --param NAME=VALUE for every symbol")
        offset = int(off)
    v = decide(BankConflicts(smem, access, model, offset))  # type: ignore[arg-type]
    phases = v.detail
    assert isinstance(phases, tuple)  # the counted phases (banks.Phase)
    worst = max((p.wavefronts for p in phases), default=0)
    if args.json:
        print(json.dumps({"smem": args.smem, "access": args.access, "model": model.describe(),
                          "phases": [{"phase": p.index, "threads": [p.first_thread, p.last_thread],
                                      "wavefronts": p.wavefronts, "bank": p.bank,
                                      "words": [{"thread": t, "address": a} for t, a in p.words]}
                                     for p in phases],
                          "max_wavefronts": worst, "conflict_free": worst <= 1}))
        return 0
    print(f"bank_conflicts({args.smem}, {args.access}): {model.describe()}")
    print("phase  threads  wavefronts  worst bank: (thread, byte address) per distinct word")
    for p in phases:
        words = ", ".join(f"({t}, {a})" for t, a in p.words) if p.wavefronts > 1 else "-"
        print(f"{p.index:<6} {p.first_thread:>3}-{p.last_thread:<4} {p.wavefronts:<11} "
              f"{'' if p.wavefronts <= 1 else f'bank {p.bank}: '}{words}")
    print("conflict-free" if worst <= 1 else f"{worst}-way bank conflict")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    b = sub.add_parser("bank_conflicts", help="wavefronts per phase of a shared-memory access pattern")
    b.add_argument("smem", help="tile coordinate -> element offset, e.g. 'Sw<3,3,3> o _0 o (_8,_64):(_64,_1)'")
    b.add_argument("access", help="thread -> 1-D tile coordinate of its first element, e.g. '8:_1'")
    b.add_argument("--element-bits", type=int, required=True, metavar="B")
    b.add_argument("--access-bits", type=int, required=True, metavar="W")
    b.add_argument("--offset", default=None, metavar="EXPR")
    b.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bank_conflicts)


__all__ = ["add_parser", "check_options", "cmd_bank_conflicts", "cmd_check_conflict_free"]
