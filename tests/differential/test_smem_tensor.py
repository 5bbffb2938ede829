"""Shared-memory tensors of flagged layouts (issue 29, classes 1 and 6) against the CuTe objects they are judged by.

* ``Sw<B,M,S> o smem_ptr[Nb](unset) o L`` is used through ``make_tensor(make_smem_ptr(p), L)``, a ``swizzle_ptr``
  whose swizzle XORs the byte address (pointer_flagged.hpp:57-66, pointer_swizzle.hpp:86-87): the model's
  ``smem_bit_address`` is the address ``&t(i)`` compiled CuTe computes, for every element width a flag can have
  (1, 2, 4 and 6 bits through a ``subbyte_iterator``; 8 to 64 bits through a pointer), negative offsets and masks
  reaching bit 31 included; ``conflict_free``, ``bank_conflicts``, ``in_bounds`` and the picture use it;
* the issue's examples: ``Sw<3,3,3> o smem_ptr[16b]`` read row by row takes 2 wavefronts (threads 0 and 4 on bank 0),
  the K-SW128 atom ``Sw<3,4,3> o smem_ptr[16b]`` is conflict-free;
* ``make_gmma_desc`` / ``make_umma_desc`` compile only for a flag of the element width, and not for the unflagged
  ``composition(Swizzle<3,4,3>{}, L)``; they take a plain layout and an identity swizzle of any base as
  Swizzle<0,4,3> (INTERLEAVE / SWIZZLE_NONE).
"""

from __future__ import annotations

import json

import pytest

from verifier.algebra.gmma import UMMA_LAYOUT_CODES, canonical_gmma, canonical_umma
from verifier.cli.app import main
from verifier.core.integers import S
from verifier.core.swizzle import ComposedLayout, Swizzle, smem_bit_address
from verifier.core.symbols import Symbols
from verifier.engine.banks import AccessModel, count
from verifier.engine.checks import check
from verifier.engine.verdicts import PROVED, REFUTED
from verifier.notation.cpp import parse
from verifier.oracle.adversarial.smem import CPP_TYPES, GMMA_CODES, DescCase, compiled
from verifier.present.pictures import layout_picture

SW128_K = "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"
SW333 = "Sw<3,3,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"
INT4_SW64 = "Sw<2,4,3> o smem_ptr[4b](unset) o (_8,_256):(_256,_1)"
INT4_SW128 = "Sw<3,4,3> o smem_ptr[4b](unset) o (_8,_256):(_256,_1)"
ADDRESSES = [
    (SW333, 16), (SW128_K, 16),
    ("Sw<1,0,1> o smem_ptr[1b](unset) o _32:_1", 1),
    ("Sw<1,0,1> o smem_ptr[2b](unset) o (_4,_4):(_4,_1)", 2),
    ("Sw<2,0,2> o smem_ptr[4b](unset) o (_8,_8):(_8,_1)", 4),
    ("Sw<1,0,1> o smem_ptr[6b](unset) o _16:_1", 6),
    ("Sw<2,4,3> o smem_ptr[8b](unset) o (_16,_32):(_32,_1)", 8),
    ("Sw<3,4,3> o smem_ptr[32b](unset) o (_8,_32):(_32,_1)", 32),
    ("Sw<2,5,2> o smem_ptr[64b](unset) o (_8,_16):(_1,_8)", 64),
    ("Sw<1,0,1> o smem_ptr[16b](unset) o _8:_-1", 16),           # a negative offset wraps the uintptr_t
    ("Sw<1,30,1> o smem_ptr[16b](unset) o _4:_268435456", 16),    # an int mask of bit 31, sign-extended
    ("Sw<1,30,1> o smem_ptr[32b](unset) o _4:_536870912", 32),    # ... over byte addresses past 2^31
    ("Sw<2,26,-3> o smem_ptr[32b](unset) o _8:_16777216", 32),
    ("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", 16),                   # no flag: the swizzle acts on element offsets
    (INT4_SW64, 4), (INT4_SW128, 4),                               # int4 K-major rows of 128 bytes
    ("Sw<1,0,1> o smem_ptr[16b](unset) o _16:_1", 16),             # a swizzle inside the element: misaligned
    ("Sw<1,0,1> o _0 o _16:_1", 16),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_1,_8)", 16),
]


@pytest.fixture(scope="module")
def cute_addresses(cute):
    codes = []
    for text, bits in ADDRESSES:
        from verifier.oracle.cute_cpp import CppBuilder

        codes.append(f"bit_addresses<{CPP_TYPES[bits]}>({CppBuilder().operand(parse(text))})")
    return compiled(codes)


