// The seed documents' examples (../shared/seeds/003, 004) as their authors write them in C++, with the sizes as
// the function's run-time parameters.
#include <cute/layout.hpp>
#include <cute_verify.hpp>

using namespace cute;

// 003: composing a column-major 2x3 layout with a row-major 2x3 layout, both with run-time extents.
void compose_2x3(int m, int n) {
  auto col = make_layout(make_shape(m, n), make_stride(1, m));
  auto row = make_layout(make_shape(m, n), make_stride(n, 1));
  auto c = composition(col, row);
  cute_verify::expect_bijective(c);
}

// 004: recasting 16-bit elements to 32-bit ones on a run-time (16):(1) layout.
void recast_16(int n) {
  auto b_layout = make_layout(make_shape(n), make_stride(1));
  auto r = recast_layout<half_t, uint32_t>(b_layout);
  auto u = upcast<2>(b_layout);
}
