"""The library sweep's decide phase (``verify.decide_problem`` on each distinct problem of a sample of keys) measured
per problem, for this tree and a named baseline commit in the same run, with the two verdicts compared
(docs/library.md, "The cost of a distinct problem").

    python bench/library_decide_cost.py measure --cache PAYLOADS.json [--baseline REV] [--json OUT] [--only OP]
    python bench/library_decide_cost.py profile --cache PAYLOADS.json [--baseline REV] [--json OUT]

``--cache`` is a payload cache of ``bench/library_verify_cost.py prepare`` (keys derived in batches): the distinct
problems are listed from it here (``verify.problems_of``, this tree's listing, handed to both sides as data).

``measure`` decides every problem in a fresh process each (a sweep's decide unit starts with nothing of it cached:
the engine's process-wide memos hold none of its claims), first with this tree's ``verifier`` then with the
baseline's (``git archive REV verifier`` unpacked in a temporary folder; default ``HEAD``).  Per problem and side:
the CPU seconds of ``decide_problem`` alone (the process's start-up and imports are not charged: a worker pays
them once), its wall seconds, and the verdict's JSON.  The summary gives the mean and the median per problem and
per kind (the mainloop's TMA boxes and tilings, the smem layouts, the epilogue's, the shared checks).  The two
verdicts of each problem must be equal (the whole JSON: verdict, result, reason, counterexample, guard, warnings,
obligations); a difference is printed and the command exits 1.

``profile`` decides each problem of this tree under cProfile (in a fresh process each) and splits its time by the
engine's phases (inclusive times, so that they overlap where one phase runs another: the guard search decides its
candidates with the solver), summed over the problems of each kind.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if sys.argv[1:2] != ["child"] and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The engine's phases, by the functions that run them (file suffix, function name): inclusive times.
PHASES = {
    "obligations": [("engine/decide.py", "applied"), ("engine/decide.py", "items_for")],
    "z3": [("solver/solve.py", "check_sat")],
    "z3 contexts": [("solver/solve.py", "new_context")],
    "guard search": [("engine/guards.py", "derive_guard")],
    "guard necessity": [("engine/guards.py", "_necessity")],
    "counterexample replay": [("engine/decide.py", "_confirm"), ("engine/decide.py", "_confirm_values")],
    "smallest counterexample": [("engine/decide.py", "_minimise"), ("engine/decide.py", "_lower_together")],
    "concrete validity": [("engine/decide.py", "valid_at")],
}


def kind(p: dict[str, Any]) -> str:
    """The problem's kind for the summary: its op, and for the shared checks and the TMA boxes whose they are."""
    name = str(p["name"])
    if p["op"] == "shared":
        return "shared: " + name.split("\x00")[0].split(" [")[0][:24]
    if p["op"] == "make_tma_box":
        return "make_tma_box (epilogue)" if name.startswith("epilogue") else "make_tma_box (mainloop)"
    if p["op"] == "tile_to_shape":
        return "tile_to_shape (epilogue)" if name.startswith("epilogue") else "tile_to_shape (mainloop)"
    return str(p["op"])


def problems(cache: str) -> dict[str, dict[str, Any]]:
    from verifier.library.verify import problems_of

    data = json.loads(Path(cache).read_text())
    out: dict[str, dict[str, Any]] = {}
    for payload in data["payloads"] if isinstance(data, dict) else data:
        for pid, p in problems_of(payload, payload["derived"]).items():
            out.setdefault(pid, p)
    return out


def _child(path: str, pid: str, out: str, profile: bool) -> int:
    """Decide one problem of ``path`` with the ``verifier`` on ``sys.path``: its CPU, wall, verdict (and phases)."""
    import cProfile
    import pstats

    from verifier.library.verify import decide_problem

    p = json.loads(Path(path).read_text())[pid]
    prof = cProfile.Profile() if profile else None
    c0, w0 = time.process_time(), time.perf_counter()
    if prof is not None:
        prof.enable()
    verdict = decide_problem(p)
    if prof is not None:
        prof.disable()
    row: dict[str, Any] = {"pid": pid, "cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - w0,
                           "verdict": json.loads(json.dumps(verdict, sort_keys=True))}
    if prof is not None:
        stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        phases = {}
        for phase, funcs in PHASES.items():
            phases[phase] = sum(v[3] for (f, _, name), v in stats.items()
                                if any(f.endswith(sfx) and name == fn for sfx, fn in funcs))
        row["phases_s"] = phases
    Path(out).write_text(json.dumps(row))
    return 0


