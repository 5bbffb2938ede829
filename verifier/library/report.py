"""The library report: every configuration, its key, the key's verdicts, guards and ``can_implement``
comparison, written atomically as JSON (a reader never sees a half-written report)."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

FORMAT = "cute-verify-library/1"


def build(meta: Mapping[str, Any], results: Sequence[Mapping[str, Any]], configs: Mapping[str, tuple[str, str]],
          pending: Sequence[str] = ()) -> dict[str, Any]:
    """The report's data: ``results`` are ``verify_key``'s answers, ``configs`` every configuration by name with
    its key and architecture; ``pending`` the keys not verified (``--limit``)."""
    by_key = {r["key"]: r for r in results}
    rows = []
    for name, (key, arch) in configs.items():
        r = by_key.get(key)
        rows.append({"name": name, "key": key, "arch": arch,
                     "status": r["status"] if r else "not verified (--limit)",
                     "verdict": r.get("verdict") if r else None})
    # A finding of some of the key's configurations names them (cp.async's stream-K ones: sm90_cpasync.stream_k)
    findings = [{**f, "key": r["key"], "kernels": f.get("configs", r["configs"]), "operand": _operand(r, f)}
                for r in results for f in r.get("findings", []) if f.get("confirmed")]
    return {
        "format": FORMAT, **meta,
        "counts": {"configurations": len(configs), "keys": len({key for key, _ in configs.values()}),
                   "keys_verified": len(results), "keys_pending": len(pending),
                   "by_status": dict(Counter(r["status"] for r in results)),
                   "by_verdict": dict(Counter(str(r.get("verdict")) for r in results)),
                   "findings": len(findings),
                   # why the keys that were not verified were not: a count per reason (the list is "keys")
                   "not_derived": dict(Counter(str(r.get("reason")) for r in results if r["status"] != "verified"))},
        "findings": findings,
        "keys": list(results),
        "configurations": rows,
    }


def _operand(result: Mapping[str, Any], finding: Mapping[str, Any]) -> str | None:
    """The layout a finding's counterexample is drawn on: an operand of its check (else of the key's other checks:
    a check decided under other assumptions keeps its operands there) that is a layout of the witness's symbols
    alone, the one with the most of them (a TMA box's gmem tensor ``(M,K,L):(ldA,_1,bsA)``); None without one."""
    checks = result.get("checks") or {}
    names = set(finding.get("witness") or {})
    own = checks.get(finding.get("check"), {})
    for candidates in ([own], [c for c in checks.values() if c is not own]):
        best: tuple[int, str] | None = None
        for check in candidates:
            for text in check.get("args") or ():
                symbols = _layout_symbols(str(text))
                if symbols and symbols <= names and (best is None or len(symbols) > best[0]):
                    best = (len(symbols), str(text))
        if best is not None:
            return best[1]
    return None


@functools.lru_cache(maxsize=4096)
def _layout_symbols(text: str) -> frozenset[str]:
    """The symbols of a layout's text (none where it is not a layout): the keys of a sweep share their operands,
    so each text is parsed once however many findings name it (0.5 ms a parse, 16,672 findings in SM90 ``all``)."""
    from verifier.core.errors import LayoutError
    from verifier.notation.cpp import parse_layout

    try:
        return frozenset(parse_layout(text).symbols())
    except LayoutError:
        return frozenset()


# A page draws at most this many counterexamples (one per distinct finding, each about 30 KB of SVG).
MAX_PICTURES = 500


def _picture(finding: Mapping[str, Any]) -> str:
    """The counterexample of a finding drawn on its operand, as inline SVG (``verifier/present/pictures.py``): at
    the values compiled CUTLASS replayed (the witness's strides, and its extents reduced where the replay reduced
    them), with the cells whose index another cell shares crossed out; or a line saying why there is none."""
    from html import escape

    from verifier.core.errors import LayoutError
    from verifier.engine.verdicts import Counterexample
    from verifier.notation.cpp import parse_layout
    from verifier.present.pictures import counterexample_picture, svg

    text = finding.get("operand")
    if not text:
        return "<p><i>no layout of the witness's symbols to draw</i></p>"
    values = {k: int(v) for k, v in (finding.get("witness") or {}).items()}
    query = (finding.get("replay") or {}).get("query")
    if query:  # the replay's (M, N, K, L) come first: what compiled CUTLASS ran
        values.update(zip("MNKL", (int(v) for v in query[:4])))
    try:
        layout = parse_layout(str(text))
        shown = {k: v for k, v in values.items() if k in layout.symbols()}
        cex = Counterexample(shown, str(finding.get("obligation") or finding.get("kind")),
                             note=f"{text} at the replayed values")
        picture = svg(counterexample_picture(layout, cex))
    except LayoutError as exc:
        return f"<p><i>no picture: {escape(str(exc))}</i></p>"
    return f"<figure class='layout'>{picture}</figure>"


def _atomic(path: str | os.PathLike[str], write: Callable[[IO[str]], object]) -> None:
    """Write a file atomically: a temporary file in the same folder, then a rename (a reader never sees half)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w") as f:
            write(f)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(path: str | os.PathLike[str], report: Mapping[str, Any]) -> None:
    """Write ``report`` to ``path`` atomically, streamed: each element of a top-level list on a line of its own,
    encoded by ``json.dumps`` (C's encoder; ``json.dump`` and any ``indent`` take Python's, ten times slower on a
    report of 150,000 configurations)."""

    def stream(f: IO[str]) -> None:
        f.write("{")
        for i, (name, value) in enumerate(report.items()):
            f.write(("," if i else "") + "\n" + json.dumps(name) + ": ")
            if isinstance(value, list):
                f.write("[")
                for j, item in enumerate(value):
                    f.write(("," if j else "") + "\n " + json.dumps(item))
                f.write("\n]" if value else "]")
            else:
                f.write(json.dumps(value))
        f.write("\n}\n")

    _atomic(path, stream)


def html(report: Mapping[str, Any]) -> str:
    """The report as one HTML page: the counts per architecture, GEMM kind, kernel schedule and status, then every
    finding with its witness, its compiled replay and the kernels it affects."""
    from html import escape

    def table(title: str, counts: Mapping[str, int]) -> str:
        rows = "".join(f"<tr><td>{escape(str(k))}</td><td>{v}</td></tr>" for k, v in sorted(counts.items()))
        return f"<h3>{escape(title)}</h3><table><tr><th></th><th>configurations</th></tr>{rows}</table>"

    configs = report["configurations"]
    fields = {k["key"]: (k.get("derived") or {}) for k in report["keys"]}
    parts = [f"<h1>CUTLASS {escape(str(report.get('cutlass')))}: {report['counts']['configurations']} GEMM "
             f"configurations, {report['counts']['keys']} keys</h1>",
             f"<p>tool {escape(str(report.get('tool')))}; generator --kernels {escape(str(report.get('kernels')))}"
             f"; {report['counts']['keys_verified']} keys verified, {report['counts']['findings']} findings "
             "(each replayed on compiled CUTLASS)</p>",
             table("by architecture", Counter(c["arch"] for c in configs)),
             table("by status", Counter(c["status"] for c in configs)),
             table("by verdict", Counter(str(c["verdict"]) for c in configs))]
    policies = Counter(str(fields.get(c["key"], {}).get("MAINLOOP", "not compiled")).split("<")[0] for c in configs)
    parts.append(table("by mainloop (as compiled CUTLASS names it)", policies))
    # A finding is shown once for every key that has it (the same check, witness and operand), with all their
    # kernels: the keys of a sweep share their layout problems, so their findings repeat.
    groups: dict[str, dict[str, Any]] = {}
    for f in report["findings"]:
        ident = json.dumps([f["kind"], f["check"], f.get("obligation"), f.get("reason"), f.get("witness"),
                            f.get("operand")], sort_keys=True)
        g = groups.setdefault(ident, {"finding": f, "keys": 0, "kernels": []})
        g["keys"] += 1
        g["kernels"].extend(f["kernels"])
    parts.append(f"<h2>Findings</h2><p>{report['counts']['findings']} findings, {len(groups)} distinct (the "
                 "same check, witness and operand); each drawn at the values compiled CUTLASS replayed</p>")
    for n, g in enumerate(groups.values()):
        f, kernels = g["finding"], g["kernels"]
        replay = f.get("replay", {})
        picture = _picture(f) if n < MAX_PICTURES else "<p><i>not drawn: a page draws the first " \
                                                        f"{MAX_PICTURES}</i></p>"
        parts.append(
            f"<h3>{escape(f['kind'])}: {escape(f['check'])}</h3><p>{escape(str(f.get('reason')))}</p>"
            f"<p>witness: <code>{escape(str(f['witness']))}</code>; compiled replay: can_implement = "
            f"{replay.get('can_implement')}, make_tma_copy returns = {replay.get('make_tma_copy_returns')}"
            f"<br><code>{escape(str(replay.get('cute', ''))[-300:])}</code></p>{picture}"
            f"<p>{g['keys']} keys, {len(kernels)} kernels: " + ", ".join(f"<code>{escape(k)}</code>"
                                                                          for k in kernels[:20])
            + (" ..." if len(kernels) > 20 else "") + "</p>")
    style = "<style>body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}</style>"
    return f"<!doctype html><html><head><meta charset='utf-8'><title>cute-verify library</title>{style}</head>" \
           f"<body>{''.join(parts)}</body></html>\n"


def write_html(path: str | os.PathLike[str], report: Mapping[str, Any]) -> None:
    """Write the HTML page atomically, as ``write`` does the JSON."""
    _atomic(path, lambda f: f.write(html(report)))
