"""GMMA shared-memory layouts (verifier/algebra/gmma.py) against compiled CuTe 4.2.

* ``smem_ptr_flag`` composed layouts print, recast and tile as CuTe's do: every ``Layout_{K,MN}_{INTER,SW32,SW64,
  SW128}_Atom<T>`` (``upcast<sizeof_bits<T>>`` of the atoms in bits, mma_traits_sm90_gmma.hpp:75-104) for every
  element width GMMA atoms are instantiated with, and ``tile_to_shape`` of each, on printed results and values;
* the canonical-layout check accepts every atom tiled to a CTA tile, with the descriptor fields, and rejects
  non-canonical layouts with the reason; the #3646 ``tile_to_shape`` of an 8-bit K_INTER atom to ``BLK_K0 = 8``.
"""

from __future__ import annotations

import itertools
import json

import pytest

from tests.support.compare import compare
from verifier.algebra.gmma import KINDS, MAJORS, atom, atom_bits, canonical_gmma
from verifier.algebra.registry import apply
from verifier.cli.app import main
from verifier.core.swizzle import SmemPtrFlag
from verifier.notation.cpp import parse
from verifier.oracle.cute_cpp import call_case, run_cases

# sizeof_bits of the element types GMMA takes: e4m3/e5m2/int8/uint8, half/bfloat16, tfloat32/float/int32, double.
ELEMENT_BITS = (8, 16, 32, 64)
ATOMS = list(itertools.product(MAJORS, KINDS, ELEMENT_BITS))


@pytest.fixture(scope="module")
def cute_atoms(cute):
    cases = [call_case("upcast", atom_bits(m, k), template=[b]) for m, k, b in ATOMS]
    cases += [call_case("tile_to_shape", atom(m, k, b), parse("(_128,_128)")) for m, k, b in ATOMS]
    return run_cases(cases)


@pytest.mark.cute
def test_atoms_are_what_cute_computes(cute_atoms) -> None:
    for (m, k, b), r in zip(ATOMS, cute_atoms[:len(ATOMS)], strict=True):
        ours = atom(m, k, b)
        assert r.ok and r.result == str(ours), (m, k, b, r.result, str(ours))
        assert isinstance(ours.offset, SmemPtrFlag) and ours.offset.bits == b
        assert compare(apply("upcast", b, atom_bits(m, k)), r) is None


@pytest.mark.cute
def test_tiled_atoms_are_what_cute_computes(cute_atoms) -> None:
    for (m, k, b), r in zip(ATOMS, cute_atoms[len(ATOMS):], strict=True):
        out = apply("tile_to_shape", atom(m, k, b), parse("(_128,_128)"))
        assert compare(out, r) is None, (m, k, b)


def test_smem_ptr_notation_round_trips() -> None:
    text = "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"
    x = parse(text)
    assert str(x) == text and x.offset == SmemPtrFlag(16)
    assert str(apply("upcast", 2, x).result) == "Sw<3,4,3> o smem_ptr[32b](unset) o (_8,_32):(_32,_1)"
    # An identity swizzle with an smem_ptr flag stays composed, as CuTe prints the INTER atoms.
    assert str(atom("K", "INTER", 16)) == "Sw<0,4,3> o smem_ptr[16b](unset) o (_8,_8):(_8,_1)"


@pytest.mark.parametrize(("major", "kind", "bits"), [a for a in ATOMS if a[2] <= 32])
def test_canonical_check_accepts_every_tiled_atom(major: str, kind: str, bits: int) -> None:
    a = atom(major, kind, bits)
    r, c0 = (int(x) for x in a.inner.shape)  # type: ignore[union-attr]
    shapes = [(max(r, 64), max(c0, 64))] + ([(2 * max(r, 128), max(c0, 128))] if bits == 16 else [])
    for m, k in shapes:
        shape = f"(_{m},_{k})"
        tile = apply("tile_to_shape", a, parse(shape)).result
        c = canonical_gmma(tile, bits, major)
        assert c.accepted, (major, kind, bits, shape, c.reason)
        assert c.layout_type == ("INTERLEAVE", "B32", "B64", "B128")[KINDS.index(kind)]
        if major == "K" and kind != "INTER":
            assert c.stride_byte_offset == 8 * (1 << KINDS.index(kind)) and c.leading_byte_offset == 1


