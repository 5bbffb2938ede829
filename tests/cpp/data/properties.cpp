// The properties a C++ function states with cute_verify::expect_*: each decided as the declared property of that
// name (tests/cpp/test_cpp.py: test_expected_properties_are_decided_and_count).
#include <cute/layout.hpp>
#include <cute_verify.hpp>

using namespace cute;

void properties(int m, int n) {
  auto col = make_layout(make_shape(m, n), make_stride(1, m));
  auto row = make_layout(make_shape(m, n), make_stride(n, 1));
  cute_verify::expect_bijective(col);
  cute_verify::expect_injective(row);
  cute_verify::expect_in_bounds(col, m * n);
  cute_verify::expect_in_bounds(col, m * n - 1);
  cute_verify::expect_equivalent(col, row);
  auto smem = make_layout(make_shape(Int<8>{}, Int<64>{}), make_stride(Int<64>{}, Int<1>{}));
  auto access = make_layout(make_shape(Int<8>{}), make_stride(Int<1>{}));
  cute_verify::expect_conflict_free(smem, access, 16, 128);
}
