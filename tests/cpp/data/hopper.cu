// A Hopper-style host function: GMMA smem atoms tiled to the CTA tile, and the TMA box of a run-time (M,K) tensor
// with that smem layout, stated through cute_verify's expect_* (nothing in the program's own build).
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute_verify.hpp>

using namespace cute;

void hopper_layouts(int m, int k) {
  auto sA = tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}));
  cute_verify::expect_canonical_gmma<cute_verify::K>(sA, 16);
  auto gA = make_layout(make_shape(m, k), make_stride(k, Int<1>{}));
  cute_verify::expect_tma_box(16, sA, gA);
}
