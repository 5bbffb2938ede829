#include <cute/layout.hpp>

void broken(int m) {
  auto l = cute::make_layout(cute::make_shape(m), not_declared);
}
