// cute_symbolic.hpp: a run-time integer whose value is an expression, for running CuTe's own headers on symbols.
//
// cute_symbolic::Int<T> stands for a C++ integer of type T (int, int64_t, uint32_t, ...) whose value is not known.
// It is declared integral (std::is_integral, which cute::is_std_integral aliases and cute::is_integral derives
// from), so that CuTe's unmodified layout algebra treats it as a run-time integer: static leaves stay C<N> types,
// and every arithmetic CuTe performs on a run-time leaf builds a node of a hash-consed expression DAG, in CuTe's
// order of operations and in C++'s types (the usual arithmetic conversions; truncating division).
//
// Each value also carries a concrete value (the run is concolic): the values of the symbols come from the caller,
// and a conversion of a symbolic comparison to bool takes the branch the concrete values take and records the
// comparison as a decision.  The decisions of a run are its path condition; a driver (verifier/oracle/symbolic.py)
// asks a solver for values that flip one and runs again, until every feasible path has been taken.
//
// Every '/' and '%' records its divisor, every signed '+ - * neg' its exact result, every shift its amount and
// every narrowing conversion its operand, as obligations: division by zero and signed overflow are found on
// CuTe's own code path, in CuTe's own types.  The concrete arithmetic itself never has undefined behaviour (it
// computes in 128 bits and wraps), so a run always completes.
//
// Include this header BEFORE the CuTe headers: CuTe calls cute::min / cute::max qualified, so the overloads for
// symbolic values must be declared in namespace cute before CuTe's templates are defined.  It does not depend on
// CuTe (a static integer is recognised as an empty class with an integral `value`).  Nothing of CuTe is changed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <dlfcn.h>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cute_symbolic {

template <class T> struct Int;
struct Bool;

// -- the expression DAG -----------------------------------------------------------------------------------------

template <class T>
inline std::string type_name() {
  if constexpr (std::is_same<T, bool>::value) {
    return "bool";
  } else {
    return std::string(std::is_signed<T>::value ? "i" : "u") + std::to_string(8 * sizeof(T));
  }
}

struct Node {
  std::string op;     // var lit + - * / % neg ~ & | ^ << >> min max abs signum gcd lcm cast == != < <= > >= not
  std::string type;   // the C++ type of the value: i32 u32 i64 ... bool
  std::vector<int> args;
  long long lit = 0;  // a literal's value (its bit pattern for u64)
  std::string name;   // a variable's name
};

struct Decision {
  int cond;    // a bool node
  bool taken;  // the value the branch took
  unsigned long long where;
};

struct Obligation {
  std::string kind;  // DIV0 (divisor), OVF (signed result in range), SHIFT (amount in range), NARROW (value kept)
  int cond;          // a bool node that must hold
  unsigned long long where;
};

// The literal 0 of each type has a fixed node, interned first in every graph: a default-constructed Int<T> is
// then a constant expression, as a default-constructed int is (CUTLASS builds `StrideA{}` in constant expressions:
// `is_major<0, StrideA>()` in a collective's types, cutlass/detail/layout.hpp:198-201).
template <class T>
constexpr int zero_id() {
  return std::is_same<T, bool>::value ? 8 : (std::is_signed<T>::value ? 0 : 4) +
         (sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3);
}

struct Graph {
  std::vector<Node> nodes;
  std::unordered_map<std::string, int> index;
  std::vector<Decision> decisions;
  std::vector<Obligation> obligations;
  std::unordered_map<std::string, bool> seen_obligation;
  bool print_refs = false;  // print a value as its node (v__N) instead of its expression
  bool quiet = false;       // building an operand: its arithmetic is the caller's, not CuTe's (no obligation)
  // Called after each decision ('D') and obligation ('O') is recorded, with its index: `cute-verify cpp` takes the
  // call stack there, to name the line of the user's code that led to it (verifier/oracle/cpp.py).
  void (*on_event)(char kind, size_t index) = nullptr;

