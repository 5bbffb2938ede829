"""Every verdict of the engine on the corpora of the tests, written as JSON, and the differences between two such
files: a change meant to make the engine faster must leave every verdict, counterexample, guard and necessity as it
was (issue 28), which this shows case by case.

    python bench/compare_verdicts.py record OUT.json [--parts parametric,cutlass,registry,specs]
    python bench/compare_verdicts.py diff BEFORE.json AFTER.json

The parts: the parametric corpus (``verify`` with its defaults, guard search included), the CUTLASS unit-test corpus
in its three variants (as ``tests/engine/test_engine_conformance.py`` decides it), the registry's example of every
operation (as ``tests/frontends/test_cli_operations.py`` runs it) and every check of the bundled example spec files
and of the README's spec files (decided in this process, as ``cute-verify run -j 1 --no-cache`` does).  Each case
also records its wall time (``seconds``), which ``diff`` leaves out of the comparison.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PARTS = ("parametric", "cutlass", "registry", "specs", "proofs")
# Fields of a verdict's JSON that say what was decided; the rest (descriptions, sources) cannot change with speed.
COMPARED = ("verdict", "result", "reason", "counterexample", "condition", "condition_is_necessary",
            "necessity_witness", "condition_covers", "guard_note", "warnings")


def _verdict_json(v: object) -> dict[str, object]:
    from verifier.present.report import to_text

    out: dict[str, object] = v.to_json()  # type: ignore[attr-defined]
    # What a user reads, default and verbose: a restructuring must leave every printed line as it was (issue 27).
    out["printed"] = to_text(v)  # type: ignore[arg-type]
    out["printed_verbose"] = to_text(v, verbose=True)  # type: ignore[arg-type]
    out["obligations"] = [{k: o[k] for k in ("id", "status", "counterexample", "reason")}
                          for o in out["obligations"]]  # type: ignore[attr-defined]
    return out


def _parametric() -> Iterator[tuple[str, Callable[[], dict[str, object]]]]:
    from verifier.engine.verify import verify
    from verifier.oracle.corpora import PARAMETRIC_CORPUS, problem

    for e in json.loads(PARAMETRIC_CORPUS.read_text()):
        def one(e: dict[str, object] = e) -> dict[str, object]:
            op, args, sy = problem(e)
            return _verdict_json(verify(op, args, sy))
        yield f"parametric/{e['id']}", one


def _cutlass() -> Iterator[tuple[str, Callable[[], dict[str, object]]]]:
    from verifier.core.symbols import Symbols
    from verifier.engine.verify import verify
    from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS, operands

    for k, c in enumerate(json.loads(CUTLASS_UNIT_CORPUS.read_text())):
        for variant in ("original", "dynamic", "static"):
            def one(c: dict[str, object] = c, variant: str = variant) -> dict[str, object]:
                v = verify(str(c["op"]), operands(c["args"], variant), Symbols(), derive=False)  # type: ignore[arg-type]
                return _verdict_json(v)
            yield f"cutlass/{k}:{c['file']}:{c['line']}:{c['op']}[{variant}]", one


def _registry() -> Iterator[tuple[str, Callable[[], dict[str, object]]]]:
    import contextlib
    import io

    from verifier.cli.app import main, operation_examples

    def run(argv: list[str]) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
        return rc, out.getvalue(), err.getvalue()

    for op, argv in sorted(operation_examples().items()):
        def one(argv: list[str] = argv) -> dict[str, object]:
            rc, out, _ = run([*argv, "--json"])
            _, printed, printed_err = run(argv)
            try:
                v = json.loads(out)
            except json.JSONDecodeError:
                return {"rc": rc, "output": out[-400:], "printed": printed, "printed_stderr": printed_err}
            return {"rc": rc, "printed": printed, "printed_stderr": printed_err, **{k: v.get(k) for k in COMPARED},
                    "obligations": [{k: o.get(k) for k in ("id", "status", "counterexample", "reason")}
                                    for o in v.get("obligations", [])]}
        yield f"registry/{op}", one


def readme_specs(folder: Path) -> list[Path]:
    """The spec files of the README (``<!-- file: NAME.cute.toml -->`` before a toml block), written to ``folder``."""
    text = (ROOT / "README.md").read_text()
    out = []
    for m in re.finditer(r"<!-- file: ([\w.-]+\.cute\.toml) -->\s*```toml\n(.*?)```", text, re.S):
        p = folder / m.group(1)
        p.write_text(m.group(2))
        out.append(p)
    return out


def spec_files(folder: Path) -> list[Path]:
    """The bundled example spec files and the README's (written to ``folder``)."""
    return sorted((ROOT / "examples").glob("*.cute.toml")) + readme_specs(folder)


