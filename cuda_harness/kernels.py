"""CUDA C++ generated from validated model objects: CuTe kernels, model kernels and sweep kernels.

One translation unit holds many kernels.  Each kernel is a ``CUTE_HOST_DEVICE`` body evaluated for one thread index
``t``, with one signature for every kind::

    body(const ll* p, ll stride, ll n, ll* out, ll* aux, ll cap, ll t)

wrapped as an ``extern "C" __global__`` kernel when a CUDA compiler (NVRTC or nvcc) builds the unit, and as an
``extern "C"`` host function that runs ``t = 0..nthreads-1`` in a loop (each under a ``sigsetjmp`` guard, so a
division by zero in one thread is recorded, not fatal) when g++ builds the *same text* in host mode.

Kinds (``t`` is the thread index):

* ``cute``   CuTe builds the case's operands from the parameter row ``p`` (every dynamic leaf a run-time slot, as
             ``oracle.cute_cpp.CppBuilder`` emits it), calls the operation on the device, and writes ``r(t)`` to
             ``out[t*w .. t*w+w)`` (``w`` leaves: a scaled-basis value is a coordinate) for ``t < min(n, size(r))``;
             thread 0 writes ``size(r)`` and ``cosize(r)`` to ``aux[0..1]``.
             With integer values the same thread also copies through the layout on device memory with guard
             regions: ``aux[2..]`` is ``counts (cap+1) | dst (cap) | src (cap) | gathered (n)``, where ``dst`` and
             ``src`` hold the layout's range starting at ``GUARD`` (the elements before and after it are guards);
             thread ``t`` scatters ``dst[GUARD + r(t)] = t + 1``, gathers ``gathered[t] = src[GUARD + r(t)]``
             and counts the writes per element with atomics (``counts[cap]``: indices outside the whole buffer,
             never dereferenced).
* ``model``  plain CUDA, no CuTe: the model's result layout (``verifier.algebra``'s, symbolic leaves are expressions
             over the symbols' slots of ``p``), evaluated at ``t`` by CuTe's 1-D rule (``stride.hpp:60-124``: each
             mode but the last reduced modulo its size, the last gets the quotient), written to ``out[t]``.
* ``sweep``  one thread per assignment: row ``p + t*stride`` holds the slots of assignment ``t``; the body built by
             ``verifier.oracle.sweep.case_code`` calls CuTe and decides its result (correct / wrong / too_large),
             with device versions of that module's helpers over ``2*cap`` scratch integers of ``aux`` per thread.

Nothing a user typed reaches the text: operands are model objects turned into C++ by ``CppBuilder``, symbols are
slot numbers, operation names come from ``cute_cpp``'s whitelist, and model expressions are emitted from the
closed set of ``verifier.core.integers`` operations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verifier.core.basis import ScaledBasis
from verifier.core.int_tuple import IntTuple, product
from verifier.core.integers import Const, Expr, Int, Op, Sym
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout, Swizzle
from verifier.oracle.cute_cpp import CppCase
from verifier.oracle.sweep import SEP

# Elements before and after the copy range that nothing may touch.
GUARD = 256
# out[t] of a cute kernel for t >= size(r).
SENTINEL = -(1 << 62)
KINDS = ("cute", "model", "sweep")

PRELUDE = r"""
#include <cute/layout.hpp>
#include <cute/swizzle_layout.hpp>
#include <cute/numeric/int.hpp>
#ifndef __CUDACC__
#include <csetjmp>
#include <csignal>
#endif
using namespace cute;
typedef long long ll;
#define DEV CUTE_HOST_DEVICE

DEV ll atomic_add(ll* a, ll v) {
#if defined(__CUDA_ARCH__)
  return (ll)atomicAdd((unsigned long long*)a, (unsigned long long)v);
#else
  ll old = *a; *a = old + v; return old;
#endif
}

