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
             with the host sweep's own checks (``verifier/oracle/include/cute_checks.hpp``, whose text the unit
             carries) over a ``Scratch`` of ``2*cap`` integers of ``aux`` per thread.

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
from verifier.oracle.sweep import SEP, with_checks

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
#include "cute_checks.hpp"
using namespace cute;
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
    lines = with_checks(PRELUDE).strip("\n").split("\n")
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
    """Thread ``t`` runs the sweep case (``verifier.oracle.sweep.case_code``) on assignment row ``t`` and writes its
    status; ``SCR`` is the thread's scratch for the multiset checks of ``cute_checks.hpp``."""
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
