"""TiledMMA and TiledCopy partitions run by CuTe itself, a thread per CuTe thread, against ``verifier.algebra.tiled``.

For each case (a TiledMMA's ``partition_A/B/C`` or a TiledCopy's ``partition_S/D`` of a static tensor), the
generated CUDA C++ builds the tiled object with CuTe's own ``make_tiled_mma`` / ``make_tiled_copy[_A|B|C]``, and
thread ``tid`` calls ``get_slice(tid).partition_X(tensor)`` on a tensor over a real pointer and writes the element
offset of every value it touches (``&part(v) - base``).  The model's prediction is ``verifier.algebra.tiled``'s
partition for a *symbolic* thread index (the layout and the pointer offset the engine reasons about), evaluated at
each thread.  The same source compiles two ways:

- with nvcc, one block of ``threads`` threads per case on the GPU (``--gpu``: the run recorded in
  ``docs/hardware.md``);
- with g++ for the host, the same per-thread function called in a loop (the suite's test, no GPU needed).

    python -m cuda_harness.tiled_device emit DIR          # DIR/tiled.cu and DIR/expected.json
    python -m cuda_harness.tiled_device build DIR --gpu   # nvcc -arch=sm_90 (else g++ for the host)
    python -m cuda_harness.tiled_device check DIR OUT.txt # compare a run's output with the expectation
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ELEMENT = {8: "uint8_t", 16: "half_t", 32: "float", 64: "double"}


@dataclass(frozen=True)
class TiledCase:
    """One partition: ``tiled`` in the verifier's notation (``cute-verify``'s ``make_tiled_mma(...)``,
    ``make_tiled_copy(...)``, ``make_tiled_copy_A|B|C(...)``), ``part`` one of A, B, C (TiledMMA) or S, D
    (TiledCopy), ``tensor`` a layout whose symbols take ``values`` (run-time integers in CuTe: ``int``, not
    ``Int<N>``), ``bits`` the element width of the tensor."""

    name: str
    tiled: str
    part: str
    tensor: str
    bits: int = 16
    values: tuple[tuple[str, int], ...] = ()


HGEMM_MMA = "make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN, (_2,_2,_1):(_1,_2,_0), <_32,_32,_16>)"
HGEMM_COPY = ("make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16, (_16,_8):(_8,_1), "
              "(_1,_8):(_0,_1))")
GMMA = ("make_tiled_mma(SM90_64x64x16_F16F16F16_SS<GMMA::Major::K, GMMA::Major::K, GMMA::ScaleIn::One, "
        "GMMA::ScaleIn::One>, (_2,_1,_1):(_1,_0,_0))")
F32_MMA = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (_2,_4,_1):(_4,_1,_0))"
F64_MMA = "make_tiled_mma(SM80_8x8x4_F64F64F64F64_TN, (_4,_1,_1):(_1,_0,_0), <_64,_16,_8>)"

# The SM80 HGEMM of examples/sgemm_sm80.cute.toml (CuTe's sgemm_sm80.cu, gemm_tn with half_t: 128x128x64 CTA
# tiles, k-major A and B, column-major C), then more configurations: an SM80 F32-accumulating MMA on a 2x4 atom
# layout, an F64 MMA with a permutation tile, a Hopper GMMA (two warpgroups), ldmatrix copies retiled to the
# HGEMM's MMA, a 32-bit universal copy with 4 values per thread.
CASES: tuple[TiledCase, ...] = (
    TiledCase("hgemm mma partition_A (sA 128x64, k-major)", HGEMM_MMA, "A", "(_128,_64):(_64,_1)"),
    TiledCase("hgemm mma partition_B (sB 128x64, k-major)", HGEMM_MMA, "B", "(_128,_64):(_64,_1)"),
    TiledCase("hgemm mma partition_C (gC 128x128, ldC 128)", HGEMM_MMA, "C", "(_128,_128):(_1,_128)"),
    TiledCase("hgemm copyA partition_S (gA 128x64, ldA 64)", HGEMM_COPY, "S", "(_128,_64):(_64,_1)"),
    TiledCase("hgemm copyA partition_D (sA 128x64)", HGEMM_COPY, "D", "(_128,_64):(_64,_1)"),
    TiledCase("hgemm copyB partition_S (gB 128x64, ldB 72)", HGEMM_COPY, "S", "(_128,_64):(_72,_1)"),
    TiledCase("ldmatrix A of the hgemm mma, partition_S", f"make_tiled_copy_A(SM75_U32x4_LDSM_N, 16, {HGEMM_MMA})",
              "S", "(_128,_64):(_64,_1)"),
    TiledCase("ldmatrix B of the hgemm mma, partition_D", f"make_tiled_copy_B(SM75_U32x2_LDSM_N, 16, {HGEMM_MMA})",
              "D", "(_128,_64):(_64,_1)"),
    TiledCase("f32-accumulating mma 2x4 partition_A", F32_MMA, "A", "(_64,_32):(_1,_64)"),
    TiledCase("f32-accumulating mma 2x4 partition_C", F32_MMA, "C", "(_64,_64):(_64,_1)", 32),
    TiledCase("f64 mma with permutation partition_B", F64_MMA, "B", "(_32,_16):(_1,_32)", 64),
    TiledCase("f64 mma with permutation partition_C", F64_MMA, "C", "(_128,_32):(_1,_128)", 64),
    TiledCase("gmma 64x64x16 two warpgroups partition_C", GMMA, "C", "(_128,_128):(_1,_128)"),
    TiledCase("gmma 64x64x16 partition_A (smem)", GMMA, "A", "(_128,_64):(_64,_1)"),
    TiledCase("universal 32-bit copy 32x8 threads, 4x1 values, partition_S", "make_tiled_copy("
              "UniversalCopy<uint32_t,uint32_t>, 32, (_32,_8):(_1,_32), (_4,_1):(_1,_0))", "S",
              "(_256,_32):(_1,_256)", 32),
    TiledCase("universal 32-bit copy partition_D (row-major)", "make_tiled_copy("
              "UniversalCopy<uint32_t,uint32_t>, 32, (_32,_8):(_1,_32), (_4,_1):(_1,_0))", "D",
              "(_256,_32):(_32,_1)", 32),
    # Run-time extents and strides, partial tiles included (the verifier's partitions of symbolic tensors).
    TiledCase("hgemm copyA partition_S of gA (M,K):(ldA,_1), M=200 K=72 ldA=80 at run time", HGEMM_COPY, "S",
              "(M,K):(ldA,_1)", 16, (("M", 200), ("K", 72), ("ldA", 80))),
    TiledCase("hgemm copyB partition_S of gB (N,K):(ldB,_1), N=136 K=64 ldB=64 at run time", HGEMM_COPY, "S",
              "(N,K):(ldB,_1)", 16, (("N", 136), ("K", 64), ("ldB", 64))),
    TiledCase("hgemm mma partition_C of gC (M,N):(_1,ldC), M=100 N=96 ldC=104 at run time", HGEMM_MMA, "C",
              "(M,N):(_1,ldC)", 16, (("M", 100), ("N", 96), ("ldC", 104))),
    TiledCase("hgemm mma partition_A of (M,K):(ldA,_1), M=64 K=40 ldA=48 at run time", HGEMM_MMA, "A",
              "(M,K):(ldA,_1)", 16, (("M", 64), ("K", 40), ("ldA", 48))),
    TiledCase("universal 32-bit copy partition_D of (M,N):(_1,M), M=250 N=40 at run time", "make_tiled_copy("
              "UniversalCopy<uint32_t,uint32_t>, 32, (_32,_8):(_1,_32), (_4,_1):(_1,_0))", "D",
              "(M,N):(_1,M)", 32, (("M", 250), ("N", 40))),
)


# -- the model ----------------------------------------------------------------------------------------------


def _model(case: TiledCase) -> object:
    from verifier.algebra.tiled import parse_tiled

    return parse_tiled(case.tiled)


def threads(case: TiledCase) -> int:
    from verifier.algebra.tiled import TiledMMA
    from verifier.core.layouts import size

    obj = _model(case)
    if isinstance(obj, TiledMMA):
        return int(size(obj.thr_layout_vmnk))
    return int(size(obj.layout_tv, 0))  # type: ignore[attr-defined]


def expected(case: TiledCase) -> np.ndarray:
    """The model's offsets, ``[thread, value]``: the partition for a symbolic thread index ``t`` (its layout and
    pointer offset as expressions of ``t``), evaluated at every thread."""
    from cuda_harness.harness import np_eval
    from verifier.core.integers import substitute, symbol
    from verifier.notation.cpp import parse_layout

    obj = _model(case)
    t = symbol("t")
    part = getattr(obj, f"partition_{case.part}")(parse_layout(case.tensor), t)
    n = threads(case)
    rows = []
    for k in range(n):
        env = {"t": k, **dict(case.values)}
        layout = part.layout.substitute(env)
        values = np_eval(layout, np.arange(int(layout.size()), dtype=np.int64))
        rows.append(values + int(substitute(part.offset, env)))
    return np.array(rows, dtype=np.int64)


# -- the CUDA C++ ---------------------------------------------------------------------------------------------


def _split(text: str) -> tuple[str, list[str]]:
    from verifier.algebra.tiled import _split_args

    t = "".join(text.split())
    name = t[:t.index("(")]
    return name, _split_args(t[len(name) + 1:-1])


def _cpp_tiled(text: str, bits: int) -> str:
    """CuTe's construction of the object the notation names, from the same arguments."""
    from verifier.notation.cpp import parse, parse_layout
    from verifier.oracle.cute_cpp import CppBuilder

    b = CppBuilder()
    name, args = _split(text)
    atom_name = _atom_text(args[0])
    if name == "make_tiled_mma":
        out = f"make_tiled_mma({atom_name}{{}}"
        if len(args) > 1:
            out += f", {b.layout(parse_layout(args[1]))}"
        if len(args) > 2:
            perms = _split_perm(args[2])
            out += ", make_tile(" + ", ".join("_" if p == "_" else b.operand(parse(p)) for p in perms) + ")"
        return out + ")"
    atom = f"Copy_Atom<{atom_name}, {ELEMENT[int(args[1])]}>{{}}"
    if name == "make_tiled_copy":
        rest = ", ".join(b.layout(parse_layout(a)) for a in args[2:])
        return f"make_tiled_copy({atom}, {rest})"
    return f"{name}({atom}, {_cpp_tiled(args[2], bits)})"