// The model's integer operations (verifier/core/integers.py OPS), C++ semantics: / truncates, % follows the dividend.
DEV ll m_min(ll a, ll b) { return a < b ? a : b; }
DEV ll m_max(ll a, ll b) { return a < b ? b : a; }
DEV ll m_abs(ll a) { return a < 0 ? -a : a; }
DEV ll m_signum(ll a) { return (a > 0) - (a < 0); }
DEV ll m_gcd(ll t, ll u) {  // CuTe's gcd (numeric/math.hpp:102-109)
  while (true) { if (t == 0) return u; u = u % t; if (u == 0) return t; t = t % u; }
}
DEV ll m_lcm(ll t, ll u) { return (t / m_gcd(t, u)) * u; }
// Swizzle<B,M,S>: x ^ shiftr(x & yyy_msk, S) (swizzle.hpp:73-79).
DEV ll m_swizzle(ll x, int b, int m, int s) {
  ll y = ((1LL << b) - 1) << (m + (s > 0 ? s : 0));
  ll moved = s >= 0 ? ((x & y) >> s) : ((x & y) << -s);
  return x ^ moved;
}

// A value of CuTe's layout: an integer, or (scaled bases) a coordinate whose leaves are stored in order.
template <class T> DEV int store_leaves(ll* o, int w, T const& v) {
  if constexpr (is_tuple<T>::value) {
    int k = 0;
    for_each(v, [&](auto const& x) { k += store_leaves(o + k, w - k, x); });
    return k;
  } else {
    if (w > 0) o[0] = (ll)v;
    return 1;
  }
}
template <class T> DEV void store_value(ll* o, int w, T const& v) {
  for (int k = 0; k < w; ++k) o[k] = 0;
  store_leaves(o, w, v);
}

template <class R> DEV ll cosize_or(R const& r) {  // -1 where the values are coordinates (scaled bases)
  if constexpr (cute::is_integral<cute::remove_cvref_t<decltype(r(0))>>::value) { return (ll)cosize(r); }
  else { return -1; }
}

// -- device versions of verifier/oracle/sweep.py's checking helpers (same names and meaning) ---------------------
enum : int { ST_CORRECT = 0, ST_WRONG = 1, ST_UB = 2, ST_TOO_LARGE = 3, ST_FAULT = 4, ST_WARN = 5 };
#define STEP(x) do { int s_ = (x); if (s_ == ST_WRONG) return ST_WRONG; \
                     if (s_ == ST_TOO_LARGE) st = ST_TOO_LARGE; \
                     if (s_ == ST_WARN && st == ST_CORRECT) st = ST_WARN; } while (0)
#define WARN() do { if (st == ST_CORRECT) st = ST_WARN; } while (0)
#ifndef INT_MAX
#define INT_MAX 2147483647
#endif
#define H_LLMAX 9223372036854775807LL
#define H_LLMIN (-H_LLMAX - 1)
DEV ll mul(ll a, ll b) {  // saturating, as cute_sweep's __int128 version
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  unsigned long long ua = a < 0 ? 0ULL - (unsigned long long)a : (unsigned long long)a;
  unsigned long long ub = b < 0 ? 0ULL - (unsigned long long)b : (unsigned long long)b;
  if (ua > (unsigned long long)H_LLMAX / ub) return neg ? H_LLMIN : H_LLMAX;
  ll m = (ll)(ua * ub);
  return neg ? -m : m;
}
DEV ll add(ll a, ll b) {
  if (b > 0 && a > H_LLMAX - b) return H_LLMAX;
  if (b < 0 && a < H_LLMIN - b) return H_LLMIN;
  return a + b;
}
template <class T, class F> DEV void leaves1(T const& t, F&& f) {
  if constexpr (is_tuple<T>::value) { for_each(t, [&](auto const& x) { leaves1(x, f); }); }
  else { f((ll)t); }
}
template <class S, class D, class F> DEV void leaves2(S const& s, D const& d, F&& f) {
  if constexpr (is_tuple<S>::value) {
    for_each(make_seq<decltype(rank(s))::value>{}, [&](auto i) { leaves2(get<i>(s), get<i>(d), f); });
  } else { f((ll)s, (ll)d); }
}
template <class T> DEV ll xprod(T const& t) { ll n = 1; leaves1(t, [&](ll s) { n = mul(n, s); }); return n; }
template <class L> DEV ll xsize(L const& l) { return xprod(shape(l)); }
template <class L> DEV ll xcosize(L const& l) {
  ll c = 1;
  leaves2(shape(l), stride(l), [&](ll s, ll d) { c = add(c, mul(s - 1, d < 0 ? -d : d)); });
  return c;
}
template <int K> DEV ll prod_of(ll const (&ds)[K], int k) {
  ll n = 1;
  for (int i = 0; i < k; ++i) n = mul(n, ds[i]);
  return n;
}
template <int K> DEV void digits(ll i, ll const (&ds)[K], ll (&d)[K]) {
  for (int k = 0; k + 1 < K; ++k) { d[k] = i % ds[k]; i /= ds[k]; }
  d[K - 1] = i;
}
template <int K, class R, class F> DEV int same_function(R const& r, ll n, ll const (&ds)[K], ll cap, F&& ref) {
  for (int k = 0; k < K; ++k) { if (ds[k] < 1) return n == 0 ? ST_CORRECT : ST_WRONG; }
  if (n > cap) return ST_TOO_LARGE;
  ll d[K];
  for (ll i = 0; i < n; ++i) {
    digits(i, ds, d);
    if ((ll)r(int(i)) != ref(d)) return ST_WRONG;
  }
  return ST_CORRECT;
}

