"""Rendering of a traced DSL function's findings (text, JSON, SARIF) and its exit status."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from verifier.engine.verdicts import INVALID, UNKNOWN, VALID

if TYPE_CHECKING:
    from verifier.dsl.tracer import Finding, Trace


def exit_code(findings: list[Finding]) -> int:
    verdicts = {f.verdict.verdict for f in findings}
    return 1 if INVALID in verdicts else (3 if UNKNOWN in verdicts else 0)


def render_text(t: Trace, findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        v, r = f.verdict, f.op
        lines.append(f"{t.path}:{r.line}: {v.verdict}: {r.call}" + (f": {v.reason}" if v.reason else ""))
        lines.append(f"  {r.line} | {r.source}")
        lines.append(f"  result (DSL trace form): {r.result}")
        c = v.counterexample
        if c is not None:
            used = set(t.params) | set(r.untied)
            at = ", ".join(f"{k}={x}" for k, x in c.params.items() if k in used)
            text = f"  counterexample: {at or 'any values'}"
            if c.coordinate is not None:
                text += f"; at coordinate {c.coordinate} expected {c.expected}, the DSL gives {c.actual}"
            lines.append(text + f" ({c.obligation})")
        if v.guard is not None:
            lines.append(f"  condition: {v.guard.condition}  (python guard: {v.guard.python})")
        for w in (v.warnings if v.verdict == VALID else ()):
            at = ""
            if w.counterexample is not None:
                at = "; e.g. " + ", ".join(f"{k}={x}" for k, x in w.counterexample.params.items()
                                           if k in t.params or k in r.untied)
            lines.append(f"  warning: {w.id} fails: {w.description} ({w.source}){at} (--strict: an error)")
        if r.untied:
            lines.append(f"  untied run-time values (unconstrained): {', '.join(r.untied)}")
    facts = [f"{fact} (line {line})" for fact, line, _ in t.facts]
    lines.append("parameters: " + (", ".join(s.describe() for s in t.symbols if s.name in t.params) or "none"))
    if facts or t.assumed:
        lines.append("assumed: " + "; ".join(facts + [f"{a} (--assume)" for a in t.assumed]))
    for what, line, _ in t.unmodelled:
        lines.append(f"not modelled: {what}(...) at line {line}: the tracer does not verify it")
    for name, line, what in t.untied:
        lines.append(f"untied: {name} = {what} at line {line}: no parameter determines it; treated as "
                     "unconstrained (any int32 >= 0)")
    n = {k: sum(1 for f in findings if f.verdict.verdict == k) for k in (VALID, INVALID, UNKNOWN)}
    lines.append(f"{len(findings)} layout operations in {t.function}: {n[VALID]} valid, {n[INVALID]} invalid, "
                 f"{n[UNKNOWN]} unknown")
    return "\n".join(lines)


def render_json(t: Trace, findings: list[Finding]) -> str:
    return json.dumps({
        "tool": "cute-layout-verifier", "file": t.path, "function": t.function, "semantics": "dsl",
        "parameters": [{"name": s.name, "lo": s.lo, "hi": s.hi, "multiple_of": s.multiple_of, "bits": s.bits}
                       for s in t.symbols if s.name in t.params],
        "facts": [{"fact": f, "line": line, "source": src} for f, line, src in t.facts],
        "assumed": list(t.assumed),
        "untied": [{"name": n, "line": line, "value": w} for n, line, w in t.untied],
        "unmodelled": [{"call": w, "line": line, "source": src} for w, line, src in t.unmodelled],
        "operations": [{"line": f.op.line, "source": f.op.source, "call": f.op.call, "dsl_result": f.op.result,
                        "untied": list(f.op.untied), **f.verdict.to_json()} for f in findings],
        "exit_code": exit_code(findings),
    }, indent=2)


def render_sarif(t: Trace, findings: list[Finding]) -> str:
    """SARIF 2.1.0 through the spec runs' renderer: each operation a check at its line of the ``.py`` file."""
    from verifier.present.report import results_sarif
    from verifier.run.batch import CheckResult
    from verifier.run.spec import Check

    results = [CheckResult(Check(f"{t.function}:{f.op.line} {f.op.call}", f.op.op, False,
                                 tuple(str(a) for a in f.op.args), "valid", 0.0, t.path, f.op.line,
                                 semantics="dsl"), f.verdict, False, 0.0) for f in findings]
    return results_sarif(results)
