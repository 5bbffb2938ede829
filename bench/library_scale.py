"""The library sweep's scale on a many-core host: the real sweep (``verifier/library/phases.py``: derive in batches,
decide each distinct problem, verify each key, as a pipeline or, with ``--order phased``, one phase after the
other) of N keys of SM90 ``all`` (``sample``: whole derive batches, evenly spaced over the sweep's derive order, so
that each batch is one a full sweep compiles and the sample spans the families) on a Dask local cluster of W
workers, for several (W, N) points, then the same sweep again with nothing changed; from the measured costs, the
wall time of SM90 ``all`` + SM100 ``all`` on a given number of cores; and the scheduling alone, on stand-in units
(docs/library.md, "Scale on a many-core host").

    python bench/library_scale.py run --points 1:8,4:32,16:128,0:256 [--batch 8] [--timeout 150] [--json OUT]
    python bench/library_scale.py extrapolate A.json B.json ... [--cores 64] [--bound COUNT.json] [--json OUT]
    python bench/library_scale.py synthetic --points 0:512,0:4096 [--scale 0.2] [--work burn] [--json OUT]

``--points W:N,...``: W workers (0: every core of the host) on N keys.  Each point runs in a child process
with a fresh compile cache (``CUTE_VERIFY_CACHE``: no point reuses another's compiled programs, so each pays its
compiles as a first sweep does) and a fresh store, and is stopped after ``--timeout`` seconds: what its stores hold
then is what it measured (a stopped point says so, and its rate counts only what finished).  The keys and their
plan are computed once, before the points (``verifier/library/plan.py``'s cache, shared by the points).  One
command runs at most 10 minutes on the lent hosts: choose points whose timeouts add up to less (the plan and the
cluster starts take about a minute), or run one point a command and ``extrapolate`` their JSON files together.

Each point's figures: keys, keys/s and keys/s a worker, each kind's units (batches, distinct problems, keys),
computed and errors, its workers' busy seconds (the sum of ``fn``'s own times: what a unit costs), each worker's
peak memory (the worker or its largest child, g++), the cluster's start-up, the problems' sharing (distinct problems
against their uses by keys), the second, unchanged run (its wall time and its cache hits: every key from the store,
nothing computed), and the timeline's: the efficiency (busy seconds over workers x the units' wall), the steady
efficiency (while the workers were saturated) and the seconds they were not (``phases.Phases.steady``).

``extrapolate``: from the point with the most workers that finished (its per-unit busy seconds and its steady
efficiency, with its start-up and unsaturated seconds paid once; a point without them, its whole efficiency), SM90
``all`` (its keys, its batches, and at most the distinct problems ``bench/library_problems.py count`` bounds) and
SM100 ``all`` (its keys and batches; its problems at SM90's rate a key, since its UMMA layouts are modelled by
another part), on ``--cores`` workers; and SM90 at ``--instantiation-level max`` (1,214,226 keys), its derive
batches and verifications only.  With ``--bound`` (``bench/library_problems.py count --arch 90a --arch 100a``'s JSON),
the sweep's distinct solver problems fitted on the points' growth are capped at the counted bound, which replaces the
linear upper bound where it is lower (``problems_fitted``: ``bound``, ``upper_bound``, ``said``).

``synthetic``: ``bench/library_synthetic.py``'s stand-in units (the real units' costs in proportion, ``--scale``
times them, slept or burnt) in each of ``--orders`` on one local cluster a point: the timeline's figures of each
run, and whether every order gave the same answers.
"""

from __future__ import annotations

import argparse
import json
import math
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

from verifier.library import configs as cfg  # noqa: E402
from verifier.library import phases  # noqa: E402
from verifier.library.distribute import ResultStore  # noqa: E402
from verifier.library.plan import load_plan  # noqa: E402
from verifier.run.batch import default_jobs, tool_version  # noqa: E402

# SM90 all and SM100 all at CUTLASS 4.2 (docs/library.md): keys, 3.x keys, and the distinct solver problems of
# every SM90 key at most (``bench/library_problems.py count --arch 90a``'s ``solver_problems_at_most``: the
# mainloops', cp.async's, the epilogues' and the grouped keys'; 1,261 was the TMA mainloop's alone).  A plan of this
# host's CUTLASS replaces the keys.
SM90 = {"keys": 15028, "keys_3x": 14912, "problems_at_most": 15283}
SM100 = {"keys": 65456, "keys_3x": 65456}
# SM90 at --instantiation-level max: its keys (docs/library.md); its distinct problems are not counted.
SM90_MAX = {"keys": 1214226}


