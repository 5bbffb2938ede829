"""Start-up: wall and CPU time of ``cute-verify`` commands in fresh processes, against ``python -c pass``.

Each command runs ``repeats`` times in a fresh interpreter (``python -m verifier.cli.app ...``), interleaved with the
baseline so that load on the machine hits both alike; the first, untimed run of each writes the bytecode cache
(``PYTHONDONTWRITEBYTECODE`` is removed from the environment: an installed package has its bytecode).  CPU time is
the children's user + system time, less sensitive to load than wall time.

    python bench/bench_startup.py [--quick]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, Config, Table, fmt_time, section_main  # noqa: E402

PY = [sys.executable]
CLI = [*PY, "-m", "verifier.cli.app"]
COMMANDS: list[tuple[str, list[str], float | None]] = [
    ("python -c pass (the baseline)", [*PY, "-c", "pass"], None),
    ("cute-verify eval (3,(2,3)):(3,(12,1))", [*CLI, "eval", "(3,(2,3)):(3,(12,1))"], 0.1),
    ("cute-verify composition (_2):(_1) (_2):(_1) (all static)", [*CLI, "composition", "(_2):(_1)", "(_2):(_1)"],
     0.1),
    ("cute-verify check bijective (_16,_16):(_16,_1) (all static)", [*CLI, "check", "bijective",
                                                                     "(_16,_16):(_16,_1)"], 0.1),
    ("cute-verify --help", [*CLI, "--help"], 0.2),
    ("cute-verify composition (M,_8):(_1,M) (_4,_8):(_1,_4) --rlimit 1 (all but the solver's work)",
     [*CLI, "composition", "(M,_8):(_1,M)", "(_4,_8):(_1,_4)", "--rlimit", "1"], 0.2),
]
BEFORE = {"cute-verify eval (3,(2,3)):(3,(12,1))": "0.22 s wall",
          "cute-verify composition (_2):(_1) (_2):(_1) (all static)": "0.31 s wall, 0.21 s CPU",
          "python -c pass (the baseline)": "0.04 s wall"}


def _once(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)


def run(cfg: Config) -> Table:
    t = Table("6. Start-up of the command line (fresh processes)",
              ["command", "wall (median, min–max)", "CPU (median)", "wall minus python -c pass",
               "target (wall, idle machine)", "before (issue 16)"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    for _, cmd, _ in COMMANDS:
        _once(cmd, env)  # writes the bytecode cache; not timed
    n = max(3, cfg.repeats * 2)
    walls: dict[str, list[float]] = {name: [] for name, _, _ in COMMANDS}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in COMMANDS}
    for _ in range(n):
        for name, cmd, _ in COMMANDS:
            w, c = _once(cmd, env)
            walls[name].append(w)
            cpus[name].append(c)
    base = statistics.median(walls[COMMANDS[0][0]])
    base_cpu = statistics.median(cpus[COMMANDS[0][0]])
    t.data["python_pass"] = base
    for name, _, target in COMMANDS:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        t.add(name, f"{fmt_time(w)} ({fmt_time(min(walls[name]))}–{fmt_time(max(walls[name]))}, n={n})",
              fmt_time(c), "-" if target is None else f"+{fmt_time(w - base)} (CPU +{fmt_time(c - base_cpu)})",
              "-" if target is None else f"< {target:g} s", BEFORE.get(name, "-"))
        if target is not None:
            # Idle estimate: the baseline's idle 0.04 s plus this command's CPU time over the baseline's.
            estimate = 0.04 + max(0.0, c - base_cpu)
            t.data[name] = {"wall": w, "cpu": c, "over_pass": w - base, "target": target, "idle_estimate": estimate}
            if w > target and estimate > target:
                t.losses.append(f"{name}: {fmt_time(w)} wall here ({fmt_time(estimate)} estimated on an idle "
                                f"machine) against a target of {target:g} s.")
    t.notes.append("Wall times depend on the machine's load (the header gives the load average); CPU time and the "
                   "difference to python -c pass less so. An idle-machine estimate is python -c pass's 0.04 s "
                   "(issue 16) plus the command's CPU time over the baseline's; a target counts as missed only when "
                   "both the measured wall time and that estimate exceed it.")
    t.notes.append("Nothing heavy loads before it is needed: z3 and the encoding on the first solver call, the "
                   "pictures (urllib, http) when drawing, the GPU harness for `gpu`, sympy never on these paths "
                   "(`python -X importtime -m verifier.cli.app ...` shows it).")
    return t


if __name__ == "__main__":
    sys.exit(section_main(run, __doc__))
