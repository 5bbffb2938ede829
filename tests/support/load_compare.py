"""What ``tests/engine/test_load.py`` and ``tests/support/load_spread.py`` share: starting ``load_run`` processes pinned
to one CPU, collecting their answers, and comparing the runs (every field, and the wall-clock safety net never
fired)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from verifier.solver.budget import NET

ROOT = Path(__file__).resolve().parents[2]
LOAD = 8


def start(which: str, shard: str, passes: str, hashseed: int, cpu: int | None = None) -> subprocess.Popen[str]:
    """``load_run`` deciding ``which`` items of ``shard`` in ``passes``, pinned to ``cpu`` (default: this process's
    first CPU, so that every process started by a test shares one)."""
    cpu = min(os.sched_getaffinity(0)) if cpu is None else cpu
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": str(hashseed)}
    return subprocess.Popen([sys.executable, "-m", "tests.support.load_run", "--set", which, "--shard", shard,
                             "--passes", passes], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))


def collect(procs: list[subprocess.Popen[str]]) -> dict[str, dict[str, object]]:
    """``{pass: {item: record}}`` of the processes' output."""
    out: dict[str, dict[str, object]] = {}
    for p in procs:
        stdout, stderr = p.communicate(timeout=3600)
        assert p.returncode == 0, stderr[-2000:]
        for line in stdout.splitlines():
            row = json.loads(line)
            out.setdefault(row["pass"], {})[row["item"]] = row["record"]
    return out


def differences(a: object, b: object, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for k, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{k}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def compare(runs: dict[str, dict[str, dict[str, object]]]) -> None:
    (first, base), *others = runs.items()
    assert len(base) >= 10
    fired = [f"{run}/{k}" for run, records in runs.items() for k, r in records.items() if NET in json.dumps(r)]
    assert not fired, f"the wall-clock safety net decided {fired[:5]}"
    differ = []
    for name, records in others:
        assert set(records) == set(base), (name, sorted(set(base) ^ set(records)))
        for item in base:
            d = differences(base[item], records[item])
            if d:
                differ.append(f"{item}: {first} vs {name}: " + "; ".join(x[:300] for x in d[:4]))
    assert not differ, "\n".join(differ)
