"""How many distinct layout problems the keys of a CUTLASS library sweep have (docs/library.md, "Distinct layout
problems").

``count``: over every key of ``--arch`` / ``--kernels`` and without compiling, an upper bound on the distinct
solver problems of the keys ``verify_key`` verifies (the TMA + GMMA ``ss`` mainloops), from the configuration
fields each problem is a function of (a finer tuple than the problem itself: the element *type* where the
builder's atom selector reads its width, every operand's type and layout for can_implement's condition).

``sample N``: the first N such keys (with a TMA warp-specialized schedule named) derived for real (compiled in
batches, ``phases.derive_batch``), their exact problems counted (``verify.problems_of``), and, with ``--time``, the
three phases timed against ``verify_key`` key by key on the same keys (each in a fresh process: a sweep's worker
shares nothing with the others).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from verifier.library import configs as cfg
from verifier.library import phases
from verifier.library.keys import group
from verifier.library.verify import problems_of

BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8, "void": 0}


def verified_here(f: dict[str, Any], auto: bool = True) -> bool:
    """The keys whose mainloop verify_key may model (the TMA + GMMA ss collective), from the fields alone: a dense
    GEMM with a TMA warp-specialized schedule or the automatic one (whose builder may choose it), neither mixed
    input nor tf32 with an MN-major A (rmem A); ``auto`` False leaves the automatic schedule out."""
    rmem_a = f["element_a"] == "tf32" and f["layout_a"] == "ColumnMajor"
    schedule = f["kernel_schedule"]
    tma = schedule.startswith("TmaWarpSpecialized") or (auto and schedule == "ScheduleAuto")
    return (f["gemm_kind"] == "Universal3x" and tma
            and f["mixed_input"] in ("", "None", "none") and not rmem_a)


def proxies(f: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """Per expensive problem of the key (the solver's: TMA box, CTA tiling, TMA box under aligned strides), a
    tuple of fields the problem is a function of."""
    m, n, k = f["tile"]
    accept = tuple((f[f"element_{x}"], f[f"layout_{x}"]) for x in "abcd")
    out: dict[str, tuple[Any, ...]] = {}
    for x, r in (("a", m), ("b", n)):
        elem, layout = f[f"element_{x}"], f[f"layout_{x}"]
        out[f"tma_{x}"] = ("tma", x, elem, layout, r, k, accept)
        out[f"tiling_{x}"] = ("tiling", x, elem, layout, tuple(f["tile"]), accept)
        out[f"aligned_{x}"] = ("aligned", x, elem, layout, r, k)
    return out


def count(arch: str, kernels: str) -> dict[str, Any]:
    e = cfg.enumerate_gemms(arch, kernels)
    groups = group(e.configs, "count", cfg.cutlass_version(None))
    mine = [g for g in groups if verified_here(g.fields)]
    seen: Counter[str] = Counter()
    distinct: set[tuple[Any, ...]] = set()
    for g in mine:
        for name, p in proxies(g.fields).items():
            seen[name.split("_")[0]] += 1
            distinct.add(p)
    by_kind = Counter(p[0] for p in distinct)
    return {"configurations": len(e.configs), "keys": len(groups), "keys_verified": len(mine),
            "problem_uses": sum(seen.values()), "distinct_at_most": len(distinct), "by_kind": dict(by_kind)}


def sample(arch: str, kernels: str, n: int, batch: int, timed: bool) -> dict[str, Any]:
    from verifier.run.batch import tool_version

    tool, version = tool_version(), cfg.cutlass_version(None)
    e = cfg.enumerate_gemms(arch, kernels)
    mine = [g for g in group(e.configs, tool, version) if verified_here(g.fields, auto=False)][:n]
    payloads = {g.key: {"key": g.key, "fields": g.fields, "representative": g.representative,
                        "configs": list(g.configs), "tool": tool, "cutlass": version, "include": None,
                        "source": e.source(g.representative)} for g in mine}
    out: dict[str, Any] = {"keys": len(payloads)}
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "keys.jsonl"
        t0 = time.monotonic()
        ran = phases.run(payloads, list(payloads), store, tool, version, batch=batch, engine="local", workers=1)
        out["phases_seconds"] = round(time.monotonic() - t0, 1)
        out["phase_seconds"] = {"derive": round(ran.derive.seconds, 1) if ran.derive else 0,
                                "decide": round(ran.decide.seconds, 1) if ran.decide else 0,
                                "verify": round(ran.keys.seconds, 1)}
        out["problems"], out["problem_uses"] = ran.problems, ran.problem_uses
        derived = {k: r.result for k, r in ran.keys.records.items() if r.result}
        exact = {pid: p for k, r in derived.items() if r.get("derived")
                 for pid, p in problems_of(payloads[k], r["derived"]).items()}
        out["by_op"] = dict(Counter(p["op"] + ("" if p["names"] is None else f"/{len(p['assume'])}")
                                    for p in exact.values()))
        out["statuses"] = dict(Counter(f"{r['status']}: {r.get('verdict', r.get('reason'))}"[:80]
                                       for r in derived.values()))
        if timed:
            # Before: each key alone, as a sweep of verify_key ran it (its own compile, its own problems), in a
            # fresh process each (the compile cache is cleared of nothing: a key's single-instance program is
            # not one the batches built).
            per_key = []
            for k in payloads:
                path = Path(tmp) / f"{k}.json"
                path.write_text(json.dumps(payloads[k]))
                t = time.monotonic()
                subprocess.run([sys.executable, "-c", "import json,sys; from verifier.library.verify import "
                                "verify_key; verify_key(json.load(open(sys.argv[1])))", str(path)], check=True)
                per_key.append(round(time.monotonic() - t, 1))
            out["verify_key_seconds"] = per_key
            out["verify_key_total"] = round(sum(per_key), 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("count", "sample"))
    ap.add_argument("--arch", default="90a")
    ap.add_argument("--kernels", default="all")
    ap.add_argument("-n", type=int, default=8, help="sample: the first N verified keys")
    ap.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH)
    ap.add_argument("--time", action="store_true", help="sample: also time verify_key on each key alone")
    a = ap.parse_args()
    got = count(a.arch, a.kernels) if a.what == "count" else sample(a.arch, a.kernels, a.n, a.batch, a.time)
    print(json.dumps(got, indent=1))


if __name__ == "__main__":
    main()