// Per-thread scratch memory: 2*cap integers (multisets are compared sorted).
struct Scratch { ll* x; ll* y; ll cap; };
DEV void sift(ll* a, ll i, ll n) {
  while (true) {
    ll c = 2 * i + 1;
    if (c >= n) return;
    if (c + 1 < n && a[c + 1] > a[c]) ++c;
    if (a[i] >= a[c]) return;
    ll tmp = a[i]; a[i] = a[c]; a[c] = tmp;
    i = c;
  }
}
DEV void heap_sort(ll* a, ll n) {
  for (ll i = n / 2; i-- > 0;) sift(a, i, n);
  for (ll e = n; e-- > 1;) { ll tmp = a[0]; a[0] = a[e]; a[e] = tmp; sift(a, 0, e); }
}
DEV bool same_sorted(ll* x, ll* y, ll n) {
  heap_sort(x, n);
  heap_sort(y, n);
  for (ll i = 0; i < n; ++i) { if (x[i] != y[i]) return false; }
  return true;
}
template <int K, class R, class F>
DEV int dv_same_values(Scratch& sc, R const& r, ll n, ll const (&ds)[K], ll cap, F&& ref) {
  for (int k = 0; k < K; ++k) { if (ds[k] < 1) return n == 0 ? ST_CORRECT : ST_WRONG; }
  if (n > cap || n > sc.cap) return ST_TOO_LARGE;
  ll d[K];
  for (ll i = 0; i < n; ++i) { sc.x[i] = (ll)r(int(i)); digits(i, ds, d); sc.y[i] = ref(d); }
  return same_sorted(sc.x, sc.y, n) ? ST_CORRECT : ST_WRONG;
}
template <class A, class B, class R> DEV int check_composition(A const& a, B const& b, R const& r, ll cap) {
  ll n = xsize(b);
  if (xsize(r) != n) return ST_WRONG;
  ll ds[1] = {n};
  return same_function(r, n, ds, cap, [&](ll const* d) { return (ll)a(b(int(d[0]))); });
}
// coalesce keeps the function: size(R) == size(L) and R(i) == L(i) (layout.hpp:861-863).
template <class L, class R> DEV int check_coalesce(L const& l, R const& r, ll cap) {
  ll n = xsize(l);
  if (xsize(r) != n) return ST_WRONG;
  ll ds[1] = {n};
  return same_function(r, n, ds, cap, [&](ll const* d) { return (ll)l(int(d[0])); });
}
template <class L, class R> DEV int dv_check_complement(Scratch& sc, L const& l, ll cot, R const& r, ll cap) {
  ll nl = xsize(l), nr = xsize(r), cl = xcosize(l), cr = xcosize(r);
  if (nr < 1 || cl < 1) return ST_WRONG;
  if (add(cl, cr) - 1 < cot) return ST_WRONG;
  bool bounded = cr <= mul(add(cot, cl - 1) / cl, cl);  // a warning (CPL-POST-BOUND)
  if (nl > cap || nr > cap || nl > sc.cap) return ST_TOO_LARGE;
  ll* lv = sc.x;
  for (ll j = 0; j < nl; ++j) lv[j] = (ll)l(int(j));
  heap_sort(lv, nl);
  ll prev = (ll)r(0);
  for (ll i = 1; i < nr; ++i) {
    ll v = (ll)r(int(i));
    if (!(prev < v)) return ST_WRONG;
    ll lo = 0, hi = nl;  // binary search for v in lv
    while (lo < hi) { ll mid = lo + (hi - lo) / 2; if (lv[mid] < v) lo = mid + 1; else hi = mid; }
    if (lo < nl && lv[lo] == v) return ST_WRONG;
    prev = v;
  }
  return bounded ? ST_CORRECT : ST_WARN;
}
template <class L, class R> DEV int check_right_inverse(L const& l, R const& r, ll cap) {
  ll n = xsize(r);
  if (n < 0) return ST_WRONG;
  if (n > cap) return ST_TOO_LARGE;
  for (ll i = 0; i < n; ++i) { if ((ll)l(r(int(i))) != i) return ST_WRONG; }
  return ST_CORRECT;
}
template <class L, class R> DEV int check_left_inverse(L const& l, R const& r, ll cap) {
  ll n = xsize(l);
  if (n < 0) return ST_WRONG;
  if (n > cap) return ST_TOO_LARGE;
  int st = ST_CORRECT;  // the quasi-inverse is the contract; a true inverse only a warning
  for (ll i = 0; i < n; ++i) {
    ll li = (ll)l(int(i));
    if ((ll)l(r(int(li))) != li) return ST_WRONG;
    if ((ll)r(int(li)) != i) st = ST_WARN;
  }
  return st;
}
DEV bool up_leaf(ll n, ll& s, ll& d) {
  if (n == 1 || d == 0) return true;
  ll a = d < 0 ? -d : d, sg = d < 0 ? -1 : 1;
  if (a % n == 0) { d = sg * (a / n); return true; }
  if (n % a == 0) { ll k = n / a; s = (s + k - 1) / k; d = sg; return true; }
  return s == 1;
}
template <class L, class R> DEV bool recast_modes(Scratch& sc, L const& l, R const& r, ll num) {
  ll kl = 0, kr = 0;  // leaves of L in x (shape, stride pairs), of R in y
  leaves2(shape(l), stride(l), [&](ll s, ll d) {
    if (2 * kl + 1 < sc.cap) { sc.x[2 * kl] = s; sc.x[2 * kl + 1] = d; }
    ++kl;
  });
  leaves2(shape(r), stride(r), [&](ll s, ll d) {
    if (2 * kr + 1 < sc.cap) { sc.y[2 * kr] = s; sc.y[2 * kr + 1] = d; }
    ++kr;
  });
  if (kl != kr || 2 * kl + 1 >= sc.cap) return false;
  for (ll k = 0; k < kl; ++k) {
    ll s = sc.x[2 * k], d = sc.x[2 * k + 1];
    if (!up_leaf(num, s, d)) return false;
    if (s != sc.y[2 * k] || (s != 1 && d != sc.y[2 * k + 1])) return false;
  }
  return true;
}
template <class L, class R> DEV int dv_check_recast(Scratch& sc, L const& l, R const& r, ll num, ll den, ll cap) {
  ll nl = xsize(l), nr = xsize(r);
  int miss = den == 1 ? ST_WARN : ST_WRONG;  // the same bytes: a warning for an upcast, the contract otherwise
  if (den == 1 && !recast_modes(sc, l, r, num)) return ST_WRONG;
  if (nl < 0 || nr < 0 || mul(nr, num) != mul(nl, den)) return miss;
  if (mul(nr, num) > cap || mul(nr, num) > sc.cap) return ST_TOO_LARGE;
  ll kx = 0, ky = 0;
  for (ll i = 0; i < nr; ++i) { ll v = (ll)r(int(i)); for (ll k = 0; k < num; ++k) sc.x[kx++] = num * v + k; }
  for (ll j = 0; j < nl; ++j) { ll v = (ll)l(int(j)); for (ll k = 0; k < den; ++k) sc.y[ky++] = den * v + k; }
  return same_sorted(sc.x, sc.y, kx) ? ST_CORRECT : miss;
}
// The generated check bodies call these by cute_sweep's names; the scratch is the enclosing kernel's SCR.
#define same_values(...) dv_same_values(SCR, __VA_ARGS__)
#define check_complement(...) dv_check_complement(SCR, __VA_ARGS__)
#define check_recast(...) dv_check_recast(SCR, __VA_ARGS__)

