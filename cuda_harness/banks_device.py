"""Bank conflicts on the device: ``verifier.engine.banks``' wavefront counts against the hardware's, per pattern.

For each access pattern (a shared-memory layout ``SMEM``, an ``ACCESS`` layout of one instruction's threads, the
element and access widths, a coordinate offset), the host computes every thread's byte address with
``verifier.engine.banks.address`` and the model's wavefronts for the instruction (the sum over its phases of
``verifier.engine.banks.count``).  On the GPU one warp accesses those addresses, one launch per pattern and
instruction (``launches``): ``ld.volatile.shared`` and ``st.volatile.shared`` of the access width, ``REPS`` a
launch, the threads outside ``ACCESS`` predicated off; ``ldmatrix.x1/x2/x4`` for 128-bit patterns of 8, 16 or 32
threads, whose row addresses they are (ptxas merges repeated ``ldmatrix`` into one, which the instruction count
shows); ``cp.async`` for 32-, 64- and 128-bit patterns.  Nsight Compute counts each launch's shared-memory
wavefronts (``METRICS``) and instructions: wavefronts per instruction, to compare with the model's (``compare``).

    python -m cuda_harness.banks_device emit PATTERNS.json            # here (needs the verifier)
    ncu --csv --log-file N.csv --metrics ... python cuda_harness/banks_device.py run PATTERNS.json  # there
    python -m cuda_harness.banks_device compare PATTERNS.json N.csv   # match the launches, per-pattern verdicts

The device part (``run``) needs numpy and CuPy only.
"""

from __future__ import annotations

import csv
import json
import random
import sys
from pathlib import Path

REPS = 64
SMEM_BYTES = 48 * 1024
METRICS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
           "smsp__inst_executed_op_shared_ld.sum",
           "smsp__inst_executed_op_shared_st.sum",
           "smsp__inst_executed_op_ldsm.sum",
           "smsp__inst_executed_op_ldgsts.sum")

