"""Verdicts of proofs/ and of the parametric corpus, for ``test_load.py``: one line of JSON per item.

    python -m tests.load_run SHARD COUNT    # the items k with k % COUNT == SHARD, in order

Each item is decided with the default budget (Z3 resource units) and a safety net far above what any item needs
even on a loaded machine, so the net never decides a verdict here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.engine.verify import verify  # noqa: E402
from verifier.oracle.corpora import PARAMETRIC_CORPUS, problem  # noqa: E402
from verifier.run.theorems import load  # noqa: E402

NET = 600.0  # seconds; the test fails if the net fires


def items() -> list[tuple[str, object]]:
    corpus = json.loads(PARAMETRIC_CORPUS.read_text())
    return [(f"proof:{t.name}", t) for t in load([ROOT / "proofs"])] + [(f"case:{e['id']}", e) for e in corpus]


def decide(name: str, what: object) -> dict[str, object]:
    if name.startswith("proof:"):
        v = what.run(timeout=NET).detail  # type: ignore[attr-defined]
    else:
        op, args, sy = problem(what)  # type: ignore[arg-type]
        v = verify(op, args, sy, timeout=NET, derive=False)
    cex = v.counterexample
    return {"item": name, "verdict": v.verdict, "reason": v.reason,
            "counterexample": None if cex is None else [sorted(cex.params.items()), cex.obligation, cex.coordinate]}


def main(argv: list[str]) -> int:
    shard, count = int(argv[0]), int(argv[1])
    for k, (name, what) in enumerate(items()):
        if k % count == shard:
            print(json.dumps(decide(name, what)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
