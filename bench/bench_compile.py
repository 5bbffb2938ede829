"""Item 4: one static check through our tool vs compiling the equivalent ``static_assert`` program against CuTe.

The check: bijectivity of the static layout of size ``2**static_log2`` from ``bench_checks.family``.  The baseline
is what a CuTe user writes to get the same answer at compile time: a ``constexpr`` loop over ``layout(i)`` marking
every index of ``[0, size)`` once, inside a ``static_assert``, compiled with g++ against the CuTe 4.2 headers with
the include paths of ``verifier.oracle.cute_cpp`` and ``-fsyntax-only`` (the cheapest compile that still evaluates the
``static_assert``).  Every compile runs in a fresh temporary folder and bypasses ``cute_cpp``'s binary cache, so it
is really measured.  A second, non-bijective layout (one stride changed) checks that the program can fail.

Ours is timed twice: in-process (``checks.check``), and as a fresh process (``python -m verifier.cli.app check
bijective ...``), which pays Python's and Z3's start-up as g++ pays its own.

    python bench/bench_compile.py [--quick]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_checks import _ours, family  # noqa: E402
from bench.common import ROOT, Config, Table, fmt_ratio, fmt_stats, measure, ratio, section_main  # noqa: E402
from verifier.core.symbols import Symbols  # noqa: E402
from verifier.engine.checks import check  # noqa: E402
from verifier.oracle import cute_cpp  # noqa: E402

PROGRAM = """#include <cute/layout.hpp>
using namespace cute;

template <class Layout>
constexpr bool is_bijective(Layout layout) {{
  constexpr int n = decltype(size(layout))::value;
  bool seen[n] = {{}};
  for (int i = 0; i < n; ++i) {{
    int k = layout(i);
    if (k < 0 || k >= n || seen[k]) return false;
    seen[k] = true;
  }}
  return true;
}}

constexpr auto L = {layout};
static_assert(is_bijective(L), "L is not bijective");
int main() {{ return 0; }}
"""


def cpp_layout(spec: tuple[object, object]) -> str:
    def tup(t: object, make: str) -> str:
        return f"{make}(" + ", ".join(tup(x, make) for x in t) + ")" if isinstance(t, tuple) else f"Int<{t}>{{}}"
    return f"make_layout({tup(spec[0], 'make_shape')}, {tup(spec[1], 'make_stride')})"


def program(spec: tuple[object, object]) -> str:
    return PROGRAM.format(layout=cpp_layout(spec))


def compile_once(source: str) -> str:
    """Compile ``source`` in a fresh temporary folder (no cache): accepted, static_assert failed or compile error."""
    with tempfile.TemporaryDirectory(prefix="cute-bench-") as tmp:
        src = Path(tmp) / "check.cpp"
        src.write_text(source)
        cmd = [cute_cpp.compiler(), "-std=c++17", "-w", "-fsyntax-only", f"-I{cute_cpp.cute_include()}"]
        cmd += [f"-I{p}" for p in cute_cpp.cuda_includes()] + [str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            return "accepted"
        return "static_assert failed" if "static assertion failed" in proc.stderr else "compile error"


def _text(spec: tuple[object, object]) -> str:
    def txt(t: object) -> str:
        return "(" + ",".join(txt(x) for x in t) + ")" if isinstance(t, tuple) else f"_{t}"
    return txt(spec[0]) + ":" + txt(spec[1])


def _one(t: Table, label: str, spec: tuple[object, object], cfg: Config) -> None:
    """Time g++, our in-process check and a fresh cute-verify process on one layout; add three rows to ``t``."""
    answers: dict[str, list[object]] = {"gxx": [], "ours": [], "cli": []}
    source = program(spec)
    gxx = measure(lambda: answers["gxx"].append(compile_once(source)), min(cfg.repeats, 3))
    layout = _ours(spec)
    ours = measure(lambda: answers["ours"].append(check("bijective", [layout], Symbols(), cfg.check_timeout_s).verdict),
                   cfg.repeats)
    cmd = [sys.executable, "-m", "verifier.cli.app", "check", "bijective", _text(spec)]
    cli = measure(lambda: answers["cli"].append(
        subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False).returncode), min(cfg.repeats, 3))
    cli_answer = {0: "proved", 1: "refuted"}.get(answers["cli"][0], f"exit {answers['cli'][0]}")  # type: ignore[call-overload]
    t.add(_text(spec), "g++ -fsyntax-only, static_assert (fresh temp dir, no cache)", fmt_stats(gxx),
          answers["gxx"][0], "1×")
    t.add(_text(spec), "ours, in-process (checks.check)", fmt_stats(ours), answers["ours"][0],
          fmt_ratio(ratio(gxx, ours)))
    t.add(_text(spec), "ours, fresh process (cute-verify check bijective)", fmt_stats(cli), cli_answer,
          fmt_ratio(ratio(gxx, cli)))
    if (answers["gxx"][0] == "accepted") != (answers["ours"][0] == "proved") or answers["ours"][0] != cli_answer:
        t.notes.append(f"DISAGREEMENT on {_text(spec)}: g++ {answers['gxx'][0]}, ours {answers['ours'][0]}, "
                       f"cute-verify {cli_answer}")
    if ratio(gxx, cli).median < 1:
        t.losses.append(f"{label}: a fresh `cute-verify` process is slower than g++ on the static_assert "
                        f"({fmt_stats(cli)} vs {fmt_stats(gxx)}).")
    if ratio(gxx, ours).median < 1:
        t.losses.append(f"{label}: even in-process, our check is slower than g++ ({fmt_stats(ours)} vs "
                        f"{fmt_stats(gxx)}).")


def run(cfg: Config) -> Table:
    k = cfg.static_log2
    good, _ = family(k)
    shape, stride = good
    bad = (shape, (stride[0], stride[1], stride[2] - 1))  # type: ignore[index]
    t = Table(f"4. One static check: ours vs compiling a static_assert against CuTe (bijective, size 2^{k})",
              ["layout", "how", "time", "answer", "g++ / this"])
    for label, spec in (("bijective", good), ("not bijective", bad)):
        _one(t, label, spec, cfg)
    t.notes.append("Ratio: g++ time / our time (median, range min/max .. max/min); above 1 = we are faster. The C++ "
                   "program is in bench/bench_compile.py (PROGRAM); g++ flags: -std=c++17 -w -fsyntax-only and the "
                   "include paths of oracle.cute_cpp. A compile that includes CuTe costs the same for any check, "
                   "so g++'s time is mostly parsing the headers; a larger layout adds constexpr evaluation.")
    return t


if __name__ == "__main__":
    sys.exit(section_main(run, __doc__))
