"""The SM90 epilogues' layouts derived from compiled CUTLASS and verified (``verifier/library/epilogue.py``): the TMA
epilogue's smem layouts, TMA boxes of C and D (findings replayed on compiled CUTLASS), the R2S / S2R TiledCopies
with their smem addresses equal to compiled CUTLASS's and their bank conflicts counted; the no-smem epilogue's
predicated direct store of D."""

from __future__ import annotations

from typing import Any

import pytest

from verifier.library import epilogue

TMA_EPI = ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_"
           "warpspecialized_cooperative_epi_tma")
NO_SMEM = "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_tnn_align8_warpspecialized_epi_nosmem"
_CACHE: dict[str, dict[str, Any]] = {}


def _verified(name: str) -> dict[str, Any]:
    from verifier.library.configs import enumerate_gemms
    from verifier.library.keys import group
    from verifier.library.verify import verify_key

    if name not in _CACHE:
        e = enumerate_gemms("90a", name)
        (g,) = group(e.configs, "tool", "4.2.0")
        _CACHE[name] = verify_key({"key": g.key, "fields": g.fields, "representative": g.representative,
                                   "configs": list(g.configs), "source": e.source(g.representative)})
    return _CACHE[name]


@pytest.mark.cute
def test_the_tma_epilogue_is_derived_from_compiled_cutlass_and_agrees_with_it() -> None:
    r = _verified(TMA_EPI)
    d, checks = r["derived"], r["checks"]
    # What compiled CUTLASS's builder chose (sm90_builder.inl): a 128x32 epilogue tile of a column-major f16 D,
    # 4 stages of C reused by D, stmatrix / ldmatrix transposed, TMA load and store.
    assert d["EPI_TILE"] == "(_128,_32)" and (d["EPI_STAGES_C"], d["EPI_STAGES_D"], d["EPI_REUSE_C"]) == (4, 2, 1)
    assert (d["EPI_OP_R2S"], d["EPI_OP_S2R"]) == ("cute::SM90_U16x8_STSM_T", "cute::SM75_U16x8_LDSM_T")
    assert (d["EPI_OP_G2S"], d["EPI_OP_S2G"]) == ("cute::SM90_TMA_LOAD", "cute::SM90_TMA_STORE")
    # The model's tile_to_shape of the builder's atom is CUTLASS's private SmemLayoutC / SmemLayoutD.
    for x in ("C", "D"):
        assert checks[f"epi_smem_{x}"]["equal"] and checks[f"epi_smem_{x}"]["verdict"] == "valid"
        assert checks[f"epi_smem_{x}"]["cutlass"] == ("Sw<3,4,3> o smem_ptr[16b](unset) o "
                                                      "((_64,_2),(_8,_4),(_1,_4)):((_1,_2048),(_64,_512),(_0,_4096))")
    # store()'s TiledCopies, built by the model from the kernel's TiledMma, print as compiled CUTLASS's; every
    # thread's smem addresses are compiled CUTLASS's, and every stmatrix / ldmatrix phase is one wavefront.
    assert checks["epi_c_atom"]["verdict"] == "valid"
    for part in ("epi_r2s", "epi_s2r"):
        c = checks[part]
        assert c["addresses_equal"] and c["verdict"] == "proved" and c["wavefronts"] == 1
        assert c["access_bits"] == 128 and c["threads"] == 256 and c["instructions"] == 8
    # The TMA boxes of C and D: can_implement never reads the strides (as for A and B): a leading dimension of D
    # that is no multiple of 16 bytes is accepted, and the epilogue's make_tma_copy asserts on it.
    f = next(f for f in r["findings"] if f["check"] == "epi_tma_D")
    assert f["obligation"] == "TMA-GSTRIDE" and f["confirmed"] and f["part"] == "epilogue"
    replay = f["replay"]
    assert replay["can_implement"] == 1 and replay["make_tma_copy_returns"] is False
    assert "copy_traits_sm90_tma.hpp" in replay["cute"] and "gmem_prob_stride" in replay["cute"]
    assert (replay["query"][14] * 2) % 16 != 0  # the witness's ldD in bytes
    # The other direction: D's box needs aligned strides only; can_implement rejects M = 9, where both epilogue
    # descriptors build.
    safe = next(f for f in r["findings"] if f["check"] == "epi_tma_D_aligned_strides")
    assert safe["kind"] == "rejected_but_safe" and safe["confirmed"] and safe["witness"]["M"] % 8 != 0
    assert r["status"] == "verified" and r["verdict"] == "invalid"


