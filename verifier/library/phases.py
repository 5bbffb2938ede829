"""A library sweep in three kinds of units, so that each distinct layout problem is decided once for the whole
sweep and each batch of instances is compiled once (issue 30, point 3; docs/library.md), run as a pipeline on one
engine.

1. **derive** (unit: a batch of keys): the batch's C++ instances compiled into one program
   (``derive.compile_instances``, cached by ``oracle.cute_cpp``) and what compiled CUTLASS printed for each key;
2. **decide** (unit: a layout problem): every distinct problem of the derived keys (``verify.problems_of``, keyed
   by ``verify.problem_id``: the op, the operands' text, the symbols' declarations, the assumptions, the tool's and
   CUTLASS's versions) decided by the engine (``verify.decide_problem``);
3. **verify** (unit: a key): ``verify.verify_key`` on a payload that carries the key's derivation, its problems'
   verdicts and its batch (whose cached binary replays the findings), so that its answer is the one
   ``verify_key`` gives the key alone (tests/library/test_phases.py compares them).

The pipeline (``order="pipeline"``, the default): every derive batch is submitted at once (``derive_unit``: the
batch derived and its keys' problems stated, on a worker); as soon as a batch's result arrives, the distinct
problems of its keys that no earlier batch brought are submitted (a key whose problem is already submitted waits
on it), and a key is submitted as soon as all its problems are decided.  Of the units
waiting, a derive batch starts first, then a problem, then a key: what feeds other units first, which is also the
longest first (a batch costs 18-50 s, a problem about 3, a key about 2), so that the short units fill the workers
while the last batches finish instead of every worker waiting for the slowest batch of a phase.  The units run on
``distribute.runner``'s engine: Dask's ``client.submit`` with its ``priority`` and ``as_completed``, or a local
process pool; the dependencies between units are this module's, the scheduling the engine's.  ``order="phased"``
runs the same units with a barrier between the kinds (every batch, then every problem, then every key: the order
before the pipeline, kept to measure against; bench/library_scale.py ``synthetic``).

Each kind has its own store beside the key store (``FILE.derive.jsonl``, ``FILE.problems.jsonl``), appended as
each unit's result arrives: an interrupted sweep resumes from whatever the three stores hold, and a key the key
store holds needs none of the three.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from verifier.core.errors import LayoutError
from verifier.library import derive, distribute
from verifier.library.distribute import Fn, Record, ResultStore, Runner, Sweep, Task
from verifier.library.keys import derive_order
from verifier.library.verify import compile_ahead, decide_problem, problems_of, verify_key
from verifier.run.batch import default_jobs
from verifier.run.status import StatusLine

# Keys compiled into one program: CUTLASS's headers are parsed once a batch instead of once a key, and a template
# one key instantiated costs its neighbours nothing. 256 against 64: 40% less CPU a key on SM90, 51% on SM100, at
# 2.6 GB of g++ (docs/library.md, "Larger derive batches").
DEFAULT_BATCH = 256
ORDERS = ("pipeline", "phased")
# Of the units waiting, the one that feeds others starts first: a batch, then a problem, then a key.
PRIORITY = {"derive": 2, "decide": 1, "verify": 0}


def derive_batch(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The unit of work of the derive phase: ``{"keys": [...], "batch": [[name, source], ...], "include"}`` compiled
    into one program, and what compiled CUTLASS printed for each key."""
    include = Path(payload["include"]) if payload.get("include") else None
    shown = derive.derive_many([derive.Instance(n, s) for n, s in payload["batch"]], include)
    return {"derived": dict(zip(payload["keys"], shown))}


Problems = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, dict[str, Any]]]
# What a derive unit may do ahead for its batch's verifications (the batch, its keys' payloads, their derivations):
# what it computed for a key, by key, goes to the key's verification with its derivation (``Units.ahead``).
Ahead = Callable[[Mapping[str, Any], Mapping[str, Mapping[str, Any]], Mapping[str, Mapping[str, Any]]],
                 Mapping[str, Any] | None]