def _atom_text(squeezed: str) -> str:
    """The atom's name as CuTe spells it (``_split`` drops the spaces of ``GMMA::Major::K, ...`` lists)."""
    from verifier.algebra.atoms import find

    return find(squeezed).name


def _split_perm(text: str) -> list[str]:
    from verifier.algebra.tiled import _split_args

    return _split_args(text.strip()[1:-1])


PRELUDE = r"""// Generated by cuda_harness/tiled_device.py: CuTe partitions TiledMMA / TiledCopy objects, a thread each.
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cstdio>
#include <vector>
using namespace cute;
"""

CASE = r"""
// case {k}: {name}
CUTE_HOST_DEVICE void case_{k}(int tid, long long* out, {elem}* base) {{
  auto tiled = {tiled};{decl}
  auto tensor = make_tensor(make_gmem_ptr(base), {tensor});
  auto part = tiled.get_slice(tid).partition_{part}(tensor);
  long long* row = out + (long long)tid * {width};
  row[0] = (long long)size(part);
  for (int v = 0; v < int(size(part)) && v < {nv}; ++v) row[1 + v] = (long long)(&part(v) - base);
}}
#ifdef __CUDACC__
__global__ void kernel_{k}(long long* out, {elem}* base) {{ case_{k}(threadIdx.x, out, base); }}
#endif
"""

