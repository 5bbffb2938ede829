"""Ptr-array grouped GEMMs (``GroupedUniversal3x``): ``MainloopSm100ArrayTmaUmmaWarpSpecialized``
(cutlass/gemm/collective/sm100_mma_array_warpspecialized.hpp) and ``MainloopSm90ArrayTmaGmmaWarpSpecialized``
(cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized.hpp), verified with the checks of their
non-grouped siblings (``sm100`` and ``verify``'s TMA + GMMA ones), per group; and, for their A and B alone, their
scaled twins (``SCALED``: ``GroupedBlockwiseUniversal3x``, ``GroupedBlockScaledUniversal3x`` with 8-bit data),
whose scale factors are reported "not derived".

What differs, all printed by compiled CUTLASS (``grouped_show``):

* A group is a rank-3 problem (M, N, K) (``GroupProblemShape<Shape<int,int,int>>``) and its stride
  ``InternalStrideX`` has a static ``_0`` batch mode (``StrideX`` is a pointer to one a group): the gmem tensor of
  operand X is ``(R, K, _1):(ldX, _1, _0)`` (the collectives tile ``get_tma_tensor((M, K, mock_L))``, mock_L = 1),
  and the TMA box and CTA tiling problems are stated over it, for every admitted M, N, K and 64-bit stride.
* The TMA descriptors are built on the host at a placeholder shape and rewritten on the device for each group
  (``tensormaps_replace_global_tensor_properties``): ``tma_descriptor_replace_dims_strides_in_shared_mem``
  (cute/arch/copy_sm90_desc.hpp:360-420) writes the group's dims and byte strides with no check ("Strides must be
  a multiple of 16" is a comment).  A refuted box is replayed by CuTe's host construction of the same descriptor
  for that group (``builds_tma_grouped``: the collective's own copy op, smem stage, tile, MMA and cluster, on the
  group's tensor), whose asserts are the checks the device rewrite skips.  That harness is written by hand,
  mirroring the non-grouped branch of ``to_underlying_arguments``.
* ``can_implement`` (hand-read, ``ACCEPTANCE_SOURCES``): the kernel's mode (``kGrouped``, a rank-3 shape), and, only
  when the host copy of the problem shapes is given, each group's unit-stride extents aligned to 128 bits of the
  element, A and B (the mainloop) and C and D (the TMA epilogue): ``check_alignment`` reads ``InternalStrideX{}``,
  never the group's strides.  Without the host copy nothing is checked (a weaker condition: every problem the
  layouts get wrong under the host-shape condition is accepted without it as well).  The compiled replays pass
  the host copy (``accepts_grouped``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SM100_POLICY = "cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecialized<"
SM90_POLICY = "cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<"
# sm100_mma_array_warpspecialized_blockwise_scaling.hpp: A and B as SM100_POLICY's (the same smem layouts, 237-245,
# TMA atoms, 443-475, and load_init); its scale factors, read with cp.async (GmemTiledCopySFA), are not modelled
SM100_BLOCKWISE_POLICY = "cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecializedBlockwiseScaling<"
# sm90_mma_array_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp: A and B as SM90_POLICY's (169-176, 322-333,
# 422-427), its can_implement A's and B's alone (368-392); its scale factors are not modelled
SM90_BLOCKWISE_POLICY = "cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecializedBlockwise<"
# sm100_blockscaled_mma_array_warpspecialized.hpp: A and B as SM100_POLICY's (their smem layouts, 222-230, TMA atoms,
# 486-500, and load_init), its can_implement A's and B's alone (591-612); its scale factors (their own TMA) are not
# modelled, nor a 4- or 6-bit operand (sm100.not_derived)
SM100_BLOCKSCALED_POLICY = "cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecializedBlockScaled<"
SCALED = (SM100_BLOCKWISE_POLICY, SM90_BLOCKWISE_POLICY, SM100_BLOCKSCALED_POLICY)
POLICIES = (SM100_POLICY, SM90_POLICY, *SCALED)
ACCEPTANCE_SOURCES = {
    SM100_POLICY: (
        "cutlass/gemm/kernel/sm100_gemm_array_tma_warpspecialized.hpp:334-383",
        "cutlass/gemm/collective/sm100_mma_array_warpspecialized.hpp:431-455",
        "cutlass/epilogue/collective/sm100_epilogue_array_tma_warpspecialized.hpp:361-386",
        "cutlass/detail/layout.hpp:372-415",
    ),
    SM100_BLOCKWISE_POLICY: (
        "cutlass/gemm/kernel/sm100_gemm_array_tma_warpspecialized.hpp:334-383",
        "cutlass/gemm/collective/sm100_mma_array_warpspecialized_blockwise_scaling.hpp:510-545 (A and B; the scale "
        "factors' check_alignment of tile_atom_to_shape_SFA/SFB left out)",
        "cutlass/epilogue/collective/sm100_epilogue_array_tma_warpspecialized.hpp:361-386",
        "cutlass/detail/layout.hpp:372-415",
    ),
    SM100_BLOCKSCALED_POLICY: (
        "cutlass/gemm/kernel/sm100_gemm_array_tma_warpspecialized.hpp:334-383",
        "cutlass/gemm/collective/sm100_blockscaled_mma_array_warpspecialized.hpp:591-612",
        "cutlass/epilogue/collective/sm100_epilogue_array_tma_warpspecialized.hpp:361-386",
        "cutlass/detail/layout.hpp:372-415",
    ),
    SM90_BLOCKWISE_POLICY: (
        "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp:305-322",
        "cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp:368-392",
        "cutlass/epilogue/collective/sm90_epilogue_array_tma_warpspecialized.hpp:394-440",
        "cutlass/detail/layout.hpp:399-415",
    ),
    SM90_POLICY: (
        "cutlass/gemm/kernel/sm90_gemm_array_tma_warpspecialized_cooperative.hpp:305-322",
        "cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized.hpp:290-320",
        "cutlass/epilogue/collective/sm90_epilogue_array_tma_warpspecialized.hpp:394-440",
        "cutlass/detail/layout.hpp:399-415",
    ),
}
# The TMA epilogues whose can_implement checks C's and D's alignment per group (with the host problem shapes).
TMA_EPILOGUES = ("cutlass::epilogue::Sm100PtrArrayTmaWarpSpecialized",)


def is_grouped(d: Mapping[str, Any]) -> bool:
    """A grouped kernel of a modelled ptr-array mainloop, as compiled CUTLASS printed it."""
    return str(d.get("GROUPED", "")) == "1" and str(d.get("MAINLOOP", "")).startswith(POLICIES)


def batch_extent(d: Mapping[str, Any]) -> str:
    """The batch extent of the gmem tensors the layouts are checked on: ``_1`` a group, ``L`` otherwise."""
    return "_1" if is_grouped(d) else "L"


def sources(d: Mapping[str, Any]) -> tuple[str, ...] | None:
    """Where a grouped key's ``can_implement`` condition is read from (None: not a grouped key)."""
    if not is_grouped(d):
        return None
    return next(v for k, v in ACCEPTANCE_SOURCES.items() if str(d["MAINLOOP"]).startswith(k))


