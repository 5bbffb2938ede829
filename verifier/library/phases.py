"""A library sweep in three phases, so that each distinct layout problem is decided once for the whole sweep and
each batch of instances is compiled once (issue 30, point 3; docs/library.md).

1. **derive** (unit: a batch of keys): the batch's C++ instances compiled into one program
   (``derive.compile_instances``, cached by ``oracle.cute_cpp``) and what compiled CUTLASS printed for each key;
2. **decide** (unit: a layout problem): every distinct problem of the derived keys (``verify.problems_of``, keyed
   by ``verify.problem_id``: the op, the operands' text, the symbols' declarations, the assumptions, the tool's and
   CUTLASS's versions) decided by the engine (``verify.decide_problem``);
3. **verify** (unit: a key): ``verify.verify_key`` on a payload that carries the key's derivation, its problems'
   verdicts and its batch (whose cached binary replays the findings), so that its answer is the one
   ``verify_key`` gives the key alone (tests/library/test_phases.py compares them).

Each phase is a ``distribute.sweep`` with its own store beside the key store (``FILE.derive.jsonl``,
``FILE.problems.jsonl``): an interrupted sweep resumes in whichever phase it stopped, and a key the key store
holds needs none of the three.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.library import derive
from verifier.library.distribute import DEFAULT_RETRIES, Record, ResultStore, Sweep, shared_cluster, sweep
from verifier.library.keys import derive_order
from verifier.library.verify import decide_problem, problems_of, verify_key

# Keys compiled into one program: CUTLASS's headers are parsed once a batch instead of once a key.
DEFAULT_BATCH = 64


def derive_batch(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The unit of work of the derive phase: ``{"keys": [...], "batch": [[name, source], ...], "include"}`` compiled
    into one program, and what compiled CUTLASS printed for each key."""
    include = Path(payload["include"]) if payload.get("include") else None
    shown = derive.derive_many([derive.Instance(n, s) for n, s in payload["batch"]], include)
    return {"derived": dict(zip(payload["keys"], shown))}


def side_store(path: Path, phase: str) -> Path:
    """The store of a phase beside the key store: ``results.jsonl`` -> ``results.derive.jsonl``."""
    return path.with_name(f"{path.stem}.{phase}{path.suffix or '.jsonl'}")


@dataclass
class Phases:
    """What the three phases did: the key sweep's records, and each phase's ``Sweep``."""

    keys: Sweep
    derive: Sweep | None = None
    decide: Sweep | None = None
    problems: int = 0            # distinct layout problems of the keys verified by this run
    problem_uses: int = 0        # the (key, problem) pairs they stand for
    startup: float = 0.0         # seconds to start the local cluster the phases share (0: none, or a running one)


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
        source: Callable[[str], str] | None = None, **options: Any) -> Phases:
    """Verify the keys ``todo`` of ``payloads`` (``verify_key``'s payloads) in the three phases, with the key
    store at ``store_path``; ``options`` are ``sweep``'s (engine, address, workers, retries, retry_errors).
    ``source(key)``: the key's C++, for payloads without their ``source`` (``plan.Plan``): asked only for the keys
    this run derives, so that a run whose keys are all in the store emits none."""

    def src(k: str) -> str:
        p = payloads[k]
        if "source" in p or source is None:
            return str(p.get("source", ""))  # a 2.x key has none, and needs none
        return source(k)

    with ResultStore(store_path, tool=tool, cutlass=cutlass) as store, contextlib.ExitStack() as engine:
        retry = bool(options.get("retry_errors"))
        needed = [k for k in todo if k not in store or (retry and store.records[k].status == "error")]
        wanted = set(needed)
        startup = 0.0
        if needed:  # one local cluster for the three phases, not one each (a run with nothing to do starts none)
            address, startup = engine.enter_context(shared_cluster(
                options.get("engine", "auto"), options.get("address"), options.get("workers"),
                options.get("retries", DEFAULT_RETRIES)))
            options = {**options, "address": address}
        derive_items: dict[str, dict[str, Any]] = {}
        where: dict[str, tuple[str, int]] = {}  # key -> (its batch, its place there)
        # (a run whose keys the store holds forms none: sorting every key of a re-run costs seconds)
        for keys in batches(payloads, todo, batch) if needed else []:
            bid = _batch_id(keys)
            for i, k in enumerate(keys):
                where[k] = (bid, i)
            if wanted.intersection(keys):
                derive_items[bid] = {"keys": keys, "include": payloads[keys[0]].get("include"),
                                     "batch": [[payloads[k]["representative"], src(k)] for k in keys]}
        out = Phases(keys=Sweep(total=0, engine="", workers=0), startup=startup)
        derived: dict[str, dict[str, Any]] = {}
        if derive_items:
            with ResultStore(side_store(store_path, "derive"), tool=tool, cutlass=cutlass) as ds:
                out.derive = sweep(derive_items, derive_batch, ds, progress=progress, **options)
            for rec in out.derive.records.values():
                if rec.status == "ok" and rec.result is not None:
                    derived.update(rec.result["derived"])
        problems: dict[str, dict[str, Any]] = {}
        uses: dict[str, list[str]] = {}
        for k in needed:
            if k in derived:
                mine = problems_of(payloads[k], derived[k])
                problems.update(mine)
                uses[k] = list(mine)
        out.problems, out.problem_uses = len(problems), sum(len(u) for u in uses.values())
        verdicts: dict[str, Any] = {}
        if problems:
            with ResultStore(side_store(store_path, "problems"), tool=tool, cutlass=cutlass) as ps:
                out.decide = sweep(problems, decide_problem, ps, progress=progress, **options)
            verdicts = {pid: rec.result["verdict"] for pid, rec in out.decide.records.items()
                        if rec.status == "ok" and rec.result is not None}
        items: dict[str, Mapping[str, Any]] = {}
        for k in todo:
            if k not in wanted:  # the store holds it: the sweep reads its record, never its payload
                items[k] = payloads[k]
                continue
            p = dict(payloads[k])
            if k in derived:
                bid, i = where[k]
                p.update(derived=derived[k], batch=derive_items[bid]["batch"], index=i,
                         verdicts={pid: verdicts[pid] for pid in uses.get(k, ()) if pid in verdicts})
            elif "source" not in p:  # a 2.x key, or a batch that failed to derive: verify_key derives the key alone
                p["source"] = src(k)
            items[k] = p
        out.keys = sweep(items, verify_key, store, progress=progress, on_record=on_record, **options)
    return out