  int intern(Node n) {
    std::string key = n.op + "|" + n.type + "|" + std::to_string(n.lit) + "|" + n.name;
    for (int a : n.args) { key += "," + std::to_string(a); }
    auto it = index.find(key);
    if (it != index.end()) { return it->second; }
    nodes.push_back(std::move(n));
    int id = int(nodes.size()) - 1;
    index.emplace(std::move(key), id);
    return id;
  }
  void reset() {
    nodes.clear(); index.clear(); decisions.clear(); obligations.clear(); seen_obligation.clear();
    seed();
  }
  Graph() { seed(); }
  void seed() {  // zero_id's order
    for (char const* t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "bool"}) {
      Node n;
      n.op = "lit"; n.type = t;
      intern(std::move(n));
    }
  }
};

inline Graph& graph() {
  static Graph g;
  return g;
}

// The place in the binary that called an operator: the driver maps it to a file and line (addr2line) when it
// names a decision or an obligation.
// dladdr searches the loaded objects' symbols on every call: the answer for each address is remembered (the call
// stacks of a run's decisions and obligations go through the same few hundred places).
inline unsigned long long relative(void* addr) {
  static std::unordered_map<void*, unsigned long long> known;
  auto it = known.find(addr);
  if (it != known.end()) { return it->second; }
  Dl_info info;
  unsigned long long r = 0;
  if (addr != nullptr && dladdr(addr, &info) != 0 && info.dli_fbase != nullptr) {
    r = (unsigned long long)((char*)addr - (char*)info.dli_fbase);
  }
  known.emplace(addr, r);
  return r;
}

inline int node(std::string op, std::string type, std::vector<int> args, long long lit = 0, std::string name = "") {
  Node n;
  n.op = std::move(op); n.type = std::move(type); n.args = std::move(args); n.lit = lit; n.name = std::move(name);
  return graph().intern(std::move(n));
}

inline void oblige(char const* kind, int cond, void* where) {
  Graph& g = graph();
  if (g.quiet) { return; }
  std::string key = std::string(kind) + "|" + std::to_string(cond);
  if (g.seen_obligation.count(key)) { return; }
  g.seen_obligation[key] = true;
  g.obligations.push_back({kind, cond, relative(where)});
  if (g.on_event != nullptr) { g.on_event('O', g.obligations.size() - 1); }
}

inline void decided() {
  Graph& g = graph();
  if (g.on_event != nullptr) { g.on_event('D', g.decisions.size() - 1); }
}

// -- traits -----------------------------------------------------------------------------------------------------

template <class T> struct is_sym : std::false_type {};
template <class T> struct is_sym<Int<T>> : std::true_type {};

template <class T> struct is_builtin : std::is_integral<T> {};  // before the specialisation below is visible
template <class T> struct is_builtin<Int<T>> : std::false_type {};

// A static integer (cute::C<v>, cute::integral_constant<T,v>, std::integral_constant): an empty class with an
// integral `value`.
template <class T, class = void> struct is_static : std::false_type {};
template <class T>
struct is_static<T, std::void_t<decltype(T::value)>>
    : std::bool_constant<std::is_empty<T>::value && std::is_integral<std::decay_t<decltype(T::value)>>::value &&
                         !std::is_same<std::decay_t<decltype(T::value)>, bool>::value> {};

// The C++ type a value of an operand stands for.
template <class T, class = void> struct underlying { using type = void; };
template <class T> struct underlying<Int<T>> { using type = T; };
template <class T> struct underlying<T, std::enable_if_t<is_builtin<T>::value>> { using type = T; };
template <class T> struct underlying<T, std::enable_if_t<is_static<T>::value>> {
  using type = std::decay_t<decltype(T::value)>;
};
template <class T> using underlying_t = typename underlying<std::decay_t<T>>::type;

// An operand pair of a symbolic operator: at least one symbolic, the other symbolic, builtin or static.
template <class A, class B>
constexpr bool operands_v = (is_sym<std::decay_t<A>>::value || is_sym<std::decay_t<B>>::value) &&
                            !std::is_void<underlying_t<A>>::value && !std::is_void<underlying_t<B>>::value;

