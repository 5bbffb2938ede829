"""The fixed cost of ``cute-verify library``: a re-run of a completed sweep (every key's result in the store), timed
end to end on one core, and where its time goes (docs/library.md, "The re-run of a completed sweep").

    python bench/library_rerun.py [--arch 90a --arch 100a] [--kernels all] [--json OUT]

The store is fabricated, since the real sweep of SM90 ``all`` + SM100 ``all`` takes hours of a many-core host: from
the real enumeration and keys (``verifier/library/plan.py``), each key gets the answer ``verify_key`` gave a real
SM90 key (``bench/data/library_verified_key.json``: CUTLASS 4.2, 10.5 KB, 4 replayed findings), under the key's own
id, representative and configurations, for the keys ``verify_key`` verifies (``library_problems.verified_here``),
and a "not derived" answer carrying that key's printed derivation for every other 3.x key (2.x keys: the short
answer ``verify_key`` gives them).  Nothing here is the product's: the store only stands in for a finished sweep.

Then the command runs in a fresh process, three times, on one core (``taskset``, where there is one): (1) with the
plan cache empty (enumerating and keying, as the first run of a sweep does), (2) again (the plan read from the
cache: the re-run the issue asks to take under a minute) and (3) with ``--no-plan-cache`` (what the re-run cost
before the plan cache, less the report's old encoder).  Each: wall and CPU seconds, and the report's own
``seconds`` (enumerate, phases, report).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.library_problems import verified_here  # noqa: E402
from verifier.library import configs as cfg  # noqa: E402
from verifier.library.distribute import Record  # noqa: E402
from verifier.library.plan import load_plan  # noqa: E402
from verifier.run.batch import tool_version  # noqa: E402

REAL = ROOT / "bench" / "data" / "library_verified_key.json"


def fabricate(archs: list[str], kernels: str, cache: Path, store: Path) -> dict[str, Any]:
    """A complete key store for the enumeration's keys (the module's docstring says what each key gets)."""
    tool, version = tool_version(), cfg.cutlass_version(None)
    t0 = time.process_time()
    plan = load_plan(archs, kernels, "", None, tool, version, None)
    real = json.loads(REAL.read_text())
    counts = {"verified": 0, "not derived": 0, "2.x": 0}
    with store.open("w") as out:
        for key, (fields, rep, names) in plan.keys.items():
            base = {"key": key, "representative": rep, "configs": list(names), "tool": tool, "cutlass": version}
            if not fields["is_3x"]:
                result = {**base, "status": "not derived",
                          "reason": "a CUTLASS 2.x kernel (not built from CuTe layouts)"}
                counts["2.x"] += 1
            elif fields["arch"] == "90a" and verified_here(fields):
                result = {**real, **base}
                counts["verified"] += 1
            else:
                result = {**base, "derived": real["derived"], "status": "not derived",
                          "reason": "mainloop cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized not modelled yet"}
                counts["not derived"] += 1
            out.write(Record(key, "ok", result, seconds=1.0).line(tool, version))
    return {"keys": len(plan.keys), "configurations": sum(plan.counts.values()), "results": counts,
            "store_mb": round(store.stat().st_size / 2**20, 1), "seconds": round(time.process_time() - t0, 1)}


def run(archs: list[str], kernels: str, cache: Path, store: Path, folder: Path, extra: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "verifier.cli", "library", *(a for arch in archs for a in ("--arch", arch)),
           "--kernels", kernels, "--store", str(store), "-o", str(folder / "report.json"), "--html",
           str(folder / "report.html"), "--engine", "local", "--workers", "1", *extra]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", str(min(os.sched_getaffinity(0))), *cmd]
    env = {**os.environ, "CUTE_VERIFY_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"cute-verify library failed ({done.returncode}): {done.stderr[-2000:]}")
    report = json.loads((folder / "report.json").read_text())
    return {"wall_s": round(wall, 1), "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime
                                                    - before.ru_stime, 1),
            "peak_mb": round(after.ru_maxrss / 1024), "report": report["seconds"],
            "plan_cached": report.get("plan_cached"), "computed": report["sweep"]["computed"],
            "cached": report["sweep"]["cached"], "report_mb": round((folder / "report.json").stat().st_size / 2**20, 1),
            "html_kb": round((folder / "report.html").stat().st_size / 1024)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", action="append", choices=cfg.ARCHS)
    ap.add_argument("--kernels", default="all")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args(argv)
    archs = args.arch or ["90a", "100a"]
    out: dict[str, Any] = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                                       "load": os.getloadavg()}, "archs": archs, "kernels": args.kernels}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache, store = folder / "cache", folder / "results.jsonl"
        out["store"] = fabricate(archs, args.kernels, cache, store)
        print(f"store: {out['store']}", flush=True)
        for name, extra in (("first (plan enumerated)", []), ("re-run (plan cached)", []),
                            ("re-run without the plan cache", ["--no-plan-cache"])):
            row = run(archs, args.kernels, cache, store, folder, extra)
            out[name] = row
            print(f"{name}: {row}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
