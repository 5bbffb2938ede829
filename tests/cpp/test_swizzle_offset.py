"""The symbolic swizzle offset (verifier/oracle/include/cute_symbolic_swizzle.hpp) against CuTe's own MixedBits: the
sgemm_sm80 tutorial's swizzled smem tile, partitioned by its cp.async TiledCopy, its MMA and its ldmatrix copy for
every thread, element by element: the values the symbolic run computes are those compiled CuTe computes on plain
ints, and the thread index costs the symbolic run no decision."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from verifier.oracle import cute_cpp
from verifier.oracle.symbolic import INCLUDE, _parse_runs

PROGRAM = r"""
#ifdef SYMBOLIC
#include <cute_symbolic.hpp>
#endif
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#ifdef SYMBOLIC
#include <cute_symbolic_swizzle.hpp>
using I = cute_symbolic::Int<int>;
#else
using I = int;
#endif
#include <cstdio>
#include <string>
using namespace cute;

template <class T> long long value(T const& x) {
#ifdef SYMBOLIC
  if constexpr (cute_symbolic::is_sym<T>::value) { return (long long)x.value; } else
#endif
  { return (long long)x; }
}
std::string refs;  // the node of each partition's base offset (its data()), for the driver to translate
template <class X> void show(char const* what, X const& t) {
  std::printf("%s %lld:", what, value(*t.data()));
  for (int i = 0; i < int(size(t)); ++i) { std::printf(" %lld", value(t(i))); }
  std::printf("\n");
#ifdef SYMBOLIC
  refs += " v__" + std::to_string((*t.data()).node);
#endif
}

int main() {
  auto atom = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Shape<_8,_8>>, Stride<_8,Stride<_1,_64>>>{});
  auto sA_layout = tile_to_shape(atom, make_shape(Int<128>{}, Int<64>{}, Int<3>{}));
  TiledCopy copyA = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                    Layout<Shape<_16,_8>,Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{});
  TiledMMA mma = make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN{}, Layout<Shape<_2,_2>>{}, Tile<_32,_32,_16>{});
  TiledCopy s2r = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
  for (int t = 0; t < 128; ++t) {
#ifdef SYMBOLIC
    cute_symbolic::graph().reset();
    I tid = cute_symbolic::var<int>("tid", t);
#else
    I tid = t;
#endif
    Tensor sA = make_tensor(counting_iterator<I>(I(0)), sA_layout);
    std::printf("@@BEGIN %d\n", t);
    refs.clear();
    show("copy", copyA.get_slice(tid).partition_D(sA));
    show("mma", mma.get_slice(tid).partition_A(sA(_,_,0)));
    show("ldsm", s2r.get_slice(tid).partition_S(sA));
#ifdef SYMBOLIC
    std::printf("@@RESULT%s\n", refs.c_str());
    cute_symbolic::dump();
#endif
    std::printf("@@END\n");
  }
  return 0;
}
"""


def _run(tmp: Path, symbolic: bool) -> str:
    src = tmp / "swizzle.cpp"
    src.write_text(PROGRAM)
    exe = tmp / ("sym" if symbolic else "plain")
    flags = [f"-I{INCLUDE}", "-DSYMBOLIC"] if symbolic else []
    cmd = [cute_cpp.compiler(), "-std=c++17", "-O0", "-w", *flags, f"-I{cute_cpp.cute_include()}",
           *(f"-I{p}" for p in cute_cpp.cuda_includes()), str(src), "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


@pytest.mark.cute
def test_symbolic_swizzle_offsets_are_cutes_for_every_thread(tmp_path: Path) -> None:
    plain = _run(tmp_path, False)
    sym = _run(tmp_path, True)
    values = [line for line in plain.split("\n") if line and not line.startswith("@@")]
    assert len(values) == 3 * 128
    # the same values, element by element, for every thread
    assert [line for line in sym.split("\n") if line and not line.startswith("@@")] == values
    runs = _parse_runs(sym, [{"tid": "tid"}] * 128)
    for t, run in runs.items():
        # no decision on the thread index, and each partition's base offset is the symbolic expression of tid
        # whose value at t is CuTe's
        assert run.decisions == () and run.unencodable is None
        bases = [int(line.split()[1].rstrip(":")) for line in values[3 * t:3 * t + 3]]
        exprs = [run.leaves[int(ref[3:])] for ref in (run.result or "").split()]
        assert [e.evaluate({"tid": t}) for e in exprs] == bases
