"""Speed of symbolic verdicts and of spec files, this checkout against a base revision (issue 28), in one run.

    python bench/bench_speed.py [--quick] [--base REV]     # REV default HEAD~1 (the previous commit)

Both sides are measured by the same code (this file, run as ``--worker`` with ``PYTHONPATH`` on each checkout; the
base is a temporary ``git worktree`` of REV), back to back, so that their figures share the machine's load:

* every case of ``oracle/data/parametric_cases.json`` through ``verify`` with its defaults (guard search included),
  in process: the median and 95th percentile of a symbolic verdict;
* every check of the bundled example spec files and of the README's spec files, in process (``-j 1``): each
  check's time (the targets: under 2 s each);
* each of those files as the command line runs it on 2 cores (``cute-verify run FILE --no-cache -j 2``, a fresh
  process): its wall time (the target: under 10 s each).

That the verdicts themselves did not change is ``bench/compare_verdicts.py``'s to show.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, Config, Table, fmt_time  # noqa: E402

CHECK_TARGET_S = 2.0
FILE_TARGET_S = 10.0
MEDIAN_TARGET = 0.10  # the median symbolic verdict under 10% of the base's
BASE_REV = os.environ.get("CUTE_BENCH_BASE", "HEAD~1")


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def worker(quick: bool, folder: Path) -> dict[str, object]:
    """The figures of the checkout on ``sys.path`` (run with ``PYTHONPATH`` on it)."""
    from bench.compare_verdicts import spec_files
    from verifier.engine.verify import verify
    from verifier.oracle.corpora import PARAMETRIC_CORPUS, problem
    from verifier.run.batch import _timed
    from verifier.run.spec import load

    corpus = json.loads(PARAMETRIC_CORPUS.read_text())
    verdicts = []
    for e in corpus[:8] if quick else corpus:
        op, args, sy = problem(e)
        t0, c0 = time.perf_counter(), time.process_time()
        v = verify(op, args, sy)
        verdicts.append((e["id"], v.verdict, time.perf_counter() - t0, time.process_time() - c0))
    files = spec_files(folder)
    if quick:
        files = files[-1:]
    checks: dict[str, list[tuple[str, str, float, float]]] = {}
    for path in files:
        loaded = load([path])
        for c in getattr(loaded, "checks", loaded):
            c0 = time.process_time()
            v, dt = _timed(c)
            checks.setdefault(path.name, []).append((c.name, v.verdict, dt, time.process_time() - c0))
    walls, cpus = {}, {}
    for path in files:
        t0, before = time.perf_counter(), os.times()
        subprocess.run([sys.executable, "-m", "verifier.cli", "run", str(path), "--no-cache", "-j", "2", "-q"],
                       capture_output=True, check=False, cwd=folder)
        walls[path.name] = time.perf_counter() - t0
        done = os.times()  # the command and its workers, once they have been waited for
        cpus[path.name] = done.children_user + done.children_system - before.children_user - before.children_system
    return {"verdicts": verdicts, "checks": checks, "walls": walls, "cpus": cpus}


def _measure(checkout: Path, quick: bool) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with tempfile.TemporaryDirectory() as tmp:
        # the checkout's own copy of this file: it puts its checkout first on sys.path
        cmd = [sys.executable, str(checkout / "bench" / "bench_speed.py"), "--worker", tmp] + (["--quick"] if quick
                                                                                               else [])
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=checkout, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"bench_speed worker on {checkout} failed: {p.stderr[-2000:]}")
    return json.loads(p.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def _base_checkout(rev: str, folder: Path) -> Path:
    """A worktree of ``rev`` in ``folder`` (or, where ``rev`` is a folder, a copy of it: an exported tree, for a
    machine without the history), with this checkout's ``bench/bench_speed.py`` and ``bench/compare_verdicts.py``
    (the worker's code, which older revisions lack); the caller removes it."""
    if Path(rev).is_dir():
        shutil.copytree(rev, folder, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(folder), rev],
                       capture_output=True, check=True)
    for name in ("bench_speed.py", "compare_verdicts.py"):
        (folder / "bench" / name).write_text((ROOT / "bench" / name).read_text())
    return folder


