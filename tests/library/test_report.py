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


def test_the_page_draws_each_distinct_findings_counterexample(tmp_path: Path) -> None:
    """A TMA box refuted at ldA = 4 (can_implement never reads the strides): the gmem tensor of A is drawn at the
    values compiled CUTLASS replayed, its rows overlapping (ldA < K) and crossed out; two keys with the same finding
    share one picture and list both kernels."""
    finding = {"kind": "accepted_but_wrong", "check": "tma_A", "obligation": "TMA-GSTRIDE", "reason": "r",
               "witness": {"M": 2**30, "K": 2**30, "L": 2**30, "ldA": 4, "bsA": 0},
               "replay": {"query": [8, 1, 8, 1, 4, 1, 0] + [16] * 9, "can_implement": 1,
                          "make_tma_copy_returns": False, "cute": "x"}, "confirmed": True}
    safe = {"kind": "rejected_but_safe", "check": "tma_A_aligned_strides", "reason": "s",
            "witness": {"M": 8, "N": 1, "K": 9, "L": 1, "ldA": 16, "bsA": 16},
            "replay": {"query": [8, 1, 9, 1, 16, 1, 16] + [16] * 9, "can_implement": 0,
                       "make_tma_copy_returns": True, "cute": "exit 0"}, "confirmed": True}
    checks = {"tma_A": {"op": "make_tma_box", "args": ["16", "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",
                                                       "(M,K,L):(ldA,_1,bsA)"]},
              "tma_A_aligned_strides": {"op": "make_tma_box"},  # its operands are tma_A's
              "tiling_B": {"op": "local_tile", "args": ["(N,K,L):(_1@1,_1@0,_1@2)"]}}

    def result(key: str, name: str) -> dict[str, object]:
        return {"key": key, "representative": name, "configs": [name], "status": "verified", "verdict": "invalid",
                "findings": [finding, safe], "checks": checks}

    data = report.build({}, [result("k1", "kernel_one"), result("k2", "kernel_two")],
                         {"kernel_one": ("k1", "90a"), "kernel_two": ("k2", "90a")})
    assert [f["operand"] for f in data["findings"]] == ["(M,K,L):(ldA,_1,bsA)"] * 4
    page = report.html(data)
    findings = page.split("<h2>Findings</h2>")[1]
    assert findings.count("<svg") == 2 and findings.count("<h3>") == 2  # two distinct findings, four in all
    assert "4 findings, 2 distinct" in findings
    # the refuted box at M = K = 8 (the replay's extents), ldA = 4: 64 cells, 28 of whose indices repeat
    first, second = findings.split("<svg")[1:]
    assert "<title>(8,8,1):(4,_1,0)</title>" in first and first.count('class="collision"') == 56
    assert "counterexample (TMA-GSTRIDE): M=8, K=8, L=1, ldA=4, bsA=0" in first
    # the problem can_implement rejects (K = 9) drawn with the aligned strides: no index repeats
    assert "<title>(8,9,1):(16,_1,16)</title>" in second and 'class="collision"' not in second
    assert "2 keys, 2 kernels: <code>kernel_one</code>, <code>kernel_two</code>" in findings
    report.write_html(tmp_path / "r.html", data)
    assert (tmp_path / "r.html").read_text() == page


def test_a_finding_without_a_drawable_operand_says_so() -> None:
    data = report.build({}, [_result("k1", ["a"], True)], {"a": ("k1", "90a")})
    assert data["findings"][0]["operand"] is None
    assert "no layout of the witness's symbols to draw" in report.html(data)
