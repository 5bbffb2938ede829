"""The selfcheck's figures as docs/selfcheck.md: the proved fraction against CuTe 4.2's headers and, for each other
CUTLASS release checked, the operations whose semantics differ from the model's (which is CuTe 4.2's), as data.

    python -m verifier.cli selfcheck --format json -o sc42.json
    python -m verifier.cli selfcheck --cutlass PATH/include --format json -o scX.json
    python bench/bench_symbolic.py --json bench.json
    python bench/selfcheck_report.py sc42.json --other "CUTLASS 3.8.0"=scX.json --bench bench.json
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

INTRO = """The model of `verifier/algebra` is a port of CuTe's algorithms; `cute-verify selfcheck` proves it equal to
CuTe itself (docs/architecture.md, back end 4).  `verifier/oracle/include/cute_symbolic.hpp` is a run-time integer
whose value is an expression, declared integral so that CuTe's unmodified headers compute with it.  Every operation
of the registry that has a C++ call is run through the headers on a corpus of operand structures: the registry
examples, the parametric corpus, the operation checks of the example spec files, CUTLASS's unit cases with each
run-time integer a symbol of its own (in [1, 64]), swizzled / scaled-basis / `smem_ptr` operands, and `--drawn N`
structures per operation from `verifier.strategies` (derandomised).  Every path of CuTe's code is explored, and Z3
proves on each that the model prints the same structure, the same integer function at every dynamic leaf, and
undefined behaviour (division by zero, signed overflow, in CuTe's own types) for the same values.  A disagreement
is replayed on compiled CuTe with plain ints and reported with its path, leaf and witness; `unknown` says why.

Run it as `cute-verify selfcheck [OP...]` (exit status 0: every structure proved, 1: a disagreement, 3: some
unknown), `--format json` for the data below, `--cutlass PATH` for another release's include folder."""


NOTES = """What it found and how it stands:

- One disagreement, fixed in the model: CuTe's `compact` (stride.hpp:305) returns `(current, current * shape)` for
  a leaf, and `compact_order`'s last mode computes that product even though it is dropped; the model skipped it, so
  `make_ordered_layout((M,N,_4), (_1,_0,_2))` and `make_layout_like((M,N):(N,_1))` missed a signed overflow
  (`M*N*4` past 2^31 where `M*N` is not).  `core/int_tuple.py`'s `compact_major` now computes it;
  `tests/symbolic/test_symbolic.py::test_compact_major_computes_cutes_dropped_product`.
- No deliberate difference is left: every structure below is proved, UB regions included.
- Against 4.2 every structure takes one path: `min`/`max`/`abs`/`signum`/`gcd`/`lcm` are nodes of the expression
  (no branch), and 4.2's layout algebra otherwise branches only on static values.  A branch on run-time values is
  explored when code takes one (`elem_less`'s `&&`; 3.8's `shape_div`, which tests `a / b != 0`).
- Beyond the layout algebra (`verifier/oracle/selfcheck_tiled.py`, `selfcheck_atoms.py`): TiledMMA / TiledCopy
  (`make_tiled_mma` with and without a permutation, `make_tiled_copy`, `make_tiled_copy_A/B/C`): every
  `get_layout*_TV` and every `get_slice(t).partition_*` of a tensor with symbolic extents and strides by a symbolic
  thread index `t`; the TMA box (`make_tma_box` against CuTe's `detail::construct_tma_gbasis`, the host part of
  `make_tma_copy` that derives the box, on symbolic gmem tensors); and every MMA / copy atom of `data/atoms.json`,
  its traits compiled afresh and printed by CuTe, against the model's layouts (`selfcheck atoms`).  The two atoms
  whose `ALayout` CuTe prints with incongruent shape and stride (`SM80_16x8x128_S32U1U1S32_TN_XORPOPC` /
  `_ANDPOPC`, mma_traits_sm80.hpp:670/687: CuTe cannot evaluate it, the model keeps no layout) are `unknown`.
- `predicated_copy` and `vectorized_copy` have no CuTe call with a result: CuTe's `copy_if` / the auto-vectorizing
  `copy` are loops that move elements and return `void` (the latter also needs `max_common_vector` as a constant
  expression); each is an `unknown` entry with that reason, its parts (`local_tile`, `local_partition`,
  `slice_and_offset`, `max_common_vector`, `recast_layout`, ...) proved in the corpus."""


def _cell(text: str, limit: int = 300) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + " ..."


def costs(bench: dict) -> list[str]:  # type: ignore[type-arg]
    """The figures of bench/bench_symbolic.py."""
    s = bench["selfcheck"]
    per_op = bench["paths_per_operation"]
    return ["## Costs", "",
            f"Measured by `bench/bench_symbolic.py` on {bench['cores']} cores shared with other jobs:", "",
            "| figure | value |", "|---|---|",
            f"| compile one translation unit (one case), cold | {bench['compile_one_tu_cold_s']} s |",
            f"| the same, cached (`cute_cpp.build`'s cache) | {bench['compile_one_tu_cached_s']} s |",
            f"| one symbolic run (one case, one process) | {bench['one_symbolic_run_s']} s |",
            f"| selfcheck over {s['entries']} structures (no drawn ones), cold cache | {s['total_cold_s']} s |",
            f"| the same, warm cache | {s['total_warm_s']} s |",
            f"| paths per structure, most of any operation | {max(v['max'] for v in per_op.values())} |", ""]


def render(base: dict, others: list[tuple[str, dict]], bench: dict | None = None) -> str:  # type: ignore[type-arg]
    s = base["summary"]
    lines = ["# Selfcheck: the model against CuTe's own headers run on symbols", "", INTRO, "", NOTES, "",
             "## CUTLASS 4.2", "",
             "Generated by `bench/selfcheck_report.py` from `cute-verify selfcheck --format json`.", "",
             f"Against CUTLASS 4.2's headers (the model's CuTe): **{s['proved']} of {s['entries']} operand structures "
             f"proved equal on every path ({100 * s['proved_fraction']:.1f}%)**, {s['disagrees']} disagreeing, "
             f"{s['unknown']} unknown.", ""]
    by_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for f in base["findings"]:
        key = f["source"].split(":")[0].split(" ")[0] if not f["source"].startswith("cutlass unit") else "cutlass unit"
        by_source[key][0] += 1
        by_source[key][1] += f["status"] == "proved"
    lines += ["| corpus | structures | proved |", "|---|---|---|"]
    lines += [f"| {k} | {n} | {p} |" for k, (n, p) in sorted(by_source.items())]
    paths = [f["paths"] for f in base["findings"]]
    lines += ["", f"Paths per structure: {min(paths)} to {max(paths)} (total {sum(paths)}).", ""]
    rest = [f for f in base["findings"] if f["status"] != "proved"]
    if rest:
        lines += ["Not proved:", ""] + [f"- {f['status']}: `{f['op']} {' '.join(f['args'])}` ({f['source']}): "
                                        f"{_cell(f['detail'])}" for f in rest] + [""]
    if bench is not None:
        lines += costs(bench)
    for name, data in others:
        o = data["summary"]
        lines += [f"## {name}", "",
                  f"The same corpus against {name}'s headers: {o['proved']} of {o['entries']} equal to the model, "
                  f"{o['disagrees']} differ, {o['unknown']} unknown (up to "
                  f"{max(f['paths'] for f in data['findings'])} paths per structure).  The operations whose "
                  "semantics changed, each "
                  "with the operand structures that differ and the witness (replayed on that release's compiled "
                  "CuTe):", ""]
        changed: dict[str, list[dict]] = defaultdict(list)  # type: ignore[type-arg]
        for f in data["findings"]:
            if f["status"] == "disagrees":
                changed[f["op"]].append(f)
        lines += ["| operation | structures changed | example | what differs |", "|---|---|---|---|"]
        for op, fs in sorted(changed.items()):
            f = fs[0]
            lines.append(f"| `{op}` | {len(fs)} | `{' '.join(f['args'])}` | {_cell(f['detail'])} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the selfcheck JSON against CUTLASS 4.2")
    ap.add_argument("--other", action="append", default=[], metavar="NAME=FILE", help="another release's JSON")
    ap.add_argument("--bench", metavar="FILE", help="bench/bench_symbolic.py --json's figures")
    ap.add_argument("-o", "--output", default="docs/selfcheck.md")
    args = ap.parse_args()
    others = [(o.split("=", 1)[0], json.loads(Path(o.split("=", 1)[1]).read_text())) for o in args.other]
    bench = json.loads(Path(args.bench).read_text()) if args.bench else None
    Path(args.output).write_text(render(json.loads(Path(args.base).read_text()), others, bench))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
