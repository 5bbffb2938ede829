"""The fast tier (``python -m pytest -m fast``): what to run while working, under a minute on 2 cores.

A test is in the fast tier unless it compiles CuTe (``cute``), needs a GPU (``gpu``), is a long variant (``long``),
or took more than ``FAST_SECONDS`` when the durations were last recorded (``tests/durations.json``, written by this
module from a real run, as pytest-split keeps its ``.test_durations``), or its module's set-up did (a module-scoped
fixture's set-up is paid by whichever of its tests runs first, so a slow one keeps the whole module out).  A test the
file does not know yet is fast until the next recording.  The full suite (the README's command) runs every test,
fast or not.

Record the durations again after adding slow tests (about 6 minutes on an idle 2-core machine):

    python -m tests.support.tiers

As a pytest plugin (``-p tests.support.tiers``) it records each test's duration (setup + call + teardown) and
writes the file at the end of the session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "durations.json"
# A test above this (seconds, idle 2-core machine) is left out of the fast tier; chosen so that the tier's tests sum
# to about half a minute, the rest of the minute being start-up and collection.
FAST_SECONDS = 0.25
# Durations below this are not written: every unknown test counts as fast anyway.
_KEEP = 0.05
_EXCLUDED = ("cute", "gpu", "long")

_seen: dict[str, float] = {}
_setup: dict[str, float] = {}


def _module(nodeid: str) -> str:
    return nodeid.split("::")[0]


def recorded() -> tuple[dict[str, float], dict[str, float]]:
    """The recorded durations: seconds by test node id, and the longest set-up by module; empty when the file is
    absent."""
    try:
        data = json.loads(DURATIONS.read_text())
    except FileNotFoundError:
        return {}, {}
    return ({str(k): float(v) for k, v in data["tests"].items()},
            {str(k): float(v) for k, v in data["module_setup"].items()})


def is_fast(item: pytest.Item, durations: tuple[dict[str, float], dict[str, float]]) -> bool:
    if any(item.get_closest_marker(m) is not None for m in _EXCLUDED):
        return False
    tests, setups = durations
    return tests.get(item.nodeid, 0.0) <= FAST_SECONDS and setups.get(_module(item.nodeid), 0.0) <= FAST_SECONDS


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _seen[report.nodeid] = _seen.get(report.nodeid, 0.0) + report.duration
    if report.when == "setup":
        m = _module(report.nodeid)
        _setup[m] = max(_setup.get(m, 0.0), report.duration)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    data = {"tests": {k: round(v, 3) for k, v in sorted(_seen.items()) if v >= _KEEP},
            "module_setup": {k: round(v, 3) for k, v in sorted(_setup.items()) if v >= _KEEP}}
    tmp = DURATIONS.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    os.replace(tmp, DURATIONS)


def main() -> int:
    """Runs the tests the fast tier chooses among (not ``cute``, ``gpu`` or ``long``) and records their durations."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "tests.support.tiers", "-p", "no:cacheprovider",
           "-m", " and ".join(f"not {m}" for m in _EXCLUDED)]
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