// The type of `a op b` for builtin operands: C++'s usual arithmetic conversions (integral promotion first).
template <class A, class B> using arith_t = decltype(std::declval<A>() + std::declval<B>());
template <class A> using promote_t = decltype(+std::declval<A>());

template <class T>
constexpr __int128 tmin() { return (__int128)std::numeric_limits<T>::min(); }
template <class T>
constexpr __int128 tmax() { return (__int128)std::numeric_limits<T>::max(); }

// The value of an exact result in T: wrapped modulo 2^bits (what the hardware does; for signed T the run records
// an OVF obligation first).
template <class T>
inline T wrap(__int128 v) {
  return T((unsigned __int128)v);
}

// -- Bool: a symbolic comparison --------------------------------------------------------------------------------

struct Bool {
  int node;
  bool value;

  // A decision point: the branch the concrete values take, recorded with its condition.
  __attribute__((noinline)) operator bool() const {
    graph().decisions.push_back({node, value, relative(__builtin_return_address(0))});
    decided();
    return value;
  }
  Bool operator!() const { return Bool{cute_symbolic::node("not", "bool", {node}), !value}; }
};

// A 64-bit unsigned builtin: the one target an Int converts to implicitly (Int's conversions below).
template <class U>
struct is_u64 : std::integral_constant<bool, std::is_same<U, unsigned long>::value ||
                                                 std::is_same<U, unsigned long long>::value> {};

// -- Int<T> -----------------------------------------------------------------------------------------------------

template <class T>
struct Int {
  static_assert(std::is_integral<T>::value && !is_sym<T>::value, "Int<T> stands for a builtin integer type");
  using value_type = T;

  int node;
  T value;

  T fix(void* where) const {
    int lit = cute_symbolic::node("lit", type_name<T>(), {}, (long long)value);
    graph().decisions.push_back({cute_symbolic::node("==", "bool", {node, lit}), true, relative(where)});
    decided();
    return value;
  }

  constexpr Int() : node(zero_id<T>()), value(T(0)) {}
  Int(int node_, T value_, std::nullptr_t) : node(node_), value(value_) {}

  // A literal: a builtin integer (converted to T as C++ converts it) or a static integer.
  template <class U, std::enable_if_t<is_builtin<U>::value, int> = 0>
  Int(U v) : node(cute_symbolic::node("lit", type_name<T>(), {}, (long long)T(v))), value(T(v)) {}
  template <class U, std::enable_if_t<is_static<U>::value, int> = 0>
  Int(U) : Int(T(U::value)) {}

  // A conversion from another symbolic type: a cast node; a narrowing one records that the value is kept.
  template <class U, std::enable_if_t<!std::is_same<U, T>::value, int> = 0>
  __attribute__((noinline)) Int(Int<U> const& o) : value(T(o.value)) {
    node = cute_symbolic::node("cast", type_name<T>(), {o.node});
    if (tmin<U>() < tmin<T>() || tmax<U>() > tmax<T>()) {
      int lo = cute_symbolic::node("lit", type_name<U>(), {}, (long long)(tmin<T>() < tmin<U>() ? tmin<U>() : tmin<T>()));
      int hi = cute_symbolic::node("lit", type_name<U>(), {}, (long long)(tmax<T>() > tmax<U>() ? tmax<U>() : tmax<T>()));
      int c = cute_symbolic::node("and", "bool", {cute_symbolic::node("<=", "bool", {lo, o.node}),
                                                  cute_symbolic::node("<=", "bool", {o.node, hi})});
      oblige("NARROW", c, __builtin_return_address(0));
    }
  }

