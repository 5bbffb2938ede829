"""Item 5: GPU sweep throughput (from the cuda_harness, recorded in ``docs/hardware.json``) vs a host numpy
evaluation measured here.

This machine has no GPU, so the GPU figure is never measured by this script: it is read from
``docs/hardware.json`` when that file exists and shown with its provenance (device, date, commit, command, as the
file records them), or reported as "not measured in this run".  A ratio is formed only when the file gives
``sweep.evaluations_per_s`` (layout evaluations per second); the host figure it is compared with is measured in
this run, so the two come from different runs and machines, which the table says.

The host baseline: evaluate the layout ``(M,N):(_1,M)`` at every 1-D index for every ``M, N`` in
``1..sweep_top`` with numpy (vectorised div / mod per mode, int64), the work of one sweep over the symbol values.

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


def run(cfg: Config, hardware: Path = HARDWARE) -> Table:
    t = Table("5. GPU sweep throughput vs host numpy evaluation",
              ["what", "time", "evaluations", "evaluations / s", "ratio to host numpy"])
    counts: list[int] = []
    host = measure(lambda: counts.append(host_sweep(cfg.sweep_top)), cfg.repeats)
    host_rate = counts[0] / host.median
    t.add(f"host numpy, (M,N):(_1,M), M, N in 1..{cfg.sweep_top} (this run)", fmt_stats(host), counts[0],
          f"{host_rate:.3g}", "1×")
    rate, prov = gpu_figure(hardware)
    if rate is None:
        t.add("GPU sweep (cuda_harness)", "-", "-", prov, "-")
        t.notes.append("The GPU figure is not part of this run: no number is shown rather than an estimate.")
    else:
        t.add("GPU sweep (cuda_harness)", "-", "-", f"{rate:.3g}", f"{rate / host_rate:.3g}×")
        t.notes.append(f"GPU figure {prov}. It was measured in another run on another machine; the ratio divides it "
                       "by the host figure of this run.")
        if rate < host_rate:
            t.losses.append("the recorded GPU sweep evaluates fewer layouts per second than host numpy here.")
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
