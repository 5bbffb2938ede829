"""Workloads for the library sweep's engine (``verifier/library/distribute.py``) in ``tests/library`` and
``bench/bench_library.py``: pure functions of a plain-data payload, importable by every worker process.

* ``verify_case(entry)``: the engine's ``verify`` (with its guard) on a parametric corpus case
  (``oracle/data/parametric_cases.json``), its verdict as JSON: a real workload whose answers are a function of the
  case alone (tests/engine/test_load.py checks that across processes and orders).
* ``corpus_items(ids)``: those cases keyed by id.
* ``logged_verify_case(payload)``: the same, also writing down each call.
* ``library_items()``: the library's own keys (``$LIBRARY_ARCH``, default 90a; ``$LIBRARY_KERNELS``, default all), as
  ``cute-verify library`` builds them (verifier/cli/library.py), for ``verify_key``.
* ``noop(payload)``: nothing, to measure the engine's own cost per task.
* ``flaky(payload)``: fails, or kills its own process, on the keys its payload marks, and counts its calls in a
  file, so that a test sees how often a failing key was tried.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.oracle.corpora import PARAMETRIC_CORPUS, load  # noqa: E402

# Cases that each take 0.1 to 0.4 s on an idle core (gemm-style tilings with and without their guards).
CASES = (
    "gemm-zdiv-MN-128x64-any", "gemm-zdiv-MN-128x64-M8", "gemm-zdiv-MN-ld", "gemm-zdiv-MN-strided-tile",
    "gemm-ldiv-MK-16x8", "gemm-tdiv-NK-16x8", "gemm-zdiv-MK-shape-16x8", "gemm-zdiv-MNL-16x8",
    "gemm-ldiv-MNL-row-4x4x2", "gemm-tdiv-MKL-8x4", "gemm-zdiv-MN-32x16", "gemm-ldiv-MK-row-16x8",
)


def corpus_items(ids: tuple[str, ...] | None = CASES) -> dict[str, dict[str, Any]]:
    entries = {e["id"]: e for e in load(PARAMETRIC_CORPUS)}
    return {i: entries[i] for i in ids} if ids is not None else entries


def verify_case(entry: dict[str, Any]) -> dict[str, Any]:
    from verifier.engine.verify import verify
    from verifier.oracle.corpora import problem

    op, args, sy = problem(entry)
    return verify(op, args, sy).to_json()


def logged_verify_case(payload: dict[str, Any]) -> dict[str, Any]:
    """``verify_case(payload["entry"])``, first appending the case's id to the file ``payload["log"]``."""
    with open(payload["log"], "a") as f:
        f.write(payload["entry"]["id"] + "\n")
    return verify_case(payload["entry"])


def noop(payload: Any) -> dict[str, Any]:
    return {"payload": payload}


def flaky(payload: dict[str, Any]) -> dict[str, Any]:
    """``{"key": K, "log": PATH, "raise": bool, "die": bool}``: appends K to PATH, then raises or SIGKILLs its own
    process when told to, else answers ``{"key": K}``."""
    with open(payload["log"], "a") as f:
        f.write(payload["key"] + "\n")
    if payload.get("raise"):
        raise ValueError(f"{payload['key']} always fails")
    if payload.get("die"):
        os.kill(os.getpid(), signal.SIGKILL)
    return {"key": payload["key"]}


def all_corpus_items() -> dict[str, dict[str, Any]]:
    """Every parametric corpus case, keyed by id (the benchmark's default workload)."""
    return corpus_items(None)


def noop_items() -> dict[str, int]:
    """Eight keys for ``noop`` (the benchmark's smoke test)."""
    return {f"k{i}": i for i in range(8)}


def library_items() -> dict[str, dict[str, Any]]:
    """The keys of CUTLASS's generated configurations with their payloads, as ``cute-verify library`` builds them
    (verifier/cli/library.py, ``cmd_library``), for ``verifier.library.verify.verify_key``."""
    from verifier.library import configs as cfg
    from verifier.library.keys import group, payload
    from verifier.run.batch import tool_version

    tool, version = tool_version(), cfg.cutlass_version(None)
    e = cfg.enumerate_gemms(os.environ.get("LIBRARY_ARCH", "90a"), os.environ.get("LIBRARY_KERNELS", "all"))
    return {g.key: payload(g, e, tool, version) for g in group(e.configs, tool, version)}
