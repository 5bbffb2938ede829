// cute_symbolic_swizzle.hpp: CuTe's MixedBits (the run-time swizzle offset of a sliced swizzled layout) on a
// symbolic run-time integer, so that slicing a swizzled layout at a symbolic coordinate (a thread's partition of a
// swizzled smem tile) stays symbolic instead of reading the coordinate as a builtin.
//
// CuTe's make_mixed_bits (cute/swizzle.hpp) stores `uint32_t(d) & F` in a MixedBits<S,F>: on a symbolic `d` that
// conversion fixes its value, a decision taken again for every value of the thread index.  Here make_mixed_bits of
// a symbolic `d` returns SymBits<S,F>, the same abstract value (S | (d & F)) with the dynamic bits kept as symbolic
// bits (each 0 or 1; a bitwise operation is a linear formula of its operands' bits), and every MixedBits operation
// CuTe defines is defined on it with CuTe's own static parts (the S and F of each result are cute/swizzle.hpp's
// formulas), so that every static type CuTe derives from them (the swizzle strides' kinds, max_alignment) is the
// one the real MixedBits gives.  A comparison of its bits is a symbolic Bool, and CuTe's conditional_return on such
// a Bool is an if-then-else node, not a branch.  A MixedBits function not defined here does not compile: nothing
// falls back to a concrete value silently.
//
// Include after the CuTe headers (it names cute::C and cute::MixedBits).
#pragma once

#include <array>
#include <cute_symbolic.hpp>

namespace cute_symbolic {

// c ? a : b as a node: no decision.
template <class T>
inline Int<T> select(Bool const& c, Int<T> const& a, Int<T> const& b) {
  return Int<T>(node("ite", type_name<T>(), {c.node, a.node, b.node}), c.value ? a.value : b.value, nullptr);
}

namespace bits {
using U = Int<uint32_t>;
inline U lit(uint32_t v) { return U(v); }
// x's bit j, for an unsigned x: x / 2^j % 2 (the caller's modelling arithmetic: no obligation).
inline U bit(U const& x, int j) {
  return quietly([&] { return U(x / lit(uint32_t(1) << j) % lit(2)); });
}
inline U band(U const& a, U const& b) { return quietly([&] { return U((a + b) / lit(2)); }); }
inline U bor(U const& a, U const& b) { return quietly([&] { return U((a + b + lit(1)) / lit(2)); }); }
inline U bxor(U const& a, U const& b) { return quietly([&] { return U((a + b) % lit(2)); }); }
}  // namespace bits

}  // namespace cute_symbolic

namespace cute {

// S | (the bits b[j], j in F): b[j] is a symbolic 0 or 1, 0 outside F.
template <uint32_t S, uint32_t F>
struct SymBits {
  static_assert(F != 0, "Should be at least one dynamic bit in SymBits.");
  static_assert((S & F) == 0, "No static/dynamic overlap allowed in SymBits.");
  std::array<cute_symbolic::Int<uint32_t>, 32> b;

