"""The library sweep's engine (``verifier/library/distribute.py``, issue 30 points 3 and 4) on a real workload: the
engine's ``verify`` on a dozen parametric corpus cases (``tests/support/library_work.py``).

* a multi-node local Dask cluster (``dask scheduler`` and two ``dask worker`` processes) gives the sequential
  answers, one record a key; a worker SIGKILLed mid-sweep loses no result;
* a driver killed mid-sweep (its cluster with it) leaves a store that a second run resumes from, computing only
  what is missing;
* the local-process engine (also what ``auto`` picks without Dask) gives the same answers; a key that raises, or
  kills its worker, is recorded as an error after ``retries + 1`` tries without costing another key anything;
* a second run with nothing changed computes nothing and starts no engine; the store skips a torn last line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.library_work import CASES, corpus_items, flaky, logged_verify_case, verify_case
from verifier.core.errors import LayoutError
from verifier.library import distribute
from verifier.library.distribute import Record, ResultStore, call, sweep

ROOT = Path(__file__).resolve().parents[2]
TOOL, CUTLASS = "tool-1", "4.2.0"
DASK = [sys.executable, "-m", "distributed.cli.dask_scheduler"], [sys.executable, "-m", "distributed.cli.dask_worker"]


@pytest.fixture(scope="module")
def sequential() -> dict[str, dict[str, Any]]:
    """Each case decided in this process, one after the other: the answers every engine must give."""
    return {k: json.loads(json.dumps(verify_case(e))) for k, e in corpus_items().items()}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def _wait(condition: Any, what: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Cluster:
    """A scheduler and worker processes started as separate programs, as on separate machines."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "scheduler.json"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.scheduler = self._start([*DASK[0], "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(self.file)])
        _wait(lambda: self.file.exists() and self.file.stat().st_size > 0, "the scheduler")
        self.address: str = json.loads(self.file.read_text())["address"]
        # no nanny: a killed worker stays dead (a nanny would restart it), as a lost machine does
        self.workers = [self._start([*DASK[1], "--scheduler-file", str(self.file), "--nthreads", "1", "--no-nanny",
                                     "--no-dashboard", "--name", f"w{i}"]) for i in range(2)]

    def _start(self, argv: list[str]) -> subprocess.Popen[bytes]:
        p = subprocess.Popen(argv, env=_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(p)
        return p

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.kill()
            p.wait()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        from distributed import Client

        with Client(c.address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield c
    finally:
        c.stop()


def test_a_multi_node_cluster_gives_the_sequential_answers(cluster: Cluster, tmp_path: Path,
                                                           sequential: dict[str, dict[str, Any]]) -> None:
    path = tmp_path / "store.jsonl"
    with ResultStore(path, TOOL, CUTLASS) as store:
        out = sweep(corpus_items(), verify_case, store, engine="dask", address=cluster.address)
    assert (out.engine, out.workers, out.computed, out.cached, out.errors) == ("dask", 2, len(CASES), 0, 0)
    assert {k: r.result for k, r in out.records.items()} == sequential
    lines = _lines(path)
    assert sorted(r["key"] for r in lines) == sorted(CASES)
    assert {r["key"]: r["result"] for r in lines} == sequential
    assert len({r["worker"] for r in lines}) == 2  # both workers took part
    # nothing changed: nothing is computed, and no engine is started (this address answers nothing)
    with ResultStore(path, TOOL, CUTLASS) as store:
        again = sweep(corpus_items(), verify_case, store, engine="dask", address="tcp://127.0.0.1:9")
    assert (again.computed, again.cached, again.startup) == (0, len(CASES), 0.0)
    assert {k: r.result for k, r in again.records.items()} == sequential


def test_a_worker_killed_mid_sweep_loses_no_result(cluster: Cluster, tmp_path: Path,
                                                   sequential: dict[str, dict[str, Any]]) -> None:
    path, log = tmp_path / "store.jsonl", tmp_path / "calls"
    victim = cluster.workers[0]

    def kill_a_worker(record: Record) -> None:
        if victim.poll() is None:
            victim.send_signal(signal.SIGKILL)
            victim.wait()

    items = {k: {"entry": e, "log": str(log)} for k, e in corpus_items().items()}
    with ResultStore(path, TOOL, CUTLASS) as store:
        out = sweep(items, logged_verify_case, store, engine="dask", address=cluster.address, on_record=kill_a_worker)
    assert victim.returncode == -signal.SIGKILL and cluster.workers[1].poll() is None
    assert (out.computed, out.errors) == (len(CASES), 0), [r.error for r in out.records.values() if r.error]
    lines = _lines(path)
    assert Counter(r["key"] for r in lines) == Counter(CASES)  # every key once
    assert {r["key"]: r["result"] for r in lines} == sequential
    # the kill lost work: a task it was running (or a result it held) was computed again by the other worker
    calls = Counter(log.read_text().split())
    assert set(calls) == set(CASES) and max(calls.values()) == 2, calls


def test_a_worker_killed_mid_pipeline_loses_no_result(cluster: Cluster, tmp_path: Path) -> None:
    """The library sweep's pipeline (verifier/library/phases.py) on the multi-node cluster, on stand-in units
    (bench/library_synthetic.py): a worker SIGKILLed once the first batch is derived, while batches and problems
    are in flight.  Every batch, problem and key is stored once, the keys answer what each answers alone, and
    the kill lost work that the other worker computed again."""
    import threading

    from bench import library_synthetic as syn
    from verifier.library import phases

    store, log = tmp_path / "keys.jsonl", tmp_path / "calls"
    payloads = syn.payloads(48, 0.02, log=str(log))
    victim = cluster.workers[0]
    derived = phases.side_store(store, "derive")
    stop = threading.Event()

    def kill_after_the_first_batch() -> None:
        while not stop.is_set():
            if derived.exists() and derived.read_text().count("\n") >= 1:
                victim.send_signal(signal.SIGKILL)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_after_the_first_batch, daemon=True)
    killer.start()
    try:
        ran = phases.run(payloads, list(payloads), store, syn.VERSION, syn.VERSION, batch=8, units=syn.UNITS,
                         engine="dask", address=cluster.address)
    finally:
        stop.set()
        killer.join()
    victim.wait()
    assert victim.returncode == -signal.SIGKILL and cluster.workers[1].poll() is None
    assert ran.derive is not None and ran.decide is not None
    assert (ran.keys.computed, ran.keys.errors, ran.derive.errors, ran.decide.errors) == (48, 0, 0, 0)
    for path, units in ((store, 48), (derived, 6), (phases.side_store(store, "problems"), ran.problems)):
        assert Counter(r["key"] for r in _lines(path)).most_common(1)[0][1] == 1 and len(_lines(path)) == units
    calls = Counter(log.read_text().splitlines())
    assert max(calls.values()) == 2, calls
    alone = {k: syn.verify({**p, "source": p["source"].replace(str(log), str(tmp_path / "alone"))})
             for k, p in payloads.items()}
    assert {r["key"]: r["result"] for r in _lines(store)} == alone


DRIVER = """
import sys
from pathlib import Path
from tests.support.library_work import corpus_items, verify_case
from verifier.library.distribute import ResultStore, sweep
with ResultStore(Path(sys.argv[1]), "tool-1", "4.2.0") as store:
    sweep(corpus_items(), verify_case, store, engine=sys.argv[2], workers=1)
"""


@pytest.mark.parametrize("engine", ["dask", "local"])
def test_an_interrupted_sweep_resumes_from_its_results(engine: str, tmp_path: Path,
                                                       sequential: dict[str, dict[str, Any]]) -> None:
    path = tmp_path / "store.jsonl"
    # its own session, so that killing it kills the cluster or pool it started, as a lost machine would
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(path), engine], env=_env(), cwd=ROOT,
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait(lambda: path.exists() and path.read_text().count("\n") >= 3 or driver.poll() is not None,
              "three results", timeout=120)
        os.killpg(driver.pid, signal.SIGKILL)
    finally:
        driver.wait()
    assert driver.returncode == -signal.SIGKILL, driver.stderr.read().decode() if driver.stderr else ""
    before = {r[0].key for line in path.read_text().splitlines() if (r := Record.parse(line)) is not None}
    assert 3 <= len(before) < len(CASES)
    with path.open("a") as f:  # as if the kill had torn the last record in half
        f.write('{"key": "gemm-zdiv-MN-ld", "status": "ok", "result": {"verd')
    calls: list[str] = []
    with ResultStore(path, TOOL, CUTLASS) as store:
        assert (len(store), store.skipped) == (len(before), 1)
        out = sweep(corpus_items(), verify_case, store, engine="local", workers=2,
                    on_record=lambda r: calls.append(r.key))
    assert sorted(calls) == sorted(set(CASES) - before)  # only what was missing
    assert (out.cached, out.computed) == (len(before), len(CASES) - len(before))
    with ResultStore(path, TOOL, CUTLASS) as store:
        assert store.skipped == 1
        assert {k: r.result for k, r in store.records.items()} == sequential
    assert Counter(r[0].key for line in path.read_text().splitlines()
                   if (r := Record.parse(line)) is not None) == Counter(CASES)


