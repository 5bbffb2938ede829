"""Running a pure function over many keyed payloads once each, on Dask distributed or on local processes, with a
persistent result store: the engine of ``cute-verify library`` (docs/library.md).

``sweep(items, fn, store)`` computes ``fn(payload)`` for every key of ``items`` that ``store`` does not hold yet,
and appends each result to the store as it arrives, so that an interrupted sweep (Ctrl-C, a killed driver, a lost
machine) resumes from what it had computed and a second run with nothing changed computes nothing.

* ``fn`` is a module-level function (it is pickled by reference: its module must be importable on the workers)
  from a plain-data payload to a JSON-able dict, a function of the payload alone, so that any worker, in any order,
  gives the same answer and a result may be reused by every configuration sharing the key.
* ``engine="dask"`` runs on Dask distributed: a ``LocalCluster`` of ``workers`` processes (one thread each: the
  solver holds the GIL) unless ``address`` names a running scheduler.  A task that raises is retried by Dask
  (``retries``); the tasks of a worker that dies are rescheduled by Dask's scheduler, and a task that took
  ``allowed-failures`` workers down with it fails with ``KilledWorker``.  ``engine="local"`` (and ``"auto"`` without
  Dask installed) runs on a ``ProcessPoolExecutor`` with the same retries: a task that raises is resubmitted, and
  when a worker dies (the pool breaks) the keys that were in flight are rerun one at a time, so that the one that
  kills its worker is the only one charged for it.  Either way a key that keeps failing is recorded as an error
  after ``retries + 1`` tries, and is not tried again unless ``retry_errors``.
* ``sweep`` is one use of ``runner(...)``: the started engine as a ``Runner``, which takes tasks at any time, each
  with a priority, and yields their records as they arrive (the library's pipeline, ``phases.py``, submits the
  units that a result makes ready while it iterates).
* ``ResultStore`` is an append-only JSON-lines file, one record per line, keyed by the key, the tool's version and
  CUTLASS's version: records of another version stay in the file and are ignored.  A record is appended with one
  ``write`` of the whole line, so a killed process leaves at most a torn last line, which a reader skips (a JSON
  object cut short never parses) and the next writer separates with a newline; one sweep holds the file's lock.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import heapq
import json
import logging
import math
import multiprocessing
import os
import pickle
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.core.errors import LayoutError
from verifier.run.batch import cache_root, default_jobs
from verifier.run.status import StatusLine

ENGINES = ("auto", "dask", "local")
DEFAULT_RETRIES = 2

Result = dict[str, Any]
Fn = Callable[[Any], Result]


@dataclass(frozen=True)
class Record:
    """What the store holds for one key: ``ok`` with ``fn``'s result, or ``error`` with the last failure."""

    key: str
    status: str                  # "ok" or "error"
    result: Result | None
    error: str | None = None
    tries: int = 1               # the times an error was run (a success does not say how many Dask retried)
    seconds: float = 0.0         # fn's own time on its worker
    worker: str = ""             # host:pid of the worker that computed it
    memory_mb: float = 0.0       # that worker's (or its largest child's) peak resident memory when it answered

    def line(self, tool: str, cutlass: str) -> str:
        return json.dumps({"key": self.key, "tool": tool, "cutlass": cutlass, "status": self.status,
                           "result": self.result, "error": self.error, "tries": self.tries,
                           "seconds": round(self.seconds, 6), "worker": self.worker,
                           "memory_mb": round(self.memory_mb, 1)}, sort_keys=True) + "\n"

    @staticmethod
    def parse(text: str) -> tuple[Record, str, str] | None:
        """The record of one line with its tool and CUTLASS versions, or None for a line that is not one."""
        try:
            obj = json.loads(text)
            if not (isinstance(obj, dict) and isinstance(obj.get("key"), str) and obj.get("status") in ("ok", "error")
                    and isinstance(obj.get("tool"), str) and isinstance(obj.get("cutlass"), str)):
                return None
            result = obj.get("result")
            if obj["status"] == "ok" and not isinstance(result, dict):
                return None
            return (Record(obj["key"], obj["status"], result, obj.get("error"), int(obj.get("tries", 1)),
                           float(obj.get("seconds", 0.0)), str(obj.get("worker", "")),
                           float(obj.get("memory_mb", 0.0))), obj["tool"], obj["cutlass"])
        except (ValueError, TypeError):
            return None


