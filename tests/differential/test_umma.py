"""Blackwell UMMA shared-memory layouts (verifier/algebra/gmma.py: ``umma_atom``, ``canonical_umma``) against
compiled CuTe 4.2's ``UMMA::make_umma_desc<Major>`` (mma_traits_sm100.hpp:205-308), run on the host: every UMMA atom
(GMMA's eight and ``Layout_MN_SW128_32B_Atom``) of 8-, 16- and 32-bit elements tiled to a CTA tile is accepted with
the descriptor's layout type and byte offsets CuTe writes, and each non-canonical layout is rejected with the
``static_assert`` CuTe fails.  #3089: the header's comment gives the MN-major SWIZZLE_128B_BASE32B canonical form
as ``((8,n),(4,k)):((1,LBO),(4,SBO))`` in uint128_t units (mma_traits_sm100.hpp:175, 246), but the code checks
``stride<1,0> == SwizzleAtomMNSize == 8`` (:232-236, :260-262): the atom itself has 8 there, and a layout of the
commented form is refused by compiled CuTe."""

from __future__ import annotations

import itertools
import json

import pytest

from tests.support.compare import compare
from verifier.algebra.gmma import MAJORS, UMMA_KINDS, UMMA_LAYOUT_CODES, canonical_umma, umma_atom, umma_atom_bits
from verifier.algebra.registry import apply
from verifier.cli.app import main
from verifier.notation.cpp import parse
from verifier.oracle import cute_cpp
from verifier.oracle.cute_cpp import CppBuilder, CppCase, Query, call_case, run_cases

_HEADER = """#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
// make_umma_desc<Major> on the tensor an MMA reads: layout type, SBO and LBO packed in one integer.
template <class T, int MN, class L> long long umma_code(L const& l) {
  auto t = cute::make_tensor(cute::make_smem_ptr((T*)nullptr), l);
  constexpr auto major = MN ? cute::UMMA::Major::MN : cute::UMMA::Major::K;
  auto d = cute::UMMA::make_umma_desc<major>(t);
  return 10000000000LL * int(d.layout_type_) + 100000LL * int(d.stride_byte_offset_) + int(d.leading_byte_offset_);
}"""