#ifndef __CUDACC__
// Host mode: run the threads in order; a thread that faults (SIGFPE: CuTe divided by zero) is recorded.
static sigjmp_buf g_jump;
static void on_signal(int) { siglongjmp(g_jump, 1); }
template <class F> static ll host_launch(ll nthreads, ll* faults, F&& body) {
  struct sigaction sa = {}, old_fpe, old_segv;
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGFPE, &sa, &old_fpe);
  sigaction(SIGSEGV, &sa, &old_segv);
  ll nf = 0;
  for (ll t = 0; t < nthreads; ++t) {
    faults[t] = 0;
    if (sigsetjmp(g_jump, 1) == 0) { body(t); }
    else { faults[t] = 1; ++nf; }
  }
  sigaction(SIGFPE, &old_fpe, nullptr);
  sigaction(SIGSEGV, &old_segv, nullptr);
  return nf;
}
#endif
"""

_ARGS = "const ll* p, ll stride, ll n, ll* out, ll* aux, ll cap"
_NAMES = "p, stride, n, out, aux, cap"


@dataclass(frozen=True)
class Kernel:
    """One kernel of a unit: its exported name, its kind, and the C++ statements of its body (in terms of
    ``p, stride, n, out, aux, cap, t``)."""

    name: str
    kind: str
    body: str


def wrap(k: Kernel) -> str:
    """The kernel's body function and its GPU and host entry points."""
    return "\n".join([
        f"DEV void {k.name}_body({_ARGS}, ll t) {{",
        k.body,
        "}",
        "#ifdef __CUDACC__",
        f'extern "C" __global__ void {k.name}({_ARGS}, ll nthreads) {{',
        "  ll t = blockIdx.x * (ll)blockDim.x + threadIdx.x;",
        f"  if (t < nthreads) {k.name}_body({_NAMES}, t);",
        "}",
        "#else",
        f'extern "C" ll {k.name}({_ARGS}, ll nthreads, ll* faults) {{',
        f"  return host_launch(nthreads, faults, [&](ll t) {{ {k.name}_body({_NAMES}, t); }});",
        "}",
        "#endif",
    ])


