# ruff: noqa: E501  (the tables below hold CUTLASS kernel names, up to 137 characters)
"""How the spec files beside this script were written: the SM90 collective builders read by hand, one kernel per
file (named by the kernel).  It imports nothing of ``verifier.library``: every layout is this reading of CUTLASS
4.2's sources, and ``tests/library/test_spec_cross_check.py`` compares it with what ``verify_key`` derives.

* element widths: f16/bf16 16 bits, f32 is run as tf32 (``ElementAMma``, sm90_gmma_builder.inl:238-239), 32 bits;
  e4m3/s8 8 bits;
* major-ness (``gmma_ss_tag_to_major_A/B``, sm90_common.inl): A RowMajor and B ColumnMajor are K-major, the
  others MN-major; the strides (``TagToStrideA/B``, cutlass/detail/layout.hpp): the unit stride on K (K-major) or
  on M/N (MN-major), 64-bit leading and batch strides;
* the smem atom (``ss_smem_selector``, sm90_common.inl:273-320): the widest swizzle whose atom width divides
  BLK_K (K-major) or BLK_MN (MN-major); ``GMMA::Layout_{K,MN}_{SW128,SW64,SW32,INTER}_Atom<T>``
  (mma_traits_sm90_gmma.hpp:75-104): ``Sw<B,4,3> o smem_ptr[bits] o (8,W):(W,1)`` (K) or ``(W,8):(1,W)`` (MN),
  W = (128 << B) / bits elements;
* ``tile_to_shape(atom, (BLK, BLK_K, Stages), order)`` (sm90_mma_tma_gmma_ss_warpspecialized.hpp:128-135):
  order (1,2,3) for K-major, (2,1,3) for MN-major; worked out here as the blocked product of the atom with the
  ordered layout of the repeat counts (a size-1 mode prints stride 0);
* Stages (``compute_stage_count_or_override`` with ``StageCountAutoCarveout``, sm90_gmma_builder.inl:69-85):
  (232448 - round_up(epilogue SharedStorage bytes, 128)) / (round_up(stage bytes, 128) + 16); the epilogue's
  SharedStorage size is the one compiled input (``EPI_BYTES`` below, printed by compiled CUTLASS), since the
  epilogue builder's tile and stage choice is not read by hand here;
* the TMA box of one stage over (R,K,L) with those strides, and ``local_tile`` of the TMA coordinate tensor,
  whose basis puts the unit-stride mode first (``make_tma_copy``'s gmem basis: K-major ``(_1@1,_1@0,_1@2)``,
  MN-major ``(_1@0,_1@1,_1@2)``), with ``Step<_1,X,_1>`` (A) / ``Step<X,_1,_1>`` (B) (load_init);
* can_implement (sm90_mma_tma_gmma_ss_warpspecialized.hpp:244-261, sm90_epilogue_tma_warpspecialized.hpp:
  324-350, cutlass/detail/layout.hpp:399-415): the unit-stride extent of A and B a multiple of 128 bits; with a
  TMA epilogue also of D and of a non-void C (their unit stride is M: the kernels here are ``n`` for C/D); a
  no-smem epilogue (``DefaultEpilogue``, default_epilogue.hpp:137-141) accepts everything.

Run ``python tests/library/data/sm90_cross_check/write_specs.py`` to rewrite the files (it does not run in the
tests).
"""

from __future__ import annotations

from pathlib import Path

BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "void": 0}
# sizeof(CollectiveEpilogue::SharedStorage), printed by compiled CUTLASS for each kernel (the one compiled input).
EPI_BYTES = {
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_tnn_align8_warpspecialized_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma": 34816,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x256x64_2x1x1_0_ntn_align8_stream_k_warpspecialized_cooperative_epi_tma": 34816,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f32_256x128x64_2x1x1_0_ntn_align8_stream_k_warpspecialized_cooperative_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f32_64x256x64_1x2x1_0_nnn_align8_warpspecialized_pingpong_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_256x256x64_1x2x1_0_nnn_align8_warpspecialized_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_ttn_align8_stream_k_warpspecialized_cooperative_epi_tma": 34816,
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f32_f32_128x128x64_2x1x1_0_ttn_align8_stream_k_warpspecialized_cooperative_epi_tma": 67584,
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_f32_128x256x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma": 18432,
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_f32_256x128x64_1x2x1_0_ntn_align8_warpspecialized_pingpong_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_64x256x64_1x2x1_0_nnn_align8_warpspecialized_pingpong_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_256x256x64_1x2x1_0_ttn_align8_warpspecialized_pingpong_epi_tma": 10240,
    "cutlass3x_sm90_tensorop_tf32gemm_f32_f32_f32_f32_f32_64x128x32_2x1x1_0_tnn_align4_warpspecialized_pingpong_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_tf32gemm_f32_f32_f32_f32_f32_128x128x32_2x1x1_0_tnn_align4_warpspecialized_cooperative_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_tf32_tf32_f32_f32_f32_128x256x32_2x1x1_0_tnn_align4_stream_k_warpspecialized_cooperative_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_tf32_tf32_f32_f32_f32_256x128x32_1x2x1_0_tnn_align4_stream_k_warpspecialized_cooperative_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_f32_e5m2_64x256x128_1x2x1_0_tnn_align16_warpspecialized_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_void_e5m2_256x256x128_2x1x1_0_tnn_align16_warpspecialized_cooperative_fp8_fastaccum_epi_tma": 10240,
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_f32_f32_64x128x128_1x2x1_0_tnn_align16_warpspecialized_pingpong_fp8_fastaccum_epi_nosmem": 1,
    "cutlass3x_sm90_tensorop_gemm_s8_s8_s32_s8_s8_128x128x128_2x1x1_0_tnn_align16_warpspecialized_pingpong_epi_tma": 25600,
}
KERNELS = [
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_tnn_align8_warpspecialized_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x256x64_2x1x1_0_ntn_align8_stream_k_warpspecialized_cooperative_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f32_256x128x64_2x1x1_0_ntn_align8_stream_k_warpspecialized_cooperative_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f32_64x256x64_1x2x1_0_nnn_align8_warpspecialized_pingpong_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_256x256x64_1x2x1_0_nnn_align8_warpspecialized_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_ttn_align8_stream_k_warpspecialized_cooperative_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f32_f32_128x128x64_2x1x1_0_ttn_align8_stream_k_warpspecialized_cooperative_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_f32_128x256x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_f32_256x128x64_1x2x1_0_ntn_align8_warpspecialized_pingpong_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_64x256x64_1x2x1_0_nnn_align8_warpspecialized_pingpong_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_256x256x64_1x2x1_0_ttn_align8_warpspecialized_pingpong_epi_tma",
    "cutlass3x_sm90_tensorop_tf32gemm_f32_f32_f32_f32_f32_64x128x32_2x1x1_0_tnn_align4_warpspecialized_pingpong_epi_nosmem",
    "cutlass3x_sm90_tensorop_tf32gemm_f32_f32_f32_f32_f32_128x128x32_2x1x1_0_tnn_align4_warpspecialized_cooperative_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_tf32_tf32_f32_f32_f32_128x256x32_2x1x1_0_tnn_align4_stream_k_warpspecialized_cooperative_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_tf32_tf32_f32_f32_f32_256x128x32_1x2x1_0_tnn_align4_stream_k_warpspecialized_cooperative_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_f32_e5m2_64x256x128_1x2x1_0_tnn_align16_warpspecialized_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_void_e5m2_256x256x128_2x1x1_0_tnn_align16_warpspecialized_cooperative_fp8_fastaccum_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_f32_f32_64x128x128_1x2x1_0_tnn_align16_warpspecialized_pingpong_fp8_fastaccum_epi_nosmem",
    "cutlass3x_sm90_tensorop_gemm_s8_s8_s32_s8_s8_128x128x128_2x1x1_0_tnn_align16_warpspecialized_pingpong_epi_tma",
]


def parse(name: str) -> dict[str, object]:
    """The fields of a generated kernel's name (cutlass_library's procedural_name)."""
    parts = name.split("_")
    i = next(k for k, p in enumerate(parts) if "x" in p and p[0].isdigit() and p.count("x") == 2)
    types = parts[i - 5:i]
    tile = tuple(int(v) for v in parts[i].split("x"))
    cluster = tuple(int(v) for v in parts[i + 1].split("x"))
    layouts = next(p for p in parts[i + 2:] if len(p) == 3 and set(p) <= set("tn"))
    return {"a": types[0], "b": types[1], "c": types[3], "d": types[4], "tile": tile, "cluster": cluster,
            "layout": layouts, "tma_epilogue": name.endswith("epi_tma")}


def atom(major: str, bits: int, blk_mn: int, blk_k: int) -> tuple[str, int, int]:
    """The builder's atom as CuTe prints it, its width W and its swizzle's B."""
    for b in (3, 2, 1, 0):
        w = (128 << b) // bits
        if (blk_k if major == "K" else blk_mn) % w == 0:
            inner = f"(_8,_{w}):(_{w},_1)" if major == "K" else f"(_{w},_8):(_1,_{w})"
            return f"Sw<{b},4,3> o smem_ptr[{bits}b](unset) o {inner}", w, b
    raise ValueError("no atom")


def _m(n: int, s: int) -> str:
    return f"_{s if n != 1 else 0}"


