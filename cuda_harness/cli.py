"""``cute-verify gpu L|CASE [--sweep NAME=lo..hi]... [--host] [--json]``: run a layout, or a case of the parametric
corpus, on the GPU.

* a layout ``L`` (CuTe notation; every symbol needs ``--sweep``): CuTe builds and evaluates it on the device at every
  coordinate for every assignment, and it is compared index by index with the model on the device and the host
  model, with a guarded copy through it (injective, in bounds, bijective).  Verdict ``agree`` / ``mismatch``.
* a case id of ``oracle/data/parametric_cases.json``: the GPU sweep decides CuTe's result at every assignment of the
  case's range (``--sweep`` overrides it) and the engine's verdict is checked against it.  Verdict ``valid`` (correct
  everywhere swept) / ``invalid`` (wrong somewhere: the first assignments are listed); a disagreement with the
  engine (a refutation the device does not confirm, or a device mismatch where the engine proved validity) is
  reported and makes the exit status 3.
* a spec file (``*.cute.toml``, ``verifier/run/spec.py``): every check of an operation the sweep decides is swept on
  the device over its symbols' values (``--sweep``, else the first ``SPEC_SPAN`` admitted values of each symbol and
  the ``TILE_MULTIPLES`` it admits, within the file's assumptions) and cross-checked with the engine's verdict;
  other checks (properties, operations the sweep does not decide) are listed as not run.  Verdict ``agree`` /
  ``disagree`` (exit 3).

The sweep bounds its own work (``WORK_BUDGET`` element evaluations, far fewer in host mode): ranges given with
``--sweep`` are swept whole or refused with a one-line reason, and the values a spec check picks itself are the
smallest assignments within the budget (the report says how many of how many).

``--host`` runs the same generated code compiled with g++ on the CPU.  Exit status: 0 agree / valid, 1 mismatch /
invalid, 3 the device and the engine disagree, 2 bad input or no GPU (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verifier.cli.args import int64, timeout_arg
from verifier.core.errors import LayoutError, shorten
from verifier.oracle.corpora import PARAMETRIC_CORPUS

SWEEP = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)=(-?\d+)(?:\.\.(-?\d+))?$")
MAX_LAYOUT_ASSIGNMENTS = 4096
MAX_SWEEP_ASSIGNMENTS = 1 << 22
# Default values per symbol for a spec check, and the most assignments of one check.
SPEC_SPAN = 32
SPEC_ASSIGNMENTS = 1 << 16
TILE_MULTIPLES = (8, 16, 32, 64, 128, 192, 256, 384, 512)
CORPUS = PARAMETRIC_CORPUS
# The most element evaluations one command's sweep may take (the generated code evaluates every element of each
# assignment's result): in host mode one CPU core runs them, about a minute's work; the device runs thousands of
# assignments at once.
WORK_BUDGET = {True: 1 << 28, False: 1 << 34}


def add_parser(sub) -> None:
    g = sub.add_parser("gpu", help="run a layout or a parametric case on the GPU and compare with the model")
    g.add_argument("target", help="a layout in CuTe notation, or a case id of the parametric corpus")
    g.add_argument("--sweep", action="append", default=[], metavar="NAME=LO..HI",
                   help="the values of a symbol (inclusive range, or one value NAME=V)")
    g.add_argument("--host", action="store_true", help="run the generated code on the CPU (g++), no GPU needed")
    g.add_argument("--timeout", type=timeout_arg, default=10.0, metavar="S", help="the engine's time budget (case ids)")
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="one value for a symbol (the same as --sweep NAME=VALUE)")
    g.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="sweep only the assignments that satisfy EXPR, e.g. 'M %% 8 == 0'")
    g.set_defaults(func=cmd_gpu)


def _ranges(items: Sequence[str]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for item in items:
        m = SWEEP.match(item.strip())
        if not m:
            raise LayoutError(f"--sweep {item!r}: expected NAME=LO..HI or NAME=VALUE, e.g. --sweep M=1..64")
        name, lo = m.group(1), int64(m.group(2), f"--sweep {m.group(1)}")
        hi = int64(m.group(3), f"--sweep {name}") if m.group(3) is not None else lo
        if name in out:
            raise LayoutError(f"--sweep {name} is given twice")
        if lo > hi:
            raise LayoutError(f"--sweep {item}: empty range")
        if not (-(2**31) <= lo and hi <= 2**31 - 1):
            raise LayoutError(f"--sweep {item}: a run-time int of CuTe is an int32")
        out[name] = (lo, hi)
    return out


def _count(ranges: dict[str, tuple[int, int]]) -> int:
    n = 1
    for lo, hi in ranges.values():
        n *= hi - lo + 1
    return n


def _elements(case: object, env: dict[str, int]) -> int:
    """About how many elements the sweep evaluates at ``env``: a product's result has the sizes of both operands
    multiplied, every other operation's result at most the size of its largest layout operand."""
    from verifier.core.layouts import Layout
    from verifier.oracle.sweep import substitute

    concrete = substitute(case, env)  # type: ignore[arg-type]
    sizes = [int(x.size()) for x in concrete.operands if isinstance(x, Layout) and x.concrete]
    if not sizes:
        return 1
    if concrete.op.endswith("product"):
        n = 1
        for k in sizes:
            n *= k
        return n
    return max(sizes)


