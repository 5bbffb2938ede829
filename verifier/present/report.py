"""Rendering of verdicts: the one place that turns ``Verdict`` data into text for people or JSON for tools.

Human output puts the verdict first, then the counterexample as a table, then the condition and its guards, then
every obligation with its status and source.  JSON output is ``Verdict.to_json()``, one object per verdict.
Results of spec-file runs (``cute-verify run``) render as text, JSON, SARIF 2.1.0 or JUnit XML, and the pytest
helpers' failure messages are built here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.core.obligations import severity
from verifier.engine.verdicts import (
    INVALID,
    PROVED,
    REFUTED,
    UNKNOWN,
    VALID,
    Counterexample,
    ObligationVerdict,
    Verdict,
)

if TYPE_CHECKING:
    from verifier.run.batch import CheckResult
    from verifier.run.theorems import TheoremResult


def to_json(v: Verdict) -> str:
    return json.dumps(v.to_json())


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


def counterexample_table(c: Counterexample) -> list[str]:
    names = list(c.params)
    head = [*names, "coordinate", "expected", "actual", "obligation"]

    def show(x: object) -> str:
        return "-" if x is None else str(x)

    row = [*(str(c.params[n]) for n in names), show(c.coordinate), show(c.expected), show(c.actual), c.obligation]
    lines = _table([head, row])
    if c.note:
        lines.append(f"  ({c.note})")
    return lines


def _warning_lines(v: Verdict) -> list[str]:
    """Each failing warning of a verdict that they do not make invalid: its description and counterexample."""
    if v.verdict not in (VALID, PROVED):
        return []
    lines = []
    for o in v.warnings:
        lines.append(f"warning: {o.id} fails: {o.description} ({o.source})")
        if o.counterexample is not None:
            lines += counterexample_table(o.counterexample)
    return lines


REASON_LIMIT = 300  # characters of a reason shown by default; -v shows it whole


def fold(reason: str, limit: int | None = REASON_LIMIT) -> str:
    """A reason without its repeats (the parts of a reason joined by ``; `` often say the same thing once per
    mode), cut at ``limit`` characters with a note of what was left out."""
    parts = list(dict.fromkeys(p.strip() for p in reason.split("; ") if p.strip()))
    text = "; ".join(parts)
    repeats = len(reason.split("; ")) - len(parts)
    if repeats > 0:
        text += f" (and {repeats} repeat{'s' if repeats > 1 else ''})"
    if limit is not None and len(text) > limit:
        text = text[:limit].rstrip() + f"... ({len(text) - limit} more characters; -v shows all)"
    return text


def to_text(v: Verdict, details: bool = True, verbose: bool = False) -> str:
    """The verdict as a person reads it, as ruff reports: the verdict line, the result and assumptions, then what
    failed (the counterexample, the failing warnings, the guard) and, with ``details``, the obligations that were
    not proved; ``verbose`` adds every obligation that held and shows reasons whole."""
    limit = None if verbose else REASON_LIMIT
    head = f"{v.verdict}: {v.op}({', '.join(v.inputs)})" + (f": {fold(v.reason, limit)}" if v.reason else "")
    n = len(v.warnings) if v.verdict in (VALID, PROVED) else 0
    lines = [head + (f" ({n} warning{'s' if n > 1 else ''}; --strict makes {'them errors' if n > 1 else 'it an error'})"
                     if n else "")]
    if v.result is not None:
        lines.append(f"result : {v.result}")
    if v.assumptions:
        lines.append(f"assuming: {'; '.join(v.assumptions)}")
    if v.counterexample is not None:
        lines.append("counterexample:")
        lines += counterexample_table(v.counterexample)
    lines += _warning_lines(v)
    if v.guard is None and v.guard_note is not None:
        lines.append(f"condition: {v.guard_note}")
    if v.guard is not None:
        g = v.guard
        covers = f"; covers {', '.join(g.covers)}" if g.covers else ""
        lines.append(f"condition: {g.condition}  (sufficient: proved; necessary: {g.necessary}{covers})")
        if g.necessity_witness:
            shown = ", ".join(f"{k}={x}" for k, x in g.necessity_witness.items())
            lines.append(f"  not necessary: the result is also correct at {shown}")
        lines.append("guard (C++):")
        lines += ["  " + line for line in g.cpp.splitlines()]
        lines.append("guard (Python, CuTe DSL):")
        lines.append("  " + g.python)
    shown_warnings = {id(o) for o in v.warnings} if v.verdict in (VALID, PROVED) else set()
    listed = [o for o in v.obligations if verbose or (o.status != PROVED and id(o) not in shown_warnings)]
    if details and listed:
        lines.append("obligations:" if verbose else "not proved:")
        seen: set[tuple[str, str, str]] = set()
        for o in listed:
            mark = " (informative)" if not o.deciding else "" if o.severity == "error" else f" ({o.severity})"
            line = f"  [{o.status}] {o.id} ({o.source}){mark}: {o.description}"
            reason = fold(o.reason, limit) if o.reason else ""
            if not verbose and (line, reason, o.status) in seen:
                continue
            seen.add((line, reason, o.status))
            lines.append(line)
            if reason:
                lines.append(f"      {reason}")
    return "\n".join(lines)


# -- spec-file runs: text, JSON, SARIF 2.1.0 and JUnit XML ------------------------------------------------------

TOOL_NAME = "cute-layout-verifier"
SARIF_SCHEMA = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"


def _counts(results: Sequence[CheckResult]) -> dict[str, int]:
    return {"checks": len(results), "as_expected": sum(r.matched for r in results),
            "not_as_expected": sum(not r.matched for r in results),
            "unknown": sum(r.verdict.verdict == UNKNOWN for r in results),
            "cached": sum(r.cached for r in results)}


def summary_line(results: Sequence[CheckResult], seconds: float) -> str:
    c = _counts(results)
    return (f"{c['checks']} checks: {c['as_expected']} as expected, {c['not_as_expected']} not; "
            f"{c['unknown']} unknown; {c['cached']} from the cache; {seconds:.1f} s")


def _where(r: CheckResult) -> str:
    return f"{r.check.file}:{r.check.line}"


def _call(v: Verdict) -> str:
    return f"{v.op}({', '.join(v.inputs)})"


def result_text(r: CheckResult) -> list[str]:
    """A check's lines: ``ok`` or ``FAIL`` with its place and verdict; a failed check gets its verdict in full, an
    invalid verdict that was expected gets its counterexample (a known bug stays visible)."""
    v = r.verdict
    mark = "ok  " if r.matched else "FAIL"
    note = f"{v.verdict}" + ("" if r.matched else f", expected {r.check.expect}") + (" (cached)" if r.cached
                                                                                     else "")
    lines = [f"{mark} {_where(r)} {r.check.name}: {note}"]
    if not r.matched:
        lines += ["     " + x for x in to_text(v, details=False).splitlines()]
    elif v.verdict in (INVALID, REFUTED):
        lines.append(f"     {_call(v)}: {v.reason}")
        if v.counterexample is not None:
            lines += ["   " + x for x in counterexample_table(v.counterexample)]
    return lines


def results_text(results: Sequence[CheckResult], seconds: float) -> str:
    """Each check's lines (``result_text``), then the summary."""
    return "\n".join([*(line for r in results for line in result_text(r)), summary_line(results, seconds)])


