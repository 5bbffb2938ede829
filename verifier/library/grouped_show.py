"""What the derive program prints and runs for a ptr-array grouped GEMM (``GroupedUniversal3x``: the mainloops
``MainloopSm100ArrayTmaUmmaWarpSpecialized``, sm100_mma_array_warpspecialized.hpp, and
``MainloopSm90ArrayTmaGmmaWarpSpecialized``, sm90_mma_array_tma_gmma_ss_warpspecialized.hpp), beside what
``derive.PRELUDE``'s ``show`` prints for every collective: C++ text only, appended to the prelude after
``sm100_show``'s (``grouped`` reads what it printed).

A grouped kernel's ``ProblemShape`` is ``GroupProblemShape<Shape<int,int,int>>`` (one (M,N,K) a group, read from a
device array, and optionally from a host copy) and its ``StrideX`` a pointer to one stride a group
(``InternalStrideX``, whose batch mode is ``_0``): ``to_underlying_arguments`` builds the TMA descriptors on the host
at a placeholder shape (1,1,1) with default strides, and the kernel writes each group's dims and strides into them
on the device (``tensormaps_replace_global_tensor_properties``, through ``fill_tma_gmem_shape_stride`` and
``tma_descriptor_replace_dims_strides_in_shared_mem``, cute/arch/copy_sm90_desc.hpp:360-420, which checks
nothing).

* ``GROUPED``: 1 for such a kernel; ``TMA_TENSOR_A/B``: ``get_tma_tensor((1024,1024,1))`` of the descriptors
  ``to_underlying_arguments`` built (``load_init`` tiles ``get_tma_tensor((M,K,mock_L))``, mock_L = 1;
  sm100_mma_array_warpspecialized.hpp:514-523, sm90_mma_array_tma_gmma_ss_warpspecialized.hpp:341-346);
* ``accepts_grouped``: the kernel's ``can_implement`` of one group (M,N,K), with its host problem shape given (the
  path that checks the extents' alignment), or without it where the query's L is 0 (the path that checks nothing),
  and the group's strides in one-element arrays (``can_implement`` reads ``InternalStrideX{}``, never them);
* ``builds_tma_grouped``: the host construction of the descriptor the device builds for that group: CuTe's
  ``make_tma_atom_X_sm100`` (SM100) or ``make_tma_copy`` (SM90) on the group's tensor (M,K,1) with its stride and
  the collective's own copy operation, stage-0 smem layout, tile, MMA and cluster, as ``to_underlying_arguments``
  calls it for a non-grouped ptr-array kernel (its ``init_M``, ``stride_a = args.dA`` branch): CuTe's host asserts
  on that tensor are the checks the device replacement skips.  This harness is written by hand.
"""

from __future__ import annotations

