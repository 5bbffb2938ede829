"""TiledMMA and TiledCopy (verifier/algebra/tiled.py) against compiled CuTe 4.2: every MMA atom without a finding and a
sample of the GMMA atoms in TiledMMA configurations (atom layouts, permutations), and every copy atom of SM50-SM90
in TiledCopy configurations (make_tiled_copy, make_tiled_copy_A/B/C): the TV layouts, a thread's partition (its
layout and pointer offset), the fragments and retile, as CuTe prints them.  All configurations of one kind are
compiled in one program (cached by its source hash)."""

from __future__ import annotations

import pytest

from verifier.algebra.atoms import CopyAtom, MmaAtom, atoms, check, find
from verifier.algebra.tiled import (
    TiledCopy,
    TiledMMA,
    make_fragment_like,
    make_tiled_copy,
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
    make_tiled_copy_C_atom,
    make_tiled_mma,
)
from verifier.core.integers import D
from verifier.core.layouts import size
from verifier.notation.cpp import parse, parse_layout
from verifier.oracle import atoms_gen
from verifier.oracle.cute_cpp import CppBuilder, CppCase, Query, build, run_binary

THR_LAYOUTS = ["(_1,_1,_1):(_0,_0,_0)", "(_2,_2,_1):(_1,_2,_0)", "(_2,_1,_1):(_1,_0,_0)", "(_1,_2,_1):(_0,_1,_0)",
               "(_4,_1,_1):(_1,_0,_0)", "(_2,_4,_1):(_4,_1,_0)"]
WHAT = ["C", "A", "B", "partition_C", "partition_A", "fragment_B"]
C_TENSOR, A_TENSOR, B_TENSOR = "(_128,_128):(_1,_128)", "(_128,_64):(_64,_1)", "(_128,_64):(_1,_128)"


def _mma_atoms() -> list[MmaAtom]:
    plain = [a for a in atoms() if isinstance(a, MmaAtom) and "gmma" not in a.header and not check(a)]
    gmma = [a for a in atoms() if isinstance(a, MmaAtom) and a.header.endswith("mma_traits_sm90_gmma.hpp")]
    return plain + gmma[::40]


def _mma_configs() -> list[tuple[MmaAtom, str, tuple[str, ...], str, int]]:
    out = []
    for k, atom in enumerate(_mma_atoms()):
        for j in range(2):
            thr = THR_LAYOUTS[(k + 3 * j) % len(THR_LAYOUTS)] if atom.shape_mnk[0] < 64 else THR_LAYOUTS[(j * 2) % 3]
            perms: tuple[str, ...] = ()
            if (k + j) % 3 == 1:  # a permutation tile twice the atoms' extent along M, K untouched
                tl = parse_layout(thr)
                perms = (f"_{atom.shape_mnk[0] * int(tl.shape[0]) * 2}", "_")  # type: ignore[index]
            out.append((atom, thr, perms, WHAT[(k + j) % len(WHAT)], (37 * k + 11 * j) % 32))
    return out


MMA_CONFIGS = _mma_configs()


def _perm_model(p: str) -> object:
    from verifier.core.layouts import UNDERSCORE

    return UNDERSCORE if p == "_" else parse(p)