def result_json(r: CheckResult) -> dict[str, object]:
    """The engine's JSON verdict with the check's name, place, expectation, whether it matched, and caching."""
    return {**r.verdict.to_json(), "check": r.check.name, "file": r.check.file, "line": r.check.line,
            "expect": r.check.expect, "matched": r.matched, "cached": r.cached, "seconds": round(r.seconds, 3)}


def results_json(results: Sequence[CheckResult], seconds: float) -> str:
    from verifier.run.batch import tool_version

    return json.dumps({"tool": {"name": TOOL_NAME, "version": tool_version()},
                       "summary": {**_counts(results), "seconds": round(seconds, 3)},
                       "results": [result_json(r) for r in results]}, indent=2)


def _rule_id(v: Verdict) -> str:
    """The obligation kind a verdict is about: the failed obligation, the undecided one, or what CuTe rejects."""
    if v.counterexample is not None:
        return v.counterexample.obligation
    for status in (REFUTED, UNKNOWN):
        for o in v.obligations:
            if o.deciding and o.status == status:
                return o.id
    if v.verdict == INVALID:
        return "CUTE-UB" if v.reason and v.reason.startswith("undefined behaviour") else "CUTE-REJECTS"
    return "UNDECIDED" if v.verdict == UNKNOWN else "EXPECTATION"