SHOW_GROUPED = r"""
// Ptr-array grouped GEMM kernels (verifier/library/grouped_show.py says what each line is).
template <int S, int SS, int AS, class C>
struct is_sm100_umma_ws<cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecialized<S, SS, AS, C>> : std::true_type {};
// its blockwise-scaled twin: the same A and B (TMA + UMMA); its scale factors are read with cp.async
template <int S, int SS, int AS, class C>
struct is_sm100_umma_ws<cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecializedBlockwiseScaling<S, SS, AS, C>>
  : std::true_type {};
// and its block-scaled twin: the same A and B; its scale factors have their own TMA
template <int S, int SS, int AS, class C>
struct is_sm100_umma_ws<cutlass::gemm::MainloopSm100ArrayTmaUmmaWarpSpecializedBlockScaled<S, SS, AS, C>>
  : std::true_type {};
template <class Kernel, class = void> struct grouped_kernel : std::false_type {};
template <class Kernel> struct grouped_kernel<Kernel, std::void_t<typename Kernel::CollectiveMainloop::InternalStrideA,
    typename Kernel::CollectiveMainloop::InternalStrideB, typename Kernel::ProblemShape::UnderlyingProblemShape,
    decltype(std::declval<typename Kernel::CollectiveMainloop::Params>().tma_load_a)>>
  : std::integral_constant<bool, std::is_pointer_v<typename Kernel::CollectiveMainloop::StrideA>
                                 && cute::rank(typename Kernel::ProblemShape::UnderlyingProblemShape{}) == 3> {};
template <class Mainloop, class Kernel> void show_grouped() {
  if constexpr (grouped_kernel<Kernel>::value) {
    printf("@@GROUPED 1\n");
    // a grouped kernel's to_underlying_arguments reads neither the problem shapes nor the strides
    auto params = mainloop_params<Kernel>(typename Kernel::ProblemShape{}, typename Mainloop::Arguments{});
    line("TMA_TENSOR_A", params.tma_load_a.get_tma_tensor(cute::make_shape(1024, 1024, 1)).layout());
    line("TMA_TENSOR_B", params.tma_load_b.get_tma_tensor(cute::make_shape(1024, 1024, 1)).layout());
  }
}
// A one-group array of a stride pointer's pointee, set from the query's values (static modes keep theirs).
template <class P> void group_stride(P& ptr, const long long* v) {
  if constexpr (std::is_pointer_v<P>) {
    static std::remove_const_t<std::remove_pointer_t<P>> one;
    one = {};
    set_strides(one, v);
    ptr = &one;
  }
}
template <class Kernel> int accepts_grouped(const long long* p) {
  if constexpr (grouped_kernel<Kernel>::value) {
    using Group = typename Kernel::ProblemShape::UnderlyingProblemShape;
    static Group host[1];
    host[0] = Group{int(p[0]), int(p[1]), int(p[2])};
    typename Kernel::Arguments args{};
    args.mode = cutlass::gemm::GemmUniversalMode::kGrouped;
    // L (no extent of a group: the groups' shapes are rank 3) = 0 leaves the host copy out, the path on which
    // can_implement checks nothing
    args.problem_shape = typename Kernel::ProblemShape{1, nullptr, p[3] == 0 ? nullptr : host};
    if constexpr (has_atom_thr<Kernel>::value) args.hw_info = replay_hw_info<Kernel>();
    group_stride(args.mainloop.dA, p + 4);
    group_stride(args.mainloop.dB, p + 7);
    group_stride(args.epilogue.dC, p + 10);
    group_stride(args.epilogue.dD, p + 13);
    return Kernel::can_implement(args) ? 1 : 0;
  } else {
    return -1;
  }
}
template <class Kernel> int builds_tma_grouped(const long long* p) {
  if constexpr (grouped_kernel<Kernel>::value) {
    using namespace cute;
    using ML = typename Kernel::CollectiveMainloop;
    typename ML::InternalStrideA dA{};
    typename ML::InternalStrideB dB{};
    set_strides(dA, p + 4);
    set_strides(dB, p + 7);
    using Cluster = typename ML::DispatchPolicy::ClusterShape;
    if constexpr (has_atom_thr<Kernel>::value) {  // SM100: make_tma_atom_X_sm100, as to_underlying_arguments
      auto a = make_tensor((typename ML::TmaInternalElementA const*)nullptr,
                           make_layout(make_shape(int(p[0]), int(p[2]), int(1)), dA));
      auto b = make_tensor((typename ML::TmaInternalElementB const*)nullptr,
                           make_layout(make_shape(int(p[1]), int(p[2]), int(1)), dB));
      auto hw = replay_hw_info<Kernel>();
      auto cluster = cutlass::detail::select_cluster_shape(Cluster{}, hw.cluster_shape);
      auto vmnk = tiled_divide(make_layout(cluster), make_tile(typename ML::TiledMma::AtomThrID{}));
      (void)make_tma_atom_A_sm100<typename ML::TmaInternalElementA>(typename ML::GmemTiledCopyA{}, a,
          typename ML::SmemLayoutA{}(_,_,_,Int<0>{}), typename ML::TileShape{}, typename ML::TiledMma{}, vmnk);
      (void)make_tma_atom_B_sm100<typename ML::TmaInternalElementB>(typename ML::GmemTiledCopyB{}, b,
          typename ML::SmemLayoutB{}(_,_,_,Int<0>{}), typename ML::TileShape{}, typename ML::TiledMma{}, vmnk);
    } else {  // SM90: make_tma_copy, as to_underlying_arguments (a 16-byte aligned placeholder address)
      auto a = make_tensor((typename ML::InternalElementA const*)(uintptr_t)256,
                           make_layout(make_shape(int(p[0]), int(p[2]), int(1)), dA));
      auto b = make_tensor((typename ML::InternalElementB const*)(uintptr_t)256,
                           make_layout(make_shape(int(p[1]), int(p[2]), int(1)), dB));
      using Tile = typename ML::TileShape;
      (void)make_tma_copy(typename ML::GmemTiledCopyA{}, a, typename ML::SmemLayoutA{}(_,_,Int<0>{}),
                          make_shape(shape<0>(Tile{}), shape<2>(Tile{})), size<1>(Cluster{}));
      (void)make_tma_copy(typename ML::GmemTiledCopyB{}, b, typename ML::SmemLayoutB{}(_,_,Int<0>{}),
                          make_shape(shape<1>(Tile{}), shape<2>(Tile{})), size<0>(Cluster{}));
    }
    return 1;
  } else {
    return -1;
  }
}
"""