def _cost(n: int) -> int:
    """The work of one assignment of ``n`` elements: the sweep's passes (harness.CAPS) each run it up to their cap,
    until one holds it."""
    from cuda_harness.harness import CAPS

    total = 0
    for cap in CAPS:
        total += min(max(n, 1), cap)
        if n <= cap:
            break
    return total


def _within_budget(case: object, envs: list[dict[str, int]], budget: int, given: bool, what: str
                   ) -> list[dict[str, int]]:
    """The assignments to sweep within ``budget`` element evaluations.  Ranges the user gave are swept whole or
    refused with the reason; the command's own choice of values keeps the cheapest assignments that fit."""
    costs: list[int] = []
    spent = 0
    for e in envs:
        costs.append(_cost(_elements(case, e)))
        spent += costs[-1]
        if given and spent > budget:  # stop at once: the user's grid may be millions of assignments
            raise LayoutError(f"{what}: {len(envs)} assignments need more than {budget:.2e} element evaluations, "
                              "more than a sweep may take here: give smaller ranges with --sweep NAME=LO..HI")
    if spent <= budget:
        return envs
    order = sorted(range(len(envs)), key=lambda k: costs[k])  # stable: ties keep the grid's order
    keep, spent = [], 0
    for k in order:
        if spent + costs[k] > budget:
            break
        keep.append(k)
        spent += costs[k]
    return [envs[k] for k in sorted(keep)]


def _device(host: bool) -> str:
    from cuda_harness.probe import environment, gpu_available

    if host:
        return "the CPU"
    why = gpu_available()
    if why is not None:
        raise LayoutError(f"no GPU: {why}; use --host to run the same code on the CPU")
    return str(environment().get("gpu", "the GPU"))


def cmd_gpu(args: argparse.Namespace) -> int:
    from verifier.cli.args import params

    target = args.target.strip()
    ranges = _ranges(args.sweep)
    for name, value in params(args.param).items():
        if name in ranges:
            raise LayoutError(f"--param {name} and --sweep {name} are both given")
        if not -(2**31) <= value <= 2**31 - 1:
            raise LayoutError(f"--param {name}={value}: a run-time int of CuTe is an int32")
        ranges[name] = (value, value)
    if target.endswith(".toml") or _is_file(target):
        return _spec(target, ranges, args)
    corpus = {e["id"]: e for e in json.loads(CORPUS.read_text())} if CORPUS.is_file() else {}
    if target in corpus:
        return _case(corpus[target], ranges, args)
    if re.fullmatch(r"[A-Za-z][\w-]*-[\w-]*", target):
        raise LayoutError(f"{target!r} is not a case of the parametric corpus ({len(corpus)} cases) "
                          "and not a layout")
    return _layout(target, ranges, args)


