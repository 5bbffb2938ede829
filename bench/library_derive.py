"""What a key's derivation costs a worker (``phases.derive_batch``: a batch of keys compiled into one program by g++
and printed), for the way a sweep batched its keys before and the way it batches them now, in the same run.

    python bench/library_derive.py [--arch 90a] [--at 0.5] [--batch 32] [--old-batch 8] [--old digest,plan]
                                   [--split 64,128] [--json OUT]

Each way derives one window of the architecture's ``all`` keys (``--kernels all``, CUTLASS's own generator),
``--batch`` keys at the fraction ``--at`` of its key list, with a fresh compile cache of its own (nothing reused):

* ``new``: the batch ``phases.batches`` forms there (its keys in ``keys.DERIVE_ORDER``, ``--batch`` a batch);
* ``digest``: the keys in the order of their ids, ``--old-batch`` a batch (the order of
  ``bench/library_scale.py``'s points before: the batches the 32-core host's figures measured);
* ``plan``: the keys in the generator's order, ``--old-batch`` a batch (``cute-verify library``'s order before);
* ``split:S`` for each S of ``--split``: the ``new`` window's keys in batches of S (S divides ``--batch``: the
  batches ``phases.batches`` forms at S, since its batches of ``--batch`` are whole ones of S), so that batch sizes
  compare on the same keys; each way's derivations must be the ``new`` one's (``same_as_new``: every tag but
  ``CRASHED``, whose message names the batch).

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
    formed = phases.batches(payloads, keys, batch)
    new = formed[min(len(formed) - 1, int(at * len(formed)))]
    for way in ways:
        if way == "new":
            out[way] = [new]
            continue
        if way.startswith("split:"):
            size = int(way.split(":")[1])
            out[way] = [new[i:i + size] for i in range(0, len(new), size)]
            continue
        order = sorted(keys) if way == "digest" else keys
        start = min(len(order) - batch, int(at * len(order))) // old_batch * old_batch
        window = order[start:start + batch]
        out[way] = [window[i:i + old_batch] for i in range(0, len(window), old_batch)]
    return out


def measure(plan: Any, batches: list[list[str]], derivations: dict[str, Any] | None = None) -> dict[str, Any]:
    """Derive the batches with a fresh compile cache: CPU and wall seconds, in all and a key (and each key's
    derivation into ``derivations``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    crashed: list[str] = []
    rejected: list[str] = []
    with tempfile.TemporaryDirectory(prefix="library-derive-") as tmp:
        os.environ["CUTE_VERIFY_CACHE"] = tmp
        for keys in batches:
            item = {"keys": keys, "include": None, "batch": [[plan.keys[k][1], plan.source(k)] for k in keys]}
            derived = phases.derive_batch(item)["derived"]
            if derivations is not None:
                derivations.update(derived)
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


def _printed(derived: dict[str, Any]) -> str:
    """What compiled CUTLASS printed for the keys, as bytes to compare: every tag but ``CRASHED`` (which names the
    key's batch)."""
    return json.dumps({k: {t: v for t, v in d.items() if t != "CRASHED"} for k, d in derived.items()}, sort_keys=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="90a", choices=("90a", "100a"))
    ap.add_argument("--at", type=float, default=0.5, help="where the window starts, a fraction of the key list")
    ap.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH, help="keys a batch now, and the window")
    ap.add_argument("--old-batch", type=int, default=8, help="keys a batch before (default 8)")
    ap.add_argument("--old", default="digest,plan", help="the orders before to measure: digest, plan, or both")
    ap.add_argument("--split", default="", help="batch sizes dividing --batch: the new window in those batches")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    ways = ["new", *[w for w in args.old.split(",") if w]]
    splits = [s for s in args.split.split(",") if s]
    if any(w not in WAYS for w in ways) or args.batch < 1 or args.old_batch < 1 or not 0 <= args.at <= 1 or any(
            not s.isdigit() or int(s) < 1 or args.batch % int(s) for s in splits):
        ap.error(f"--old: a list of {', '.join(WAYS[1:])}; --batch, --old-batch >= 1; --at in [0, 1]; "
                 "--split: sizes that divide --batch")
    ways += [f"split:{s}" for s in splits]
    plan = load_plan([args.arch], "all", "", None, tool_version(), cfg.cutlass_version(None),
                     cache_root() / "library" / "plans")
    report: dict[str, Any] = {"arch": args.arch, "at": args.at, "batch": args.batch, "old_batch": args.old_batch,
                              "host": {"cpus": os.cpu_count(), "load": os.getloadavg(),
                                       "python": platform.python_version()}, "ways": {}}
    derivations: dict[str, dict[str, Any]] = {}
    for way, batches in windows(plan, args.arch, args.at, args.batch, args.old_batch, ways).items():
        derivations[way] = {}
        row = measure(plan, batches, derivations[way])
        if way.startswith("split:"):
            row["same_as_new"] = _printed(derivations[way]) == _printed(derivations["new"])
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