  // Reading the value as a builtin integer fixes it: a decision that it equals the concrete value.
  template <class U, std::enable_if_t<is_builtin<U>::value && !std::is_same<U, bool>::value && !is_u64<U>::value, int> = 0>
  __attribute__((noinline)) explicit operator U() const {
    return U(fix(__builtin_return_address(0)));
  }
  // The same reading, implicit for a 64-bit unsigned target: CuTe's TMA descriptor code assigns a stride into a
  // cute::array<uint64_t, 5> element (copy_traits_sm90_tma.hpp:873, 880), which the SM100 mainloop's Params type
  // instantiates (decltype of make_tma_atom_*_sm100).  Only that target: an implicit conversion to int would make
  // `c ? x : 0` ambiguous in CuTe's code.
  template <class U, std::enable_if_t<is_u64<U>::value, int> = 0>
  __attribute__((noinline)) operator U() const {
    return U(fix(__builtin_return_address(0)));
  }
  __attribute__((noinline)) explicit operator bool() const {
    int zero = cute_symbolic::node("lit", type_name<T>(), {}, 0);
    graph().decisions.push_back({cute_symbolic::node("!=", "bool", {node, zero}), value != 0,
                                 relative(__builtin_return_address(0))});
    decided();
    return value != 0;
  }

  template <class U> Int& operator+=(U const& u) { return *this = Int<T>(*this + u); }
  template <class U> Int& operator-=(U const& u) { return *this = Int<T>(*this - u); }
  template <class U> Int& operator*=(U const& u) { return *this = Int<T>(*this * u); }
  template <class U> Int& operator/=(U const& u) { return *this = Int<T>(*this / u); }
  template <class U> Int& operator%=(U const& u) { return *this = Int<T>(*this % u); }
  template <class U> Int& operator&=(U const& u) { return *this = Int<T>(*this & u); }
  template <class U> Int& operator|=(U const& u) { return *this = Int<T>(*this | u); }
  template <class U> Int& operator^=(U const& u) { return *this = Int<T>(*this ^ u); }
  template <class U> Int& operator<<=(U const& u) { return *this = Int<T>(*this << u); }
  template <class U> Int& operator>>=(U const& u) { return *this = Int<T>(*this >> u); }
  Int& operator++() { return *this += 1; }
  Int& operator--() { return *this -= 1; }
  Int operator++(int) { Int r = *this; *this += 1; return r; }
  Int operator--(int) { Int r = *this; *this -= 1; return r; }
};

// A named run-time integer of type T with its concrete value for this run.
template <class T>
inline Int<T> var(char const* name, long long v) {
  return Int<T>(node("var", type_name<T>(), {}, 0, name), T(v), nullptr);
}
// A run-time integer whose value is known (CuTe's dynamic 8).
template <class T>
inline Int<T> lit(long long v) { return Int<T>(T(v)); }
// An expression read as type T (a conversion, as `int64_t(M*N)` is in C++).
template <class T, class U>
inline Int<T> cast(Int<U> const& x) { return Int<T>(x); }
template <class T, class U, std::enable_if_t<is_builtin<U>::value, int> = 0>
inline Int<T> cast(U x) { return Int<T>(T(x)); }

// An operand's expression (`M*N` written in a stride) evaluated as the caller's arithmetic: the obligations of an
// operation are those CuTe's code incurs, not those of the values it is given.
template <class F>
inline auto quietly(F f) {
  bool was = graph().quiet;
  graph().quiet = true;
  auto r = f();
  graph().quiet = was;
  return r;
}

// An operand as a symbolic value of type R (the usual arithmetic conversions applied).
template <class R, class A>
inline Int<R> as(A const& a) {
  if constexpr (is_sym<A>::value) {
    if constexpr (std::is_same<typename A::value_type, R>::value) { return a; }
    else { return Int<R>(a); }
  } else if constexpr (is_static<A>::value) {
    return Int<R>(R(A::value));
  } else {
    return Int<R>(R(a));
  }
}

template <class R>
inline int lit_node(__int128 v) { return node("lit", type_name<R>(), {}, (long long)v); }

// An exact result of a signed operation must fit in R.
template <class R>
inline void fits(int exact_node, void* where) {
  if constexpr (std::is_signed<R>::value) {
    // The comparison is made on the exact value: the node's type is the mathematical integer ("z").
    int c = node("and", "bool", {node("<=", "bool", {lit_node<R>(tmin<R>()), exact_node}),
                                 node("<=", "bool", {exact_node, lit_node<R>(tmax<R>())})});
    oblige("OVF", c, where);
  }
}