def _plan(plans: Path, archs: list[str]) -> Any:
    tool, version = tool_version(), cfg.cutlass_version(None)
    return load_plan(archs, "all", "", None, tool, version, plans), tool, version


def sample(payloads: dict[str, Any], n: int, batch: int) -> list[str]:
    """``n`` keys of ``payloads``: ``n // batch`` of the derive batches a sweep of every key forms
    (``phases.batches``), evenly spaced over them (fewer than a batch: the first ``n`` keys of the middle one).
    A point's batches are then the sweep's own: a window of neighbouring keys costs a batch what the full sweep's
    batches cost, which a scattered sample of keys would not (docs/library.md, "What a derive batch costs")."""
    formed = phases.batches(payloads, list(payloads), batch)
    if n < batch:
        return formed[len(formed) // 2][:n]
    count = min(len(formed), n // batch)
    return [k for i in range(count) for k in formed[i * len(formed) // count]]


# -- one point, in its own process --------------------------------------------------------------------------------


def point(args: argparse.Namespace) -> int:
    """Sweep the first ``--keys`` keys with ``--workers`` workers into ``--store``; write the figures to --json."""
    plan, tool, version = _plan(Path(args.plans), args.arch or ["90a"])
    keys = sample({k: plan.payload(k, None) for k in plan.keys}, args.keys, args.batch)
    payloads = {k: plan.payload(k, None) for k in keys}
    store = Path(args.store)
    t0 = time.monotonic()
    ran = phases.run(payloads, keys, store, tool, version, batch=args.batch, engine=args.engine,
                     workers=args.workers, source=plan.source, order=args.order)
    wall = time.monotonic() - t0
    t1 = time.monotonic()
    again = phases.run(payloads, keys, store, tool, version, batch=args.batch, engine=args.engine,
                       workers=args.workers, source=plan.source, order=args.order)
    figures = {"tool": tool, "wall_s": round(wall, 1),
               "workers": ran.keys.workers if ran.keys.computed else args.workers, "problems": ran.problems,
               "problem_uses": ran.problem_uses, "startup_s": round(ran.startup, 1), **timeline(ran),
               "second_run": {"wall_s": round(time.monotonic() - t1, 2), "cached": again.keys.cached,
                              "computed": again.keys.computed + sum(s.computed for s in (again.derive, again.decide)
                                                                    if s)}}
    Path(args.json).write_text(json.dumps(figures) + "\n")
    return 0


def timeline(ran: phases.Phases) -> dict[str, Any]:
    """A run's scheduling figures: its order, the wall time of its units (after the engine started), the busy
    worker-seconds, the efficiency (busy over workers x that wall), and the efficiency while the workers were
    saturated with the seconds they were not (``Phases.steady``)."""
    steady, unsaturated = ran.steady()
    return {"order": ran.order, "units_wall_s": round(ran.seconds, 2), "busy_s": round(ran.busy, 1),
            "efficiency": round(ran.efficiency, 3), "steady_efficiency": round(steady, 3),
            "unsaturated_s": round(unsaturated, 2)}


def _stored(store: Path, tool: str, version: str) -> dict[str, Any]:
    """What a point's three stores hold: per phase its units, errors, busy seconds; per worker its peak memory."""
    out: dict[str, Any] = {}
    memory: dict[str, float] = {}
    for phase, path in (("derive", phases.side_store(store, "derive")),
                        ("decide", phases.side_store(store, "problems")), ("verify", store)):
        if not path.exists():
            out[phase] = {"units": 0, "errors": 0, "busy_s": 0.0}
            continue
        with ResultStore(path, tool=tool, cutlass=version) as s:
            records = list(s.records.values())
        for r in records:
            memory[r.worker] = max(memory.get(r.worker, 0.0), r.memory_mb)
        errors = [f"{r.key}: {r.error}"[:400] for r in records if r.status == "error"]
        out[phase] = {"units": len(records), "errors": len(errors), "busy_s": round(sum(r.seconds for r in records), 1),
                      "first_errors": errors[:3]}
        if phase == "decide":  # the checks keys share (verify.SHARED, the smem stages), apart from the solver's
            shared = [r for r in records if r.result is not None and "shared" in (r.result.get("verdict") or {})]
            out[phase]["shared_units"] = len(shared)
            out[phase]["shared_busy_s"] = round(sum(r.seconds for r in shared), 1)
    out["peak_memory_mb_per_worker"] = round(max(memory.values(), default=0.0))
    out["worker_processes"] = len(memory)  # each phase starts its own cluster
    return out


def run(args: argparse.Namespace) -> int:
    points = []
    for text in args.points.split(","):
        w, _, n = text.partition(":")
        points.append((int(w) or default_jobs(), int(n)))
    report: dict[str, Any] = {"machine": {"cores": default_jobs(), "python": platform.python_version(),
                                          "platform": platform.platform()},
                              "batch": args.batch, "engine": args.engine, "order": args.order,
                              "timeout_s": args.timeout, "points": []}
    with tempfile.TemporaryDirectory(prefix="library-scale-") as tmp:
        folder = Path(tmp)
        plans = folder / "plans"
        t0 = time.monotonic()
        archs = args.arch or ["90a"]
        plan, tool, version = _plan(plans, archs)
        report["plan_s"], report["sample_archs"] = round(time.monotonic() - t0, 1), archs
        sm90 = [f for f, _, _ in plan.keys.values() if f.get("arch", "90a") == "90a"]
        report["sm90"] = {"keys": len(sm90), "keys_3x": sum(f["is_3x"] for f in sm90)}
        for workers, n in points:
            where = folder / f"w{workers}-n{n}"
            where.mkdir()
            store, figures = where / "keys.jsonl", where / "figures.json"
            cmd = [sys.executable, str(Path(__file__).resolve()), "point", "--workers", str(workers), "--keys",
                   str(n), "--batch", str(args.batch), "--engine", args.engine, "--order", args.order, "--plans",
                   str(plans), "--store", str(store), "--json", str(figures), *(f"--arch={a}" for a in archs)]
            env = {**os.environ, "CUTE_VERIFY_CACHE": str(where / "cache"), "PYTHONPATH": str(ROOT)}
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.monotonic()
            # its own session, so that a stopped point takes its cluster's workers and their compilers with it
            child = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
            try:
                log, _ = child.communicate(timeout=args.timeout)
                stopped = False
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, 9)
                log, _ = child.communicate()
                stopped = True
            wall = time.monotonic() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            row: dict[str, Any] = {"workers": workers, "keys": n, "stopped_at_timeout": stopped, "sample_archs": archs,
                                   "exit": child.returncode, "point_wall_s": round(wall, 1),
                                   "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)}
            measured = json.loads(figures.read_text()) if figures.exists() else {}
            # the stores are read with the version the point wrote them with (the sources' hash: edited meanwhile?)
            row.update(_stored(store, measured.get("tool", tool), version))
            if measured:
                row.update(measured)
            else:
                row["wall_s"] = round(wall, 1)
                row["log_tail"] = (log or "")[-1500:]
            done = row["verify"]["units"]
            row["keys_done"] = done
            row["keys_per_s"] = round(done / row["wall_s"], 4) if row["wall_s"] else 0.0
            row["keys_per_s_per_worker"] = round(row["keys_per_s"] / workers, 4)
            report["points"].append(row)
            print(json.dumps(row), flush=True)
            shutil.rmtree(where / "cache", ignore_errors=True)
    report["extrapolation"] = extrapolate_points(report["points"], report["sm90"], args.cores or default_jobs(),
                                                 args.batch)
    print(json.dumps(report["extrapolation"], indent=1), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


def extrapolate_points(points: list[dict[str, Any]], sm90: dict[str, int] | None, cores: int,
                       batch: int, bound: dict[str, Any] | None = None) -> dict[str, Any]:
    """SM90 all + SM100 all on ``cores`` workers, from the finished point with the most workers (the module's
    docstring says how)."""
    finished = [p for p in points if not p.get("stopped_at_timeout") and p["verify"]["units"]]
    if not finished:
        return {"error": "no point finished: nothing to extrapolate from"}
    p = max(finished, key=lambda q: (q["workers"], q["keys"]))
    keys = p["verify"]["units"]
    # The decide phase's units: the solver's problems (SM90's bounded by bench/library_problems.py count) and the
    # checks keys share (verify.SHARED, the smem stages: counted at the point's rate a key, unbounded)
    shared, shared_s = p["decide"].get("shared_units", 0), p["decide"].get("shared_busy_s", 0.0)
    batches, problems = max(1, p["derive"]["units"]), max(1, p["decide"]["units"] - shared)
    per_batch = p["derive"]["busy_s"] / batches
    per_problem = (p["decide"]["busy_s"] - shared_s) / problems
    shared_per_key = shared_s / keys
    per_key = p["verify"]["busy_s"] / keys
    busy = p["derive"]["busy_s"] + p["decide"]["busy_s"] + p["verify"]["busy_s"]
    if p.get("steady_efficiency"):
        # the efficiency while the workers were saturated, which a longer sweep keeps up; the engine's start and
        # the time not saturated (the fill, the barriers, the drain) are paid once, whatever the sweep's length
        efficiency, fixed = min(1.0, float(p["steady_efficiency"])), float(p["startup_s"] + p["unsaturated_s"])
        model = "steady"
    else:  # never saturated, or measured before the timeline: its whole wall, as if all of it were proportional
        efficiency = min(1.0, busy / (p["workers"] * p["wall_s"])) if p["wall_s"] else 1.0
        fixed, model = 0.0, "whole point"
    s90 = {**SM90, **(sm90 or {})}
    sm90_problems = min(SM90["problems_at_most"], round(problems / keys * s90["keys"]))
    # SM100's problems: none decided while its UMMA mainloops are not modelled; counted at SM90's rate a key as
    # the bound for when they are (a different model may share more or less).
    sm100_problems = round(problems / keys * SM100["keys"])
    parts = {
        "sm90_derive": math.ceil(s90["keys_3x"] / batch) * per_batch,
        "sm90_decide": sm90_problems * per_problem + s90["keys"] * shared_per_key,
        "sm90_verify": s90["keys"] * per_key,
        "sm100_derive": math.ceil(SM100["keys_3x"] / batch) * per_batch,
        "sm100_decide_if_modelled": sm100_problems * per_problem + SM100["keys"] * shared_per_key,
        "sm100_verify": SM100["keys"] * per_key,
    }
    worker_hours = {k: round(v / 3600, 2) for k, v in parts.items()}
    total = sum(parts.values())
    without_sm100_decide = total - parts["sm100_decide_if_modelled"]

    def wall(seconds: float) -> float:
        return seconds / (cores * efficiency) + fixed

    fitted = _problems_fitted(finished, p, s90["keys"] + SM100["keys"], per_problem, shared_per_key,
                              total - parts["sm90_decide"] - parts["sm100_decide_if_modelled"], wall,
                              _bound(bound))
    return {**({"problems_fitted": fitted} if fitted else {}),
            "from_point": {"workers": p["workers"], "keys": keys, "wall_s": p["wall_s"],
                           "order": p.get("order", "phased")},
            "seconds_per_unit": {"derive_batch": round(per_batch, 2), "decide_problem": round(per_problem, 2),
                                 "verify_key": round(per_key, 2)},
            "efficiency": round(efficiency, 3), "efficiency_model": model, "fixed_s": round(fixed, 1),
            "worker_hours": worker_hours, "cores": cores,
            "sm90_all_plus_sm100_all_wall_min": round(wall(without_sm100_decide) / 60, 1),
            "with_sm100_problems_decided_wall_min": round(wall(total) / 60, 1),
            # SM90 max: its derive batches and its verifications alone (its distinct problems are not bounded yet)
            "sm90_max_derive_and_verify_wall_h": round(wall(math.ceil(SM90_MAX["keys"] / batch) * per_batch
                                                            + SM90_MAX["keys"] * per_key) / 3600, 1),
            "assumptions": "SM100 batches compile as SM90's do; SM90's distinct problems grow with its keys up to "
                           "the bound of bench/library_problems.py count; the point's efficiency (steady: while its "
                           "workers were saturated) holds at --cores; its start-up and unsaturated time are paid "
                           "once"}


def synthetic(args: argparse.Namespace) -> int:
    """Each point's sweep of ``bench/library_synthetic.py``'s stand-in units in each order, on one local cluster a
    point: the scheduling alone (the module's docstring)."""
    from bench import library_synthetic as syn
    from verifier.library.distribute import start_local_cluster

    # the workers import the stand-ins from this tree
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    orders = args.orders.split(",")
    report: dict[str, Any] = {"machine": {"cores": default_jobs(), "python": platform.python_version(),
                                          "platform": platform.platform()},
                              "scale": args.scale, "work": args.work, "batch": args.batch, "points": []}
    for text in args.points.split(","):
        w, _, n = text.partition(":")
        workers, keys = int(w) or default_jobs(), int(n)
        payloads = syn.payloads(keys, args.scale, args.work)
        cluster, client = start_local_cluster(workers)
        try:
            answers = []
            for order in orders:
                with tempfile.TemporaryDirectory(prefix="library-synthetic-") as tmp:
                    store = Path(tmp) / "keys.jsonl"
                    t = time.monotonic()
                    ran = phases.run(payloads, list(payloads), store, syn.VERSION, syn.VERSION, batch=args.batch,
                                     units=syn.UNITS, order=order, engine="dask",
                                     address=str(cluster.scheduler_address))
                    wall = time.monotonic() - t
                    answers.append({k: r.result for k, r in ran.keys.records.items()})
                row = {"workers": ran.keys.workers, "keys": keys, "wall_s": round(wall, 2),
                       "batches": ran.derive.computed if ran.derive else 0, "problems": ran.problems,
                       "problem_uses": ran.problem_uses, "errors": ran.keys.errors, **timeline(ran)}
                report["points"].append(row)
                print(json.dumps(row), flush=True)
            report["points"][-1]["same_answers_in_every_order"] = all(a == answers[0] for a in answers)
        finally:
            client.close()
            cluster.close()
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


def _solver_problems(q: dict[str, Any]) -> int:
    return int(q["decide"]["units"] - q["decide"].get("shared_units", 0))


def _problems_fitted(finished: list[dict[str, Any]], p: dict[str, Any], all_keys: int, per_problem: float,
                     shared_per_key: float, rest: float, wall: Any, bound: int | None = None) -> dict[str, Any] | None:
    """The sweep's distinct solver problems from how they grew between the finished points of ``p``'s sample (its
    architectures; the points' samples are whole derive batches evenly spaced, so a larger one meets the smaller's
    kinds of problems again): ``s(n) = s2 (n / n2)^a`` with ``a`` the growth exponent of each pair of consecutive
    points, the last pair's (the curve flattens as the keys grow) and the largest (the most pessimistic), and the
    sweep's wall time with each (``rest``: the seconds of every other unit).  With ``bound`` (the sweep's distinct
    solver problems at most, ``bench/library_problems.py count``), no estimate exceeds it (``capped``), and it
    replaces the linear upper bound where it is lower.  None with fewer than two points and no bound."""
    same = sorted((q for q in finished if q.get("sample_archs") == p.get("sample_archs") and _solver_problems(q)),
                  key=lambda q: q["verify"]["units"])
    pairs = [(a, b) for a, b in zip(same, same[1:]) if b["verify"]["units"] > a["verify"]["units"]]
    if not pairs and bound is None:
        return None
    exponents = [min(1.0, max(0.0, math.log(_solver_problems(b) / _solver_problems(a))
                              / math.log(b["verify"]["units"] / a["verify"]["units"]))) for a, b in pairs]
    top = same[-1] if same else p
    n2, s2 = top["verify"]["units"], max(1, _solver_problems(top))

    def problems_at(problems: float, **about: Any) -> dict[str, Any]:
        seconds = rest + problems * per_problem + all_keys * shared_per_key
        return {**about, "distinct_problems": round(problems), "worker_hours": round(seconds / 3600, 2),
                "wall_min": round(wall(seconds) / 60, 1)}

    def at(exponent: float) -> dict[str, Any]:
        problems = s2 * (all_keys / n2) ** exponent
        capped = bound is not None and problems > bound
        return problems_at(min(problems, bound) if capped and bound is not None else problems,
                           exponent=round(exponent, 3), **({"capped": True} if capped else {}))

    out: dict[str, Any] = {"points": [[q["verify"]["units"], _solver_problems(q)] for q in same], "keys": all_keys}
    if exponents:
        out.update(last_pair=at(exponents[-1]), largest_exponent=at(max(exponents)))
    linear = s2 * all_keys / n2
    out["linear"] = problems_at(linear, exponent=1.0)
    if bound is not None:
        lower = bound < linear
        out["bound"] = problems_at(bound, source="bench/library_problems.py count", replaces_linear=lower)
        out["upper_bound"] = "bound" if lower else "linear"
        out["said"] = (f"the sweep's distinct solver problems are at most {bound} (counted from the keys' fields), "
                       + (f"below the linear {round(linear)}: the upper bound is the count's" if lower else
                          f"not below the linear {round(linear)}: the upper bound stays the linear one"))
    return out


def _bound(count: dict[str, Any] | None) -> int | None:
    """The sweep's distinct solver problems at most, from ``bench/library_problems.py count``'s JSON: it must
    cover SM90 all and SM100 all, the sweep extrapolated."""
    if count is None:
        return None
    if sorted(count.get("archs", [])) != ["100a", "90a"] or count.get("kernels") != "all":
        raise SystemExit("--bound: expected the count of --arch 90a --arch 100a --kernels all, got "
                         f"{count.get('archs')} {count.get('kernels')}")
    return int(count["solver_problems_at_most"])


def extrapolate(args: argparse.Namespace) -> int:
    points: list[dict[str, Any]] = []
    sm90: dict[str, int] | None = None
    batch = args.batch
    for name in args.files:
        data = json.loads(Path(name).read_text())
        points += [{"sample_archs": data.get("sample_archs", ["90a"]), **q} for q in data["points"]]
        sm90 = data.get("sm90", sm90)
        batch = data.get("batch", batch)
    bound = json.loads(Path(args.bound).read_text()) if args.bound else None
    out = extrapolate_points(points, sm90, args.cores, batch, bound)
    print(json.dumps(out, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({"points": points, "extrapolation": out}, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="measure the points")
    r.add_argument("--points", default="1:8,4:32,16:128,0:256", help="W:N,... (W 0: every core)")
    r.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH)
    r.add_argument("--engine", default="dask", choices=("dask", "local"))
    r.add_argument("--order", default="pipeline", choices=phases.ORDERS)
    r.add_argument("--timeout", type=float, default=150.0, help="seconds a point may run (default 150)")
    r.add_argument("--cores", type=int, default=0, help="extrapolate to this many workers (default: this host's)")
    r.add_argument("--json", default=None)
    r.add_argument("--arch", action="append", choices=("90a", "100a"),
                   help="the keys sampled: whole derive batches evenly spaced over these architectures' keys "
                        "(repeatable; default 90a)")
    pt = sub.add_parser("point", help="one point (run starts it in a child process)")
    pt.add_argument("--workers", type=int, required=True)
    pt.add_argument("--keys", type=int, required=True)
    pt.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH)
    pt.add_argument("--engine", default="dask", choices=("dask", "local"))
    pt.add_argument("--order", default="pipeline", choices=phases.ORDERS)
    pt.add_argument("--plans", required=True)
    pt.add_argument("--store", required=True)
    pt.add_argument("--json", required=True)
    pt.add_argument("--arch", action="append", choices=("90a", "100a"))
    sy = sub.add_parser("synthetic", help="the scheduling alone: stand-in units (bench/library_synthetic.py)")
    sy.add_argument("--points", default="2:64", help="W:N,... (W 0: every core; default 2:64)")
    sy.add_argument("--scale", type=float, default=0.05,
                    help="unit costs times this (1: a batch 26 s, a problem 3 s, a key 2 s on average)")
    sy.add_argument("--work", default="sleep", choices=("sleep", "burn"))
    sy.add_argument("--orders", default="phased,pipeline")
    sy.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH)
    sy.add_argument("--json", default=None)
    x = sub.add_parser("extrapolate", help="extrapolate from the JSON files of earlier runs")
    x.add_argument("files", nargs="+")
    x.add_argument("--cores", type=int, default=64)
    x.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH)
    x.add_argument("--json", default=None)
    x.add_argument("--bound", default=None,
                   help="bench/library_problems.py count's JSON (--arch 90a --arch 100a): the sweep's distinct "
                        "solver problems at most, which caps the fitted ones and replaces the linear bound if lower")
    args = ap.parse_args(argv)
    return {"run": run, "point": point, "synthetic": synthetic, "extrapolate": extrapolate}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
