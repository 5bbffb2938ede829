"""The layouts a configuration's kernel builds, from CUTLASS's own code: the C++ instance CUTLASS's library
emitter writes for it (``configs.Enumeration.source``), compiled with g++ on the host against the CUTLASS headers,
prints its collective builders' types (``cute::print``) and runs the kernel's ``can_implement`` on concrete
arguments.

Many keys share one program (``derive_many``); ``oracle.cute_cpp.build`` compiles and caches it, isolating a
key CUTLASS's headers reject.  The device built-ins the headers mention (``threadIdx``, ``__syncthreads``, two
runtime calls) get host stand-ins that the program never reaches; the builders' ``#if __CUDACC_VER_MAJOR__ >= 12``
guard is given as the macro it defines.  Nothing of the kernel runs: only types are printed, and
``can_implement`` is a host function.
"""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.library import epilogue_cpp
from verifier.library.grouped_show import SHOW_GROUPED
from verifier.library.sm100_show import SHOW_SM100
from verifier.oracle import cute_cpp

PRELUDE = r"""
// Host stand-ins for CUDA's device built-ins, so that CUTLASS's kernel types compile with g++; no code that
// reaches them runs (only types are printed and can_implement, a host function, is called).
#include <vector_types.h>
static uint3 threadIdx, blockIdx, clusterIdx;
static dim3 blockDim, gridDim;
inline void __syncthreads() {}
inline void __syncwarp(unsigned = 0xffffffffu) {}
#include <cuda_runtime_api.h>
extern "C" cudaError_t cudaGetLastError() { return cudaErrorNotSupported; }
extern "C" cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return cudaErrorNotSupported; }
#include <cuda.h>
// The driver's descriptor encoder, reached only after CuTe's own host checks of the TMA box (its asserts,
// copy_traits_sm90_tma.hpp:949-990), which are what the "tma" mode replays; it accepts what reaches it.
extern "C" CUresult cuTensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
    const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
    CUtensorMapL2promotion, CUtensorMapFloatOOBfill) { return CUDA_SUCCESS; }
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <array>
#include <tuple>
#include <utility>
#include <limits>
#include <memory>
#include <functional>
#include <algorithm>
#include <optional>
#include <variant>
#include <sstream>
#include <iomanip>
#include <iostream>
#include <cutlass/cutlass.h>
#include <cutlass/arch/arch.h>
namespace cutlass::arch { inline int SmId() { return 0; } inline int LaneId() { return 0; } }  // device-only there
#include <cute/tensor.hpp>
// The epilogue's smem layouts, stages and element types are private members (epilogue_cpp.py): they are printed
// as CUTLASS computed them, not recomputed.
#define private public
#include <cutlass/gemm/gemm.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#undef private
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

template <class T> std::string type_name() {
  std::string s = __PRETTY_FUNCTION__;
  auto a = s.find("T = ");
  auto b = s.rfind(';') != std::string::npos && s.rfind(';') > a ? s.rfind(';') : s.rfind(']');
  return s.substr(a + 4, b - a - 4);
}
template <class T> void line(const char* tag, T const& x) {
  printf("@@%s ", tag); cute::print(x); printf("\n");
}
// Each detected member is printed only where the collective has it (the SM100 and ptr-array collectives differ).
#define HAS_MEMBER(NAME) \
  template <class C, class = void> struct has_##NAME : std::false_type {}; \
  template <class C> struct has_##NAME<C, std::void_t<typename C::NAME>> : std::true_type {};
HAS_MEMBER(SmemLayoutA) HAS_MEMBER(SmemLayoutB) HAS_MEMBER(SmemLayoutAtomA) HAS_MEMBER(SmemLayoutAtomB)
HAS_MEMBER(TiledMma) HAS_MEMBER(GmemTiledCopyA) HAS_MEMBER(GmemTiledCopyB) HAS_MEMBER(StrideA) HAS_MEMBER(StrideB)
HAS_MEMBER(SharedStorage) HAS_MEMBER(StrideC) HAS_MEMBER(StrideD) HAS_MEMBER(ElementA) HAS_MEMBER(ElementB)
HAS_MEMBER(SmemLayoutC) HAS_MEMBER(SmemLayoutD) HAS_MEMBER(EpilogueTile)

template <int I, class S> void set_stride(S& s, long long v) {
  if constexpr (I < (int)cute::tuple_size<S>::value) {
    using E = std::decay_t<decltype(cute::get<I>(s))>;
    if constexpr (!cute::is_static<E>::value && std::is_integral<E>::value) { cute::get<I>(s) = E(v); }
  }
}
template <class S> void set_strides(S& s, const long long* v) {
  set_stride<0>(s, v[0]); set_stride<1>(s, v[1]); set_stride<2>(s, v[2]);
}
#define TYPE_IF(C, M, TAG) \
  if constexpr (has_##M<C>::value) printf("@@" TAG " %s\n", type_name<typename C::M>().c_str());
#define LAYOUT_IF(C, M, TAG) if constexpr (has_##M<C>::value) line(TAG, typename C::M{});
#define BITS_IF(C, M, TAG) \
  if constexpr (has_##M<C>::value) printf("@@" TAG " %d\n", int(cute::sizeof_bits_v<typename C::M>));

template <class Kernel> void show_tma_tensors();
template <class Mainloop, class Kernel> void show_umma();
template <class Mainloop, class Kernel> void show_grouped();  // verifier/library/grouped.py
template <class Kernel> int accepts_grouped(const long long* p);
template <class Kernel> int builds_tma_grouped(const long long* p);
template <class Mainloop, class Epilogue> void show_epilogue();
template <class Mainloop, class Epilogue, class Kernel> void show() {
  LAYOUT_IF(Mainloop, SmemLayoutA, "SMEM_A") LAYOUT_IF(Mainloop, SmemLayoutB, "SMEM_B")
  LAYOUT_IF(Mainloop, SmemLayoutAtomA, "ATOM_A") LAYOUT_IF(Mainloop, SmemLayoutAtomB, "ATOM_B")
  line("TILE", typename Mainloop::TileShape{});
  printf("@@STAGES %d\n", int(Mainloop::DispatchPolicy::Stages));
  BITS_IF(Mainloop, ElementA, "BITS_A") BITS_IF(Mainloop, ElementB, "BITS_B")
  TYPE_IF(Mainloop, StrideA, "STRIDE_A") TYPE_IF(Mainloop, StrideB, "STRIDE_B")
  TYPE_IF(Mainloop, GmemTiledCopyA, "COPY_A") TYPE_IF(Mainloop, GmemTiledCopyB, "COPY_B")
  printf("@@MAINLOOP %s\n", type_name<typename Mainloop::DispatchPolicy>().c_str());
  if constexpr (has_TiledMma<Mainloop>::value) {
    printf("@@TILED_MMA_BEGIN\n"); cute::print(typename Mainloop::TiledMma{}); printf("\n@@TILED_MMA_END\n");
  }
  if constexpr (has_SharedStorage<Epilogue>::value) {
    printf("@@EPI_SMEM_BYTES %d\n", int(sizeof(typename Epilogue::SharedStorage)));
  }
  TYPE_IF(Epilogue, StrideC, "STRIDE_C") TYPE_IF(Epilogue, StrideD, "STRIDE_D")
  LAYOUT_IF(Epilogue, SmemLayoutC, "EPI_SMEM_C") LAYOUT_IF(Epilogue, SmemLayoutD, "EPI_SMEM_D")
  // A no-smem epilogue is CUTLASS's DefaultEpilogue (DefaultEpilogueArray for a grouped kernel) in an adapter: its
  // can_implement checks nothing.
  printf("@@EPI_DEFAULT %d\n", int(type_name<Epilogue>().find("DefaultEpilogue<") != std::string::npos ||
                                   type_name<Epilogue>().find("DefaultEpilogueArray<") != std::string::npos));
  printf("@@KERNEL %s\n", type_name<Kernel>().c_str());
  show_tma_tensors<Kernel>();
  show_umma<Mainloop, Kernel>();  // SM100 UMMA collectives only (verifier/library/sm100_show.py)
  show_grouped<Mainloop, Kernel>();  // ptr-array grouped kernels only (verifier/library/grouped.py)
  show_epilogue<Mainloop, Epilogue>();
}

// The run-time cluster of an SM100 kernel (a mainloop with AtomThrShapeMNK): a dynamic cluster shape is read from
// hw_info, where can_implement requires one (positive powers of 2, x a multiple of the MMA's CTAs:
// detail/cluster.hpp:70-95); the replays take the smallest, (V,1,1), for the preferred and the fallback cluster.
// A static cluster shape ignores it.
template <class Kernel, class = void> struct has_atom_thr : std::false_type {};
template <class Kernel> struct has_atom_thr<Kernel, std::void_t<typename Kernel::CollectiveMainloop::AtomThrShapeMNK,
    decltype(std::declval<typename Kernel::Arguments&>().hw_info = cutlass::KernelHardwareInfo{}),
    decltype(Kernel::CollectiveMainloop::to_underlying_arguments(std::declval<typename Kernel::ProblemShape const&>(),
        std::declval<typename Kernel::CollectiveMainloop::Arguments const&>(), (void*)nullptr,
        cutlass::KernelHardwareInfo{}))>> : std::true_type {};
template <class Kernel> cutlass::KernelHardwareInfo replay_hw_info() {
  cutlass::KernelHardwareInfo hw{};
  if constexpr (has_atom_thr<Kernel>::value) {
    unsigned v = unsigned(cute::size<0>(typename Kernel::CollectiveMainloop::AtomThrShapeMNK{}));
    hw.cluster_shape = dim3(v, 1, 1);
    hw.cluster_shape_fallback = dim3(v, 1, 1);
  }
  return hw;
}
template <class Kernel, class Shape, class Args> auto mainloop_params(Shape const& shape, Args const& args) {
  static char storage[1 << 20];
  if constexpr (has_atom_thr<Kernel>::value) {
    return Kernel::CollectiveMainloop::to_underlying_arguments(shape, args, storage, replay_hw_info<Kernel>());
  } else {
    return Kernel::CollectiveMainloop::to_underlying_arguments(shape, args, storage);
  }
}

// can_implement of the kernel on concrete arguments: (M,N,K,L) and the strides of A (M,K,L), B (N,K,L),
// C and D (M,N,L); a static stride keeps its value.  Only for kernels whose arguments hold one stride per
// operand (not the grouped ones, whose strides are arrays).
template <class Kernel, class = void> struct plain_args : std::false_type {};
template <class Kernel> struct plain_args<Kernel, std::void_t<decltype(typename Kernel::Arguments{}.mainloop.dA),
    decltype(typename Kernel::Arguments{}.epilogue.dD)>>
  : std::integral_constant<bool, !std::is_pointer<decltype(typename Kernel::Arguments{}.mainloop.dA)>::value
                                 && cute::rank(typename Kernel::ProblemShape{}) == 4> {};
// A mixed-input mainloop's to_underlying_arguments divides K by its Arguments' group_size (0 when defaulted):
// SIGFPE in cutlass::ceil_div, which killed the batch's whole program; its tensors are not printed, and
// can_implement runs with group_size = K (one scale per column: sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp
// :481 divides by it before line 485 checks that it is not 0).
template <class Kernel, class = void> struct has_group_size : std::false_type {};
template <class Kernel> struct has_group_size<Kernel, std::void_t<
    decltype(std::declval<typename Kernel::CollectiveMainloop::Arguments>().group_size)>> : std::true_type {};
template <class Kernel> int accepts(const long long* p) {
  if constexpr (plain_args<Kernel>::value) {
    typename Kernel::Arguments args{};
    if constexpr (has_group_size<Kernel>::value) { args.mainloop.group_size = int(p[2]); }
    args.mode = p[3] > 1 ? cutlass::gemm::GemmUniversalMode::kBatched : cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = typename Kernel::ProblemShape{int(p[0]), int(p[1]), int(p[2]), int(p[3])};
    if constexpr (has_atom_thr<Kernel>::value) args.hw_info = replay_hw_info<Kernel>();
    set_strides(args.mainloop.dA, p + 4);
    set_strides(args.mainloop.dB, p + 7);
    set_strides(args.epilogue.dC, p + 10);
    set_strides(args.epilogue.dD, p + 13);
    return Kernel::can_implement(args) ? 1 : 0;
  } else {
    return accepts_grouped<Kernel>(p);  // -1 unless a grouped kernel
  }
}
// The TMA coordinate tensors load_init tiles (get_tma_tensor of (M,K,L) and (N,K,L)), built at one sample problem
// (extents and packed strides multiples of 128): their strides are static scaled bases, fixed by the stride and
// smem layout types alone, so they are the same for every problem; the shapes are the sample's.
template <class Kernel, class = void> struct has_tma_params : std::false_type {};
template <class Kernel> struct has_tma_params<Kernel, std::void_t<
    decltype(std::declval<typename Kernel::CollectiveMainloop::Params>().tma_load_a),
    decltype(std::declval<typename Kernel::CollectiveMainloop::Params>().tma_load_b)>> : std::true_type {};
template <class Kernel> void show_tma_tensors() {
  if constexpr (plain_args<Kernel>::value && has_tma_params<Kernel>::value && !has_group_size<Kernel>::value) {
    typename Kernel::Arguments args{};
    typename Kernel::ProblemShape shape{1024, 1024, 1024, 2};
    const long long packed[3] = {1024, 1024, 1024 * 1024};
    set_strides(args.mainloop.dA, packed);
    set_strides(args.mainloop.dB, packed);
    auto params = mainloop_params<Kernel>(shape, args.mainloop);
    line("TMA_TENSOR_A", params.tma_load_a.get_tma_tensor(cute::make_shape(1024, 1024, 2)).layout());
    line("TMA_TENSOR_B", params.tma_load_b.get_tma_tensor(cute::make_shape(1024, 1024, 2)).layout());
  }
}

// The mainloop's to_underlying_arguments (make_tma_copy of A and B from the problem shape and strides), run on
// concrete arguments: it returns, or CuTe's host asserts abort.
template <class Kernel> int builds_tma(const long long* p) {
  if constexpr (plain_args<Kernel>::value) {
    typename Kernel::Arguments args{};
    typename Kernel::ProblemShape shape{int(p[0]), int(p[1]), int(p[2]), int(p[3])};
    set_strides(args.mainloop.dA, p + 4);
    set_strides(args.mainloop.dB, p + 7);
    (void)mainloop_params<Kernel>(shape, args.mainloop);
    return 1;
  } else {
    return builds_tma_grouped<Kernel>(p);  // -1 unless a grouped kernel
  }
}
""" + SHOW_SM100 + SHOW_GROUPED

