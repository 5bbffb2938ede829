"""A local Dask cluster starts in stages and starts again the workers that failed to (verifier/library/distribute.py,
``start_local_cluster``): a crowded 32-core host once answered "Nanny failed to start" for 32 workers at once."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("distributed")

from verifier.core.errors import LayoutError  # noqa: E402
from verifier.library.distribute import ResultStore, start_local_cluster, sweep  # noqa: E402

PRELOAD = str(Path(__file__).resolve().parents[1] / "support" / "cluster_start.py")


def _starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_workers_that_fail_to_start_are_started_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "starts"
    monkeypatch.setenv("CLUSTER_START_LOG", str(log))
    monkeypatch.setenv("CLUSTER_START_FAILURES", "2")  # both workers of the first stage
    cluster, client = start_local_cluster(3, stage=2, timeout=60, preload=[PRELOAD])
    try:
        assert len(client.nthreads()) == 3
        assert _starts(log) == 5  # two failed, then two and one
        # and the cluster computes
        assert client.submit(sum, [1, 2, 3]).result() == 6
    finally:
        client.close()
        cluster.close()


def test_a_cluster_whose_workers_never_start_is_a_one_line_error(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "starts"
    monkeypatch.setenv("CLUSTER_START_LOG", str(log))
    monkeypatch.setenv("CLUSTER_START_FAILURES", "1000")
    with pytest.raises(LayoutError, match="a local Dask cluster of 2 workers did not start"):
        start_local_cluster(2, stage=2, attempts=2, timeout=60, preload=[PRELOAD])
    assert _starts(log) == 4  # two tries of two


def test_a_sweep_runs_on_the_staged_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import verifier.library.distribute as distribute
    from tests.support.library_work import noop

    monkeypatch.setattr(distribute, "CLUSTER_STAGE", 1)  # three stages of one worker
    with ResultStore(tmp_path / "s.jsonl", tool="t", cutlass="c") as store:
        out = sweep({f"k{i}": i for i in range(12)}, noop, store, engine="dask", workers=3)
    assert out.workers == 3 and out.computed == 12 and out.errors == 0
    assert {r.result["payload"] for r in out.records.values() if r.result} == set(range(12))


def test_the_three_phases_share_one_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """phases.run starts one local cluster for its sweeps (each used to start its own), and none when the store
    holds every key."""
    import distributed

    from verifier.library import phases

    started: list[int] = []
    real = distributed.LocalCluster

    def counted(*args: object, **kwargs: object) -> object:
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(distributed, "LocalCluster", counted)
    # CUTLASS 2.x kernels: verify_key answers them without deriving (no compile), through the verify phase
    payloads = {f"k{i}": {"key": f"k{i}", "representative": f"gemm{i}", "configs": [f"gemm{i}"], "tool": "t",
                          "cutlass": "c", "include": None, "fields": {"is_3x": False}} for i in range(4)}
    store = tmp_path / "keys.jsonl"
    ran = phases.run(payloads, list(payloads), store, "t", "c", engine="dask", workers=2)
    assert started == [1] and ran.startup > 0 and ran.keys.workers == 2 and ran.keys.computed == 4
    assert {r.result["status"] for r in ran.keys.records.values() if r.result} == {"not derived"}
    again = phases.run(payloads, list(payloads), store, "t", "c", engine="dask", workers=2)
    assert started == [1] and again.startup == 0.0 and again.keys.cached == 4