def test_the_local_engine_is_what_runs_without_dask(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    sequential: dict[str, dict[str, Any]]) -> None:
    monkeypatch.setattr(distribute, "_has_dask", lambda: False)
    with ResultStore(tmp_path / "s.jsonl", TOOL, CUTLASS) as store:
        out = sweep(corpus_items(), verify_case, store, workers=2)
        assert (out.engine, out.computed, out.errors) == ("local", len(CASES), 0)
        assert {k: r.result for k, r in out.records.items()} == sequential
        with pytest.raises(LayoutError, match="Dask distributed is not installed"):
            sweep({"new": {}}, verify_case, store, engine="dask")
    # another version of the tool (or of CUTLASS) reuses nothing
    with ResultStore(tmp_path / "s.jsonl", "tool-2", CUTLASS) as store:
        assert (len(store), store.other_versions) == (0, len(CASES))


def _flaky_items(log: Path, **marks: str) -> dict[str, dict[str, Any]]:
    return {k: {"key": k, "log": str(log), **{m: True for m, key in marks.items() if key == k}}
            for k in ("a", "b", "c", "d", "e", "f")}


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_key_that_always_fails_is_an_error_after_its_tries(engine: str, tmp_path: Path) -> None:
    log, path = tmp_path / "calls", tmp_path / "s.jsonl"
    items = _flaky_items(log, **{"raise": "c"})
    with ResultStore(path, TOOL, CUTLASS) as store:
        out = sweep(items, flaky, store, engine=engine, workers=2, retries=2)
    assert Counter(log.read_text().split()) == Counter({"a": 1, "b": 1, "c": 3, "d": 1, "e": 1, "f": 1})
    assert (out.computed, out.errors) == (6, 1)
    err = out.records["c"]
    assert (err.status, err.tries, err.result) == ("error", 3, None)
    assert err.error is not None and "c always fails" in err.error
    # recorded: a second run does not try it again, unless told to
    with ResultStore(path, TOOL, CUTLASS) as store:
        assert sweep(items, flaky, store, engine=engine).computed == 0
        again = sweep(items, flaky, store, engine="local", workers=1, retries=0, retry_errors=True)
    assert (again.computed, again.errors, log.read_text().split().count("c")) == (1, 1, 4)


