"""SM100 TMA + UMMA mainloops (verifier/library/sm100.py): a 1SM and a 2SM key derived from compiled CUTLASS,
their layouts verified and compared with what compiled CUTLASS built, and their findings replayed on it; the
comparisons themselves (descriptor, TMA basis, multicast truncation) refuse what disagrees."""

from __future__ import annotations

import json
from typing import Any

import pytest

from verifier.library import derive, sm100
from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group, payload
from verifier.library.verify import verify_key

ONE_SM = "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_64x128x64_1x1x1_0_tnn_align8_1sm"
TWO_SM = "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_2x1x1_0_tnn_align8_2sm_epi_tma"
# A run-time cluster shape (0x0x1): can_implement and the replays take the cluster from hw_info
DYNAMIC = "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_0x0x1_0_nnn_align8_2sm_epi_tma"
# A block-scaled kernel: another SM100 collective, whose derive program aborts in the sample to_underlying_arguments
# (its scale factors' TMA at null arguments) while the other keys of its batch are shown
BLOCK_SCALED = ("cutlass3x_sm100_bstensorop_gemm_ue8m0xe4m3_ue8m0xe4m3_f32_void_f32_128x128x128_1x1x1_0_tnt_align128_"
                "q_1sm")
TOOL, CUTLASS = "test-tool", "4.2.0"

# What compiled CUTLASS 4.2 printed for the 1SM key's A (sm100_show's lines; a K-major f16 64x64 stage, 128B
# swizzle, 8 stages): the no-compile tests below start from it.
DERIVED_1SM_A: dict[str, Any] = {
    "SMEM_A": "Sw<3,4,3> o smem_ptr[16b](unset) o ((_64,_16),_1,_4,(_1,_8)):((_64,_1),_0,_16,(_0,_4096))",
    "ATOM_A": "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",
    "STAGES": 8, "BITS_A": 16, "STRIDE_A": "cute::tuple<long int, cute::C<1>, long int>",
    "MMA_SHAPE_A": "((_64,_16),_1,_4)", "UMMA_DESC_A": "2 64 1", "TMA_MCAST_A": 1,
    "TMA_BASIS_A": "(_64,_64,_1):(_1@1,_1@0,_1@2)", "TILE": "(_64,_128,_64)",
    "CTA_T_A": "(_1,(_1,_1)):(_0,(_0,_0))", "CTA_V_A": "((_64,_16),_1,_4):((_1@0,_1@1),_0,_16@1)",
    "MAINLOOP": "cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized<8, 2, 4, cute::tuple<cute::C<1>, cute::C<1>, "
                "cute::C<1> > >",
}


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    """The four keys compiled into one program (the sweep's derive batch), then verified."""
    e = enumerate_gemms("100a", f"{ONE_SM},{TWO_SM},{DYNAMIC},{BLOCK_SCALED}")
    groups = group(e.configs, TOOL, CUTLASS)
    batch = [[g.representative, e.source(g.representative)] for g in groups]
    shown = derive.derive_many([derive.Instance(n, s) for n, s in batch])
    out = {}
    for k, (g, d) in enumerate(zip(groups, shown)):
        p = payload(g, e, TOOL, CUTLASS)
        p.update(derived=d, batch=batch, index=k)
        out[g.representative] = verify_key(p)
    return out


@pytest.mark.cute
def test_sm100_keys_agree_with_compiled_cutlass(results: dict[str, dict[str, Any]]) -> None:
    for name in (ONE_SM, TWO_SM):
        r = results[name]
        assert json.loads(json.dumps(r)) == r and r["status"] == "verified", r.get("reason")
        assert r["derived"]["MAINLOOP"].startswith(sm100.MAINLOOPS)
        for x in ("A", "B"):
            c = r["checks"]
            # the model's tile_to_mma_shape is compiled CUTLASS's SmemLayoutX, text for text
            assert c[f"smem_{x}"]["equal"] and c[f"smem_{x}"]["result"] == r["derived"][f"SMEM_{x}"]
            # the model's make_umma_desc is the descriptor compiled CUTLASS's make_fragment built
            assert c[f"umma_{x}"]["verdict"] == "valid" and c[f"umma_{x}"]["equal"]
            assert c[f"umma_{x}"]["cutlass"] == {"layout_type": 2, "sbo": 64, "lbo": 1}  # SWIZZLE_128B
            # the model's TMA box of the CTA's stage is compiled CuTe's construct_tma_gbasis
            assert c[f"tma_basis_{x}"]["verdict"] == "valid" and c[f"tma_basis_{x}"]["equal"]
            assert c[f"tiling_{x}"]["derivation"] == "cutlass"
            # the MMA's CTAs (a 2SM pair: two) take each coordinate of the tile local_tile gives them once
            assert c[f"cta_pair_{x}"]["verdict"] == "valid"
            assert c[f"cta_pair_{x}"]["ctas"] == r["derived"]["ATOM_THR"]
        assert "K % 8 == 0" in r["can_implement"]["condition"]
        assert r["can_implement"]["sources"] == list(sm100.ACCEPTANCE_SOURCES)
    one, two = results[ONE_SM], results[TWO_SM]
    assert one["derived"]["ATOM_THR"] == 1 and two["derived"]["ATOM_THR"] == 2
    # 2SM: each CTA of the pair holds half of the 128-row tile of A and of the 128-column tile of B, and its TMA box
    # is that half; the 1SM CTA holds the whole 128 columns of B
    assert two["derived"]["TILE"] == "(_128,_128,_64)" and two["derived"]["MMA_SHAPE_A"] == "((_64,_16),_1,_4)"
    assert two["derived"]["TMA_BASIS_B"].startswith("(_64,_64,_1)")
    assert one["derived"]["TMA_BASIS_B"].startswith("(_64,_128,_1)")
    assert two["derived"]["COPY_A"] == "cute::SM100_TMA_2SM_LOAD"


