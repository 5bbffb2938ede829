"""Ptr-array grouped GEMMs (verifier/library/grouped.py): an SM100 1SM, an SM100 2SM and an SM90 grouped key derived
from compiled CUTLASS, their layouts verified per group with their non-grouped siblings' checks, and their findings
replayed on compiled CUTLASS (can_implement with the host problem shapes, then CuTe's host TMA construction of the
group's descriptor); the grouped routing itself without compiling."""

from __future__ import annotations

import json
from typing import Any

import pytest

from verifier.library import derive, grouped, sm100
from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group, payload
from verifier.library.verify import SUPPORTED_MAINLOOPS, _operands, problems_of, verify_key

SM100_1SM = "cutlass3x_sm100_tensorop_gemm_grouped_f16_f16_f16_f16_f16_64x128x64_1x1x1_0_nnn_align8_1sm"
SM100_2SM = "cutlass3x_sm100_tensorop_gemm_grouped_f16_f16_f16_f16_f16_128x128x64_2x1x1_0_nnn_align8_2sm_epi_tma"
# blockwise-scaled (e4m3, 1x2x1: A multicast over 2): A and B verified, its scale factors not derived
SM100_BLOCKWISE = ("cutlass3x_sm100_tensorop_gemm_grouped_64x128f32xe4m3_32x128f32xe4m3_f32_f16_f16_64x32x128_1x2x1_0_"
                   "nnn_align16_1sm")
# block-scaled (mxf8f6f4 with e4m3 data, a run-time cluster): A and B verified, its scale factors not derived
SM100_BLOCKSCALED = ("cutlass3x_sm100_bstensorop_gemm_grouped_ue8m0xe4m3_ue8m0xe4m3_f32_void_f32_256x128x128_0x0x1_0_"
                     "tnt_align16_o_vs32_2sm_epi_tma")
# SM90 blockwise-scaled FP8 with a no-smem epilogue (DefaultEpilogueArray: no C/D conjunct)
SM90_BLOCKWISE = ("cutlass3x_sm90_tensorop_gemm_grouped_1x128f32xe4m3_256x128f32xe5m2_f32_f32_f32_128x256x128_2x1x1_0_"
                  "tnn_align16_warpspecialized_cooperative_epi_nosmem")
SM90 = ("cutlass3x_sm90_tensorop_gemm_grouped_f16_f16_f16_f16_f16_128x256x64_1x2x1_0_nnn_align8_warpspecialized_"
        "cooperative_epi_tma")
TOOL, CUTLASS = "test-tool", "4.2.0"

# What compiled CUTLASS 4.2 printed for the SM90 key (derive's and grouped_show's lines): the no-compile tests
# start from it.
DERIVED_SM90: dict[str, Any] = {
    "SMEM_A": "Sw<3,4,3> o smem_ptr[16b](unset) o ((_64,_2),(_8,_8),(_1,_4)):((_1,_4096),(_64,_512),(_0,_8192))",
    "SMEM_B": "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_32),(_64,_1),(_1,_4)):((_64,_512),(_1,_0),(_0,_16384))",
    "ATOM_A": "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_8):(_1,_64)",
    "ATOM_B": "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",
    "TILE": "(_128,_256,_64)", "STAGES": 4, "BITS_A": 16, "BITS_B": 16,
    "STRIDE_A": "cute::tuple<cute::C<1>, long int, cute::C<0> >*",
    "STRIDE_B": "cute::tuple<long int, cute::C<1>, cute::C<0> >*",
    "STRIDE_C": "cute::tuple<cute::C<1>, long int, cute::C<0> >*",
    "STRIDE_D": "cute::tuple<cute::C<1>, long int, cute::C<0> >*",
    "MAINLOOP": "cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<4, cute::tuple<cute::C<1>, cute::C<2>, "
                "cute::C<1> >, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative>",
    "EPI_DEFAULT": 0, "GROUPED": "1",  # printed, not an int tag
    "TMA_TENSOR_A": "(1024,1024,1):(_1@0,_1@1,_0)", "TMA_TENSOR_B": "(1024,1024,1):(_1@1,_1@0,_0)",
}
FIELDS_SM90: dict[str, Any] = {
    "arch": "90a", "gemm_kind": "GroupedUniversal3x", "is_3x": True, "element_a": "f16", "element_b": "f16",
    "element_c": "f16", "element_d": "f16", "layout_a": "ColumnMajor", "layout_b": "ColumnMajor",
    "layout_c": "ColumnMajor", "layout_d": "ColumnMajor", "align_a": 8, "align_b": 8, "align_c": 8, "align_d": 8,
}


