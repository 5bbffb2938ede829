"""The atoms of CuTe 4.2 as data (verifier/data/atoms.json) and their checks.

Ground truth is compiled CuTe: the data file is what the generator reads from the compiled headers (a sample is
regenerated here and compared field by field), every distinct layout of every atom is evaluated by compiled CuTe
and compared with the model's values, and each finding is replayed in compiled CuTe."""

from __future__ import annotations

import json
import subprocess

import pytest

from verifier.algebra.atoms import CopyAtom, MmaAtom, atoms, check, check_all, find, skipped
from verifier.cli.app import main
from verifier.notation.cpp import parse_layout
from verifier.oracle import atoms_gen
from verifier.oracle.cute_cpp import CppCase, Query, build, cute_include, run_binary

DEFECT = "SM80_16x8x32_S32S4S4S32_TN"
# The int4 16x8x32 B layout of #3140 is shared by the S4/U4 variants and their _SATURATE twins; the b1 16x8x128
# A layout is not congruent (CuTe rejects every evaluation of it).
EXPECTED_FINDINGS = {
    f"SM80_16x8x32_S32{a}{b}S32_TN{sat}": {("BLayout", "OVERLAP"), ("BLayout", "COVER")}
    for a in ("S4", "U4") for b in ("S4", "U4") for sat in ("", "_SATURATE")
} | {f"SM80_16x8x128_S32U1U1S32_TN_{op}": {("ALayout", "SHAPE")} for op in ("XORPOPC", "ANDPOPC")}


@pytest.fixture(scope="module")
def findings() -> dict[str, list]:
    return {a.name: f for a, f in check_all()}


def test_every_header_declaration_is_an_atom_or_skipped_with_a_reason():
    decls = atoms_gen.scan(cute_include())
    listed = {(a.header, a.line) for a in atoms()} | {(str(s["header"]), int(s["line"])) for s in skipped()}
    assert {(d.header, d.line) for d in decls} == listed
    assert len(atoms()) > 2000
    assert all(s["reason"] for s in skipped())
    # Only layouts a kernel parameterises are skipped: UMMA / SM120 type lists, TMA descriptors, and cp.async
    # widths CuTe itself refuses.
    for s in skipped():
        assert ("templated on" in str(s["reason"])) or "cp.async sizeof(TS) is not supported" in str(s["reason"])


def test_finds_the_3140_b_layout_defect_with_threads_and_values(findings):
    got = {(f.layout, f.id): f for f in findings[DEFECT]}
    assert set(got) == {("BLayout", "OVERLAP"), ("BLayout", "COVER")}
    assert got[("BLayout", "OVERLAP")].witnesses[0] == "T1V0 and T0V4 both hold (n=0,k=4)"
    assert got[("BLayout", "COVER")].witnesses[0] == "(n=0,k=20)"
    assert "96 of the 256 elements" in got[("BLayout", "COVER")].message


def test_no_other_atom_is_reported(findings):
    reported = {name: {(f.layout, f.id) for f in fs} for name, fs in findings.items() if fs}
    assert reported == EXPECTED_FINDINGS


@pytest.mark.cute
def test_the_findings_replay_in_compiled_cute(cute):
    """The overlap: compiled CuTe's BLayout maps T1V0 and T0V4 to the same index and never reaches 20 (k=20, n=0)
    ... ; the corrected stride (_64, the later CUTLASS fix) covers the tile; the b1 A layout does not compile."""
    b = "typename MMA_Traits<SM80_16x8x32_S32S4S4S32_TN>::BLayout{}"
    a = "typename MMA_Traits<SM80_16x8x128_S32U1U1S32_TN_XORPOPC>::ALayout{}"
    cases = [CppCase(b, ()), CppCase(a, ()),
             CppCase("make_layout(make_shape(make_shape(_4{},_8{}),make_shape(_8{})),"
                     "make_stride(make_stride(_64{},_1{}),make_stride(_8{})))", ())]
    binary = build(cases, unit=atoms_gen.traits_unit, flags=atoms_gen.FLAGS)
    res = run_binary(binary, cases, [Query(0), Query(1), Query(2)])
    values = res[0].values
    assert values is not None and len(values) == 256
    # (t, v) -> 1-D coordinate t + 32 * v
    assert values[1 + 32 * 0] == values[0 + 32 * 4] == 32
    assert 20 * 8 not in values and len(set(values)) == 160
    assert res[1].rejected is not None and "mismatched ranks" in res[1].rejected.lower()
    assert sorted(res[2].values or ()) == list(range(256))


def _distinct_layouts() -> dict[str, tuple[str, str, str]]:
    out: dict[str, tuple[str, str, str]] = {}
    for a in atoms():
        kind = "mma" if isinstance(a, MmaAtom) else "copy"
        for member, text in a.printed:
            out.setdefault(text, (kind, a.name, member))
    return out