@pytest.mark.cute
def test_sm100_findings_are_replayed_on_compiled_cutlass(results: dict[str, dict[str, Any]]) -> None:
    for name in (ONE_SM, TWO_SM, DYNAMIC):
        r = results[name]
        for x in ("A", "B"):
            # can_implement never reads the strides: it accepts a leading dimension of 4 halves and
            # make_tma_atom_X_sm100's make_tma_copy_desc asserts on it
            (wrong,) = [f for f in r["findings"] if f["check"] == f"tma_{x}"]
            assert wrong["confirmed"] and wrong["obligation"] == "TMA-GSTRIDE"
            assert wrong["replay"]["can_implement"] == 1 and wrong["replay"]["make_tma_copy_returns"] is False
            assert "gmem_prob_stride" in wrong["replay"]["cute"]
            # can_implement rejects a unit-stride extent of 9 (K, or M for DYNAMIC's MN-major A) with 16-byte
            # strides, where the descriptor builds
            (safe,) = [f for f in r["findings"] if f["check"] == f"tma_{x}_aligned_strides"]
            extent = safe["reason"].split()[2]  # "can_implement requires K % 8 == 0; ..."
            assert extent == ("M" if (name, x) == (DYNAMIC, "A") else "K")
            assert safe["confirmed"] and safe["witness"][extent] == 9
            assert safe["replay"]["can_implement"] == 0 and safe["replay"]["make_tma_copy_returns"] is True
        assert r["verdict"] == "invalid"


def test_a_descriptor_that_differs_from_compiled_cutlass_disagrees() -> None:
    ok = sm100.layout_checks({**DERIVED_1SM_A, **{k.replace("_A", "_B"): v for k, v in DERIVED_1SM_A.items()}}, "A")
    assert ok["umma_A"]["verdict"] == "valid" and ok["smem_A"]["verdict"] == "valid"
    assert ok["tma_basis_A"]["verdict"] == "valid"
    bad = sm100.layout_checks({**DERIVED_1SM_A, "UMMA_DESC_A": "2 32 1"}, "A")
    assert bad["umma_A"]["verdict"] == "disagrees" and not bad["umma_A"]["equal"]


def test_a_tma_basis_or_smem_that_differs_from_compiled_cutlass_disagrees() -> None:
    bad = sm100.layout_checks({**DERIVED_1SM_A, "TMA_BASIS_A": "(_64,_32,_1):(_1@1,_1@0,_1@2)"}, "A")
    assert bad["tma_basis_A"]["verdict"] == "disagrees"
    swapped = sm100.layout_checks({**DERIVED_1SM_A, "TMA_BASIS_A": "(_64,_64,_1):(_1@0,_1@1,_1@2)"}, "A")
    assert swapped["tma_basis_A"]["verdict"] == "disagrees"
    smem = sm100.layout_checks({**DERIVED_1SM_A, "STAGES": 7}, "A")
    assert smem["smem_A"]["verdict"] == "disagrees"


