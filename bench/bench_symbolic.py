"""Issue 25: the symbolic back end's costs (CuTe's headers run on ``cute_symbolic::Int``).

Reports the compile time of one translation unit (one case; cold, in a fresh cache, and cached), the time of one
symbolic run of it (one process, one query), the number of paths per operation over the selfcheck's corpus, and
the selfcheck's total time (cold cache and warm cache), on this machine (``nproc`` cores; the figures of
docs/architecture.md's back end 4 were taken on the 2-core machine shared with other jobs).

    python bench/bench_symbolic.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verifier.notation.cpp import parse  # noqa: E402
from verifier.oracle import cute_cpp, selfcheck, symbolic  # noqa: E402


def _timed(fn):  # noqa: ANN001, ANN202
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run(quick: bool) -> dict[str, object]:
    case = cute_cpp.operation_case("composition", parse("(M,N):(_1,M)"), parse("(K,_2):(_1,K)"),
                                   builder=symbolic.SymbolicBuilder)
    out: dict[str, object] = {"cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="cute-bench-sym-") as tmp:
        saved = os.environ.get("CUTE_VERIFY_CACHE")
        os.environ["CUTE_VERIFY_CACHE"] = tmp
        try:
            cold, binary = _timed(lambda: symbolic.build([case]))
            cached, _ = _timed(lambda: symbolic.build([case]))
            env = {"M": 300, "N": 70, "K": 3}
            runs = [_timed(lambda: symbolic.run(binary, [case], [(0, env)]))[0] for _ in range(3 if quick else 10)]
            ops = ["composition", "zipped_divide", "complement"] if quick else None
            total_cold, (findings, _) = _timed(lambda: selfcheck.selfcheck(ops))
            total_warm, _ = _timed(lambda: selfcheck.selfcheck(ops))
        finally:
            if saved is None:
                os.environ.pop("CUTE_VERIFY_CACHE", None)
            else:
                os.environ["CUTE_VERIFY_CACHE"] = saved
    paths: dict[str, list[int]] = defaultdict(list)
    for f in findings:
        paths[f.entry.op].append(f.paths)
    out.update({
        "compile_one_tu_cold_s": round(cold, 2), "compile_one_tu_cached_s": round(cached, 3),
        "one_symbolic_run_s": round(statistics.median(runs), 4),
        "paths_per_operation": {op: {"structures": len(v), "max": max(v), "total": sum(v)} for op, v in paths.items()},
        "selfcheck": {**{k: v for k, v in selfcheck.summary(findings).items() if k != "paths"},
                      "total_cold_s": round(total_cold, 1), "total_warm_s": round(total_warm, 1)},
    })
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="three operations only")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    figures = run(args.quick)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
