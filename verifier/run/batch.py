"""Running the checks of spec files: serially or in worker processes, one shard of a suite, with a result cache.

* ``run(checks, jobs)`` decides each check with ``engine.problem.decide`` (an operation, a property or a C++ function)
  and compares the verdict with the expected one.  Worker processes get the check as plain data and rebuild its
  problem, so ``jobs > 1`` decides exactly the problems a serial run decides (only a check that runs into its time
  budget can come out differently, as ``unknown``).
* ``shard(checks, i, n)``: check ``k`` (0-based, in load order) belongs to shard ``k % n + 1``; the shards of a
  suite are disjoint and together the whole suite, whatever machine computes them.
* ``ResultCache``: one JSON file per check under ``$CUTE_VERIFY_CACHE/results`` (default
  ``~/.cache/cute-layout-verifier/results``), keyed by a SHA-256 of the check's canonical problem (operation,
  operands as CuTe prints them, the assumptions of the symbols it uses, relations, parameters, options, time
  budget) and of the tool: ``verifier.__version__`` and a hash of every source file of the ``verifier`` package,
  so that any change to the tool invalidates every entry.  ``unknown`` verdicts are never stored: they may be a
  time-out that a later run, a faster machine or a larger budget decides.  Files are written atomically.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.core.errors import LayoutError
from verifier.engine.problem import DECIDERS, decide
from verifier.engine.verdicts import UNKNOWN, Verdict
from verifier.notation.cpp import show
from verifier.run import files
from verifier.run.spec import Check
from verifier.run.status import StatusLine
from verifier.solver.budget import net_fired


@dataclass(frozen=True)
class CheckResult:
    """A check, its verdict, and whether that is the verdict the spec expects."""

    check: Check
    verdict: Verdict
    cached: bool
    seconds: float

    @property
    def matched(self) -> bool:
        return self.verdict.verdict == self.check.expect


def _worker_init(deciders: dict[str, Callable[[Any], Verdict]] | None = None) -> None:
    """A worker leaves Ctrl-C to the parent, which stops it (a terminal sends SIGINT to the whole group), and
    decides the kinds of problems the parent does (``engine.problem.DECIDERS``: the C++ front end registers its
    own on import)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    DECIDERS.update(deciders or {})


