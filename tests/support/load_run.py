"""Everything the tool answers on a fixed set of inputs, for ``tests/engine/test_load.py``: one line of JSON per item.

    python -m tests.support.load_run [--set subset|all] [--shard K/N] [--passes forward,reverse]

The items are the parametric corpus (``oracle/data/parametric_cases.json``, decided by ``verify`` with its guard),
the registry's examples (each operation's command line, run in this process as ``cute-verify OP ... --json``) and,
in ``all``, the theorems of ``proofs/``.  ``--shard K/N`` keeps the items ``k`` with ``k % N == K``; ``--passes``
decides them once per pass in this one process, each pass in its order (``reverse``: last item first), so that a
later pass runs after everything an earlier one left behind (memos, Z3's state, counters).

A record is everything an answer says: the verdict, each obligation's status, reason and counterexample, the
counterexample, the guard, its necessity and necessity witness.  Each item is decided with the default budget and
the default wall-clock safety net, as a user's run is: the test fails if the net decides anything.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.cli.app import main as cli_main  # noqa: E402
from verifier.cli.app import operation_examples  # noqa: E402
from verifier.engine.verify import verify  # noqa: E402
from verifier.oracle.corpora import PARAMETRIC_CORPUS, load, problem  # noqa: E402
from verifier.run.theorems import load as load_theorems  # noqa: E402

# The default suite's items (tests/engine/test_load.py): corpus cases and operations whose answers exercise each
# route that once varied (a guard search whose candidates spend their whole share, a necessity decided by
# sampling, a counterexample lowered by bisection, the bounded search, the slice with '_'; local_partition's guard
# and composition's counterexample were among those that changed with the process's history), decided in about
# 15 s on an idle core; ``all`` is every item (about 3 minutes a pass).
SUBSET = (
    "case:gemm-zdiv-MN-128x64-any", "case:prod-logical-size0-complement", "case:prod-logical-bymode-dyn-tiler",
    "case:cmp-static-A-dyn-B", "case:cmp-strided-B", "case:cpl-rank1-static-stride",
    "case:cpl-rank2-static-strides-assume", "case:up4-colmajor-MN", "case:recast-8-32-rowmajor", "case:linv-overlap",
    "case:cmp-empty-M", "example:local_partition", "example:composition", "example:upcast", "example:make_tma_box",
    "example:slice", "example:zipped_divide", "example:complement",
)


def items(which: str) -> list[tuple[str, Callable[[], dict[str, object]]]]:
    out: list[tuple[str, Callable[[], dict[str, object]]]] = []
    for entry in load(PARAMETRIC_CORPUS):
        out.append((f"case:{entry['id']}", lambda e=entry: _case(e)))
    for op, argv in sorted(operation_examples().items()):
        out.append((f"example:{op}", lambda a=argv: _command([*a, "--json"])))
    if which == "all":
        for t in load_theorems([ROOT / "proofs"]):
            out.append((f"proof:{t.name}", lambda t=t: _theorem(t)))
        return out
    chosen = [(name, fn) for name, fn in out if name in SUBSET]
    assert len(chosen) == len(SUBSET), sorted(set(SUBSET) - {n for n, _ in chosen})
    return chosen


def _case(entry: dict) -> dict[str, object]:  # type: ignore[type-arg]
    op, args, sy = problem(entry)
    return verify(op, args, sy).to_json()


def _command(argv: list[str]) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli_main(argv)
    record: dict[str, object] = {"exit": rc, "stderr": err.getvalue()}
    text = out.getvalue()
    record["answer"] = json.loads(text) if text.strip().startswith("{") else text
    return record


def _theorem(t: object) -> dict[str, object]:
    r = t.run()  # type: ignore[attr-defined]
    return {"verdict": r.verdict, "strategy": r.strategy, "reason": r.reason, "detail": r.detail.to_json()}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.support.load_run")
    p.add_argument("--set", choices=("subset", "all"), default="subset")
    p.add_argument("--shard", default="0/1", help="K/N: the items k with k %% N == K")
    p.add_argument("--passes", default="forward", help="forward and/or reverse, comma-separated, in this process")
    a = p.parse_args(argv)
    shard, count = (int(x) for x in a.shard.split("/"))
    mine = [it for k, it in enumerate(items(a.set)) if k % count == shard]
    for order in a.passes.split(","):
        for name, decide in (mine if order == "forward" else mine[::-1]):
            print(json.dumps({"pass": order, "item": name, "record": decide()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