@pytest.mark.cute
def test_every_atom_layout_evaluates_as_compiled_cute_does(cute):
    """Each distinct layout of the data file, taken from the traits of an atom that has it, printed and evaluated
    by compiled CuTe: the same print, size and cosize, and (up to 2**16 elements) the same value everywhere."""
    distinct = _distinct_layouts()
    keys = list(distinct)
    cases = [atoms_gen.member_case(*distinct[k]) for k in keys]
    binary = build(cases, unit=atoms_gen.traits_unit, flags=atoms_gen.FLAGS)
    res = run_binary(binary, cases, [Query(k) for k in range(len(cases))])
    compared = 0
    for text, r in zip(keys, res):
        if r.rejected:
            assert "mismatched ranks" in r.rejected.lower()  # the non-congruent b1 layout, and nothing else
            continue
        assert r.result == text
        model = parse_layout(text)
        assert r.size == str(model.size()) and r.cosize == str(model.cosize())
        if r.values is not None:
            assert list(r.values) == model.values()
            compared += 1
    assert compared >= 140  # the rest (GMMA shared-memory operands, TMEM copies) exceed 2**16 elements


@pytest.mark.cute
@pytest.mark.parametrize("index", [0, 1, 7, 23, 51])
def test_the_data_file_is_what_the_headers_give(cute, index):
    """A sample of the generator's instantiations, recompiled: the same printed layouts as the shipped file."""
    todo = [i for d in atoms_gen.scan(cute_include()) for i in atoms_gen.instances(d)[0]]
    part = todo[index::97][:8]
    binary = build([CppCase(i.cpp, ()) for i in part], unit=atoms_gen._unit([i.decl.kind for i in part]),
                   flags=atoms_gen.FLAGS)
    printed = atoms_gen._parse(subprocess.run([str(binary.path)], capture_output=True, text=True,
                                              check=True).stdout)
    shipped = {a["name"]: a for a in json.loads(atoms_gen.DATA_FILE.read_text())["atoms"]}
    for k, inst in enumerate(part):
        if k in binary.rejected:
            assert any(s["declaration"] == inst.cpp for s in skipped())
            continue
        row = shipped[inst.name]
        assert (row["header"], row["line"]) == (inst.decl.header, inst.decl.line)
        for key, value in printed[k].items():
            assert row[key] == value


def test_checks_accept_broadcast_and_reject_a_synthetic_gap():
    gmma = next(a for a in atoms() if a.name.startswith("SM90_64x64x16_F16F16F16_SS"))
    assert isinstance(gmma, MmaAtom) and gmma.a is not None
    assert any(str(d) == "_0" for d in [gmma.a.stride[0]]), "GMMA SS operands are broadcast to every thread"
    assert check(gmma) == []
    fixed = MmaAtom("fixed", "x.hpp", 1, (16, 8, 32), parse_layout("_32:_1"),
                    parse_layout("((_4,_8),(_8,_2)):((_128,_1),(_16,_8))"),
                    parse_layout("((_4,_8),(_8)):((_64,_1),(_8))"),
                    parse_layout("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"), None)
    assert check(fixed) == []
    wrong_threads = MmaAtom("thr", "x.hpp", 1, (16, 8, 32), parse_layout("_64:_1"), fixed.a, fixed.b, fixed.c, None)
    assert {f.id for f in check(wrong_threads)} == {"THR"}
    outside = MmaAtom("tile", "x.hpp", 1, (16, 8, 16), fixed.thr_id, fixed.a, fixed.b, fixed.c, None)
    assert "TILE" in {f.id for f in check(outside)}
    ldsm = find("SM75_U32x4_LDSM_N")
    assert isinstance(ldsm, CopyAtom) and check(ldsm) == []
    torn = CopyAtom("torn", "x.hpp", 1, ldsm.thr_id, ldsm.src, parse_layout("(_32,(_32,_4)):(_32,(_1,_2048))"),
                    parse_layout("(_32,_128):(_1,_32)"), None, None)
    ids = {f.id for f in check(torn)}
    assert {"COVER", "REF"} <= ids


def test_cli_atoms_check(capsys):
    assert main(["atoms", "--check"]) == 1
    out = capsys.readouterr().out
    assert f"{DEFECT}  [cute/atom/mma_traits_sm80.hpp:448]" in out
    assert "T1V0 and T0V4 both hold (n=0,k=4)" in out
    assert "2412 atoms checked" in out and ": 10 with findings" in out
    assert main(["atoms", "SM80_16x8x16_F16F16F16F16_TN", "--check", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["atoms"][0]["BLayout"] == "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))"
    assert doc["atoms"][0]["findings"] == []
    assert main(["atoms", "NO_SUCH_ATOM"]) == 2
    assert "no atom named" in capsys.readouterr().err
