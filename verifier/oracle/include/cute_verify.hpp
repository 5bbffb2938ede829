// cute_verify.hpp: properties a CuTe program states about its own layouts, checked by `cute-verify cpp`.
//
//   #include <cute_verify.hpp>   // `cute-verify cpp --print-include` names the folder
//   cute_verify::expect_bijective(layout);
//   cute_verify::expect_in_bounds(tile_layout, extent);
//   cute_verify::expect_conflict_free(smem_layout, thread_layout, 16, 128);
//
// In the program's own build (CUTE_VERIFY not defined) every expect_* is an empty constexpr inline function: it
// compiles to nothing and needs nothing of CuTe.  Under the tool (which defines CUTE_VERIFY and includes
// cute_symbolic.hpp and CuTe first) each call prints what it states, with its operands as CuTe prints them (each
// run-time leaf a reference to its symbolic value) and the call's file and line (GCC's __builtin_FILE /
// __builtin_LINE as default arguments: the caller's place, C++17), for verifier/oracle/cpp.py to decide.
#pragma once

namespace cute_verify {

// The K-major / MN-major choice of expect_canonical_gmma<Major> (GMMA::Major's two values, spelt without
// including CuTe's GMMA headers in the program's own build).
struct K {};
struct MN {};

#ifndef CUTE_VERIFY

template <class L>
constexpr void expect_bijective(L const&, char const* = nullptr, int = 0) {}
template <class L>
constexpr void expect_injective(L const&, char const* = nullptr, int = 0) {}
template <class L, class E>
constexpr void expect_in_bounds(L const&, E const&, char const* = nullptr, int = 0) {}
template <class A, class B>
constexpr void expect_equivalent(A const&, B const&, char const* = nullptr, int = 0) {}
template <class S, class A>
constexpr void expect_conflict_free(S const&, A const&, int, int, char const* = nullptr, int = 0) {}
template <class Major, class S>
constexpr void expect_canonical_gmma(S const&, int = 0, char const* = nullptr, int = 0) {}
template <class S, class G>
constexpr void expect_tma_box(int, S const&, G const&, char const* = nullptr, int = 0) {}

#else

namespace detail {

template <class T>
void show(T const& x) {
  if constexpr (cute::is_tensor<T>::value) {
    cute::print(x.layout());
  } else {
    cute::print(x);
  }
}

// One recorded fact: `@@EXPECT kind line file`, then one `@@ARG` line per operand (a plain int as `@@INT`).
template <class... A>
void record(char const* kind, char const* file, int line, A const&... a) {
  std::printf("@@EXPECT %s %d %s\n", kind, line, file);
  ((std::printf("@@ARG "), show(a), std::printf("\n")), ...);
  std::printf("@@DONE\n");
}

}  // namespace detail

template <class L>
void expect_bijective(L const& l, char const* f = __builtin_FILE(), int n = __builtin_LINE()) {
  detail::record("bijective", f, n, l);
}
template <class L>
void expect_injective(L const& l, char const* f = __builtin_FILE(), int n = __builtin_LINE()) {
  detail::record("injective", f, n, l);
}
template <class L, class E>
void expect_in_bounds(L const& l, E const& extent, char const* f = __builtin_FILE(), int n = __builtin_LINE()) {
  detail::record("in_bounds", f, n, l, extent);
}
template <class A, class B>
void expect_equivalent(A const& a, B const& b, char const* f = __builtin_FILE(), int n = __builtin_LINE()) {
  detail::record("equivalent", f, n, a, b);
}
template <class S, class A>
void expect_conflict_free(S const& smem, A const& access, int element_bits, int access_bits,
                          char const* f = __builtin_FILE(), int n = __builtin_LINE()) {
  detail::record("conflict_free", f, n, smem, access, element_bits, access_bits);
}
// element_bits 0: sizeof_bits of the smem layout's value type is not known from a layout alone, so the caller
// names it (16 for half_t) unless the layout is an smem_ptr-composed one that carries it.
template <class Major, class S>
void expect_canonical_gmma(S const& smem, int element_bits = 0, char const* f = __builtin_FILE(),
                           int n = __builtin_LINE()) {
  detail::record(std::is_same<Major, K>::value ? "canonical_gmma_K" : "canonical_gmma_MN", f, n, smem,
                 element_bits);
}
template <class S, class G>
void expect_tma_box(int element_bits, S const& smem, G const& gmem, char const* f = __builtin_FILE(),
                    int n = __builtin_LINE()) {
  detail::record("tma_box", f, n, element_bits, smem, gmem);
}

#endif

}  // namespace cute_verify
