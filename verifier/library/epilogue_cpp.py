"""The C++ that the derive program (``derive.PRELUDE``) adds for the epilogue and the cp.async mainloop: what
compiled CUTLASS builds there, printed with ``cute::print``, and the shared-memory addresses its TiledCopies'
partitions touch.

The SM90 TMA epilogue keeps its smem layouts, stages and element types private
(cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp:134-204); the program includes CUTLASS with
``private`` defined as ``public`` (``derive.PRELUDE``) so that the types CUTLASS itself computed are printed, never
recomputed.  The R2S / S2R TiledCopies are locals of ``store()``: they are built here by the same expressions
(sm90_epilogue_tma_warpspecialized.hpp:586-606 and 631), from the kernel's own TiledMma and the epilogue's own
copy operations, over the same smem tensors (``as_position_independent_swizzle_tensor`` of ``SmemLayoutC/D``).
"""

from __future__ import annotations

CPP = r"""
HAS_MEMBER(CopyOpR2S) HAS_MEMBER(CopyOpS2R) HAS_MEMBER(CopyAtomC) HAS_MEMBER(SmemLayoutAtomD)
HAS_MEMBER(TiledLayout_TV)
template <class Op> struct is_autovec : std::false_type {};
template <int N> struct is_autovec<cute::AutoVectorizingCopyWithAssumedAlignment<N>> : std::true_type {
  static constexpr int max_bits = N;
};
// The elements one instruction of a thread moves: the copy atom's values, or, for an auto-vectorizing operation,
// the vector copy(AutoVectorizingCopyWithAssumedAlignment<N>, src, dst) makes of the same tensors
// (cute/algorithm/copy.hpp:247-273: the common vector, limited by both tensors' alignment and N bits).
template <class Op, class Src, class Dst> int vector_elems(Src const& src, Dst const& dst, int atom_vals) {
  if constexpr (is_autovec<Op>::value) {
    constexpr int common = CUTE_STATIC_V(cute::max_common_vector(src, dst));
    if constexpr (common > 1) {
      constexpr int align = CUTE_STATIC_V(cute::gcd(cute::max_alignment(src), cute::max_alignment(dst),
                                                    cute::Int<is_autovec<Op>::max_bits>{}));
      constexpr int bits = int(cute::sizeof_bits_v<typename Dst::value_type>);
      constexpr int vec = cute::gcd(common * bits, align);
      if constexpr (vec % 8 == 0 && bits < vec) { return vec / bits; }
    }
    return 1;
  } else {
    return atom_vals;
  }
}
template <class Elem, class SLayout> auto smem_tensor(unsigned char* buf) {
  return cute::as_position_independent_swizzle_tensor(
      cute::make_tensor(cute::make_smem_ptr(reinterpret_cast<Elem*>(buf)), SLayout{}));
}
// The byte offset, in a 1024-byte aligned buffer, of the first element of each instruction of each thread (every
// VALS-th element of the thread's partition): what the bank model counts.
template <class TC, bool Dst, class Elem, class SLayout> void show_addresses(const char* tag, int threads,
                                                                            int vals) {
  constexpr int bytes = int(cute::cosize_v<SLayout> * cute::sizeof_bits_v<Elem> / 8) + 16;
  alignas(1024) static unsigned char buf[bytes];
  auto s = smem_tensor<Elem, SLayout>(buf);
  printf("@@%s %d", tag, vals);
  for (int t = 0; t < threads; ++t) {
    auto thr = TC{}.get_slice(t);
    auto part = [&]() { if constexpr (Dst) return thr.partition_D(s); else return thr.partition_S(s); }();
    printf(" |");
    for (int i = 0; i < int(cute::size(part)); i += vals) {
      printf(" %ld", long(reinterpret_cast<unsigned char const*>(&part(i)) - buf));
    }
  }
  printf("\n");
}
template <class TC> void show_tiled_copy(const char* tag) {
  std::string t = tag;
  line((t + "_TILER").c_str(), typename TC::Tiler_MN{});
  line((t + "_TV").c_str(), typename TC::TiledLayout_TV{});
}
// A mainloop that copies A and B with a TiledCopy of threads (the cp.async mainloop,
// sm90_mma_multistage_gmma_ss_warpspecialized.hpp:227-235): each TiledCopy and the smem addresses of every thread's
// partition_D of sA / sB (its copies' destinations), over all stages.
template <class Mainloop> void show_gmem_tiled_copies() {
  if constexpr (has_GmemTiledCopyA<Mainloop>::value && has_SmemLayoutA<Mainloop>::value) {
    using CA = typename Mainloop::GmemTiledCopyA;
    using CB = typename Mainloop::GmemTiledCopyB;
    if constexpr (has_TiledLayout_TV<CA>::value && has_TiledLayout_TV<CB>::value) {
      show_tiled_copy<CA>("MAIN_COPY_A");
      show_tiled_copy<CB>("MAIN_COPY_B");
      printf("@@MAIN_COPY_A_OP %s\n", type_name<typename CA::Traits>().c_str());
      printf("@@MAIN_COPY_B_OP %s\n", type_name<typename CB::Traits>().c_str());
      show_addresses<CA, true, typename CA::ValType, typename Mainloop::SmemLayoutA>(
          "MAIN_COPY_A_ADDR", int(cute::size<0>(typename CA::TiledLayout_TV{})), int(typename CA::AtomNumVal{}));
      show_addresses<CB, true, typename CB::ValType, typename Mainloop::SmemLayoutB>(
          "MAIN_COPY_B_ADDR", int(cute::size<0>(typename CB::TiledLayout_TV{})), int(typename CB::AtomNumVal{}));
    }
  }
}
template <class Mainloop, class Epilogue> void show_epilogue() {
  show_gmem_tiled_copies<Mainloop>();
  // The kernel's TiledMma, which both epilogues partition the accumulators with.
  if constexpr (has_TiledMma<Mainloop>::value) {
    printf("@@EPI_MMA_ATOM %s\n", type_name<typename Mainloop::TiledMma::Atom::MMA_Op>().c_str());
    line("EPI_MMA_THR", typename Mainloop::TiledMma::ThrLayoutVMNK{});
  }
  if constexpr (has_CopyOpR2S<Epilogue>::value && has_CopyAtomC<Epilogue>::value
                && has_SmemLayoutAtomD<Epilogue>::value && has_TiledMma<Mainloop>::value) {
    using E = Epilogue;
    using namespace cute;
    printf("@@EPI_POLICY %s\n", type_name<typename E::DispatchPolicy>().c_str());
    line("EPI_TILE", typename E::EpilogueTile{});
    line("EPI_ATOM_C", typename E::SmemLayoutAtomC{});
    line("EPI_ATOM_D", typename E::SmemLayoutAtomD{});
    printf("@@EPI_STAGES_C %d\n@@EPI_STAGES_D %d\n@@EPI_REUSE_C %d\n", int(E::StagesC), int(E::StagesD),
           int(E::ReuseSmemC));
    printf("@@EPI_SOURCE %d\n@@EPI_DESTINATION %d\n@@EPI_R2R %d\n", int(E::is_source_supported),
           int(E::is_destination_supported), int(E::IsUseR2R));
    printf("@@EPI_BITS_C %d\n@@EPI_BITS_D %d\n", int(sizeof_bits_v<typename E::SmemElementC>),
           int(sizeof_bits_v<typename E::SmemElementD>));
    printf("@@EPI_OP_R2S %s\n", type_name<typename E::CopyOpR2S>().c_str());
    printf("@@EPI_OP_S2R %s\n", type_name<typename E::CopyOpS2R>().c_str());
    printf("@@EPI_OP_G2S %s\n", type_name<typename E::CopyOpG2S>().c_str());
    printf("@@EPI_OP_S2G %s\n", type_name<typename E::CopyOpS2G>().c_str());
    printf("@@EPI_COPY_ATOM_C %s\n", type_name<typename E::CopyAtomC>().c_str());
    using TiledMma = typename Mainloop::TiledMma;
    // store(), sm90_epilogue_tma_warpspecialized.hpp:586-606 (without a register-to-register copy) and 631
    using TiledCopyCAtom = decltype(make_tiled_copy_C_atom(typename E::CopyAtomC{}, TiledMma{}));
    show_tiled_copy<TiledCopyCAtom>("EPI_C_ATOM");
    if constexpr (!E::IsUseR2R) {
      using TiledR2S = decltype(make_tiled_copy_S(Copy_Atom<typename E::CopyOpR2S, typename E::SmemElementD>{},
                                                  TiledCopyCAtom{}));
      using TiledS2R = decltype(make_tiled_copy_S(Copy_Atom<typename E::CopyOpS2R, typename E::SmemElementC>{},
                                                  TiledCopyCAtom{}));
      show_tiled_copy<TiledR2S>("EPI_R2S");
      show_tiled_copy<TiledS2R>("EPI_S2R");
      const int threads = int(size(TiledMma{}));
      // The register and smem tensors of store() (lines 609-633) for thread 0: their layouts are static, the
      // same for every thread, and fix the vector of an auto-vectorizing copy (lines 803, 891).
      alignas(1024) static unsigned char bufD[int(cosize_v<typename E::SmemLayoutD> *
                                                  sizeof_bits_v<typename E::SmemElementD> / 8) + 16];
      alignas(1024) static unsigned char bufC[int(cosize_v<typename E::SmemLayoutC> *
                                                  sizeof_bits_v<typename E::SmemElementC> / 8) + 16];
      auto sD_epi = smem_tensor<typename E::SmemElementD, typename E::SmemLayoutD>(bufD);
      auto sC_epi = smem_tensor<typename E::SmemElementC, typename E::SmemLayoutC>(bufC);
      auto thread_r2s = TiledR2S{}.get_slice(0);
      auto tRS_sD = thread_r2s.partition_D(sD_epi);
      auto tRS_rD_layout = make_layout(take<0,3>(shape(thread_r2s.partition_S(sD_epi))));
      auto tRS_rD = make_tensor<typename E::SmemElementD>(tRS_rD_layout);
      if constexpr (E::is_destination_supported) {
        int vals = vector_elems<typename E::CopyOpR2S>(tRS_rD, tRS_sD(_,_,_,0), int(typename TiledR2S::AtomNumVal{}));
        show_addresses<TiledR2S, true, typename E::SmemElementD, typename E::SmemLayoutD>("EPI_R2S_ADDR", threads,
                                                                                          vals);
      }
      if constexpr (E::is_source_supported) {
        auto thread_s2r = TiledS2R{}.get_slice(0);
        auto tSR_sC = thread_s2r.partition_S(sC_epi);
        auto tSR_rC_layout = thread_s2r.retile_D(tRS_rD).layout();
        constexpr bool IsDirectS2R = cute::is_same_v<typename E::CopyOpS2R,
                                                     AutoVectorizingCopyWithAssumedAlignment<128>>
                                     && decltype(max_common_vector(tSR_rC_layout, tSR_sC.layout()))::value <= 1;
        // store(), lines 549-551 and 639: the accumulators' element is the TiledMma's C value type
        using ElementCompute_ = typename cutlass::epilogue::fusion::FusionCallbacksTraits<
            typename E::FusionCallbacks>::ElementCompute;
        using ElementCompute = cute::conditional_t<cute::is_void_v<ElementCompute_>, typename TiledMma::ValTypeC,
                                                   ElementCompute_>;
        using RegisterElementC = cute::conditional_t<IsDirectS2R, ElementCompute, typename E::SmemElementC>;
        auto tRS_rC = make_tensor<RegisterElementC>(tRS_rD_layout);
        auto tSR_rC = thread_s2r.retile_D(tRS_rC);
        int vals = vector_elems<typename E::CopyOpS2R>(tSR_sC(_,_,_,0), tSR_rC, int(typename TiledS2R::AtomNumVal{}));
        show_addresses<TiledS2R, false, typename E::SmemElementC, typename E::SmemLayoutC>("EPI_S2R_ADDR", threads,
                                                                                           vals);
      }
    }
  }
}
// The epilogue's to_underlying_arguments (make_tma_copy of C and D from the problem shape and strides), run on
// concrete arguments: it returns, or CuTe's host asserts abort.
template <class Kernel> int builds_tma_epilogue(const long long* p) {
  if constexpr (plain_args<Kernel>::value) {
    typename Kernel::Arguments args{};
    typename Kernel::ProblemShape shape{int(p[0]), int(p[1]), int(p[2]), int(p[3])};
    set_strides(args.epilogue.dC, p + 10);
    set_strides(args.epilogue.dD, p + 13);
    static char storage[1 << 20];
    (void)Kernel::CollectiveEpilogue::to_underlying_arguments(shape, args.epilogue, storage);
    return 1;
  } else {
    return -1;
  }
}
"""

# The tags the program prints as integers.
INT_TAGS = ("EPI_STAGES_C", "EPI_STAGES_D", "EPI_REUSE_C", "EPI_SOURCE", "EPI_DESTINATION", "EPI_R2R", "EPI_BITS_C",
            "EPI_BITS_D")