def test_a_grouped_key_is_checked_per_group_over_a_unit_batch() -> None:
    assert grouped.is_grouped(DERIVED_SM90) and DERIVED_SM90["MAINLOOP"].startswith(SUPPORTED_MAINLOOPS)
    ops, strides, accept = _operands(FIELDS_SM90, DERIVED_SM90)
    a, b = ops
    # one group's gmem tensor: (R, K, _1) with the group's stride, whose batch mode is _0; L is no extent of it
    assert a.problems["tma"]["args"][2] == "(M,K,_1):(_1,ldA,_0)"
    assert b.problems["tma"]["args"][2] == "(N,K,_1):(ldB,_1,_0)"
    # load_init tiles the TMA tensor compiled CUTLASS printed (get_tma_tensor of (M,K,mock_L = 1))
    assert a.problems["tiling"]["args"][0] == "(M,K,_1):(_1@0,_1@1,_0)" and a.derivation["tiling"] == "cutlass"
    assert a.names == ["ldA"] and b.names == ["ldB"]
    # can_implement with the host problem shapes: A's M, B's K, and C's and D's M (the TMA epilogue) aligned
    assert accept == ["K % 8 == 0", "M % 8 == 0"]
    assert grouped.sources(DERIVED_SM90) == grouped.ACCEPTANCE_SOURCES[grouped.SM90_POLICY]


def test_a_grouped_keys_epilogue_is_not_derived_and_has_no_problem() -> None:
    checks, findings = grouped.not_derived_parts(DERIVED_SM90) or ({}, [{}])
    assert checks["epilogue"]["verdict"] == "not derived" and findings == []
    p = {"key": "k", "fields": FIELDS_SM90, "tool": TOOL, "cutlass": CUTLASS}
    found = problems_of(p, DERIVED_SM90)
    # the mainloop's problems only (smem, box, tiling, box under aligned strides, per operand): no epilogue one;
    # of the units shared with other keys, the smem stages only (no epilogue partitions)
    shared = [q["name"] for q in found.values() if q["op"] == "shared"]
    assert shared and all(n.startswith("smem stage") for n in shared)
    assert sorted(q["name"] for q in found.values() if q["op"] != "shared") == sorted(
        f"{n} {x}" if n != "tma with aligned strides" else f"tma {x} with aligned strides"
        for x in ("A", "B") for n in ("smem", "tma", "tiling", "tma with aligned strides"))


def test_what_is_not_a_grouped_key() -> None:
    # a non-grouped key, and a GROUPED line under a mainloop that is not modelled, keep their usual routes
    plain = {**DERIVED_SM90, "MAINLOOP": "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4>"}
    del plain["GROUPED"]
    assert not grouped.is_grouped(plain) and grouped.batch_extent(plain) == "L"
    assert grouped.not_derived_parts(plain) is None and grouped.sources(plain) is None
    other = {**DERIVED_SM90, "MAINLOOP": "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedSparse<4>"}
    assert not grouped.is_grouped(other)
    assert grouped.SM100_POLICY in sm100.MAINLOOPS


@pytest.fixture(scope="module")
def compiled() -> tuple[list[list[str]], list[dict[str, Any]], derive.Program]:
    """The six keys compiled into one program (a derive batch): the batch, their payloads and the program."""
    batch: list[list[str]] = []
    keyed = []
    for arch, names in (("100a", f"{SM100_1SM},{SM100_2SM},{SM100_BLOCKWISE},{SM100_BLOCKSCALED}"),
                        ("90a", f"{SM90},{SM90_BLOCKWISE}")):
        e = enumerate_gemms(arch, names)
        for g in group(e.configs, TOOL, CUTLASS):
            batch.append([g.representative, e.source(g.representative)])
            keyed.append(payload(g, e, TOOL, CUTLASS))
    return batch, keyed, derive.compile_instances([derive.Instance(n, s) for n, s in batch])


@pytest.fixture(scope="module")
def results(compiled: tuple[list[list[str]], list[dict[str, Any]], derive.Program]) -> dict[str, dict[str, Any]]:
    """The six keys derived and verified."""
    batch, keyed, program = compiled
    out = {}
    for k, (p, d) in enumerate(zip(keyed, derive.show(program))):
        p.update(derived=d, batch=batch, index=k)
        out[p["representative"]] = verify_key(p)
    return out


@pytest.mark.cute
def test_without_host_problem_shapes_can_implement_accepts_what_the_descriptor_refuses(
        compiled: tuple[list[list[str]], list[dict[str, Any]], derive.Program]) -> None:
    """Finding (compiled CUTLASS 4.2): a grouped kernel's can_implement checks each group's extents only when the
    host copy of the problem shapes is given; without it, it accepts a group whose A is not 16-byte aligned in
    either its extent or its stride (f16, column-major A: M = 9, ldA = 9 elements = 18 bytes), whose descriptor
    CuTe's host construction refuses and the device rewrites unchecked."""
    _, _, program = compiled
    for k in range(6):
        # (M,N,K,L), A (_1, ldA, _0), B (ldB, _1, _0), C and D (_1, ldC, _0); L = 0: no host problem shapes
        q = [9, 8, 8, 1, 1, 9, 0, 16, 1, 0, 1, 16, 0, 1, 16, 0]
        assert program.accepts([(k, q), (k, [*q[:3], 0, *q[4:]])]) == [0, 1]
        builds, message = program.builds_tma(k, q)
        assert not builds and "copy_traits_sm90_tma.hpp:972" in message and "gmem_prob_stride[1]" in message
        # the program has no replay of a grouped kernel's epilogue: "not run", which confirms nothing (before, it
        # read as a descriptor that failed to build)
        assert program.builds_tma(k, q, part="epilogue") == (False, derive.NOT_RUN)