template <class R>
__attribute__((noinline)) Int<R> binary(char const* op, Int<R> const& x, Int<R> const& y, void* where) {
  std::string o(op);
  __int128 a = x.value, b = y.value, exact = 0;
  bool divides = (o == "/" || o == "%");
  if (divides) {
    oblige("DIV0", node("!=", "bool", {y.node, lit_node<R>(0)}), where);
    if (b == 0) { return Int<R>(node(o, type_name<R>(), {x.node, y.node}), R(0), nullptr); }
    exact = o == "/" ? a / b : a % b;  // __int128's division truncates, as C++'s does
    if (o == "/") {
      fits<R>(node("z" + o, "z", {x.node, y.node}), where);  // INT_MIN / -1
    }
  } else if (o == "+") { exact = a + b; fits<R>(node("z+", "z", {x.node, y.node}), where); }
  else if (o == "-") { exact = a - b; fits<R>(node("z-", "z", {x.node, y.node}), where); }
  else if (o == "*") { exact = a * b; fits<R>(node("z*", "z", {x.node, y.node}), where); }
  else if (o == "&") { exact = (__int128)(x.value & y.value); }
  else if (o == "|") { exact = (__int128)(x.value | y.value); }
  else if (o == "^") { exact = (__int128)(x.value ^ y.value); }
  return Int<R>(node(o, type_name<R>(), {x.node, y.node}), wrap<R>(exact), nullptr);
}

