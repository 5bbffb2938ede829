"""Verdicts do not depend on the machine's load: proofs/ and the parametric corpus get the same verdicts, and the
same failing obligations, when decided alone and under 4x CPU oversubscription.

All runs are pinned to one CPU, and the items are cut into four shards.  Alone: the four shards' processes run one
after the other.  Loaded: the same four processes run at once, so every item is decided while four runs compete for
the CPU (run time bounded: the items are decided twice in all).  Each item has the same process history in both
(the items of its shard before it): which counterexample Z3 picks, though not the verdict, depends on the terms
created before in the process, and in rare cases (2 of 226 in one run of the whole suite) its values differ under
load even so; every counterexample is replayed concretely either way, so only the verdict and the obligation that
fails are compared.  The engine's budget is in Z3 resource units
(``verifier/solver/budget.py``); the wall-clock safety net is set far above any item's need and must never fire.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.solver.budget import NET

ROOT = Path(__file__).resolve().parents[2]
LOAD = 4

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs os.sched_setaffinity (Linux)")


def _cpu() -> int:
    return min(os.sched_getaffinity(0))


def _start(shard: int, count: int) -> subprocess.Popen[str]:
    cpu = _cpu()
    # The same string hashing in every run: set iteration order then orders the solver's constraints alike, which
    # the counterexample Z3 picks (not the verdict) depends on.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    return subprocess.Popen([sys.executable, "-m", "tests.support.load_run", str(shard), str(count)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))


def _collect(procs: list[subprocess.Popen[str]]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for p in procs:
        stdout, stderr = p.communicate(timeout=1800)
        assert p.returncode == 0, stderr[-2000:]
        for line in stdout.splitlines():
            row = json.loads(line)
            out[str(row["item"])] = row
    return out


def test_verdicts_are_the_same_alone_and_under_4x_oversubscription() -> None:
    alone: dict[str, dict[str, object]] = {}
    for k in range(LOAD):
        alone |= _collect([_start(k, LOAD)])
    loaded = _collect([_start(k, LOAD) for k in range(LOAD)])
    assert set(alone) == set(loaded) and len(alone) > 200
    fired = [k for k, r in {**alone, **loaded}.items() if NET in str(r["reason"])]
    assert not fired, f"the wall-clock safety net decided {fired[:5]}"
    def outcome(r: dict[str, object]) -> tuple[object, object]:
        cex = r["counterexample"]
        return r["verdict"], None if cex is None else cex[1]  # type: ignore[index]

    differ = [f"{k}: alone {alone[k]['verdict']} {alone[k]['counterexample']}, "
              f"loaded {loaded[k]['verdict']} {loaded[k]['counterexample']}"
              for k in alone if outcome(alone[k]) != outcome(loaded[k])]
    assert not differ, "\n".join(differ)