@pytest.mark.cute
def test_the_model_is_the_address_compiled_cute_computes(cute_addresses) -> None:
    for (text, bits), truth in zip(ADDRESSES, cute_addresses, strict=True):
        smem = parse(text)
        assert isinstance(truth, list), (text, truth)
        ours = [int(smem_bit_address(smem, bits, S(i))) for i in range(len(truth))]
        assert ours == truth, (text, ours, truth)
        # the symbolic form, at each coordinate, is the same address
        from verifier.core.integers import substitute, symbol

        sym = smem_bit_address(smem, bits, symbol("i"))
        assert [int(substitute(sym, {"i": i})) for i in range(len(truth))] == truth, text


@pytest.mark.cute
def test_the_issue_examples_against_the_compiled_tensor(cute_addresses) -> None:
    model = AccessModel(16, 128)
    access = parse("8:_1")
    bytes_333 = [a // 8 for a in cute_addresses[0][:8]]
    bytes_128 = [a // 8 for a in cute_addresses[1][:8]]
    assert bytes_333 == [0, 144, 288, 432, 512, 656, 800, 944]
    assert bytes_128 == [0, 144, 288, 432, 576, 720, 864, 1008]
    assert count(bytes_333, model)[0].wavefronts == 2 and count(bytes_128, model)[0].wavefronts == 1

    v = check("conflict_free", [parse(SW333), access], Symbols(), element_bits=16, access_bits=128)
    assert v.verdict == REFUTED and v.counterexample is not None
    i, j = v.counterexample.coordinate  # type: ignore[misc]
    assert (bytes_333[i] // 4) % 32 == (bytes_333[j] // 4) % 32 and bytes_333[i] // 4 != bytes_333[j] // 4
    v = check("conflict_free", [parse(SW128_K), access], Symbols(), element_bits=16, access_bits=128)
    assert v.verdict == PROVED, v.reason


@pytest.mark.cute
def test_equivalent_and_surjective_compare_the_tensors_addresses(cute_addresses) -> None:
    """``equivalent`` and ``surjective`` of a flagged layout judge the elements the tensor addresses, not the layout's
    element offsets: the K-SW128 atom (a byte swizzle of 16-bit elements) is the element swizzle ``Sw<3,3,3>``, and
    ``Sw<3,3,3> o smem_ptr[16b]`` is not; each verdict is the compiled tensors', and a refutation's index is one where
    their addresses differ."""
    truth = {text: [a // bits if a % bits == 0 else -1 for a in addrs]
             for (text, bits), addrs in zip(ADDRESSES, cute_addresses, strict=True) if bits == 16}
    plain = "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"
    pairs = [(SW128_K, plain), (SW333, plain), (SW128_K, SW333),
             ("Sw<1,0,1> o smem_ptr[16b](unset) o _16:_1", "Sw<1,0,1> o _0 o _16:_1")]
    for a, b in pairs:
        v = check("equivalent", [parse(a), parse(b)], Symbols())
        same = truth[a] == truth[b]
        assert v.verdict == (PROVED if same else REFUTED), (a, b, v.reason)
        if not same:
            i = v.counterexample.coordinate  # type: ignore[union-attr]
            assert truth[a][i] != truth[b][i], (a, b, i)
            assert (v.counterexample.expected, v.counterexample.actual) == (truth[a][i], truth[b][i])  # type: ignore[union-attr]
    for text, elements in truth.items():
        if "smem_ptr" not in text:
            continue
        v = check("surjective", [parse(text), S(len(elements))], Symbols())
        onto = set(elements) >= set(range(len(elements)))
        assert v.verdict == (PROVED if onto else REFUTED), (text, v.reason)
        if not onto:
            assert v.counterexample.expected not in elements  # type: ignore[union-attr]


@pytest.mark.cute
def test_sub_byte_elements_read_row_by_row(cute_addresses) -> None:
    """4-bit elements, 128-bit reads (32 elements) of row t: the 64-byte swizzle of 128-byte rows leaves rows 0 and 4
    on bank 0 (2 wavefronts), the 128-byte swizzle does not; the tool's verdicts are those of the compiled bytes."""
    model = AccessModel(4, 128)
    access = parse("8:_1")
    for text, want in ((INT4_SW64, 2), (INT4_SW128, 1)):
        truth = cute_addresses[[t for t, _ in ADDRESSES].index(text)]
        starts = truth[:8]
        assert all(b % 128 == 0 for b in starts), starts
        assert count([b // 8 for b in starts], model)[0].wavefronts == want
        v = check("conflict_free", [parse(text), access], Symbols(), element_bits=4, access_bits=128)
        assert v.verdict == (PROVED if want == 1 else REFUTED), (text, v.reason)


def test_bank_conflicts_counts_the_byte_swizzle(capsys) -> None:
    args = ["8:_1", "--element-bits", "16", "--access-bits", "128", "--json"]
    assert main(["bank_conflicts", SW128_K, *args]) == 0
    assert json.loads(capsys.readouterr().out)["max_wavefronts"] == 1
    assert main(["bank_conflicts", SW333, *args]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["max_wavefronts"] == 2
    assert out["phases"][0]["words"] == [{"thread": 0, "address": 0}, {"thread": 4, "address": 512}]


def test_a_flag_of_another_width_is_bad_input(capsys) -> None:
    """make_tensor's static_assert "Expected a B-bit pointer type." (pointer_flagged.hpp:64)."""
    rc = main(["check", "conflict_free", SW128_K.replace("16b", "8b"), "8:_1", "--element-bits", "16",
               "--access-bits", "128"])
    err = capsys.readouterr().err
    assert rc == 2 and "Expected a B-bit pointer type" in err and "pointer_flagged.hpp:64" in err


def test_in_bounds_and_picture_of_a_flagged_layout() -> None:
    """In elements, Sw<1,0,1> o smem_ptr[16b] moves odd elements half an element: the last one ends past 8."""
    smem = parse("Sw<1,0,1> o smem_ptr[16b](unset) o _8:_1")
    assert [c.label for c in layout_picture(smem).cells] == ["0", "1.5", "2", "3.5", "4", "5.5", "6", "7.5"]
    v = check("in_bounds", [smem, S(8)], Symbols())
    assert v.verdict == REFUTED and v.counterexample is not None and v.counterexample.coordinate == 7
    assert check("in_bounds", [smem, S(9)], Symbols()).verdict == PROVED
    assert check("in_bounds", [parse(SW128_K), S(512)], Symbols()).verdict == PROVED


# -- descriptors -----------------------------------------------------------------------------------------------

# Layout_K_INTER_Atom<half_t> tiled to (_64,_16), without its flag.
INTER_K = "((_8,_8),(_8,_2)):((_8,_64),(_1,_512))"
DESCRIPTORS = [
    DescCase(parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"), 16, "K", False),              # the issue: no flag
    DescCase(parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"), 16, "K", True),
    DescCase(parse("Sw<3,4,3> o smem_ptr[8b](unset) o (_8,_64):(_64,_1)"), 16, "K", False),  # the issue: 8b flag
    DescCase(parse("Sw<3,4,3> o smem_ptr[8b](unset) o (_8,_64):(_64,_1)"), 16, "K", True),
    DescCase(parse(SW128_K), 16, "K", False),
    DescCase(parse(SW128_K), 16, "K", True),
    DescCase(parse(INTER_K), 16, "K", False),                                               # plain: INTERLEAVE
    DescCase(parse(INTER_K), 16, "K", True),
    DescCase(parse(f"Sw<0,5,2> o smem_ptr[16b](unset) o {INTER_K}"), 16, "K", False),       # identity decays
    DescCase(parse(f"Sw<0,6,-3> o smem_ptr[16b](unset) o {INTER_K}"), 16, "K", True),
    DescCase(parse("(_64,_16):(_16,_1)"), 16, "K", False),
    # make_composed_layout(Swizzle<0,4,3>{}, _0, L) without a flag: the k-block's composition decays it to a
    # plain layout (K = 32 halves > 16); the whole (K = 16) tile keeps it composed, which has no layout_type
    DescCase(ComposedLayout(Swizzle(0, 4, 3), S(0), parse(INTER_K)), 16, "K", True),
    DescCase(ComposedLayout(Swizzle(0, 4, 3), S(0), parse("((_8,_8),(_8,_4)):((_8,_64),(_1,_512))")), 16, "K",
             False),
]


@pytest.mark.cute
def test_descriptors_are_what_compiled_cute_builds(cute) -> None:
    truths = compiled([d.code() for d in DESCRIPTORS])
    for d, truth in zip(DESCRIPTORS, truths, strict=True):
        c = (canonical_umma if d.umma else canonical_gmma)(d.tile, d.bits, d.major)
        if isinstance(truth, tuple):
            code = (UMMA_LAYOUT_CODES if d.umma else GMMA_CODES)[c.layout_type or ""] if c.accepted else None
            assert (code, c.stride_byte_offset, c.leading_byte_offset) == truth, (d.command(), c, truth)
        else:
            assert not c.accepted, (d.command(), c, truth)
    assert not isinstance(truths[0], tuple) and "layout_type" in str(truths[0])
    assert "Expected a B-bit pointer type" in str(truths[2])
    assert isinstance(truths[6], tuple) and isinstance(truths[8], tuple)
    assert not isinstance(truths[-2], tuple) and isinstance(truths[-1], tuple)


def test_descriptor_reasons(capsys) -> None:
    assert main(["gmma_canonical", "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)", "--element-bits", "16",
                 "--major", "K"]) == 1
    assert "no smem_ptr flag" in capsys.readouterr().out
    assert main(["umma_canonical", "Sw<3,4,3> o smem_ptr[8b](unset) o (_8,_64):(_64,_1)", "--element-bits", "16",
                 "--major", "K"]) == 1
    assert "Expected a B-bit pointer type. " in capsys.readouterr().out
