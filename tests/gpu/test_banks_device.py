"""cuda_harness.banks_device's host part: the access patterns and the model's wavefront counts sent to the GPU, the
launch plan, and the matching of Nsight Compute's per-launch counts (the GPU run is recorded in docs/hardware.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuda_harness import banks_device as bd
from verifier.cli.app import main


@pytest.fixture(scope="module")
def pats() -> list[dict[str, object]]:
    return bd.patterns()


def _cli_max(smem: str, access: str, eb: int, ab: int, capsys) -> int:
    main(["bank_conflicts", smem, access, "--element-bits", str(eb), "--access-bits", str(ab), "--json"])
    return int(json.loads(capsys.readouterr().out)["max_wavefronts"])


def test_patterns_fit_the_kernel(pats) -> None:
    assert sum(str(p["name"]).startswith("generated") for p in pats) == 160
    assert len(pats) == 160 + len(bd.NAMED)
    for p in pats:
        addrs, ab = p["addresses"], int(p["access_bits"])  # type: ignore[call-overload]
        assert len(addrs) == p["threads"] <= 32  # type: ignore[arg-type]
        assert all(a % (ab // 8) == 0 and 0 <= a <= bd.SMEM_BYTES - ab // 8 for a in addrs)  # type: ignore
        assert p["model_wavefronts"] == sum(p["model_phases"])  # type: ignore[arg-type]
    assert sum(int(p["model_wavefronts"]) > len(p["model_phases"]) for p in pats) > 50  # conflicts are exercised


def test_named_counts_agree_with_the_cli(pats, capsys) -> None:
    by_name = {p["name"]: p for p in pats}
    ex = by_name["issue 19: ldmatrix of an 8x8 b16 matrix, row-major (8,64)"]
    assert ex["model_phases"] == [8] == [_cli_max("(_8,_64):(_64,_1)", "8:_1", 16, 128, capsys)]
    assert by_name["issue 19: the same, Sw<3,3,3>"]["model_phases"] == [1]
    swz = by_name["#3172: Sw<3,3,4> (128,8) M-major tiled to (128,32), ldmatrix.x4.trans addresses"]
    assert swz["model_phases"] == [1, 1, 1, 1]
    assert by_name["#3172 without the swizzle"]["model_phases"] == [8, 8, 8, 8]
    assert by_name["32 floats down a column of a row-major 32x32 tile (32-way)"]["model_phases"] == [32]
    assert by_name["the same column, rows padded to 33"]["model_phases"] == [1]


def test_launch_plan_covers_every_instruction_that_fits(pats) -> None:
    plan = bd.launches(pats)
    for kind in ("ld", "st"):
        assert [k for k, x in plan if x == kind] == list(range(len(pats)))
    ldsm = {k for k, kind in plan if kind == "ldsm"}
    assert ldsm == {k for k, p in enumerate(pats) if p["access_bits"] == 128 and p["threads"] in (8, 16, 32)}
    assert {k for k, kind in plan if kind == "cpasync"} == {k for k, p in enumerate(pats)
                                                            if p["access_bits"] in (32, 64, 128)}
    assert bd.launches(pats, ("ld",)) == [(k, "ld") for k in range(len(pats))]


def _ncu_csv(path: Path, rows: list[dict[str, float]]) -> None:
    lines = ['==PROF== Connected to process 1\n',
             '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
             '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n']
    for k, r in enumerate(rows):
        for name, v in r.items():
            lines.append(f'"{k}","1","python3","h","bank_ld","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0",'
                         f'"Command line profiler metrics","{name}","","{v:,.0f}"\n')
    path.write_text("".join(lines))


def test_compare_matches_launches_in_order(pats, tmp_path: Path) -> None:
    few = pats[:3]
    plan = bd.launches(few)
    assert {kind for _, kind in plan} == set(bd.KINDS)
    rows = []
    for k, kind in plan:
        w = float(few[k]["model_wavefronts"]) * 64  # type: ignore[arg-type]
        row = {f"smsp__inst_executed_op_{bd.INSTRUCTIONS[kind]}.sum": 64.0,
               "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": 4.0 if kind == "cpasync" else w + 1}
        if kind != "cpasync":
            row[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_{bd.WAVEFRONTS[kind]}.sum"] = w
        rows.append(row)
    csv_path = tmp_path / "n.csv"
    _ncu_csv(csv_path, rows)
    counts = bd.read_ncu(csv_path)
    assert counts[0] == rows[0]
    rep = bd.compare(few, counts)
    n_cp = sum(kind == "cpasync" for _, kind in plan)
    assert rep["launches"] == len(plan) and rep["compared"] == rep["agree"] == len(plan) - n_cp
    assert all(r["agree"] is None and "cp.async" in str(r["note"]) for r in rep["results"]  # type: ignore[union-attr]
               if r["instruction"] == "cpasync")
    counts[0]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] += 64
    assert bd.compare(few, counts)["agree"] == len(plan) - n_cp - 1
    del counts[0]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]  # the total less one stands in
    first = bd.compare(few, counts)["results"][0]  # type: ignore[index]
    assert first["wavefront_metric"] == "all operations - 1" and first["agree"] is True
    with pytest.raises(ValueError, match="profiled launches"):
        bd.compare(few, counts[:-1])