def _mma_case(atom: MmaAtom, thr: str, perms: tuple[str, ...], what: str, t: int) -> tuple[CppCase, object]:
    b = CppBuilder()
    p = ", ".join("_" if x == "_" else b.operand(parse(x)) for x in perms)
    mma = f"make_tiled_mma({atom.name}{{}}, {b.layout(parse_layout(thr))}{', make_tile(' + p + ')' if perms else ''})"
    model: TiledMMA = make_tiled_mma(atom, parse_layout(thr), [_perm_model(x) for x in perms])
    n_thr = int(model.thr_layout_vmnk.size())
    t = t % n_thr
    counting = "make_tensor(counting_iterator<long long>(0), {})"
    if what in ("C", "A", "B"):
        return CppCase(f"{mma}.get_layout{what}_TV()", ()), str(getattr(model, f"get_layout{what}_TV")())
    if what == "partition_C":
        code = f"{mma}.get_slice({t}).partition_C({counting.format(b.layout(parse_layout(C_TENSOR)))})"
        v = model.partition_C(parse_layout(C_TENSOR), D(t))
        return CppCase(code, ()), (str(v.layout), int(v.offset))
    if what == "partition_A":
        code = f"{mma}.get_slice({t}).partition_A({counting.format(b.layout(parse_layout(A_TENSOR)))})"
        v = model.partition_A(parse_layout(A_TENSOR), D(t))
        return CppCase(code, ()), (str(v.layout), int(v.offset))
    part = f"{mma}.get_slice({t}).partition_B({counting.format(b.layout(parse_layout(B_TENSOR)))}).layout()"
    return (CppCase(f"make_fragment_like({part})", ()),
            str(make_fragment_like(model.partition_B(parse_layout(B_TENSOR), D(t)).layout)))


ELEMENT = {8: "uint8_t", 16: "half_t", 32: "float", 64: "double"}


