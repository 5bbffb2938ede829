"""Item 5: the GPU sweep's throughput (``cuda_harness/throughput.py``, recorded in ``docs/hardware.json`` under
``sweep_throughput``) against numpy on the same checks, measured in the same GPU run: the one numpy baseline that
``docs/hardware.md`` records too.

This machine has no GPU, so the GPU figure is never measured by this script: it is read from the record, with its
provenance, or reported as not measured.  For scale only, a numpy evaluation of ``(M,N):(_1,M)`` at every 1-D index
for every ``M, N`` in ``1..sweep_top`` is measured here (another machine and workload: no ratio is formed with it).

    python bench/bench_gpu.py [--quick] [--hardware docs/hardware.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from bench.common import FULL, QUICK, ROOT, Config, Table, fmt_stats, measure  # noqa: E402

HARDWARE = ROOT / "docs" / "hardware.json"
PROVENANCE = ("device", "date", "commit", "command", "source", "cuda", "cupy")


def evaluate(shape: list[int], stride: list[int]) -> np.ndarray:
    """Every value of the flat layout ``shape:stride`` (column-major 1-D order, as CuTe's ``L(i)``)."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    div = 1
    for s, d in zip(shape, stride):
        out += (i // div) % s * d
        div *= s
    return out


def host_sweep(top: int) -> int:
    """Evaluate ``(M,N):(_1,M)`` everywhere for M, N in 1..top; returns the number of evaluations."""
    total = 0
    for m in range(1, top + 1):
        for n in range(1, top + 1):
            total += evaluate([m, n], [1, m]).size
    return total


def gpu_figure(path: Path) -> tuple[float | None, str]:
    """(evaluations per second, provenance text) from the cuda_harness record, or (None, why not)."""
    if not path.is_file():
        return None, f"not measured in this run ({path.name} not found: no GPU figure recorded)"
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        return None, f"not measured in this run ({path.name} unreadable: {exc})"
    if not isinstance(data, dict):
        return None, f"not measured in this run ({path.name} is not a JSON object)"
    prov = "; ".join(f"{k}: {data[k]}" for k in PROVENANCE if k in data) or "no provenance fields"
    sweep = data.get("sweep")
    rate = sweep.get("evaluations_per_s") if isinstance(sweep, dict) else None
    if not isinstance(rate, (int, float)) or isinstance(rate, bool):
        return None, (f"{path.name} present ({prov}) but without sweep.evaluations_per_s (keys: "
                      f"{', '.join(sorted(data))}); not compared")
    return float(rate), f"from {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} ({prov})"


def sweep_record(path: Path) -> dict | None:
    """The ``sweep_throughput`` record of ``docs/hardware.json`` (cuda_harness/throughput.py), if any."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    rec = data.get("sweep_throughput") if isinstance(data, dict) else None
    return rec if isinstance(rec, dict) else None


def run(cfg: Config, hardware: Path = HARDWARE) -> Table:
    t = Table("5. GPU sweep throughput vs numpy",
              ["what", "time", "checks", "checks / s", "ratio to numpy (same GPU run)"])
    rec = sweep_record(hardware)
    if rec is not None:
        res = rec["result"]
        np_rate = float(res["numpy"]["checks_per_s"])
        t.add(f"GPU sweep, {res['device']} ({rec['date']}, {rec['source']})",
              f"{res['seconds_per_sweep'] * 1e6:.1f} µs per sweep", res["checks_per_sweep"],
              f"{res['checks_per_s']:.3g}", f"{res['checks_per_s'] / np_rate:.3g}×")
        t.add("numpy, the same checks, in the same GPU run (that machine's CPU)", f"{res['numpy']['seconds']:.2f} s",
              res["numpy"]["checks"], f"{np_rate:.3g}", "1×")
        frac = float(rec["fraction_of_lane_bound"])
        t.data.update({"gpu_checks_per_s": res["checks_per_s"], "numpy_checks_per_s": np_rate,
                       "int_ops_per_check": rec["int_ops_per_check"], "fraction_of_bound": frac,
                       "fraction_of_bound_1_7": rec["fraction_of_lane_bound_at_1_7_GHz"]})
        t.notes.append(f"GPU: {rec['int_ops_per_check']:.1f} integer operations per check (Nsight Compute's executed "
                       f"integer instructions / checks), {rec['int_ops_per_s']:.3g} integer operations per second: "
                       f"{frac:.1%} of the bound ({rec['lane_bound']}), "
                       f"{rec['fraction_of_lane_bound_at_1_7_GHz']:.1%} at the issue's 1.7 GHz ({res['timing']}). "
                       f"Before: {rec['before']['checks_per_s']:.3g} checks/s ({rec['before']['what']}).")
        if "static_int_ops_per_check" in rec:
            t.notes.append(f"Counting only the evaluation's integer instructions in the generated code "
                           f"({rec['static_int_ops_per_check']:.1f} per check): "
                           f"{rec['fraction_of_lane_bound_static']:.1%} of the bound.")
        if "per_launch" in rec:
            pl = rec["per_launch"]
            t.notes.append(f"One sweep per launch ({pl['seconds_per_sweep'] * 1e6:.1f} µs kernels; launch gaps, ramp "
                           f"and tail included): {pl['checks_per_s']:.3g} checks/s, {pl['fraction_of_lane_bound']:.1%} "
                           f"of the bound ({pl['fraction_of_lane_bound_static']:.1%} by the generated code's count).")
        t.notes.append(f"Both figures of the ratio come from one run on one machine ({rec['command']}; commit "
                       f"{rec['commit']}); docs/hardware.md records the same run and the same numpy baseline.")
        if frac < 0.5:
            t.losses.append(f"the GPU sweep reaches {frac:.1%} of the integer bound ({rec['lane_bound']}; "
                            f"{rec['fraction_of_lane_bound_at_1_7_GHz']:.1%} at 1.7 GHz): the goal of 50% is "
                            f"missed by {50 - 100 * frac:.1f} points.")
        pl_frac = float(rec.get("per_launch", {}).get("fraction_of_lane_bound", 1.0))
        if pl_frac < 0.5:
            t.losses.append(f"with one sweep per launch the GPU sweep reaches {pl_frac:.1%} of the integer bound: "
                            f"50% is missed there by {50 - 100 * pl_frac:.1f} points (launch gaps, ramp and tail of "
                            f"{rec['per_launch']['seconds_per_sweep'] * 1e6:.0f} µs kernels).")
    else:
        t.add("GPU sweep (cuda_harness/throughput.py)", "-", "-", f"not measured ({hardware.name} has no "
              "sweep_throughput record)", "-")
    counts: list[int] = []
    host = measure(lambda: counts.append(host_sweep(cfg.sweep_top)), cfg.repeats)
    t.add(f"for scale: numpy here, every value of (M,N):(_1,M), M, N in 1..{cfg.sweep_top} (this run)",
          fmt_stats(host), counts[0], f"{counts[0] / host.median:.3g}", "- (another machine and workload)")
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--hardware", type=Path, default=HARDWARE)
    a = ap.parse_args()
    print(run(QUICK if a.quick else FULL, a.hardware).text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