def test_the_pair_check_refuses_ctas_that_overlap_or_leave_a_gap() -> None:
    pair = {"TILE": "(_128,_128,_64)", "CTA_V_A": "((_64,_16),_1,_4):((_1@0,_1@1),_0,_16@1)"}
    # compiled CUTLASS's partition of a 2SM 128x128x64 tile: the second CTA starts at row 64
    ok = sm100.pair_check({**pair, "CTA_T_A": "(_2,(_1,_1)):(_64@0,(_0,_0))"}, "A")
    assert ok["verdict"] == "valid" and ok["ctas"] == 2 and ok["tile"] == [128, 64]
    assert sm100.pair_check({**pair, "CTA_T_A": "(_2,(_1,_1)):(_32@0,(_0,_0))"}, "A")["verdict"] == "invalid"
    assert sm100.pair_check({**pair, "CTA_T_A": "(_2,(_1,_1)):(_128@0,(_0,_0))"}, "A")["verdict"] == "invalid"
    assert sm100.pair_check({**pair, "CTA_T_A": "_1:_0"}, "A")["verdict"] == "invalid"  # half the tile
    assert sm100.pair_check({**pair, "CTA_T_A": "(_2):(_64@0@1)"}, "A")["verdict"] == "unknown"


def test_multicast_truncation_follows_cutes_asserts() -> None:
    # copy_traits_sm90_tma.hpp:990-1006: the last modes are divided first, a carry goes to the next one
    assert sm100._truncate([64, 64, 1], 4) == ([64, 16, 1], None)
    assert sm100._truncate([64, 2, 1], 4) == ([32, 1, 1], None)
    assert sm100._truncate([64, 6, 1], 4)[1] is not None  # neither 6 % 4 nor 4 % 6
    assert sm100._truncate([512, 1, 1], 1)[1] == "smem_box_shape[i] <= 256"
    mc = sm100.layout_checks({**DERIVED_1SM_A, "TMA_MCAST_A": 4}, "A")["tma_basis_A"]
    assert mc["verdict"] == "valid" and mc["box_after_multicast"] == {"4": [64, 16, 1]}
    # a run-time cluster: every multicast count an admitted cluster gives (at most 16 CTAs, V = 2 for 2SM)
    dynamic = {k: v for k, v in DERIVED_1SM_A.items() if k != "TMA_MCAST_A"}
    dynamic.update(COPY_A="cute::SM100_TMA_2SM_LOAD_MULTICAST", ATOM_THR=2)
    assert sm100.multicasts(dynamic, "A") == [1, 2, 4, 8]
    assert sm100.multicasts({**dynamic, "COPY_A": "cute::SM100_TMA_2SM_LOAD"}, "A") == [1]
    assert sm100._truncate([64, 48, 1], 8) == ([64, 6, 1], None) and sm100._truncate([64, 48, 1], 32)[1]
    checked = sm100.layout_checks(dynamic, "A")["tma_basis_A"]
    assert checked["verdict"] == "valid" and checked["box_after_multicast"]["8"] == [64, 8, 1]


def test_what_is_not_derived_says_why() -> None:
    full = {**DERIVED_1SM_A, **{k.replace("_A", "_B"): v for k, v in DERIVED_1SM_A.items()}}
    assert sm100.not_derived(full) is None
    assert sm100.not_derived({k: v for k, v in full.items() if not k.startswith("TMA_MCAST")}) is None
    assert "6-bit B" in str(sm100.not_derived({**full, "BITS_B": 6}))
    assert "UMMA_DESC_A" in str(sm100.not_derived({k: v for k, v in full.items() if k != "UMMA_DESC_A"}))


@pytest.mark.cute
def test_other_sm100_mainloops_are_not_derived_with_their_policy(results: dict[str, dict[str, Any]]) -> None:
    r = results[BLOCK_SCALED]
    assert r["status"] == "not derived"
    assert r["reason"] == "mainloop cutlass::gemm::MainloopSm100TmaUmmaWarpSpecializedBlockScaled not modelled yet"
    # its batch's program aborted on it: shown alone, with CuTe's message, and the other keys were shown
    assert "make_tma_copy_desc" in r["derived"]["SHOW_ABORTED"] and "key_" not in r["derived"]["SHOW_ABORTED"]
    assert "UMMA_DESC_A" not in r["derived"]  # the UMMA printing is MainloopSm100TmaUmmaWarpSpecialized's only
    assert results[ONE_SM]["status"] == results[TWO_SM]["status"] == "verified"


@pytest.mark.cute
def test_a_run_time_cluster_is_verified_for_every_admitted_multicast(results: dict[str, dict[str, Any]]) -> None:
    r = results[DYNAMIC]
    assert r["status"] == "verified" and "TMA_MCAST_A" not in r["derived"]
    assert r["derived"]["COPY_A"] == "cute::SM100_TMA_2SM_LOAD_MULTICAST"
    for x in ("A", "B"):
        basis = r["checks"][f"tma_basis_{x}"]
        # clusters of at most 16 CTAs, x a multiple of the pair: A multicast over y, B over x / 2
        assert basis["verdict"] == "valid" and basis["multicast"] == [1, 2, 4, 8]
        assert basis["box_after_multicast"]["8"] == [64, 8, 1]
        assert r["checks"][f"smem_{x}"]["equal"] and r["checks"][f"umma_{x}"]["equal"]