def _copy_configs() -> list[tuple[str, int, str, str, str, int]]:
    """(atom, element bits, builder, thr/mma, val, thread)."""
    out: list[tuple[str, int, str, str, str, int]] = []
    plain = [a for a in atoms() if isinstance(a, CopyAtom) and not a.header.endswith(("sm100.hpp",))
             and "LDSM" not in a.name and "STSM" not in a.name and "MOVM" not in a.name and "Shuffle" not in a.name]
    thr_vals = [("(_32,_8):(_8,_1)", "(_1,_{n}):(_0,_1)"), ("(_16,_8):(_1,_16)", "(_{n},_1):(_1,_0)"),
                ("(_8,_16):(_16,_1)", "(_1,_{n}):(_0,_1)"), ("(_4,_32):(_1,_4)", "(_{n},_2):(_1,_{n})")]
    for k, atom in enumerate(plain):
        name = atom.name
        atom_bits = int(atom.src.size()) // int(atom.src.shape[0]) if atom.src is not None else 1  # type: ignore[index]
        for j, bits in enumerate((8, 16, 32)):
            if atom_bits < bits and "AutoVectorizing" not in name:
                continue
            n = max(1, atom_bits // bits)
            thr, val = thr_vals[(k + j) % len(thr_vals)]
            out.append((name, bits, "make_tiled_copy", thr, val.format(n=n), (5 * k + 7 * j) % 128))
    for k, atom in enumerate(a for a in atoms() if isinstance(a, CopyAtom) and ("LDSM" in a.name or "STSM" in a.name)
                             and a.header.endswith(("sm75.hpp", "sm90.hpp"))):
        for j, which in enumerate(("A", "B", "C")):
            mma = "SM80_16x8x16_F32F16F16F32_TN"
            out.append((atom.name, 16, f"make_tiled_copy_{which}", mma, "", (3 * k + j) % 128))
    # The epilogue's copies of an accumulator fragment: as many values per thread as one atom moves.
    c_atoms = [("UniversalCopy<uint16_t,uint16_t>", 16), ("UniversalCopy<uint32_t,uint32_t>", 16),
               ("UniversalCopy<uint32_t,uint32_t>", 32), ("UniversalCopy<uint64_t,uint64_t>", 32),
               ("UniversalCopy<uint64_t,uint64_t>", 16), ("SM90_U32x1_STSM_N", 16), ("SM90_U32x2_STSM_N", 16),
               ("SM90_U32x4_STSM_N", 16), ("SM90_U16x8_STSM_T", 16)]
    for k, (name, bits) in enumerate(c_atoms):
        for j, mma in enumerate(("SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x8_F16F16F16F16_TN")):
            out.append((name, bits, "make_tiled_copy_C_atom", mma, "", (11 * k + 5 * j) % 128))
    return out


COPY_CONFIGS = _copy_configs()
COPY_WHAT = ["S_TV", "D_TV", "partition_S", "partition_D", "retile"]
S_TENSOR = "(_128,_64):(_64,_1)"


def _copy_case(k: int, name: str, bits: int, how: str, thr: str, val: str, t: int) -> tuple[CppCase, object]:
    b = CppBuilder()
    atom = f"Copy_Atom<{name}, {ELEMENT[bits]}>{{}}"
    if how == "make_tiled_copy":
        tc = f"make_tiled_copy({atom}, {b.layout(parse_layout(thr))}, {b.layout(parse_layout(val))})"
        model: TiledCopy = make_tiled_copy(find(name), bits, parse_layout(thr), parse_layout(val))  # type: ignore[arg-type]
    else:
        mma_text = f"make_tiled_mma({thr}{{}}, Layout<Shape<_2,_2,_1>>{{}}, Tile<_32,_32,_16>{{}})"
        tc = f"{how}({atom}, {mma_text})"
        mma = make_tiled_mma(find(thr), parse_layout("(_2,_2,_1):(_1,_2,_0)"),  # type: ignore[arg-type]
                             [parse("_32"), parse("_32"), parse("_16")])
        maker = {"make_tiled_copy_A": make_tiled_copy_A, "make_tiled_copy_B": make_tiled_copy_B,
                 "make_tiled_copy_C": make_tiled_copy_C, "make_tiled_copy_C_atom": make_tiled_copy_C_atom}[how]
        model = maker(find(name), bits, mma)  # type: ignore[arg-type]
    what = COPY_WHAT[k % len(COPY_WHAT)]
    n_thr = int(model.layout_tv.size()) // int(size(model.layout_tv, 1))
    t = t % n_thr
    tensor = parse_layout(S_TENSOR) if how == "make_tiled_copy" else parse_layout("(_32,_32):(_1,_32)")
    counting = f"make_tensor(counting_iterator<long long>(0), {b.layout(tensor)})"
    if what in ("S_TV", "D_TV"):
        return CppCase(f"{tc}.get_layout{what}()", ()), str(getattr(model, f"get_layout{what}")())
    if what in ("partition_S", "partition_D"):
        v = getattr(model, what)(tensor, D(t))
        return CppCase(f"{tc}.get_slice({t}).{what}({counting})", ()), (str(v.layout), int(v.offset))
    frag = "make_layout(make_shape(Int<8>{},Int<4>{},Int<2>{}))"
    return (CppCase(f"{tc}.get_slice(0).retile_D(make_tensor(counting_iterator<long long>(0), {frag})).layout()", ()),
            str(model.retile(parse_layout("(_8,_4,_2):(_1,_8,_32)"))))


def _run(cases: list[CppCase]) -> list:
    binary = build(cases, unit=atoms_gen.traits_unit, flags=atoms_gen.FLAGS)
    return run_binary(binary, cases, [Query(k) for k in range(len(cases))])


def test_enough_configurations_over_every_atom():
    assert len(MMA_CONFIGS) + len(COPY_CONFIGS) >= 200
    names = {a.name for a, *_ in MMA_CONFIGS}
    assert all(a.name in names for a in atoms() if isinstance(a, MmaAtom) and "gmma" not in a.header
               and not check(a))


@pytest.mark.cute
@pytest.mark.parametrize("part", range(3))
def test_tiled_mma_matches_compiled_cute(cute, part):
    chosen = MMA_CONFIGS[part::3]
    built = [_mma_case(*c) for c in chosen]
    res = _run([c for c, _ in built])
    bad = []
    for (atom, thr, perms, what, t), (_, model), r in zip(chosen, built, res):
        got = (r.result, int(r.offset or -1)) if isinstance(model, tuple) else r.result
        if r.rejected or got != model:
            bad.append((atom.name, thr, perms, what, t, r.rejected or got, model))
    assert not bad, bad[:3]


@pytest.mark.cute
def test_tiled_copy_matches_compiled_cute(cute):
    built = [_copy_case(k, *c) for k, c in enumerate(COPY_CONFIGS)]
    res = _run([c for c, _ in built])
    bad = []
    for cfg, (_, model), r in zip(COPY_CONFIGS, built, res):
        got = (r.result, int(r.offset or -1)) if isinstance(model, tuple) else r.result
        if r.rejected or got != model:
            bad.append((cfg, r.rejected or got, model))
    assert not bad, bad[:3]



def test_contracts_of_tiled_objects():
    from verifier.algebra.tiled import check_tiled, parse_tiled

    good = parse_tiled("make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN, (_2,_2,_1):(_1,_2,_0), <_32,_32,_16>)")
    assert check_tiled(good) == []  # type: ignore[arg-type]
    bad = check_tiled(parse_tiled("make_tiled_mma(SM80_16x8x32_S32S4S4S32_TN, (_2,_2,_1):(_1,_2,_0))"))  # type: ignore[arg-type]
    assert {(f.layout, f.id) for f in bad} == {("get_layoutB_TV", "OVERLAP"), ("get_layoutB_TV", "COVER")}
    copy = parse_tiled("make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16, (_16,_8):(_8,_1), "
                       "(_1,_8):(_0,_1))")
    assert check_tiled(copy) == []  # type: ignore[arg-type]
    assert str(copy).startswith("TiledCopy<SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>, 16b,")


def test_make_tiled_copy_c_atom_contract():
    from verifier.algebra.tiled import check_tiled, parse_tiled
    from verifier.core.errors import CuteRejection

    mma = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (_2,_2,_1):(_1,_2,_0), <_32,_32,_16>)"
    for atom, bits in (("UniversalCopy<uint32_t,uint32_t>", 16), ("SM90_U32x4_STSM_N", 16),
                       ("UniversalCopy<uint64_t,uint64_t>", 32)):
        tc = parse_tiled(f"make_tiled_copy_C_atom({atom}, {bits}, {mma})")
        # STSM's registers and shared-memory rows split their modes differently: still congruent (threads and
        # values per thread), as copy() needs; compiled CuTe prints both (test_tiled_copy_matches_compiled_cute).
        assert isinstance(tc, TiledCopy) and check_tiled(tc) == []
        # Each thread copies one atom's values of its C fragment (NumValSrc), never more.
        assert int(size(tc.layout_tv, 1)) == int(size(tc.atom_src, 1))
    # copy_atom.hpp:459: an atom moving more values than a thread's C holds does not compile.
    with pytest.raises(CuteRejection, match="8 values exceed the MMA's 4"):
        parse_tiled("make_tiled_copy_C_atom(SM90_U32x4_STSM_N, 16, "
                    "make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN, (_1,_1,_1):(_0,_0,_0)))")


