"""Shared pieces of the benchmarks: timing with repeats, ratios, tables, run presets and the machine description.

Every figure is a ``Stats`` (median, min, max of ``n`` runs) and every comparison a ratio of two ``Stats`` measured
in the same process run: ``ratio(a, b)`` is ``median(a) / median(b)`` with the range ``min(a)/max(b) ..
max(a)/min(b)`` (the widest the repeats allow).  Tests never assert on these numbers, only on the tables' shape.
"""

from __future__ import annotations

import itertools
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.core.symbols import Symbols  # noqa: E402

SEED = 8  # issue 8; every random choice in bench/ derives from it


@dataclass(frozen=True)
class Stats:
    """Seconds per run: median, min and max of ``n`` runs."""

    median: float
    lo: float
    hi: float
    n: int

    @staticmethod
    def of(xs: list[float]) -> Stats:
        return Stats(statistics.median(xs), min(xs), max(xs), len(xs))


def measure(fn: Callable[[], object], repeats: int, budget: float | None = None) -> Stats:
    """Run ``fn`` ``repeats`` times (at least once; fewer once ``budget`` seconds are spent) and time each run."""
    times: list[float] = []
    spent = 0.0
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
        if budget is not None and spent > budget:
            break
    return Stats.of(times)


@dataclass(frozen=True)
class Ratio:
    median: float
    lo: float
    hi: float


def ratio(a: Stats, b: Stats) -> Ratio:
    """``a / b``: the ratio of the medians, and the widest range the repeats allow."""
    tiny = 1e-12
    return Ratio(a.median / max(b.median, tiny), a.lo / max(b.hi, tiny), a.hi / max(b.lo, tiny))


def fmt_time(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_stats(s: Stats) -> str:
    """``median (min-max, n=..)``."""
    if s.n == 1:
        return f"{fmt_time(s.median)} (n=1)"
    return f"{fmt_time(s.median)} ({fmt_time(s.lo)}–{fmt_time(s.hi)}, n={s.n})"


def fmt_ratio(r: Ratio) -> str:
    def f(x: float) -> str:
        return f"{x:.3g}"
    return f"{f(r.median)}× ({f(r.lo)}–{f(r.hi)})"


@dataclass
class Table:
    """One benchmark's result: a table, notes under it, and the places where we lose (plain sentences)."""

    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)
    data: dict[str, object] = field(default_factory=dict)

    def add(self, *cells: object) -> None:
        assert len(cells) == len(self.headers), (cells, self.headers)
        self.rows.append([str(c) for c in cells])

    def markdown(self) -> str:
        out = [f"## {self.title}", ""]
        out.append("| " + " | ".join(self.headers) + " |")
        out.append("|" + "---|" * len(self.headers))
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in self.rows]
        out.append("")
        out += [f"- {n}" for n in self.notes]
        return "\n".join(out) + "\n"

    def text(self) -> str:
        widths = [max(len(h), *(len(r[k]) for r in self.rows)) if self.rows else len(h)
                  for k, h in enumerate(self.headers)]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
        out = [self.title, line(self.headers), line(["-" * w for w in widths])]
        out += [line(r) for r in self.rows]
        out += [f"* {n}" for n in self.notes] + [f"! lose: {w}" for w in self.losses]
        return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Config:
    """How much each benchmark runs: ``FULL`` for the published figures, ``QUICK`` for a smoke run."""

    quick: bool
    repeats: int                        # repeats of every fast measurement
    algebra_inputs: int                 # item 1: seeded inputs per operation
    sizes: tuple[int, ...]              # item 2: log2 of the layout sizes
    enum_cap_s: float                   # item 2: enumeration not run where its predicted time exceeds this
    check_timeout_s: float              # items 2 and 4: the engine's budget per check
    parametric_cases: tuple[str, ...]   # item 3: ids from verifier/oracle/data/parametric_cases.json
    top: int                            # item 3: enumeration over symbol values 1..top
    enum_budget_s: float                # item 3: enumeration budget per case and baseline
    engine_timeout_s: float             # item 3: the engine's budget per case
    static_log2: int                    # item 4: log2 of the static layout's size
    sweep_top: int                      # item 5: host sweep over M, N in 1..sweep_top


PARAMETRIC_CASES = (
    "cmp-seed-colmajor-rowmajor", "cmp-compact-dyn-1d-prefix", "cpl-rank1-unit-stride", "gemm-ldiv-MK-16x8",
    "gemm-zdiv-MN-128x64-M8", "gemm-tdiv-NK-16x8", "prod-logical-static-block-dyn-tiler", "rinv-colmajor-dyn-stride",
    "linv-overlap", "up2-rowmajor-MK",
)

FULL = Config(quick=False, repeats=5, algebra_inputs=24, sizes=tuple(range(8, 25, 2)), enum_cap_s=30.0,
              check_timeout_s=60.0, parametric_cases=PARAMETRIC_CASES, top=64, enum_budget_s=20.0,
              engine_timeout_s=10.0, static_log2=12, sweep_top=64)
QUICK = Config(quick=True, repeats=2, algebra_inputs=4, sizes=(8, 10, 12), enum_cap_s=1.0, check_timeout_s=20.0,
               parametric_cases=PARAMETRIC_CASES[:2], top=4, enum_budget_s=1.0, engine_timeout_s=10.0,
               static_log2=6, sweep_top=8)


def admissible_points(sy: Symbols, top: int) -> Iterator[dict[str, int]]:
    """Every assignment of the symbols to values in ``1..top`` that their assumptions allow, in order."""
    names = [s.name for s in sy]
    for values in itertools.product(*(range(1, top + 1) for _ in names)):
        env = dict(zip(names, values))
        if all(s.admits(env[s.name]) for s in sy) and all(r.evaluate(env) for r in sy.relations):
            yield env


def shuffled_points(sy: Symbols, top: int) -> list[dict[str, int]]:
    """``admissible_points`` in a seeded random order, so that a budget-limited prefix is a fair sample."""
    points = list(admissible_points(sy, top))
    random.Random(SEED).shuffle(points)
    return points


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def machine() -> list[tuple[str, str]]:
    """The machine and the versions every figure depends on."""
    lscpu = _run(["lscpu"])
    model = re.search(r"^Model name:\s*(.+)$", lscpu, re.M)
    gxx = _run([os.environ.get("CXX", "g++"), "--version"]).split("\n", 1)[0]
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return [
        ("CPU (lscpu model name)", model.group(1).strip() if model else platform.processor() or "unknown"),
        ("cores (os.cpu_count)", str(os.cpu_count())),
        ("load average (1, 5, 15 min) at the start", ", ".join(f"{x:.2f}" for x in load)),
        ("OS", platform.platform()),
        ("Python", platform.python_version()),
        ("z3-solver", _version("z3-solver")),
        ("pycute (nvidia-cutlass)", _version("nvidia-cutlass")),
        ("tensor-layouts", _version("tensor-layouts")),
        ("numpy", _version("numpy")),
        ("matplotlib", _version("matplotlib")),
        ("g++", gxx or "not found"),
    ]


def section_main(run: Callable[[Config], Table], doc: str) -> int:
    """The command line of one section: ``python bench/bench_X.py [--quick]`` prints its table."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    print(run(QUICK if a.quick else FULL).text())
    return 0
