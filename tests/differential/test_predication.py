"""Predication with identity tensors: the coordinate partitions (``tAcA``) are what compiled CuTe's
``make_identity_tensor`` gives under the same ``local_tile`` / ``local_partition`` calls (every thread swept), and
the engine proves predicated accesses in bounds and complete, or refutes them naming M, K and the thread index."""

from __future__ import annotations

import itertools
import subprocess

import pytest

from verifier.algebra.predication import elem_less, partitions
from verifier.core.integers import D
from verifier.core.layouts import UNDERSCORE
from verifier.core.symbols import Symbols
from verifier.engine.verify import verify
from verifier.notation.cpp import parse, parse_layout
from verifier.oracle.cute_cpp import CppBuilder, CppCase, build
from verifier.run.problems import build as build_problem

_PRELUDE = r"""
#include <cute/tensor.hpp>
#include <cstdio>
using namespace cute;
template <class T> void emit_coords(int k, T const& t) {
  printf("@@CASE %d", k);
  for (int i = 0; i < int(size(t)); ++i) { printf(" "); print(t(i)); }
  printf("\n");
}
"""


def _unit(cases, rejected):
    lines = _PRELUDE.strip("\n").split("\n")
    spans = {}
    for k, c in enumerate(cases):
        spans[k] = (len(lines) + 1, len(lines) + 1)
        body = "" if k in rejected else f"emit_coords({k}, {c.code});"
        lines.append(f"static void case_{k}() {{ {body} }}")
    lines.append("int main() {")
    lines += [f"  case_{k}();" for k in range(len(cases))]
    lines.append("}")
    return "\n".join(lines) + "\n", spans


SHAPES = [(200, 72), (128, 64), (37, 5)]
THREADS = ["(_32,_8):(_1,_32)", "(_16,_16):(_16,_1)"]
TILER, PROJ = "(_128,_128,_32)", "(_1,_,_1)"