def unit(kernels: Sequence[Kernel]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The translation unit and each kernel's line span (where compile errors are attributed)."""
    lines = PRELUDE.strip("\n").split("\n")
    spans: dict[str, tuple[int, int]] = {}
    for k in kernels:
        start = len(lines) + 1
        lines.extend(wrap(k).split("\n"))
        spans[k.name] = (start, len(lines))
    return "\n".join(lines) + "\n", spans


# -- CuTe kernels ------------------------------------------------------------------------------------------------


def cute_kernel(name: str, case: CppCase, width: int = 1) -> Kernel:
    """CuTe evaluates the case's result (a layout or composed layout) at ``t`` and, for integer values, copies
    through it on guarded memory (see the module docstring); ``width`` leaves per value."""
    w = int(width)
    body = "\n".join([
        f"  auto r = {case.code};",
        "  if (t == 0) { aux[0] = (ll)size(r); aux[1] = cosize_or(r); }",
        "  if (t >= n) return;",
        f"  if (t >= (ll)size(r)) {{ for (int k = 0; k < {w}; ++k) out[t * {w} + k] = {SENTINEL}LL; return; }}",
        "  auto v = r(int(t));",
        f"  store_value(out + t * {w}, {w}, v);",
        "  if constexpr (cute::is_integral<cute::remove_cvref_t<decltype(v)>>::value) {",
        "    ll* counts = aux + 2; ll* dst = counts + cap + 1; ll* src = dst + cap; ll* gathered = src + cap;",
        f"    ll j = {GUARD}LL + (ll)v;",
        "    if (j < 0 || j >= cap) { atomic_add(counts + cap, 1); gathered[t] = -1; }",
        "    else { atomic_add(counts + j, 1); dst[j] = t + 1; gathered[t] = src[j]; }",
        "  }",
    ])
    return Kernel(name, "cute", body)


def sweep_kernel(name: str, case: CppCase) -> Kernel:
    """Thread ``t`` runs the sweep case (``cute_sweep.case_code``) on assignment row ``t`` and writes its status."""
    op_body, check_body = case.code.split(SEP)
    body = "\n".join([
        "  if (t >= n) return;",
        "  Scratch SCR{aux + t * 2 * cap, aux + t * 2 * cap + cap, cap};",
        "  out[t] = [&]() -> int {",
        "    const ll* row_ = p + t * stride;",
        "    auto res = [&]() {",
        "      const ll* p = row_;",
        "\n".join("    " + line for line in op_body.split("\n")),
        "    }();",
        "    const ll* p = row_;",
        "    (void)p;",
        "    int st = ST_CORRECT;",
        "\n".join("  " + line for line in check_body.split("\n")),
        "  }();",
    ])
    return Kernel(name, "sweep", body)


# -- model kernels -----------------------------------------------------------------------------------------------

_BIN = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">",
        ">=": ">="}