def run(cfg: Config, base: str = BASE_REV) -> Table:
    t = Table(f"8. Speed: this checkout against {base} (issue 28), measured back to back",
              ["figure", base, "this checkout", "ratio", "target"])
    with tempfile.TemporaryDirectory() as tmp:
        checkout = _base_checkout(base, Path(tmp) / "base")
        try:
            before = _measure(checkout, cfg.quick)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(checkout)],
                           capture_output=True, check=False)
    after = _measure(ROOT, cfg.quick)

    def times(d: dict[str, object], verdict: str | None = None, cpu: bool = False) -> list[float]:
        return [r[3 if cpu else 2] for r in d["verdicts"]  # type: ignore[attr-defined]
                if verdict is None or r[1] == verdict]

    rows: list[tuple[str, float, float, str]] = []
    for label, verdict in (("symbolic verdict", None), ("valid verdict", "valid"), ("invalid verdict", "invalid")):
        xb, xa = times(before, verdict), times(after, verdict)
        if not xa or not xb:
            continue
        target = f"< {MEDIAN_TARGET:.0%} of before" if verdict is None else "-"
        rows.append((f"median {label} (n={len(xa)})", statistics.median(xb), statistics.median(xa), target))
        rows.append((f"95th percentile {label}", _p95(xb), _p95(xa), "-"))
        # CPU time of the process: what the wall time would be on an idle core, less sensitive to the load of a
        # shared machine than the wall time (section 6)
        cb, ca = times(before, verdict, cpu=True), times(after, verdict, cpu=True)
        rows.append((f"median {label}, CPU time", statistics.median(cb), statistics.median(ca), target))
    for name, wall in after["walls"].items():  # type: ignore[attr-defined]
        rows.append((f"`cute-verify run {name} -j 2` wall", before["walls"].get(name, float("nan")),  # type: ignore[attr-defined]
                     wall, f"< {FILE_TARGET_S:g} s"))
        rows.append(("  the same, CPU time of its processes (2 cores: at least half of it in wall time)",
                     before.get("cpus", {}).get(name, float("nan")),  # type: ignore[attr-defined]
                     after["cpus"][name], "-"))  # type: ignore[index]
        bchecks = {r[0]: r[2] for r in before["checks"].get(name, [])}  # type: ignore[attr-defined]
        achecks = {r[0]: r[2] for r in after["checks"][name]}  # type: ignore[index]
        bcpu = {r[0]: r[3] for r in before["checks"].get(name, [])}  # type: ignore[attr-defined]
        acpu = {r[0]: r[3] for r in after["checks"][name]}  # type: ignore[index]
        slow = max(achecks, key=achecks.__getitem__)
        rows.append((f"{name}: slowest check, -j 1 (“{slow}”)", bchecks.get(slow, float("nan")), achecks[slow],
                     f"< {CHECK_TARGET_S:g} s"))
        rows.append(("  the same, CPU time", bcpu.get(slow, float("nan")), acpu[slow], f"< {CHECK_TARGET_S:g} s"))
    for label, b, a, target in rows:
        t.add(label, fmt_time(b), fmt_time(a), f"{a / b:.2f}×" if b == b and b > 0 else "-", target)
    t.data = {"before": before, "after": after}
    med_b, med_a = statistics.median(times(before)), statistics.median(times(after))
    t.data["median_ratio"] = med_a / med_b
    t.data["median_cpu_ratio"] = statistics.median(times(after, cpu=True)) / statistics.median(times(before, cpu=True))
    changed = [(b[0], b[1], a[1]) for b, a in zip(before["verdicts"], after["verdicts"])  # type: ignore[call-overload]
               if b[1] != a[1]]
    slow_checks = [f"{f}: {r[0]} {fmt_time(r[2])} (CPU {fmt_time(r[3])})"
                   for f, cs in after["checks"].items()  # type: ignore[attr-defined]
                   for r in cs if r[2] >= CHECK_TARGET_S]
    slow_files = [f"{f} {fmt_time(w)}" for f, w in after["walls"].items() if w >= FILE_TARGET_S]  # type: ignore[attr-defined]
    t.data["slow_checks"], t.data["slow_files"] = slow_checks, slow_files
    t.notes.append(f"Median symbolic verdict: {med_a / med_b:.0%} of {base}'s in wall time, "
                   f"{t.data['median_cpu_ratio']:.0%} in CPU time (target < {MEDIAN_TARGET:.0%}).")
    t.notes.append("Checks of the example spec files over 2 s: " + ("; ".join(slow_checks) or "none") + ".")
    t.notes.append("Spec files over 10 s on 2 cores: " + ("; ".join(slow_files) or "none") + ".")
    t.notes.append("Verdicts of the parametric corpus that differ: "
                   + ("; ".join(f"{i} {vb} → {va}" for i, vb, va in changed) or "none")
                   + " (every case of every corpus of the tests: `bench/compare_verdicts.py`).")
    if med_a / med_b >= MEDIAN_TARGET:
        t.losses.append(f"the median symbolic verdict is {med_a / med_b:.0%} of {base}'s, not under "
                        f"{MEDIAN_TARGET:.0%}")
    if slow_checks:
        t.losses.append(f"{len(slow_checks)} check(s) of the example spec files take {CHECK_TARGET_S:g} s or more")
    return t


def main(argv: list[str] | None = None) -> int:
    import argparse

    from bench.common import FULL, QUICK

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--base", default=BASE_REV,
                    help="the revision to compare with, or a folder holding its tree (default %(default)s)")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker is not None:
        print(json.dumps(worker(a.quick, a.worker)))
        return 0
    print((run(QUICK if a.quick else FULL, a.base)).text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