def _is_file(target: str) -> bool:
    try:
        return Path(target).is_file()
    except (OSError, ValueError):  # a name too long for the file system, or holding NUL: not a file
        return False


def _layout(text: str, ranges: dict[str, tuple[int, int]], args: argparse.Namespace) -> int:
    from cuda_harness.harness import Case, evaluate
    from verifier.core.symbols import Symbols
    from verifier.notation.cpp import parse_layout
    from verifier.oracle.sweep import grid

    symbols = Symbols()
    layout = parse_layout(text, symbols)
    missing = sorted(layout.symbols() - set(ranges))
    if missing:
        name = shorten(missing[0], 20)
        raise LayoutError(f"symbol {name} needs values: --sweep {name}=1..64")
    extra = sorted(set(ranges) - layout.symbols())
    if extra:
        raise LayoutError(f"--sweep {extra[0]}: the layout has no symbol {extra[0]}")
    if _count(ranges) > MAX_LAYOUT_ASSIGNMENTS:
        raise LayoutError(f"{_count(ranges)} assignments: at most {MAX_LAYOUT_ASSIGNMENTS} for a layout")
    envs = _assumed(grid(ranges) if ranges else [{}], args.assume, symbols)
    total = 0
    for env in envs:
        symbols.check_values(env)
        concrete = layout.substitute(env)
        n = int(concrete.size())
        if n <= 0 or n > (1 << 24):
            raise LayoutError(f"with {env or 'no symbols'}: size {n} is not in 1..{1 << 24}")
        total += n
    if total > WORK_BUDGET[args.host]:
        raise LayoutError(f"{len(envs)} assignments of {total} elements in all, above the {WORK_BUDGET[args.host]} a "
                          f"sweep may evaluate {_on(args)}: give smaller ranges with --sweep NAME=LO..HI")
    device = _device(args.host)
    rep = evaluate([Case(text, None, (layout,), envs=tuple(envs))], host=args.host)
    bad = [c for c in rep.checks if c.status != "agree"]
    verdict = "mismatch" if bad else "agree"
    if args.json:
        print(json.dumps({"verdict": verdict, "layout": str(layout), "device": device, "method": rep.method,
                          "assignments": [{"env": c.env, "status": c.status, "detail": c.detail, "indices": c.indices,
                                           "injective": c.injective, "in_bounds": c.in_bounds,
                                           "bijective": c.bijective} for c in rep.checks]}))
        return 1 if bad else 0
    indices = sum(c.indices for c in rep.checks)
    k = len(rep.checks)
    if bad:
        print(f"mismatch: {layout} on {device} ({rep.method}): {len(bad)} of {k} assignments differ")
        for c in bad[:10]:
            print(f"  {_env(c.env)}: {c.detail}")
    else:
        print(f"agree: {layout} on {device} ({rep.method}): CuTe {_on(args)}, the model {_on(args)} and the "
              f"host model agree at {indices} indices over {k} assignment(s)")

    def yes(flag: str) -> str:
        return f"{sum(getattr(c, flag) is True for c in rep.checks)} of {k}"

    print(f"  injective at {yes('injective')}; in bounds at {yes('in_bounds')}; bijective at {yes('bijective')} "
          f"(guarded copy on {'host' if args.host else 'device'} memory, writes counted with atomics)")
    return 1 if bad else 0


def _on(args: argparse.Namespace) -> str:
    """Where the generated code ran, in words: host mode is not a device."""
    return "in host mode (g++ on the CPU)" if args.host else "on the device"


def _side(args: argparse.Namespace) -> str:
    return "host" if args.host else "device"