EPILOGUE_NOT_DERIVED = ("the ptr-array epilogue of a grouped kernel (its TMA descriptors of C and D rewritten per "
                        "group on the device, its smem and partitions) is not modelled yet")


SCALES_NOT_DERIVED = ("the scale factors (SFA, SFB: their layouts, their copies to smem and, on SM100, "
                      "can_implement's alignment of them, sm100_mma_array_warpspecialized_blockwise_scaling.hpp:"
                      "530-531) are not modelled yet")


def not_derived_parts(d: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """A grouped key's epilogue checks: one part "not derived" (and its scale factors', for a blockwise-scaled
    kernel), which leaves the key's verdict undecided unless a mainloop finding refutes it, and no finding (None:
    not a grouped key, whose epilogue ``epilogue`` verifies)."""
    if not is_grouped(d):
        return None
    out = {"epilogue": {"verdict": "not derived", "reason": EPILOGUE_NOT_DERIVED, "kind": "not derived"}}
    if str(d["MAINLOOP"]).startswith(SCALED):
        out["scale_factors"] = {"verdict": "not derived", "reason": SCALES_NOT_DERIVED, "kind": "not derived"}
    return out, []


def partial_acceptance(d: Mapping[str, Any]) -> bool:
    """Whether ``can_implement``'s condition assumed for the key leaves conjuncts out (the blockwise scale factors'):
    a weaker assumption, under which an accepted-but-wrong finding still needs compiled ``can_implement`` to accept
    its witness, but a rejection cannot be told to be A's or B's, so no rejected-but-safe finding is reported."""
    return is_grouped(d) and str(d.get("MAINLOOP", "")).startswith(SM100_BLOCKWISE_POLICY)