def test_every_tiled_builder_and_query_passes_the_operand_prefilter() -> None:
    """``run.problems`` loads the tiled module (and the atom tables) only for a text calling a name of
    ``algebra.tiled_notation`` (issue 16: start-up), the one list of the notation's names that the parser of
    ``tiled.py`` reads too (issue 27: no second table of them)."""
    import subprocess
    import sys

    from verifier.algebra import tiled, tiled_notation
    from verifier.core.symbols import Symbols
    from verifier.run.problems import operands

    assert tiled.NAMES is tiled_notation.NAMES
    assert {"partition_C", "partition_S", "retile_D", "get_layoutC_TV", "make_tiled_mma"} <= set(tiled.NAMES)
    assert all(tiled_notation.is_tiled_text(f" {n} (x)") for n in tiled.NAMES)
    assert not tiled_notation.is_tiled_text("make_tiled(x)") and not tiled_notation.is_tiled_text("(_4,_8):(_1,_4)")
    probe = ("import sys; from verifier.core.symbols import Symbols; from verifier.run.problems import operands; "
             "operands('coalesce', ['(_4,M):(_1,_4)'], Symbols()); print('verifier.algebra.tiled' in sys.modules, "
             "'verifier.algebra.atoms' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.split() == ["False", "False"], loaded
    text = "get_layoutC_TV(make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN, (_2,_2,_1):(_1,_2,_0), <_32,_32,_16>))"
    (tv,) = operands("coalesce", [text], Symbols())
    assert int(size(tv)) == 32 * 32  # C's thread-value layout covers the 32x32 tile
