"""The library sweep's units (derive in batches, decide each distinct layout problem once, verify each key), as a
pipeline or in three phases, answer for every key what ``verify_key`` answers for the key alone, decide fewer
problems than the keys use, and resume from whatever the three stores hold.  The pipeline's scheduling is tested on
bench/library_synthetic.py's stand-in units (fast, and their answers a function of their payloads alone)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench import library_synthetic as syn
from verifier.core.errors import LayoutError
from verifier.library import phases
from verifier.library.configs import enumerate_gemms
from verifier.library.distribute import ResultStore
from verifier.library.keys import group
from verifier.library.verify import verify_key

FAMILY = "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_"
# Three schedules of one tile and one layout: the cooperative and ping-pong TMA epilogues and the no-smem one
# (whose carveout leaves more stages, so its smem problems differ and its TMA boxes and tilings do not).
NAMES = [FAMILY + s for s in ("cooperative_epi_tma", "pingpong_epi_tma", "epi_nosmem")]
TOOL, CUTLASS = "test-tool", "4.2.0"
ROOT = Path(__file__).resolve().parents[2]


def _payloads() -> dict[str, dict[str, Any]]:
    e = enumerate_gemms("90a", ",".join(NAMES))
    return {g.key: {"key": g.key, "fields": g.fields, "representative": g.representative, "configs": list(g.configs),
                    "tool": TOOL, "cutlass": CUTLASS, "include": None, "source": e.source(g.representative)}
            for g in group(e.configs, TOOL, CUTLASS)}


def _plain(r: dict[str, Any]) -> dict[str, Any]:
    """A key's answer as the store keeps it (JSON), less its own time."""
    out: dict[str, Any] = json.loads(json.dumps(r, sort_keys=True))
    out.pop("seconds", None)
    return out


def _stored(path: Path, tool: str = TOOL, cutlass: str = CUTLASS) -> dict[str, dict[str, Any]]:
    with ResultStore(path, tool=tool, cutlass=cutlass) as s:
        return {k: _plain(r.result) for k, r in s.records.items() if r.result is not None}


def _stores(path: Path, tool: str = TOOL, cutlass: str = CUTLASS) -> dict[str, dict[str, dict[str, Any]]]:
    """The key store and its two side stores."""
    return {name: _stored(phases.side_store(path, name) if name != "keys" else path, tool, cutlass)
            for name in ("keys", "derive", "problems")}


@pytest.mark.cute
def test_three_phases_answer_what_verify_key_answers_and_resume(tmp_path: Path) -> None:
    payloads = _payloads()
    assert len(payloads) == 3
    store = tmp_path / "keys.jsonl"
    options: dict[str, Any] = {"engine": "local", "workers": 1}
    first = phases.run(payloads, list(payloads), store, TOOL, CUTLASS, batch=2, **options)
    assert first.keys.computed == 3 and first.keys.errors == 0
    assert first.derive is not None and first.derive.total == 2  # 3 keys in batches of 2
    # The keys share their TMA boxes and tilings: fewer distinct problems than (key, problem) pairs.
    assert 0 < first.problems < first.problem_uses
    assert first.decide is not None and first.decide.computed == first.problems
    swept = _stored(store)
    alone = {k: _plain(verify_key(p)) for k, p in payloads.items()}
    assert swept == alone
    # the keys' can_implement sections were computed by their derive units (verify.compile_ahead) and stored there
    ahead = {k for r in _stored(phases.side_store(store, "derive")).values() for k in r.get("ahead", {})}
    assert ahead == set(payloads)
    # The three phases one after the other (the order before the pipeline): the same three stores.
    phased = tmp_path / "phased.jsonl"
    before = phases.run(payloads, list(payloads), phased, TOOL, CUTLASS, batch=2, order="phased", **options)
    assert before.order == "phased" and (before.problems, before.problem_uses) == (first.problems, first.problem_uses)
    assert _stores(phased) == _stores(store)
    assert all(r["status"] == "verified" and r["verdict"] == "invalid" for r in alone.values())

    # Nothing changed: nothing computed in any phase.
    again = phases.run(payloads, list(payloads), store, TOOL, CUTLASS, batch=2, **options)
    assert again.keys.cached == 3 and again.keys.computed == 0 and again.derive is None and again.decide is None

    # Interrupted after the decide phase (the key store lost): only the keys are computed again, from the
    # derivations and verdicts the side stores kept, with the same answers.
    store.unlink()
    resumed = phases.run(payloads, list(payloads), store, TOOL, CUTLASS, batch=2, **options)
    assert resumed.derive is not None and resumed.derive.computed == 0 and resumed.derive.cached == 2
    assert resumed.decide is not None and resumed.decide.computed == 0
    assert resumed.keys.computed == 3 and _stored(store) == alone


# -- the pipeline's scheduling, on stand-in units -------------------------------------------------------------------