@pytest.mark.cute
def test_grouped_keys_agree_with_compiled_cutlass(results: dict[str, dict[str, Any]]) -> None:
    assert sorted(results) == sorted((SM100_1SM, SM100_2SM, SM100_BLOCKWISE, SM100_BLOCKSCALED, SM90,
                                      SM90_BLOCKWISE))
    for r in results.values():
        assert json.loads(json.dumps(r)) == r and r["status"] == "verified", r.get("reason")
        d, c = r["derived"], r["checks"]
        assert d["GROUPED"] == "1" and grouped.is_grouped(d)
        for x in ("A", "B"):
            # the model's smem layout is compiled CUTLASS's SmemLayoutX, text for text
            assert c[f"smem_{x}"]["verdict"] == "valid" and c[f"smem_{x}"]["equal"], c[f"smem_{x}"]
            if sm100.is_sm100(d):
                assert c[f"umma_{x}"]["verdict"] == "valid" and c[f"umma_{x}"]["equal"]
                assert c[f"tma_basis_{x}"]["verdict"] == "valid" and c[f"tma_basis_{x}"]["equal"]
                assert c[f"cta_pair_{x}"]["verdict"] == "valid"
            else:
                assert c[f"gmma_{x}"]["verdict"] == "valid"
            assert ",_1):(" in c[f"tma_{x}"]["args"][2] and c[f"tiling_{x}"]["derivation"] == "cutlass"
            # the box under can_implement's condition fails on the strides it never reads; aligned strides suffice
            assert c[f"tma_{x}"]["verdict"] == "invalid" and "TMA-GSTRIDE" in c[f"tma_{x}"]["reason"]
            assert c[f"tma_{x}_aligned_strides"]["verdict"] == "valid"
        assert c["epilogue"]["verdict"] == "not derived"
        partial = grouped.partial_acceptance(d)
        assert partial == (r["representative"] == SM100_BLOCKWISE)
        scaled = (SM100_BLOCKWISE, SM100_BLOCKSCALED, SM90_BLOCKWISE)
        assert ("scale_factors" in c) == (r["representative"] in scaled)
        assert r["can_implement"]["derivation"] == "hand-read"
        assert r["can_implement"]["sources"] == list(grouped.sources(d) or ())
        # every finding replayed on compiled CUTLASS: can_implement (host problem shapes) accepts ldX = 4 and
        # CuTe's host construction of that group's descriptor asserts; it rejects an unaligned extent whose
        # descriptor builds
        # (with the scale factors' conjuncts left out of the assumed condition, a rejection is not told to be A's
        # or B's: no rejected-but-safe finding)
        kinds = sorted((f["kind"], f["check"]) for f in r["findings"])
        assert kinds == sorted((k, f"{p}_{x}{s}") for x in ("A", "B") for k, p, s in (
            ("accepted_but_wrong", "tma", ""), ("rejected_but_safe", "tma", "_aligned_strides"))
            if not (partial and k == "rejected_but_safe"))
        for f in r["findings"]:
            assert f["confirmed"], f
            if f["kind"] == "accepted_but_wrong":
                assert f["replay"]["can_implement"] == 1 and not f["replay"]["make_tma_copy_returns"]
                assert "copy_traits_sm90_tma.hpp:972" in f["replay"]["cute"]
            else:
                assert f["replay"]["can_implement"] == 0 and f["replay"]["make_tma_copy_returns"]
        assert r["verdict"] == "invalid"
    assert results[SM100_1SM]["derived"]["ATOM_THR"] == 1 and results[SM100_2SM]["derived"]["ATOM_THR"] == 2
    # the blockwise key's A is multicast over the cluster's 2 CTAs along N, and the box passes the truncation
    assert results[SM100_BLOCKWISE]["checks"]["tma_basis_A"]["multicast"] == [2]
    # DefaultEpilogueArray checks nothing: the SM90 no-smem key's condition is A's and B's K alone
    assert results[SM90_BLOCKWISE]["derived"]["EPI_DEFAULT"] == 1
    assert results[SM90_BLOCKWISE]["can_implement"]["condition"][0] == "K % 16 == 0"
    assert not any(c.startswith("M %") for c in results[SM90_BLOCKWISE]["can_implement"]["condition"])