_RULE_TEXT = {
    "CUTE-UB": ("CuTe performs a division by zero", "undefined behaviour in CuTe's arithmetic"),
    "CUTE-REJECTS": ("CuTe rejects these operands at compile time", "a static_assert CuTe would hit"),
    "UNDECIDED": ("the engine could not decide the check", "unknown, with the reason"),
    "EXPECTATION": ("the verdict is not the one the spec expects", "a check expected to fail now holds"),
}


def _message(r: CheckResult) -> str:
    v = r.verdict
    head = f"{r.check.name}: {_call(v)} is {v.verdict}" + ("" if r.matched else f" (expected {r.check.expect})")
    parts = [head + (f": {v.reason}" if v.reason else "")]
    c = v.counterexample
    if c is not None:
        at = ", ".join(f"{k}={x}" for k, x in c.params.items()) or "any values"
        text = f"Counterexample: {at}"
        if c.coordinate is not None:
            text += f", coordinate {c.coordinate}"
        if c.expected is not None or c.actual is not None:
            text += f": expected {c.expected}, CuTe gives {c.actual}"
        parts.append(text + f" ({c.obligation}).")
    if v.guard is not None:
        parts.append(f"Valid when {v.guard.condition} (necessary: {v.guard.necessary}).")
    return " ".join(parts)


def _warning_result(r: CheckResult, o: ObligationVerdict) -> dict[str, object]:
    """A failing warning of a check whose verdict is as expected: a SARIF ``warning`` at the check's line."""
    c = o.counterexample
    text = f"{r.check.name}: {_call(r.verdict)}: warning {o.id}: {o.description}"
    if c is not None:
        text += f". Counterexample: {', '.join(f'{k}={x}' for k, x in c.params.items()) or 'any values'}"
        if c.expected is not None or c.actual is not None:
            text += f": expected {c.expected}, CuTe gives {c.actual}"
    g = r.verdict.guard
    if g is not None:
        text += f". Holds when {g.condition}"
    return {"ruleId": o.id, "level": "warning", "kind": "fail", "message": {"text": text + "."},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": r.check.file},
                                                "region": {"startLine": r.check.line}}}],
            "partialFingerprints": {"checkName/v1": f"{r.check.name}/{o.id}"},
            "properties": {"check": r.check.name, "verdict": r.verdict.verdict, "expect": r.check.expect,
                           "matched": r.matched, "counterexample": c.to_json() if c else None}}