@dataclass(frozen=True)
class Units:
    """The functions of the three kinds of units: ``derive`` (a batch's payload to ``{"derived": {key: d}}``),
    ``problems`` (a key's payload and derivation to its problems by id, run after ``derive`` on the same worker:
    ``derive_unit``), ``decide`` (a problem to ``{"verdict": ...}``) and ``verify`` (a key's payload, with
    ``derived``, ``batch``, ``index`` and ``verdicts`` when they are known, to its answer); ``ahead`` (what the
    derive unit prepares for its keys' verifications: the library compiles the batch's symbolic ``can_implement``
    program there and computes its keys' ``can_implement`` sections, ``verify.compile_ahead``; what it returns for
    a key goes to the key's verification as ``can_implement_ahead``).  The library's by default;
    bench/library_synthetic.py's stand-ins measure the scheduling alone."""

    derive: Fn = derive_batch
    problems: Problems = problems_of
    decide: Fn = decide_problem
    verify: Fn = verify_key
    ahead: Ahead | None = None


LIBRARY = Units(ahead=compile_ahead)


def derive_unit(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A derive unit as the sweep runs it, on a worker: ``units.derive`` of the batch (``item``), then each key's
    problems (``units.problems`` of the key's payload in ``keys`` and its derivation), each distinct one once in
    ``problems`` and each key's ids in ``uses``.  The problems are worth a worker: stating them builds the key's
    layouts (the smem ``tile_to_shape`` and its checked product: up to a second of CPU where no earlier key of the
    process shares them), which the driver would pay serially for every key of the sweep."""
    units: Units = payload["units"]
    out = units.derive(payload["item"])
    problems: dict[str, dict[str, Any]] = {}
    uses: dict[str, list[str]] = {}
    for k, d in out["derived"].items():
        mine = units.problems(payload["keys"][k], d)
        problems.update(mine)
        uses[k] = list(mine)
    ahead = units.ahead(payload["item"], payload["keys"], out["derived"]) if units.ahead is not None else None
    return {**out, "problems": problems, "uses": uses, **({"ahead": dict(ahead)} if ahead else {})}


def side_store(path: Path, phase: str) -> Path:
    """The store of a phase beside the key store: ``results.jsonl`` -> ``results.derive.jsonl``."""
    return path.with_name(f"{path.stem}.{phase}{path.suffix or '.jsonl'}")


class Span(NamedTuple):
    """A unit computed by this run: its kind, when it ran (seconds from the start of the run's engine, its start
    taken as its arrival less its own time on the worker) and its worker."""

    kind: str
    start: float
    end: float
    worker: str


@dataclass
class Phases:
    """What the run did: the keys' records (``keys``), each kind's units (``derive``, ``decide``: None when it had
    none), and the run's timeline."""

    keys: Sweep
    derive: Sweep | None = None
    decide: Sweep | None = None
    problems: int = 0            # distinct layout problems of the keys verified by this run
    problem_uses: int = 0        # the (key, problem) pairs they stand for
    startup: float = 0.0         # seconds to start the engine (0: none, or a running one)
    seconds: float = 0.0         # wall time of the run's units, after the engine started
    order: str = "pipeline"
    timeline: list[Span] = field(default_factory=list)
    saturated: list[tuple[float, float]] = field(default_factory=list)  # when no worker lacked work (``steady``)

    @property
    def busy(self) -> float:
        """The workers' seconds in the units this run computed."""
        return sum(s.end - s.start for s in self.timeline)

    @property
    def efficiency(self) -> float:
        """Busy worker-seconds over workers x wall time (1: no worker ever waited)."""
        wall = self.seconds * self.keys.workers
        return self.busy / wall if wall > 0 else 0.0

    def steady(self) -> tuple[float, float]:
        """The efficiency while the workers were saturated (at least as many units submitted to the engine and
        not answered as workers: no worker lacked work, whatever the dependencies), which a longer sweep of the
        same units keeps up, and the seconds that were not saturated (the fill while the first batches compile, the
        stalls at the phased order's barriers, the drain at the end): (0, the whole wall) when never saturated."""
        length = sum(b - a for a, b in self.saturated)
        if length <= 0.0:
            return 0.0, self.seconds
        starts = [a for a, _ in self.saturated]
        busy = 0.0
        for s in self.timeline:
            i = max(0, bisect.bisect_right(starts, s.start) - 1)
            while i < len(self.saturated) and self.saturated[i][0] < s.end:
                a, b = self.saturated[i]
                busy += max(0.0, min(b, s.end) - max(a, s.start))
                i += 1
        return busy / (self.keys.workers * length), self.seconds - length


def batches(payloads: Mapping[str, Mapping[str, Any]], keys: Sequence[str], size: int) -> list[list[str]]:
    """The 3.x keys of ``keys`` in ``keys.derive_order`` (neighbours share their template instantiations), in
    batches of ``size``: fixed by the key set alone, so a resumed sweep finds the batches it derived before."""
    three = sorted({k for k in keys if payloads[k]["fields"].get("is_3x", False)},
                   key=lambda k: derive_order(k, payloads[k]["fields"]))
    return [three[i:i + size] for i in range(0, len(three), size)]


def _batch_id(keys: Sequence[str]) -> str:
    return "b" + hashlib.sha256("\n".join(keys).encode()).hexdigest()[:24]


def run(payloads: Mapping[str, Mapping[str, Any]], todo: Sequence[str], store_path: Path, tool: str, cutlass: str,
        *, batch: int = DEFAULT_BATCH, progress: bool = False, on_record: Callable[[Record], None] | None = None,
        source: Callable[[str], str] | None = None, units: Units = LIBRARY, order: str = "pipeline",
        **options: Any) -> Phases:
    """Verify the keys ``todo`` of ``payloads`` (``units.verify``'s payloads), with the key store at
    ``store_path``; ``options`` are ``sweep``'s (engine, address, workers, retries, retry_errors).
    ``source(key)``: the key's C++, for payloads without their ``source`` (``plan.Plan``): asked only for the keys
    this run derives, so that a run whose keys are all in the store emits none.  ``order``: ``pipeline`` or
    ``phased`` (the module's docstring)."""
    if order not in ORDERS:
        raise LayoutError(f"order {order}: expected one of {', '.join(ORDERS)}")
    retries = options.get("retries", distribute.DEFAULT_RETRIES)
    address, workers = options.get("address"), options.get("workers")
    engine = distribute.engine_name(options.get("engine", "auto"), address, workers, retries)
    retry = bool(options.get("retry_errors"))
    with ResultStore(store_path, tool=tool, cutlass=cutlass) as store:
        out = Phases(keys=Sweep(total=len(todo), engine=engine, workers=workers or default_jobs()),
                     order=order)
        needed = []
        for k in todo:
            record = store.get(k)
            if record is not None and not (retry and record.status == "error"):
                out.keys.records[k] = record  # the run reads its record, never its payload
                out.keys.cached += 1
            else:
                needed.append(k)
        if not needed:
            return out
        with contextlib.ExitStack() as stack:
            pipe = _Pipeline(payloads, todo, needed, store, stack, tool, cutlass, units, order, retry, batch, source,
                             out)
            bar = StatusLine(pipe.status, enabled=progress)
            with bar, distribute.runner(engine, address, workers, retries) as r:
                out.startup = r.startup
                for s in (out.keys, out.derive, out.decide):
                    if s is not None:
                        s.workers = r.workers
                pipe.run(r, bar, on_record)
    return out


class _Pipeline:
    """The dependencies between a run's units: which units a result makes ready (the module's docstring)."""

    def __init__(self, payloads: Mapping[str, Mapping[str, Any]], todo: Sequence[str], needed: list[str],
                 store: ResultStore, stack: contextlib.ExitStack, tool: str, cutlass: str, units: Units, order: str,
                 retry: bool, size: int, source: Callable[[str], str] | None, out: Phases) -> None:
        self.payloads, self.store, self.stack, self.units, self.out = payloads, store, stack, units, out
        self.versions, self.phased, self.retry, self.source = (tool, cutlass), order == "phased", retry, source
        self.needed = needed
        wanted = set(needed)
        self.batches: dict[str, dict[str, Any]] = {}
        self.where: dict[str, tuple[str, int]] = {}  # key -> (its batch, its place there)
        for keys in batches(payloads, todo, size):
            if wanted.intersection(keys):
                bid = _batch_id(keys)
                for i, k in enumerate(keys):
                    self.where[k] = (bid, i)
                self.batches[bid] = {"keys": keys, "include": payloads[keys[0]].get("include"),
                                     "batch": [[payloads[k]["representative"], self._source(k)] for k in keys]}
        # what a key's problems are a function of: its payload less its C++ and its configurations' names
        self.lean = {k: {f: v for f, v in payloads[k].items() if f not in ("source", "configs")} for k in self.where}
        engine, workers = out.keys.engine, out.keys.workers
        if self.batches:
            out.derive = Sweep(total=len(self.batches), engine=engine, workers=workers)
        self.derived: dict[str, dict[str, Any]] = {}
        self.uses: dict[str, list[str]] = {}
        self.ahead: dict[str, Any] = {}  # what a key's derive unit computed for its verification (``Units.ahead``)
        self.verdicts: dict[str, Any] = {}
        self.settled: set[str] = set()            # problems with a record (a verdict or an error)
        self.waiting: dict[str, list[str]] = {}   # a problem submitted -> the keys waiting on it
        self.missing: dict[str, int] = {}         # a key -> its problems not settled yet
        self.left = {"derive": 0, "decide": 0, "verify": 0}  # units created and not settled (held or running)
        self.held: dict[str, list[Task]] = {"decide": [], "verify": []}
        self.stores: dict[str, ResultStore] = {}
        self.runner: Runner | None = None
        self.t0 = 0.0
        self.last = {"derive": 0.0, "decide": 0.0}
        self.outstanding, self.full = 0, False

    def _source(self, k: str) -> str:
        p = self.payloads[k]
        if "source" in p or self.source is None:
            return str(p.get("source", ""))  # a 2.x key has none, and needs none
        return self.source(k)

    def _side(self, phase: str) -> ResultStore:
        if phase not in self.stores:
            tool, cutlass = self.versions
            self.stores[phase] = self.stack.enter_context(ResultStore(side_store(self.store.path, phase), tool=tool,
                                                                      cutlass=cutlass))
        return self.stores[phase]

    def _cached(self, store: ResultStore, key: str) -> Record | None:
        record = store.get(key)
        return None if record is None or (self.retry and record.status == "error") else record

    # -- creating units ---------------------------------------------------------------------------------------

    def _submit(self, task: Task) -> None:
        self.left[task.kind] += 1
        if task.kind in self.held and self.phased:
            self.held[task.kind].append(task)
        else:
            self._send(task)

    def _send(self, task: Task) -> None:
        assert self.runner is not None
        self.runner.submit(task)
        self._load(+1)

    def _load(self, change: int) -> None:
        """Units submitted to the engine and not answered: the workers are saturated while they are as many."""
        self.outstanding += change
        full = self.outstanding >= self.out.keys.workers
        if full != self.full:
            now = time.monotonic() - self.t0
            if full:
                self.out.saturated.append((now, now))
            else:
                self.out.saturated[-1] = (self.out.saturated[-1][0], now)
            self.full = full

    def _release(self) -> None:
        """The phased order's barriers: the problems once every batch settled, the keys once every problem did."""
        if not self.phased or self.runner is None or self.left["derive"]:
            return
        for kind in ("decide", "verify"):
            for task in self.held[kind]:
                self._send(task)
            self.held[kind].clear()
            if self.left[kind]:
                return

    def _key(self, k: str) -> None:
        """Submit the key's verification: with its derivation and its problems' verdicts when the sweep has them;
        a 2.x key, or one whose batch failed to derive, goes with its C++ (``verify_key`` derives the key alone)."""
        p = dict(self.payloads[k])
        if k in self.derived:
            bid, i = self.where[k]
            p.update(derived=self.derived[k], batch=self.batches[bid]["batch"], index=i,
                     verdicts={pid: self.verdicts[pid] for pid in self.uses.get(k, ()) if pid in self.verdicts})
            if k in self.ahead:
                p["can_implement_ahead"] = self.ahead.pop(k)
        elif "source" not in p:
            p["source"] = self._source(k)
        self._submit(Task("verify", k, self.units.verify, p, PRIORITY["verify"]))

    def _batch(self, bid: str, record: Record) -> None:
        """A batch settled: its keys' problems not yet known are submitted, and its keys whose problems are all
        decided."""
        found: Mapping[str, Any] = {}
        uses: Mapping[str, list[str]] = {}
        if record.status == "ok" and record.result is not None:
            self.derived.update(record.result["derived"])
            found, uses = record.result.get("problems", {}), record.result.get("uses", {})
            self.ahead.update(record.result.get("ahead") or {})
        problems = self._side("problems") if record.status == "ok" else None
        for k in self.batches[bid]["keys"]:
            if k not in self.missing:  # a key this run does not verify (the store holds it)
                continue
            if k not in self.derived:
                self._key(k)
                continue
            if k in uses:
                mine = {pid: found[pid] for pid in uses[k]}
            else:  # a batch stored before its record carried its problems
                mine = self.units.problems(self.payloads[k], self.derived[k])
            self.uses[k] = list(mine)
            for pid, problem in mine.items():
                if pid in self.settled:
                    continue
                self.missing[k] += 1
                if pid in self.waiting:
                    self.waiting[pid].append(k)
                    continue
                if self.out.decide is None:
                    self.out.decide = Sweep(total=0, engine=self.out.keys.engine, workers=self.out.keys.workers)
                self.out.decide.total += 1
                assert problems is not None
                cached = self._cached(problems, pid)
                if cached is not None:  # decided by an earlier run
                    self.out.decide.cached += 1
                    self._settle(pid, cached)
                    self.missing[k] -= 1
                else:
                    self.waiting[pid] = [k]
                    self._submit(Task("decide", pid, self.units.decide, problem, PRIORITY["decide"]))
            if not self.missing[k]:
                self._key(k)

    def _settle(self, pid: str, record: Record) -> None:
        assert self.out.decide is not None
        self.out.decide.records[pid] = record
        self.settled.add(pid)
        if record.status == "ok" and record.result is not None:
            self.verdicts[pid] = record.result["verdict"]

    def _problem(self, pid: str, record: Record) -> None:
        """A problem decided: the keys that waited on it for the last of their problems are submitted (a problem
        that failed is decided by its keys themselves, as ``verify_key`` alone would)."""
        self._settle(pid, record)
        for k in self.waiting.pop(pid):
            self.missing[k] -= 1
            if not self.missing[k]:
                self._key(k)

    # -- running ----------------------------------------------------------------------------------------------

    def run(self, r: Runner, bar: StatusLine, on_record: Callable[[Record], None] | None) -> None:
        self.runner, self.t0 = r, time.monotonic()
        out = self.out
        for k in self.needed:
            self.missing[k] = 0
        derive = self._side("derive") if self.batches else None
        for bid, item in self.batches.items():
            assert derive is not None and out.derive is not None
            cached = self._cached(derive, bid)
            if cached is None:
                unit = {"units": self.units, "item": item, "keys": {k: self.lean[k] for k in item["keys"]}}
                self._submit(Task("derive", bid, derive_unit, unit, PRIORITY["derive"]))
        for k in self.needed:
            if k not in self.where:
                self._key(k)
        for bid in self.batches:  # after every batch is submitted: they start before what the cached ones feed
            assert derive is not None and out.derive is not None
            cached = self._cached(derive, bid)
            if cached is not None:
                out.derive.records[bid] = cached
                out.derive.cached += 1
                self._batch(bid, cached)
        self._release()
        try:
            for task, record in r.results():
                now = time.monotonic() - self.t0
                out.timeline.append(Span(task.kind, max(0.0, now - record.seconds), now, record.worker))
                self.left[task.kind] -= 1
                self._load(-1)
                done = out.keys if task.kind == "verify" else out.derive if task.kind == "derive" else out.decide
                assert done is not None
                done.computed += 1
                done.errors += record.status == "error"
                if task.kind == "derive":
                    self._side("derive").put(record)
                    assert out.derive is not None
                    out.derive.records[task.key] = record
                    self.last["derive"] = now
                    self._batch(task.key, record)
                elif task.kind == "decide":
                    self._side("problems").put(record)
                    self.last["decide"] = now
                    self._problem(task.key, record)
                else:
                    self.store.put(record)
                    out.keys.records[task.key] = record
                    if on_record is not None:
                        with bar.hidden():
                            on_record(record)
                self._release()
        finally:
            out.seconds = time.monotonic() - self.t0
            if self.full:
                out.saturated[-1] = (out.saturated[-1][0], out.seconds)
            out.problems = len(self.settled | set(self.waiting))
            out.problem_uses = sum(len(u) for u in self.uses.values())
            out.keys.seconds = out.seconds
            if out.derive is not None:
                out.derive.seconds = self.last["derive"]
            if out.decide is not None:
                out.decide.seconds = self.last["decide"]

    def status(self) -> str:
        """``[keys done/total] C cached, N computed, E errors, R keys/s, ETA; derive b/B, decide p/P``.  The ETA is
        the work left (each kind's units left at their mean cost so far; the problems of the keys not derived
        yet at the rate a derived key brought new ones) over the workers' busy seconds a second so far."""
        out, keys = self.out, self.out.keys
        if self.runner is None:
            return f"[{keys.cached}/{keys.total}] starting {keys.engine} ({keys.workers} workers)"
        elapsed = time.monotonic() - self.t0
        rate = keys.computed / elapsed if elapsed > 0 else 0.0
        derive = out.derive or Sweep(total=0, engine="", workers=0)
        decide = out.decide or Sweep(total=0, engine="", workers=0)
        busy: dict[str, list[float]] = {"derive": [], "decide": [], "verify": []}
        for s in out.timeline:
            busy[s.kind].append(s.end - s.start)
        not_derived = sum(1 for k in self.needed if k in self.where and k not in self.derived)
        per_key = decide.total / max(1, len(self.derived))
        left = {"derive": self.left["derive"], "decide": self.left["decide"] + not_derived * per_key,
                "verify": len(self.needed) - keys.computed}
        eta = math.inf
        spent = sum(sum(v) for v in busy.values())
        if spent > 0 and all(busy[kind] or not left[kind] for kind in left):
            work = sum(left[kind] * sum(v) / len(v) for kind, v in busy.items() if v)
            eta = work / (spent / elapsed)
        return (f"[{keys.cached + keys.computed}/{keys.total}] {keys.cached} cached, {keys.computed} computed, "
                f"{keys.errors} errors, {rate:.2f} keys/s, ETA {distribute._duration(eta)}; derive "
                f"{derive.cached + derive.computed}/{derive.total}, decide {decide.cached + decide.computed}/"
                f"{decide.total}")
