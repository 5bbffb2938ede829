"""What the derive program prints for an SM100 TMA + UMMA mainloop (``sm100_mma_warpspecialized.hpp``), beside
what ``derive.PRELUDE``'s ``show`` prints for every collective: C++ text only, appended to the prelude (``derive``
imports it; ``sm100`` reads what it printed).

For a collective with ``AtomThrShapeMNK`` and ``MmaShapeA_MK`` (the SM100 UMMA collectives):

* ``ATOM_THR``: ``size(AtomThrShapeMNK)``, 1 for a 1SM MMA and 2 for a 2SM one; ``EPI_POLICY``: the epilogue
  collective's dispatch policy (its ``can_implement`` is the epilogue's part of the kernel's);
* ``MMA_SHAPE_A/B``: ``partition_shape_A/B(TiledMma, (BLK, BLK_K))``, the per-CTA (MMA, MMA_R, MMA_K) shape the
  smem layout is tiled to (``UMMA::tile_to_mma_shape``, sm100_mma_warpspecialized.hpp:178-186);
* ``CTA_V_A/B``: ``cta_v_tile`` of ``make_tma_atom_A/B_sm100`` (copy_traits_sm100_tma.hpp:404-470): the map from
  a CTA's value index to the gmem coordinate, over an identity tensor of a sample problem (its strides are scaled
  bases, the same for every problem); ``CTA_T_A/B``: the same partition's CTA mode (where each CTA of a 2SM pair
  starts in the pair's tile);
* ``UMMA_DESC_A/B``: the descriptor the mainloop's ``mma_init`` builds (``TiledMma::make_fragment_A(sA)``, i.e.
  ``UMMA::make_umma_desc<Major>(tensor<0>(sA))``): its layout type, SBO and LBO;
* ``TMA_BASIS_A/B``: CuTe's ``construct_tma_gbasis`` (copy_traits_sm90_tma.hpp:729) on the operands the mainloop's
  ``to_underlying_arguments`` gives ``make_tma_atom_*_sm100`` at a sample problem with packed strides: its modes'
  sizes are the TMA box (the driver's encoder is not reached in a host build, so the box is read here), and
  ``TMA_MCAST_A/B`` the multicast count the box is then truncated by (copy_traits_sm90_tma.hpp:990-997).
"""

from __future__ import annotations

