"""Parametric verdict latency: ``verify`` with its defaults (guard derivation included) on every case of
``oracle/data/parametric_cases.json``, in process; median and 95th percentile for valid and for invalid verdicts
separately (an invalid verdict includes its counterexample and the guard search).

    python bench/bench_verdicts.py [--quick]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import Config, Table, fmt_time, section_main  # noqa: E402
from verifier.engine.verify import verify  # noqa: E402
from verifier.oracle.corpora import PARAMETRIC_CORPUS, problem  # noqa: E402

BEFORE = {"valid": "23–33 ms", "invalid": "0.27–0.8 s (most of it the guard search)"}
THREE_D = ("zipped_divide", ["(M,N,K):(_1,M,M*N)", "<_128,_128,_32>"])


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def run(cfg: Config) -> Table:
    t = Table("7. Parametric verdicts: latency by verdict (verify with its defaults, in process)",
              ["verdict", "cases", "median", "95th percentile", "max", "before (issue 16)"])
    corpus = json.loads(PARAMETRIC_CORPUS.read_text())
    if cfg.quick:
        corpus = corpus[:8]
    times: dict[str, list[float]] = {}
    no_guard: list[str] = []
    for e in corpus:
        op, args, sy = problem(e)
        t0 = time.perf_counter()
        v = verify(op, args, sy)
        times.setdefault(v.verdict, []).append(time.perf_counter() - t0)
        if v.verdict == "invalid" and v.guard is None and v.guard_note and "budget" in v.guard_note:
            no_guard.append(e["id"])
    for verdict in ("valid", "invalid", "unknown"):
        xs = times.get(verdict, [])
        if not xs:
            continue
        t.add(verdict, len(xs), fmt_time(statistics.median(xs)), fmt_time(_p95(xs)), fmt_time(max(xs)),
              BEFORE.get(verdict, "-"))
        t.data[verdict] = {"median": statistics.median(xs), "p95": _p95(xs), "n": len(xs)}
    from verifier.core.symbols import Symbols
    from verifier.notation.cpp import parse, parse_tile

    sy3 = Symbols()
    for name in "MNK":
        sy3.declare(name)
    args3 = [parse(THREE_D[1][0], sy3), parse_tile(THREE_D[1][1], sy3)]
    t0 = time.perf_counter()
    v3 = verify(THREE_D[0], args3, sy3)
    dt = time.perf_counter() - t0
    guard = v3.guard.condition if v3.guard else f"none ({v3.guard_note})"
    t.add(f"{THREE_D[0]}{tuple(THREE_D[1])} (3-D tiling)", 1, fmt_time(dt), "-", "-",
          "no guard within the default 10 s; 31.6 s with --timeout 60")
    t.data["three_d"] = {"seconds": dt, "guard": guard}
    t.notes.append(f"The 3-D tiling's guard: {guard}.")
    t.notes.append("Budgets are Z3 resource units (default 10,000,000 per verdict; the guard search at most half of "
                   "that again), so these verdicts are the same on a loaded machine; the times are not.")
    if no_guard:
        t.losses.append(f"no guard found within the budget for {len(no_guard)} invalid case(s): {', '.join(no_guard)}")
    return t


if __name__ == "__main__":
    sys.exit(section_main(run, __doc__))
