"""``cute-verify library``: CUTLASS's generated GEMM configurations, their layouts derived from CUTLASS's compiled
collective builders, verified for every admitted problem and compared with ``can_implement`` (docs/library.md).

Exit status: 0 nothing found, 1 a finding (replayed on compiled CUTLASS), 3 some key undecided, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("library", help="verify CUTLASS's generated GEMM configurations for every problem size",
                       description="Enumerate the GEMM configurations with CUTLASS's generator, derive each "
                                   "key's layouts from CUTLASS's compiled builders, verify them for every "
                                   "admitted M, N, K, L and compare with can_implement.")
    p.add_argument("--arch", action="append", choices=("90a", "100a"), help="architecture (repeatable; "
                   "default 90a)")
    p.add_argument("--kernels", default="all", metavar="FILTER", help="the generator's --kernels filter "
                   "(default all)")
    p.add_argument("--instantiation-level", default="", metavar="LEVEL", help="the generator's "
                   "--instantiation-level")
    p.add_argument("--cutlass", metavar="PATH", help="a CUTLASS checkout (python/cutlass_library, include/) "
                   "instead of the installed nvidia-cutlass")
    p.add_argument("-o", "--output", metavar="REPORT.json", default="library-report.json",
                   help="the JSON report (default library-report.json)")
    p.add_argument("--html", metavar="REPORT.html", help="also write the report as an HTML page")
    p.add_argument("--json", action="store_true", help="print the counts as JSON instead of the summary line (the "
                   "whole report is -o's file)")
    p.add_argument("--limit", type=int, metavar="N", help="verify only the first N keys (the rest are listed "
                   "as not verified)")
    p.add_argument("--batch", type=int, default=None, metavar="N", help="keys compiled into one program in the "
                   "derive phase, neighbours in the derive order (default 256)")
    p.add_argument("--no-plan-cache", action="store_true", help="enumerate and key the configurations again "
                   "instead of reading them from the result cache's plans (docs/library.md)")
    from verifier.library.distribute import add_sweep_options

    add_sweep_options(p)
    p.set_defaults(func=cmd_library)


def cmd_library(args: argparse.Namespace) -> int:
    from verifier.library import configs as cfg
    from verifier.library import phases, report
    from verifier.library.distribute import Record, store_path, sweep_options
    from verifier.library.plan import load_plan
    from verifier.run.batch import cache_root, tool_version

    if args.limit is not None and args.limit < 0:
        from verifier.cli.args import UsageError

        raise UsageError("--limit: must be >= 0")
    if args.batch is not None and args.batch < 1:
        from verifier.cli.args import UsageError

        raise UsageError("--batch: must be >= 1")
    tool, version = tool_version(), cfg.cutlass_version(args.cutlass)
    include = str(cfg.include_dir(args.cutlass)) if args.cutlass else None
    start = time.monotonic()
    archs = list(args.arch or ["90a"])
    # The keys, read from the result cache's plans when this enumeration was keyed before (verifier/library/plan.py)
    plan = load_plan(archs, args.kernels, args.instantiation_level, args.cutlass, tool, version,
                     None if args.no_plan_cache else cache_root() / "library" / "plans")
    payloads = {k: plan.payload(k, include) for k in plan.keys}
    keys = list(payloads)
    todo = keys if args.limit is None else keys[:args.limit]
    pending = keys[len(todo):]
    enumerated = time.monotonic() - start

    def shown(record: Record) -> None:
        r = record.result or {}
        what = f"{r.get('status')}: {r.get('verdict', '-')}" if record.status == "ok" else f"error: {record.error}"
        print(f"{what} {payloads[record.key]['representative']} ({len(payloads[record.key]['configs'])} "
              f"configurations, {record.seconds:.1f} s)", file=sys.stderr)

    ran = phases.run(payloads, todo, store_path(args), tool, version, batch=args.batch or phases.DEFAULT_BATCH,
                     progress=sys.stderr.isatty(), on_record=shown, source=plan.source, **sweep_options(args))
    swept = time.monotonic()
    done = ran.keys
    results: list[dict[str, Any]] = []
    for k in todo:
        rec = done.records[k]
        if rec.status == "ok" and rec.result is not None:
            results.append(rec.result)
        else:
            p = payloads[k]
            results.append({"key": k, "representative": p["representative"], "configs": p["configs"],
                            "status": "error", "reason": rec.error})
    meta = {"archs": archs, "kernels": args.kernels, "level": args.instantiation_level,
            "cuda_version": cfg.CUDA_VERSION, "cutlass": version, "tool": tool, "configurations_per_arch": plan.counts,
            "sweep": {"engine": done.engine, "workers": done.workers, "cached": done.cached,
                      "computed": done.computed, "errors": done.errors, "startup": round(ran.startup, 2),
                      # the derive and decide phases: batches of keys compiled, distinct layout problems decided
                      "derive": _phase(ran.derive), "decide": _phase(ran.decide), "problems": ran.problems,
                      "problem_uses": ran.problem_uses},
            # the keys (enumerated, or read from the plan cache: "plan_cached"), the three phases, the reports
            "plan_cached": plan.cached,
            "seconds": {"enumerate": round(enumerated, 2),
                        "sweep": round(ran.seconds, 2),  # the three kinds of units overlap: one wall time
                        "phases": round(swept - enumerated - start, 2)}}
    data = report.build(meta, results, plan.configurations(), pending)
    data["seconds"]["report"] = round(time.monotonic() - swept, 2)  # building the data; writing it is not counted
    data["seconds"]["total"] = round(time.monotonic() - start, 2)
    report.write(args.output, data)
    if args.html:
        report.write_html(args.html, data)
    c = data["counts"]
    if args.json:
        import json

        print(json.dumps({"counts": c, "report": str(args.output)}, sort_keys=True))
    else:
        print(f"{c['configurations']} configurations, {c['keys']} keys, {c['keys_verified']} verified "
              f"({done.cached} from the store), {c['findings']} findings -> {args.output}")
    if c["findings"]:
        return 1
    return 3 if any(r.get("verdict") not in ("valid", None) or r["status"] != "verified" for r in results) else 0


def _phase(done: Any) -> dict[str, Any] | None:
    if done is None:
        return None
    return {"items": done.total, "cached": done.cached, "computed": done.computed, "errors": done.errors,
            "seconds": round(done.seconds, 2)}