def test_k_sw128_half_descriptor_fields() -> None:
    """K-major SW128 half: SBO = 1024 bytes (8 rows of 128 B), in 16-byte units 64."""
    tile = apply("tile_to_shape", atom("K", "SW128", 16), parse("(_64,_64)")).result
    c = canonical_gmma(tile, 16, "K")
    assert (c.layout_type, c.stride_byte_offset, c.leading_byte_offset) == ("B128", 64, 1)


@pytest.mark.parametrize(("smem", "bits", "major", "reason"), [
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", 16, "K", "Expected stride failure"),
    ("Sw<3,3,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", 16, "K", "Unsupported layout swizzle"),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_4):(_1,_64)", 16, "MN", "Expected K-size"),
    ("Sw<1,4,3> o smem_ptr[16b](unset) o (_4,_16):(_16,_1)", 16, "K", "MN-size multiple of 8"),
    # a plain layout is an unswizzled smem tensor (Swizzle<0,4,3>), INTERLEAVE with a row stride of 2 uint128_t
    ("(_64,_16):(_16,_1)", 16, "K", "Expected stride failure (stride<0,0> = 2, not 1)"),
    ("Sw<3,4,3> o _0 o (_64,_16):(_16,_1)", 16, "K", "no smem_ptr flag"),
    ("Sw<3,4,3> o smem_ptr[8b](unset) o (_64,_16):(_16,_1)", 16, "K", "Expected a B-bit pointer type"),
])
def test_canonical_check_rejects_with_the_reason(smem: str, bits: int, major: str, reason: str) -> None:
    c = canonical_gmma(parse(smem), bits, major)
    source = "pointer_flagged.hpp:64" if "pointer type" in reason else "mma_traits_sm90_gmma.hpp"
    assert not c.accepted and reason in c.reason and source in c.reason


@pytest.mark.cute
def test_issue_3646_k_inter_atom_of_8_bit_elements(cute) -> None:
    """BLK_K0 = 8 is not a multiple of size<1>(Layout_K_INTER_Atom<e5m2>) = 16: CuTe rejects tile_to_shape."""
    a = atom("K", "INTER", 8)
    bad, good = parse("(_128,_8)"), parse("(_128,_32)")
    r_bad, r_good = run_cases([call_case("tile_to_shape", a, bad), call_case("tile_to_shape", a, good)])
    assert r_bad.rejected is not None and apply("tile_to_shape", a, bad).rejection is not None
    assert compare(apply("tile_to_shape", a, good), r_good) is None


def test_cli(capsys) -> None:
    assert main(["gmma_atom", "K", "SW128", "16"]) == 0
    assert capsys.readouterr().out.strip() == "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"
    tile = str(apply("tile_to_shape", atom("MN", "SW64", 16), parse("(_64,_64)")).result)
    assert main(["gmma_canonical", tile, "--element-bits", "16", "--major", "MN", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["accepted"] and out["layout_type"] == "B64"
    assert main(["gmma_canonical", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", "--element-bits", "16",
                 "--major", "K"]) == 1
    assert capsys.readouterr().out.startswith("not canonical")


def test_the_canonical_checks_are_decided_as_problems() -> None:
    """``gmma_canonical`` / ``umma_canonical`` decide through ``engine.problem.decide`` (issue 27): the verdict's
    detail is the check's whole outcome (the descriptor's fields the command prints), its k-block and family
    passed through."""
    from verifier.algebra.gmma import canonical_umma, umma_atom
    from verifier.engine.problem import GmmaCanonical, decide
    from verifier.engine.verdicts import INVALID, VALID

    tile = apply("tile_to_shape", atom("MN", "SW64", 16), parse("(_64,_64)")).result
    v = decide(GmmaCanonical(tile, 16, "MN"))
    assert v.verdict == VALID and v.detail == canonical_gmma(tile, 16, "MN") and v.op == "canonical_gmma<MN>"
    assert v.result == v.detail.canonical  # type: ignore[attr-defined]
    narrow = decide(GmmaCanonical(tile, 16, "MN", k_block=8))
    assert narrow.detail == canonical_gmma(tile, 16, "MN", 8)
    u = umma_atom("MN", "SW128", 16)
    w = decide(GmmaCanonical(u, 16, "K", umma=True))
    assert w.detail == canonical_umma(u, 16, "K") and w.op == "canonical_umma<K>"
    assert w.verdict == (VALID if w.detail.accepted else INVALID)  # type: ignore[attr-defined]
