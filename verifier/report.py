"""Rendering of verdicts: the one place that turns ``Verdict`` data into text for people or JSON for tools.

Human output puts the verdict first, then the counterexample as a table, then the condition and its guards, then
every obligation with its status and source.  JSON output is ``Verdict.to_json()``, one object per verdict.
"""

from __future__ import annotations

import json

from .verdicts import Counterexample, Verdict


def to_json(v: Verdict) -> str:
    return json.dumps(v.to_json())


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


def counterexample_table(c: Counterexample) -> list[str]:
    names = list(c.params)
    head = [*names, "coordinate", "expected", "actual", "obligation"]
    show = lambda x: "-" if x is None else str(x)  # noqa: E731
    row = [*(str(c.params[n]) for n in names), show(c.coordinate), show(c.expected), show(c.actual), c.obligation]
    lines = _table([head, row])
    if c.note:
        lines.append(f"  ({c.note})")
    return lines


def to_text(v: Verdict, details: bool = True) -> str:
    lines = [f"{v.verdict}: {v.op}({', '.join(v.inputs)})" + (f": {v.reason}" if v.reason else "")]
    if v.result is not None:
        lines.append(f"result : {v.result}")
    if v.assumptions:
        lines.append(f"assuming: {'; '.join(v.assumptions)}")
    if v.counterexample is not None:
        lines.append("counterexample:")
        lines += counterexample_table(v.counterexample)
    if v.guard is not None:
        g = v.guard
        lines.append(f"condition: {g.condition}  (sufficient: proved; necessary: {g.necessary})")
        if g.necessity_witness:
            shown = ", ".join(f"{k}={x}" for k, x in g.necessity_witness.items())
            lines.append(f"  not necessary: the result is also correct at {shown}")
        lines.append("guard (C++):")
        lines += ["  " + line for line in g.cpp.splitlines()]
        lines.append("guard (Python, CuTe DSL):")
        lines.append("  " + g.python)
    if details and v.obligations:
        lines.append("obligations:")
        for o in v.obligations:
            mark = "" if o.deciding else " (informative)"
            lines.append(f"  [{o.status}] {o.id} ({o.source}){mark}: {o.description}")
            if o.reason:
                lines.append(f"      {o.reason}")
    return "\n".join(lines)
