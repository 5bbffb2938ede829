"""Smoke test of bench/: each benchmark's quick mode on tiny inputs produces a well-formed table, the baselines
give the answers the tools must agree on, and run.py writes the report.  Never asserts on time."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("tensor_layouts")
pytest.importorskip("pycute")

from bench import (  # noqa: E402
    bench_algebra,
    bench_checks,
    bench_compile,
    bench_gpu,
    bench_parametric,
    bench_startup,
    bench_verdicts,
    run,
)
from bench.common import QUICK, Table  # noqa: E402

TINY = dataclasses.replace(QUICK, repeats=1, algebra_inputs=2, sizes=(6, 8), enum_cap_s=5.0,
                           parametric_cases=("cmp-compact-dyn-1d-prefix", "linv-overlap"), top=2,
                           enum_budget_s=5.0, static_log2=4, sweep_top=3)


def _well_formed(t: Table, min_rows: int) -> None:
    assert re.match(r"^\d\. ", t.title)
    assert len(t.rows) >= min_rows
    assert all(len(r) == len(t.headers) for r in t.rows)
    md = t.markdown()
    assert md.count("\n| ") == len(t.rows) + 1  # header line and one line per row
    assert "DISAGREEMENT" not in md


def test_algebra_quick() -> None:
    t = bench_algebra.run(TINY)
    _well_formed(t, len(bench_algebra.OPS))
    assert [r[0] for r in t.rows] == list(bench_algebra.OPS)
    assert all("×" in r[6] and "×" in r[7] for r in t.rows)  # every op had inputs all three libraries agree on


def test_checks_quick(tmp_path: Path) -> None:
    png = tmp_path / "checks.png"
    t = bench_checks.run(TINY, png)
    _well_formed(t, len(bench_checks.PROPS) * len(TINY.sizes))
    assert {r[3] for r in t.rows} == {"proved"}
    assert {r[5] for r in t.rows} == {"True"}
    # matplotlib is in the bench extra, not the test extra: without it the report says so and draws nothing.
    if importlib.util.find_spec("matplotlib") is None:
        assert "was NOT drawn: matplotlib is not installed" in t.markdown() and not png.exists()
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_parametric_quick() -> None:
    t = bench_parametric.run(TINY)
    _well_formed(t, len(TINY.parametric_cases))
    assert [r[0] for r in t.rows] == list(TINY.parametric_cases)
    # The corpus says (its `expect`): the composition is wrong for some K > M, so invalid; left_inverse of
    # (M,_4):(_1,_8) overlaps for M > 8, which CuTe's contract allows (a warning), so valid.
    assert [r[3] for r in t.rows] == ["invalid", "valid"]


def test_pycute_baseline_sees_static_semantics_only() -> None:
    # composition((2,3):(1,2), (2,3):(3,1)) with run-time ints is wrong in CuTe 4.2 (README); pycute, which has
    # plain ints only, computes the static result and finds it correct: the baseline cannot see the bug.
    from verifier.engine.decide import valid_at
    from verifier.oracle.corpora import problem

    entry = {"id": "x", "op": "composition", "args": ["(A0,A1):(1,A0)", "(B0,B1):(B1,1)"]}
    op, args, _ = problem(entry)
    values = {"A0": 2, "A1": 3, "B0": 2, "B1": 3}
    assert bench_parametric.pycute_valid_at(op, args, values) is True
    assert valid_at(op, args, values) is False


@pytest.mark.cute
def test_compile_quick() -> None:
    t = bench_compile.run(TINY)
    _well_formed(t, 6)
    assert [r[3] for r in t.rows] == ["accepted", "proved", "proved", "static_assert failed", "refuted", "refuted"]


def test_gpu_quick(tmp_path: Path) -> None:
    t = bench_gpu.run(TINY, tmp_path / "missing.json")
    _well_formed(t, 2)
    assert "not measured" in t.rows[0][3]
    hw = tmp_path / "hardware.json"
    rec = json.loads((ROOT / "docs" / "hardware.json").read_text())["sweep_throughput"]
    rec["result"] = {**rec["result"], "device": "test device", "checks_per_s": 2e9,
                     "numpy": {**rec["result"]["numpy"], "checks_per_s": 1e6}}
    hw.write_text(json.dumps({"sweep_throughput": rec}))
    t = bench_gpu.run(TINY, hw)
    assert t.rows[0][3] == "2e+09" and t.rows[0][4] == "2e+03×" and "test device" in t.markdown()


def test_startup_quick() -> None:
    t = bench_startup.run(TINY)
    _well_formed(t, len(bench_startup.COMMANDS))
    assert t.data["python_pass"] > 0


def test_verdicts_quick() -> None:
    t = bench_verdicts.run(TINY)
    _well_formed(t, 2)
    assert "M % 128 == 0 and N % 128 == 0 and K % 32 == 0" in t.data["three_d"]["guard"]  # type: ignore[index]


def test_run_writes_report(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    assert run.main(["--quick", "--only", "gpu,algebra", "--out", str(out), "--note", "A test note."]) == 0
    text = out.read_text()
    assert "A test note." in text
    for heading in ("# Benchmarks", "## Machine", "## Targets of the issue", "## Where we lose",
                    "## 1. Concrete algebra", "## 5. GPU sweep"):
        assert heading in text
    assert "tensor-layouts" in text and "load average" in text
    assert run.main(["--only", "nonsense"]) == 2
