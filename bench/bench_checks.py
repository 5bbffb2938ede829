"""Item 2: injectivity, bijectivity and equivalence of static layouts of size 2^8 .. 2^24, ours (Z3, symbolic in
the index) vs tensor-layouts' enumeration (``is_injective``, ``is_bijective``, ``functionally_equal``).

The layout of size ``2**k`` is a three-mode permutation ``(2^a,2^b,2^c):(2^b,1,2^(a+b))`` (bijective); the second
operand of the equivalence writes the same function with its middle mode split in two.  Both tools must answer
true; a disagreement is reported in the table.  Our check is timed ``repeats`` times at every size.  Enumeration
grows linearly with the size, so a size is enumerated only while the time predicted from the previous size (time x
size ratio) stays under ``enum_cap_s``, and always at the issue's target size 2^20; the larger sizes are reported
as not run, never extrapolated.  The
enumeration is repeated (up to ``repeats`` times) only while one run takes under 2 s.

Writes ``docs/benchmarks_checks.png`` (matplotlib, Agg backend): time against size for both, log-log, with min-max
bars.

    python bench/bench_checks.py [--quick] [--png PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tensor_layouts as tl  # noqa: E402
from tensor_layouts.analysis import functionally_equal, is_bijective, is_injective  # noqa: E402

from bench.common import FULL, QUICK, ROOT, Config, Stats, Table, fmt_ratio, fmt_stats, measure, ratio  # noqa: E402
from verifier.core.layouts import Layout  # noqa: E402
from verifier.core.symbols import Symbols  # noqa: E402
from verifier.engine.checks import check  # noqa: E402
from verifier.notation.cpp import parse_layout  # noqa: E402

PROPS = ("injective", "bijective", "equivalent")
TL_FN = {"injective": is_injective, "bijective": is_bijective, "equivalent": functionally_equal}
PNG = ROOT / "docs" / "benchmarks_checks.png"
TARGET_LOG2 = 20   # the target size: at least 100x faster than enumeration there
TARGET_SPEEDUP = 100.0


def family(k: int) -> tuple[tuple[object, object], tuple[object, object]]:
    """The two (shape, stride) specs of size ``2**k``: a permutation and the same function with a split mode."""
    a = k // 3
    b = k // 3
    c = k - a - b
    b1 = b // 2
    l1 = ((2**a, 2**b, 2**c), (2**b, 1, 2 ** (a + b)))
    l2 = ((2**a, (2**b1, 2 ** (b - b1)), 2**c), (2**b, (1, 2**b1), 2 ** (a + b)))
    return l1, l2


def _ours(spec: tuple[object, object]) -> Layout:
    def txt(t: object) -> str:
        return "(" + ",".join(txt(x) for x in t) + ")" if isinstance(t, tuple) else f"_{t}"
    return parse_layout(txt(spec[0]) + ":" + txt(spec[1]))


def _time_ours(prop: str, args: list[Layout], cfg: Config) -> tuple[Stats, str]:
    verdicts: list[str] = []
    st = measure(lambda: verdicts.append(check(prop, args, Symbols(), cfg.check_timeout_s).verdict), cfg.repeats)
    return st, "/".join(sorted(set(verdicts)))  # Z3's search may differ between repeats: show every verdict


def _time_enumeration(fn: Callable[..., bool], args: list[object], cfg: Config) -> tuple[Stats, bool]:
    answers: list[bool] = []
    st = measure(lambda: answers.append(fn(*args)), cfg.repeats, budget=2.0)
    return st, answers[0]


def run(cfg: Config, png: Path | None = PNG) -> Table:
    t = Table("2. Injectivity, bijectivity, equivalence of static layouts: ours vs tensor-layouts' enumeration",
              ["property", "size", "ours", "our verdict", "tensor-layouts", "its answer", "enumeration / ours"])
    series: dict[str, dict[str, list[tuple[int, Stats]]]] = {p: {"ours": [], "tl": []} for p in PROPS}
    for prop in PROPS:
        last: tuple[int, float] | None = None  # (size, seconds) of the previous enumeration
        slower: list[str] = []
        for k in cfg.sizes:
            s1, s2 = family(k)
            ours_args = [_ours(s1)] if prop != "equivalent" else [_ours(s1), _ours(s2)]
            tl_args = [tl.Layout(*s1)] if prop != "equivalent" else [tl.Layout(*s1), tl.Layout(*s2)]
            ours, verdict = _time_ours(prop, ours_args, cfg)
            series[prop]["ours"].append((k, ours))
            predicted = None if last is None else last[1] * 2 ** (k - last[0])
            if predicted is not None and predicted > cfg.enum_cap_s and k != TARGET_LOG2:
                t.add(prop, f"2^{k}", fmt_stats(ours), verdict, f"not run (predicted {predicted:.0f} s > cap "
                      f"{cfg.enum_cap_s:.0f} s)", "-", "-")
                continue
            enum, answer = _time_enumeration(TL_FN[prop], tl_args, cfg)
            last = (k, enum.median)
            series[prop]["tl"].append((k, enum))
            r = ratio(enum, ours)
            t.add(prop, f"2^{k}", fmt_stats(ours), verdict, fmt_stats(enum), str(answer), fmt_ratio(r))
            if ("proved" in verdict and not answer) or ("refuted" in verdict and answer):
                t.notes.append(f"DISAGREEMENT: {prop} at 2^{k}: ours {verdict}, tensor-layouts {answer}")
            if r.median < 1:
                slower.append(f"2^{k} ({1 / r.median:.3g}× slower)")
            if k == TARGET_LOG2 and r.median < TARGET_SPEEDUP:
                t.losses.append(f"{prop} at 2^{k}: only {r.median:.3g}× faster than enumeration (target 100×).")
        if slower:
            t.losses.append(f"{prop}: enumeration is faster than our check at " + ", ".join(slower)
                            + ": below that size Z3's fixed cost exceeds a Python loop over the elements.")
        ours_med = [s.median for _, s in series[prop]["ours"]]
        if len(ours_med) > 1:
            spread = max(ours_med) / min(ours_med)
            t.data[f"{prop}_ours_max_over_min"] = spread
            t.notes.append(f"{prop}: our time from 2^{cfg.sizes[0]} to 2^{cfg.sizes[-1]} varies by {spread:.3g}× "
                           f"(max/min of the medians) while the size grows {2 ** (cfg.sizes[-1] - cfg.sizes[0])}×.")
            if spread > 10:
                t.losses.append(f"{prop}: our time is not flat in size ({spread:.3g}× between the fastest and "
                                "slowest size's median) and varies between repeats: Z3's search, not the size, "
                                "decides it.")
        unknown = [r[1] for r in t.rows if r[0] == prop and "unknown" in r[3]]
        if unknown:
            t.losses.append(f"{prop}: the engine answered unknown (timeout {cfg.check_timeout_s:.0f} s) in some "
                            f"repeat at {', '.join(unknown)}, where enumeration always answers.")
        enum_sizes = [k for k, _ in series[prop]["tl"]]
        if TARGET_LOG2 in cfg.sizes and TARGET_LOG2 not in enum_sizes:
            t.notes.append(f"{prop}: enumeration at 2^{TARGET_LOG2} was not run (cap), so the 100× target there is "
                           "not measured in this run.")
    t.data["series"] = {p: {w: [(k, s.median, s.lo, s.hi) for k, s in v] for w, v in d.items()}
                        for p, d in series.items()}
    t.notes.append(f"Enumeration runs while its time predicted from the previous size stays under "
                   f"{cfg.enum_cap_s:.0f} s, and always at the target size 2^{TARGET_LOG2}; it is repeated only while "
                   "one run takes under 2 s (n = 1 above that). Sizes not run are not extrapolated.")
    t.notes.append("Times: median (min–max, n runs). Ratio: enumeration median / our median, range "
                   "min/max .. max/min; above 1 = we are faster.")
    t.notes.append("tensor-layouts' is_bijective means a bijection onto [0, cosize); ours onto [0, size); the two "
                   "agree on these layouts (size == cosize).")
    if png is not None:
        t.notes.append(f"Plot: `{png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}` "
                       + (plot(series, png) or "(time against size, log-log, min–max bars)."))
    return t


def plot(series: dict[str, dict[str, list[tuple[int, Stats]]]], png: Path) -> str | None:
    """Draw the time-vs-size figure; returns a reason when it cannot (matplotlib missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "was NOT drawn: matplotlib is not installed (pip install -e '.[bench]')."
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    colors = {"injective": "tab:blue", "bijective": "tab:orange", "equivalent": "tab:green"}
    for prop, d in series.items():
        for who, style, label in (("ours", "-o", "ours (Z3)"), ("tl", "--s", "tensor-layouts (enumeration)")):
            pts = d[who]
            if not pts:
                continue
            xs = [2**k for k, _ in pts]
            ys = [s.median for _, s in pts]
            err = [[s.median - s.lo for _, s in pts], [s.hi - s.median for _, s in pts]]
            ax.errorbar(xs, ys, yerr=err, fmt=style, color=colors[prop], ms=4, capsize=2,
                        label=f"{prop}: {label}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("layout size (elements)")
    ax.set_ylabel("time per check (s)")
    ax.set_title("Static layout checks: time against size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    tmp = png.with_name(png.name + f".{os.getpid()}.tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, png)
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--png", type=Path, default=PNG)
    a = ap.parse_args()
    print(run(QUICK if a.quick else FULL, a.png).text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