_FN = {"min": "m_min", "max": "m_max", "abs": "m_abs", "signum": "m_signum", "gcd": "m_gcd", "lcm": "m_lcm"}


class Unsupported(ValueError):
    """The model object has no plain-CUDA form here (a scaled-basis layout, whose values are coordinates)."""


def expr(e: Expr, slots: Mapping[str, int]) -> str:
    """A model integer expression as C++ over ``ll``, symbols read from their parameter slots."""
    if type(e) is Const:
        v = int(e.value)
        return f"({v}LL)" if v >= 0 else f"(-{-v}LL)"
    if type(e) is Sym:
        if e.name not in slots:
            raise Unsupported(f"no parameter slot for symbol {e.name}")
        return f"p[{int(slots[e.name])}]"
    assert isinstance(e, Op)
    a = [expr(x, slots) for x in e.args]
    if e.op in _BIN:
        return f"({a[0]} {_BIN[e.op]} {a[1]})"
    if e.op in _FN:
        return f"{_FN[e.op]}({', '.join(a)})"
    if e.op == "neg":
        return f"(-{a[0]})"
    if e.op == "not":
        return f"(!{a[0]})"
    if e.op in ("and", "or"):
        return "(" + (" && " if e.op == "and" else " || ").join(f"({x} != 0)" for x in a) + ")"
    if e.op == "ite":
        return f"(({a[0]}) ? {a[1]} : {a[2]})"
    raise Unsupported(f"operation {e.op!r} in a model expression")


def _int(x: object, slots: Mapping[str, int]) -> str:
    if isinstance(x, ScaledBasis):
        raise Unsupported("scaled-basis strides: the layout's values are coordinates")
    assert isinstance(x, Int)
    return expr(x.expr, slots)


def _crd2idx(c: str, shape: IntTuple, stride: IntTuple, slots: Mapping[str, int]) -> str:
    """CuTe's crd2idx of the 1-D coordinate ``c`` (stride.hpp:60-124, as verifier.int_tuple.crd2idx)."""
    if type(shape) is tuple:
        if not shape:
            return "(0LL)"
        if len(shape) == 1:
            return _crd2idx(c, shape[0], stride[0], slots)  # type: ignore[index]
        n = _int(product(shape[0]), slots)
        head = _crd2idx(f"({c} % {n})", shape[0], stride[0], slots)  # type: ignore[index]
        rest = _crd2idx(f"({c} / {n})", shape[1:], stride[1:], slots)  # type: ignore[index]
        return f"({head} + {rest})"
    return f"({c} * {_int(stride, slots)})"


def model_value(obj: object, c: str, slots: Mapping[str, int]) -> str:
    """The model object (layout, swizzle, composed layout) evaluated at the 1-D index expression ``c``."""
    if isinstance(obj, Layout):
        return _crd2idx(c, obj.shape, obj.stride, slots)
    if isinstance(obj, Swizzle):
        return f"m_swizzle({c}, {int(obj.bits)}, {int(obj.base)}, {int(obj.shift)})"
    if isinstance(obj, ComposedLayout):  # layout_composed.hpp:118: outer(offset + inner(c))
        inner = model_value(obj.inner, c, slots)
        return model_value(obj.outer, f"({_int(obj.offset, slots)} + {inner})", slots)
    raise Unsupported(f"no model kernel for {type(obj).__name__}")


def model_kernel(name: str, result: object, slots: Mapping[str, int]) -> Kernel:
    """Plain CUDA (no CuTe) evaluating the model's ``result`` at ``t < n``."""
    body = "\n".join([
        "  if (t >= n) return;",
        f"  out[t] = {model_value(result, 't', slots)};",
    ])
    return Kernel(name, "model", body)


def symbol_slots(case: CppCase) -> dict[str, int]:
    """Which parameter slot holds each symbol of a CuTe case (the model kernel reads the same row)."""
    return {s.symbol: k for k, s in enumerate(case.slots) if s.symbol is not None}