MAIN = r"""
struct Case {{ int threads, width, bits; void (*host)(int, long long*, void*); }};
{wrappers}
static const Case CASES[] = {{ {table} }};

int main() {{
  for (int k = 0; k < {n}; ++k) {{
    const Case& c = CASES[k];
    std::vector<long long> out((size_t)c.threads * c.width, -(1LL << 62));
#ifdef __CUDACC__
    long long* d_out = nullptr; void* d_base = nullptr;
    if (cudaMalloc(&d_out, out.size() * sizeof(long long)) != cudaSuccess ||
        cudaMalloc(&d_base, 1 << 24) != cudaSuccess) {{ printf("@@ERROR cudaMalloc\n"); return 3; }}
    cudaMemcpy(d_out, out.data(), out.size() * sizeof(long long), cudaMemcpyHostToDevice);
    switch (k) {{
{launches}
    }}
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {{ printf("@@ERROR case %d: %s\n", k, cudaGetErrorString(err)); return 3; }}
    cudaMemcpy(out.data(), d_out, out.size() * sizeof(long long), cudaMemcpyDeviceToHost);
    cudaFree(d_out); cudaFree(d_base);
#else
    static char host_base[1 << 24];
    for (int t = 0; t < c.threads; ++t) c.host(t, out.data(), host_base);
#endif
    printf("@@CASE %d %d %d\n", k, c.threads, c.width);
    for (int t = 0; t < c.threads; ++t) {{
      for (int v = 0; v < c.width; ++v) printf("%s%lld", v ? " " : "", out[(size_t)t * c.width + v]);
      printf("\n");
    }}
  }}
  printf("@@DONE\n");
  return 0;
}}
"""