def _specs(folder: Path) -> Iterator[tuple[str, Callable[[], dict[str, object]]]]:
    from verifier.run.batch import _timed
    from verifier.run.spec import load

    for path in spec_files(folder):
        loaded = load([path])
        checks = getattr(loaded, "checks", loaded)
        for c in checks:
            def one(c: object = c) -> dict[str, object]:
                v, _ = _timed(c)  # type: ignore[arg-type]
                return _verdict_json(v)
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path("README.md") / path.name
            yield f"spec/{where}:{c.name}", one


def _proofs() -> Iterator[tuple[str, Callable[[], dict[str, object]]]]:
    from verifier.run.theorems import load

    for t in load([ROOT / "proofs"]):
        def one(t: object = t) -> dict[str, object]:
            r = t.run()  # type: ignore[attr-defined]
            out = {k: v for k, v in r.to_json().items() if k != "seconds"}
            return {**out, "detail": _verdict_json(r.detail)}
        yield f"proof/{t.family}/{t.name}", one  # type: ignore[attr-defined]


def record(parts: list[str], progress: bool = True) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sources: dict[str, Callable[[], Iterator[tuple[str, Callable[[], dict[str, object]]]]]] = {
            "parametric": _parametric, "cutlass": _cutlass, "registry": _registry,
            "specs": lambda: _specs(Path(tmp)), "proofs": _proofs}
        for part in parts:
            for key, fn in sources[part]():
                t0 = time.perf_counter()
                entry = fn()
                entry["seconds"] = time.perf_counter() - t0
                out[key] = entry
                if progress:
                    print(f"{entry['seconds']:7.2f} s  {entry.get('verdict', entry.get('rc'))}  {key}",
                          file=sys.stderr, flush=True)
    return out


def diff(before: dict[str, dict[str, object]], after: dict[str, dict[str, object]]) -> list[str]:
    """One line per case whose verdict differs (every field but the time), or that only one side has."""
    lines = []
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            lines.append(f"{key}: only {'after' if key in after else 'before'}")
            continue
        a, b = ({k: v for k, v in x.items() if k != "seconds"} for x in (before[key], after[key]))
        if a != b:
            fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            lines.append(f"{key}: {', '.join(fields)}\n  before: "
                         + json.dumps({k: a.get(k) for k in fields})[:1500] + "\n  after:  "
                         + json.dumps({k: b.get(k) for k in fields})[:1500])
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("--parts", default=",".join(PARTS))
    d = sub.add_parser("diff")
    d.add_argument("before")
    d.add_argument("after")
    a = p.parse_args(argv)
    if a.cmd == "record":
        parts = [x for x in a.parts.split(",") if x]
        unknown = set(parts) - set(PARTS)
        if unknown:
            p.error(f"unknown parts {sorted(unknown)}; choose from {PARTS}")
        Path(a.out).write_text(json.dumps(record(parts), indent=1, sort_keys=True))
        return 0
    lines = diff(json.loads(Path(a.before).read_text()), json.loads(Path(a.after).read_text()))
    print("\n".join(lines) if lines else "no verdict differs")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
