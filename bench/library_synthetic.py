"""Stand-ins for the library sweep's units (``verifier/library/phases.py``'s ``Units``) that cost what the real ones
cost, in proportion, and do none of their work: to measure the sweep's scheduling (how long its workers wait) on
any host in minutes, apart from what compiling and solving cost there (bench/library_scale.py ``synthetic``).

At ``scale`` 1: a derive batch costs 1.1 s a key (0.9-1.3: neighbouring keys in the derive order, docs/library.md
"What a derive batch costs"), twice that for a quarter of the batches (a key CUTLASS rejects at compile: the batch
compiles again without it), the stragglers; stating a key's problems 0.5 s (on the derive's worker, and again in
the key's verification, as ``problems_of`` and ``verify_key`` build the key's layouts); a distinct problem
1.5-4.5 s (3 s); a key's verification 1.5 s more (2 s with its problems).  Each key uses 4 problems of a pool of 1.6
a key, so keys share problems across batches (the real keys shared about 2.3 uses a distinct problem).
``work="sleep"`` sleeps that long (the scheduling alone), ``"burn"`` spins the CPU that long (its thread's CPU
time: the workers also compete for the cores, as g++ and Z3 do).

Every answer is a function of its payload alone, and a key's answer is the same whether its payload carries its
derivation and its problems' verdicts or not (then the key derives and decides them itself, as ``verify_key``
does): the pipelined and phased orders, and any worker lost on the way, give the same stores.  A payload's
``log`` (a file) gets a line ``KIND KEY`` at each call, so that a test sees which units ran twice.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

from verifier.library.phases import Units

PROBLEMS_A_KEY = 4
POOL_A_KEY = 1.6
VERSION = "synthetic"


def _u(*parts: object) -> float:
    """A number in [0, 1) that is a function of ``parts`` alone."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def payloads(n: int, scale: float, work: str = "sleep", log: str | None = None) -> dict[str, dict[str, Any]]:
    """``n`` keys as ``phases.run`` takes them, their costs at ``scale``."""
    pool = max(1, round(POOL_A_KEY * n))
    out: dict[str, dict[str, Any]] = {}
    for i in range(n):
        k = f"s{i:06d}"
        spec = {"scale": scale, "work": work, "log": log,
                "problems": sorted({f"q{int(_u(k, j) * pool):06d}" for j in range(PROBLEMS_A_KEY)})}
        out[k] = {"key": k, "fields": {"is_3x": True}, "representative": k, "configs": [k], "tool": VERSION,
                  "cutlass": VERSION, "include": None, "source": json.dumps(spec, sort_keys=True)}
    return out


def _spend(seconds: float, work: str) -> None:
    if work == "burn":
        end = time.thread_time() + seconds
        x = 0
        while time.thread_time() < end:
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    else:
        time.sleep(seconds)


def _log(spec: Mapping[str, Any], kind: str, key: str) -> None:
    if spec.get("log"):
        with open(spec["log"], "a") as f:
            f.write(f"{kind} {key}\n")


def _batch_cost(keys: list[str], scale: float) -> float:
    again = 2.0 if _u("rejected", *keys) < 0.25 else 1.0
    return len(keys) * 1.1 * (0.9 + 0.4 * _u("batch", *keys)) * again * scale


def derive(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A batch: ``{"keys", "batch": [[name, source], ...]}`` -> each key's derivation (its problems)."""
    keys = list(payload["keys"])
    specs = [json.loads(source) for _, source in payload["batch"]]
    _log(specs[0], "derive", keys[0])
    _spend(_batch_cost(keys, specs[0]["scale"]), specs[0]["work"])
    return {"derived": {k: {"problems": s["problems"], "scale": s["scale"], "work": s["work"], "log": s["log"]}
                        for k, s in zip(keys, specs)}}


def problems(payload: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A derived key's problems by id."""
    _spend(0.5 * d["scale"], d["work"])
    return {pid: {"pid": pid, "scale": d["scale"], "work": d["work"], "log": d["log"]} for pid in d["problems"]}


def decide(payload: Mapping[str, Any]) -> dict[str, Any]:
    pid = payload["pid"]
    _log(payload, "decide", pid)
    _spend(3.0 * (0.5 + _u("decide", pid)) * payload["scale"], payload["work"])
    return {"verdict": {"pid": pid, "value": hashlib.sha256(pid.encode()).hexdigest()[:8]}}


def verify(payload: Mapping[str, Any]) -> dict[str, Any]:
    k = payload["key"]
    d = payload.get("derived")
    if d is None:  # its batch failed, or none ran: derived alone
        spec = json.loads(payload["source"])
        _spend(_batch_cost([k], spec["scale"]) / 8, spec["work"])
        d = {"problems": spec["problems"], "scale": spec["scale"], "work": spec["work"], "log": spec["log"]}
    _log(d, "verify", k)
    given = payload.get("verdicts") or {}
    verdicts = {pid: given.get(pid) or decide(p)["verdict"] for pid, p in problems(payload, d).items()}
    _spend(1.5 * (0.5 + _u("verify", k)) * d["scale"], d["work"])
    return {"key": k, "status": "verified", "verdicts": verdicts}


UNITS = Units(derive=derive, problems=problems, decide=decide, verify=verify)
