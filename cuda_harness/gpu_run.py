"""The hardware run behind ``docs/hardware.md``: both corpora on the GPU, the GPU sweep against compiled CuTe on the
host and the engine's verdicts, and the sweep's throughput against a host numpy evaluation in the same run.

    python -m cuda_harness.gpu_run --out hardware.json [--host] [--verdicts verdicts.json] [--limit N]
    python -m cuda_harness.gpu_run --write-verdicts verdicts.json     # the engine's verdicts (needs z3), reusable

Parts of the result (one JSON object):

* ``conformance``: every case of ``oracle/data/cutlass_unit_cases.json`` in its original, all-dynamic and all-static
  variants through ``harness.evaluate`` (CuTe on the device, the model on the device, the host model).
* ``parametric_points``: every case of ``oracle/data/parametric_cases.json`` the same way, at the engine's
  counterexample (if any) and at sample assignments of its range.
* ``sweep``: every parametric case over every assignment of its range (within its assumptions) on the device;
  statuses compared with ``verifier.oracle.sweep`` (compiled CuTe on the host); the engine's refutations must be
  device mismatches at the counterexample, and no device mismatch may appear where the engine proved validity.
* ``throughput``: coordinate checks per second of the device sweep and of a numpy evaluation of the same checks
  (the composition cases at the assignments where CuTe is correct, so every coordinate is checked).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from cuda_harness.harness import Case, evaluate, np_eval, sweep, sweep_kernels
from cuda_harness.probe import environment, gpu_available
from cuda_harness.runner import runner
from verifier.core.layouts import Layout
from verifier.oracle.corpora import (
    CUTLASS_UNIT_CORPUS,
    PARAMETRIC_CORPUS,
    operands,
    parametric,
    parametric_assignments,
    problem,
)
from verifier.oracle.sweep import SweepCase, key
from verifier.oracle.sweep import sweep as host_sweep

SAMPLES = 6


def conformance_cases(limit: int | None = None) -> list[Case]:
    data = json.loads(CUTLASS_UNIT_CORPUS.read_text())[:limit]
    return [Case(f"{c['file']}:{c['line']} {c['op']}({', '.join(c['args'])}) [{v}]", c["op"],
                 tuple(operands(c["args"], v))) for c in data for v in ("original", "dynamic", "static")]


def parametric_corpus(limit: int | None = None) -> list[dict]:
    return json.loads(PARAMETRIC_CORPUS.read_text())[:limit]


def write_verdicts(path: Path, limit: int | None = None) -> dict[str, dict]:
    """The engine's verdict on every parametric case (what ``tests/engine/test_engine_parametric.py`` computes)."""
    from verifier.engine.verify import verify

    out = {}
    for e in parametric_corpus(limit):
        op, args, sy = problem(e)
        v = verify(op, args, sy, timeout=10, derive=False)
        c = v.counterexample
        out[e["id"]] = {"verdict": v.verdict, "reason": v.reason,
                        "counterexample": dict(c.params) if c is not None else None,
                        "obligation": c.obligation if c is not None else None}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(out, indent=1))
    os.replace(tmp, path)
    return out


def _samples(envs: Sequence[Mapping[str, int]], extra: Mapping[str, int] | None) -> list[dict[str, int]]:
    picks = [dict(envs[int(k)]) for k in np.linspace(0, len(envs) - 1, min(SAMPLES, len(envs)))] if envs else []
    if extra is not None and dict(extra) not in picks:
        picks.insert(0, dict(extra))
    return picks


def _summary(report, keep: int = 20) -> dict:
    checks = report.checks
    return {
        "runs": len(checks),
        "counts": report.counts(),
        "indices_compared": sum(c.indices for c in checks),
        "model_on_device": sum(c.model_on_device for c in checks),
        "compared_without_model_kernel": [c.label for c in checks if c.status == "agree" and not c.model_on_device],
        "injective": sum(c.injective is True for c in checks),
        "not_injective": sum(c.injective is False for c in checks),
        "bijective": sum(c.bijective is True for c in checks),
        "out_of_bounds": sum(c.in_bounds is False for c in checks),
        "mismatches": [f"{c.label} {c.env}: {c.detail}" for c in checks if c.status == "mismatch"][:keep],
        "seconds": round(report.seconds, 2),
    }