# Named patterns: (name, SMEM, ACCESS, element bits, access bits, offset)
SM80_SA = "Sw<3,3,3> o _0 o ((_8,_16),((_8,_8),_1),(_1,_3)):((_8,_512),((_1,_64),_0),(_0,_8192))"
NAMED: tuple[tuple[str, str, str, int, int, int], ...] = (
    ("issue 19: ldmatrix of an 8x8 b16 matrix, row-major (8,64)", "(_8,_64):(_64,_1)", "8:_1", 16, 128, 0),
    ("issue 19: the same, Sw<3,3,3>", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", "8:_1", 16, 128, 0),
    ("SM80 tutorial sA, LDSM x4 of A, j=0 kb=0 p=0", SM80_SA, "(_8,_2,_2):(_1,_8,_1024)", 16, 128, 0),
    ("SM80 tutorial sA, LDSM x4 of A, j=3 kb=2 p=1", SM80_SA, "(_8,_2,_2):(_1,_8,_1024)", 16, 128,
     16 * 3 + 2048 * 2 + 8192 * 1),
    ("SM80 tutorial sA, LDSM x4 of A, j=7 kb=3 p=2", SM80_SA, "(_8,_2,_2):(_1,_8,_1024)", 16, 128,
     16 * 7 + 2048 * 3 + 8192 * 2),
    ("SM80 tutorial sA without the swizzle, 128-bit k-major rows", SM80_SA.split(" o ")[2], "(_8,_4):(_1024,_1)", 16,
     128, 0),
    ("#3172: Sw<3,3,4> (128,8) M-major tiled to (128,32), ldmatrix.x4.trans addresses", "#3172",
     "(_8,_2,_2):(_128,_8,_1024)", 16, 128, 0),
    ("#3172 without the swizzle", "#3172-plain", "(_8,_2,_2):(_128,_8,_1024)", 16, 128, 0),
    ("32 floats down a column of a row-major 32x32 tile (32-way)", "(_32,_32):(_32,_1)", "32:_1", 32, 32, 0),
    ("the same column, rows padded to 33", "(_32,_32):(_33,_1)", "32:_1", 32, 32, 0),
    ("32 doubles, consecutive (64-bit, two phases)", "(_64,_8):(_1,_64)", "32:_1", 64, 64, 0),
    ("32 doubles, stride 16 (64-bit)", "(_64,_16):(_1,_64)", "32:_16", 64, 64, 0),
    ("32 x 128-bit, consecutive", "(_256,_4):(_1,_256)", "32:_8", 16, 128, 0),
    ("32 x 128-bit down a column of a row-major 64x64 half tile", "(_64,_64):(_64,_1)", "32:_1", 16, 128, 0),
    ("32 x 16-bit, stride 2 halves (two threads per word)", "(_64,_8):(_1,_64)", "32:_1", 16, 16, 0),
)


def _smem(text: str) -> object:
    from verifier.algebra.registry import apply
    from verifier.notation.cpp import parse

    if text.startswith("#3172"):
        atom = "Sw<3,3,4> o _0 o (_128,_8):(_1,_128)"
        sa = str(apply("tile_to_shape", parse(atom), parse("(_128,_32)")).result)
        text = sa if text == "#3172" else sa.split(" o ")[2]
    return parse(text)


def _generated(n: int, seed: int = 19) -> list[tuple[str, str, str, int, int, int]]:
    """Random patterns: row-major (padded) or column-major tiles, half of them swizzled, read by 8, 16 or 32
    threads along two strides, at every width the hardware has."""
    rng = random.Random(seed)
    out: list[tuple[str, str, str, int, int, int]] = []
    widths = [(8, 32), (16, 32), (32, 32), (16, 64), (32, 64), (64, 64), (16, 128), (32, 128), (8, 16), (16, 16)]
    while len(out) < n:
        eb, ab = rng.choice(widths)
        vec = ab // eb
        rows, cols = rng.choice([8, 16, 32]), rng.choice([16, 32, 64, 128])
        if rng.random() < 0.5:
            inner = f"(_{rows},_{cols}):(_{cols + rng.choice([0, 0, 1, 2, 4, 8])},_1)"
        else:
            inner = f"(_{rows},_{cols}):(_1,_{rows})"
        smem = inner
        if rng.random() < 0.5:
            b = rng.randint(1, 3)
            smem = f"Sw<{b},{rng.randint(0, 4)},{rng.choice([3, 4, 5])}> o _0 o {inner}"
        threads = rng.choice([8, 16, 32])
        a = rng.choice([1, 2, 4, 8])
        b_ = threads // a
        s1, s2 = (rng.choice([1, 2, 4, 8, 16, 32, 64]) * vec for _ in range(2))
        access = f"(_{a},_{b_}):(_{s1},_{s2})"
        out.append((f"generated {len(out)}", smem, access, eb, ab, 0))
    return out


def pattern(name: str, smem_text: str, access_text: str, eb: int, ab: int, offset: int) -> dict[str, object] | None:
    """The pattern's byte addresses and the model's count; None where it does not fit the kernel (a coordinate
    outside SMEM's domain, an address beyond 48 KiB, a misaligned access)."""
    from verifier.core.integers import S
    from verifier.engine.banks import AccessModel, address, count
    from verifier.notation.cpp import parse_layout

    model = AccessModel(eb, ab)
    smem = _smem(smem_text)
    access = parse_layout(access_text)
    n = int(access.size())
    coords = [int(access(S(t))) + offset for t in range(n)]  # type: ignore[call-overload]
    if max(coords) >= int(smem.size()):  # type: ignore[attr-defined]
        return None
    addrs = [int(address(smem, access, S(t), model, S(offset) if offset else None)) for t in range(n)]
    if max(addrs) + model.access_bytes > SMEM_BYTES or any(a % model.access_bytes for a in addrs):
        return None
    phases = count(addrs, model)
    return {"name": name, "smem": str(smem), "access": access_text, "element_bits": eb, "access_bits": ab,
            "offset": offset, "threads": n, "addresses": addrs,
            "model_wavefronts": sum(p.wavefronts for p in phases),
            "model_phases": [p.wavefronts for p in phases]}


def patterns(generated: int = 160) -> list[dict[str, object]]:
    """The named patterns that fit the kernel, then the first ``generated`` generated ones that do."""
    out: list[dict[str, object]] = []
    kept = 0
    for spec in NAMED + tuple(_generated(generated * 2)):
        p = pattern(*spec)
        if p is None:
            continue
        if spec[0].startswith("generated"):
            if kept == generated:
                continue
            kept += 1
        out.append(p)
    return out


KINDS = ("ld", "ldsm", "st", "cpasync")


def launches(pats: list[dict[str, object]], kinds: tuple[str, ...] = KINDS) -> list[tuple[int, str]]:
    """(pattern index, instruction) in launch order: per pattern ``ld`` (``ld.shared``), ``ldsm`` (``ldmatrix``,
    128-bit patterns of 8, 16 or 32 threads), ``st`` (``st.shared``) and ``cpasync`` (``cp.async`` into shared
    memory, 32-, 64- and 128-bit patterns), those of ``kinds``."""
    out = []
    for k, p in enumerate(pats):
        for kind in kinds:
            if kind == "ldsm" and not (p["access_bits"] == 128 and p["threads"] in (8, 16, 32)):
                continue
            if kind == "cpasync" and p["access_bits"] not in (32, 64, 128):
                continue
            out.append((k, kind))
    return out


# -- the device part ------------------------------------------------------------------------------------------

SOURCE = r"""
#define REPS %(reps)d
#define LOOP(BODY) _Pragma("unroll") for (int r = 0; r < REPS; ++r) { BODY }
#define LD(OP, ...) asm volatile(OP : __VA_ARGS__ : "r"(a))

__device__ __forceinline__ unsigned shared_base(const void* p) {  // the shared-window address of p
  unsigned r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %%1; cvt.u32.u64 %%0, t; }" : "=r"(r) : "l"(p));
  return r;
}

extern "C" __global__ void bank_ld(const unsigned* addrs, int n, int bits, unsigned* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = shared_base(smem);
  const unsigned a = base + addrs[lane < n ? lane : 0];
  unsigned acc = 0, v0, v1, v2, v3;
  unsigned short h;
  if (lane < n) {
    if (bits == 8) {
      LOOP(LD("ld.volatile.shared.u8 %%0, [%%1];", "=r"(v0)); acc += v0;)
    } else if (bits == 16) {
      LOOP(LD("ld.volatile.shared.u16 %%0, [%%1];", "=h"(h)); acc += h;)
    } else if (bits == 32) {
      LOOP(LD("ld.volatile.shared.u32 %%0, [%%1];", "=r"(v0)); acc += v0;)
    } else if (bits == 64) {
      LOOP(LD("ld.volatile.shared.v2.u32 {%%0, %%1}, [%%2];", "=r"(v0), "=r"(v1)); acc += v0 ^ v1;)
    } else {
      LOOP(LD("ld.volatile.shared.v4.u32 {%%0, %%1, %%2, %%3}, [%%4];", "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3));
           acc += v0 ^ v1 ^ v2 ^ v3;)
    }
  }
  out[lane] = acc;
  if (lane == 0) out[32] = base;
}

// ldmatrix: threads 0-7 (x1), 0-15 (x2) or 0-31 (x4) give the row addresses; every lane executes it.
extern "C" __global__ void bank_ldsm(const unsigned* addrs, int n, int bits, unsigned* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = shared_base(smem);
  const unsigned a = base + addrs[lane %% n];
  unsigned acc = 0, v0, v1, v2, v3;
  if (n == 8) {
    LOOP(LD("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%%0}, [%%1];", "=r"(v0)); acc += v0;)
  } else if (n == 16) {
    LOOP(LD("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%%0, %%1}, [%%2];", "=r"(v0), "=r"(v1)); acc += v0 ^ v1;)
  } else {
    LOOP(LD("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%%0, %%1, %%2, %%3}, [%%4];", "=r"(v0), "=r"(v1),
            "=r"(v2), "=r"(v3)); acc += v0 ^ v1 ^ v2 ^ v3;)
  }
  out[lane] = acc;
  if (lane == 0) out[32] = base;
}

#define ST(OP, ...) asm volatile(OP :: "r"(a), __VA_ARGS__ : "memory")
extern "C" __global__ void bank_st(const unsigned* addrs, int n, int bits, unsigned* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = shared_base(smem);
  const unsigned a = base + addrs[lane < n ? lane : 0];
  const unsigned v = lane * 2654435761u;
  const unsigned short h = (unsigned short)v;
  if (lane < n) {
    if (bits == 8) {
      LOOP(ST("st.volatile.shared.u8 [%%0], %%1;", "r"(v));)
    } else if (bits == 16) {
      LOOP(ST("st.volatile.shared.u16 [%%0], %%1;", "h"(h));)
    } else if (bits == 32) {
      LOOP(ST("st.volatile.shared.u32 [%%0], %%1;", "r"(v));)
    } else if (bits == 64) {
      LOOP(ST("st.volatile.shared.v2.u32 [%%0], {%%1, %%2};", "r"(v), "r"(v + 1));)
    } else {
      LOOP(ST("st.volatile.shared.v4.u32 [%%0], {%%1, %%2, %%3, %%4};", "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3));)
    }
  }
  out[lane] = v;
  if (lane == 0) out[32] = base;
}

// cp.async: each thread copies bits/8 bytes from global memory to its shared address.
extern "C" __global__ void bank_cpasync(const unsigned* addrs, int n, int bits, unsigned* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned base = shared_base(smem);
  const unsigned a = base + addrs[lane < n ? lane : 0];
  const unsigned* src = out + 64 + 4 * lane;
  if (lane < n) {
    if (bits == 32) {
      LOOP(asm volatile("cp.async.ca.shared.global [%%0], [%%1], 4;" :: "r"(a), "l"(src) : "memory");)
    } else if (bits == 64) {
      LOOP(asm volatile("cp.async.ca.shared.global [%%0], [%%1], 8;" :: "r"(a), "l"(src) : "memory");)
    } else {
      LOOP(asm volatile("cp.async.cg.shared.global [%%0], [%%1], 16;" :: "r"(a), "l"(src) : "memory");)
    }
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  if (lane == 0) out[32] = base;
}
"""


def run(path: Path, kinds: tuple[str, ...] = KINDS) -> dict[str, object]:
    """Every launch of ``launches`` in order (Nsight Compute counts each); the shared-memory base must be
    128-byte aligned so that the byte offsets' banks are the hardware's."""
    import cupy as cp  # type: ignore[import-not-found]
    import numpy as np

    pats = json.loads(path.read_text())
    mod = cp.RawModule(code=SOURCE % {"reps": REPS}, options=("-std=c++17",))
    fns = {kind: mod.get_function(f"bank_{kind}") for kind in KINDS}
    out = cp.zeros(64 + 4 * 32, dtype=cp.uint32)
    bases = set()
    for k, kind in launches(pats, kinds):
        p = pats[k]
        addrs = np.zeros(32, dtype=np.uint32)
        addrs[:p["threads"]] = p["addresses"]
        fns[kind]((1,), (32,), (cp.asarray(addrs), np.int32(p["threads"]), np.int32(p["access_bits"]), out),
                  shared_mem=SMEM_BYTES)
        cp.cuda.Device(0).synchronize()
        bases.add(int(out[32].get()))
    assert all(b % 128 == 0 for b in bases), f"shared-memory base not 128-byte aligned: {bases}"
    return {"launches": len(launches(pats, kinds)), "shared_bases": sorted(bases)}


# -- matching Nsight Compute's counts --------------------------------------------------------------------------


def read_ncu(path: Path) -> list[dict[str, float]]:
    """Nsight Compute's CSV (``--csv --log-file``): the metrics of each profiled launch, in launch order."""
    rows: dict[int, dict[str, float]] = {}
    with path.open() as f:
        lines = [line for line in f if line.startswith('"')]
    for r in csv.DictReader(lines):
        v = r.get("Metric Value", "").replace(",", "")
        try:
            rows.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(v)
        except (KeyError, ValueError):
            continue
    return [rows[k] for k in sorted(rows)]


WAVEFRONTS = {"ld": "op_ld", "ldsm": "op_ld", "st": "op_st", "cpasync": "op_ldgsts"}
INSTRUCTIONS = {"ld": "shared_ld", "ldsm": "ldsm", "st": "shared_st", "cpasync": "ldgsts"}


def compare(pats: list[dict[str, object]], counts: list[dict[str, float]],
            kinds: tuple[str, ...] = KINDS) -> dict[str, object]:
    """Per launch: the hardware's wavefronts per instruction against the model's.  Nsight Compute (2025.3, H100)
    counts ldmatrix's wavefronts under ``op_ld`` and has no ``op_ldsm`` metric; where the load or store metric is
    missing, the all-operations total less the one wavefront every launch adds (64 ``ld.shared`` give 64 x the
    per-instruction count + 1) stands in, and the result says so.  ``cp.async`` has no metric of its own
    (``op_ldgsts``) and the total does not isolate its shared-memory writes (a ``.cg`` copy adds none to it, a
    ``.ca`` copy the L1 side of its global read): such launches are reported, not compared (``agree`` None)."""
    order = launches(pats, kinds)
    if len(counts) != len(order):
        raise ValueError(f"{len(counts)} profiled launches for {len(order)} expected")
    results: list[dict[str, object]] = []
    for (k, kind), c in zip(order, counts):
        p = pats[k]
        inst = c.get(f"smsp__inst_executed_op_{INSTRUCTIONS[kind]}.sum", float("nan"))
        if inst != inst or not inst:  # no instruction count: the source's REPS
            inst = float(REPS)
        own = f"l1tex__data_pipe_lsu_wavefronts_mem_shared_{WAVEFRONTS[kind]}.sum"
        total = c.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", float("nan"))
        entry: dict[str, object] = {
            "pattern": p["name"], "smem": p["smem"], "access": p["access"], "element_bits": p["element_bits"],
            "access_bits": p["access_bits"], "offset": p["offset"], "instruction": kind, "instructions": inst,
            "shared_wavefronts_all_ops": total, "model_wavefronts": p["model_wavefronts"],
            "model_phases": p["model_phases"]}
        if own in c:
            per = c[own] / inst
            entry.update(hardware_wavefronts=per, wavefront_metric=own, agree=per == p["model_wavefronts"])
        elif kind == "cpasync":
            entry.update(hardware_wavefronts=None, wavefront_metric=None, agree=None,
                         note="no metric isolates cp.async's shared-memory writes")
        else:
            per = (total - 1) / inst
            entry.update(hardware_wavefronts=per, wavefront_metric="all operations - 1",
                         agree=per == p["model_wavefronts"])
        results.append(entry)
    compared = [r for r in results if r["agree"] is not None]
    return {"launches": len(results), "compared": len(compared), "agree": sum(1 for r in compared if r["agree"]),
            "results": results}


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "emit":
        pats = patterns()
        Path(argv[1]).write_text(json.dumps(pats))
        print(json.dumps({"patterns": len(pats), "launches": len(launches(pats))}))
        return 0
    if len(argv) >= 2 and argv[0] == "run":
        print(json.dumps(run(Path(argv[1]))))
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        rep = compare(json.loads(Path(argv[1]).read_text()), read_ncu(Path(argv[2])))
        print(json.dumps(rep, indent=1))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
