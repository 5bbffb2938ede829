"""The partition functions as every front end writes them (``partition_A/B/C``, ``partition_fragment_A/B/C``,
``partition_S/D``, ``retile_S/D`` of a ``make_tiled_mma(...)`` / ``make_tiled_copy(...)`` in CuTe notation, parsed by
``run.problems.parse_operand`` as ``eval``, ``draw``, ``check``, the operations and spec files parse them) against
compiled CuTe 4.2: the real ``thr_mma = mma.get_slice(t); thr_mma.partition_C(tensor)`` (and the copy's) over a
tensor on a counting iterator, at every coordinate.  The text names the thread as a symbol ``t``, evaluated for
several threads, past the thread count too (a symbol t ranges over every int unless declared, and CuTe computes
get_slice(t) for any t), and the tensor's run-time extents for several sizes, partial tiles included; CuTe's element at
coordinate ``i`` is its iterator's offset plus the partition's layout at ``i``, the tool's the view at ``i``."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout
from verifier.core.symbols import Symbols
from verifier.notation.cpp import parse_layout
from verifier.oracle import atoms_gen
from verifier.oracle.cute_cpp import CppBuilder, CppCase, Query, build, run_binary
from verifier.oracle.selfcheck_tiled import COPIES, MMAS, CopyConfig, MmaConfig, _copy_cpp, _mma_cpp
from verifier.run.problems import parse_operand

# The tensors each side partitions: run-time extents and a leading dimension (symbols), and a static one.
TENSORS = {"A": ("(M,K):(ldA,_1)", "(_128,_64):(_64,_1)"), "B": ("(N,K):(_1,N)", "(_64,_64):(_1,_64)"),
           "C": ("(M,N):(_1,M)", "(_128,_128):(_1,_128)"), "S": ("(M,K):(ldA,_1)", "(_128,_64):(_64,_1)")}
SIZES = ({"M": 128, "N": 128, "K": 64, "ldA": 64}, {"M": 200, "N": 136, "K": 40, "ldA": 48})
FRAGMENT = "(_8,_4,_2):(_1,_8,_32)"
# Beyond the selfcheck's configurations: a Hopper GMMA over two warpgroups (C in registers, A and B through
# shared-memory descriptors) and the epilogue's STSM copy of an accumulator (make_tiled_copy_C_atom).
GMMA = MmaConfig("SM90_64x64x16_F16F16F16_SS<GMMA::Major::K, GMMA::Major::K, GMMA::ScaleIn::One, "
                 "GMMA::ScaleIn::One>", "(_2,_1,_1):(_1,_0,_0)")
C_ATOM = CopyConfig("SM90_U32x4_STSM_N", 16, "make_tiled_copy_C_atom", mma=MMAS[1])


def _mma_text(c: MmaConfig) -> str:
    perms = f", <{','.join(c.perms)}>" if c.perms else ""
    return f"make_tiled_mma({c.atom}, {c.thr}{perms})"


def _copy_text(c: CopyConfig) -> str:
    if c.mma is None:
        return f"{c.how}({c.atom}, {c.bits}, {c.thr}, {c.val})"
    return f"{c.how}({c.atom}, {c.bits}, {_mma_text(c.mma)})"


@dataclass(frozen=True)
class Case:
    text: str            # the tool's notation
    cpp: CppCase         # CuTe's call, the thread and the tensor's extents read at run time
    threads: int         # the tiled object's threads


def _case(spell: str, fn: str, tensor_text: str, obj_text: str, threads: int, cpp_obj: object) -> Case:
    b = CppBuilder()
    obj = cpp_obj(b)  # type: ignore[operator]
    tensor = parse_layout(tensor_text)
    counting = f"make_tensor({b.counting()}, {b.layout(tensor)})"
    if fn.startswith("retile"):
        code = f"{obj}.get_slice(0).{fn}({counting})"
        return Case(f"{fn}({obj_text}, {tensor_text})", b.case(code, spell), threads)
    thread = b.int(parse_operand("t", Symbols()))  # type: ignore[arg-type]
    code = f"{obj}.get_slice({thread}).{fn}({counting})"
    if fn.startswith("partition_fragment"):
        code += ".layout()"
    return Case(f"{fn}({obj_text}, {tensor_text}, t)", b.case(code, spell), threads)


def _cases() -> list[Case]:
    from functools import partial

    from verifier.core.layouts import size

    out = []
    for c in (*MMAS, GMMA):
        n = int(size(parse_operand(_mma_text(c), Symbols()).thr_layout_vmnk))  # type: ignore[attr-defined]
        for q in "ABC":
            for tensor in TENSORS[q]:
                out.append(_case(str(c), f"partition_{q}", tensor, _mma_text(c), n, partial(_mma_cpp, c=c)))
        # An SS GMMA's A and B fragments are shared-memory descriptors (make_fragment_A of an smem tensor): C only.
        for q in "C" if c is GMMA else "ABC":
            out.append(_case(str(c), f"partition_fragment_{q}", TENSORS[q][1], _mma_text(c), n,
                             partial(_mma_cpp, c=c)))
    for cc in (*COPIES, C_ATOM):
        n = int(size(parse_operand(_copy_text(cc), Symbols()).layout_tv, 0))  # type: ignore[attr-defined]
        for q in "SD":
            for tensor in TENSORS["S"]:
                out.append(_case(str(cc), f"partition_{q}", tensor, _copy_text(cc), n, partial(_copy_cpp, c=cc)))
            out.append(_case(str(cc), f"retile_{q}", FRAGMENT, _copy_text(cc), n, partial(_copy_cpp, c=cc)))
    return out


def _values(obj: object, env: dict[str, int]) -> list[int]:
    concrete = obj.substitute(env)  # type: ignore[attr-defined]
    return [int(concrete(i)) for i in range(int(concrete.size()))]


@pytest.mark.cute
def test_partitions_in_notation_match_compiled_cute(cute: object) -> None:
    cases = _cases()
    assert len(cases) >= 40
    binary = build([c.cpp for c in cases], unit=atoms_gen.traits_unit, flags=atoms_gen.FLAGS)
    queries, expected = [], []
    for k, c in enumerate(cases):
        symbols = Symbols()
        obj = parse_operand(c.text, symbols)
        # A thread's partition is a view onto the tensor's elements; a fragment and a retile are register layouts.
        assert isinstance(obj, ComposedLayout if ", t)" in c.text and "fragment" not in c.text else Layout), c.text
        if "t" in symbols.table:
            assert symbols.table["t"].lo == 0  # the thread is an index: it starts at 0
        for sizes in SIZES:
            for t in sorted({0, 1, 37 % c.threads, c.threads - 1, c.threads, 3 * c.threads + 37}):
                env = {**sizes, "t": t}
                queries.append(Query(k, {s: env[s] for s in ("M", "N", "K", "ldA", "t")}))
                expected.append((c.text, env, _values(obj, {s: v for s, v in env.items() if s in symbols.table})))
    results = run_binary(binary, [c.cpp for c in cases], queries)
    bad = []
    compared = 0
    for (text, env, mine), r in zip(expected, results):
        assert r.ok and r.values is not None, (text, env, r)
        theirs = [int(r.offset or 0) + v for v in r.values]
        compared += len(theirs)
        if mine != theirs:
            bad.append((text, env, mine[:8], theirs[:8]))
    assert not bad, bad[:3]
    assert compared > 10_000
