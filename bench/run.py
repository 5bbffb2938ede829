"""Run every benchmark of issues 8 and 16 in one process; write ``docs/benchmarks.md`` and its plot.

    python bench/run.py            # the published figures (under 15 minutes on the 2-core machine)
    python bench/run.py --quick    # a smoke run on small inputs; writes nothing unless --out is given

Each section is one script of ``bench/`` (also runnable alone): 1 ``bench_algebra``, 2 ``bench_checks``,
3 ``bench_parametric``, 4 ``bench_compile``, 5 ``bench_gpu``, 6 ``bench_startup``, 7 ``bench_verdicts``,
8 ``bench_speed`` (this checkout against ``--base``, default the previous commit, measured back to back: issue 28).
Every figure is a ratio against its baseline measured in this same run (median of repeated runs, with min and
max).  The file is written atomically at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import (
    bench_algebra,
    bench_checks,
    bench_compile,
    bench_gpu,
    bench_parametric,
    bench_speed,
    bench_startup,
    bench_verdicts,
)  # noqa: E402
from bench.common import FULL, QUICK, ROOT, Config, Table, machine  # noqa: E402
from verifier.run.files import write_atomic  # noqa: E402

OUT = ROOT / "docs" / "benchmarks.md"


def sections(cfg: Config, png: Path | None, base: str = bench_speed.BASE_REV) -> dict[str, Callable[[], Table]]:
    return {
        "algebra": lambda: bench_algebra.run(cfg),
        "checks": lambda: bench_checks.run(cfg, png),
        "parametric": lambda: bench_parametric.run(cfg),
        "compile": lambda: bench_compile.run(cfg),
        "gpu": lambda: bench_gpu.run(cfg),
        "startup": lambda: bench_startup.run(cfg),
        "verdicts": lambda: bench_verdicts.run(cfg),
        "speed": lambda: bench_speed.run(cfg, base),
    }


def targets(tables: dict[str, Table]) -> list[str]:
    """The issues' targets, each met / missed / not measured, from this run's figures."""
    out = []
    if "algebra" in tables:
        d = {op: v for op, v in tables["algebra"].data.items() if isinstance(v, dict)}
        first = {op: v["first_over_pycute"] for op, v in d.items()}
        again = {op: v["ours_over_pycute"] for op, v in d.items()}
        slow = [f"{op} {r:.2g}×" for op, r in first.items() if r > 1]
        out.append("Concrete algebra at least as fast as pycute, first call (nothing remembered): "
                   + (f"**missed** ({', '.join(slow)} pycute's time)" if slow else "met"))
        slow = [f"{op} {r:.2g}×" for op, r in again.items() if r > 1]
        out.append("... repeated call on equal operands (remembered results): "
                   + (f"**missed** ({', '.join(slow)})" if slow else
                      f"met ({', '.join(f'{op} {r:.2g}×' for op, r in again.items())} pycute's time)"))
        tl = {op: v["ours_first_over_tl"] for op, v in d.items()}
        slow = [f"{op} {r:.2g}×" for op, r in tl.items() if r > 1]
        out.append("Concrete algebra at least as fast as tensor-layouts, first call: "
                   + (f"**missed** ({', '.join(slow)} its time)" if slow else
                      f"met ({', '.join(f'{op} {r:.2g}×' for op, r in tl.items())} its time)"))
    if "checks" in tables:
        series = tables["checks"].data["series"]
        for prop in ("bijective", "equivalent"):
            ours = {k: m for k, m, _, _ in series[prop]["ours"]}  # type: ignore[index]
            enum = {k: m for k, m, _, _ in series[prop]["tl"]}  # type: ignore[index]
            k = bench_checks.TARGET_LOG2
            if k in ours and k in enum:
                r = enum[k] / ours[k]
                out.append(f"{prop} at 2^{k} at least 100× faster than enumeration: "
                           + ("met" if r >= 100 else "**missed**") + f" ({r:.3g}×)")
            else:
                out.append(f"{prop} at 2^{k} at least 100× faster than enumeration: not measured in this run")
            spread = tables["checks"].data.get(f"{prop}_ours_max_over_min")
            if spread is not None:
                goal = 2.0 if prop == "equivalent" else 10.0
                out.append(f"{prop} flat in size (slowest size / fastest at most {goal:g}×): "
                           + ("met" if spread <= goal else f"**missed** by {spread / goal:.2g}×")
                           + f" ({spread:.3g}×)")
    if "parametric" in tables:
        ok = tables["parametric"].data["engine_faster_everywhere"]
        out.append("Parametric checks faster than the 1..64 enumeration while covering all of int32: "
                   + ("met on every case measured" if ok else "**missed** on some cases (see section 3)"))
    if "gpu" in tables and "fraction_of_bound" in tables["gpu"].data:
        g = tables["gpu"].data
        frac = float(g["fraction_of_bound"])  # type: ignore[arg-type]
        out.append("GPU sweep at least 50% of the integer bound: "
                   + ("met" if frac >= 0.5 else f"**missed** by {50 - 100 * frac:.1f} points")
                   + f" ({frac:.1%} of 16,896 lanes × 1.98 GHz; {float(g['fraction_of_bound_1_7']):.1%} at 1.7 GHz; "
                   f"{float(g['int_ops_per_check']):.1f} integer ops per check)")  # type: ignore[arg-type]
    if "startup" in tables:
        for name, v in tables["startup"].data.items():
            if not isinstance(v, dict):
                continue
            met = v["wall"] <= v["target"] or v["idle_estimate"] <= v["target"]
            out.append(f"Start-up of `{name}` under {v['target']:g} s: " + ("met" if met else "**missed**")
                       + f" ({v['wall']:.3f} s wall here, +{v['over_pass']:.3f} s over python -c pass; "
                       f"{v['idle_estimate']:.3f} s estimated idle)")
    if "verdicts" in tables:
        d = tables["verdicts"].data
        parts = [f"{k}: median {v['median'] * 1e3:.0f} ms, p95 {v['p95'] * 1e3:.0f} ms (n={v['n']})"
                 for k, v in d.items() if isinstance(v, dict) and "median" in v]
        out.append("Parametric verdicts, in process: " + "; ".join(parts))
        three = d.get("three_d")
        if isinstance(three, dict):
            out.append(f"3-D tiling guard within the default budget: {three['guard']} in {three['seconds']:.1f} s")
    if "speed" in tables:
        sp = tables["speed"].data
        ratio = float(sp["median_ratio"])  # type: ignore[arg-type]
        out.append(f"Median symbolic verdict under {bench_speed.MEDIAN_TARGET:.0%} of the previous commit's: "
                   + ("met" if ratio < bench_speed.MEDIAN_TARGET else "**missed**") + f" ({ratio:.0%})")
        checks, files = list(sp["slow_checks"]), list(sp["slow_files"])  # type: ignore[call-overload]
        out.append(f"Every check of the example spec files under {bench_speed.CHECK_TARGET_S:g} s: "
                   + (f"**missed** ({'; '.join(checks)})" if checks else "met"))
        out.append(f"Each example spec file under {bench_speed.FILE_TARGET_S:g} s on 2 cores: "
                   + (f"**missed** ({'; '.join(files)})" if files else "met"))
    return out


def load_sentence(start: float, end: float, note: str) -> list[str]:
    """Say whether the figures were taken under load (1-minute load average against the cores), and the note."""
    cores = os.cpu_count() or 1
    out = []
    if max(start, end) > 0.5 * cores:
        out.append(f"**Measured under load**: the 1-minute load average was {start:.2f} at the start and {end:.2f} "
                   f"at the end on {cores} cores, so other processes competed for the CPU: absolute times are noisy "
                   "and pessimistic. The tools compared in a row were timed back to back in the same run, and the "
                   "min–max ranges show the noise.")
    if note:
        out.append(note)
    return out


def render(tables: dict[str, Table], cfg: Config, started: str, elapsed: float,
           load_before: list[tuple[str, str]], png: Path | None = None, load_start: float = 0.0,
           note: str = "") -> str:
    lines = ["# Benchmarks", "",
             "Generated by `python bench/run.py`" + (" --quick (smoke run: small inputs, NOT the published figures)"
                                                     if cfg.quick else "") + f", started {started}, took "
             f"{elapsed / 60:.1f} min. Regenerate with the same command (the seeds are fixed).", "",
             *load_sentence(load_start, os.getloadavg()[0], note), "",
             "## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in load_before]
    lines += [f"| load average (1, 5, 15 min) at the end | {', '.join(f'{x:.2f}' for x in os.getloadavg())} |", ""]
    lines += ["## Targets of the issue", ""] + [f"- {t}" for t in targets(tables)] + [""]
    losses = [(t.title.split(".", 1)[0], w) for t in tables.values() for w in t.losses]
    lines += ["## Where we lose", ""]
    lines += [f"- ({n}) {w}" for n, w in losses] if losses else ["- nowhere in this run's measurements"]
    lines.append("")
    for name, t in tables.items():
        lines.append(t.markdown())
        if name == "checks" and png is not None and png.is_file():
            lines += [f"![time against size for both tools]({png.name})", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, a few seconds per section")
    ap.add_argument("--only", default="", help="comma-separated subset of: " + ", ".join(sections(FULL, None)))
    ap.add_argument("--note", default="", help="a sentence for the report's header (e.g. who shared the machine)")
    ap.add_argument("--base", default=bench_speed.BASE_REV,
                    help="the revision section 8 compares with (default %(default)s, the previous commit)")
    ap.add_argument("--out", type=Path, help=f"markdown report (default {OUT.relative_to(ROOT)}; --quick: none)")
    a = ap.parse_args(argv)
    cfg = QUICK if a.quick else FULL
    out = a.out if a.out or a.quick else OUT
    png = (out.parent / bench_checks.PNG.name) if out else Path(tempfile.gettempdir()) / bench_checks.PNG.name
    chosen = sections(cfg, png, a.base)
    if a.only:
        names = [n.strip() for n in a.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in chosen]
        if unknown:
            print(f"error: --only: unknown section {', '.join(unknown)}", file=sys.stderr)
            return 2
        chosen = {n: chosen[n] for n in names}
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    before = machine()
    load_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    tables: dict[str, Table] = {}
    for name, fn in chosen.items():
        ts = time.perf_counter()
        tables[name] = fn()
        print(tables[name].text())
        print(f"({name}: {time.perf_counter() - ts:.0f} s)\n", flush=True)
    elapsed = time.perf_counter() - t0
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, render(tables, cfg, started, elapsed, before, png, load_start, a.note))
        print(f"wrote {out}")
    print(f"total {elapsed / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
