"""The GPU sweep's coordinate checks at the device's integer throughput, against numpy in the same run.

What is checked: composition's postcondition ``R(i) == A(B(i))`` for every ``i < size(B)``, at every assignment of
the composition cases of ``oracle/data/parametric_cases.json`` (their ranges, their assumptions) where the result
is correct, so every check is done and every one must hold (a planted wrong result must be caught: the run checks
that too).  ``R`` is the model's result, which the suite checks equal to compiled CuTe's at every one of these
assignments (``tests/test_engine_parametric.py`` through ``verifier.oracle.sweep``).

How: the assignments' layouts are kernel data (flattened modes, each extent with its division magic), so one
kernel serves every case in one launch; the work is cut into tiles of 128 consecutive coordinates of one assignment,
one tile per warp, and a persistent grid of warps walks the tiles (grid-stride): the whole device is busy, a warp
never diverges (ranks are uniform within a tile; a tile's last coordinates are predicated off) and no thread
searches for its assignment.  Divisions are multiply-high and shift (``fastdiv``), as CUTLASS's ``FastDivmod``.
Time: CUDA events around many launches, the median of
several such runs.  Integer operations per check: Nsight Compute's count of executed integer instructions
(``smsp__sass_thread_inst_executed_op_integer_pred_on.sum``) over one launch, divided by its checks.

    python -m cuda_harness.throughput prepare WORK.npz           # here: the workload (needs the verifier)
    python cuda_harness/throughput.py run WORK.npz --out R.json   # there: numpy + CuPy only
    python cuda_harness/throughput.py ncu WORK.npz                # one launch per kernel, for ncu

The device part imports nothing of this project, so the file runs alone on a machine with numpy and CuPy.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
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
"""


def _kernel(cp: object, triples: list[tuple[int, int, int]]) -> object:
    cases = "\n".join(f"      case {a * 100 + b * 10 + c}: miss += tile<{a}, {b}, {c}>(row, n, start, lane); break;"
                      for a, b, c in triples)
    src = (f"#define KMAX {KMAX}\n#define THREADS {THREADS}\n#define ITEMS {ITEMS}\n"
           + SOURCE.replace("CASES", cases).replace("LAUNCH_MIN_BLOCKS", f", {MIN_BLOCKS}" if MIN_BLOCKS else ""))
    return cp.RawModule(code=src, options=("-std=c++17",)).get_function("sweep_checks")  # type: ignore[attr-defined]


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


def run(work_path: Path, out: Path | None, repeats: int = 7, min_ms: float = 300.0) -> dict[str, object]:
    import cupy as cp  # type: ignore[import-not-found]

    work = dict(np.load(work_path))
    dev = cp.cuda.Device(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms, clock_hz = int(props["multiProcessorCount"]), int(props["clockRate"]) * 1000
    fn = _kernel(cp, _triples(work))
    args, ntiles = _device_data(cp, work)
    bad = args[-1]
    grid = min(sms * BLOCKS_PER_SM, ntiles)
    checks = int(work["sizes"].sum())

    def launch(a: tuple[object, ...] = args) -> None:
        fn((grid,), (THREADS,), a)  # type: ignore[operator]

    launch()
    dev.synchronize()
    failed = int(bad.get()[0])  # type: ignore[attr-defined]
    assert failed == 0, f"{failed} checks failed on the device"
    # A planted wrong result must be caught: one stride of R at the largest assignment, off by one.
    planted = args[0].copy()  # type: ignore[attr-defined]
    big = int(np.argmax(work["sizes"]))
    planted[big, planted_offset(work, big) % (3 * KMAX * 4)] += 1
    launch((planted, *args[1:]))
    dev.synchronize()
    caught = int(bad.get()[0])  # type: ignore[attr-defined]
    bad.fill(0)  # type: ignore[attr-defined]
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    launch()
    end.record()
    end.synchronize()
    one = max(cp.cuda.get_elapsed_time(start, end), 1e-3)
    reps = max(20, int(min_ms / one))
    times = []
    for _ in range(repeats):
        start.record()
        for _ in range(reps):
            launch()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3 / reps)
    assert int(bad.get()[0]) == 0  # type: ignore[attr-defined]
    t = statistics.median(times)
    np_base = _numpy_baseline(work, budget_s=20.0)
    name = props["name"]
    result: dict[str, object] = {
        "device": name.decode() if isinstance(name, bytes) else str(name),
        "sms": sms, "clock_hz": clock_hz, "grid": [grid, THREADS], "tile": TILE, "tiles": ntiles,
        "items": ITEMS, "min_blocks": MIN_BLOCKS, "registers": int(fn.num_regs),  # type: ignore[attr-defined]
        "assignments": int(len(work["sizes"])), "cases": sorted(set(str(c) for c in work["cases"])),
        "checks_per_sweep": checks, "launches_per_timed_run": reps, "timed_runs": repeats,
        "seconds_per_sweep": t, "seconds_spread": [min(times), max(times)], "checks_per_s": checks / t,
        "planted_mismatches_caught": caught, "numpy": np_base,
        "ratio_over_numpy": (checks / t) / np_base["checks_per_s"],
        "int32_bound_ops_per_s": sms * INT32_PER_CLOCK_PER_SM * clock_hz,
        "lane_bound_ops_per_s": sms * LANES_PER_SM * clock_hz,
    }
    if out is not None:
        out.write_text(json.dumps(result, indent=1))
    return result


def ncu_mode(work_path: Path) -> None:
    """One launch over the whole workload, for ``ncu`` to count its instructions."""
    import cupy as cp

    work = dict(np.load(work_path))
    props = cp.cuda.runtime.getDeviceProperties(0)
    fn = _kernel(cp, _triples(work))
    args, ntiles = _device_data(cp, work)
    fn((min(int(props["multiProcessorCount"]) * BLOCKS_PER_SM, ntiles),), (THREADS,), args)  # type: ignore[operator]
    cp.cuda.Device(0).synchronize()
    print(json.dumps({"kernel": "sweep_checks", "checks": int(work["sizes"].sum())}), flush=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"]:
        print(json.dumps(prepare(Path(argv[1]))))
        return 0
    if argv[:1] == ["run"]:
        out = Path(argv[3]) if len(argv) > 3 and argv[2] == "--out" else None
        r = run(Path(argv[1]), out)
        print(json.dumps({k: v for k, v in r.items() if k != "kernels"}, indent=1))
        return 0
    if argv[:1] == ["ncu"]:
        ncu_mode(Path(argv[1]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