def _log(path: Path) -> Counter[str]:
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_the_pipeline_answers_what_the_phases_answer(engine: str, tmp_path: Path) -> None:
    """Both orders give the same three stores, and the keys' answers are what each key answers alone; a problem
    that several batches bring is decided once; the phased order waits at its barriers, the pipeline does not."""
    if engine == "dask":
        pytest.importorskip("distributed")
    runs: dict[str, phases.Phases] = {}
    log = tmp_path / "calls"
    payloads = syn.payloads(24, 0.05, log=str(log))
    for order in ("phased", "pipeline"):
        before = _log(log)
        runs[order] = phases.run(payloads, list(payloads), tmp_path / f"{order}.jsonl", syn.VERSION, syn.VERSION,
                                 batch=8, units=syn.UNITS, order=order, engine=engine, workers=2)
        calls = _log(log) - before
        assert max(calls.values()) == 1, calls  # every unit once: a shared problem is not decided again
        assert sum(1 for c in calls if c.startswith("decide")) == runs[order].problems < runs[order].problem_uses
    phased, pipelined = runs["phased"], runs["pipeline"]
    stores = _stores(tmp_path / "pipeline.jsonl", syn.VERSION, syn.VERSION)
    assert stores == _stores(tmp_path / "phased.jsonl", syn.VERSION, syn.VERSION)
    assert len(stores["keys"]) == 24 and len(stores["derive"]) == 3
    alone = {k: _plain(syn.verify(p)) for k, p in payloads.items()}
    assert stores["keys"] == alone

    def span(run: phases.Phases, kind: str) -> tuple[float, float]:
        times = [(s.start, s.end) for s in run.timeline if s.kind == kind]
        return min(t[0] for t in times), max(t[1] for t in times)

    # the phased order: no problem starts before the last batch ended, no key before the last problem
    assert span(phased, "derive")[1] <= span(phased, "decide")[0] + 0.01
    assert span(phased, "decide")[1] <= span(phased, "verify")[0] + 0.01
    # the pipeline: three batches on two workers, the first batch's problems run beside the third batch
    assert span(pipelined, "decide")[0] < span(pipelined, "derive")[1]
    assert pipelined.keys.computed == 24 and pipelined.derive is not None and pipelined.derive.computed == 3
    assert pipelined.decide is not None and pipelined.decide.computed == pipelined.problems
    assert 0 < pipelined.efficiency <= 1 and 0 < pipelined.steady()[0] <= 1


DRIVER = """
import sys
from pathlib import Path
from bench import library_synthetic as syn
from verifier.library import phases
if __name__ == "__main__":
    payloads = syn.payloads(48, 0.02, log=sys.argv[2])
    phases.run(payloads, list(payloads), Path(sys.argv[1]), syn.VERSION, syn.VERSION, batch=8, units=syn.UNITS,
               engine="local", workers=2)
"""


def test_an_interrupted_pipeline_resumes_from_its_three_stores(tmp_path: Path) -> None:
    """A driver killed mid-pipeline: the next run computes no batch, problem or key that a store holds, and the
    stores end as a run never interrupted leaves them."""
    store, log = tmp_path / "keys.jsonl", tmp_path / "calls"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(store), str(log)], env=env, cwd=ROOT,
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    problems = phases.side_store(store, "problems")
    try:
        end = time.monotonic() + 120
        while not (problems.exists() and problems.read_text().count("\n") >= 3) and driver.poll() is None:
            assert time.monotonic() < end, "no problem decided in 120 s"
            time.sleep(0.05)
        os.killpg(driver.pid, signal.SIGKILL)
    finally:
        driver.wait()
    assert driver.returncode == -signal.SIGKILL, driver.stderr.read().decode() if driver.stderr else ""
    held = _stores(store, syn.VERSION, syn.VERSION)
    assert held["derive"] and held["problems"] and len(held["keys"]) < 48
    before = _log(log)
    payloads = syn.payloads(48, 0.02, log=str(log))
    resumed = phases.run(payloads, list(payloads), store, syn.VERSION, syn.VERSION, batch=8, units=syn.UNITS,
                         engine="local", workers=2)
    assert resumed.derive is not None and resumed.derive.cached == len(held["derive"])
    assert resumed.decide is not None and resumed.decide.cached == len(held["problems"])
    assert resumed.keys.cached == len(held["keys"]) and resumed.keys.computed == 48 - len(held["keys"])
    again = _log(log) - before
    first = {phases._batch_id(b): b[0] for b in phases.batches(payloads, list(payloads), 8)}  # logged by it
    assert {c.split()[1] for c in again if c.startswith("derive")}.isdisjoint(first[b] for b in held["derive"])
    assert {c.split()[1] for c in again if c.startswith("decide")}.isdisjoint(held["problems"])
    assert {c.split()[1] for c in again if c.startswith("verify")}.isdisjoint(held["keys"])
    clean = tmp_path / "clean.jsonl"
    phases.run(payloads, list(payloads), clean, syn.VERSION, syn.VERSION, batch=8, units=syn.UNITS, engine="local",
               workers=2)
    assert _stores(store, syn.VERSION, syn.VERSION) == _stores(clean, syn.VERSION, syn.VERSION)