SHOW_SM100 = r"""
// SM100 UMMA collectives (verifier/library/sm100_show.py says what each line is).
// Only MainloopSm100TmaUmmaWarpSpecialized's collective: the others (block-scaled, sparse, ptr-array, ...) build
// their smem tensors and TMA atoms differently, and what follows would not compile for them.
template <class P> struct is_sm100_umma_ws : std::false_type {};
template <int S, int SS, int AS, class C>
struct is_sm100_umma_ws<cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized<S, SS, AS, C>> : std::true_type {};
template <class C, class = void> struct is_umma_collective : std::false_type {};
template <class C> struct is_umma_collective<C, std::void_t<typename C::AtomThrShapeMNK, typename C::MmaShapeA_MK,
    typename C::MmaShapeB_NK, typename C::ElementAMma, typename C::ElementBMma>>
  : std::integral_constant<bool, is_sm100_umma_ws<typename C::DispatchPolicy>::value> {};
template <class D> void umma_desc_line(const char* tag, D const& d) {
  printf("@@%s %d %d %d\n", tag, int(d.layout_type_), int(d.stride_byte_offset_), int(d.leading_byte_offset_));
}
template <class Copy, class VMNK> int tma_multicast(VMNK const& vmnk, int mode) {
  if constexpr (std::is_same_v<Copy, cute::SM90_TMA_LOAD_MULTICAST> ||
                std::is_same_v<Copy, cute::SM100_TMA_2SM_LOAD_MULTICAST>) {
    return mode == 2 ? int(cute::size<2>(vmnk)) : int(cute::size<1>(vmnk));
  } else {
    return 1;
  }
}
template <class Mainloop, class Kernel> void show_umma() {
  if constexpr (is_umma_collective<Mainloop>::value) {
    using TiledMma = typename Mainloop::TiledMma;
    using Tile = typename Mainloop::TileShape;
    printf("@@ATOM_THR %d\n", int(cute::size(typename Mainloop::AtomThrShapeMNK{})));
    {  // the epilogue collective's dispatch policy, whose can_implement adds C's and D's conjuncts
      std::string e = type_name<typename Kernel::CollectiveEpilogue>();
      auto at = e.find("CollectiveEpilogue<");
      std::string policy = at == std::string::npos ? e : e.substr(at + 19);
      printf("@@EPI_POLICY %s\n", policy.substr(0, policy.find_first_of("<,")).c_str());
    }
    line("MMA_SHAPE_A", typename Mainloop::MmaShapeA_MK{});
    line("MMA_SHAPE_B", typename Mainloop::MmaShapeB_NK{});
    auto sample = cute::make_shape(1024, 1024, 2);
    auto gA = cute::make_identity_layout(sample).compose(cute::remove<1>(Tile{}));
    auto gB = cute::make_identity_layout(sample).compose(cute::remove<0>(Tile{}));
    // make_tma_atom_A/B_sm100's cta_v_tile (copy_traits_sm100_tma.hpp:416-420 and 455-459)
    auto cta_v_a = cute::layout<1>(TiledMma{}.thrfrg_A(gA))(
        cute::_, cute::repeat<decltype(cute::rank(gA))::value>(cute::_));
    auto cta_v_b = cute::layout<1>(TiledMma{}.thrfrg_B(gB))(
        cute::_, cute::repeat<decltype(cute::rank(gB))::value>(cute::_));
    line("CTA_V_A", cta_v_a);
    line("CTA_V_B", cta_v_b);
    // the CTA (peer) mode of the same partition: where each CTA of a 2SM pair starts in the pair's tile
    line("CTA_T_A", cute::layout<0>(TiledMma{}.thrfrg_A(gA)));
    line("CTA_T_B", cute::layout<0>(TiledMma{}.thrfrg_B(gB)));
    // Sub-byte (f8f6f4) elements: their smem pointers are of the 16U4/16U6 formats, not modelled (sm100.not_derived)
    if constexpr (cute::sizeof_bits_v<typename Mainloop::ElementAMma> >= 8 &&
                  cute::sizeof_bits_v<typename Mainloop::ElementBMma> >= 8) {
      auto sA = cute::make_tensor(cute::make_smem_ptr((typename Mainloop::ElementAMma*)nullptr),
                                  typename Mainloop::SmemLayoutA{});
      auto sB = cute::make_tensor(cute::make_smem_ptr((typename Mainloop::ElementBMma*)nullptr),
                                  typename Mainloop::SmemLayoutB{});
      umma_desc_line("UMMA_DESC_A", *TiledMma::make_fragment_A(sA).data());
      umma_desc_line("UMMA_DESC_B", *TiledMma::make_fragment_B(sB).data());
      auto cluster = typename Mainloop::DispatchPolicy::ClusterShape{};
      if constexpr (cute::is_static_v<decltype(cluster)>) {
        auto vmnk = cute::tiled_divide(cute::make_layout(cluster), cute::make_tile(typename TiledMma::AtomThrID{}));
        printf("@@TMA_MCAST_A %d\n", tma_multicast<typename Mainloop::GmemTiledCopyA>(vmnk, 2));
        printf("@@TMA_MCAST_B %d\n", tma_multicast<typename Mainloop::GmemTiledCopyB>(vmnk, 1));
      }
      // The TMA basis make_tma_copy_atom builds (copy_traits_sm90_tma.hpp:1135) from the mainloop's operands at the
      // sample problem with packed strides: its modes' sizes are the box before the multicast truncation.
      if constexpr (has_StrideA<Mainloop>::value && has_StrideB<Mainloop>::value) {
        // a ptr-array collective's StrideX is a pointer to one group's stride (InternalStrideX)
        std::remove_pointer_t<typename Mainloop::StrideA> dA{};
        std::remove_pointer_t<typename Mainloop::StrideB> dB{};
        const long long packed[3] = {1024, 1024, 1024 * 1024};
        set_strides(dA, packed);
        set_strides(dB, packed);
        auto tA = cute::make_tensor(cute::make_gmem_ptr((typename Mainloop::TmaInternalElementA const*)nullptr),
                                    cute::make_layout(sample, dA));
        auto tB = cute::make_tensor(cute::make_gmem_ptr((typename Mainloop::TmaInternalElementB const*)nullptr),
                                    cute::make_layout(sample, dB));
        using namespace cute;
        auto sA0 = get_nonswizzle_portion(typename Mainloop::SmemLayoutA{}(_, _, _, Int<0>{}));
        auto sB0 = get_nonswizzle_portion(typename Mainloop::SmemLayoutB{}(_, _, _, Int<0>{}));
        line("TMA_BASIS_A",
             cute::detail::construct_tma_gbasis<typename Mainloop::TmaInternalElementA>(tA, sA0, cta_v_a));
        line("TMA_BASIS_B",
             cute::detail::construct_tma_gbasis<typename Mainloop::TmaInternalElementB>(tB, sB0, cta_v_b));
      }
    }
  }
}
"""
