"""Benchmark: the Z3 engine against brute-force enumeration with the same model, in the same run.

Corpora: the parametric GEMM-style corpus (``oracle/data/parametric_cases.json``, symbolic ``M``, ``N``, ``K``) and
the all-dynamic variant of CUTLASS's own unit-test cases (``oracle/data/cutlass_unit_cases.json``).

For each case it reports whether the engine decided it (``valid`` / ``invalid``, not ``unknown``) and the time,
and times the baseline a user would otherwise reach for: enumerating every symbol value in ``1..RANGE`` and
evaluating the concrete postcondition at each (``engine.valid_at``, the same model), which covers only that range.
Output: the share decided, median and 95th-percentile time per check, and the ratio engine / enumeration.

    python bench/bench_engine.py [--range 64] [--timeout 10] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import admissible_points  # noqa: E402
from verifier.contracts.claims import TooLarge  # noqa: E402
from verifier.core.errors import LayoutError  # noqa: E402
from verifier.core.symbols import Symbols  # noqa: E402
from verifier.engine.decide import valid_at  # noqa: E402
from verifier.engine.verify import verify  # noqa: E402
from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS, PARAMETRIC_CORPUS, operands, problem  # noqa: E402


def _parametric(path: Path) -> list[tuple[str, str, list[object], Symbols]]:
    return [(e["id"], *problem(e)) for e in json.loads(path.read_text())]


def _unit_cases(path: Path) -> list[tuple[str, str, list[object], Symbols]]:
    out = []
    for case in json.loads(path.read_text()):
        if any("Sw<" in a or "@" in a for a in case["args"]):
            continue  # swizzled / scaled-basis operands: the engine answers unknown by design
        try:
            args = operands(case["args"], "dynamic")
        except LayoutError:
            continue
        out.append((f"{case['file']}:{case['line']}", case["op"], args, Symbols()))
    return out


def _enumerate(op: str, args: list[object], sy: Symbols, top: int, budget: float) -> tuple[float, int, bool]:
    """Time to enumerate every value in 1..top (within the assumptions); (seconds, points, finished)."""
    t0 = time.perf_counter()
    n = 0
    for env in admissible_points(sy, top):
        try:
            valid_at(op, args, env, limit=1 << 16)
        except TooLarge:
            pass
        n += 1
        if time.perf_counter() - t0 > budget:
            return time.perf_counter() - t0, n, False
    return time.perf_counter() - t0, n, True


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--range", type=int, default=64, help="enumeration baseline: symbol values 1..RANGE")
    ap.add_argument("--timeout", type=float, default=10.0, help="engine budget per check, seconds")
    ap.add_argument("--enum-budget", type=float, default=30.0, help="enumeration budget per case, seconds")
    ap.add_argument("--limit", type=int, default=0, help="only the first N cases of each corpus")
    ap.add_argument("--json", type=Path, help="write per-case results here")
    a = ap.parse_args()

    corpora = {
        "parametric": _parametric(PARAMETRIC_CORPUS),
        "cutlass-unit-dynamic": _unit_cases(CUTLASS_UNIT_CORPUS),
    }
    rows = []
    for name, cases in corpora.items():
        if a.limit:
            cases = cases[: a.limit]
        times, enum_times, decided, enum_done = [], [], 0, 0
        for cid, op, args, sy in cases:
            t0 = time.perf_counter()
            v = verify(op, args, sy, timeout=a.timeout, derive=False)
            dt = time.perf_counter() - t0
            et, points, finished = _enumerate(op, args, sy, a.range, a.enum_budget)
            times.append(dt)
            enum_times.append(et)
            decided += v.verdict != "unknown"
            enum_done += finished
            rows.append({"corpus": name, "case": cid, "op": op, "verdict": v.verdict, "engine_s": dt,
                         "enumeration_s": et, "enumeration_points": points, "enumeration_finished": finished})
        n = len(cases)
        print(f"{name}: {n} checks; decided {decided}/{n} = {100 * decided / max(1, n):.1f}%")
        print(f"  engine      : median {1000 * statistics.median(times):.1f} ms, "
              f"p95 {1000 * _pct(times, 0.95):.1f} ms, total {sum(times):.1f} s")
        print(f"  enumeration : median {1000 * statistics.median(enum_times):.1f} ms, "
              f"p95 {1000 * _pct(enum_times, 0.95):.1f} ms, total {sum(enum_times):.1f} s "
              f"(values 1..{a.range}; {enum_done}/{n} finished within {a.enum_budget:.0f} s)")
        print(f"  ratio engine/enumeration (total time): {sum(times) / max(1e-9, sum(enum_times)):.3f}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