def tiled(major: str, w: int, blk_r: int, blk_k: int, stages: int | None) -> str:
    """tile_to_shape of the atom over (BLK_R, BLK_K[, Stages]) in the builder's order."""
    size = 8 * w
    if major == "K":
        a, b = blk_r // 8, blk_k // w
        m0 = f"(_8,_{a})", f"(_{w},{_m(a, size)})"
        m1 = f"(_{w},_{b})", f"(_1,{_m(b, size * a)})"
    else:
        a, b = blk_r // w, blk_k // 8
        m0 = f"(_{w},_{a})", f"(_1,{_m(a, size * b)})"
        m1 = f"(_8,_{b})", f"(_{w},{_m(b, size)})"
    shape, stride = [m0[0], m1[0]], [m0[1], m1[1]]
    if stages is not None:
        shape.append(f"(_1,_{stages})")
        stride.append(f"(_0,{_m(stages, size * a * b)})")
    return f"({','.join(shape)}):({','.join(stride)})"


def stages_of(k: dict[str, object], epi: int) -> int:
    m, n, kk = k["tile"]  # type: ignore[misc]
    bits_a, bits_b = BITS[str(k["a"])], BITS[str(k["b"])]
    stage = -(-(m * kk * bits_a + n * kk * bits_b) // 8 // 128) * 128 + 16
    return (232448 - -(-epi // 128) * 128) // stage


def spec(name: str) -> str:
    k = parse(name)
    m, n, kk = k["tile"]  # type: ignore[misc]
    layout = str(k["layout"])
    majors = {"A": "K" if layout[0] == "t" else "MN", "B": "K" if layout[1] == "n" else "MN"}
    s = stages_of(k, EPI_BYTES[name])
    accept = []
    for x, r in (("A", "M"), ("B", "N")):
        bits = BITS[str(k[x.lower()])]
        accept.append(f"{'K' if majors[x] == 'K' else r} % {128 // bits} == 0")
    if k["tma_epilogue"]:
        for x in ("c", "d"):
            if BITS[str(k[x])]:
                accept.append(f"M % {128 // BITS[str(k[x])]} == 0")
    accept = sorted(set(accept))
    out = [f"# {name}", "# Written by hand from CUTLASS 4.2's SM90 builders (write_specs.py says how).",
           "[symbols]", "M = {}", "N = {}", "K = {}", "L = {}"]
    for x in ("A", "B"):
        out += [f"ld{x} = {{ min = 0, bits = 64 }}", f"bs{x} = {{ min = 0, bits = 64 }}"]
    tile = f"(_{m},_{n},_{kk})"
    for x, r, blk, step in (("A", "M", m, "Step<_1,X,_1>"), ("B", "N", n, "Step<X,_1,_1>")):
        bits = BITS[str(k[x.lower()])]
        major = majors[x]
        text, w, _ = atom(major, bits, blk, kk)
        order = "(_1,_2,_3)" if major == "K" else "(_2,_1,_3)"
        smem = f"{text.rsplit(' o ', 1)[0]} o {tiled(major, w, blk, kk, s)}"
        stage = f"{text.rsplit(' o ', 1)[0]} o {tiled(major, w, blk, kk, None)}"
        gmem = f"({r},K,L):(ld{x},_1,bs{x})" if major == "K" else f"({r},K,L):(_1,ld{x},bs{x})"
        basis = "(_1@1,_1@0,_1@2)" if major == "K" else "(_1@0,_1@1,_1@2)"
        align = 128 // bits
        aligned = [f"ld{x} % {align} == 0", f"ld{x} <= {(2**43 - 1) // bits}",
                   f"bs{x} % {align} == 0", f"bs{x} <= {(2**43 - 1) // bits}"]
        out += ["", "[[check]]", f'name = "smem {x}"', 'op = "tile_to_shape"',
                f'args = ["{text}", "(_{blk},_{kk},_{s})", "{order}"]',
                f'description = "SmemLayout{x} = {smem}; one stage = {stage}; make_gmma_desc<{major}> '
                f'accepts the stage"',
                "", "[[check]]", f'name = "tma {x}"', 'op = "make_tma_box"',
                f'args = ["{bits}", "{stage}", "{gmem}"]', f"assume = {_toml(accept)}",
                'expect = "invalid"  # can_implement never reads the strides it is given',
                "", "[[check]]", f'name = "tma {x} with aligned strides"', 'op = "make_tma_box"',
                f'args = ["{bits}", "{stage}", "{gmem}"]', f"assume = {_toml(aligned)}",
                "", "[[check]]", f'name = "tiling {x}"', 'op = "local_tile"',
                f'args = ["({r},K,L):{basis}", "{tile}", "(_,_,_)", "{step}"]', f"assume = {_toml(accept)}",
                'expect = "invalid"  # ceil_div(extent, BLK) overflows int near 2^31']
    return "\n".join(out) + "\n"


def _toml(items: list[str]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


if __name__ == "__main__":
    here = Path(__file__).parent
    for kernel in KERNELS:
        (here / f"{kernel}.spec.toml").write_text(spec(kernel))
