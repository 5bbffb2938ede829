"""The library sweep's verify phase (``verify_key`` on the payloads ``phases.run`` gives it: the key's derivation,
its batch, its problems' verdicts) measured per key, for this tree and a named baseline commit in the same run, with
the two answers compared (docs/library.md, "The cost of a key's verification").

    python bench/library_verify_cost.py prepare --cache PAYLOADS.json [--keys 90a:16,100a:8] [--batch 8]
                                                [--order key|derive]
    python bench/library_verify_cost.py measure --cache PAYLOADS.json [--baseline REV] [--json OUT]
                                                [--keys-a-process K]

``prepare`` takes the first N 3.x keys of each architecture's ``all`` in sorted key order (a uniform sample of the
families: the ids are digests), derives them in batches of ``--batch`` (one compile a batch, as the derive phase)
and decides their distinct problems (as the decide phase), and writes the verify phase's payloads: the measured
phase alone, without the compiles of the other two.  ``--order derive``: the first N in the sweep's derive order
instead (``ARCH:N@S``: from the S-th), neighbours as a derive batch holds them; what the derive unit computes ahead
for the verifications (``verify.compile_ahead``: the keys' ``can_implement`` sections) is handed on in the payloads
as the sweep does, its CPU reported under ``ahead``.

``measure`` verifies every payload in one child process per implementation, as one worker of a sweep does (its
process-wide caches warm up over the keys; ``--keys-a-process K``: a fresh child every K keys, each verifying every
(n/K)-th key, as a worker of a sweep of n/K workers sees them), first this tree's then the baseline's
(``git archive REV verifier`` unpacked in a folder named by the commit and kept, so that its programs stay
compiled: the baseline's code exactly; default ``HEAD``).  Per key and per implementation:
wall and CPU seconds, the CPU of its child processes (the compiled programs: the replays, the symbolic
``can_implement`` program's compile and runs), and the time of each part (``can_implement.section``, the epilogue's
checks, the compiled replays, the rest: the mainloop's own checks); the mean and the median over the verified keys.
Each child first loads the atom table (a worker's one-time cost, reported as ``start_up_cpu_s``), so that it is
not charged to whichever key first needs it.  Each answer less its ``seconds`` must be the
baseline's; a difference is printed and the command exits 1.  The symbolic ``can_implement`` program is compiled
once a batch (cached by ``oracle.cute_cpp``, under flags that name the tree's own header folder): each side runs
once unmeasured first, so that neither side's figures hold that compile (``--no-warm-up``: a cold compile cache,
whose compile the first key of each batch pays, is measured as it is).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# A child imports the ``verifier`` of its PYTHONPATH (this tree's or the baseline's), never this file's tree.
if sys.argv[1:2] != ["child"] and str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TOOL = "bench-verify-cost"


def prepare(args: argparse.Namespace) -> int:
    from verifier.library import configs as cfg
    from verifier.library import derive
    from verifier.library.keys import derive_order, group, payload

    version = cfg.cutlass_version(None)
    cache = Path(args.cache)
    old = {p["key"]: p for p in _payloads(cache)} if cache.exists() else {}
    out: list[dict[str, Any]] = []
    spent = {"batches": 0.0, "compile_cpu_s": 0.0, "cpu_s": 0.0, "sections": 0.0}
    for spec in args.keys.split(","):
        arch, _, count = spec.partition(":")
        n, _, first = count.partition("@")
        e = cfg.enumerate_gemms(arch, "all")
        order = (lambda g: derive_order(g.key, g.fields)) if args.order == "derive" else (lambda g: g.key)
        groups = sorted((g for g in group(e.configs, TOOL, version) if g.fields.get("is_3x")), key=order)
        chosen = groups[int(first or 0):int(first or 0) + int(n)]
        for i in range(0, len(chosen), args.batch):
            part = chosen[i:i + args.batch]
            if all(g.key in old for g in part):  # derived by an earlier prepare: its problems decided again below
                mine = [old[g.key] for g in part]
            else:
                batch = [[g.representative, e.source(g.representative)] for g in part]
                t0 = time.monotonic()
                shown = derive.derive_many([derive.Instance(name, src) for name, src in batch])
                print(f"{arch}: derived {len(part)} keys in {time.monotonic() - t0:.1f} s", flush=True)
                mine = [{**payload(g, e, TOOL, version), "derived": d, "batch": batch, "index": k}
                        for k, (g, d) in enumerate(zip(part, shown))]
            ahead(mine, spent)
            out += mine
    figures = decide(out)
    figures["ahead"] = {k: round(v, 1) for k, v in spent.items()}
    cache.write_text(json.dumps({"payloads": out, "decide": figures}))
    print(f"{len(out)} payloads -> {args.cache}; decide phase: {json.dumps(figures)}")
    return 0


def ahead(payloads: list[dict[str, Any]], spent: dict[str, float]) -> None:
    """What the derive unit computes ahead for a batch's verifications (``verify.compile_ahead``, where this tree
    has it: each key's ``can_implement`` section), handed on in the key's payload as ``phases`` does; its CPU (the
    symbolic runs' processes included) added to ``spent``: the symbolic program's compile (``compile_cpu_s``, the
    derive unit's before this change too) apart from the sections (``cpu_s``).  A payload that has it keeps it."""
    from verifier.library import can_implement, derive, verify

    if all("can_implement_ahead" in p for p in payloads) or not hasattr(verify, "compile_ahead"):
        return
    item = {"keys": [p["key"] for p in payloads], "batch": payloads[0]["batch"], "include": payloads[0].get("include")}
    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + r.ru_utime + r.ru_stime

    # The symbolic program first (compiled by the derive unit before this change too), apart from the sections.
    c0 = cpu()
    with contextlib.suppress(RuntimeError, OSError, ValueError, subprocess.SubprocessError):
        can_implement.compile_batch([derive.Instance(n, src) for n, src in item["batch"]],
                                    Path(item["include"]) if item["include"] else None)
    spent["compile_cpu_s"] += cpu() - c0
    c0 = cpu()
    given = verify.compile_ahead(item, {p["key"]: p for p in payloads}, {p["key"]: p["derived"] for p in payloads})
    spent["cpu_s"] += cpu() - c0
    spent["batches"] += 1
    for p in payloads:
        if isinstance(given, dict) and p["key"] in given:
            p["can_implement_ahead"] = json.loads(json.dumps(given[p["key"]]))
            spent["sections"] += 1
    print(f"ahead: {sum(1 for p in payloads if 'can_implement_ahead' in p)} of {len(payloads)} sections, "
          f"{spent['cpu_s']:.1f} CPU s so far", flush=True)


def decide(payloads: list[dict[str, Any]]) -> dict[str, Any]:
    """The decide phase for ``payloads`` (each distinct problem once, its verdict fanned out as ``phases.run``
    does), with its CPU cost: the driver's listing of the keys' problems (``problems_of``, which computes the smem
    stages it hands on), and per kind (the engine's layout problems, the checks keys share) distinct units, uses
    and seconds."""
    from verifier.library.verify import decide_problem, problems_of

    decided: dict[str, Any] = {}
    figures: dict[str, dict[str, float]] = {"listing": {"keys": 0, "seconds": 0.0}}
    for p in payloads:  # the engine's verdicts an earlier prepare decided are kept (their seconds are that run's)
        decided.update({k: v for k, v in (p.get("verdicts") or {}).items() if "shared" not in v})
    for p in payloads:
        t0 = time.process_time()
        mine = problems_of(p, p["derived"])  # the driver's listing (the smem stages computed there)
        figures["listing"]["seconds"] += time.process_time() - t0
        figures["listing"]["keys"] += 1
        for pid, prob in mine.items():
            kind = "shared" if prob["op"] == "shared" else "engine"
            f = figures.setdefault(kind, {"distinct": 0, "uses": 0, "seconds": 0.0})
            f["uses"] += 1
            if pid not in decided:
                t0 = time.process_time()
                decided[pid] = decide_problem(prob)["verdict"]
                f["seconds"] += time.process_time() - t0
                f["distinct"] += 1
        p["verdicts"] = {pid: decided[pid] for pid in mine}
    return {k: {**v, "seconds": round(v["seconds"], 1)} for k, v in figures.items()}


def _payloads(cache: Path) -> list[dict[str, Any]]:
    data = json.loads(cache.read_text())
    return list(data["payloads"] if isinstance(data, dict) else data)


# -- one implementation, in its own process ------------------------------------------------------------------------


def _child(cache: str, out: str, which: str = "") -> int:
    """Verify the payloads of ``cache`` (``which``: their places, comma-separated; all of them when empty) with the
    ``verifier`` on ``sys.path``; per key its answer and times."""
    from verifier.library import can_implement, derive, epilogue, verify

    spent: dict[str, float] = {}

    def timed(owner: Any, name: str, part: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                spent[part] = spent.get(part, 0.0) + time.perf_counter() - t0
        setattr(owner, name, wrapper)

    timed(can_implement, "section", "can_implement")
    timed(epilogue, "verify", "epilogue")
    timed(derive.Program, "accepts", "replays")
    timed(derive.Program, "builds_tma", "replays")
    import verifier
    from verifier.algebra import atoms

    print(f"verifier from {Path(verifier.__file__).parent}", file=sys.stderr)
    # A worker's one-time cost, whichever key first needs it: the atom table (the epilogue's TiledMma, the copies).
    t0 = time.process_time()
    atoms.atoms()
    rows: list[dict[str, Any]] = [{"start_up_cpu_s": time.process_time() - t0}]
    payloads = _payloads(Path(cache))
    for i in ([int(w) for w in which.split(",")] if which else range(len(payloads))):
        p = payloads[i]
        spent.clear()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        c0, w0 = time.process_time(), time.perf_counter()
        r = verify.verify_key(p)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        r.pop("seconds", None)
        rows.append({"place": i, "key": p["key"], "name": p["representative"], "status": r["status"],
                     "wall_s": wall, "cpu_s": cpu,
                     "children_cpu_s": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime),
                     "parts_s": {**spent, "rest": wall - sum(spent.values())},
                     "answer": json.loads(json.dumps(r, sort_keys=True))})
    Path(out).write_text(json.dumps(rows))
    return 0


def _run(tree: Path, cache: str, out: Path, per_process: int = 0) -> list[dict[str, Any]]:
    """Every payload of ``cache`` verified by ``tree``'s ``verifier``: in one process (``per_process`` 0), or as
    the workers of a sweep of ceil(n / per_process) workers see them, a fresh process verifying every such
    worker's ``per_process`` keys (worker j: the keys j, j + workers, ...): its process-wide caches hold only
    those keys' answers."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    n = len(_payloads(Path(cache)))
    workers = 1 if per_process <= 0 else -(-n // per_process)
    rows: list[dict[str, Any]] = []
    start_up: list[float] = []
    for j in range(workers):
        which = ",".join(str(i) for i in range(j, n, workers)) if workers > 1 else ""
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "child", cache, str(out), which], env=env,
                       check=True, cwd=str(tree))
        mine: list[dict[str, Any]] = json.loads(out.read_text())
        start_up.append(mine[0]["start_up_cpu_s"])
        rows += mine[1:]
    rows.sort(key=lambda r: int(r["place"]))
    # the keys' rows in the cache's order, then the processes' start-up (their mean)
    return rows + [{"start_up_cpu_s": statistics.mean(start_up), "processes": workers}]


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    rows_end = rows[-1]
    start_up = rows_end["start_up_cpu_s"]
    rows = rows[:-1]
    done = [r for r in rows if r["status"] != "not derived" or r["answer"].get("checks")]
    n = max(1, len(done))
    parts: dict[str, float] = {}
    for r in done:
        for k, v in r["parts_s"].items():
            parts[k] = parts.get(k, 0.0) + v
    return {"keys": len(rows), "verified_keys": len(done), "start_up_cpu_s": round(start_up, 2),
            "processes": rows_end.get("processes", 1),
            "wall_s_per_key": round(sum(r["wall_s"] for r in done) / n, 3),
            "cpu_s_per_key": round(sum(r["cpu_s"] + r["children_cpu_s"] for r in done) / n, 3),
            "median_cpu_s": round(statistics.median([r["cpu_s"] + r["children_cpu_s"] for r in done] or [0.0]), 3),
            "children_cpu_s_per_key": round(sum(r["children_cpu_s"] for r in done) / n, 3),
            "parts_s_per_key": {k: round(v / n, 3) for k, v in sorted(parts.items())},
            "first_key_wall_s": round(done[0]["wall_s"], 2) if done else 0.0}


def measure(args: argparse.Namespace) -> int:
    rev = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="verify-cost-") as tmp:
        # The baseline's tree in a folder named by its commit, kept between runs: the compile cache keys its
        # programs by their flags, which name the tree's header folder, so a kept folder finds them compiled.
        base = Path(tempfile.gettempdir()) / f"verify-cost-baseline-{rev}"
        if not (base / "verifier").is_dir():
            base.mkdir(exist_ok=True)
            archive = Path(tmp) / "baseline.tar"
            subprocess.run(["git", "archive", "-o", str(archive), rev, "verifier"], cwd=ROOT, check=True)
            with tarfile.open(archive) as tar:
                tar.extractall(base, filter="data")
        if not args.no_warm_up:
            # Each side's symbolic programs compiled into the cache first (their flags name the tree's own header
            # folder, so the two sides compile their own), so that neither side's figures hold a compile.
            _run(ROOT, args.cache, Path(tmp) / "warm.json")
            _run(base, args.cache, Path(tmp) / "warm-base.json")
        k = args.keys_a_process
        now = _run(ROOT, args.cache, Path(tmp) / "now.json", k)
        before = _run(base, args.cache, Path(tmp) / "before.json", k)
    differences = [(a["name"], b["name"]) for a, b in zip(before[:-1], now[:-1]) if a["answer"] != b["answer"]]
    for old, new in zip(before[:-1], now[:-1]):
        print(f"{new['name'][-72:]:<72} {new['status']:<12} before {old['wall_s']:6.2f} s  now {new['wall_s']:6.2f} s")
    report: dict[str, Any] = {"baseline": rev, "host_cpus": os.cpu_count(), "load_average": os.getloadavg(),
              "before": _summary(before), "now": _summary(now), "answers_equal": not differences,
              "differences": [d[0] for d in differences]}
    b, n = report["before"], report["now"]
    report["cpu_ratio"] = round(b["cpu_s_per_key"] / max(n["cpu_s_per_key"], 1e-9), 1)
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({**report, "rows": {"before": before, "now": now}}) + "\n")
    return 1 if differences else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        return _child(argv[1], argv[2], argv[3] if len(argv) > 3 else "")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare", help="derive and decide a sample of keys, write the verify phase's payloads")
    pp.add_argument("--cache", required=True)
    pp.add_argument("--keys", default="90a:16,100a:8",
                    help="ARCH:N[@S],...: N 3.x keys of each, sorted, from the S-th (default 0)")
    pp.add_argument("--batch", type=int, default=8)
    pp.add_argument("--order", choices=("key", "derive"), default="key",
                    help="key: the first N in sorted key order (a uniform sample of the families); derive: the first "
                         "N in the sweep's derive order (keys.DERIVE_ORDER: neighbours, as a derive batch holds)")
    pm = sub.add_parser("measure", help="verify the payloads with this tree and the baseline, compare")
    pm.add_argument("--cache", required=True)
    pm.add_argument("--baseline", default="HEAD", help="the commit whose verifier/ is the baseline (default HEAD)")
    pm.add_argument("--no-warm-up", action="store_true")
    pm.add_argument("--keys-a-process", type=int, default=0, metavar="K",
                    help="a worker of a many-worker sweep: a fresh process every K keys, each verifying every "
                         "(n/K)-th key of the cache (default 0: every key in one process)")
    pm.add_argument("--json")
    args = ap.parse_args(argv)
    return prepare(args) if args.cmd == "prepare" else measure(args)


if __name__ == "__main__":
    raise SystemExit(main())