def _unit(cases: list[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    text, spans = cute_cpp._translation_unit(cases, rejected)
    n = _HEADER.count("\n") + 1
    return _HEADER + "\n" + text, {k: (a + n, b + n) for k, (a, b) in spans.items()}


# The commented canonical form ((8,n),(4,k)):((1,LBO),(4,SBO)) in uint128_t units, as a layout of halves.
COMMENT_FORM = "Sw<2,5,2> o smem_ptr[16b](unset) o ((_64,_2),(_4,_4)):((_1,_256),(_32,_512))"
_TYPES = {8: "uint8_t", 16: "cute::half_t", 32: "float"}
ELEMENT_BITS = (8, 16, 32)
ATOMS = [(m, k, b) for m, k, b in itertools.product(MAJORS, UMMA_KINDS, ELEMENT_BITS)
         if not (m == "K" and k == "SW128_32B")]


def _tiles() -> list[tuple[str, object, int, str]]:
    """(what, tile, element bits, major): every atom tiled to a CTA tile, then non-canonical layouts."""
    out = []
    for m, k, b in ATOMS:
        a = umma_atom(m, k, b)
        r, c = (int(x) for x in a.inner.shape)  # type: ignore[union-attr]
        shape = f"(_{max(r, 128)},_{max(c, 64)})"
        out.append((f"{m} {k} {b}b {shape}", apply("tile_to_shape", a, parse(shape)).result, b, m))
    bad = [
        # #3089: the commented BASE32B form, stride<1,0> = 4 uint128_t, refused
        ("#3089 comment form", COMMENT_FORM, 16, "MN"),
        ("64-byte base swizzle", "Sw<2,6,2> o smem_ptr[16b](unset) o (_64,_16):(_1,_64)", 16, "MN"),
        ("BASE32B for K-major", "Sw<2,5,2> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", 16, "K"),
        ("K-major stride", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", 16, "K"),
        ("MN-major stride", "Sw<1,4,3> o smem_ptr[16b](unset) o (_64,_16):(_1,_64)", 16, "MN"),
        ("MN-size", "Sw<1,4,3> o smem_ptr[16b](unset) o (_4,_16):(_16,_1)", 16, "K"),
        ("S = 2 with M = 4", "Sw<2,4,2> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", 16, "K"),
    ]
    return out + [(w, parse(s), b, m) for w, s, b, m in bad]


TILES = _tiles()


@pytest.fixture(scope="module")
def cute_descs(cute):
    cases = []
    for _, tile, bits, major in TILES:
        b = CppBuilder()
        kb = 256 // bits
        code = (f"umma_code<{_TYPES[bits]}, {int(major == 'MN')}>(composition({b.operand(tile)}, "
                f"make_tile(_, Layout<Int<{kb}>>{{}})))")
        cases.append(b.case(code))
    binary = cute_cpp.build(cases, unit=_unit)
    return cute_cpp.run_binary(binary, cases, [Query(k) for k in range(len(cases))])


@pytest.mark.cute
def test_make_umma_desc_is_what_compiled_cute_computes(cute_descs) -> None:
    accepted = rejected = 0
    for (what, tile, bits, major), r in zip(TILES, cute_descs, strict=True):
        c = canonical_umma(tile, bits, major)
        if r.rejected is not None:
            assert not c.accepted, (what, c.reason, r.rejected)
            assert c.reason.split(" (")[0].split(":")[0] in r.rejected, (what, c.reason, r.rejected)
            rejected += 1
            continue
        assert c.accepted, (what, c.reason)
        code = int(r.result or "0")
        want = (code // 10**10, code // 10**5 % 10**5, code % 10**5)
        assert (UMMA_LAYOUT_CODES[c.layout_type or ""], c.stride_byte_offset, c.leading_byte_offset) == want, \
            (what, c, want)
        accepted += 1
    assert accepted == len(ATOMS) and rejected == len(TILES) - len(ATOMS)


@pytest.mark.cute
def test_umma_atoms_are_what_cute_computes(cute) -> None:
    results = run_cases([call_case("upcast", umma_atom_bits("MN", "SW128_32B"), template=[b]) for b in ELEMENT_BITS])
    for b, r in zip(ELEMENT_BITS, results, strict=True):
        assert r.result == str(umma_atom("MN", "SW128_32B", b))
        assert compare(apply("upcast", b, umma_atom_bits("MN", "SW128_32B")), r) is None


def test_issue_3089_the_atom_has_stride_8_where_the_comment_says_4() -> None:
    tile = apply("tile_to_shape", umma_atom("MN", "SW128_32B", 16), parse("(_128,_64)")).result
    c = canonical_umma(tile, 16, "MN")
    assert c.accepted and c.layout_type == "SWIZZLE_128B_BASE32B", c
    assert c.canonical is not None and c.canonical.split(":")[1].split(",")[2] == "(_8", c.canonical
    bad = canonical_umma(parse(COMMENT_FORM), 16, "MN")
    assert not bad.accepted and "stride<1,0> = 4, not 8" in bad.reason, bad.reason


def test_cli(capsys) -> None:
    tile = str(apply("tile_to_shape", umma_atom("MN", "SW128_32B", 16), parse("(_128,_64)")).result)
    assert main(["umma_canonical", tile, "--element-bits", "16", "--major", "MN", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["accepted"] and out["layout_type"] == "SWIZZLE_128B_BASE32B"
    assert main(["umma_canonical", "Sw<2,5,2> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", "--element-bits", "16",
                 "--major", "K"]) == 1
    assert "invalid for Major-K" in capsys.readouterr().out
    assert main(["umma_atom", "MN", "SW128_32B", "16"]) == 0
    assert capsys.readouterr().out.strip() == "Sw<2,5,2> o smem_ptr[16b](unset) o (_64,_4):(_1,_64)"