def _timed(check: Check) -> tuple[Verdict, float]:
    start = time.monotonic()
    try:
        v = decide(check)  # a check is a problem of its own kind (run/spec.py registers it)
    except (LayoutError, ArithmeticError, RecursionError) as exc:
        # Input errors were caught when the spec was loaded; what is left is a limit of the model (a value too
        # large to enumerate, a nesting too deep): report it as undecided rather than stop the suite.
        v = Verdict(check.op, check.args, UNKNOWN, reason=f"not decided: {type(exc).__name__}: {exc}")
    return v, time.monotonic() - start


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` with ``1 <= I <= N``."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise LayoutError(f"--shard {text!r}: expected I/N, e.g. --shard 1/4") from None
    if not 1 <= i <= n:
        raise LayoutError(f"--shard {text!r}: need 1 <= I <= N")
    return i, n


def shard(checks: Sequence[Check], i: int, n: int) -> list[Check]:
    return [c for k, c in enumerate(checks) if k % n == i - 1]


def default_jobs() -> int:
    """The cores this process may use: the default of ``--jobs`` (``[tool.cute-verify] jobs`` and ``-j 1`` win)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run(checks: Sequence[Check], jobs: int = 1, cache: ResultCache | None = None, progress: bool = False,
        on_result: Callable[[CheckResult], None] | None = None) -> list[CheckResult]:
    """Decide every check (in ``jobs`` processes), taking what the cache has and storing what it lacks.

    ``on_result`` is called with each result in load order, as soon as it and every check before it are decided
    (so a caller streams its report and the order never depends on which worker finishes first).  With
    ``progress``, a progress line on standard error while checks are decided (only when it is a terminal): checks
    done / total, the elapsed time and the check in progress."""
    # a cpp check is not cached here: its compiled program is (oracle/cpp.py), and its source may change under it
    keys = [cache_key(c) if c.cpp is None else "" for c in checks] if cache is not None else []
    results: list[CheckResult | None] = [None] * len(checks)
    shown = 0

    def settle(k: int, r: CheckResult) -> None:
        nonlocal shown
        results[k] = r
        while shown < len(results) and (done := results[shown]) is not None:
            if on_result is not None:
                on_result(done)
            shown += 1

    hits = {k: hit for k in range(len(checks)) if cache is not None and keys[k]
            and (hit := cache.get(keys[k])) is not None}
    todo = [k for k in range(len(checks)) if k not in hits]
    done = len(hits)
    current = ""
    start = time.monotonic()
    bar = StatusLine(lambda: f"[{done}/{len(checks)}] {time.monotonic() - start:.1f} s deciding {current}",
                     enabled=progress and bool(todo))
    for k, hit in hits.items():
        settle(k, CheckResult(checks[k], hit, True, 0.0))

    def working_on(k: int) -> None:
        nonlocal current
        current = f"{checks[k].file}:{checks[k].line} {checks[k].name}"
        bar.draw()

    def store(k: int, v: Verdict, seconds: float) -> None:
        nonlocal done
        if cache is not None and keys[k] and not net_fired(v):  # a verdict of the safety net depended on the load
            cache.put(keys[k], v)
        with bar.hidden():
            settle(k, CheckResult(checks[k], v, False, seconds))
        done += 1
        pending = [j for j in todo if results[j] is None]
        if pending:
            working_on(pending[0])

    with bar:
        if todo:
            working_on(todo[0])
        if jobs > 1 and len(todo) > 1:
            # spawn, not fork: a forked child would inherit Z3's state from the loading (assumption checks) above.
            ctx = multiprocessing.get_context("spawn")
            pool = ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx, initializer=_worker_init,
                                       initargs=(dict(DECIDERS),))
            try:
                futures = {pool.submit(_timed, checks[k]): k for k in todo}
                for future in as_completed(futures):
                    store(futures[future], *future.result())
            except BaseException:
                # Ctrl-C (or an error): the checks not yet decided are dropped and the workers stopped now, not
                # after every queued check (shutdown's default); the caller reports the interruption.
                for process in list(getattr(pool, "_processes", {}).values()):
                    process.terminate()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown()
        else:
            for k in todo:
                store(k, *_timed(checks[k]))
    return [r for r in results if r is not None]


# -- the cache ------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def tool_version() -> str:
    """``__version__`` plus a hash of the package's sources: a changed tool never reuses old results."""
    from verifier import __version__

    h = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:16]}"


def cache_key(check: Check) -> str:
    args, symbols = check.problem()
    canonical = {
        "kind": "property" if check.is_property else "op", "op": check.op, "args": [show(a) for a in args],
        "symbols": [[s.name, s.lo, s.hi, s.multiple_of, s.bits] for s in symbols],
        "relations": [str(r) for r in symbols.relations], "params": sorted(check.params),
        "options": sorted((k, repr(v)) for k, v in check.options), "rlimit": check.rlimit,
        "strict": check.strict, "ignore": list(check.ignore), "semantics": check.semantics,
        "tool": tool_version(),
    }
    return hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()


def cache_root() -> Path:
    """``$CUTE_VERIFY_CACHE``, else ``$XDG_CACHE_HOME/cute-layout-verifier`` (as ``cute_cpp.cache_dir``)."""
    return Path(os.environ.get("CUTE_VERIFY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cute-layout-verifier"))


class ResultCache:
    """Verdicts by cache key, one JSON file each; unreadable entries count as misses."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or cache_root()) / "results"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Verdict | None:
        try:
            obj = json.loads(self._path(key).read_text())
            return Verdict.from_json(obj["verdict"]) if obj.get("key") == key else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.verdict == UNKNOWN:
            return
        try:
            write_atomic(self._path(key), json.dumps({"key": key, "tool": tool_version(),
                                                      "verdict": verdict.to_json()}))
        except OSError:
            pass  # a read-only or full cache only costs time


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (``files.write_atomic``), creating its directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_atomic(path, text)