MAIN = r"""
int main(int argc, char** argv) {
  // "show [FROM]": each case's line is flushed before its types are printed, so that a case that kills the
  // program is named by the last line that came out, and the cases after it are printed by a run from there.
  if (argc > 1 && std::strcmp(argv[1], "show") == 0) {
    setvbuf(stdout, nullptr, _IOLBF, 0);  // what a case printed before it dies is kept
    for (long long k = argc > 2 ? std::atoll(argv[2]) : 0; k < kCases; ++k) {
      printf("@@CASE %lld\n", k); fflush(stdout); kShow[k]();
    }
    return 0;
  }
  // "accepts" (or "tma", "tma_epilogue"): lines of "case M N K L a0 a1 a2 b0 b1 b2 c0 c1 c2 d0 d1 d2"
  bool tma = argc > 1 && std::strcmp(argv[1], "tma") == 0;
  bool tma_epi = argc > 1 && std::strcmp(argv[1], "tma_epilogue") == 0;
  long long k, p[16];
  while (scanf("%lld", &k) == 1) {
    for (int i = 0; i < 16; ++i) if (scanf("%lld", &p[i]) != 1) return 3;
    int r = (k < 0 || k >= kCases) ? -2 : tma ? kTma[k](p) : tma_epi ? kTmaEpi[k](p) : kAccepts[k](p);
    printf("@@ACCEPTS %lld %d\n", k, r);
    fflush(stdout);
  }
  return 0;
}
"""