@pytest.mark.cute
def test_a_planted_epilogue_layout_is_caught_and_an_unswizzled_store_conflicts() -> None:
    """The comparisons are not vacuous: an unswizzled SmemLayoutD is not CUTLASS's (the smem check disagrees, and
    the model's addresses for it are not compiled CUTLASS's); counted on its own addresses, stmatrix.trans into
    the unswizzled column-major tile (columns 128 bytes apart) is an 8-way bank conflict."""
    r = _verified(TMA_EPI)
    d = dict(r["derived"])
    plain = "((_64,_2),(_8,_4),(_1,_4)):((_1,_2048),(_64,_512),(_0,_4096))"
    d["EPI_SMEM_D"] = plain
    d["EPI_ATOM_D"] = "(_64,_8):(_1,_64)"
    from verifier.library import verify

    checks, _ = epilogue.verify({"element_c": "f16", "element_d": "f16"}, d, [],
                                lambda p: verify._decide_cached(p), verify._verdict, verify._strides(d))
    assert checks["epi_smem_D"]["verdict"] == "valid"  # the planted atom tiles to the planted layout...
    assert checks["epi_r2s"]["verdict"] == "disagrees"  # ...whose addresses are not what CUTLASS's store writes
    copies = epilogue._tiled_copies(d)
    from verifier.notation.cpp import parse

    addrs = epilogue._model_addresses(copies["r2s"], parse(plain), (128, 32, 4), 16, True, 256, 8)
    printed = "8 " + " ".join("| " + " ".join(map(str, a)) for a in addrs)
    c = epilogue.bank_check("r2s", copies["r2s"], plain, ["_128", "_32"], 4, 16, True, printed, 256)
    assert c["addresses_equal"] and c["verdict"] == "refuted" and c["wavefronts"] == 8
    w = c["witness"]
    banks = {a // 4 % 32 for _, a in w["words"]}
    assert len(banks) == 1 and len({a // 4 for _, a in w["words"]}) == 8


@pytest.mark.cute
def test_the_no_smem_epilogue_stores_d_predicated_for_every_problem() -> None:
    """DefaultEpilogue (default_epilogue.hpp:175-245): each thread's partition_C of the CTA tile of D, predicated
    with elem_less(coord, (M,N)), stays inside D and covers it, for every M, N, tile and thread of bounded
    extents; unbounded, local_tile's int ceil_div overflows near 2^31 (as the mainloop's tilings); a residue one row
    short is refuted (the check can fail)."""
    from verifier.library import verify

    r = _verified(NO_SMEM)
    c = r["checks"]["epi_direct_D"]
    assert c["op"] == "predicated_copy" and c["derivation"] == "cutlass"
    assert c["args"][4].startswith("make_tiled_mma(SM90_64x128x16_F16F16F16_SS<")
    assert not any(k.startswith(("epi_smem", "epi_tma", "epi_r2s")) for k in r["checks"])
    # As the CTA tilings: local_tile's ceil_div(M, 256) overflows int at M near 2^31, where can_implement's own
    # size(M,K,L) has already overflowed (docs/library.md, finding 2).
    assert c["verdict"] == "invalid" and c["counterexample"]["obligation"] == "OVF-ARITH"
    assert c["counterexample"]["params"]["M"] > 2**31 - 257
    assert r["checks"]["tiling_A"]["verdict"] == "invalid"
    below = epilogue.problems({"element_d": "f16"}, r["derived"], [])["epi_direct_D"]
    # Bounded (M, N up to 2^20, ldD up to 2^24: the int64 offsets n*128*ldD are then far from overflowing), every
    # predicated access is inside D at its coordinate and none is skipped.
    below["assume"] = [*below["assume"], "M <= 1048576", "N <= 1048576", "ldD <= 16777216"]
    assert verify._decide_cached(below).verdict == "valid"
    planted = {**below, "args": [*below["args"][:-1], "(M-1,N)"]}
    v = verify._decide_cached(planted)
    assert v.verdict == "invalid" and v.counterexample is not None
    assert v.counterexample.obligation.startswith("PRED")
    # The model's TiledMma is the kernel's: compiled CUTLASS's ThrLayoutVMNK, rebuilt from the printed atom.
    from verifier.algebra import tiled

    mma = tiled.parse_tiled(epilogue.tiled_mma_text(r["derived"]))
    assert isinstance(mma, tiled.TiledMMA) and str(mma.thr_layout_vmnk) == r["derived"]["EPI_MMA_THR"]


def test_gmma_atom_names_from_compiled_cutlass() -> None:
    assert epilogue._gmma_name("cute::SM90::GMMA::MMA_64x128x16_F32F16F16_SS<cute::SM90::GMMA::Major::K, "
                               "cute::SM90::GMMA::Major::K>").startswith("SM90_64x128x16_F32F16F16_SS<GMMA::Major::K")
    # An MN-major operand: the table's instantiation of the same operation (the accumulator's layout is the same).
    assert epilogue._gmma_name("cute::SM90::GMMA::MMA_64x128x16_F32F16F16_SS<cute::SM90::GMMA::Major::MN, "
                               "cute::SM90::GMMA::Major::K>").startswith("SM90_64x128x16_F32F16F16_SS<")
    assert epilogue._gmma_name("cute::SM90::GMMA::MMA_64x256x32_F32E4M3E4M3_SS_TN<>").startswith(
        "SM90_64x256x32_F32E4M3E4M3_SS_TN")
    from verifier.core.errors import LayoutError

    with pytest.raises(LayoutError):
        epilogue._gmma_name("cute::SM90::GMMA::MMA_64x999x16_F32F16F16_SS<>")


CPASYNC = ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x1x1_0_nnn_align2_cpasync_warpspecialized_"
           "cooperative_epi_nosmem")


@pytest.mark.cute
def test_the_cp_async_mainloop_is_derived_from_compiled_cutlass_and_agrees_with_it() -> None:
    """The cp.async mainloop: smem layouts equal to compiled CUTLASS's, GmemTiledCopyA/B as the builder makes them
    (make_simt_gmem_tiled_copy) equal to compiled CUTLASS's, every thread's cp.async destinations equal to
    compiled CUTLASS's addresses and free of bank conflicts; the residue predication checked."""
    r = _verified(CPASYNC)
    d, checks = r["derived"], r["checks"]
    assert d["MAINLOOP"].startswith("cutlass::gemm::MainloopSm90CpAsyncGmmaWarpSpecialized<")
    assert r["status"] == "verified"
    for x in ("A", "B"):
        assert checks[f"smem_{x}"]["equal"] and checks[f"gmma_{x}"]["verdict"] == "valid"
        c = checks[f"copy_{x}"]
        assert c["addresses_equal"] and c["verdict"] == "proved" and c["access_bits"] == 32
        assert c["threads"] == 128 and c["instructions"] == 224  # 7 stages of a 128x64 tile, 2 halves a copy
    # An M-major A: 64 threads along M, 2 along K, 2 elements (4 bytes, the kernel's alignment) a copy.
    assert checks["copy_A"]["model"] == ("make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint32_t,uint32_t>, 16, "
                                         "(_64,_2):(_1,_64), (_2,_1))")
    assert d["MAIN_COPY_A_TV"] == "(_128,_2):(_2,_1)"
    # The residue predication (sm90_cpasync.predication, tests/library/test_cpasync_predication.py): exact for
    # K >= 1, refuted at K = 0, which can_implement admits and load() reads out of bounds (replayed).
    for x in ("A", "B"):
        assert checks[f"predication_{x}"]["for_positive_K"] == "valid"
        assert checks[f"predication_{x}"]["witness"]["K"] == 0
    assert "K % 2 == 0" in r["can_implement"]["condition"] and "M % 2 == 0" in r["can_implement"]["condition"]
    found = [f for f in r["findings"] if f.get("part") == "predication"]
    assert len(found) == 2 and all(f["confirmed"] and f["replay"]["can_implement"] == 1 for f in found)
    assert r["verdict"] == "invalid"


def test_cp_async_acceptance_and_atom_names() -> None:
    """The cp.async mainloop's can_implement condition is its copies' alignment (not 128 bits' worth), and its copy
    atoms are named as the atom table names them."""
    from verifier.library import sm90_cpasync

    fields = {"element_a": "f16", "element_b": "f16", "element_c": "f16", "element_d": "f16", "align_a": 2,
              "align_b": 4}
    strides = {"A": "cute::tuple<cute::C<1>, long int, long int>", "B": "cute::tuple<long int, cute::C<1>, long int>",
               "C": "cute::tuple<cute::C<1>, long int, long int>", "D": "cute::tuple<cute::C<1>, long int, long int>"}
    assert sm90_cpasync.acceptance(fields, strides, False) == ["K % 4 == 0", "M % 2 == 0"]
    assert sm90_cpasync.acceptance(fields, strides, True) == ["K % 4 == 0", "M % 2 == 0", "M % 8 == 0"]
    assert sm90_cpasync._atom_name("cute::Copy_Traits<cute::SM80_CP_ASYNC_CACHEALWAYS_ZFILL<long unsigned int, "
                                   "long unsigned int> >") == "SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint64_t,uint64_t>"


MIXED = "cutlass3x_sm90_tensorop_gemm_s4_e5m2_f32_e5m2_e5m2_scl_128x128x128_2x1x1_0_tnn_align32_warpspecialized_epi_tma"


@pytest.mark.cute
def test_a_mainloop_not_modelled_still_has_its_epilogue_verified() -> None:
    """A mixed-input key: its mainloop is not modelled (the key stays not derived, with the mainloop's name), its
    TMA epilogue is verified as any other; and its program no longer dies of SIGFPE (the mixed-input mainloop's
    to_underlying_arguments and can_implement divide by a defaulted group_size of 0)."""
    r = _verified(MIXED)
    assert r["status"] == "not derived"
    assert "MainloopSm90TmaGmmaRmemAWarpSpecializedMixedInput" in r["reason"]
    assert r["reason"].endswith("its epilogue verified")
    checks = r["checks"]
    assert checks["epi_smem_D"]["equal"] and checks["epi_r2s"]["addresses_equal"]
    assert checks["epi_r2s"]["verdict"] == "proved"
    assert not any(k.startswith(("smem_", "tma_", "tiling_")) for k in checks)
    assert all(f["kind"] == "accepted_but_wrong" for f in r["findings"])
