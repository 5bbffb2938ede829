"""The library sweep's engine (verifier/library/distribute.py) measured: keys/s with 1, 2, 4, ... workers on one
workload, the engine's start-up, its cost per task, each worker's peak memory, and the cache-hit run.

    python bench/bench_library.py [--workers 1,2,4,16] [--engine dask|local] [--repeat R] [--limit N]
                                  [--items MODULE:NAME --fn MODULE:NAME] [--overhead N] [--json OUT]

The default workload is the engine's ``verify`` (with its guard) on every parametric corpus case
(``tests/support/library_work.py``: 94 cases, 0.01-2 s each), repeated ``--repeat`` times under distinct keys so that
many workers have enough keys; ``--items``/``--fn`` name any other workload (a function returning the keyed payloads,
and the pure function of a payload), such as the library's own keys and ``verify_key``:

    LIBRARY_KERNELS=all python bench/bench_library.py --items tests.support.library_work:library_items \
        --fn verifier.library.verify:verify_key --limit 64 --workers 1,4,16  Each worker count
runs on a fresh store; then the same sweep again on the full store (the cache-hit run: nothing is computed).
``--overhead N``: N tasks that do nothing, on each engine with 2 workers, for the engine's own cost per task.

Every figure is one run (a sweep is long enough that its rate is stable); nothing here is asserted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.library.distribute import ResultStore, Sweep, sweep  # noqa: E402
from verifier.run.batch import default_jobs  # noqa: E402


def _named(text: str) -> Any:
    module, _, name = text.partition(":")
    return getattr(importlib.import_module(module), name)


def _default_workers() -> list[int]:
    n, out = default_jobs(), []
    w = 1
    while w < n:
        out.append(w)
        w *= 2
    return [*out, n]


def _run(items: Mapping[str, Any], fn: Callable[[Any], dict[str, Any]], engine: str, workers: int,
         folder: Path) -> dict[str, Any]:
    path = folder / f"store-{engine}-{workers}.jsonl"
    t0 = time.monotonic()
    with ResultStore(path, "bench", "bench") as store:
        out: Sweep = sweep(items, fn, store, engine=engine, workers=workers)
    wall = time.monotonic() - t0
    t1 = time.monotonic()
    with ResultStore(path, "bench", "bench") as store:
        again = sweep(items, fn, store, engine=engine, workers=workers)
    hit_wall = time.monotonic() - t1
    records = list(out.records.values())
    per_worker: dict[str, float] = {}
    for r in records:
        per_worker[r.worker] = max(per_worker.get(r.worker, 0.0), r.memory_mb)
    busy = sum(r.seconds for r in records)
    return {
        "engine": out.engine, "workers": out.workers, "keys": out.total, "computed": out.computed,
        "errors": out.errors, "startup_s": round(out.startup, 2), "sweep_s": round(out.seconds, 2),
        "wall_s": round(wall, 2), "keys_per_s": round(out.rate, 3),
        "keys_per_s_per_worker": round(out.rate / out.workers, 3),
        # the share of the workers' time spent in fn: what the engine and the idle tail cost
        "efficiency": round(busy / (out.seconds * out.workers), 3) if out.seconds > 0 else 0.0,
        "fn_s_per_key": round(busy / max(1, len(records)), 4),
        "peak_memory_mb_per_worker": round(max(per_worker.values(), default=0.0), 1),
        "workers_seen": len(per_worker),
        "cache_hit_run": {"cached": again.cached, "computed": again.computed, "wall_s": round(hit_wall, 3)},
    }


def _overhead(n: int, folder: Path) -> list[dict[str, Any]]:
    from tests.support.library_work import noop

    items = {f"k{i}": i for i in range(n)}
    rows = []
    for engine in ("local", "dask"):
        with ResultStore(folder / f"noop-{engine}.jsonl", "bench", "bench") as store:
            out = sweep(items, noop, store, engine=engine, workers=2)
        rows.append({"engine": engine, "tasks": n, "startup_s": round(out.startup, 2),
                     "sweep_s": round(out.seconds, 2), "ms_per_task": round(1000 * out.seconds / n, 3)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default=None, help="comma-separated worker counts (default 1, 2, 4, ... cores)")
    ap.add_argument("--engine", default="dask", choices=("dask", "local"))
    ap.add_argument("--repeat", type=int, default=1, help="each item this many times, under distinct keys")
    ap.add_argument("--limit", type=int, default=None, help="only the first N keys (in sorted order)")
    ap.add_argument("--items", default="tests.support.library_work:all_corpus_items",
                    help="MODULE:NAME of a function returning {key: payload}")
    ap.add_argument("--fn", default="tests.support.library_work:verify_case", help="MODULE:NAME of fn(payload)")
    ap.add_argument("--overhead", type=int, default=0, help="also N no-op tasks on each engine (2 workers)")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")] if args.workers else _default_workers()
    base: Mapping[str, Any] = _named(args.items)()
    if args.limit is not None:
        base = {k: base[k] for k in sorted(base)[:args.limit]}
    items = {f"{k}#{r}" if args.repeat > 1 else k: v for r in range(args.repeat) for k, v in base.items()}
    fn = _named(args.fn)
    report: dict[str, Any] = {"machine": {"cores": default_jobs(), "python": platform.python_version(),
                                          "platform": platform.platform()},
                              "workload": {"items": args.items, "fn": args.fn, "keys": len(items)}, "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        if args.overhead:
            report["overhead"] = _overhead(args.overhead, Path(tmp))
            for row in report["overhead"]:
                print(f"overhead {row['engine']:5}: {row['tasks']} no-op tasks, start-up {row['startup_s']} s, "
                      f"{row['ms_per_task']} ms a task", flush=True)
        for n in workers:
            row = _run(items, fn, args.engine, n, Path(tmp))
            report["runs"].append(row)
            print(f"{row['engine']:5} {n:3} workers: {row['computed']} keys in {row['sweep_s']} s "
                  f"(start-up {row['startup_s']} s): {row['keys_per_s']} keys/s, {row['keys_per_s_per_worker']} "
                  f"a worker, efficiency {row['efficiency']}, peak {row['peak_memory_mb_per_worker']} MB a worker; "
                  f"cache-hit run {row['cache_hit_run']['wall_s']} s", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