def _run(tree: Path, path: Path, pids: list[str], tmp: Path, profile: bool = False) -> dict[str, dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    rows = {}
    for pid in pids:
        out = tmp / f"{pid}.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "child", str(path), pid, str(out)]
        subprocess.run(cmd + (["--profile"] if profile else []), env=env, check=True, cwd=str(tree))
        rows[pid] = json.loads(out.read_text())
    return rows


def _stats(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "mean_s": round(statistics.mean(xs), 3) if xs else 0.0,
            "median_s": round(statistics.median(xs), 3) if xs else 0.0, "sum_s": round(sum(xs), 2)}


def _summary(rows: dict[str, dict[str, Any]], probs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    by: dict[str, list[float]] = defaultdict(list)
    for pid, r in rows.items():
        by[kind(probs[pid])].append(r["cpu_s"])
    return {"all": _stats([r["cpu_s"] for r in rows.values()]),
            "by_kind": {k: _stats(v) for k, v in sorted(by.items(), key=lambda kv: -sum(kv[1]))}}


def _selected(args: argparse.Namespace, tmp: Path) -> tuple[dict[str, dict[str, Any]], Path, list[str]]:
    probs = problems(args.cache)
    pids = [pid for pid, p in probs.items() if not args.only or kind(p).startswith(args.only)]
    path = tmp / "problems.json"
    path.write_text(json.dumps(probs))
    return probs, path, pids


def _tree(rev: str, tmp: Path) -> Path:
    """``rev``'s ``verifier`` unpacked under ``tmp``: the baseline's code exactly."""
    base = tmp / "baseline"
    base.mkdir()
    archive = tmp / "baseline.tar"
    subprocess.run(["git", "archive", "-o", str(archive), rev, "verifier"], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(base, filter="data")
    return base


def measure(args: argparse.Namespace) -> int:
    rev = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="decide-cost-") as tmp_:
        tmp = Path(tmp_)
        probs, path, pids = _selected(args, tmp)
        base = _tree(rev, tmp)
        (tmp / "now").mkdir()
        (tmp / "before").mkdir()
        now = _run(ROOT, path, pids, tmp / "now")
        before = _run(base, path, pids, tmp / "before")
    differences = [pid for pid in pids if before[pid]["verdict"] != now[pid]["verdict"]]
    for pid in pids:
        print(f"{kind(probs[pid]):<28} {probs[pid]['name'][:40]:<40} before {before[pid]['cpu_s']:6.2f} s  "
              f"now {now[pid]['cpu_s']:6.2f} s{'  DIFFERS' if pid in differences else ''}")
    report: dict[str, Any] = {"baseline": rev, "problems": len(pids), "host_cpus": os.cpu_count(),
                              "load_average": os.getloadavg(), "before": _summary(before, probs),
                              "now": _summary(now, probs), "verdicts_equal": not differences,
                              "differences": differences}
    report["cpu_ratio"] = round(report["before"]["all"]["mean_s"] / max(report["now"]["all"]["mean_s"], 1e-9), 2)
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({**report, "rows": {"before": before, "now": now}}) + "\n")
    return 1 if differences else 0


def profile(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="decide-profile-") as tmp_:
        tmp = Path(tmp_)
        probs, path, pids = _selected(args, tmp)
        tree = _tree(args.baseline, tmp) if args.baseline else ROOT
        rows = _run(tree, path, pids, tmp, profile=True)
    by: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for pid, r in rows.items():
        k = by[kind(probs[pid])]
        k["problems"] += 1
        k["wall_s (profiled)"] += r["wall_s"]
        for phase, s in r["phases_s"].items():
            k[phase] += s
    report = {k: {n: round(v, 2) for n, v in d.items()} for k, d in sorted(by.items())}
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({"by_kind": report, "rows": rows}) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        return _child(argv[1], argv[2], argv[3], "--profile" in argv[4:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, text in (("measure", "decide each problem with this tree and the baseline, compare"),
                       ("profile", "decide each problem with this tree under cProfile, by phase")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--cache", required=True, help="a payload cache of bench/library_verify_cost.py prepare")
        p.add_argument("--only", help="only the problems whose kind starts with this (e.g. make_tma_box)")
        p.add_argument("--json")
        p.add_argument("--baseline", default="HEAD" if name == "measure" else None,
                       help="the commit whose verifier/ is the baseline (profile: profiled instead of this tree)")
    args = ap.parse_args(argv)
    return measure(args) if args.cmd == "measure" else profile(args)


if __name__ == "__main__":
    raise SystemExit(main())
