"""How many distinct layout problems the keys of a CUTLASS library sweep have (docs/library.md, "Distinct layout
problems", "The whole sweep's decide units at most").

``count``: over every key of each ``--arch`` (repeatable) and ``--kernels``, without compiling, an upper bound on
the distinct decide units of the sweep: every unit ``verify.problems_of`` may list for a key (the SM90 TMA and
cp.async mainloops', SM100's, the epilogues', the grouped keys', the shared checks of ``verify.SHARED`` and the smem
stages ``parts.shared`` records), each with a proxy, a tuple of the fields the unit is a function of (``proxies``:
finer than the unit is safe, coarser would be wrong), counted by kind and architecture; solver problems and shared
units apart.  ``bench/library_scale.py extrapolate --bound`` reads its JSON.

``derive``: ``--batches`` derive batches of ``--batch`` keys of each ``--arch``, evenly spaced over the sweep's order
(or among those mostly ``--like field=value``), compiled and stored (``--derived FILE``, gzip'd JSON).
``check --derived FILE``: on those derived keys, that each unit listed has a proxy of its key (else ``uncovered``)
and that the keys sharing a proxy list the same unit there (else a ``violation``); exit 1 on either.

``sample N``: the first N SM90 TMA keys (with a TMA warp-specialized schedule named) derived for real (compiled in
batches, ``phases.derive_batch``), their exact problems counted (``verify.problems_of``), and, with ``--time``, the
three phases timed against ``verify_key`` key by key on the same keys (each in a fresh process: a sweep's worker
shares nothing with the others).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from verifier.core.errors import LayoutError
from verifier.library import configs as cfg
from verifier.library import epilogue, parts, phases, sm90_cpasync, sm100, verify
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


# What ``count`` bounds: every decide unit a key's ``verify.problems_of`` may list, by label (a problem's place
# in the key: its check and operand), each with a proxy, a tuple of the key's fields that the unit is a function of.
# Solver problems (the decide phase's costly units) and shared units (``verify.SHARED``'s checks and the smem
# stages ``parts.shared`` records, the cheap ones) are counted apart.
SOLVER = ("smem", "tma", "tiling", "aligned", "epi_smem", "epi_tma", "epi_aligned", "epi_direct")
SHARED_UNITS = ("stage", "sm100_layouts", "epi_stage", "partitions")
# What the smem stage count of an automatic carveout (every key of SM90 and SM100 ``all``) is a function of: the
# builders' ``compute_stage_count_or_override`` over the capacity less the epilogue's SharedStorage and the
# kernel's, per stage A's and B's tiles (sm90_gmma_builder.inl, sm100 builders): the whole key but the cluster
# (no builder's stage count reads it), and the layouts and alignments (``proxies``).
NOT_IN_STAGES = frozenset({"cluster"})


def _v(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _f(f: dict[str, Any], *names: str) -> tuple[Any, ...]:
    return tuple((n, _v(f[n])) for n in names)


def _bits(element: str) -> Any:
    """An element as the acceptance conditions read it: its width (``parts.BITS``, what ``acceptance`` reads for
    SM90 and what compiled CUTLASS prints for SM100), else its name (finer)."""
    return parts.BITS.get(element, element)


def route(f: dict[str, Any]) -> str | None:
    """The mainloop whose problems a key's fields admit (None: none is listed, its mainloop not modelled):
    ``sm90_tma`` (MainloopSm90TmaGmmaWarpSpecialized*, the ptr-array ones), ``sm90_cpasync``, ``sm90_auto`` (the
    automatic schedule: the builder picks TMA or cp.async from the alignments), ``sm100`` (the UMMA ones).  Left
    out by their fields: sparse and mixed-input kernels (their own collectives), SM100's non-grouped block-scaled
    collective and 4- or 6-bit operands (``sm100.MAINLOOPS``, ``sm100.not_derived``).  A key put out wrongly lists
    problems no proxy covers: ``check`` reports them."""
    if not f.get("is_3x") or "Sparse" in f["gemm_kind"] or f["mixed_input"] not in ("", "None", "none"):
        return None
    if f["arch"].startswith("100"):
        narrow = any(isinstance(_bits(f[e]), int) and 0 < _bits(f[e]) < 8 for e in ("element_a", "element_b"))
        return None if narrow or f["gemm_kind"] == "BlockScaledUniversal3x" else "sm100"
    schedule = f["kernel_schedule"]
    return "sm90_cpasync" if "CpAsync" in schedule else "sm90_auto" if schedule == "ScheduleAuto" else "sm90_tma"


# Where each operand's unit stride is, by its layout (the strides compiled CUTLASS prints: A (M,K,L) column-major
# and B (N,K,L) row-major are M- and N-major, C and D (M,N,L) column-major M-major); only the unit mode is read.
_UNIT_FIRST = {"a": "ColumnMajor", "b": "RowMajor", "c": "ColumnMajor", "d": "ColumnMajor"}


def _acceptance(f: dict[str, Any], r: str | None, schedule: bool) -> tuple[Any, ...]:
    """What can_implement's hand-read condition is a function of: the condition itself (``parts.acceptance``,
    ``sm90_cpasync.acceptance``) over the operands' widths and unit-stride modes, C's and D's conjuncts included
    whether the epilogue checks them or not (finer), with the epilogue's schedule that decides it (and the kernel's
    where that is automatic); an element of a width ``parts.BITS`` does not know, with its layout (SM100 prints
    its width: finer)."""
    strides = {x.upper(): ("cute::tuple<cute::C<1>, long int, long int>" if f[f"layout_{x}"] == _UNIT_FIRST[x]
                           else "cute::tuple<long int, cute::C<1>, long int>") for x in "abcd"}
    conds = (sm90_cpasync.acceptance if r in ("sm90_cpasync", "sm90_auto") else parts.acceptance)(f, strides, True)
    unknown = tuple((x, f[f"element_{x}"], f[f"layout_{x}"]) for x in "abcd"
                    if f[f"element_{x}"] not in parts.BITS)
    # whether the epilogue checks C and D: not a no-smem one (DefaultEpilogue, DefaultEpilogueArray: EPI_DEFAULT),
    # a TMA one does (SM100: the policy sm100.acceptance reads), 1SM or 2SM alike; another by its name
    epi = f["epilogue_schedule"]
    checks = "no-smem" if "NoSmem" in epi else "tma" if "Tma" in epi else epi
    return (*_f(f, "arch"), ("epilogue", checks, "Grouped" in f["gemm_kind"]),
            *_f(f, *(("kernel_schedule",) if schedule else ()), *(("align_a", "align_b") if r == "sm90_auto" else ())),
            ("route", r), ("condition", tuple(conds)), ("unknown", unknown))


def proxies(f: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """Per decide unit a key may list (by label: ``tma_A``, ``epi_smem_D``, ``partitions`` ...), a tuple of its
    fields the unit is a function of: keys with equal proxies list the same unit there (``check`` tests it on
    derived keys), so the distinct proxies bound the distinct units."""
    r = route(f)
    sm100 = r == "sm100"
    m, n, k = f["tile"]
    cp = r in ("sm90_cpasync", "sm90_auto")
    epi_auto = f["epilogue_schedule"] == "ScheduleAuto"
    epi = f["epilogue_schedule"]
    accept = _acceptance(f, r, cp or epi_auto)
    # the stage count: the element types, tile, schedules and epilogue, not the layouts (the bytes of a stage
    # and of the epilogue's storage are the same in either major), nor the alignments of a TMA kernel
    stages = _f(f, *sorted(x for x in f if x not in NOT_IN_STAGES
                           and (cp or not x.startswith(("layout_", "align_")))))
    out: dict[str, tuple[Any, ...]] = {}
    two_sm = ("two_sm", "2Sm" in f["kernel_schedule"]) if sm100 else ("two_sm", None)
    for x, rows in (("A", m), ("B", n)):
        e = x.lower()
        # one smem stage of X: the builder's atom (element, major, the CTA's share of the tile: an SM100 2SM MMA
        # halves it) over (BLK_R, BLK_K); the gmem tensor of X (its layout, a group's batch mode: the GEMM kind)
        stage = (*_f(f, "arch", "gemm_kind", f"element_{e}", f"layout_{e}"), ("rows", rows), ("k", k), two_sm,
                 *(_f(f, "kernel_schedule") if cp else ()))
        if r in ("sm90_tma", "sm90_auto", "sm100"):
            out[f"stage_{x}"] = ("stage", x, stage)
            out[f"tma_{x}"] = ("tma", x, stage, accept)
            out[f"aligned_{x}"] = ("aligned", x, stage)
            # local_tile of X's TMA coordinate tensor (its layout's modes) by the CTA tile
            out[f"tiling_{x}"] = ("tiling", x, *_f(f, "arch", "gemm_kind", f"layout_{e}", "tile"), two_sm, accept)
        if r is not None and not sm100:
            out[f"smem_{x}"] = ("smem", x, stage, stages)
        if sm100:
            out[f"sm100_layouts_{x}"] = ("sm100_layouts", x, stage, stages, ("cluster", _v(f["cluster"])))
    # The epilogue's units: SM90's alone (an SM100 epilogue has no CopyAtomC, which the derive program needs to
    # print a TMA epilogue's types, epilogue_cpp.py; the no-smem one's direct store needs a GMMA atom), whatever
    # its mainloop (``verify.epilogue_alone``); a grouped key's too (``problems_of`` leaves its ptr-array epilogue
    # out by what compiled CUTLASS printed, ``grouped.is_grouped``, which its fields do not tell).
    if f.get("is_3x") and f["arch"].startswith("90"):
        # the epilogue tile (sm90_compute_tile_shape_or_override: the CTA tile, the schedules, C's and D's types)
        tile = _f(f, "arch", "gemm_kind", "tile", "kernel_schedule", "epilogue_schedule", "element_accumulator",
                  "element_c", "element_d")
        # the rest of the epilogue builder's inputs (its smem stages, the reuse of C's smem, its copies)
        builder = _f(f, "instruction", "element_epilogue", "epilogue_functor", "layout_c", "layout_d", "align_c",
                     "align_d")
        # a TMA epilogue's (C's where C is read: not void), unless its schedule names another; the no-smem store's
        tma_epi, no_smem = "NoSmem" not in epi and epi != "EpilogueTransposed", "Tma" not in epi
        for x in ("C", "D") if tma_epi else ():
            if x == "C" and f["element_c"] == "void":
                continue
            stage = (tile, *_f(f, f"layout_{x.lower()}"))
            out[f"epi_stage_{x}"] = ("epi_stage", x, stage)
            out[f"epi_smem_{x}"] = ("epi_smem", x, stage, builder)
            out[f"epi_tma_{x}"] = ("epi_tma", x, stage, accept)
            out[f"epi_aligned_{x}"] = ("epi_aligned", x, stage)
        # the no-smem store: the TiledMma (A's and B's elements and majors, the instruction, the kernel schedule)
        # and D's stride and width, over the CTA tile; the TMA epilogue's partitions: its copies and that TiledMma
        mma = _f(f, "instruction", "element_a", "element_b", "layout_a", "layout_b")
        if no_smem:
            out["epi_direct_D"] = ("epi_direct", *_f(f, "arch", "gemm_kind", "tile", "kernel_schedule",
                                                     "epilogue_schedule", "element_accumulator", "layout_d"),
                                   ("d", _bits(f["element_d"])), *mma)
        if tma_epi:
            out["partitions"] = ("partitions", tile, builder, *mma)
    return out


def count(archs: list[str], kernels: str) -> dict[str, Any]:
    """Over every key of ``archs`` / ``kernels``, the distinct proxies by kind: an upper bound on the distinct
    decide units of the sweep (its solver problems and its shared units), by architecture and together."""
    out: dict[str, Any] = {"kernels": kernels, "archs": archs, "by_arch": {}}
    every: dict[str, set[tuple[Any, ...]]] = {}
    for arch in archs:
        e = cfg.enumerate_gemms(arch, kernels)
        groups = group(e.configs, "count", cfg.cutlass_version(None))
        distinct: dict[str, set[tuple[Any, ...]]] = {}
        listing = 0
        for g in groups:
            got = proxies(g.fields)
            listing += bool(got)
            for p in got.values():
                distinct.setdefault(p[0], set()).add(p)
                every.setdefault(p[0], set()).add(p)
        out["by_arch"][arch] = _summary(len(e.configs), len(groups), listing, distinct)
    out.update(_summary(sum(a["configurations"] for a in out["by_arch"].values()),
                        sum(a["keys"] for a in out["by_arch"].values()),
                        sum(a["keys_listing"] for a in out["by_arch"].values()), every))
    # the SM90 TMA mainloop's bound as before this count covered the sweep (``problems_at_most``)
    return out


def _summary(configurations: int, keys: int, listing: int, distinct: dict[str, set[tuple[Any, ...]]]
             ) -> dict[str, Any]:
    by_kind = {k: len(distinct.get(k, ())) for k in (*SOLVER, *SHARED_UNITS)}
    return {"configurations": configurations, "keys": keys, "keys_listing": listing,
            "solver_problems_at_most": sum(by_kind[k] for k in SOLVER),
            "shared_units_at_most": sum(by_kind[k] for k in SHARED_UNITS),
            "distinct_at_most": sum(by_kind.values()), "by_kind": by_kind}


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


def _stage_names(d: dict[str, Any]) -> dict[str, list[str]]:
    """The names ``parts.shared`` records the smem stages of a derived key under, by label: the mainloop's (SM90's
    and SM100's ``stage``) and the TMA epilogue's (``epilogue.problems``), to tell which of a key's recorded entries
    is which (a name several labels share is the same unit for each)."""
    out: dict[str, list[str]] = {}
    with contextlib.suppress(KeyError, ValueError, LayoutError, IndexError):
        blk = [str(t) for t in str(d["TILE"]).strip("()").split(",")]
        for x, rows in (("A", blk[0]), ("B", blk[1])):
            order = parts.order(str(d[f"STRIDE_{x}"]))
            if sm100.is_sm100(d):
                a, b, c, e = sm100._mma_shape(str(d[f"MMA_SHAPE_{x}"]))
                args = [str(d[f"ATOM_{x}"]), f"_{a * c}", f"_{b * e}", order]
            else:
                args = [str(d[f"ATOM_{x}"]), rows, blk[2], order]
            out[f"stage_{x}"] = args
    tile = epilogue._epi_tile(d)
    if epilogue.is_tma_epilogue(d) and tile is not None:
        for x in epilogue.outputs(d):
            with contextlib.suppress(KeyError):
                out[f"epi_stage_{x}"] = [str(d[f"EPI_ATOM_{x}"]), tile[0], tile[1],
                                         epilogue._order(str(d[f"STRIDE_{x}"]))]
    named: dict[str, list[str]] = {}
    for label, args in out.items():
        named.setdefault(f"{parts.STAGE}\0{json.dumps(args, sort_keys=True)}", []).append(label)
    return named


# A problem's label from its check's name (``verify._operands``, ``sm90_cpasync.problems``, ``epilogue.problems``).
_LABELS = {**{f"{n} {x}": f"{lab}_{x}" for x in "AB" for n, lab in (("smem", "smem"), ("tma", "tma"),
                                                                     ("tiling", "tiling"))},
           **{f"tma {x} with aligned strides": f"aligned_{x}" for x in "AB"},
           **{f"epilogue smem {x}": f"epi_smem_{x}" for x in "CD"},
           **{f"epilogue tma {x}": f"epi_tma_{x}" for x in "CD"},
           **{f"epilogue tma {x} with aligned strides": f"epi_aligned_{x}" for x in "CD"},
           "epilogue D stored from the accumulators, predicated": "epi_direct_D"}


def listed(payload: dict[str, Any], d: dict[str, Any]) -> list[tuple[list[str], str, dict[str, Any]]]:
    """Every unit ``verify.problems_of`` lists for a derived key, each with its labels (empty: none known), its
    ``problem_id`` and the unit.  ``problems_of`` keys its answer by id, so that two labels with the same unit
    (A's and B's smem stage, say) would show as one: its ``problem_id`` calls are watched instead, one a unit."""
    seen: list[tuple[str, dict[str, Any]]] = []
    original = verify.problem_id

    def watched(p: Any, tool: str | None, cutlass: str | None) -> str:
        pid = original(p, tool, cutlass)
        seen.append((pid, p))
        return pid
    verify.problem_id = watched
    try:
        ids = problems_of(payload, d)
    finally:
        verify.problem_id = original
    if set(ids) != {pid for pid, _ in seen}:
        raise RuntimeError(f"key {payload['key']}: problems_of listed units it did not name")
    stages = _stage_names(d)
    out = []
    for pid, p in seen:
        if p["op"] != "shared":
            labels = [_LABELS[p["name"]]] if p["name"] in _LABELS else []
        elif "entry" in p:
            labels = stages.get(str(p["entry"]["shared"]), [])
        elif p["name"] == epilogue.PARTITIONS:
            labels = ["partitions"]
        elif p["name"] == sm100.LAYOUTS:
            labels = [f"sm100_layouts_{p['plain'][0]}"]
        else:
            labels = []
        out.append((labels, pid, p))
    return out


def check(payloads: list[dict[str, Any]], proxy: Any = None) -> dict[str, Any]:
    """On derived keys (payloads with ``derived``), whether each proxy names one unit: every unit ``problems_of``
    lists must have a label whose proxy the key has (else ``uncovered``: the count misses it), and the keys sharing
    a proxy must list the same unit there (else a ``violation``: the proxy is coarser than the unit)."""
    proxy = proxy or proxies
    by_proxy: dict[tuple[Any, ...], dict[str, list[str]]] = {}
    uncovered: list[dict[str, Any]] = []
    units: set[str] = set()
    uses = 0
    for payload in payloads:
        mine = proxy(payload["fields"])
        for labels, pid, p in listed(payload, payload["derived"]):
            units.add(pid)
            uses += 1
            known = [lab for lab in labels if lab in mine]
            if not known:
                uncovered.append({"key": payload["key"], "unit": p["name"].split("\0")[0], "labels": labels})
            for lab in known:
                by_proxy.setdefault(mine[lab], {}).setdefault(pid, []).append(payload["key"])
    violations = [{"proxy": repr(p)[:300], "units": len(got), "keys": [ks[0] for ks in got.values()]}
                  for p, got in by_proxy.items() if len(got) > 1]
    return {"keys": len(payloads), "archs": dict(Counter(p["fields"]["arch"] for p in payloads)),
            "units": len(units), "unit_uses": uses, "proxies": len(by_proxy),
            "proxies_shared_by_keys": sum(1 for got in by_proxy.values() if sum(map(len, got.values())) > 1),
            "violations": violations, "uncovered": uncovered}


def derive_sample(archs: list[str], batches: int, batch: int, out: Path, like: list[str] | None = None) -> None:
    """``batches`` derive batches of ``batch`` keys of each architecture's ``all``, evenly spaced over the sweep's
    derive order (``bench/library_scale.py``'s ``sample``: neighbouring keys, which share most fields, so that
    their proxies meet), compiled (``phases.derive_batch``) and stored: what ``check`` reads (gzip'd JSON).  With
    ``like`` (``field=value``, ...), among the batches where at least half the keys have those fields."""
    from bench.library_scale import sample as spaced
    from verifier.library.plan import load_plan
    from verifier.run.batch import tool_version

    tool, version = tool_version(), cfg.cutlass_version(None)
    got: list[dict[str, Any]] = []
    for arch in archs:
        plan = load_plan([arch], "all", "", None, tool, version, None)
        payloads = {k: plan.payload(k, None) for k in plan.keys}
        want = [c.split("=", 1) for c in like or []]
        formed = [b for b in phases.batches(payloads, list(payloads), batch)
                  if 2 * sum(all(str(payloads[k]["fields"][f]) == v for f, v in want) for k in b) >= len(b)]
        chosen = min(batches, len(formed))
        keys = [k for i in range(chosen) for k in formed[i * len(formed) // chosen]] if want else \
            spaced(payloads, batches * batch, batch)
        for i in range(0, len(keys), batch):
            part = keys[i:i + batch]
            t0 = time.monotonic()
            shown = phases.derive_batch({"keys": part, "batch": [[plan.keys[k][1], plan.source(k)] for k in part]})
            print(f"{arch}: derived {len(part)} keys in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
            got += [{"key": k, "fields": payloads[k]["fields"], "representative": payloads[k]["representative"],
                     "configs": [], "tool": tool, "cutlass": version, "derived": shown["derived"][k]} for k in part]
    with gzip.open(out, "wt") as fh:
        json.dump({"payloads": got}, fh)


def load_sample(path: Path) -> list[dict[str, Any]]:
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        data = json.load(fh)
    return list(data["payloads"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("count", "sample", "derive", "check"))
    ap.add_argument("--arch", action="append", help="count, derive: repeatable (default 90a)")
    ap.add_argument("--kernels", default="all")
    ap.add_argument("-n", type=int, default=8, help="sample: the first N verified keys")
    ap.add_argument("--batch", type=int, default=phases.DEFAULT_BATCH)
    ap.add_argument("--batches", type=int, default=2, help="derive: batches an architecture")
    ap.add_argument("--like", action="append", help="derive: batches mostly of keys with this field=value")
    ap.add_argument("--derived", type=Path, help="derive: where to store; check: the stored derived keys")
    ap.add_argument("--time", action="store_true", help="sample: also time verify_key on each key alone")
    ap.add_argument("--json", type=Path, default=None, help="count, check: also write the answer here")
    a = ap.parse_args()
    archs = a.arch or ["90a"]
    if a.what == "derive":
        derive_sample(archs, a.batches, a.batch, a.derived, a.like)
        return
    got = (count(archs, a.kernels) if a.what == "count" else check(load_sample(a.derived)) if a.what == "check"
           else sample(archs[0], a.kernels, a.n, a.batch, a.time))
    print(json.dumps(got, indent=1))
    if a.json:
        a.json.write_text(json.dumps(got, indent=1) + "\n")
    if a.what == "check" and (got["violations"] or got["uncovered"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
