// Constructs of a host function that cute-verify cpp reports: undefined behaviour in CuTe's arithmetic on the
// run-time integers, a loop bound by a run-time value, a file that does not compile (bad.cpp).
#include <cute/layout.hpp>

using namespace cute;

void divides(int m, int d) {
  auto tiles = shape_div(make_shape(m), make_shape(d));
  (void)tiles;
}

void loops(int m) {
  for (int i = 0; i < m; ++i) {
    auto l = make_layout(make_shape(i + 1));
    (void)l;
  }
}

void proven(int m) {
  auto l = make_layout(make_shape(m, Int<8>{}), make_stride(Int<8>{}, Int<1>{}));
  auto t = zipped_divide(l, Shape<_4, _8>{});
  (void)t;
}

// The same division on two paths: proved where d > 4 only, so it must be asked on both.
void two_paths(int m, int d) {
  int e = d > 4 ? d : d;
  auto tiles = shape_div(make_shape(m), make_shape(e));
  (void)tiles;
}
