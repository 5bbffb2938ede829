"""cuda_harness.tiled_device in host mode: the generated CUDA C++ that has CuTe partition a TiledMMA / TiledCopy
one thread per CuTe thread, compiled by g++ and run on the CPU, against ``verifier.algebra.tiled``'s partitions for a
symbolic thread index.  The GPU run of the same source is recorded in docs/hardware.md (not asserted here)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tomllib

from cuda_harness import tiled_device as td

ROOT = Path(__file__).resolve().parents[2]


def test_cases_include_the_sm80_hgemm_example_objects() -> None:
    spec = tomllib.loads((ROOT / "examples" / "sgemm_sm80.cute.toml").read_text())
    assert spec["objects"]["mma"] == td.HGEMM_MMA
    assert spec["objects"]["copyA"] == td.HGEMM_COPY
    tiled = {c.tiled for c in td.CASES}
    assert {td.HGEMM_MMA, td.HGEMM_COPY} <= tiled
    assert {c.part for c in td.CASES} == {"A", "B", "C", "S", "D"}
    assert sum(bool(c.values) for c in td.CASES) == 5  # run-time extents and strides


def test_run_time_values_become_cute_ints() -> None:
    case = next(c for c in td.CASES if c.values)
    src = td.source([case])
    assert "const long long p[] = {200, 72, 80};" in src
    assert "make_shape(int(int(p[0])), int(int(p[1])))" in src  # int, not Int<200>: dynamic in CuTe
    want = td.expected(case)
    assert want.shape == (128, 208)  # 8 values x 13 (ceil 200/16) x 2 (ceil 72/64): partial tiles included
    assert want[0, :8].tolist() == list(range(8))  # thread 0: 8 contiguous halves (one 128-bit copy) of row 0,
    assert int(want[0, 8]) == 16 * 80  # then the same 16 rows down (16 threads along M), ldA = 80


def test_source_launches_one_thread_per_cute_thread() -> None:
    cases = td.CASES[:3] + td.CASES[12:13]
    src = td.source(cases)
    launches = re.findall(r"kernel_(\d+)<<<1, (\d+)>>>", src)
    assert [(int(k), int(n)) for k, n in launches] == [(k, td.threads(c)) for k, c in enumerate(cases)]
    assert [td.threads(c) for c in cases] == [128, 128, 128, 256]  # 2x2 SM80 atoms; two GMMA warpgroups
    assert "get_slice(tid).partition_A(tensor)" in src and "get_slice(tid).partition_C(tensor)" in src


def test_expected_offsets_follow_the_symbolic_partition() -> None:
    hgemm_c = td.CASES[2]
    want = td.expected(hgemm_c)
    assert want.shape == (128, 128)
    # each element of the 128x128 C tile is owned by exactly one (thread, value): a bijection onto the tile
    assert sorted(want.ravel().tolist()) == list(range(128 * 128))


@pytest.mark.cute
def test_host_run_matches_the_model(cute, tmp_path: Path) -> None:
    td.emit(tmp_path)
    exe = td.build(tmp_path, gpu=False)
    out = tmp_path / "out.txt"
    out.write_text(subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=600).stdout)
    report = td.check(tmp_path, out)
    assert [r["mismatches"] for r in report] == [0] * len(td.CASES)
    assert sum(int(r["threads"]) for r in report) == 3584  # type: ignore[call-overload]


def test_compare_reports_a_wrong_offset_and_a_wrong_size() -> None:
    case = td.CASES[3]
    want = td.expected(case)
    got = np.concatenate([np.full((want.shape[0], 1), want.shape[1]), want], axis=1)
    assert td.compare([case], {0: got}, [want])[0]["mismatches"] == 0
    bad = got.copy()
    bad[5, 1 + 3] += 1
    bad[7, 0] = 1
    report = td.compare([case], {0: bad}, [want])[0]
    assert report["mismatches"] == 2
    assert {"thread": 5, "value": 3, "cute": int(want[5, 3]) + 1, "model": int(want[5, 3])} in report["first"]
    assert {"thread": 7, "cute_size": 1} in report["first"]
    assert td.compare([case], {}, [want])[0]["missing"] is True


def test_parse_output_reads_every_case() -> None:
    text = "noise\n@@CASE 0 2 3\n2 0 1\n2 5 6\n@@CASE 1 1 2\n1 9\n@@DONE\n"
    got = td.parse_output(text)
    assert got[0].tolist() == [[2, 0, 1], [2, 5, 6]] and got[1].tolist() == [[1, 9]]