def _assumed(envs: list[dict[str, int]], relations: Sequence[str], symbols) -> list[dict[str, int]]:
    """The assignments that satisfy every ``--assume`` (over the given table's symbols)."""
    if not relations:
        return envs
    from verifier.core.symbols import _holds
    from verifier.run.problems import assume

    before = len(symbols.relations)
    assume(symbols, relations)
    rels = symbols.relations[before:]
    out = [e for e in envs if all(_holds(r, e) for r in rels)]
    if not out:
        raise LayoutError("no assignment of the sweep satisfies the --assume relations")
    return out


def _env(env: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in env.items()) or "(no symbols)"


def _case(entry: dict, ranges: dict[str, tuple[int, int]], args: argparse.Namespace) -> int:
    from cuda_harness.harness import sweep
    from verifier.engine.verify import verify
    from verifier.oracle.corpora import parametric, parametric_assignments, problem
    from verifier.oracle.sweep import SweepCase, grid, key

    if ranges and set(ranges) != set(entry["range"]):
        raise LayoutError(f"--sweep must give every symbol of {entry['id']}: {', '.join(sorted(entry['range']))}")
    if ranges:  # the case's own assumptions still hold: the engine's verdict is under them
        from verifier.notation.cpp import parse_relation

        if _count(ranges) > MAX_SWEEP_ASSIGNMENTS:  # before the grid is built
            raise LayoutError(f"{_count(ranges)} assignments: at most {MAX_SWEEP_ASSIGNMENTS}")

        rels = [parse_relation(r) for r in entry.get("assume", [])]
        envs = [env for env in grid(ranges) if all(r.evaluate(env) for r in rels)]
        if not envs:
            raise LayoutError(f"no assignment in the --sweep ranges satisfies {' and '.join(entry['assume'])}")
    else:
        envs = parametric_assignments(entry)
    if args.assume:
        from verifier.core.symbols import Symbols

        table = Symbols()
        for name in entry["range"]:
            table.lookup(name)
        envs = _assumed(envs, args.assume, table)
    if len(envs) > MAX_SWEEP_ASSIGNMENTS:
        raise LayoutError(f"{len(envs)} assignments: at most {MAX_SWEEP_ASSIGNMENTS}")
    device = _device(args.host)
    op, ops, tpl = parametric(entry)
    envs = _within_budget(SweepCase(op, ops, tpl), envs, WORK_BUDGET[args.host], True, entry["id"])
    v = verify(*problem(entry), timeout=args.timeout, derive=False)
    cx = dict(v.counterexample.params) if v.counterexample is not None else None
    if cx and cx not in envs:
        envs = [*envs, cx]
    (res,), method = sweep([SweepCase(op, ops, tpl)], [envs], host=args.host)
    # A division by zero in CuTe's operation (seen in host mode; the GPU does not trap) is a failure too.
    wrong = [dict(k) for k, s in res.status.items() if s in ("wrong", "ub")]
    counts: dict[str, int] = {}
    for s in res.status.values():
        counts[s] = counts.get(s, 0) + 1
    at_cx = res.status.get(key(cx)) if cx else None
    disagree = None
    if v.verdict == "valid" and (wrong or res.rejected):
        disagree = f"the engine proved it valid, but CuTe is wrong {_on(args)} at {_env(wrong[0])}"
    if v.verdict == "invalid" and cx and at_cx not in ("wrong", "ub"):
        disagree = f"the engine's counterexample {_env(cx)} is '{at_cx}' {_on(args)}"
    verdict = "invalid" if (wrong or res.rejected) else "valid"
    code = 3 if disagree else (1 if verdict == "invalid" else 0)
    if args.json:
        print(json.dumps({"verdict": verdict, "id": entry["id"], "op": op, "device": device, "method": method,
                          "assignments": len(envs), "counts": counts, "rejected": res.rejected,
                          "wrong_first": wrong[:20], "engine": v.verdict, "counterexample": cx,
                          "device_at_counterexample": at_cx, "disagreement": disagree}))
        return code
    args_text = ", ".join(entry["args"])
    if res.rejected:
        print(f"invalid: {op}({args_text}) does not compile {_on(args)}: {res.rejected}")
    elif wrong:
        print(f"invalid: {op}({args_text}) on {device} ({method}): CuTe's result is wrong at {len(wrong)} of "
              f"{len(envs)} assignments")
        print("wrong at (first 10):")
        for w in wrong[:10]:
            print(f"  {_env(w)}")
    else:
        print(f"valid: {op}({args_text}) on {device} ({method}): CuTe's result is correct at every one of "
              f"{counts.get('correct', 0)} assignments decided" +
              (f" ({counts.get('ub', 0)} divide by zero, {counts.get('too_large', 0)} too large)"
               if counts.get("ub") or counts.get("too_large") else ""))
    engine = f"engine: {v.verdict}" + (f", counterexample {_env(cx)} ({_side(args)}: {at_cx})" if cx else "")
    print(engine + ("" if disagree is None else f"; DISAGREES: {disagree}"))
    return code


