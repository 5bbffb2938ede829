"""The re-run of a completed sweep: its keys come from the plan cache (no generator run, no C++ emitted), every key
from the store, and the report lists every configuration (docs/library.md, "The re-run of a completed sweep")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifier.cli import main
from verifier.library import configs as cfg
from verifier.library import plan as plan_mod
from verifier.library.distribute import Record, ResultStore
from verifier.library.keys import group, payload
from verifier.run.batch import tool_version

FAMILY = "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_"
# Three configurations, three keys (two epilogues, two schedules).
NAMES = [FAMILY + s for s in ("cooperative_epi_tma", "cooperative_epi_nosmem", "pingpong_epi_tma")]
KERNELS = ",".join(NAMES)


def _plans(tmp: Path) -> Path:
    return tmp / "cache" / "library" / "plans"


def test_the_plan_is_the_enumeration_keyed_and_is_read_back(tmp_path: Path) -> None:
    tool, version = tool_version(), cfg.cutlass_version(None)
    first = plan_mod.load_plan(["90a"], KERNELS, "", None, tool, version, _plans(tmp_path))
    again = plan_mod.load_plan(["90a"], KERNELS, "", None, tool, version, _plans(tmp_path))
    assert not first.cached and again.cached and len(list(_plans(tmp_path).glob("*.json"))) == 1
    e = cfg.enumerate_gemms("90a", KERNELS)
    groups = group(e.configs, tool, version)
    assert first.counts == again.counts == {"90a": len(e.configs)}
    # the same keys, fields (tuples included), representatives and configurations as keys.group's, in its order
    assert list(again.keys) == [g.key for g in groups]
    for g in groups:
        assert again.keys[g.key] == (g.fields, g.representative, g.configs) == first.keys[g.key]
        # a key's payload is keys.payload's, less the C++, which Plan.source emits on demand
        assert {**again.payload(g.key, None), "source": again.source(g.key)} == payload(g, e, tool, version)
    assert again.configurations() == {n: (g.key, "90a") for g in groups for n in g.configs}
    # a new tool version is another plan
    other = plan_mod.load_plan(["90a"], KERNELS, "", None, tool + "x", version, _plans(tmp_path))
    assert not other.cached and set(other.keys).isdisjoint(first.keys)
    assert len(list(_plans(tmp_path).glob("*.json"))) == 2


def test_an_unreadable_plan_is_enumerated_again(tmp_path: Path) -> None:
    tool, version = tool_version(), cfg.cutlass_version(None)
    first = plan_mod.load_plan(["90a"], KERNELS, "", None, tool, version, _plans(tmp_path))
    (path,) = _plans(tmp_path).glob("*.json")
    path.write_text(path.read_text()[:100])  # torn
    again = plan_mod.load_plan(["90a"], KERNELS, "", None, tool, version, _plans(tmp_path))
    assert not again.cached and again.keys == first.keys
    assert plan_mod.load_plan(["90a"], KERNELS, "", None, tool, version, _plans(tmp_path)).cached


def test_a_rerun_of_a_finished_sweep_enumerates_and_emits_nothing(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTE_VERIFY_CACHE", str(tmp_path / "cache"))
    tool, version = tool_version(), cfg.cutlass_version(None)
    plan = plan_mod.load_plan(["90a"], KERNELS, "", None, tool, version, _plans(tmp_path))
    store = tmp_path / "results.jsonl"
    # The store of a finished sweep, with stand-in answers: this test is about the path a re-run takes, not about
    # what a key's answer is (tests/library/test_phases.py is).
    with ResultStore(store, tool=tool, cutlass=version) as s:
        for k, (_, rep, names) in plan.keys.items():
            s.put(Record(k, "ok", {"key": k, "representative": rep, "configs": list(names), "status": "verified",
                                   "verdict": "valid", "findings": []}))

    def unreachable(*_: Any, **__: Any) -> Any:
        raise AssertionError("a re-run of a finished sweep runs the generator or its emitter")

    monkeypatch.setattr(cfg, "enumerate_gemms", unreachable)
    monkeypatch.setattr(plan_mod.Plan, "source", unreachable)
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    rc = main(["library", "--kernels", KERNELS, "--store", str(store), "-o", str(out), "--html", str(page),
               "--engine", "local", "--workers", "1"])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["plan_cached"] is True
    assert data["sweep"]["computed"] == 0 and data["sweep"]["cached"] == len(plan.keys) == 3
    assert data["sweep"]["derive"] is None and data["sweep"]["decide"] is None
    assert sorted(r["name"] for r in data["configurations"]) == sorted(NAMES)
    assert {r["verdict"] for r in data["configurations"]} == {"valid"}
    assert set(data["seconds"]) == {"enumerate", "sweep", "phases", "report", "total"}
    assert "3 GEMM configurations, 3 keys" in page.read_text()


def test_the_streamed_report_is_the_report(tmp_path: Path) -> None:
    from verifier.library import report

    data = {"format": report.FORMAT, "counts": {"keys": 2}, "empty": [], "keys": [{"key": "a", "x": [1, 2]},
                                                                                   {"key": "b"}], "n": None}
    report.write(tmp_path / "r.json", data)
    assert json.loads((tmp_path / "r.json").read_text()) == data