def test_a_key_that_kills_its_worker_costs_no_other_key(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    items = _flaky_items(log, die="b")
    with ResultStore(tmp_path / "s.jsonl", TOOL, CUTLASS) as store:
        out = sweep(items, flaky, store, engine="local", workers=3, retries=1)
    # b is charged only for the deaths when it ran alone (beside other keys, any of them may have killed the pool)
    b = out.records["b"]
    assert b.status == "error" and "worker died" in (b.error or "")
    assert b.tries == log.read_text().split().count("b") in (2, 3)
    assert {k: r.result for k, r in out.records.items() if k != "b"} == {k: {"key": k} for k in "acdef"}


def _set(payload: object) -> dict[str, Any]:
    return {"x": {1, 2}}


def _listed(payload: object) -> list[object]:
    return [payload]


def test_a_result_that_is_not_json_is_an_error_at_once() -> None:
    status, why, _, worker, memory = call(_set, None)
    assert status == "bad" and "not JSON" in why and worker.endswith(f":{os.getpid()}") and memory > 1
    assert call(_listed, 1)[:2] == ("bad", "the result is a list, not a dict")  # type: ignore[arg-type]


def test_the_store(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with ResultStore(path, TOOL, CUTLASS) as store:
        store.put(Record("k", "error", None, "boom", 3))
        store.put(Record("k", "ok", {"v": 1}))
        store.put(Record("k", "error", None, "later", 1))  # an error never replaces a result
        with pytest.raises(LayoutError, match="another sweep is writing this store"):
            ResultStore(path, TOOL, CUTLASS).open()
    path.write_text(path.read_text() + '{"key": "j", "tool": "tool-1"')  # torn
    with ResultStore(path, TOOL, CUTLASS) as store:
        assert store.get("k") == Record("k", "ok", {"v": 1}) and store.skipped == 1 and "j" not in store
        store.put(Record("j", "ok", {"v": 2}))
    with ResultStore(path, TOOL, CUTLASS) as store:
        assert store.get("j") == Record("j", "ok", {"v": 2}) and store.skipped == 1
    with pytest.raises(LayoutError, match="does not exist"):
        ResultStore(tmp_path / "no" / "s.jsonl", TOOL, CUTLASS).open()
    with ResultStore(path, TOOL, CUTLASS) as store:
        for bad, message in [({"engine": "ray"}, "--engine ray"), ({"retries": -1}, "--retries"),
                             ({"workers": 0}, "--workers 0"), ({"engine": "local", "address": "x"}, "--address"),
                             ({"engine": "local", "fn": lambda p: p}, "module-level function")]:
            with pytest.raises(LayoutError, match=message):
                sweep({"new": {}}, bad.pop("fn", flaky), store, **bad)


def test_the_progress_line() -> None:
    out = distribute.Sweep(total=100, engine="dask", workers=4, cached=40)
    assert distribute._progress(out, 60, 0.0, now=0.0) == "[40/100] starting dask (4 workers)"
    out.startup, out.computed, out.errors = 1.0, 20, 1
    line = distribute._progress(out, 60, 0.0, now=11.0)  # 20 keys in 10 s of sweeping: 40 to go, 20 s
    assert line == "[60/100] 40 cached, 20 computed, 1 errors, 2.00 keys/s, ETA 0m20s"
    assert distribute._duration(3 * 3600 + 125) == "3h02m" and distribute._duration(float("inf")) == "?"


def test_the_benchmark_runs(tmp_path: Path) -> None:
    """``bench/bench_library.py`` on a tiny workload and the local engine writes every figure (never timed here)."""
    from bench import bench_library

    out = tmp_path / "library.json"
    assert bench_library.main(["--engine", "local", "--workers", "1,2", "--items", "tests.support.library_work:"
                               "noop_items", "--fn", "tests.support.library_work:noop", "--limit", "5",
                               "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["workload"]["keys"] == 5 and [r["workers"] for r in report["runs"]] == [1, 2]
    for run in report["runs"]:
        assert (run["computed"], run["errors"], run["cache_hit_run"]["computed"]) == (5, 0, 0)
        assert run["keys_per_s"] > 0 and run["peak_memory_mb_per_worker"] > 0 and 1 <= run["workers_seen"] <= 2


def test_the_command_line_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import argparse

    p = argparse.ArgumentParser()
    distribute.add_sweep_options(p)
    args = p.parse_args(["--engine", "dask", "--address", "tcp://h:8786", "--retries", "0", "--retry-errors"])
    assert distribute.sweep_options(args) == {"engine": "dask", "address": "tcp://h:8786", "workers": None,
                                              "retries": 0, "retry_errors": True}
    monkeypatch.setenv("CUTE_VERIFY_CACHE", str(tmp_path / "cache"))
    assert distribute.store_path(args) == tmp_path / "cache" / "library" / "results.jsonl"
    assert (tmp_path / "cache" / "library").is_dir()
    assert distribute.store_path(p.parse_args(["--store", "x.jsonl"])) == Path("x.jsonl")
    with pytest.raises(SystemExit):
        p.parse_args(["--engine", "ray"])


def test_a_result_keep_refuses_is_returned_but_computed_again(tmp_path: Path) -> None:
    from tests.support.library_work import noop

    items = {"a": 1, "b": 2, "c": 3}
    with ResultStore(tmp_path / "s.jsonl", TOOL, CUTLASS) as store:
        out = sweep(items, noop, store, engine="local", workers=1, keep=lambda r: r["payload"] != 2)
        assert (out.computed, out.not_kept, out.records["b"].result) == (3, 1, {"payload": 2})
        assert sorted(store.records) == ["a", "c"]
        again = sweep(items, noop, store, engine="local", workers=1)
    assert (again.cached, again.computed) == (2, 1)