# Flags: the builders' CUDA-version guard as the macro it defines, and -fpermissive for the device-only names
# that template code mentions without depending on a parameter.
FLAGS = ("-DCUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED", "-fpermissive")
ACCEPTS_FIELDS = 16
# ``Program.builds_tma``'s message where the program has no replay for the kernel's arguments (neither one plain
# stride per operand nor a grouped kernel's): not a failure of CuTe's asserts.
NOT_RUN = "not run: no replay for this kernel's arguments"


@dataclass(frozen=True)
class Instance:
    """One key's C++: the instance the emitter writes for its representative configuration."""

    name: str
    source: str


def _unit(instances: Sequence[Instance]) -> cute_cpp.TranslationUnit:
    def unit(cases: Sequence[cute_cpp.CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
        lines = (PRELUDE + epilogue_cpp.CPP).strip("\n").split("\n")
        spans: dict[int, tuple[int, int]] = {}
        for k, inst in enumerate(instances):
            start = len(lines) + 1
            if k in rejected:
                lines.append(f'static void show_{k}() {{ printf("@@REJECTED\\n"); }}')
                lines.append(f"static int accepts_{k}(const long long*) {{ return -3; }}")
                lines.append(f"static int tma_{k}(const long long*) {{ return -3; }}")
                lines.append(f"static int tma_epi_{k}(const long long*) {{ return -3; }}")
            else:
                lines.append(f"namespace key_{k} {{")
                lines.extend(inst.source.strip("\n").split("\n"))
                lines.append("}")
                n = f"key_{k}::{inst.name}"
                lines.append(f"static void show_{k}() {{ show<{n}_mainloop, {n}_epilogue, {n}>(); }}")
                lines.append(f"static int accepts_{k}(const long long* p) {{ return accepts<{n}>(p); }}")
                lines.append(f"static int tma_{k}(const long long* p) {{ return builds_tma<{n}>(p); }}")
                lines.append(f"static int tma_epi_{k}(const long long* p) {{ return builds_tma_epilogue<{n}>(p); }}")
            spans[k] = (start, len(lines))
        lines.append(f"static const long long kCases = {len(instances)};")
        lines.append(f"static void (*kShow[])() = {{{', '.join(f'show_{k}' for k in range(len(instances)))}}};")
        lines.append("static int (*kAccepts[])(const long long*) = {"
                     + ", ".join(f"accepts_{k}" for k in range(len(instances))) + "};")
        lines.append("static int (*kTma[])(const long long*) = {"
                     + ", ".join(f"tma_{k}" for k in range(len(instances))) + "};")
        lines.append("static int (*kTmaEpi[])(const long long*) = {"
                     + ", ".join(f"tma_epi_{k}" for k in range(len(instances))) + "};")
        lines.extend(MAIN.strip("\n").split("\n"))
        return "\n".join(lines) + "\n", spans
    return unit


@dataclass(frozen=True)
class Program:
    """A compiled batch of instances: run ``show`` once, ``accepts`` at any arguments."""

    binary: cute_cpp.Binary
    instances: tuple[Instance, ...]

    def rejected(self, k: int) -> str | None:
        return self.binary.rejected.get(k)

    def accepts(self, queries: Sequence[tuple[int, Sequence[int]]]) -> list[int]:
        """``can_implement`` of case k at each query's 16 values (1 accepts, 0 rejects, -1 not run: the kernel's
        arguments hold stride arrays, -3: CUTLASS rejected the instance)."""
        text = "".join(f"{k} {' '.join(str(int(v)) for v in vals)}\n" for k, vals in queries)
        out = subprocess.run([str(self.binary.path)], input=text, capture_output=True, text=True, check=True,
                             timeout=120)
        return [int(line.split()[2]) for line in out.stdout.splitlines() if line.startswith("@@ACCEPTS")]

    def builds_tma(self, k: int, values: Sequence[int], part: str = "mainloop") -> tuple[bool, str]:
        """Run the mainloop's (``part="epilogue"``: the epilogue's) ``to_underlying_arguments`` of case k at one
        query (in its own process: a failing CuTe assert aborts it): whether it returned, and CuTe's message when
        it did not."""
        mode = "tma_epilogue" if part == "epilogue" else "tma"
        out = subprocess.run([str(self.binary.path), mode], input=f"{k} {' '.join(str(int(v)) for v in values)}\n",
                             capture_output=True, text=True, check=False, timeout=120)
        ok = out.returncode == 0 and "@@ACCEPTS" in out.stdout and out.stdout.split()[-1] == "1"
        if out.returncode == 0 and out.stdout.split()[-1:] == ["-1"]:
            # the program has no replay for this kernel's arguments: it neither built nor failed
            return False, NOT_RUN
        message = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
        # An assert's message starts with the program's name, a digest of the whole batch, and may name the key's
        # namespace there: neither is the key's
        return ok, _IN_BATCH.sub("", message.removeprefix(f"{self.binary.path.name}: "))


def compile_instances(instances: Sequence[Instance], include: Path | None = None,
                      sanitize: bool = False) -> Program:
    flags = list(FLAGS)
    if include is not None:
        flags.insert(0, f"-I{include}")
    if sanitize:
        flags += ["-fsanitize=signed-integer-overflow", "-fno-sanitize-recover"]
    cases = [cute_cpp.CppCase(code=i.source, slots=(), label=i.name) for i in instances]
    binary = cute_cpp.build(cases, unit=_unit(instances), flags=flags)
    return Program(binary, tuple(instances))


_TAG = re.compile(r"^@@([A-Z_0-9]+)(?: (.*))?$")
# The namespace a key's instance has in its batch's program (``_unit``): what a key prints leaves it out.
_IN_BATCH = re.compile(r"\bkey_\d+::")


_INT_TAGS = ("STAGES", "BITS_A", "BITS_B", "EPI_SMEM_BYTES", "EPI_DEFAULT", "ATOM_THR", "TMA_MCAST_A", "TMA_MCAST_B",
             *epilogue_cpp.INT_TAGS)


class Crashed(RuntimeError):
    """The derive program died while printing a key's types (a signal, such as SIGFPE in CUTLASS's host code)."""


def show(program: Program) -> list[dict[str, Any]]:
    """What each instance's builders chose, as printed by compiled CUTLASS (one dict per instance).  An instance
    whose printing kills the program gets ``{"CRASHED": why}`` (naming it, the signal and its batch), and the
    instances after it are printed by a run that starts there."""
    names = [i.name for i in program.instances]
    found: dict[int, dict[str, Any]] = {}
    start = 0
    while start < len(names):
        out = subprocess.run([str(program.binary.path), "show", str(start)], capture_output=True, text=True,
                             check=False, timeout=120)
        last = _parse_shown(out.stdout, found)
        if out.returncode == 0:
            break
        how = (f"signal {signal.Signals(-out.returncode).name}" if out.returncode < 0 and
               -out.returncode in signal.valid_signals() else f"exit status {out.returncode}")
        # CuTe's assert line, if any, less the program's name (a digest of the whole batch, not the key's)
        tail = (out.stderr.strip().splitlines() or [""])[-1].removeprefix(f"{program.binary.path.name}: ")[:300]
        crashed = [last] if last is not None and last >= start else list(range(start, len(names)))
        for k in crashed:  # what it printed before it died stays
            why = (f"the derive program died of {how} while printing {names[k]} (case {k} of its batch of "
                   f"{len(names)}: {_batch_names(names)})" + (f"; {tail}" if tail else ""))
            found[k] = {**found.get(k, {}), "CRASHED": why, "SHOW_ABORTED": _IN_BATCH.sub("", tail) or how}
        start = crashed[-1] + 1
    shown = [found.get(k, {}) for k in range(len(names))]
    for k, d in enumerate(shown):
        if k in program.binary.rejected:
            d["REJECTED"] = program.binary.rejected[k]
        for tag, v in d.items():
            if isinstance(v, str) and tag != "CRASHED":
                d[tag] = _IN_BATCH.sub("", v)
    return shown


def _batch_names(names: Sequence[str]) -> str:
    """The batch a crash names, in words of bounded length: its keys where they are few, else its first and last
    (a batch is neighbours in the derive order, so they name it); every name of a batch of 256 would add about
    25 KB to each crashed key's record."""
    return ", ".join(names) if len(names) <= 4 else f"{names[0]}, ..., {names[-1]}"


def _parse_shown(stdout: str, found: dict[int, dict[str, Any]]) -> int | None:
    """Read a ``show`` run's tagged lines into ``found`` (by case); the last case it started, if any."""
    mma: list[str] | None = None
    case: int | None = None
    current: dict[str, Any] = {}
    for raw in stdout.splitlines():
        if mma is not None:
            if raw == "@@TILED_MMA_END":
                current["TILED_MMA"] = "\n".join(mma).strip()
                mma = None
            else:
                mma.append(raw)
            continue
        m = _TAG.match(raw)
        if not m:
            continue
        tag, value = m.group(1), (m.group(2) or "").strip()
        if tag == "CASE":
            case, current = int(value), {}
            found[case] = current
        elif case is None:
            continue
        elif tag == "TILED_MMA_BEGIN":
            mma = []
        elif tag == "REJECTED":
            current["REJECTED"] = True
        else:
            current[tag] = int(value) if tag in _INT_TAGS else value
    return case


def derive_many(instances: Sequence[Instance], include: Path | None = None) -> list[dict[str, Any]]:
    """Compile ``instances`` into one program and return, per instance, what compiled CUTLASS printed."""
    return show(compile_instances(instances, include))


def printed(derived: Mapping[str, Any], tag: str) -> str | None:
    v = derived.get(tag)
    return None if v is None else str(v)
