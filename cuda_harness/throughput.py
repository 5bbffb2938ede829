"""The GPU sweep's coordinate checks at the device's integer throughput, against numpy in the same run.

What is checked: composition's postcondition ``R(i) == A(B(i))`` for every ``i < size(B)``, at every assignment of
the composition cases of ``oracle/data/parametric_cases.json`` (their ranges, their assumptions) where the result
is correct, so every check is done and every one must hold (a planted wrong result must be caught: the run checks
that too).  ``R`` is the model's result, which the suite checks equal to compiled CuTe's at every one of these
assignments (``tests/engine/test_engine_parametric.py`` through ``verifier.oracle.sweep``).

How: the assignments' layouts are kernel data (flattened modes, each extent with its division magic), so one
kernel serves every case in one launch.  ``sweep_lanes`` (the default design) grid-strides over lane tiles: ITEMS
consecutive coordinates of one assignment per lane, the 32 lanes of a warp holding assignments of the same ranks
(the pairs sorted by rank triple and padded to whole warps), so the ``switch`` on the ranks is uniform and no warp
diverges; the grid is the device's resident blocks, and one launch may run the sweep ``reps`` times (a long run,
free of launch gaps, ramp and tail).  ``sweep_checks`` is the first 2026-11-24 design (a warp tile of 128
coordinates of one assignment), kept to measure the before in the same run.  Divisions are multiply-high and shift
(``fastdiv``), as CUTLASS's ``FastDivmod``.  Time: CUDA events around many launches (one sweep each) and around
long launches, the median of several such runs.  Integer operations per check: Nsight Compute's count of executed
integer instructions (``smsp__sass_thread_inst_executed_op_integer_pred_on.sum``) over one launch, divided by its
checks; and, from the generated code, the integer SASS instructions one more check adds (``sass``).

    python -m cuda_harness.throughput prepare WORK.npz           # here: the workload (needs the verifier)
    python cuda_harness/throughput.py run WORK.npz --out R.json [--variants 16:0,32:0]   # there: numpy + CuPy
    python cuda_harness/throughput.py ncu WORK.npz lanes ITEMS REPS MIN_BLOCKS   # one launch, for ncu
    python cuda_harness/throughput.py sass WORK.npz               # nvcc + cuobjdump: integer SASS per check

The device part imports nothing of this project, so the file runs alone on a machine with numpy and CuPy.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

KMAX = 4            # modes per layout (flattened); a case with more is left out, and the record says so
THREADS = 256       # threads per block
ITEMS = int(os.environ.get("SWEEP_ITEMS", 4))  # coordinates per lane per tile
MIN_BLOCKS = int(os.environ.get("SWEEP_MIN_BLOCKS", 0))  # __launch_bounds__'s second argument (0: none)
TILE = 32 * ITEMS   # a tile is one warp's: 128 consecutive coordinates of one assignment (half the assignments
                    # have 16 coordinates or fewer, so a block-wide tile would idle most lanes)
BLOCKS_PER_SM = 8
INT32_PER_CLOCK_PER_SM = 64  # CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 9.0
LANES_PER_SM = 128           # the bound: 132 SMs x 128 lanes = 16,896 integer lanes


# -- the workload (host, needs the verifier) ----------------------------------------------------------------------


def _flat(layout: object) -> tuple[list[int], list[int]]:
    from verifier.core.int_tuple import leaves

    return ([int(x) for x in leaves(layout.shape)], [int(x) for x in leaves(layout.stride)])  # type: ignore[attr-defined]


def magic(d: int) -> tuple[int, int]:
    """(m, l) with ``n // d == (umulhi(n, m) + n) >> l`` for every ``0 <= n < 2**31`` (``1 <= d < 2**31``)."""
    lg = (d - 1).bit_length()
    return ((1 << 32) * ((1 << lg) - d) // d + 1) & 0xFFFFFFFF, lg


def prepare(path: Path) -> dict[str, object]:
    """Every assignment of every composition case where the model's result is correct, as kernel data."""
    from verifier.algebra.ops import composition
    from verifier.core.errors import LayoutError, UndefinedBehavior
    from verifier.core.layouts import Layout
    from verifier.oracle.corpora import PARAMETRIC_CORPUS, load, parametric, parametric_assignments

    corpus = load(PARAMETRIC_CORPUS)
    rows: list[list[int]] = []
    sizes: list[int] = []
    ranks: list[tuple[int, int, int]] = []
    cases: list[str] = []
    left_out: dict[str, str] = {}
    for e in corpus:
        if e["op"] != "composition":
            continue
        _, (a, b), _ = parametric(e)
        if not (isinstance(a, Layout) and isinstance(b, Layout)):
            left_out[e["id"]] = "a by-mode tiler, not a layout"
            continue
        kept = 0
        for env in parametric_assignments(e):
            aa, bb = a.substitute(env), b.substitute(env)
            try:
                rr = composition(aa, bb)
            except (LayoutError, UndefinedBehavior, ArithmeticError):
                continue
            fa, fb, fr = _flat(aa), _flat(bb), _flat(rr)
            n = int(np.prod(fb[0]))
            if n < 1 or max(len(fa[0]), len(fb[0]), len(fr[0])) > KMAX:
                continue
            if min(fa[1] + fb[1] + fr[1] + fa[0] + fb[0] + fr[0]) < 0:
                continue
            i = np.arange(n, dtype=np.int64)
            x, r = _np_eval(fa, _np_eval(fb, i)), _np_eval(fr, i)
            if int(np.prod(fr[0])) != n or not np.array_equal(r, x):
                continue  # CuTe's result is wrong here: not a throughput point
            if max(int(x.max()), int(_np_eval(fb, i).max())) >= 2**31:
                continue  # the kernel computes in 32 bits
            row: list[int] = []
            for s, d in (fa, fb, fr):
                pad = KMAX - len(s)
                for ext, st in zip(s + [1] * pad, d + [0] * pad):
                    m, lg = magic(ext)
                    row += [ext, st, m, lg]
            rows.append(row)
            sizes.append(n)
            ranks.append((len(fa[0]), len(fb[0]), len(fr[0])))
            cases.append(e["id"])
            kept += 1
        if not kept:
            left_out[e["id"]] = "no assignment where the result is correct and every value fits"
    np.savez_compressed(path, params=np.array(rows, dtype=np.uint32), sizes=np.array(sizes, dtype=np.int64),
                        ranks=np.array(ranks, dtype=np.int32), cases=np.array(cases))
    return {"assignments": len(rows), "checks": int(sum(sizes)), "left_out": left_out}


def _np_eval(flat: tuple[list[int], list[int]], i: np.ndarray) -> np.ndarray:
    """CuTe's ``L(i)`` of a flat layout: colexicographic digits, the last mode taking the rest (no modulo)."""
    shape, stride = list(flat[0]), list(flat[1])
    out = np.zeros_like(i)
    for k, (s, d) in enumerate(zip(shape, stride)):
        if k + 1 == len(shape):
            out += i * d
        else:
            out += (i % s) * d
            i = i // s
    return out


# -- the device part (numpy + CuPy only) --------------------------------------------------------------------------

SOURCE = r"""
typedef unsigned int u32;
__device__ __forceinline__ u32 fastdiv(u32 n, u32 m, u32 l) { return (__umulhi(n, m) + n) >> l; }

// One layout at a 1-D coordinate: K flat modes, each (extent, stride, magic, shift); the last mode takes the rest
// of the coordinate, as CuTe's does.
template <int K>
__device__ __forceinline__ u32 eval(const uint4 (&p)[KMAX], u32 n) {
  u32 acc = 0;
#pragma unroll
  for (int k = 0; k + 1 < K; ++k) {
    u32 q = fastdiv(n, p[k].z, p[k].w);
    acc += (n - q * p[k].x) * p[k].y;
    n = q;
  }
  return acc + n * p[K - 1].y;
}

// One warp's tile: 32 * ITEMS consecutive coordinates of one assignment, whose ranks are KA, KB, KR.
template <int KA, int KB, int KR>
__device__ __forceinline__ u32 tile(const uint4* __restrict__ row, u32 n, u32 start, int lane) {
  uint4 pa[KMAX], pb[KMAX], pr[KMAX];
#pragma unroll
  for (int k = 0; k < KA; ++k) pa[k] = __ldg(row + 0 * KMAX + k);
#pragma unroll
  for (int k = 0; k < KB; ++k) pb[k] = __ldg(row + 1 * KMAX + k);
#pragma unroll
  for (int k = 0; k < KR; ++k) pr[k] = __ldg(row + 2 * KMAX + k);
  u32 miss = 0;
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const u32 i = start + it * 32 + lane;
    const u32 x = eval<KA>(pa, eval<KB>(pb, i));
    const u32 r = eval<KR>(pr, i);
    miss += (u32)((x != r) & (i < n));
  }
  return miss;
}

extern "C" __global__ void __launch_bounds__(THREADS LAUNCH_MIN_BLOCKS)
sweep_checks(const uint4* __restrict__ params, const int* __restrict__ ranks, const int* __restrict__ tile_assign,
             const int* __restrict__ tile_start, const int* __restrict__ sizes, int ntiles,
             unsigned long long* bad) {
  u32 miss = 0;
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (THREADS / 32);
  for (int t = blockIdx.x * (THREADS / 32) + (threadIdx.x >> 5); t < ntiles; t += warps) {
    const int a = tile_assign[t];
    const uint4* row = params + (size_t)a * (3 * KMAX);
    const u32 n = (u32)sizes[a], start = (u32)tile_start[t];
    switch (__ldg(ranks + a)) {  // the ranks as one number, uniform within the warp: no divergence
CASES
    }
  }
  if (miss) atomicAdd(bad, (unsigned long long)miss);
}

// One lane's tile: ITEMS consecutive coordinates of one assignment (d.x), from d.y & 0xFFFFFF; the first d.y >> 24
// of them exist.  The lanes of a warp may hold different assignments, all of ranks KA, KB, KR.
template <int KA, int KB, int KR>
__device__ __forceinline__ u32 lane_tile(const uint4* __restrict__ params, int2 d) {
  const uint4* row = params + (size_t)d.x * (3 * KMAX);
  uint4 pa[KMAX], pb[KMAX], pr[KMAX];
#pragma unroll
  for (int k = 0; k < KA; ++k) pa[k] = __ldg(row + 0 * KMAX + k);
#pragma unroll
  for (int k = 0; k < KB; ++k) pb[k] = __ldg(row + 1 * KMAX + k);
#pragma unroll
  for (int k = 0; k < KR; ++k) pr[k] = __ldg(row + 2 * KMAX + k);
  const u32 start = (u32)d.y & 0xFFFFFFu, valid = (u32)d.y >> 24;
  u32 miss = 0;
#pragma unroll
  for (u32 it = 0; it < ITEMS; ++it) {
    const u32 i = start + it;
    const u32 x = eval<KA>(pa, eval<KB>(pb, i));
    const u32 r = eval<KR>(pr, i);
    miss += (u32)((x != r) & (it < valid));
  }
  return miss;
}

// Grid-stride over warp tiles of 32 lane tiles (assignment x coordinate pairs), `reps` times over the workload.
// Warp tiles are sorted by ranks, so the switch is uniform within a warp: no divergence.
extern "C" __global__ void __launch_bounds__(THREADS LAUNCH_MIN_BLOCKS)
sweep_lanes(const uint4* __restrict__ params, const int2* __restrict__ desc, const int* __restrict__ wcode,
            int nwarp_tiles, int reps, unsigned long long* bad) {
  u32 miss = 0;
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (THREADS / 32);
  const int first = blockIdx.x * (THREADS / 32) + (threadIdx.x >> 5);
  // One stride through reps x nwarp_tiles, so that no warp does a tile more than another in every repetition.
  int w = first % nwarp_tiles;
  for (long long t = first; t < (long long)reps * nwarp_tiles; t += warps) {
    const int2 d = desc[(size_t)w * 32 + lane];
    switch (__ldg(wcode + w)) {
LANE_CASES
    }
    for (w += warps; w >= nwarp_tiles; w -= nwarp_tiles) {}
  }
  if (miss) atomicAdd(bad, (unsigned long long)miss);
}
"""


def kernel_source(triples: list[tuple[int, int, int]], items: int = ITEMS, min_blocks: int = MIN_BLOCKS) -> str:
    """The CUDA source of both kernels, ``sweep_checks`` (warp tiles of one assignment) and ``sweep_lanes`` (lane
    tiles), specialised for the rank ``triples`` of the workload and ``items`` coordinates per lane."""
    cases = "\n".join(f"      case {a * 100 + b * 10 + c}: miss += tile<{a}, {b}, {c}>(row, n, start, lane); break;"
                      for a, b, c in triples)
    lane_cases = "\n".join(f"      case {a * 100 + b * 10 + c}: miss += lane_tile<{a}, {b}, {c}>(params, d); break;"
                           for a, b, c in triples)
    return (f"#define KMAX {KMAX}\n#define THREADS {THREADS}\n#define ITEMS {items}\n"
            + SOURCE.replace("LANE_CASES", lane_cases).replace("CASES", cases)
            .replace("LAUNCH_MIN_BLOCKS", f", {min_blocks}" if min_blocks else ""))


def _kernel(cp: object, triples: list[tuple[int, int, int]], items: int = ITEMS, min_blocks: int = MIN_BLOCKS,
            name: str = "sweep_checks") -> object:
    src = kernel_source(triples, items, min_blocks)
    return cp.RawModule(code=src, options=("-std=c++17",)).get_function(name)  # type: ignore[attr-defined]


def lane_tiles(sizes: np.ndarray, ranks: np.ndarray, items: int) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """The lane-tile workload: ``desc`` (int32 pairs: assignment, ``start | valid << 24``), one per lane, in warp
    tiles of 32 that share their ranks (``wcode``, one per warp tile: ``100 KA + 10 KB + KR``).  Every coordinate
    of every assignment is in exactly one lane tile; a group of equal ranks is padded to whole warp tiles with
    lane tiles of no valid coordinate."""
    if items > 255 or int(sizes.max(initial=0)) >= 1 << 24:
        raise ValueError("lane tiles hold at most 255 coordinates of assignments under 2**24 coordinates")
    code = (ranks.astype(np.int64) * np.array([100, 10, 1])).sum(axis=1)
    desc_parts: list[np.ndarray] = []
    wcode_parts: list[np.ndarray] = []
    for c in np.unique(code):
        picked = np.flatnonzero(code == c)
        per = (sizes[picked] + items - 1) // items
        a = np.repeat(picked, per)
        start = np.arange(len(a)) - np.repeat(np.cumsum(per) - per, per)
        start *= items
        valid = np.minimum(items, np.repeat(sizes[picked], per) - start)
        pad = -len(a) % 32
        a = np.concatenate([a, np.full(pad, picked[-1])])
        start = np.concatenate([start, np.zeros(pad, dtype=np.int64)])
        valid = np.concatenate([valid, np.zeros(pad, dtype=np.int64)])
        desc_parts.append(np.stack([a, start | (valid << 24)], axis=1))
        wcode_parts.append(np.full(len(a) // 32, c))
    desc = np.concatenate(desc_parts).astype(np.int32)
    slots = len(desc) * items
    return desc, np.concatenate(wcode_parts).astype(np.int32), {"lane_tiles": len(desc), "slots": slots,
                                                                "checks": int(sizes.sum())}


def emulate_lane_tiles(work: dict[str, np.ndarray], desc: np.ndarray, wcode: np.ndarray, items: int) -> int:
    """What ``sweep_lanes`` computes, on the CPU (numpy, uint32 as the kernel does): the number of failed checks.
    Lets the suite check the workload, the division magic and the masking without a GPU."""
    p = work["params"].reshape(len(work["sizes"]), 3, KMAX, 4).astype(np.uint64)
    a = desc[:, 0].astype(np.int64)
    start = desc[:, 1].astype(np.int64) & 0xFFFFFF
    valid = desc[:, 1].astype(np.int64) >> 24
    lane_code = np.repeat(wcode, 32)
    miss = 0
    mask32 = np.uint64(0xFFFFFFFF)

    def ev(which: int, k: int, rows: np.ndarray, n: np.ndarray) -> np.ndarray:
        acc = np.zeros_like(n)
        for m in range(k - 1):
            ext, st, mg, lg = (p[rows, which, m, f] for f in range(4))
            q = (((n * mg) >> np.uint64(32)) + n) >> lg
            acc = (acc + ((n - q * ext) & mask32) * st) & mask32
            n = q
        return (acc + n * p[rows, which, k - 1, 1]) & mask32

    for c in np.unique(wcode):
        sel = lane_code == c
        ka, kb, kr = int(c) // 100, int(c) // 10 % 10, int(c) % 10
        for it in range(items):
            use = sel & (it < valid)
            rows = a[use]
            i = (start[use] + it).astype(np.uint64)
            miss += int(np.count_nonzero(ev(0, ka, rows, ev(1, kb, rows, i)) != ev(2, kr, rows, i)))
    return miss


def _triples(work: dict[str, np.ndarray]) -> list[tuple[int, int, int]]:
    return sorted({(int(a), int(b), int(c)) for a, b, c in work["ranks"]})


def _tiles(sizes: np.ndarray, picked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tiles of ``TILE`` consecutive coordinates of one assignment each."""
    assign, start = [], []
    for a in picked:
        for s in range(0, int(sizes[a]), TILE):
            assign.append(a)
            start.append(s)
    return np.array(assign, dtype=np.int32), np.array(start, dtype=np.int32)


def _numpy_baseline(work: dict[str, np.ndarray], budget_s: float) -> dict[str, float]:
    """The same checks with numpy (vectorised per assignment, int64), as many assignments as the budget allows."""
    p = work["params"].astype(np.int64).reshape(len(work["sizes"]), 3, KMAX, 4)
    order = np.random.default_rng(8).permutation(len(work["sizes"]))
    done = checks = 0
    t0 = time.perf_counter()
    for a in order:
        n = int(work["sizes"][a])
        i = np.arange(n, dtype=np.int64)
        ka, kb, kr = (int(x) for x in work["ranks"][a])
        fa, fb, fr = ((list(p[a, k, :r, 0]), list(p[a, k, :r, 1])) for k, r in ((0, ka), (1, kb), (2, kr)))
        ok = np.array_equal(_np_eval(fr, i), _np_eval(fa, _np_eval(fb, i)))
        assert ok, f"numpy: a check fails at assignment {a}"
        done += 1
        checks += n
        if time.perf_counter() - t0 > budget_s:
            break
    dt = time.perf_counter() - t0
    return {"assignments": done, "checks": checks, "seconds": dt, "checks_per_s": checks / dt}


def _device_data(cp: object, work: dict[str, np.ndarray]) -> tuple[tuple[object, ...], int]:
    ta, ts = _tiles(work["sizes"], np.arange(len(work["sizes"])))
    code = (work["ranks"] * np.array([100, 10, 1])).sum(axis=1).astype(np.int32)
    args = (cp.asarray(work["params"]), cp.asarray(code), cp.asarray(ta),  # type: ignore
            cp.asarray(ts), cp.asarray(work["sizes"].astype(np.int32)), np.int32(len(ta)),  # type: ignore
            cp.zeros(1, dtype=cp.uint64))  # type: ignore[attr-defined]
    return args, len(ta)


def planted_offset(work: dict[str, np.ndarray], a: int) -> int:
    """The offset in ``params`` of the stride of R's last mode of extent > 1 at assignment ``a``."""
    row = work["params"][a].reshape(3, KMAX, 4)
    k = max(k for k in range(int(work["ranks"][a][2])) if int(row[2, k, 0]) > 1)
    return a * 3 * KMAX * 4 + (2 * KMAX + k) * 4 + 1


def _occupancy(cp: object, fn: object, threads: int) -> int:
    """Resident blocks per SM for ``fn`` (the driver's occupancy calculator; else from its registers)."""
    try:
        return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, threads, 0))  # type: ignore
    except Exception:  # noqa: BLE001 - older CuPy: count registers (64 K per SM, 256-register granules per warp)
        per_warp = -(-int(fn.num_regs) * 32 // 256) * 256  # type: ignore[attr-defined]
        return max(1, min(2048 // threads, 65536 // (per_warp * (threads // 32))))


def _sm_clock_mhz() -> int | None:
    """The SM clock now (NVML), read while the timed kernels run."""
    try:
        import pynvml  # type: ignore[import-not-found]

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        return int(pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM))
    except Exception:  # noqa: BLE001 - no NVML: the record says so
        return None


def _timed(cp: object, launch: object, reps: int, repeats: int) -> tuple[float, list[float], list[int]]:
    """Median seconds per call of ``launch`` over ``repeats`` runs of ``reps`` back-to-back calls (CUDA events),
    with the SM clock read during each run."""
    start, end = cp.cuda.Event(), cp.cuda.Event()  # type: ignore[attr-defined]
    times, clocks = [], []
    for _ in range(repeats):
        start.record()
        for _ in range(reps):
            launch()  # type: ignore[operator]
        end.record()
        mhz = _sm_clock_mhz()
        if mhz:
            clocks.append(mhz)
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / reps)  # type: ignore[attr-defined]
    return statistics.median(times), times, clocks


def _planted(work: dict[str, np.ndarray], params: object) -> object:
    """``params`` with one stride of R, at the largest assignment, off by one."""
    planted = params.copy()  # type: ignore[attr-defined]
    big = int(np.argmax(work["sizes"]))
    planted[big, planted_offset(work, big) % (3 * KMAX * 4)] += 1  # type: ignore[index]
    return planted


def _lane_variant(cp: object, work: dict[str, np.ndarray], params: object, triples: list[tuple[int, int, int]],
                  items: int, min_blocks: int, sms: int, repeats: int, min_ms: float,
                  long_ms: float) -> list[dict[str, object]]:
    """The lane-tile kernel at ``items`` coordinates per lane: checked, planted bug caught, timed one sweep a
    launch and many sweeps in one launch."""
    dev = cp.cuda.Device(0)  # type: ignore[attr-defined]
    checks = int(work["sizes"].sum())
    desc_np, wcode_np, stats = lane_tiles(work["sizes"], work["ranks"], items)
    fn = _kernel(cp, triples, items=items, min_blocks=min_blocks, name="sweep_lanes")
    occ = _occupancy(cp, fn, THREADS)
    nwt = len(wcode_np)
    grid = max(1, min(sms * occ, -(-nwt // (THREADS // 32))))
    desc, wcode = cp.asarray(desc_np), cp.asarray(wcode_np)  # type: ignore[attr-defined]
    bad = cp.zeros(1, dtype=cp.uint64)  # type: ignore[attr-defined]

    def launch(reps: int = 1, prm: object = params) -> None:
        fn((grid,), (THREADS,), (prm, desc, wcode, np.int32(nwt), np.int32(reps), bad))  # type: ignore[operator]

    launch()
    dev.synchronize()
    assert int(bad.get()[0]) == 0, f"the lane-tile kernel ({items}) fails a check"
    launch(1, _planted(work, params))
    dev.synchronize()
    caught = int(bad.get()[0])
    bad.fill(0)
    t1, times1, clocks1 = _timed(cp, launch, max(20, int(min_ms * 1e-3 / 30e-6)), repeats)
    long_reps = max(8, int(long_ms * 1e-3 / t1))
    tl, timesl, clocksl = _timed(cp, lambda: launch(long_reps), 1, repeats)
    tl /= long_reps
    assert int(bad.get()[0]) == 0
    common = {"design": "lane tiles", "items": items, "min_blocks": min_blocks, "grid": [grid, THREADS],
              "resident_blocks_per_sm": occ,
              "registers": int(fn.num_regs), "planted_mismatches_caught": caught, **stats}  # type: ignore
    return [{**common, "timing": "one sweep a launch", "seconds_per_sweep": t1,
             "seconds_spread": [min(times1), max(times1)], "checks_per_s": checks / t1, "sm_clock_mhz": clocks1},
            {**common, "timing": f"{long_reps} sweeps in one launch", "seconds_per_sweep": tl,
             "seconds_spread": [min(timesl) / long_reps, max(timesl) / long_reps],
             "checks_per_s": checks / tl, "sm_clock_mhz": clocksl, "reps": long_reps}]


def run(work_path: Path, out: Path | None, lane_variants: Sequence[tuple[int, int]] = ((8, 0), (16, 0), (32, 0)),
        repeats: int = 7,
        min_ms: float = 200.0, long_ms: float = 40.0) -> dict[str, object]:
    """Every design in one process: the warp-tile kernel of the 2026-11-24 run (grid 8 blocks per SM, one sweep a
    launch: the "before") and the lane-tile kernel for each ``items`` (grid = resident blocks), timed one sweep a
    launch over many launches and ``reps`` sweeps in one launch (a long run: no launch gaps, ramp or tail), each
    with its planted bug; then numpy on the same checks.  ``lane_variants``: (items, min_blocks) pairs,
    ``min_blocks`` being ``__launch_bounds__``'s second argument (0: none)."""
    import cupy as cp  # type: ignore[import-not-found]

    work = dict(np.load(work_path))
    dev = cp.cuda.Device(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms, clock_hz = int(props["multiProcessorCount"]), int(props["clockRate"]) * 1000
    checks = int(work["sizes"].sum())
    triples = _triples(work)
    variants: list[dict[str, object]] = []

    # before: the warp-tile kernel exactly as run on 2026-11-24
    fn = _kernel(cp, triples, items=4, min_blocks=0, name="sweep_checks")
    args, ntiles = _device_data(cp, work)
    bad = args[-1]
    grid = min(sms * BLOCKS_PER_SM, ntiles)

    def launch_warp(a: tuple[object, ...] = args) -> None:
        fn((grid,), (THREADS,), a)  # type: ignore[operator]

    launch_warp()
    dev.synchronize()
    assert int(bad.get()[0]) == 0, "the warp-tile kernel fails a check"  # type: ignore[attr-defined]
    launch_warp((_planted(work, args[0]), *args[1:]))
    dev.synchronize()
    caught = int(bad.get()[0])  # type: ignore[attr-defined]
    bad.fill(0)  # type: ignore[attr-defined]
    t, times, clocks = _timed(cp, launch_warp, 2000, repeats)
    assert int(bad.get()[0]) == 0  # type: ignore[attr-defined]
    variants.append({"design": "warp tiles (2026-11-24)", "items": 4, "grid": [grid, THREADS],
                     "resident_blocks_per_sm": _occupancy(cp, fn, THREADS),
                     "registers": int(fn.num_regs),  # type: ignore[attr-defined]
                     "timing": "one sweep a launch", "seconds_per_sweep": t, "seconds_spread": [min(times), max(times)],
                     "checks_per_s": checks / t, "planted_mismatches_caught": caught, "sm_clock_mhz": clocks,
                     "slots": ntiles * 4 * 32})

    params = cp.asarray(work["params"])
    for items, min_blocks in lane_variants:
        variants += _lane_variant(cp, work, params, triples, items, min_blocks, sms, repeats, min_ms, long_ms)
    np_base = _numpy_baseline(work, budget_s=20.0)
    name = props["name"]
    result: dict[str, object] = {
        "device": name.decode() if isinstance(name, bytes) else str(name),
        "sms": sms, "clock_hz": clock_hz, "threads": THREADS,
        "assignments": int(len(work["sizes"])), "cases": sorted(set(str(c) for c in work["cases"])),
        "checks_per_sweep": checks, "timed_runs": repeats, "variants": variants, "numpy": np_base,
        "int32_bound_ops_per_s": sms * INT32_PER_CLOCK_PER_SM * clock_hz,
        "lane_bound_ops_per_s": sms * LANES_PER_SM * clock_hz,
    }
    if out is not None:
        out.write_text(json.dumps(result, indent=1))
    return result


def ncu_mode(work_path: Path, design: str, items: int, reps: int, min_blocks: int = 0) -> None:
    """One launch of one design (``warp`` or ``lanes``), for ``ncu`` to count its instructions."""
    import cupy as cp

    work = dict(np.load(work_path))
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = int(props["multiProcessorCount"])
    if design == "warp":
        fn = _kernel(cp, _triples(work), items=4, name="sweep_checks")
        args, ntiles = _device_data(cp, work)
        fn((min(sms * BLOCKS_PER_SM, ntiles),), (THREADS,), args)  # type: ignore[operator]
        slots = ntiles * 4 * 32
    else:
        desc, wcode, stats = lane_tiles(work["sizes"], work["ranks"], items)
        fn = _kernel(cp, _triples(work), items=items, min_blocks=min_blocks, name="sweep_lanes")
        grid = max(1, min(sms * _occupancy(cp, fn, THREADS), -(-len(wcode) // (THREADS // 32))))
        fn((grid,), (THREADS,), (cp.asarray(work["params"]), cp.asarray(desc), cp.asarray(wcode),  # type: ignore
                                 np.int32(len(wcode)), np.int32(reps), cp.zeros(1, dtype=cp.uint64)))
        slots = stats["slots"]
    cp.cuda.Device(0).synchronize()
    print(json.dumps({"design": design, "items": items, "min_blocks": min_blocks, "reps": reps,
                      "checks": int(work["sizes"].sum()),
                      "slots": slots}), flush=True)


INTEGER_OPCODES = ("IMAD", "IADD3", "IADD", "LOP3", "LOP", "SHF", "SHL", "SHR", "ISETP", "SEL", "LEA", "IMNMX",
                   "IABS", "PRMT", "BMSK", "FLO", "POPC", "BREV", "VIADD", "IDP", "ICMP")


def sass_counts(triples: list[tuple[int, int, int]], items_list: tuple[int, ...] = (8, 16),
                arch: str = "sm_90") -> dict[str, object]:
    """Integer instructions per check from the generated code: ``sweep_lanes`` compiled by nvcc for one rank triple
    at two ``items`` values; the difference of each opcode's count in the SASS (cuobjdump), over the difference
    of ``items``, is what one more check costs (the unrolled evaluation), free of the per-tile overhead."""
    import re
    import subprocess
    import tempfile

    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for tr in triples:
            counts = []
            for items in items_list:
                cu, cubin = Path(tmp) / "k.cu", Path(tmp) / "k.cubin"
                cu.write_text(kernel_source([tr], items, 0))
                subprocess.run(["nvcc", "-cubin", f"-arch={arch}", "-O3", str(cu), "-o", str(cubin)], check=True)
                sass = subprocess.run(["cuobjdump", "-sass", "-fun", "sweep_lanes", str(cubin)], check=True,
                                      capture_output=True, text=True).stdout
                ops: dict[str, int] = {}
                for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass):
                    ops[m.group(1)] = ops.get(m.group(1), 0) + 1
                counts.append(ops)
            span = items_list[-1] - items_list[0]
            per = {op: (counts[-1].get(op, 0) - counts[0].get(op, 0)) / span
                   for op in set(counts[0]) | set(counts[-1])}
            per = {k: v for k, v in sorted(per.items()) if v}
            moves = sum(v for k, v in per.items() if k.startswith(("IMAD.MOV", "MOV", "HFMA2.MMA")))
            integer = sum(v for k, v in per.items() if k.split(".")[0] in INTEGER_OPCODES)
            out[f"{tr[0]}{tr[1]}{tr[2]}"] = {"per_check": per, "integer_per_check": integer,
                                            "integer_arithmetic_per_check": integer - sum(
                                                v for k, v in per.items() if k.startswith("IMAD.MOV")),
                                            "moves_per_check": moves, "all_per_check": sum(per.values())}
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"]:
        print(json.dumps(prepare(Path(argv[1]))))
        return 0
    if argv[:1] == ["run"]:
        out = Path(argv[3]) if len(argv) > 3 and argv[2] == "--out" else None
        pairs = argv[argv.index("--variants") + 1] if "--variants" in argv else "8:0,16:0,32:0"
        r = run(Path(argv[1]), out, [(int(a), int(b)) for a, b in (x.split(":") for x in pairs.split(","))])
        for v in r["variants"]:  # type: ignore[attr-defined]
            print(f"{v['design']:26s} items {v['items']:2d}/{v.get('min_blocks', 0)} regs {v['registers']:3d}"
                  f" occ {v['resident_blocks_per_sm']}"
                  f" {v['timing']:28s} {v['seconds_per_sweep'] * 1e6:8.2f} us  {v['checks_per_s']:.3e} checks/s"
                  f"  planted {v['planted_mismatches_caught']}  clk {v['sm_clock_mhz'][:2]}")
        print("numpy", r["numpy"])
        return 0
    if argv[:1] == ["ncu"]:
        ncu_mode(Path(argv[1]), argv[2] if len(argv) > 2 else "lanes", int(argv[3]) if len(argv) > 3 else 8,
                 int(argv[4]) if len(argv) > 4 else 1, int(argv[5]) if len(argv) > 5 else 0)
        return 0
    if argv[:1] == ["sass"]:
        work = dict(np.load(argv[1]))
        print(json.dumps(sass_counts(_triples(work)), indent=1))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