def source(cases: Sequence[TiledCase] = CASES) -> str:
    """One translation unit for every case: host functions, kernels (under nvcc) and a main that runs each case
    on the GPU (nvcc) or on the host (g++) and prints every thread's offsets."""
    from verifier.notation.cpp import parse_layout
    from verifier.oracle.cute_cpp import CppBuilder

    parts = [PRELUDE]
    wrappers, table, launches = [], [], []
    for k, c in enumerate(cases):
        nv = int(expected(c).shape[1])
        elem = ELEMENT[c.bits]
        b = CppBuilder()
        tensor = b.layout(parse_layout(c.tensor))
        values = dict(c.values)
        decl = ""
        if b.slots:  # the symbols' values, read as CuTe's run-time ints (int(p[i]))
            decl = "\n  const long long p[] = {" + ", ".join(
                str(values[s.symbol] if s.symbol is not None else s.value) for s in b.slots) + "};"
        parts.append(CASE.format(k=k, name=c.name, elem=elem, tiled=_cpp_tiled(c.tiled, c.bits), decl=decl,
                                 tensor=tensor, part=c.part, nv=nv, width=nv + 1))
        wrappers.append(f"static void host_{k}(int t, long long* o, void* b) {{ case_{k}(t, o, ({elem}*)b); }}")
        table.append(f"{{{threads(c)}, {nv + 1}, {c.bits}, host_{k}}}")
        launches.append(f"      case {k}: kernel_{k}<<<1, {threads(c)}>>>(d_out, ({elem}*)d_base); break;")
    parts.append(MAIN.format(wrappers="\n".join(wrappers), table=", ".join(table), n=len(cases),
                             launches="\n".join(launches)))
    return "".join(parts)


# -- running and comparing ------------------------------------------------------------------------------------


def parse_output(text: str) -> dict[int, np.ndarray]:
    """``@@CASE k threads width`` blocks: per case ``[thread, 1 + value]`` (column 0: CuTe's size of the part)."""
    out: dict[int, np.ndarray] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("@@CASE "):
            k, n, _w = (int(x) for x in lines[i].split()[1:])
            out[k] = np.array([[int(x) for x in lines[i + 1 + t].split()] for t in range(n)], dtype=np.int64)
            i += 1 + n
        else:
            i += 1
    return out


