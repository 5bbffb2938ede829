"""CUTLASS issue #3172 ("Swizzle could not eliminate bank conflicts of ldmatrix"), the reporter's kernel as far as
its published text goes: a (bM, bK) = (128, 32) half tile, M-major, under ``Swizzle<3,3,4>`` (the (128, 8) M-major
atom tiled over it), read through ``make_tiled_copy_A(Copy_Atom<SM75_U16x8_LDSM_T, half_t>, tiled_mma)`` by
``cute::copy(smem_tiled_copy_A, partition_S(sA), retile_D(partition_fragment_A(sA)))``: every warp of the
TiledMMA, every (CPY_M, CPY_K) instruction.  The TiledMMA is in the part of the report the stored copies cut off,
so the likely ones are all taken: SM80_16x8x16 over 2x2x1 warps with the (32, 32, 16) tile of the example the
report's swizzle formula comes from, without a tile, 4x1x1, an M permutation, and K 32.

Compiled CuTe gives each thread's row address; those are counted by brute force (``banks.count``) and the model
(``ACCESS = (_8,_2,_2):(_128,_8,_1024)`` at the instruction's offset) is checked against them, then proved
conflict-free for every warp and instruction at once.  Every phase takes one wavefront: the reads the report shows
are conflict-free, so its measured conflicts come from something its published text does not show."""

from __future__ import annotations

import json
import subprocess

import pytest

from verifier.algebra.registry import apply
from verifier.cli.app import main
from verifier.engine.banks import AccessModel, count
from verifier.notation.cpp import parse
from verifier.oracle import cute_cpp
from verifier.oracle.cute_cpp import CppCase

ATOM = "Sw<3,3,4> o _0 o (_128,_8):(_1,_128)"
ACCESS = "(_8,_2,_2):(_128,_8,_1024)"
_MMA = "SM80_16x8x16_F16F16F16F16_TN{}"
VARIANTS = {  # name: make_tiled_mma's arguments
    "example (32,32,16)": f"{_MMA}, Layout<Shape<_2,_2,_1>>{{}}, Tile<_32,_32,_16>{{}}",
    "no tile": f"{_MMA}, Layout<Shape<_2,_2,_1>>{{}}",
    "4x1x1": f"{_MMA}, Layout<Shape<_4,_1,_1>>{{}}",
    "M permutation": "SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, "
                     "Tile<Layout<Shape<_16,_2,_2>,Stride<_1,_32,_16>>, _32, _16>{}",
    "K 32": f"{_MMA}, Layout<Shape<_2,_2,_1>>{{}}, Tile<_32,_32,_32>{{}}",
}

_HEADER = """#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cstdio>
using namespace cute;
// The row address (element offset) each thread gives for each ldmatrix of the copy, instruction by instruction.
template <class MMA> void rows(MMA mma) {
  auto cpy = make_tiled_copy_A(Copy_Atom<SM75_U16x8_LDSM_T, half_t>{}, mma);
  auto sA = make_tensor(counting_iterator<long long>(0),
      tile_to_shape(composition(Swizzle<3,3,4>{}, Layout<Shape<_128,_8>, Stride<_1,_128>>{}), Shape<_128,_32>{}));
  for (int t = 0; t < int(size(mma)); ++t) {
    auto p = cpy.get_slice(t).partition_S(sA);
    printf("%d", t);
    for (int j = 0; j < int(size<2>(p)); ++j)
      for (int i = 0; i < int(size<1>(p)); ++i) printf(" %d:%d:%lld", i, j, (long long)p(0, i, j));
    printf("\\n");
  }
}"""


def _unit(cases: list[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    lines = _HEADER.split("\n") + ["int main(int argc, char** argv) {", "  int k = atoi(argv[1]);"]
    spans = {}
    for k, case in enumerate(cases):
        spans[k] = (len(lines) + 1, len(lines) + 1)
        lines.append(f"  if (k == {k}) rows(make_tiled_mma({case.code}));" if k not in rejected else "")
    return "\n".join(lines + ["}"]) + "\n", spans


@pytest.fixture(scope="module")
def cute_rows(cute) -> dict[str, dict[tuple[int, int, int], int]]:
    """For each variant: (thread, i, j) -> the element offset of the thread's ldmatrix row, from compiled CuTe."""
    cases = [CppCase(code, ()) for code in VARIANTS.values()]
    binary = cute_cpp.build(cases, unit=_unit)
    assert not binary.rejected, binary.rejected
    out = {}
    for k, name in enumerate(VARIANTS):
        run = subprocess.run([str(binary.path), str(k)], capture_output=True, text=True, timeout=60, check=True)
        rows = {}
        for line in run.stdout.split("\n"):
            if line:
                t, *cells = line.split()
                for c in cells:
                    i, j, a = map(int, c.split(":"))
                    rows[(int(t), i, j)] = a
        out[name] = rows
    return out


MODEL = AccessModel(16, 128)


@pytest.mark.cute
def test_every_ldmatrix_of_the_reported_kernel_is_conflict_free(cute_rows) -> None:
    phases = 0
    for name, rows in cute_rows.items():
        threads = 1 + max(t for t, _, _ in rows)
        for w in range(threads // 32):
            for i, j in sorted({(i, j) for _, i, j in rows}):
                addrs = [2 * rows[(32 * w + t, i, j)] for t in range(32)]
                got = count(addrs, MODEL)
                assert [p.wavefronts for p in got] == [1, 1, 1, 1], (name, w, i, j, got)
                phases += len(got)
    assert phases == 4 * (32 + 32 + 16 + 16 + 16)  # 4 phases of every ldmatrix.x4 of every warp


@pytest.mark.cute
def test_the_model_gives_compiled_cutes_addresses(cute_rows) -> None:
    """ACCESS at offset 16*(w%2) + 32*i + 2048*j is the example TiledMMA's copy: warp w, instruction (i, j)."""
    sa = apply("tile_to_shape", parse(ATOM), parse("(_128,_32)")).result
    access = parse(ACCESS)
    rows = cute_rows["example (32,32,16)"]
    for (t, i, j), a in rows.items():
        w = t // 32
        assert int(sa(access(t % 32) + 16 * (w % 2) + 32 * i + 2048 * j)) == a, (t, i, j)  # type: ignore[operator]


def test_proved_for_every_warp_and_instruction(capsys) -> None:
    """The symbolic proof over the warp w and the instruction (i, j) of the example TiledMMA; without the swizzle
    the same reads are refuted, each phase 8-way, with the colliding threads."""
    sa = str(apply("tile_to_shape", parse(ATOM), parse("(_128,_32)")).result)
    argv = [ACCESS, "--element-bits", "16", "--access-bits", "128", "--offset", "16*(w%2)+32*i+2048*j",
            "--assume", "w < 4", "--assume", "i < 4", "--assume", "j < 2", "--json"]
    assert main(["check", "conflict_free", sa, *argv]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["verdict"] == "proved", v
    assert main(["check", "conflict_free", sa.split(" o ")[2], *argv]) == 1
    v = json.loads(capsys.readouterr().out)
    assert v["verdict"] == "refuted" and "bank" in v["counterexample"]["note"], v
