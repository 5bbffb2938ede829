"""The library report: every configuration, its key, the key's verdicts, guards and ``can_implement``
comparison, written atomically as JSON (a reader never sees a half-written report)."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

FORMAT = "cute-verify-library/1"


def build(meta: Mapping[str, Any], results: Sequence[Mapping[str, Any]], configs: Mapping[str, Mapping[str, Any]],
          pending: Sequence[str] = ()) -> dict[str, Any]:
    """The report's data: ``results`` are ``verify_key``'s answers, ``configs`` every configuration by name with
    its key (``key``) and fields; ``pending`` the keys not verified (``--limit``)."""
    by_key = {r["key"]: r for r in results}
    rows = []
    for name, c in configs.items():
        r = by_key.get(c["key"])
        rows.append({"name": name, "key": c["key"], "arch": c["fields"]["arch"],
                     "status": r["status"] if r else "not verified (--limit)",
                     "verdict": r.get("verdict") if r else None})
    findings = [{**f, "key": r["key"], "kernels": r["configs"]} for r in results for f in r.get("findings", [])
                if f.get("confirmed")]
    return {
        "format": FORMAT, **meta,
        "counts": {"configurations": len(configs), "keys": len({c["key"] for c in configs.values()}),
                   "keys_verified": len(results), "keys_pending": len(pending),
                   "by_status": dict(Counter(r["status"] for r in results)),
                   "by_verdict": dict(Counter(str(r.get("verdict")) for r in results)),
                   "findings": len(findings)},
        "findings": findings,
        "keys": list(results),
        "configurations": rows,
    }


def write(path: str | os.PathLike[str], report: Mapping[str, Any]) -> None:
    """Write ``report`` to ``path`` atomically: a temporary file in the same folder, then a rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(report, f, indent=1, sort_keys=False)
            f.write("\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