  // the dynamic bits' value (MixedBits::dynamic_int_)
  cute_symbolic::Int<uint32_t> dynamic() const {
    using namespace cute_symbolic::bits;
    U r = lit(0);
    for (int j = 0; j < 32; ++j) {
      if ((F >> j) & 1u) { r = cute_symbolic::quietly([&] { return U(r + b[j] * lit(uint32_t(1) << j)); }); }
    }
    return r;
  }
  // MixedBits::operator uint32_t
  cute_symbolic::Int<uint32_t> value() const {
    return cute_symbolic::quietly([&] { return cute_symbolic::Int<uint32_t>(dynamic() + cute_symbolic::bits::lit(S)); });
  }
};

namespace symbits {
using U = cute_symbolic::Int<uint32_t>;
using Bits = std::array<U, 32>;

// An operand of a MixedBits operation: its static part, its dynamic flags, and bit j of its value.
template <class X> struct traits;
template <uint32_t S_, uint32_t F_> struct traits<SymBits<S_, F_>> {
  static constexpr uint32_t S = S_, F = F_;
  static U bit(SymBits<S_, F_> const& x, int j) {
    return ((F >> j) & 1u) ? x.b[j] : cute_symbolic::bits::lit((S >> j) & 1u);
  }
};
template <uint32_t S_, uint32_t F_> struct traits<MixedBits<S_, F_>> {
  static constexpr uint32_t S = S_, F = F_;
  static U bit(MixedBits<S_, F_> const& x, int j) { return cute_symbolic::bits::lit((uint32_t(x) >> j) & 1u); }
};
template <auto v> struct traits<C<v>> {
  static constexpr uint32_t S = uint32_t(v), F = 0;
  static U bit(C<v> const&, int j) { return cute_symbolic::bits::lit((uint32_t(v) >> j) & 1u); }
};

template <class X, class = void> struct is_bits : false_type {};
template <class X> struct is_bits<X, std::void_t<decltype(traits<X>::S)>> : true_type {};
template <class X> struct is_sym : false_type {};
template <uint32_t S, uint32_t F> struct is_sym<SymBits<S, F>> : true_type {};
template <class A, class B>
constexpr bool pair_v = is_bits<A>::value && is_bits<B>::value && (is_sym<A>::value || is_sym<B>::value);

// make_mixed_bits(C<s>, d, C<f>) on bits: a SymBits when a dynamic bit is left, else CuTe's run-time integer
// `C<s>{} | (d & C<0>{})` (a uint32_t of value s).
template <uint32_t s, uint32_t f>
auto make(Bits const& b) {
  constexpr uint32_t new_f = f & ~s;
  if constexpr (new_f == 0) {
    return U(s);
  } else {
    SymBits<s, new_f> r;
    for (int j = 0; j < 32; ++j) { r.b[j] = ((new_f >> j) & 1u) ? b[j] : cute_symbolic::bits::lit(0); }
    return r;
  }
}

template <class A, class B, class Op>
Bits combine(A const& a, B const& b, Op op) {
  Bits r;
  for (int j = 0; j < 32; ++j) { r[j] = op(traits<A>::bit(a, j), traits<B>::bit(b, j)); }
  return r;
}
template <class A>
Bits shifted(A const& a, int n) {  // a << n (n > 0) or a >> -n
  Bits r;
  for (int j = 0; j < 32; ++j) {
    int k = j - n;
    r[j] = (k >= 0 && k < 32) ? traits<A>::bit(a, k) : cute_symbolic::bits::lit(0);
  }
  return r;
}
}  // namespace symbits

// make_mixed_bits of a symbolic value: cute/swizzle.hpp's, with the dynamic bits kept symbolic.
template <auto s, class T, auto f>
auto make_mixed_bits(C<s>, cute_symbolic::Int<T> const& d, C<f>) {
  constexpr uint32_t new_f = uint32_t(f) & ~uint32_t(s);
  using R = decltype(C<s>{} | (T(0) & C<new_f>{}));  // CuTe's type of its static-result branch
  if constexpr (new_f == 0) {
    return cute_symbolic::Int<R>(R(s));
  } else {
    cute_symbolic::Int<uint32_t> u = cute_symbolic::quietly([&] { return cute_symbolic::Int<uint32_t>(d); });
    symbits::Bits b;
    for (int j = 0; j < 32; ++j) {
      b[j] = ((new_f >> j) & 1u) ? cute_symbolic::bits::bit(u, j) : cute_symbolic::bits::lit(0);
    }
    return symbits::make<uint32_t(s), uint32_t(f)>(b);
  }
}

// The static parts are cute/swizzle.hpp's formulas for MixedBits op MixedBits (a C<v> is MixedBits<v,0>, for
// which they reduce to its MixedBits op C<v> formulas).
template <class A, class B, std::enable_if_t<symbits::pair_v<A, B>, int> = 0>
auto operator&(A const& a, B const& b) {
  using TA = symbits::traits<A>;
  using TB = symbits::traits<B>;
  return symbits::make<TA::S & TB::S, (TB::S & TA::F) | (TA::S & TB::F) | (TA::F & TB::F)>(
      symbits::combine(a, b, cute_symbolic::bits::band));
}
template <class A, class B, std::enable_if_t<symbits::pair_v<A, B>, int> = 0>
auto operator|(A const& a, B const& b) {
  using TA = symbits::traits<A>;
  using TB = symbits::traits<B>;
  return symbits::make<TA::S | TB::S, (~TA::S & TB::F) | (~TB::S & TA::F)>(
      symbits::combine(a, b, cute_symbolic::bits::bor));
}
template <class A, class B, std::enable_if_t<symbits::pair_v<A, B>, int> = 0>
auto operator^(A const& a, B const& b) {
  using TA = symbits::traits<A>;
  using TB = symbits::traits<B>;
  return symbits::make<(~TA::S & TB::S & ~TA::F) | (TA::S & ~TB::S & ~TB::F), TA::F | TB::F>(
      symbits::combine(a, b, cute_symbolic::bits::bxor));
}
template <uint32_t S0, uint32_t F0, auto S1>
auto operator<<(SymBits<S0, F0> const& m, C<S1>) {
  return symbits::make<(S0 << S1), (F0 << S1)>(symbits::shifted(m, int(S1)));
}
template <uint32_t S0, uint32_t F0, auto S1>
auto operator>>(SymBits<S0, F0> const& m, C<S1>) {
  return symbits::make<(S0 >> S1), (F0 >> S1)>(symbits::shifted(m, -int(S1)));
}
template <uint32_t S0, uint32_t F0, auto S1>
auto shiftl(SymBits<S0, F0> const& m, C<S1> s) {
  if constexpr (S1 >= 0) { return m << s; } else { return m >> -s; }
}
template <uint32_t S0, uint32_t F0, auto S1>
auto shiftr(SymBits<S0, F0> const& m, C<S1> s) {
  if constexpr (S1 >= 0) { return m >> s; } else { return m << -s; }
}
template <uint32_t S0, uint32_t F0, auto S1>
auto safe_div(SymBits<S0, F0> const& m, C<S1> s) {
  static_assert(has_single_bit(uint32_t(S1)), "Only divide MixedBits by powers of two.");
  return symbits::make<uint32_t(decltype(safe_div(C<S0>{}, s))::value), uint32_t(decltype(safe_div(C<F0>{}, s))::value)>(
      symbits::shifted(m, -int(countr_zero(uint32_t(S1)))));
}
template <uint32_t N, uint32_t S0, uint32_t F0>
auto upcast(SymBits<S0, F0> const& m) {
  static_assert(has_single_bit(N), "Only divide MixedBits by powers of two.");
  return safe_div(m, C<N>{});
}
template <uint32_t N, uint32_t S0, uint32_t F0>
auto downcast(SymBits<S0, F0> const& m) {
  static_assert(has_single_bit(N), "Only scale MixedBits by powers of two.");
  return symbits::make<S0 * N, F0 * N>(symbits::shifted(m, int(countr_zero(N))));
}
template <uint32_t S0, uint32_t F0>
auto max_alignment(SymBits<S0, F0> const&) {
  return C<uint32_t(1) << countr_zero(S0 | F0)>{};
}
template <uint32_t S0, uint32_t F0, auto S1>
cute_symbolic::Bool operator==(SymBits<S0, F0> const& m, C<S1>) {
  using cute_symbolic::bits::lit;
  if constexpr (S0 != (uint32_t(S1) & ~F0)) {
    return lit(0) == lit(1);  // a constant false
  } else {
    return m.dynamic() == lit(uint32_t(S1) & F0);
  }
}
template <uint32_t S0, uint32_t F0, auto S1>
cute_symbolic::Bool operator==(C<S1> s, SymBits<S0, F0> const& m) { return m == s; }

// MixedBits meets a run-time integer through its conversion to uint32_t (CuTe's implicit operator uint32_t): the
// bitwise operations of the integer's type, written as linear formulas of the bits of the SymBits' S|F only (the
// integer's other bits pass through an and as 0, an or or a xor unchanged).
namespace symbits {
template <class I>
constexpr bool dynamic_v = cute_symbolic::is_sym<I>::value || cute_symbolic::is_builtin<I>::value;

template <uint32_t S0, uint32_t F0, class I, class Op>
auto mixed(SymBits<S0, F0> const& m, I const& i, Op op, bool keep) {
  using R = cute_symbolic::arith_t<uint32_t, cute_symbolic::underlying_t<I>>;
  static_assert(std::is_unsigned<R>::value, "cute-verify: a swizzle offset meets a signed 64-bit integer");
  using V = cute_symbolic::Int<R>;
  return cute_symbolic::quietly([&] {
    V x = cute_symbolic::as<R>(i);
    V r = keep ? x : V(R(0));
    for (int j = 0; j < 32; ++j) {
      if (((S0 | F0) >> j) & 1u) {
        V xj = V(x / V(R(1) << j) % V(R(2)));
        V yj = V(traits<SymBits<S0, F0>>::bit(m, j));
        V delta = keep ? V(V(op(U(xj), U(yj))) - xj) : V(op(U(xj), U(yj)));
        r = V(r + delta * V(R(1) << j));
      }
    }
    return r;
  });
}
}  // namespace symbits

#define CUTE_SYMBITS_MIXED(OP, FN, KEEP)                                                                     \
  template <uint32_t S0, uint32_t F0, class I, std::enable_if_t<symbits::dynamic_v<I>, int> = 0>           \
  auto operator OP(SymBits<S0, F0> const& m, I const& i) { return symbits::mixed(m, i, FN, KEEP); }        \
  template <uint32_t S0, uint32_t F0, class I, std::enable_if_t<symbits::dynamic_v<I>, int> = 0>           \
  auto operator OP(I const& i, SymBits<S0, F0> const& m) { return symbits::mixed(m, i, FN, KEEP); }
CUTE_SYMBITS_MIXED(&, cute_symbolic::bits::band, false)
CUTE_SYMBITS_MIXED(|, cute_symbolic::bits::bor, true)
CUTE_SYMBITS_MIXED(^, cute_symbolic::bits::bxor, true)
#undef CUTE_SYMBITS_MIXED

// MixedBits meets an integer through its conversion to uint32_t (CuTe's implicit operator uint32_t).
template <uint32_t S0, uint32_t F0, class I, std::enable_if_t<cute_symbolic::operands_v<cute_symbolic::Int<uint32_t>, I>, int> = 0>
auto operator+(SymBits<S0, F0> const& m, I const& i) { return m.value() + i; }
template <uint32_t S0, uint32_t F0, class I, std::enable_if_t<cute_symbolic::operands_v<I, cute_symbolic::Int<uint32_t>>, int> = 0>
auto operator+(I const& i, SymBits<S0, F0> const& m) { return i + m.value(); }

// conditional_return on a symbolic condition (make_swizzle_strides' per-bit strides): an if-then-else value.
template <auto v>
auto conditional_return(cute_symbolic::Bool const&, C<v> const&, C<v> const&) { return C<v>{}; }
template <auto v, auto u>
auto conditional_return(cute_symbolic::Bool const& b, C<v> const&, C<u> const&) {
  using R = decltype(true ? v : u);
  return cute_symbolic::select(b, cute_symbolic::Int<R>(R(v)), cute_symbolic::Int<R>(R(u)));
}

template <uint32_t S, uint32_t F>
void print(SymBits<S, F> const& m) {
  std::printf("M_%u|(%s&%u)=%s", S, cute_symbolic::str(m.dynamic()).c_str(), F, cute_symbolic::str(m.value()).c_str());
}

}  // namespace cute