def results_sarif(results: Sequence[CheckResult]) -> str:
    """SARIF 2.1.0: one rule per obligation kind (``CMP-POST``, ``DIV-EXACT``, ``UP-2``, ``DIV0``, ``INJECTIVE``
    ...), one result per check whose verdict is not ``valid``/``proved`` or not the expected one, located at the
    check's line in its spec file.  A verdict that is not the expected one is an ``error``; an expected-invalid
    check (a known bug, kept visible) is a ``note``; an unknown one a ``warning``; each failing warning of a
    ``valid`` check is a ``warning`` of its obligation's rule.  Each rule's ``defaultConfiguration.level`` is its
    obligation's severity."""
    from verifier.run.batch import tool_version

    root = _source_root([r.check.file for r in results])
    rules: dict[str, dict[str, object]] = {}
    for r in results:
        for o in r.verdict.obligations:
            rules.setdefault(o.id, {"id": o.id, "name": o.id, "shortDescription": {"text": o.description},
                                    "defaultConfiguration": {"level": severity(o.id)},
                                    "properties": {"source": o.source, "cuteChecks": o.cute_checks,
                                                   "severity": severity(o.id)}})
    out = []
    for r in results:
        v = r.verdict
        if r.matched and v.verdict in (VALID, PROVED):
            out += [_warning_result(r, o) for o in v.warnings]
            continue
        rule = _rule_id(v)
        if rule not in rules:
            short, full = _RULE_TEXT.get(rule, (rule, rule))
            rules[rule] = {"id": rule, "name": rule, "shortDescription": {"text": short},
                           "fullDescription": {"text": full}}
        level = "warning" if v.verdict == UNKNOWN else ("note" if r.matched else "error")
        result: dict[str, object] = {
            "ruleId": rule, "level": level, "kind": "fail" if v.verdict in (INVALID, REFUTED) or not r.matched
            else "review", "message": {"text": _message(r)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(r.check.file, root),
                                                                     "uriBaseId": "SRCROOT"},
                                                "region": {"startLine": r.check.line}}}],
            "partialFingerprints": {"checkName/v1": r.check.name},
            "properties": {"check": r.check.name, "verdict": v.verdict, "expect": r.check.expect,
                           "matched": r.matched, "counterexample": v.counterexample.to_json()
                           if v.counterexample else None},
        }
        out.append(result)
    ordered = sorted(rules)
    for res in out:
        res["ruleIndex"] = ordered.index(str(res["ruleId"]))
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": TOOL_NAME, "version": tool_version(),
                                         "rules": [rules[k] for k in ordered]}},
                     "originalUriBaseIds": {"SRCROOT": {"uri": root.as_uri() + "/"}},
                     "results": out}]}
    return json.dumps(log, indent=2)


def _source_root(files: Sequence[str]) -> Path:
    """The repository the spec files are in (the nearest folder with ``.git`` above the first one), else the
    working directory: SARIF locations are relative to it (``uriBaseId`` SRCROOT), so they do not depend on where
    the tool ran."""
    start = Path(files[0]).resolve().parent if files else Path.cwd()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return Path.cwd().resolve()