#define CUTE_SYMBOLIC_BINARY(OP)                                                                    \
  template <class A, class B, std::enable_if_t<operands_v<A, B>, int> = 0>                          \
  __attribute__((noinline)) auto operator OP(A const& a, B const& b) {                              \
    using R = arith_t<underlying_t<A>, underlying_t<B>>;                                            \
    return binary<R>(#OP, as<R>(a), as<R>(b), __builtin_return_address(0));                         \
  }
CUTE_SYMBOLIC_BINARY(+)
CUTE_SYMBOLIC_BINARY(-)
CUTE_SYMBOLIC_BINARY(*)
CUTE_SYMBOLIC_BINARY(/)
CUTE_SYMBOLIC_BINARY(%)
CUTE_SYMBOLIC_BINARY(&)
CUTE_SYMBOLIC_BINARY(|)
CUTE_SYMBOLIC_BINARY(^)
#undef CUTE_SYMBOLIC_BINARY

#define CUTE_SYMBOLIC_COMPARE(OP)                                                                   \
  template <class A, class B, std::enable_if_t<operands_v<A, B>, int> = 0>                          \
  Bool operator OP(A const& a, B const& b) {                                                        \
    using R = arith_t<underlying_t<A>, underlying_t<B>>;                                            \
    Int<R> x = as<R>(a), y = as<R>(b);                                                              \
    return Bool{node(#OP, "bool", {x.node, y.node}), x.value OP y.value};                           \
  }
CUTE_SYMBOLIC_COMPARE(==)
CUTE_SYMBOLIC_COMPARE(!=)
CUTE_SYMBOLIC_COMPARE(<)
CUTE_SYMBOLIC_COMPARE(<=)
CUTE_SYMBOLIC_COMPARE(>)
CUTE_SYMBOLIC_COMPARE(>=)
#undef CUTE_SYMBOLIC_COMPARE

// Shifts: the type of the promoted left operand; the amount must lie in [0, bits); a signed left shift needs a
// non-negative operand whose shifted value fits (C++17 [expr.shift]).
template <class A, class B, std::enable_if_t<operands_v<A, B>, int> = 0>
__attribute__((noinline)) auto operator<<(A const& a, B const& b) {
  using R = promote_t<underlying_t<A>>;
  using S = promote_t<underlying_t<B>>;
  Int<R> x = as<R>(a);
  Int<S> y = as<S>(b);
  void* where = __builtin_return_address(0);
  constexpr int bits = 8 * sizeof(R);
  oblige("SHIFT", node("and", "bool", {node("<=", "bool", {lit_node<S>(0), y.node}),
                                       node("<", "bool", {y.node, lit_node<S>(bits)})}), where);
  __int128 amount = (__int128)y.value;
  __int128 exact = (amount >= 0 && amount < bits) ? ((__int128)x.value << amount) : 0;
  if constexpr (std::is_signed<R>::value) {
    fits<R>(node("z<<", "z", {x.node, y.node}), where);
  }
  return Int<R>(node("<<", type_name<R>(), {x.node, y.node}), wrap<R>(exact), nullptr);
}
template <class A, class B, std::enable_if_t<operands_v<A, B>, int> = 0>
__attribute__((noinline)) auto operator>>(A const& a, B const& b) {
  using R = promote_t<underlying_t<A>>;
  using S = promote_t<underlying_t<B>>;
  Int<R> x = as<R>(a);
  Int<S> y = as<S>(b);
  constexpr int bits = 8 * sizeof(R);
  oblige("SHIFT", node("and", "bool", {node("<=", "bool", {lit_node<S>(0), y.node}),
                                       node("<", "bool", {y.node, lit_node<S>(bits)})}),
         __builtin_return_address(0));
  __int128 amount = (__int128)y.value;
  R v = (amount >= 0 && amount < bits) ? R(x.value >> amount) : R(0);
  return Int<R>(node(">>", type_name<R>(), {x.node, y.node}), v, nullptr);
}

template <class T>
__attribute__((noinline)) auto operator-(Int<T> const& a) {
  using R = promote_t<T>;
  Int<R> x = as<R>(a);
  fits<R>(node("zneg", "z", {x.node}), __builtin_return_address(0));
  return Int<R>(node("neg", type_name<R>(), {x.node}), wrap<R>(-(__int128)x.value), nullptr);
}
template <class T>
auto operator+(Int<T> const& a) { return as<promote_t<T>>(a); }
template <class T>
auto operator~(Int<T> const& a) {
  using R = promote_t<T>;
  Int<R> x = as<R>(a);
  return Int<R>(node("~", type_name<R>(), {x.node}), R(~x.value), nullptr);
}
template <class T>
Bool operator!(Int<T> const& a) {
  return Bool{node("==", "bool", {a.node, lit_node<T>(0)}), a.value == 0};
}

// CuTe's min/max/abs/signum/gcd/lcm on run-time values, as nodes.  Their values are those of CuTe's definitions
// (numeric/math.hpp: `t < u ? u : t`, Euclid's loop for gcd); as nodes they cost no decision.  Each overload has a
// symbolic parameter so that it is more specialised than CuTe's generic templates; the other operand is limited
// to a builtin or symbolic integer so that CuTe's own C<t> overloads (which forward to these) are not ambiguous.
template <class A, class B>
constexpr bool plain_v = (is_sym<A>::value || is_builtin<A>::value) && (is_sym<B>::value || is_builtin<B>::value);

template <class R, class A, class B>
Int<R> named(char const* op, A const& a, B const& b, R v) {
  Int<R> x = as<R>(a), y = as<R>(b);
  return Int<R>(node(op, type_name<R>(), {x.node, y.node}), v, nullptr);
}

#define CUTE_SYMBOLIC_NAMED(NAME, VALUE)                                                                   \
  template <class A, class B, class R = std::common_type_t<A, B>>                                         \
  Int<R> NAME##_of(Int<A> const& x, Int<B> const& y) { R a = R(x.value), b = R(y.value); return named<R>(#NAME, x, y, R(VALUE)); } \
  template <class A, class U, std::enable_if_t<plain_v<Int<A>, U>, int> = 0>                                \
  auto NAME(Int<A> const& x, U const& y) { using R = std::common_type_t<A, underlying_t<U>>; return NAME##_of(as<R>(x), as<R>(y)); } \
  template <class U, class B, std::enable_if_t<plain_v<U, Int<B>> && !is_sym<U>::value, int> = 0>           \
  auto NAME(U const& x, Int<B> const& y) { using R = std::common_type_t<underlying_t<U>, B>; return NAME##_of(as<R>(x), as<R>(y)); }

CUTE_SYMBOLIC_NAMED(min, a < b ? a : b)
CUTE_SYMBOLIC_NAMED(max, a < b ? b : a)
#undef CUTE_SYMBOLIC_NAMED

inline __int128 gcd128(__int128 t, __int128 u) {
  while (true) {  // numeric/math.hpp:103-108, with a zero divisor read as no step (the DIV0 obligation says so)
    if (t == 0) { return u; }
    u %= t;
    if (u == 0) { return t; }
    t %= u;
  }
}

template <class A, class B, class R = std::common_type_t<A, B>>
Int<R> gcd_of(Int<A> const& x, Int<B> const& y) {
  Int<R> a = as<R>(x), b = as<R>(y);
  return Int<R>(node("gcd", type_name<R>(), {a.node, b.node}), R(gcd128(a.value, b.value)), nullptr);
}
template <class A, class B, class R = std::common_type_t<A, B>>
__attribute__((noinline)) Int<R> lcm_of(Int<A> const& x, Int<B> const& y) {
  Int<R> a = as<R>(x), b = as<R>(y);
  // lcm is (t / gcd(t,u)) * u (numeric/math.hpp:117-119): its division and its product are CuTe's.
  Int<R> g = gcd_of(a, b);
  return binary<R>("*", binary<R>("/", a, g, __builtin_return_address(0)), b, __builtin_return_address(0));
}
template <class A, class U, std::enable_if_t<plain_v<Int<A>, U>, int> = 0>
auto gcd(Int<A> const& x, U const& y) { using R = std::common_type_t<A, underlying_t<U>>; return gcd_of(as<R>(x), as<R>(y)); }
template <class U, class B, std::enable_if_t<plain_v<U, Int<B>> && !is_sym<U>::value, int> = 0>
auto gcd(U const& x, Int<B> const& y) { using R = std::common_type_t<underlying_t<U>, B>; return gcd_of(as<R>(x), as<R>(y)); }
template <class A, class U, std::enable_if_t<plain_v<Int<A>, U>, int> = 0>
auto lcm(Int<A> const& x, U const& y) { using R = std::common_type_t<A, underlying_t<U>>; return lcm_of(as<R>(x), as<R>(y)); }
template <class U, class B, std::enable_if_t<plain_v<U, Int<B>> && !is_sym<U>::value, int> = 0>
auto lcm(U const& x, Int<B> const& y) { using R = std::common_type_t<underlying_t<U>, B>; return lcm_of(as<R>(x), as<R>(y)); }

template <class T>
__attribute__((noinline)) Int<T> abs(Int<T> const& x) {
  if constexpr (std::is_signed<T>::value) {
    fits<T>(node("zabs", "z", {x.node}), __builtin_return_address(0));  // abs(INT_MIN)
    return Int<T>(node("abs", type_name<T>(), {x.node}), wrap<T>(x.value < 0 ? -(__int128)x.value : x.value), nullptr);
  } else {
    return x;
  }
}
template <class T>
Int<int> signum(Int<T> const& x) {
  Int<int> r(node("signum", "i32", {x.node}), int((T(0) < x.value) - (x.value < T(0))), nullptr);
  return r;
}

// -- printing ---------------------------------------------------------------------------------------------------

// The expression of a node in the tool's expression language (verifier/notation/cpp.py): C++'s operators and
// CuTe's function names; a conversion prints its operand (its value is kept, or a NARROW obligation says not).
// A leaf's outermost operation is written without parentheses: `(1*M)` in a tuple would read as a rank-1 tuple.
inline void format(std::string& out, int id, int depth = 0) {
  Node const& n = graph().nodes[id];
  if (depth > 64) { out += "..."; return; }
  if (n.op == "var") { out += n.name; return; }
  if (n.op == "lit") {
    out += n.type == "u64" ? std::to_string((unsigned long long)n.lit) : std::to_string(n.lit);
    return;
  }
  if (n.op == "cast") { format(out, n.args[0], depth); return; }
  if (n.args.size() == 3) {  // ite (cute_symbolic_swizzle.hpp's select)
    out += "(";
    format(out, n.args[0], depth + 1);
    out += " ? ";
    format(out, n.args[1], depth + 1);
    out += " : ";
    format(out, n.args[2], depth + 1);
    out += ")";
    return;
  }
  if (n.args.size() == 1) {
    if (n.op == "neg" || n.op == "~" || n.op == "not") {
      out += n.op == "neg" ? "-(" : n.op == "~" ? "~(" : "!(";
    } else {
      out += n.op + "(";
    }
    format(out, n.args[0], depth + 1);
    out += ")";
    return;
  }
  bool fn = n.op == "min" || n.op == "max" || n.op == "gcd" || n.op == "lcm";
  bool bare = !fn && depth == 0;
  out += fn ? n.op + "(" : bare ? "" : "(";
  format(out, n.args[0], depth + 1);
  out += fn ? "," : n.op;
  format(out, n.args[1], depth + 1);
  out += bare ? "" : ")";
}

template <class T>
inline std::string str(Int<T> const& x) {
  if (graph().print_refs) { return "v__" + std::to_string(x.node); }
  std::string s;
  format(s, x.node);
  return s;
}

template <class T>
inline void print(Int<T> const& x) { std::printf("%s", str(x).c_str()); }
template <class T>
inline std::ostream& operator<<(std::ostream& os, Int<T> const& x) { return os << str(x); }

// The run's DAG, decisions and obligations, one line each, for the driver.
inline void dump() {
  Graph& g = graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node const& n = g.nodes[i];
    std::printf("@@NODE %zu %s %s %lld %s", i, n.op.c_str(), n.type.c_str(), n.lit, n.name.empty() ? "-" : n.name.c_str());
    for (int a : n.args) { std::printf(" %d", a); }
    std::printf("\n");
  }
  for (auto const& d : g.decisions) { std::printf("@@DECISION %d %d %llx\n", d.cond, int(d.taken), d.where); }
  for (auto const& o : g.obligations) { std::printf("@@OBLIGATION %s %d %llx\n", o.kind.c_str(), o.cond, o.where); }
}

}  // namespace cute_symbolic

// -- declared integral ------------------------------------------------------------------------------------------
// CuTe's is_std_integral is std::is_integral (cute/util/type_traits.hpp:153-154) and cute::is_integral derives from
// it (cute/numeric/integral_constant.hpp:77-78); math.hpp's min/max/abs/signum ask std::is_arithmetic and
// std::is_signed; gcd/lcm return std::common_type.

namespace std {
template <class T> struct is_integral<cute_symbolic::Int<T>> : true_type {};
template <class T> struct is_arithmetic<cute_symbolic::Int<T>> : true_type {};
template <class T> struct is_signed<cute_symbolic::Int<T>> : is_signed<T> {};
template <class T> struct is_unsigned<cute_symbolic::Int<T>> : is_unsigned<T> {};
template <class T> struct make_signed<cute_symbolic::Int<T>> { using type = cute_symbolic::Int<make_signed_t<T>>; };
template <class T> struct make_unsigned<cute_symbolic::Int<T>> { using type = cute_symbolic::Int<make_unsigned_t<T>>; };
template <class T> struct numeric_limits<cute_symbolic::Int<T>> : numeric_limits<T> {};
template <class A, class B> struct common_type<cute_symbolic::Int<A>, cute_symbolic::Int<B>> {
  using type = cute_symbolic::Int<common_type_t<A, B>>;
};
template <class A, class B> struct common_type<cute_symbolic::Int<A>, B> {
  using type = cute_symbolic::Int<common_type_t<A, cute_symbolic::underlying_t<B>>>;
};
template <class A, class B> struct common_type<A, cute_symbolic::Int<B>> {
  using type = cute_symbolic::Int<common_type_t<cute_symbolic::underlying_t<A>, B>>;
};
}  // namespace std

// CuTe calls cute::min / cute::max / cute::abs ... qualified: the symbolic overloads join its overload sets.
namespace cute {
using cute_symbolic::abs;
using cute_symbolic::gcd;
using cute_symbolic::lcm;
using cute_symbolic::max;
using cute_symbolic::min;
using cute_symbolic::print;
using cute_symbolic::signum;
}  // namespace cute