def test_an_unknown_order_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="order fast: expected one of pipeline, phased"):
        phases.run({}, [], tmp_path / "s.jsonl", TOOL, CUTLASS, order="fast")


def test_the_status_line(tmp_path: Path) -> None:
    """Keys done / total, the keys' rate, and an ETA from the work left at each kind's mean cost over the busy
    seconds a second so far (the keys arrive last in a pipeline: their own rate would say nothing early on)."""
    import contextlib

    from verifier.library.distribute import Sweep

    payloads = syn.payloads(16, 1.0)
    with ResultStore(tmp_path / "keys.jsonl", syn.VERSION, syn.VERSION) as store, contextlib.ExitStack() as stack:
        out = phases.Phases(keys=Sweep(total=16, engine="dask", workers=2))
        pipe = phases._Pipeline(payloads, list(payloads), list(payloads), store, stack, syn.VERSION, syn.VERSION,
                                syn.UNITS, "pipeline", False, 8, None, out)
        assert pipe.status() == "[0/16] starting dask (2 workers)"
        pipe.runner = phases.distribute.Runner(2, 0)
        pipe.t0 = time.monotonic() - 10.0
        assert pipe.status().endswith("ETA ?; derive 0/2, decide 0/0")  # nothing done: no cost known
        # 10 s in: one batch derived (8 s of a worker) bringing 12 problems, 4 decided (2 s each); 2 workers busy
        # all along would have spent 20 s
        assert out.derive is not None
        out.derive.computed, pipe.left["derive"] = 1, 1
        out.decide = Sweep(total=12, engine="dask", workers=2, computed=4)
        pipe.left["decide"] = 8
        pipe.derived.update({k: {} for k in list(payloads)[:8]})
        out.timeline += [phases.Span("derive", 0.0, 8.0, "w0")] + [phases.Span("decide", t, t + 2.0, "w1")
                                                                   for t in (0.0, 2.0, 4.0, 6.0)]
        # left: 1 batch (8 s), 8 problems + 8 keys not derived x 12/8 problems a key (20 x 2 s), 16 keys (no cost
        # known yet: the ETA waits for one)
        assert "ETA ?" in pipe.status()
        out.timeline.append(phases.Span("verify", 8.0, 9.0, "w0"))
        out.keys.computed = 1
        # + 15 keys x 1 s: 63 s of work at 17 busy seconds in 10 s
        line = pipe.status()
        assert line == ("[1/16] 0 cached, 1 computed, 0 errors, 0.10 keys/s, ETA 0m37s; derive 1/2, decide 4/12"), line


def test_the_steady_efficiency() -> None:
    """The efficiency while the workers were saturated counts only the busy seconds inside those intervals."""
    from verifier.library.distribute import Sweep

    out = phases.Phases(keys=Sweep(total=0, engine="dask", workers=2), seconds=10.0)
    out.timeline = [phases.Span("derive", 0.0, 6.0, "a"), phases.Span("decide", 1.0, 4.0, "b"),
                    phases.Span("verify", 6.0, 10.0, "a")]
    assert (out.busy, out.efficiency) == (13.0, 0.65)
    assert out.steady() == (0.0, 10.0)  # never saturated
    out.saturated = [(1.0, 4.0)]  # both workers busy all along
    assert out.steady() == (1.0, 7.0)
    out.saturated = [(0.0, 2.0), (5.0, 8.0)]  # busy 2 + 1 in the first, 1 + 2 in the second: 6 of 2 x 5
    assert out.steady() == pytest.approx((0.6, 5.0))


def test_a_batch_stored_without_its_problems_is_stated_by_the_driver(tmp_path: Path) -> None:
    """A derive record written before the pipeline carries only the derivations: the driver states its keys'
    problems (``units.problems``) instead of deriving the batch again, with the same answers."""
    payloads = syn.payloads(16, 0.01)
    store = tmp_path / "keys.jsonl"
    first = phases.run(payloads, list(payloads), store, syn.VERSION, syn.VERSION, batch=8, units=syn.UNITS,
                       engine="local", workers=2)
    derived = phases.side_store(store, "derive")
    lines = [json.loads(line) for line in derived.read_text().splitlines()]
    assert all(set(r["result"]) == {"derived", "problems", "uses"} for r in lines)
    derived.write_text("".join(json.dumps({**r, "result": {"derived": r["result"]["derived"]}}) + "\n"
                               for r in lines))
    answers = _stored(store, syn.VERSION, syn.VERSION)
    store.unlink()
    phases.side_store(store, "problems").unlink()
    again = phases.run(payloads, list(payloads), store, syn.VERSION, syn.VERSION, batch=8, units=syn.UNITS,
                       engine="local", workers=2)
    assert again.derive is not None and (again.derive.cached, again.derive.computed) == (2, 0)
    assert (again.problems, again.problem_uses) == (first.problems, first.problem_uses)
    assert again.decide is not None and again.decide.computed == first.problems
    assert _stored(store, syn.VERSION, syn.VERSION) == answers
