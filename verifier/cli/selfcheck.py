"""``cute-verify selfcheck [--cutlass PATH] [OP...]``: the model proved equal to CuTe's own headers, run on
symbolic run-time integers (``oracle/selfcheck.py``), over the registry's operations and the operand corpus.

Exit status: 0 every operand structure proved equal, 1 a disagreement (with its path, leaf and replayed witness),
3 some unknown (with the reason), 2 bad input (an unknown operation, a folder without ``cute/layout.hpp``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cli.args import UsageError

if TYPE_CHECKING:  # hypothesis and the oracle load on first use
    from hypothesis.strategies import SearchStrategy

    from verifier.oracle.selfcheck import Entry


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("selfcheck", help="prove the model equal to CuTe's own headers run on symbolic integers",
                       description="For every registry operation (or the OPs named) and a corpus of operand "
                                   "structures, run CuTe's headers on symbolic run-time integers, explore every "
                                   "path, and prove with Z3 that the model computes the same result and the "
                                   "same undefined behaviour on each.")
    p.add_argument("ops", nargs="*", metavar="OP",
                   help="operations to check (default: all, the TiledMMA / TiledCopy builders (tiled) and the MMA / "
                        "copy atoms (atoms))")
    p.add_argument("--cutlass", metavar="PATH",
                   help="a CUTLASS include folder (holding cute/layout.hpp) instead of the installed 4.2 headers")
    p.add_argument("--max-paths", type=int, default=32, metavar="N",
                   help="paths explored per operand structure before it is unknown (default 32)")
    p.add_argument("--drawn", type=int, default=4, metavar="N",
                   help="also N operand structures per operation drawn by verifier.strategies (symbolic leaves; "
                        "derandomised, so the corpus is the same on every run; default 4, 0 for none)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.set_defaults(func=cmd_selfcheck)


# The operations drawn operands are made for, with what each takes after the layout: a tiler, a second layout, or
# nothing.
DRAWN = {"composition": "layout", "logical_divide": "tiler", "zipped_divide": "tiler", "tiled_divide": "tiler",
         "logical_product": "layout", "blocked_product": "layout", "coalesce": "", "complement": "",
         "right_inverse": "", "left_inverse": "", "filter": "", "max_common_vector": "same"}


def drawn(ops: list[str] | None, per_op: int) -> list[Entry]:
    """``per_op`` operand structures for each operation of ``DRAWN`` (of ``ops``) drawn by verifier.strategies,
    with symbolic leaves over M, N in [1, 64]; derandomised (the same corpus on every run)."""
    from hypothesis import strategies as st

    from verifier.core.symbols import Symbols
    from verifier.oracle.selfcheck import Entry
    from verifier.strategies import layouts, tilers

    out: list[Entry] = []
    for op, second in DRAWN.items():
        if ops is not None and op not in ops:
            continue
        symbols = Symbols()
        for name in ("M", "N"):
            symbols.declare(name, hi=64)
        first = layouts(rank=(1, 2), depth=1, max_extent=4, symbols=symbols,
                        injective=True if op in ("complement", "right_inverse", "left_inverse") else None)
        other = {"layout": layouts(rank=(1, 2), depth=1, max_extent=4, symbols=symbols, injective=True),
                 "tiler": tilers(rank=(1, 2), max_extent=4, static=True, underscore=False)}.get(second)
        pairs: SearchStrategy[tuple[object, ...]]
        if second == "same":
            pairs = first.map(lambda a: (a, a))
        elif other is None:
            pairs = first.map(lambda a: (a,))
        else:
            pairs = st.tuples(first, other)
        found = _draw(pairs, per_op)
        for operands in found[:per_op]:
            out.append(Entry(op, tuple(str(o) for o in operands), (), "drawn by verifier.strategies", operands,
                             symbols))
    return out


def _draw(strategy: SearchStrategy[tuple[object, ...]], n: int) -> list[tuple[object, ...]]:
    """The first ``n`` examples hypothesis draws from ``strategy``, derandomised."""
    from hypothesis import HealthCheck, Phase, given, settings

    found: list[tuple[object, ...]] = []

    @settings(derandomize=True, max_examples=n, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(strategy)
    def collect(x: tuple[object, ...]) -> None:
        found.append(x)

    collect()
    return found


def cmd_selfcheck(args: argparse.Namespace) -> int:
    from verifier.algebra.registry import REGISTRY
    from verifier.oracle.selfcheck import ATOMS, TILED

    unknown_ops = [op for op in args.ops if op not in REGISTRY and op not in (ATOMS, TILED)]
    if unknown_ops:
        raise UsageError(f"unknown operation {unknown_ops[0]!r}; known: {', '.join(sorted(REGISTRY))}, "
                         f"{TILED} (the TiledMMA / TiledCopy builders), {ATOMS} (the MMA / copy atoms)")
    if args.max_paths < 1:
        raise UsageError("--max-paths must be at least 1")
    if args.cutlass is not None:
        folder = Path(args.cutlass)
        if (folder / "include" / "cute" / "layout.hpp").is_file():
            folder = folder / "include"
        if not (folder / "cute" / "layout.hpp").is_file():
            raise UsageError(f"--cutlass {args.cutlass}: no cute/layout.hpp there (nor under include/)")
        os.environ["CUTE_INCLUDE"] = str(folder.resolve())  # cute_cpp.cute_include reads it; the cache keys on it
    from verifier.oracle.selfcheck import corpus, report, selfcheck

    entries, skipped = corpus(args.ops or None)
    if args.drawn > 0:
        entries += drawn(args.ops or None, args.drawn)
    findings, _ = selfcheck(max_paths=args.max_paths, entries=entries, atoms=not args.ops or ATOMS in args.ops)
    text = report(findings, skipped, as_json=args.format == "json")
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    if any(f.status == "disagrees" for f in findings):
        return 1
    return 3 if any(f.status != "proved" for f in findings) else 0