def _uri(file: str, root: Path) -> str:
    from urllib.parse import quote

    path = Path(file).resolve()
    try:
        return quote(path.relative_to(root).as_posix())
    except ValueError:  # outside the repository: an absolute URI
        return path.as_uri()


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    """``text`` made legal in XML 1.0: characters XML cannot hold at all (control characters, even escaped) are
    written as ``\\xNN``; ElementTree escapes the rest (``<``, ``&``, quotes)."""
    return _XML_BAD.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def results_junit(results: Sequence[CheckResult], seconds: float) -> str:
    """JUnit XML: a ``testsuite`` per spec file, a ``testcase`` per check, a ``failure`` when the verdict is not
    the expected one (its text is the verdict in full); expected-invalid checks pass with the counterexample in
    ``system-out``, and a valid check with warnings passes with its warnings there."""
    from xml.etree import ElementTree as ET

    root = ET.Element("testsuites", name=TOOL_NAME, tests=str(len(results)),
                      failures=str(sum(not r.matched for r in results)), errors="0", time=f"{seconds:.3f}")
    files: dict[str, list[CheckResult]] = {}
    for r in results:
        files.setdefault(r.check.file, []).append(r)
    for file, rs in files.items():
        suite = ET.SubElement(root, "testsuite", name=_xml(file), tests=str(len(rs)),
                              failures=str(sum(not r.matched for r in rs)), errors="0", skipped="0",
                              time=f"{sum(r.seconds for r in rs):.3f}")
        for r in rs:
            case = ET.SubElement(suite, "testcase", name=_xml(r.check.name),
                                 classname=_xml(file.removesuffix(".toml").replace("/", ".")), file=_xml(file),
                                 line=str(r.check.line), time=f"{r.seconds:.3f}")
            if not r.matched:
                f = ET.SubElement(case, "failure", type=r.verdict.verdict,
                                  message=_xml(f"expected {r.check.expect}, got {r.verdict.verdict}"))
                f.text = _xml(to_text(r.verdict, verbose=True))
            elif r.verdict.verdict in (INVALID, REFUTED):
                ET.SubElement(case, "system-out").text = _xml(_message(r))
            elif r.verdict.warnings:  # passed, with its warnings as output (--strict / strict = true fail it)
                ET.SubElement(case, "system-out").text = _xml("\n".join(_warning_lines(r.verdict)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_results(results: Sequence[CheckResult], fmt: str, seconds: float) -> str:
    if fmt == "json":
        return results_json(results, seconds)
    if fmt == "sarif":
        return results_sarif(results)
    if fmt == "junit":
        return results_junit(results, seconds)
    return results_text(results, seconds)


# -- failure messages of the pytest helpers ---------------------------------------------------------------------


def failure_message(v: Verdict, tables: Sequence[tuple[str, str]] = ()) -> str:
    """A verdict that was not the one wanted: the verdict with its counterexample, then each named table (the
    layouts at the counterexample's values, around the failing coordinate)."""
    lines = [to_text(v, details=False)]
    for title, table in tables:
        lines.append(f"{title}:")
        lines += ["  " + x for x in table.rstrip("\n").splitlines()]
    return "\n".join(lines)
# -- theorem libraries (verifier/run/theorems.py, cute-verify prove) -------------------------------------------------


def _cex_text(c: Counterexample | None) -> str:
    if c is None:
        return ""
    text = ", ".join(f"{k}={v}" for k, v in c.params.items())
    if c.coordinate is not None:
        text += f" at {c.coordinate}"
    return text + f" ({c.obligation})"


def proofs_table(results: Sequence[TheoremResult]) -> str:
    """One row per theorem (``theorems.TheoremResult``): name, domain, expected, verdict, time, strategy."""
    rows = [["theorem", "domain", "expected", "verdict", "time", "strategy"]]
    for r in results:
        mark = "" if r.ok else "  <-- expected " + r.theorem.expect
        rows.append([r.theorem.name, r.theorem.domain, r.theorem.expect, r.verdict + mark, f"{r.seconds:.2f}s",
                     r.strategy])
    lines = [line[2:] for line in _table(rows)]
    bad = [r for r in results if not r.ok]
    for r in bad:
        lines.append(f"{r.theorem.name}: {r.verdict}, expected {r.theorem.expect}: {r.reason or ''}".rstrip(": "))
    total = sum(r.seconds for r in results)
    lines.append(f"{len(results)} theorems, {len(results) - len(bad)} as expected, {total:.1f} s")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def proofs_markdown(results: Sequence[TheoremResult]) -> str:
    """``docs/proofs.md``: every theorem with its statement, assumptions, domain, verdict and how it was decided."""
    from verifier.run.theorems import DOMAINS

    out = ["# Theorems of the layout algebra over symbolic sizes", "",
           "Generated by `cute-verify prove proofs/ --write-docs docs/proofs.md`; do not edit by hand. Each theorem "
           "quantifies over the named run-time integers; *domain* says over which values it is decided: "
           + "; ".join(f"`{k}`: {v}" for k, v in DOMAINS.items()) + " (1 is the least value unless stated). "
           "A refuted theorem carries a counterexample that the engine replayed concretely and that "
           "`tests/engine/test_proofs.py` replays against compiled CuTe.", ""]
    families: dict[str, list[TheoremResult]] = {}
    for r in results:
        families.setdefault(r.theorem.family, []).append(r)
    for family, rs in families.items():
        doc = " ".join(rs[0].theorem.family_doc.split())
        out += [f"## {family}", ""] + ([doc, ""] if doc else []) + [
                "| theorem | statement | assumptions | domain | expected | verdict | strategy | counterexample | "
                "note | time |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            t = r.theorem
            cells = [t.name, f"`{t.statement}`", t.assumptions or "-", t.domain, t.expect, r.verdict, r.strategy,
                     _cex_text(r.counterexample) or "-", t.note or "-", f"{r.seconds:.2f} s"]
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        out.append("")
    ok = sum(r.ok for r in results)
    out.append(f"{len(results)} theorems, {ok} with the expected verdict, {sum(r.seconds for r in results):.1f} s in "
               "all.")
    return "\n".join(out) + "\n"