def _spec_envs(table, ranges: dict[str, tuple[int, int]]) -> list[dict[str, int]]:
    """The assignments of a spec check's symbols: ``--sweep`` ranges, else admitted values from each symbol's
    minimum (as many as keep the grid within ``SPEC_ASSIGNMENTS``), filtered by the assumptions."""
    import itertools

    names = sorted(table.table)
    spans: list[list[int]] = []
    span = SPEC_SPAN
    while True:
        spans = []
        for n in names:
            sym = table.table[n]
            if n in ranges:
                lo, hi = ranges[n]
                if hi - lo + 1 > MAX_SWEEP_ASSIGNMENTS:  # before the values are listed
                    raise LayoutError(f"--sweep {n}={lo}..{hi}: {hi - lo + 1} values, at most {MAX_SWEEP_ASSIGNMENTS}")
                spans.append([v for v in range(lo, hi + 1) if sym.admits(v)])
            else:  # the smallest admitted values, and tile-sized multiples (where divisibility is assumed)
                vals: list[int] = []
                v = sym.lo
                while len(vals) < span and (sym.hi is None or v <= sym.hi):
                    if sym.admits(v):
                        vals.append(v)
                    v += 1 if sym.multiple_of == 1 or vals == [] else sym.multiple_of
                spans.append(sorted(set(vals) | {m for m in TILE_MULTIPLES if sym.admits(m)}))
        total = 1
        for sp in spans:
            total *= len(sp)
        if total <= SPEC_ASSIGNMENTS or span <= 2:
            break
        span //= 2
    if total > MAX_SWEEP_ASSIGNMENTS:
        raise LayoutError(f"{total} assignments: at most {MAX_SWEEP_ASSIGNMENTS} per check")
    envs = [dict(zip(names, vs)) for vs in itertools.product(*spans)]
    return [e for e in envs if all(r.evaluate(e) for r in table.relations)]


def _names(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z0-9_]*", text)


