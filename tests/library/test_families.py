"""bench/library_families.py's grouping of keys into families and its reading of which policies the sweep derives
(the compiled policies themselves are the script's run, docs/library.md "Keys per mainloop policy")."""

from __future__ import annotations

from typing import Any

from bench.library_families import derived, family, sub_byte


def _fields(**kw: Any) -> dict[str, Any]:
    base = {"arch": "100a", "gemm_kind": "GroupedUniversal3x", "kernel_schedule": "PtrArrayTmaWarpSpecialized1SmSm100",
            "mixed_input": "", "element_a": "f16", "element_b": "f16", "layout_a": "RowMajor"}
    return {**base, **kw}


def test_sub_byte_names() -> None:
    assert sub_byte("e2m1") and sub_byte("ue8m0xe2m1") and sub_byte("f6") and sub_byte("s4")
    assert not sub_byte("e4m3") and not sub_byte("ue8m0xe4m3") and not sub_byte("f16") and not sub_byte("tf32")


def test_families_split_what_the_builders_dispatch_on() -> None:
    assert family(_fields()) == ("100a", "GroupedUniversal3x", "PtrArrayTmaWarpSpecialized1SmSm100", "", "", "")
    assert family(_fields(element_b="f4"))[5] == "sub-byte"
    sm90 = _fields(arch="90a", gemm_kind="Universal3x", kernel_schedule="TmaWarpSpecialized", element_a="tf32",
                   layout_a="ColumnMajor")
    assert family(sm90)[4] == "MN-major tf32 A" and family({**sm90, "layout_a": "RowMajor"})[4] == ""
    assert family(_fields(mixed_input="convert_only"))[3] == "mixed input"


def test_the_policies_the_sweep_derives() -> None:
    fam = family(_fields())
    for policy in ("cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecialized",
                   "cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecializedBlockwiseScaling",
                   "cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized",
                   "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized",
                   "cutlass::gemm::MainloopSm90CpAsyncGmmaWarpSpecialized",
                   "cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized"):
        assert derived(policy, fam), policy
    # a 4- or 6-bit operand keeps an SM100 key out; the block-scaled, sparse and mixed-input collectives are out
    assert not derived("cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized", family(_fields(element_a="e2m1")))
    for policy in ("cutlass::gemm::MainloopSm100TmaUmmaWarpSpecializedBlockScaled",
                   "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedSparse",
                   "cutlass::gemm::MainloopSm90TmaGmmaRmemAWarpSpecializedMixedInput"):
        assert not derived(policy, fam), policy
