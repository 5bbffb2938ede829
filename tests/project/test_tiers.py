"""The fast tier (``-m fast``, tests/support/tiers.py) covers every package of ``verifier`` and stays small."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support import tiers

ROOT = tiers.ROOT
PACKAGES = sorted(p.parent.name for p in (ROOT / "verifier").glob("*/__init__.py"))


def _fast_modules() -> set[Path]:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "fast", "-p",
                          "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {ROOT / line.split("::")[0] for line in out.splitlines() if "::" in line}


def _imported(module: Path) -> set[str]:
    """The ``verifier`` subpackages a test module imports (at any depth of the module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            full = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            full = [a.name for a in node.names]
        else:
            continue
        names |= {n.split(".")[1] for n in full if n.startswith("verifier.") and n.count(".") >= 1}
    return names


def test_every_package_has_fast_tests() -> None:
    modules = _fast_modules()
    assert len(modules) > 40, "the fast tier collected almost nothing: is tests/durations.json stale?"
    covered = set().union(*(_imported(m) for m in modules))
    missing = [p for p in PACKAGES if p not in covered]
    assert not missing, f"no test of the fast tier imports verifier.{missing}: record the durations again or add one"


def test_the_recorded_fast_tier_is_small() -> None:
    """The threshold and the recorded durations agree: what the tier runs sums to about half a minute on an idle
    2-core machine (the recording's), the rest of its minute being start-up and collection.  A recorded figure,
    not a timing of this run."""
    tests, setups = tiers.recorded()
    assert tests, "tests/durations.json is missing: python -m tests.support.tiers records it"
    quick = {k: v for k, v in tests.items() if setups.get(k.split("::")[0], 0.0) <= tiers.FAST_SECONDS}
    fast = sum(s for s in quick.values() if s <= tiers.FAST_SECONDS)
    slow = sum(tests.values()) - fast
    assert fast < 35 and slow > fast, (fast, slow)