def _spec(path: str, ranges: dict[str, tuple[int, int]], args: argparse.Namespace) -> int:
    from cuda_harness.harness import sweep
    from verifier.engine.verify import verify
    from verifier.notation.cpp import parse_relation
    from verifier.oracle.sweep import SUPPORTED, SweepCase, key
    from verifier.run import spec

    checks = spec.load([path])
    runs, skipped = [], []
    for c in checks:
        if c.is_property or c.op not in SUPPORTED:
            skipped.append((c, "a property" if c.is_property else f"{c.op} is not decided by the sweep"))
            continue
        ops, table = c.problem()
        n_tpl = {"upcast": 1, "downcast": 1, "recast_layout": 2}.get(c.op, 0)
        case = SweepCase(c.op, tuple(ops[n_tpl:]), tuple(int(x) for x in ops[:n_tpl]))  # type: ignore[call-overload]
        unknown = sorted(set(ranges) - set(table.table))
        envs = _spec_envs(table, {k: v for k, v in ranges.items() if k in table.table})
        if args.assume:
            from verifier.core.symbols import _holds

            rels = [parse_relation(t, table) for t in args.assume if set(_names(t)) <= set(table.table)]
            envs = [e for e in envs if all(_holds(r, e) for r in rels)]
        given = set(table.table) <= set(ranges)
        budget = WORK_BUDGET[args.host] // max(1, len(checks))
        before = len(envs)
        envs = _within_budget(case, envs, budget, given, f"{c.name} (line {c.line})")
        note = (f"the {len(envs)} smallest of {before} assignments, within the sweep's budget"
                if len(envs) < before else None)
        v = verify(c.op, ops, table, timeout=_tighter(c.timeout, args.timeout), derive=False)
        cx = dict(v.counterexample.params) if v.counterexample is not None else None
        if cx is not None and cx not in envs:
            envs.append(cx)
        if not envs:
            skipped.append((c, "no assignment satisfies its assumptions in the swept values"))
            continue
        runs.append((c, case, envs, v, cx, unknown, note))
    device = _device(args.host)
    results, method = sweep([r[1] for r in runs], [r[2] for r in runs], host=args.host) if runs else ([], "-")
    rows: list[dict[str, Any]] = []
    disagreements = 0
    for (c, _case, envs, v, cx, _, note), res in zip(runs, results):
        wrong = [dict(k) for k, st in res.status.items() if st in ("wrong", "ub")]
        dev = "invalid" if (wrong or res.rejected) else "valid"
        at_cx = res.status.get(key(cx)) if cx is not None else None
        # A counterexample too large for the sweep to evaluate (an overflow near 2^31) is undecided there, not
        # contradicted.
        bad = (v.verdict == "valid" and dev == "invalid") or (v.verdict == "invalid" and cx is not None
                                                                 and at_cx not in ("wrong", "ub", "too_large"))
        disagreements += bad
        rows.append({"name": c.name, "line": c.line, "op": c.op, "assignments": len(envs), "device": dev,
                     "wrong": len(wrong), "wrong_first": wrong[:5], "rejected": res.rejected, "engine": v.verdict,
                     "expect": c.expect, "counterexample": cx, "device_at_counterexample": at_cx,
                     "disagrees": bad, "bounded": note})
    verdict = "disagree" if disagreements else "agree"
    if args.json:
        print(json.dumps({"verdict": verdict, "spec": path, "device": device, "method": method, "checks": rows,
                          "not_run": [{"name": c.name, "line": c.line, "why": why} for c, why in skipped]}))
        return 3 if disagreements else 0
    print(f"{verdict}: {path} on {device} ({method}): {len(rows)} check(s) swept {_on(args)}, "
          f"{disagreements} disagree with the engine; {len(skipped)} not run")
    for r in rows:
        mark = "DISAGREES" if r["disagrees"] else "ok"
        found = (f"wrong at {r['wrong']} of {r['assignments']}, first {_env(r['wrong_first'][0])}" if r["wrong"]
                 else f"rejected: {r['rejected']}" if r["rejected"] else f"correct at all {r['assignments']}")
        cxs = f", counterexample {_env(r['counterexample'])} ({r['device_at_counterexample']})" \
            if r["counterexample"] is not None else ""
        bounded = f"; swept {r['bounded']}" if r["bounded"] else ""
        print(f"  [{mark}] {r['name']} (line {r['line']}): {_side(args)} {r['device']} ({found}); engine {r['engine']}"
              f"{cxs}; expected {r['expect']}{bounded}")
    for c, why in skipped:
        print(f"  [not run] {c.name} (line {c.line}): {why}")
    return 3 if disagreements else 0


def _tighter(a: float | None, b: float | None) -> float | None:
    """The tighter of two wall-clock safety nets; None is the default hang guard."""
    return b if a is None else a if b is None else min(a, b)

