"""The library report fans each key's answer out to its configurations and is written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from verifier.library import report


def _result(key: str, configs: list[str], confirmed: bool) -> dict[str, object]:
    finding = {"kind": "accepted_but_wrong", "check": "tma_A", "obligation": "TMA-GSTRIDE", "reason": "r",
               "witness": {"ldA": 4}, "replay": {"can_implement": 1, "make_tma_copy_returns": False, "cute": "x"},
               "confirmed": confirmed}
    return {"key": key, "representative": configs[0], "configs": configs, "status": "verified",
            "verdict": "invalid" if confirmed else "unknown", "findings": [finding],
            "derived": {"MAINLOOP": "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<6>"}}


def test_the_report_fans_out_and_keeps_only_replayed_findings(tmp_path: Path) -> None:
    configs = {n: (k, "90a") for n, k in (("a", "k1"), ("b", "k1"), ("c", "k2"), ("d", "k3"))}
    skipped = {"key": "k3", "representative": "d", "configs": ["d"], "status": "not derived",
               "reason": "mainloop cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedSparse not modelled yet"}
    data = report.build({"cutlass": "4.2.0"}, [_result("k1", ["a", "b"], True), _result("k2", ["c"], False),
                                               skipped], configs)
    assert data["counts"]["configurations"] == 4 and data["counts"]["keys"] == 3
    assert data["counts"]["keys_pending"] == 0 and data["counts"]["findings"] == 1
    assert data["counts"]["not_derived"] == {skipped["reason"]: 1}
    assert data["findings"][0]["kernels"] == ["a", "b"]  # the kernels the finding affects
    rows = {r["name"]: r for r in data["configurations"]}
    assert rows["b"]["verdict"] == "invalid" and rows["d"]["status"] == "not derived"
    pending = report.build({}, [], configs, pending=["k1", "k2", "k3"])
    assert pending["counts"]["keys_pending"] == 3 and pending["configurations"][0]["status"].startswith("not verified")
    out = tmp_path / "r.json"
    report.write(out, data)
    assert json.loads(out.read_text()) == data and [p.name for p in tmp_path.iterdir()] == ["r.json"]
    page = tmp_path / "r.html"
    report.write_html(page, data)
    text = page.read_text()
    assert "MainloopSm90TmaGmmaWarpSpecialized" in text and "TMA-GSTRIDE" not in text.split("Findings")[0]
    assert "<code>a</code>, <code>b</code>" in text