# -- numpy baseline ------------------------------------------------------------------------------------------------


def numpy_composition_checks(a: Layout, b: Layout, r: Layout) -> tuple[int, bool]:
    """``R(i) == A(B(i))`` for every ``i < size(B)``: the number of coordinates checked and whether all hold."""
    n = int(b.size())
    i = np.arange(n, dtype=np.int64)
    ok = int(r.size()) == n and bool(np.array_equal(np_eval(r, i), np_eval(a, np_eval(b, i))))
    return n, ok


def throughput(entries: Sequence[dict], truth: Mapping[str, Mapping], host: bool, budget_s: float = 20.0) -> dict:
    """Coordinate checks per second: the device sweep vs numpy, on the composition cases' correct assignments."""
    from cuda_harness.harness import sweep_device
    from verifier.algebra.ops import composition

    picked = []
    for e in entries:
        if e["op"] != "composition" or not isinstance(parametric(e)[1][1], Layout):
            continue
        envs = [env for env in parametric_assignments(e) if truth.get(e["id"], {}).get(key(env)) == "correct"]
        if envs:
            picked.append((e, envs))
    if not picked:
        return {"note": "no composition case with correct assignments"}
    cases = [SweepCase(*parametric(e)) for e, _ in picked]
    codes, kernels, names = sweep_kernels(cases)
    run = runner(list(kernels.values()), host=host)
    rows, dev_s, np_s, dev_checks, np_checks = [], 0.0, 0.0, 0, 0
    for (e, envs), cpp, name, case in zip(picked, codes, names, cases):
        a, b = case.operands
        checks = sum(int(b.substitute(env).size()) for env in envs)  # type: ignore[union-attr]
        sweep_device(run, name, cpp, envs)  # warm-up: module load, first launch
        res = sweep_device(run, name, cpp, envs)
        assert all(s == "correct" for s in res.status.values()), e["id"]
        r = composition(a, b)  # the model's symbolic result, once; per assignment only substitution and numpy
        t0, done, n_np = time.perf_counter(), 0, 0
        for env in envs:  # numpy on as many assignments as the budget allows, in the same order
            aa, bb = a.substitute(env), b.substitute(env)  # type: ignore[union-attr]
            n, ok = numpy_composition_checks(aa, bb, r.substitute(env))
            assert ok, (e["id"], env)
            done += n
            n_np += 1
            if time.perf_counter() - t0 > budget_s / len(picked):
                break
        t_np = time.perf_counter() - t0
        rows.append({"case": e["id"], "assignments": len(envs), "coordinate_checks": checks,
                     "device_seconds": res.seconds, "device_checks_per_s": checks / max(res.seconds, 1e-9),
                     "numpy_assignments": n_np, "numpy_checks": done, "numpy_seconds": t_np,
                     "numpy_checks_per_s": done / max(t_np, 1e-9)})
        dev_s += res.seconds
        dev_checks += checks
        np_s += t_np
        np_checks += done
    dev_rate, np_rate = dev_checks / max(dev_s, 1e-9), np_checks / max(np_s, 1e-9)
    return {"device": "host mode (g++)" if host else "GPU", "method": run.method, "cases": rows,
            "device_checks": dev_checks, "device_seconds": dev_s, "device_checks_per_s": dev_rate,
            "numpy_checks": np_checks, "numpy_seconds": np_s, "numpy_checks_per_s": np_rate,
            "ratio_device_over_numpy": dev_rate / max(np_rate, 1e-9),
            "what": "R(i) == A(B(i)) for every i < size(B), at every assignment where CuTe's composition is correct; "
                    "device: CuTe's own result on the device, one thread per assignment (kernel time, CUDA events); "
                    "numpy: the model's symbolic result substituted per assignment and evaluated vectorised "
                    "(wall clock, the same checks)"}


# -- the run ------------------------------------------------------------------------------------------------------