class ResultStore:
    """The results of one tool version on one CUTLASS version, read from and appended to a JSON-lines file.

    ``with ResultStore(path, tool, cutlass) as store``: reads every record of these versions (an ``ok`` record wins
    over an ``error`` one, and a later one over an earlier one of the same status), locks the file against a second
    sweep, and appends with ``put``.  ``skipped`` counts the lines that are not records (a torn last line)."""

    def __init__(self, path: Path, tool: str, cutlass: str, sync_every: float = 1.0) -> None:
        self.path, self.tool, self.cutlass = Path(path), tool, cutlass
        self.sync_every = sync_every
        self.records: dict[str, Record] = {}
        self.skipped = 0
        self.other_versions = 0
        self._fd: int | None = None
        self._synced = 0.0

    def __enter__(self) -> ResultStore:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        if self._fd is not None:
            return
        if not self.path.parent.is_dir():
            raise LayoutError(f"{self.path}: the folder {self.path.parent} does not exist (it is not created)")
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as exc:
            raise LayoutError(f"{self.path}: {exc.strerror}") from None
        try:
            _lock(fd, self.path)
            self._read(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _read(self, fd: int) -> None:
        torn = False
        with open(os.dup(fd), "rb") as f:  # line by line: a store of 100,000 verdicts is most of a GB
            f.seek(0)
            for raw in f:
                torn = not raw.endswith(b"\n")
                if not raw.strip():
                    continue
                parsed = Record.parse(raw.decode("utf-8", "replace"))
                if parsed is None:
                    self.skipped += 1
                    continue
                record, tool, cutlass = parsed
                if (tool, cutlass) != (self.tool, self.cutlass):
                    self.other_versions += 1
                    continue
                self._merge(record)
        if torn:
            # a torn last line: the next record starts on a line of its own, and the torn one stays unreadable
            os.write(fd, b"\n")

    def _merge(self, record: Record) -> None:
        old = self.records.get(record.key)
        if old is None or old.status == "error" or record.status == "ok":
            self.records[record.key] = record

    def get(self, key: str) -> Record | None:
        return self.records.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self.records

    def __len__(self) -> int:
        return len(self.records)

    def put(self, record: Record) -> None:
        """Append ``record`` (one ``write`` of its whole line: a crash never leaves half a record that parses)."""
        if self._fd is None:
            raise RuntimeError("the store is not open")
        data = memoryview(record.line(self.tool, self.cutlass).encode())
        try:
            while data:  # a regular file takes a whole write unless the disk fills (then the line stays torn)
                data = data[os.write(self._fd, data):]
        except OSError as exc:
            raise LayoutError(f"{self.path}: {exc.strerror}: the sweep stops (what is stored stays)") from None
        self._merge(record)
        now = time.monotonic()
        if now - self._synced >= self.sync_every:  # the OS has every record already; this bounds a power loss's
            os.fsync(self._fd)
            self._synced = now

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _lock(fd: int, path: Path) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LayoutError(f"{path}: another sweep is writing this store") from None


@dataclass
class Sweep:
    """What a sweep did: the records of every key of ``items`` it holds (computed now or before), and counts."""

    total: int
    engine: str
    workers: int
    records: dict[str, Record] = field(default_factory=dict)
    cached: int = 0              # keys the store already held
    computed: int = 0            # keys computed by this run (and stored, unless ``keep`` refused)
    errors: int = 0              # keys recorded as errors by this run
    not_kept: int = 0            # results that ``keep`` refused to store (returned, recomputed next time)
    seconds: float = 0.0         # wall time of the computing part
    startup: float = 0.0         # seconds to start the engine (cluster or pool) before the first task

    @property
    def rate(self) -> float:
        """Keys computed per second of wall time."""
        return self.computed / self.seconds if self.seconds > 0 else 0.0


def sweep(items: Mapping[str, Any], fn: Fn, store: ResultStore, *, engine: str = "auto", address: str | None = None,
          workers: int | None = None, retries: int = DEFAULT_RETRIES, retry_errors: bool = False,
          keep: Callable[[Result], bool] | None = None, progress: bool = False,
          on_record: Callable[[Record], None] | None = None) -> Sweep:
    """Compute ``fn(items[k])`` for every key ``k`` that ``store`` lacks (or holds as an error, with
    ``retry_errors``), storing each record as it arrives and calling ``on_record`` with it.

    ``engine``: ``dask`` (``address`` of a running scheduler, else a local cluster of ``workers`` processes),
    ``local`` (a pool of ``workers`` processes), ``auto`` (dask when it is installed).  ``keep(result)`` False: the
    result is returned but not stored (say, an answer that depended on the machine's load).  ``progress``: a
    status line on a terminal with the keys done / total, the rate and the ETA."""
    engine = engine_name(engine, address, workers, retries)
    if engine == "local":
        _picklable(fn)
    out = Sweep(total=len(items), engine=engine, workers=workers or default_jobs())
    todo = []
    for k in items:
        record = store.get(k)
        if record is not None and not (retry_errors and record.status == "error"):
            out.records[k] = record
            out.cached += 1
        else:
            todo.append(k)
    if not todo:
        return out

    start = time.monotonic()
    bar = StatusLine(lambda: _progress(out, len(todo), start), enabled=progress)

    def settle(record: Record) -> None:
        result_kept = record.status == "error" or keep is None or record.result is None or keep(record.result)
        if result_kept:
            store.put(record)
        else:
            out.not_kept += 1
        out.records[record.key] = record
        out.computed += 1
        out.errors += record.status == "error"
        if on_record is not None:
            with bar.hidden():
                on_record(record)

    with bar:
        try:
            with runner(engine, address, workers, retries) as r:
                out.workers, out.startup = r.workers, r.startup
                for k in todo:
                    r.submit(Task("", k, fn, items[k]))
                for _, record in r.results():
                    settle(record)
        finally:
            out.seconds = time.monotonic() - start - out.startup
    return out


def engine_name(engine: str, address: str | None, workers: int | None, retries: int) -> str:
    """The engine these options run on (``auto`` resolved), or a ``LayoutError`` naming the option that is wrong;
    starts nothing."""
    if engine not in ENGINES:
        raise LayoutError(f"--engine {engine}: expected one of {', '.join(ENGINES)}")
    if retries < 0:
        raise LayoutError(f"--retries {retries}: expected 0 or more")
    if workers is not None and workers < 1:
        raise LayoutError(f"--workers {workers}: expected 1 or more")
    if engine == "auto":
        engine = "dask" if _has_dask() else "local"
    if engine == "local" and address is not None:
        raise LayoutError("--address names a Dask scheduler: it needs --engine dask")
    if engine == "dask" and not _has_dask():
        raise LayoutError("--engine dask: Dask distributed is not installed (pip install 'cute-layout-verifier"
                          "[cluster]'), or use --engine local")
    return engine


def _picklable(fn: Fn) -> None:
    try:  # the pool pickles by reference: a lambda or a nested function would fail on every key
        pickle.dumps(fn)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise LayoutError(f"{getattr(fn, '__qualname__', fn)}: a sweep's function must be a module-level "
                          f"function ({exc})") from None


def _progress(out: Sweep, todo: int, start: float, now: float | None = None) -> str:
    done = out.computed
    elapsed = (time.monotonic() if now is None else now) - start - out.startup
    if out.startup == 0.0 and done == 0:
        return f"[{out.cached}/{out.total}] starting {out.engine} ({out.workers} workers)"
    rate = done / elapsed if elapsed > 0 else 0.0
    eta = (todo - done) / rate if rate > 0 else math.inf
    return (f"[{out.cached + done}/{out.total}] {out.cached} cached, {done} computed, {out.errors} errors, "
            f"{rate:.2f} keys/s, ETA {_duration(eta)}")


def _duration(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def _has_dask() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def add_sweep_options(p: argparse.ArgumentParser) -> None:
    """The options of a command that sweeps (``cute-verify library``); ``sweep_options`` reads them back."""
    g = p.add_argument_group("distribution (docs/library.md)")
    g.add_argument("--engine", choices=ENGINES, default="auto",
                   help="dask: Dask distributed; local: local processes; auto (default): dask when it is installed")
    g.add_argument("--address", default=None, metavar="ADDR",
                   help="a running Dask scheduler, as tcp://HOST:8786 (default: a local cluster of --workers)")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes of the local cluster or pool (default: the cores this process may use)")
    g.add_argument("--retries", type=int, default=DEFAULT_RETRIES, metavar="N",
                   help=f"tries after the first of a key that fails or takes its worker down (default "
                   f"{DEFAULT_RETRIES}); then it is recorded as an error")
    g.add_argument("--retry-errors", action="store_true", help="run again the keys the store holds as errors")
    g.add_argument("--store", default=None, metavar="FILE",
                   help="the results, appended as they arrive (default: library/results.jsonl in the result cache, "
                   "$CUTE_VERIFY_CACHE or ~/.cache/cute-layout-verifier)")


def sweep_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``sweep`` that ``add_sweep_options``'s options give."""
    return {"engine": args.engine, "address": args.address, "workers": args.workers, "retries": args.retries,
            "retry_errors": args.retry_errors}


def store_path(args: argparse.Namespace) -> Path:
    """``--store``, else the default store in the result cache (whose folder is created)."""
    if args.store is not None:
        return Path(args.store)
    folder = cache_root() / "library"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LayoutError(f"{folder}: {exc.strerror} (name a store with --store)") from None
    return folder / "results.jsonl"


# -- what runs on a worker ----------------------------------------------------------------------------------------


Answer = tuple[str, str, float, str, float]


def call(fn: Fn, payload: Any) -> Answer:
    """``fn(payload)`` on a worker: (``ok`` and its JSON text | ``bad`` and why, seconds, worker, its peak memory in
    MB, or its largest child's).  A result that is not a JSON-able dict is answered as ``bad`` rather than raised,
    since retrying a function of the payload alone cannot change it."""
    t0 = time.perf_counter()
    result = fn(payload)
    seconds = time.perf_counter() - t0
    worker = f"{socket.gethostname()}:{os.getpid()}"
    memory = _peak_memory_mb()
    if not isinstance(result, dict):
        return "bad", f"the result is a {type(result).__name__}, not a dict", seconds, worker, memory
    try:
        text = json.dumps(result, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return "bad", f"the result is not JSON: {exc}", seconds, worker, memory
    return "ok", text, seconds, worker, memory


def _peak_memory_mb() -> float:
    try:
        import resource
    except ImportError:  # not POSIX
        return 0.0
    # the worker or the largest program it ran (g++ compiling a derivation), in KiB on Linux
    return max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024


def _record(key: str, answer: Answer) -> Record:
    status, text, seconds, worker, memory = answer
    if status == "ok":
        return Record(key, "ok", json.loads(text), None, 1, seconds, worker, memory)
    return Record(key, "error", None, text, 1, seconds, worker, memory)


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


# -- Dask ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """A unit of work for a ``Runner``: ``fn(payload)``, answered as the ``Record`` of ``key``.  ``kind`` tells
    units of several kinds apart (two kinds may share a key); of the tasks waiting, a higher ``priority`` starts
    first, and among equals the one submitted first."""

    kind: str
    key: str
    fn: Fn
    payload: Any
    priority: int = 0


class Runner:
    """Tasks run on an engine, submitted at any time: ``results()`` yields each ``(task, record)`` as it arrives,
    until no task is waiting or running, and a task submitted while it yields (one that a result makes ready) is
    run by the same iteration.  The tasks wait here in priority order; the engine gets a bounded window of them."""

    engine = ""

    def __init__(self, workers: int, retries: int) -> None:
        self.workers, self.retries = workers, retries
        self.startup = 0.0
        self._queue: list[tuple[int, int, Task]] = []
        self._seq = 0

    def submit(self, task: Task) -> None:
        heapq.heappush(self._queue, (-task.priority, self._seq, task))
        self._seq += 1

    def _pop(self) -> Task:
        return heapq.heappop(self._queue)[2]

    def results(self) -> Iterator[tuple[Task, Record]]:
        raise NotImplementedError


@contextlib.contextmanager
def runner(engine: str = "auto", address: str | None = None, workers: int | None = None,
           retries: int = DEFAULT_RETRIES) -> Iterator[Runner]:
    """The ``Runner`` of these options (``sweep``'s): on Dask, a local cluster of ``workers`` processes started
    for it (closed after), or the scheduler at ``address``; else a pool of local processes."""
    engine = engine_name(engine, address, workers, retries)
    n = workers or default_jobs()
    if engine == "local":
        yield _LocalRunner(n, retries)
        return
    with _dask_runner(address, n, retries) as r:
        yield r


# -- Dask ---------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _dask_runner(address: str | None, workers: int, retries: int) -> Iterator[Runner]:
    import dask
    import distributed

    # distributed annotates few of its functions (Client, LocalCluster, as_completed are not): it is used untyped
    dd: Any = distributed

    t0 = time.monotonic()
    # The scheduler of a local cluster runs in this process and reads the failures it allows a task (the workers
    # it took down with it) when it starts; a running scheduler (``address``) keeps its own setting.
    with dask.config.set({"distributed.scheduler.allowed-failures": retries}):
        if address is None:
            cluster, client = start_local_cluster(workers, stage=CLUSTER_STAGE)
        else:
            cluster = None
            try:
                client = dd.Client(address, timeout="30s")
            except (OSError, TimeoutError) as exc:
                raise LayoutError(f"--address {address}: no Dask scheduler answers ({exc})") from None
    try:
        if address is not None:
            try:
                client.wait_for_workers(1, timeout=60)
            except (OSError, TimeoutError):
                raise LayoutError(f"--address {address}: no worker joined the scheduler in 60 s") from None
        r = _DaskRunner(client, len(client.nthreads()), retries)
        r.startup = time.monotonic() - t0
        yield r
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


class _DaskRunner(Runner):
    engine = "dask"

    def __init__(self, client: Any, workers: int, retries: int) -> None:
        super().__init__(workers, retries)
        self.client = client

    def results(self) -> Iterator[tuple[Task, Record]]:
        import distributed

        dd: Any = distributed
        client = self.client
        # The name of a task is its key in this sweep: two sweeps on one scheduler, or a key resubmitted by a later
        # run, never share a result Dask still holds from another function or version.
        tag = f"{os.getpid()}-{time.time_ns()}"
        pending: dict[str, Task] = {}   # Dask key -> task
        done = dd.as_completed([], with_results=False)
        threads = {"n": 0, "at": -math.inf}

        def fill() -> None:
            # a bounded window rather than every task at once: the scheduler's memory stays flat on a million keys,
            # and four tasks a thread keep every worker busy while results come back.  The threads are asked for
            # once a second (workers join and leave a running cluster), not at each result: that is a round trip.
            if time.monotonic() - threads["at"] > 1.0:
                threads["n"], threads["at"] = sum(client.nthreads().values()), time.monotonic()
            window = 4 * max(1, threads["n"]) + 16
            while self._queue and len(pending) < window:
                task = self._pop()
                # Dask's priority orders the window on the scheduler as the queue here orders what enters it
                name = f"cute-verify-{tag}-{task.kind}-{task.key}" if task.kind else f"cute-verify-{tag}-{task.key}"
                f = client.submit(call, task.fn, task.payload, key=name, retries=self.retries, pure=False,
                                  priority=task.priority)
                pending[f.key] = task
                done.add(f)

        fill()
        for f in done:
            task = pending.pop(f.key)
            try:
                # a result lost with its worker after it was announced is recomputed by Dask while this waits
                answer = f.result()
            except Exception as exc:
                # Dask retried it: ``retries`` times after an exception, or ``allowed-failures`` times after it
                # took its worker down (``KilledWorker``); a cancelled task (the scheduler lost it) is an error too
                record = Record(task.key, "error", None, _failure(exc), self.retries + 1)
            else:
                record = _record(task.key, answer)
            f.release()
            yield task, record
            fill()  # with what the caller submitted meanwhile


# Workers a local cluster starts at once, and the tries of a stage whose workers did not all start: 32 nannies
# started together once failed ("Nanny failed to start") where 16 never did.
CLUSTER_STAGE = 16
CLUSTER_ATTEMPTS = 3
CLUSTER_STAGE_TIMEOUT = 120.0


def start_local_cluster(workers: int, *, stage: int = CLUSTER_STAGE, attempts: int = CLUSTER_ATTEMPTS,
                        timeout: float = CLUSTER_STAGE_TIMEOUT, **options: Any) -> tuple[Any, Any]:
    """A Dask ``LocalCluster`` of ``workers`` worker processes (one thread each) and its client, started in stages:
    the scheduler alone, then ``stage`` workers at a time.  The workers of a stage that did not all join within
    ``timeout`` seconds (a nanny that failed to start) are dropped and started again, up to ``attempts`` times a
    stage; a cluster that ends with fewer workers than asked runs with those (the caller reads how many from the
    client), and one with none is a ``LayoutError``.  ``options`` go to ``LocalCluster`` (a test's preload)."""
    import distributed

    dd: Any = distributed
    try:
        cluster = dd.LocalCluster(n_workers=0, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40, **options)
    except (OSError, TimeoutError, RuntimeError) as exc:
        raise LayoutError(f"a local Dask scheduler did not start: {exc}") from None
    client = dd.Client(cluster)
    # A nanny that fails to start is seen here (its workers never join) and started again: the traceback Tornado
    # logs for the failed scaling callback would only alarm the user.
    tornado_log = logging.getLogger("tornado.application")
    level = tornado_log.level
    tornado_log.setLevel(logging.CRITICAL)
    try:
        target = 0
        while target < workers:
            target = min(workers, target + stage)
            for _ in range(attempts):
                cluster.scale(target)
                if _joined(cluster, client, target, timeout):
                    break
                _drop_unjoined(cluster, client)
            else:
                break  # this stage keeps failing: run with the workers that joined
        if not client.nthreads():
            raise LayoutError(f"a local Dask cluster of {workers} workers did not start (no worker joined after "
                              f"{attempts} tries; a main module without `if __name__ == \"__main__\"`?)")
    except BaseException:
        client.close()
        cluster.close()
        raise
    finally:
        tornado_log.setLevel(level)
    return cluster, client


def _joined(cluster: Any, client: Any, target: int, timeout: float) -> bool:
    """Whether ``target`` workers joined within ``timeout`` s; False as soon as a starting nanny failed."""
    from distributed.core import Status

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(client.nthreads()) >= target:
            return True
        starting = list(cluster.workers.values())
        if len(starting) >= target and any(getattr(w, "status", None) in (Status.failed, Status.closed)
                                           for w in starting):
            return False
        time.sleep(0.2)
    return False


def _drop_unjoined(cluster: Any, client: Any) -> None:
    """Forget the workers of the cluster's spec that never joined the scheduler, so that scaling starts new ones."""
    joined = {w["name"] for w in client.scheduler_info()["workers"].values()}
    for name in [n for n in cluster.worker_spec if n not in joined]:
        del cluster.worker_spec[name]
        worker = cluster.workers.pop(name, None)
        if worker is not None:
            try:
                client.sync(worker.close)
            except Exception:  # noqa: BLE001 - a worker that failed to start may fail to close: it is gone either way
                pass


# -- local processes ----------------------------------------------------------------------------------------------


class _LocalRunner(Runner):
    engine = "local"

    def __init__(self, workers: int, retries: int) -> None:
        super().__init__(workers, retries)
        self._checked: set[Fn] = set()

    def submit(self, task: Task) -> None:
        if task.fn not in self._checked:
            _picklable(task.fn)
            self._checked.add(task.fn)
        super().submit(task)

    def results(self) -> Iterator[tuple[Task, Record]]:
        tries: collections.Counter[tuple[str, str]] = collections.Counter()    # every time a task was run
        charged: collections.Counter[tuple[str, str]] = collections.Counter()  # the failures certainly its own
        suspects: collections.deque[Task] = collections.deque()  # in flight together when a worker died: run alone
        retries = self.retries
        while self._queue or suspects:
            alone = bool(suspects)
            width = 1 if alone else self.workers
            lost: list[Task] = []
            # spawn, not fork: a forked child would inherit Z3's state and the driver's threads
            pool = ProcessPoolExecutor(max_workers=width, mp_context=multiprocessing.get_context("spawn"))
            inflight: dict[Future[Answer], Task] = {}
            waiting: collections.deque[Task] | list[tuple[int, int, Task]] = suspects if alone else self._queue
            try:
                while waiting or inflight:
                    while waiting and len(inflight) < width:
                        task = suspects[0] if alone else self._queue[0][2]
                        try:
                            inflight[pool.submit(call, task.fn, task.payload)] = task
                        except BrokenProcessPool:  # a worker died since the last answers: its futures say which
                            break
                        if alone:
                            suspects.popleft()
                        else:
                            self._pop()
                        tries[task.kind, task.key] += 1
                    if not inflight:  # broken with nothing in flight: nobody to charge, a new pool
                        break
                    finished, _ = wait(inflight, return_when=FIRST_COMPLETED)
                    for f in finished:
                        task = inflight.pop(f)
                        who = (task.kind, task.key)
                        try:
                            answer = f.result()
                        except BrokenProcessPool:
                            lost.append(task)
                        except Exception as exc:
                            charged[who] += 1
                            if charged[who] > retries:
                                yield task, Record(task.key, "error", None, _failure(exc), tries[who])
                            elif alone:
                                suspects.append(task)
                            else:
                                self.submit(task)
                        else:
                            yield task, _record(task.key, answer)
                    if lost:
                        lost += inflight.values()
                        inflight.clear()
                        break
            except BaseException:
                # Ctrl-C, an error of the driver, or the caller stopped iterating: stop the workers now rather than
                # after their tasks
                for process in list(getattr(pool, "_processes", {}).values()):
                    process.terminate()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
            if len(lost) > 1:  # any of them may have killed it: each runs alone next
                suspects.extend(lost)
            elif lost:  # the only task in flight is the one whose worker died
                task = lost[0]
                who = (task.kind, task.key)
                charged[who] += 1
                if charged[who] > retries:
                    yield task, Record(task.key, "error", None, "its worker died (a signal, os._exit, or out of "
                                       "memory)", tries[who])
                else:
                    suspects.appendleft(task)
