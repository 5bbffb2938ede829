"""cuda_harness.throughput's host part: the division magic, the lane-tile workload (every coordinate of every
assignment exactly once, warps uniform in ranks) and a CPU emulation of the ``sweep_lanes`` kernel, which must pass
every correct check and catch a planted wrong stride.  The GPU figures are recorded in docs/hardware.md."""

from __future__ import annotations

import numpy as np
import pytest

from cuda_harness import throughput as tp


def _row(*layouts: tuple[list[int], list[int]]) -> list[int]:
    row: list[int] = []
    for shape, stride in layouts:
        pad = tp.KMAX - len(shape)
        for ext, st in zip(shape + [1] * pad, stride + [0] * pad):
            m, lg = tp.magic(ext)
            row += [ext, st, m, lg]
    return row


def _work() -> dict[str, np.ndarray]:
    """Assignments with A∘B == R by construction: A the identity on B's image, or B the identity on A."""
    rows, sizes, ranks = [], [], []
    for m in range(1, 12):
        for n in range(1, 9):
            b = ([m, n], [n, 1])  # row-major (m,n)
            rows.append(_row(([m * n], [1]), b, b))
            sizes.append(m * n)
            ranks.append((1, 2, 2))
            a = ([m, n], [1, m + 3])  # padded column-major
            rows.append(_row(a, ([m * n], [1]), a))
            sizes.append(m * n)
            ranks.append((2, 1, 2))
    return {"params": np.array(rows, dtype=np.uint32), "sizes": np.array(sizes, dtype=np.int64),
            "ranks": np.array(ranks, dtype=np.int32)}


@pytest.mark.parametrize("d", [1, 2, 3, 7, 12, 100, 1000, 4096, 65537, (1 << 31) - 1])
def test_magic_divides_like_integer_division(d: int) -> None:
    m, lg = tp.magic(d)
    n = np.unique(np.concatenate([np.arange(0, 5000), np.random.default_rng(d).integers(0, 1 << 31, 5000),
                                  np.array([(1 << 31) - 1, d * 3, d * 3 - 1])])).astype(np.uint64)
    n = n[n < np.uint64(1 << 31)]  # the magic's domain: the kernel's coordinates and offsets are under 2**31
    q = (((n * np.uint64(m)) >> np.uint64(32)) + n) >> np.uint64(lg)
    assert np.array_equal(q, n // np.uint64(d))


@pytest.mark.parametrize("items", [1, 4, 16])
def test_lane_tiles_cover_every_coordinate_once(items: int) -> None:
    work = _work()
    desc, wcode, stats = tp.lane_tiles(work["sizes"], work["ranks"], items)
    assert len(desc) % 32 == 0 and len(wcode) == len(desc) // 32
    seen = np.zeros((len(work["sizes"]), int(work["sizes"].max())), dtype=np.int64)
    start, valid = desc[:, 1] & 0xFFFFFF, desc[:, 1] >> 24
    for a, s, v in zip(desc[:, 0], start, valid):
        seen[a, s:s + v] += 1
    for a, n in enumerate(work["sizes"]):
        assert (seen[a, :n] == 1).all() and (seen[a, n:] == 0).all()
    code = (work["ranks"] * np.array([100, 10, 1])).sum(axis=1)
    assert (code[desc[:, 0]] == np.repeat(wcode, 32)).all()  # a warp tile is uniform in ranks
    assert stats["checks"] == int(work["sizes"].sum()) <= stats["slots"]


@pytest.mark.parametrize("items", [4, 16])
def test_emulated_kernel_passes_correct_checks_and_catches_a_planted_stride(items: int) -> None:
    work = _work()
    desc, wcode, _ = tp.lane_tiles(work["sizes"], work["ranks"], items)
    assert tp.emulate_lane_tiles(work, desc, wcode, items) == 0
    big = int(np.argmax(work["sizes"]))
    planted = work["params"].copy()
    planted.reshape(-1)[tp.planted_offset(work, big)] += 1
    assert tp.emulate_lane_tiles({**work, "params": planted}, desc, wcode, items) > 0


def test_kernel_source_has_a_case_per_rank_triple_in_both_designs() -> None:
    src = tp.kernel_source([(1, 2, 2), (2, 2, 4)], items=16)
    assert "#define ITEMS 16" in src
    for code, args in (("122", "1, 2, 2"), ("224", "2, 2, 4")):
        assert f"case {code}: miss += tile<{args}>(row, n, start, lane)" in src
        assert f"case {code}: miss += lane_tile<{args}>(params, d)" in src
    assert "__launch_bounds__(THREADS , 6)" not in src
    assert "__launch_bounds__(THREADS , 6)" in tp.kernel_source([(1, 2, 2)], items=8, min_blocks=6).replace(
        "THREADS, 6", "THREADS , 6")