def run_all(host: bool, verdicts: Mapping[str, dict], limit: int | None, log, save=lambda out: None) -> dict:
    """Every part of the run (module docstring); ``save`` gets the result so far after each part."""
    t_all = time.perf_counter()
    env = environment()
    out: dict = {"device": env.get("gpu", "CPU (host mode)") if not host else "CPU (host mode)",
                 "date": time.strftime("%Y-%m-%d", time.gmtime()), "source": "cuda_harness/gpu_run.py",
                 "cuda": f"runtime {env.get('cuda_runtime')}, driver {env.get('driver')}, NVRTC {env.get('nvrtc')}",
                 "cupy": env.get("cupy"), "environment": env, "mode": "host (g++)" if host else "GPU"}
    log(f"environment: {env}")

    cases = conformance_cases(limit)
    rep = evaluate(cases, host=host)
    out["compile_method"] = rep.method
    out["compile_attempts_failed"] = rep.tried
    out["conformance"] = {"cases": len(cases) // 3, **_summary(rep)}
    log(f"conformance: {out['conformance']['counts']} in {rep.seconds:.1f}s ({rep.method})")
    save(out)

    entries = parametric_corpus(limit)
    envs_of = {e["id"]: parametric_assignments(e) for e in entries}
    pcases = []
    for e in entries:
        op, ops, tpl = parametric(e)
        cx = (verdicts.get(e["id"]) or {}).get("counterexample")
        pcases.append(Case(e["id"], op, ops, tpl, tuple(_samples(envs_of[e["id"]], cx))))
    rep = evaluate(pcases, host=host)
    out["parametric_points"] = {"cases": len(pcases), **_summary(rep)}
    log(f"parametric points: {out['parametric_points']['counts']} in {rep.seconds:.1f}s")
    save(out)

    scases = [SweepCase(*parametric(e)) for e in entries]
    for e in entries:  # the engine's counterexample may lie outside the range: sweep it too
        cx = (verdicts.get(e["id"]) or {}).get("counterexample")
        if cx and dict(cx) not in envs_of[e["id"]]:
            envs_of[e["id"]] = [*envs_of[e["id"]], dict(cx)]
    t0 = time.perf_counter()
    run = runner(list(sweep_kernels(scases)[1].values()), host=host)
    t_build = time.perf_counter() - t0
    dev, method = sweep(scases, [envs_of[e["id"]] for e in entries], host=host, run=run)
    t_dev = time.perf_counter() - t0
    out["sweep_compile_attempts_failed"] = run.tried
    out["sweep_build_seconds"] = round(t_build, 1)
    log(f"device sweep: {sum(len(d.status) for d in dev)} assignments in {t_dev:.1f}s ({method})")
    t0 = time.perf_counter()
    ref = host_sweep(scases, [envs_of[e["id"]] for e in entries])
    t_host = time.perf_counter() - t0
    log(f"host sweep (cute_sweep): {t_host:.1f}s")
    out["sweep"] = _sweep_summary(entries, dev, ref, verdicts, t_dev, t_host, method)
    save(out)
    truth = {e["id"]: r.status for e, r in zip(entries, ref)}
    out["throughput"] = throughput(entries, truth, host)
    # What bench/bench_gpu.py reads: the sweep's rate (coordinate checks, each at least one layout evaluation).
    if "device_checks_per_s" in out["throughput"]:
        out["sweep"]["evaluations_per_s"] = out["throughput"]["device_checks_per_s"]
        out["sweep"]["evaluations_what"] = "= throughput.device_checks_per_s (coordinate checks per second)"
    log(f"throughput: {out['throughput'].get('device_checks_per_s')} vs numpy "
        f"{out['throughput'].get('numpy_checks_per_s')}")
    out["seconds"] = round(time.perf_counter() - t_all, 1)
    return out


def _sweep_summary(entries, dev, ref, verdicts, t_dev, t_host, method) -> dict:
    agree = differ = only_ub = undecided = 0
    diffs, cases = [], []
    refuted = proved = refuted_hit = proved_clean = 0
    problems = []
    for e, d, h in zip(entries, dev, ref):
        wrong = sorted(k for k, s in d.status.items() if s == "wrong")
        for k, s in h.status.items():
            g = d.status.get(k)
            if s == "ub":
                only_ub += 1  # CuTe divides by zero: the GPU does not trap, nothing to compare
            elif s == "too_large" or g == "too_large":
                undecided += 1
            elif g == s:
                agree += 1
            else:
                differ += 1
                if len(diffs) < 20:
                    diffs.append(f"{e['id']} {dict(k)}: device {g}, host {s}")
        if (d.rejected is None) != (h.rejected is None):
            differ += 1
            diffs.append(f"{e['id']}: device rejected={d.rejected}, host rejected={h.rejected}")
        v = verdicts.get(e["id"]) or {}
        verdict, cx = v.get("verdict"), v.get("counterexample")
        at_cx = d.status.get(key(cx)) if cx else None
        row = {"id": e["id"], "op": e["op"], "assignments": len(h.status), "device_wrong": len(wrong),
               "device_wrong_first": [dict(k) for k in wrong[:3]], "verdict": verdict, "counterexample": cx,
               "device_at_counterexample": at_cx, "host_at_counterexample": h.status.get(key(cx)) if cx else None}
        if verdict == "invalid" and cx:
            refuted += 1
            if at_cx == "wrong":
                refuted_hit += 1
            else:
                host_at = row["host_at_counterexample"]
                problems.append(f"{e['id']}: refuted at {cx}, device says {at_cx} (host {host_at})")
        elif verdict == "invalid" and d.rejected is not None:
            refuted += 1
            refuted_hit += 1
            row["device_at_counterexample"] = "rejected at compile time"
        if verdict == "valid":
            proved += 1
            if wrong or d.rejected:
                problems.append(f"{e['id']}: proved valid, device wrong at {[dict(k) for k in wrong[:3]]}")
            else:
                proved_clean += 1
        cases.append(row)
    return {"cases": len(entries), "assignments": sum(len(h.status) for h in ref), "method": method,
            "agree_with_host_sweep": agree, "differ_from_host_sweep": differ, "host_ub_not_compared": only_ub,
            "too_large_not_compared": undecided, "differences": diffs,
            "refuted": refuted, "refuted_with_device_mismatch_at_counterexample": refuted_hit,
            "proved": proved, "proved_without_device_mismatch": proved_clean, "problems": problems,
            "device_seconds_wall": round(t_dev, 2), "device_kernel_seconds": round(sum(x.seconds for x in dev), 3),
            "host_sweep_seconds": round(t_host, 2), "per_case": cases}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cuda_harness.gpu_run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--host", action="store_true", help="run the generated code on the CPU (g++)")
    ap.add_argument("--verdicts", type=Path, help="the engine's verdicts (--write-verdicts); computed if absent")
    ap.add_argument("--write-verdicts", type=Path)
    ap.add_argument("--limit", type=int, help="only the first N cases of each corpus")
    args = ap.parse_args(argv)
    if args.write_verdicts:
        write_verdicts(args.write_verdicts, args.limit)
        return 0
    if not args.host and gpu_available() is not None:
        print(f"no GPU: {gpu_available()}; use --host", file=sys.stderr)
        return 2
    if args.verdicts and args.verdicts.is_file():
        verdicts = json.loads(args.verdicts.read_text())
    else:
        tmp = Path(os.environ.get("TMPDIR", "/tmp")) / "cute-verify-verdicts.json"
        verdicts = write_verdicts(tmp, args.limit)
    command = "python -m cuda_harness.gpu_run " + " ".join(argv if argv is not None else sys.argv[1:])

    def save(out: dict) -> None:
        if args.out:
            tmp = args.out.with_name(args.out.name + ".tmp")
            tmp.write_text(json.dumps({"command": command, **out}, indent=1, default=str))
            os.replace(tmp, args.out)

    result = run_all(args.host, verdicts, args.limit, lambda s: print(s, flush=True), save)
    result["command"] = command
    save(result)
    print(json.dumps({k: result[k] for k in ("conformance", "parametric_points")}, default=str)[:4000])
    s = result["sweep"]
    print({k: s[k] for k in s if k not in ("per_case",)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