def compare(cases: Sequence[TiledCase], got: dict[int, np.ndarray],
            want: Sequence[np.ndarray]) -> list[dict[str, object]]:
    """Per case: threads, values, mismatching (thread, value) pairs (the first few shown)."""
    report = []
    for k, (c, w) in enumerate(zip(cases, want)):
        g = got.get(k)
        entry: dict[str, object] = {"case": c.name, "tiled": c.tiled, "part": c.part, "tensor": c.tensor,
                                    "threads": int(w.shape[0]), "values_per_thread": int(w.shape[1])}
        if g is None:
            entry.update(mismatches=int(w.size), missing=True)
        else:
            sizes_bad = np.flatnonzero(g[:, 0] != w.shape[1])
            diff = np.argwhere(g[:, 1:] != w) if g.shape == (w.shape[0], w.shape[1] + 1) else np.argwhere(
                np.ones_like(w, dtype=bool))
            entry["mismatches"] = int(len(diff)) + int(len(sizes_bad))
            entry["first"] = [{"thread": int(t), "value": int(v), "cute": int(g[t, 1 + v]), "model": int(w[t, v])}
                              for t, v in diff[:5]] + [{"thread": int(t), "cute_size": int(g[t, 0])}
                                                       for t in sizes_bad[:5]]
        report.append(entry)
    return report


def build(folder: Path, gpu: bool) -> Path:
    """Compile ``folder/tiled.cu``: nvcc for sm_90 (``gpu``) or g++ for the host; the host program is cached by
    its source, compiler and headers (``cute_cpp``'s cache)."""
    import hashlib
    import shutil

    from verifier.oracle.cute_cpp import (
        _compiler_version,
        cache_dir,
        compiler,
        cuda_includes,
        cute_include,
        headers_digest,
    )

    inc = [f"-I{cute_include()}"] + [f"-I{p}" for p in cuda_includes()]
    src = folder / "tiled.cu"
    if gpu:
        exe = folder / "tiled_gpu"
        cmd = ["nvcc", "-std=c++17", "-O1", "-arch=sm_90", "-w", *inc, str(src), "-o", str(exe)]
    else:
        key = hashlib.sha256("\0".join(("tiled_device 1", src.read_text(), _compiler_version(),
                                        headers_digest(cute_include()))).encode()).hexdigest()[:32]
        cached = cache_dir() / f"tiled-{key}.bin"
        exe = folder / "tiled_host"
        if cached.is_file():
            shutil.copy(cached, exe)
            return exe
        cmd = [compiler(), "-std=c++17", "-O0", "-w", "-x", "c++", *inc, str(src), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed:\n{proc.stderr[-4000:]}")
    if not gpu:
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        shutil.copy(exe, tmp)
        os.replace(tmp, cached)
    return exe


def emit(folder: Path, cases: Sequence[TiledCase] = CASES) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiled.cu").write_text(source(cases))
    (folder / "expected.json").write_text(json.dumps([{"case": c.name, "offsets": expected(c).tolist()}
                                                      for c in cases]))


def check(folder: Path, output: Path, cases: Sequence[TiledCase] = CASES) -> list[dict[str, object]]:
    want = [np.array(e["offsets"], dtype=np.int64) for e in json.loads((folder / "expected.json").read_text())]
    return compare(cases, parse_output(output.read_text()), want)


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "emit":
        emit(Path(argv[1]))
        return 0
    if len(argv) >= 2 and argv[0] == "build":
        print(build(Path(argv[1]), "--gpu" in argv))
        return 0
    if len(argv) >= 3 and argv[0] == "check":
        report = check(Path(argv[1]), Path(argv[2]))
        print(json.dumps(report, indent=1))
        bad = sum(int(r["mismatches"]) for r in report)  # type: ignore[call-overload]
        print(f"{len(report)} cases, {sum(int(r['threads']) for r in report)} threads, "  # type: ignore[call-overload]
              f"{sum(int(r['threads']) * int(r['values_per_thread']) for r in report)} offsets, "  # type: ignore
              f"{bad} mismatches", file=sys.stderr)
        return 1 if bad else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
