"""What a key's derivation costs a worker (``phases.derive_batch``: a batch of keys compiled into one program by g++
and printed), for the way a sweep batched its keys before and the way it batches them now, in the same run.

    python bench/library_derive.py [--arch 90a] [--at 0.5] [--batch 32] [--old-batch 8] [--old digest,plan]
                                   [--json OUT]

Each way derives one window of the architecture's ``all`` keys (``--kernels all``, CUTLASS's own generator),
``--batch`` keys at the fraction ``--at`` of its key list, with a fresh compile cache of its own (nothing reused):

* ``new``: the batch ``phases.batches`` forms there (its keys in ``keys.DERIVE_ORDER``, ``--batch`` a batch);
* ``digest``: the keys in the order of their ids, ``--old-batch`` a batch (the order of
  ``bench/library_scale.py``'s points before: the batches the 32-core host's figures measured);
* ``plan``: the keys in the generator's order, ``--old-batch`` a batch (``cute-verify library``'s order before).

Per way: the keys, the batches, the CPU seconds of the derive's children (g++ and the printing program: what a
worker spends; the machine's load inflates wall time, not much CPU time), wall seconds, each per key, and the peak
memory of the largest child.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.library import configs as cfg  # noqa: E402
from verifier.library import phases  # noqa: E402
from verifier.library.plan import load_plan  # noqa: E402
from verifier.run.batch import cache_root, tool_version  # noqa: E402

WAYS = ("new", "digest", "plan")


def windows(plan: Any, arch: str, at: float, batch: int, old_batch: int, ways: list[str]) -> dict[str, list[list[str]]]:
    """Per way, the batches of its window: ``batch`` keys of the architecture's 3.x keys at the fraction ``at``."""
    keys = [k for k, (f, _, _) in plan.keys.items() if f["arch"] == arch and f["is_3x"]]
    payloads = {k: plan.payload(k, None) for k in keys}
    out: dict[str, list[list[str]]] = {}
    for way in ways:
        if way == "new":
            formed = phases.batches(payloads, keys, batch)
            out[way] = [formed[min(len(formed) - 1, int(at * len(formed)))]]
            continue
        order = sorted(keys) if way == "digest" else keys
        start = min(len(order) - batch, int(at * len(order))) // old_batch * old_batch
        window = order[start:start + batch]
        out[way] = [window[i:i + old_batch] for i in range(0, len(window), old_batch)]
    return out


def measure(plan: Any, batches: list[list[str]]) -> dict[str, Any]:
    """Derive the batches with a fresh compile cache: CPU and wall seconds, in all and a key."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    crashed: list[str] = []
    rejected: list[str] = []
    with tempfile.TemporaryDirectory(prefix="library-derive-") as tmp:
        os.environ["CUTE_VERIFY_CACHE"] = tmp
        for keys in batches:
            item = {"keys": keys, "include": None, "batch": [[plan.keys[k][1], plan.source(k)] for k in keys]}
            derived = phases.derive_batch(item)["derived"]
            crashed += [plan.keys[k][1] for k, d in derived.items() if "CRASHED" in d]
            rejected += [plan.keys[k][1] for k, d in derived.items() if "REJECTED" in d]
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    n = sum(len(b) for b in batches)
    return {"keys": n, "batches": len(batches), "cpu_s": round(cpu, 1), "wall_s": round(wall, 1),
            "cpu_s_per_key": round(cpu / n, 2), "wall_s_per_key": round(wall / n, 2),
            # keys CUTLASS rejected at compile time (their batch compiled again without them) and keys whose
            # printing died (named by derive.show): counts and the first names
            "crashed": len(crashed), "rejected": len(rejected), "rejected_names": rejected[:3],
            "crashed_names": crashed[:3],
            # the largest child so far (g++ of the largest batch, in practice)
            "peak_child_mb": round(after.ru_maxrss / 1024)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="90a", choices=("90a", "100a"))
    ap.add_argument("--at", type=float, default=0.5, help="where the window starts, a fraction of the key list")
    ap.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH, help="keys a batch now, and the window")
    ap.add_argument("--old-batch", type=int, default=8, help="keys a batch before (default 8)")
    ap.add_argument("--old", default="digest,plan", help="the orders before to measure: digest, plan, or both")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    ways = ["new", *[w for w in args.old.split(",") if w]]
    if any(w not in WAYS for w in ways) or args.batch < 1 or args.old_batch < 1 or not 0 <= args.at <= 1:
        ap.error(f"--old: a list of {', '.join(WAYS[1:])}; --batch, --old-batch >= 1; --at in [0, 1]")
    plan = load_plan([args.arch], "all", "", None, tool_version(), cfg.cutlass_version(None),
                     cache_root() / "library" / "plans")
    report: dict[str, Any] = {"arch": args.arch, "at": args.at, "batch": args.batch, "old_batch": args.old_batch,
                              "host": {"cpus": os.cpu_count(), "load": os.getloadavg(),
                                       "python": platform.python_version()}, "ways": {}}
    for way, batches in windows(plan, args.arch, args.at, args.batch, args.old_batch, ways).items():
        row = measure(plan, batches)
        report["ways"][way] = row
        print(json.dumps({"way": way, **row}), flush=True)
    new, old = report["ways"]["new"], {w: r for w, r in report["ways"].items() if w != "new"}
    report["cpu_per_key_gain"] = {w: round(r["cpu_s_per_key"] / max(new["cpu_s_per_key"], 1e-9), 2)
                                  for w, r in old.items()}
    report["host"]["load_after"] = os.getloadavg()
    print(json.dumps({"cpu_per_key_gain": report["cpu_per_key_gain"]}), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