def _configs():
    for (m, k), thr in itertools.product(SHAPES, THREADS):
        tiles = [(i, j) for i in range(-(-m // 128)) for j in range(-(-k // 32))]
        for (i, j), t in itertools.product(tiles[:3], (0, 5, 255)):
            yield m, k, thr, i, j, t


CONFIGS = list(_configs())


@pytest.mark.cute
def test_identity_partitions_match_compiled_cute(cute):
    cases = []
    for m, k, thr, i, j, t in CONFIGS:
        b = CppBuilder()
        ident = f"make_identity_tensor(make_shape({m}, {k}))"
        coord = f"make_coord({i}, _, {j})"  # run-time ints, as blockIdx gives them
        tile = f"local_tile({ident}, {b.operand(parse(TILER))}, {coord}, {b.coord(parse(PROJ))})"
        cases.append(CppCase(f"local_partition({tile}, {b.layout(parse_layout(thr))}, {t})", ()))
    binary = build(cases, unit=_unit)
    assert not binary.rejected
    out = subprocess.run([str(binary.path)], capture_output=True, text=True, check=True).stdout
    printed = {int(line.split()[1]): line.split()[2:] for line in out.splitlines() if line.startswith("@@CASE")}
    for n, (m, k, thr, i, j, t) in enumerate(CONFIGS):
        data, comps = partitions(parse_layout(f"({m},{k}):(_1,{m})"), parse(TILER), (D(i), UNDERSCORE, D(j)),
                                 parse(PROJ), parse_layout(thr), D(t))
        size = int(data.layout.size())
        model = [f"({int(comps[0].offset + comps[0].layout(v))},{int(comps[1].offset + comps[1].layout(v))})"
                 for v in range(size)]
        assert printed[n] == model, (m, k, thr, i, j, t)


def test_elem_less_follows_cute():
    assert elem_less([D(1), D(2)], [D(2), D(3)]).value is True
    assert elem_less([D(1), D(3)], [D(2), D(3)]).value is False
    assert elem_less([D(1), D(2)], [D(2)]).value is False  # a has more modes than b
    assert elem_less([D(1)], [D(2), D(0)]).value is True   # b's extra modes are ignored


ASSUME = ("t >= 0", "t < 256", "m >= 0", "m < (M+127)/128", "k >= 0", "k < (K+31)/32", "M <= 4096", "K <= 4096")
ARGS = ["(M,K):(_1,M)", TILER, "(m,n,k)", "Step<_1,X,_1>"]


def _verify(thr: str, residue: str, assume=ASSUME):
    symbols = Symbols()
    args = build_problem("predicated_copy", [*ARGS, thr, "t", residue], symbols, assume, {})
    return verify("predicated_copy", args, symbols)  # the default safety net: the verdict is bounded in rlimit units


def test_predicated_partial_tiles_are_proved_for_every_m_k_and_thread():
    v = _verify("(_32,_8):(_1,_32)", "(M,K)")
    assert v.verdict == "valid"
    assert {d.id for d in v.obligations} >= {"PRED-IN", "PRED-AT", "PRED-COVER", "IX-2", "IX-3"}


def test_swapped_residue_reads_out_of_bounds():
    v = _verify("(_32,_8):(_1,_32)", "(K,M)")
    assert v.verdict == "invalid"
    cex = next(d.counterexample for d in v.obligations if d.id == "PRED-IN" and d.status == "refuted")
    assert cex is not None
    p = cex.params
    assert {"M", "K", "t"} <= set(p)
    # Replay: the thread's coordinate at that value passes the swapped predicate but lies outside (M, K).
    data, comps = partitions(parse_layout(f"({p['M']},{p['K']}):(_1,{p['M']})"), parse(TILER),
                             (D(p["m"]), D(p["n"]), D(p["k"])), parse(PROJ), parse_layout("(_32,_8):(_1,_32)"),
                             D(p["t"]))
    i = int(cex.coordinate)  # type: ignore[arg-type]
    c = [int(w.offset + w.layout(i)) for w in comps]
    assert c[0] < p["K"] and c[1] < p["M"] and not (c[0] < p["M"] and c[1] < p["K"])


def test_short_residue_skips_elements():
    v = _verify("(_32,_8):(_1,_32)", "(M-1,K)")
    assert v.verdict == "invalid" and v.counterexample is not None
    assert v.counterexample.obligation == "PRED-COVER"


def test_384_threads_over_a_tile_they_do_not_divide():
    v = _verify("(_32,_12):(_1,_32)", "(M,K)", ("t >= 0", "t < 384"))
    assert v.verdict == "invalid" and v.counterexample is not None
    # THR-ONCE: the counterexample names the thread whose values leave the tile; COVER-THR fails for every thread.
    assert v.counterexample.obligation == "THR-ONCE" and v.counterexample.params["t"] == 256
    assert "T256V8 holds (0, 32), outside the (128, 32) tile" in v.reason
    assert {d.id: d.status for d in v.obligations}["COVER-THR"] == "refuted"


def test_thr_once_spares_threads_the_assumptions_exclude():
    # Only threads 0..127 run: thread 256 never does, so THR-ONCE holds, but the tile is still not covered by the
    # threads of the TiledCopy (COVER-THR), which stays the verdict.
    v = _verify("(_32,_12):(_1,_32)", "(M,K)", ("t >= 0", "t < 128"))
    assert v.verdict == "invalid" and v.counterexample.obligation == "COVER-THR"
    assert {d.id: d.status for d in v.obligations}["THR-ONCE"] == "proved"


@pytest.mark.parametrize("shift", [None])
def test_domain_offset_moves_pointer_and_coordinate(shift):
    from verifier.algebra.ops import OffsetLayout
    from verifier.algebra.predication import domain_offset

    view = OffsetLayout(parse_layout("(_8,_4):(_1,M)"), D(0))
    moved = domain_offset((D(0), D(-3)), view)
    assert str(moved.layout) == "(_8,_4):(_1,M)" and "M" in str(moved.offset)
