"""The long run: ``python -m verifier.oracle.adversarial [--family F]... [--cases N] [--seed S]``."""

from __future__ import annotations

import argparse
import sys
import time

from verifier.oracle.adversarial import FAMILIES, family


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verifier.oracle.adversarial",
                                     description="Adversarial generators judged against compiled CuTe.")
    parser.add_argument("--family", action="append", choices=FAMILIES, help="a family to run (default: all)")
    parser.add_argument("--cases", type=int, default=1000, help="cases per family (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    bad = 0
    total = 0
    start = time.monotonic()
    for name in args.family or FAMILIES:
        report = family(name)(args.cases, args.seed)
        total += report.cases
        print(report.line(), flush=True)
        for d in report.disagreements:
            bad += 1
            print(f"  {d.case}\n    tool: {d.tool}\n    CuTe: {d.cute}", flush=True)
    print(f"total: {total} cases, {bad} disagreements, {time.monotonic() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
