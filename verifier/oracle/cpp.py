"""The C++ front end, ``cute-verify cpp FILE.cpp::FUNCTION``: the layouts of the user's own C++ code, computed by
CuTe's own headers on symbolic run-time integers, each operation and stated property decided by the engine (the
function itself is read by ``run/cpp.py``).

1. **The program.**  A driver translation unit (``driver``) includes ``cute_symbolic.hpp`` and CuTe, then the
   user's file, copied into the cache (nothing is written beside it) under ``#line`` directives so that every
   diagnostic, ``__FILE__``/``__LINE__`` and debug line names the user's file and lines.  In the function under
   test, ``int`` is ``cute_symbolic::Int<int>`` (so a local ``auto M = int(m)`` stays symbolic, as CuTe's own
   examples write it) and the other integer parameter types are rewritten to their symbolic type.  After the
   user's last ``#include`` comes the recording layer (``recording_layer``), generated from the operation registry
   so that it cannot drift from it: each registered CuTe function is a macro that calls a wrapper printing the
   call's operands and result (CuTe's ``print``, each run-time leaf a node of the expression DAG) and its line.
   The ``cute_verify::expect_*`` calls of ``include/cute_verify.hpp`` print what they state.  ``.cu`` files are
   compiled by g++ in host mode, with CUDA's headers and host stand-ins for the device built-ins.
2. **Paths.**  The program runs the function on values of its parameters; each symbolic comparison converted to
   ``bool`` is a decision; ``explore`` asks Z3 for values that flip each decision (``solver.paths.satisfy``) until
   every admitted value is covered.  Past ``MAX_PATHS`` paths, or past ``MAX_DECISIONS`` decisions in one run (a
   loop bound by a run-time value), the exploration is ``unknown`` naming the user's line (the call stack of each
   decision, taken by the header's ``on_event`` hook and read with addr2line).
3. **Verdicts.**  Each recorded operation, on the paths where it ran with the same operands, is decided by
   ``engine.verify.verify`` (exactly as ``cute-verify OP``, under the assumptions and those paths' conditions);
   each ``expect_*`` by ``engine.checks.check`` (the gmma atom check by ``algebra.gmma.canonical_gmma``, the TMA
   box by the ``make_tma_box`` operation); each division, signed operation and shift CuTe performed on the
   run-time integers by deciding its obligation (a ``Claims`` problem), and a guard for it by deciding the
   candidates (``Admits`` and ``Claims``): every decision through ``engine.problem.decide``, a refutation replayed
   on the compiled program.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.integers import Bool, Const, Expr, Int, Op, Sym, and_, format_expr, not_, or_
from verifier.core.symbols import Symbols
from verifier.engine.problem import GmmaCanonical, Operation, Problem, Property, register
from verifier.engine.problem import decide as decide_problem
from verifier.engine.verdicts import (
    DEFAULT_POLICY,
    INVALID,
    PROVED,
    REFUTED,
    UNKNOWN,
    VALID,
    Counterexample,
    Guard,
    Policy,
    Verdict,
)
from verifier.oracle import cute_cpp
from verifier.oracle.symbolic import INCLUDE
from verifier.run.cpp import (
    CppInputError,
    Function,
    blank_comments,
    body_span,
    declare,
    definitions,
    find_function,
    parse_ranges,
    parse_target,
)
from verifier.run.spec import Check

if TYPE_CHECKING:
    from verifier.engine.property import Property as Declared

# The tool's headers the driver includes (part of the cache key).
HEADERS = ("cute_symbolic.hpp", "cute_symbolic_swizzle.hpp", "cute_verify.hpp")
MAX_PATHS = 64
MAX_DECISIONS = 512   # in one run: past it, a loop bound by a run-time value
RUN_TIMEOUT = 120.0
# Bump when the driver's text or the way its output is read changes (part of the cache key).
DRIVER_VERSION = "1"


# -- the driver ------------------------------------------------------------------------------------------------


_HOST_SHIMS = r"""
// CUDA's device built-ins on the host: the program runs the host part of the file, and a kernel of the file is
// parsed (never instantiated) with these.
#include <cuda_runtime_api.h>
#include <vector_types.h>
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
static const uint3 threadIdx{0, 0, 0};
static const uint3 blockIdx{0, 0, 0};
static const dim3 blockDim{1, 1, 1};
static const dim3 gridDim{1, 1, 1};
inline void __syncthreads() {}
"""

_PRELUDE = r"""
#define CUTE_VERIFY 1
#include <cute_symbolic.hpp>
{shims}
#include <cute/tensor.hpp>
#include <cute/swizzle_layout.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute_symbolic_swizzle.hpp>
#include <cute_verify.hpp>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <execinfo.h>
#include <vector>

namespace cute_verify { namespace detail {
// The call stack of each decision and obligation: the driver names the user's line from it.
inline void on_event(char kind, size_t index) {
  void* frames[48];
  int n = backtrace(frames, 48);
  std::printf("@@SITE %c %zu", kind, index);
  for (int k = 1; k < n; ++k) { std::printf(" %llx", cute_symbolic::relative(frames[k])); }
  std::printf("\n");
}
struct Site { char const* file; int line; };
template <class... A>
void call_begin(char const* op, Site s, A const&... a) {
  std::printf("@@CALL %s %d %s\n", op, s.line, s.file);
  ((std::printf("@@ARG "), show(a), std::printf("\n")), ...);
}
template <int... N>
void templated() { ((std::printf("@@INT %d\n", N)), ...); }
template <class R>
void call_end(R const& r) {
  std::printf("@@RES "); show(r); std::printf("\n@@DONE\n");
}
}}  // namespace cute_verify::detail
"""

_MAIN = r"""
static sigjmp_buf cv_jump;
static void cv_on_signal(int) { siglongjmp(cv_jump, 1); }
int main() {
  signal(SIGFPE, cv_on_signal);
  signal(SIGSEGV, cv_on_signal);
  cute_symbolic::graph().on_event = &cute_verify::detail::on_event;
  long long n;
  while (std::scanf("%lld", &n) == 1) {
    std::vector<long long> p(n > 0 ? n : 1);
    for (long long k = 0; k < n; ++k) { if (std::scanf("%lld", &p[k]) != 1) return 3; }
    cute_symbolic::graph().reset();
    cute_symbolic::graph().print_refs = true;
    std::printf("@@BEGIN\n");
    if (sigsetjmp(cv_jump, 1) == 0) {
      {call};
    } else {
      std::printf("\n@@UB signal\n");
    }
    cute_symbolic::graph().print_refs = false;
    cute_symbolic::dump();
    std::printf("@@END\n");
    std::fflush(stdout);
  }
  return 0;
}
"""


def recording_layer() -> str:
    """The wrappers and macros that record every call of a registered CuTe function in the user's code, generated
    from the registry (``Operation.cpp`` says how CuTe is called for each)."""
    from verifier.algebra.registry import CALL, RECAST, REGISTRY, SLICE, TEMPLATED, TENSOR

    wrappers, macros = [], []
    for name, row in REGISTRY.items():
        if row.cpp in (CALL, SLICE, TENSOR):
            wrappers.append(
                f"template <class... A> decltype(auto) cv__{name}(cute_verify::detail::Site s, A&&... a) {{\n"
                f"  cute_verify::detail::call_begin(\"{name}\", s, a...);\n"
                f"  auto r = cute::{name}(static_cast<A&&>(a)...);\n"
                f"  cute_verify::detail::call_end(r);\n  return r;\n}}")
            macros.append(f"#define {name}(...) cv__{name}(cute_verify::detail::Site{{__FILE__, __LINE__}}, "
                          "__VA_ARGS__)")
        elif row.cpp == TEMPLATED:
            wrappers.append(
                f"template <int N, class X> auto cv__{name}(X const& x, char const* f = __builtin_FILE(), "
                f"int n = __builtin_LINE()) {{\n"
                f"  cute_verify::detail::call_begin(\"{name}\", cute_verify::detail::Site{{f, n}});\n"
                f"  cute_verify::detail::templated<N>();\n"
                f"  std::printf(\"@@ARG \"); cute_verify::detail::show(x); std::printf(\"\\n\");\n"
                f"  auto r = cute::{name}<N>(x);\n  cute_verify::detail::call_end(r);\n  return r;\n}}")
            macros.append(f"#define {name} cv__{name}")
        elif row.cpp == RECAST:
            wrappers.append(
                f"template <class Old, class New, class X> auto cv__{name}(X const& x, "
                f"char const* f = __builtin_FILE(), int n = __builtin_LINE()) {{\n"
                f"  cute_verify::detail::call_begin(\"{name}\", cute_verify::detail::Site{{f, n}});\n"
                f"  cute_verify::detail::templated<int(cute::sizeof_bits_v<Old>), int(cute::sizeof_bits_v<New>)>();\n"
                f"  std::printf(\"@@ARG \"); cute_verify::detail::show(x); std::printf(\"\\n\");\n"
                f"  auto r = cute::{name}<Old, New>(x);\n  cute_verify::detail::call_end(r);\n  return r;\n}}")
            macros.append(f"#define {name} cv__{name}")
    return ("// the recording layer (verifier/oracle/cpp.py: recording_layer, from the operation registry)\n"
            "namespace cute {\n" + "\n".join(wrappers) + "\n}  // namespace cute\n" + _POINTERS
            + "\n".join(macros) + "\n" + _POINTER_MACROS)


# Pointers: a pointer the code hands to CuTe (make_gmem_ptr / make_smem_ptr) becomes a symbolic pointer, an offset
# (in elements) from the start of an allocation assumed aligned to 256 bytes (cudaMalloc's; CuTe's shared storage
# is 128-byte aligned, more than any vector access needs), so that CuTe's partitions move it by run-time amounts
# as they would a real pointer.  Reading or writing through it is data, not layout: not followed (``@@DATA``, an
# unknown at the user's line).  A copy through a TiledCopy or Copy_Atom on such pointers records, for each of its
# vector accesses to global memory, that the address is aligned to the access's width (``ALIGN``: cp.async and
# 128-bit loads fault otherwise), and moves no data.
_POINTERS = r"""
namespace cute_verify {
namespace detail {
inline void data_access() {
  void* frames[48];
  int n = backtrace(frames, 48);
  std::printf("@@DATA");
  for (int k = 1; k < n; ++k) { std::printf(" %llx", cute_symbolic::relative(frames[k])); }
  std::printf("\n");
}
template <class T> T& dummy() { static std::remove_cv_t<T> d{}; return d; }
}  // namespace detail
template <class T>
struct ptr {
  using value_type = std::remove_cv_t<T>;
  using element_type = T;
  using reference = T&;
  cute_symbolic::Int<long long> off;
  template <class I> ptr operator+(I const& i) const { return ptr{cute_symbolic::Int<long long>(off + i)}; }
  template <class I> ptr operator-(I const& i) const { return ptr{cute_symbolic::Int<long long>(off - i)}; }
  template <class I> ptr& operator+=(I const& i) { off = cute_symbolic::Int<long long>(off + i); return *this; }
  ptr& operator++() { return *this += 1; }
  T& operator*() const { detail::data_access(); return detail::dummy<T>(); }
  template <class I> T& operator[](I const&) const { detail::data_access(); return detail::dummy<T>(); }
};
template <class T> struct is_sym_iter : std::false_type {};
template <class T> struct is_sym_iter<cute::gmem_ptr<ptr<T>>> : std::true_type {};
template <class T> struct is_gmem_sym : std::false_type {};
template <class T> struct is_gmem_sym<cute::gmem_ptr<ptr<T>>> : std::true_type {};
template <class T> struct is_sym_iter<cute::smem_ptr<ptr<T>>> : std::true_type {};
template <class X> constexpr bool sym_tensor_v = is_sym_iter<std::decay_t<decltype(std::declval<X>().data())>>::value;
template <class X> constexpr bool gmem_tensor_v = is_gmem_sym<std::decay_t<decltype(std::declval<X>().data())>>::value;

// Each vector access of a copy through `Atom` (NumValSrc values of ValType) to the global tensor `t`: its address
// aligned to the access's width in bytes.
template <class Atom, class X>
void aligned(X const& t) {
  using namespace cute;
  constexpr int bytes = Atom::NumValSrc * int(sizeof_bits_v<typename Atom::ValType>) / 8;
  constexpr int bits = int(sizeof_bits_v<typename X::value_type>);
  constexpr int R = decltype(rank(t))::value;
  if constexpr (bytes <= 1) {
    return;
  } else if constexpr (R == 1) {
    auto a = t.data().get().off;
    cute_symbolic::Bool b = cute_symbolic::quietly([&] { return ((a * (bits / 8)) % bytes) == 0; });
    cute_symbolic::oblige("ALIGN", b.node, __builtin_return_address(0));
  } else {
    auto v = group_modes<1, R>(t);
    static_assert(is_static<decltype(size<1>(v))>::value, "cute-verify: a copy over a run-time number of vectors");
    for (int i = 0; i < int(size<1>(v)); ++i) { aligned<Atom>(v(_, i)); }
  }
}
}  // namespace cute_verify

namespace cute {
// A swizzle's MixedBits offset (uint32_t storage) meets a run-time value: as with a builtin int, through its
// conversion to uint32_t (templates do not convert, so the symbolic operators need the conversion spelt out).
template <uint32_t S, uint32_t F, class T>
auto operator+(MixedBits<S, F> const& m, cute_symbolic::Int<T> const& i) { return uint32_t(m) + i; }
template <uint32_t S, uint32_t F, class T>
auto operator+(cute_symbolic::Int<T> const& i, MixedBits<S, F> const& m) { return i + uint32_t(m); }
template <class T> auto cv__make_gmem_ptr(T*) {
  return make_gmem_ptr(cute_verify::ptr<T>{cute_symbolic::lit<long long>(0)});
}
template <class I> auto cv__make_gmem_ptr(I const& i) { return make_gmem_ptr(i); }
template <class T> auto cv__make_smem_ptr(T*) {
  return make_smem_ptr(cute_verify::ptr<T>{cute_symbolic::lit<long long>(0)});
}
template <class I> auto cv__make_smem_ptr(I const& i) { return make_smem_ptr(i); }
template <class Atom, class S, class D>
void cv__copy3(cute_verify::detail::Site, Atom const& atom, S const& src, D const& dst) {
  if constexpr (cute_verify::sym_tensor_v<S> || cute_verify::sym_tensor_v<D>) {
    if constexpr (cute_verify::gmem_tensor_v<S>) { cute_verify::aligned<Atom>(src); }
    if constexpr (cute_verify::gmem_tensor_v<D>) { cute_verify::aligned<Atom>(dst); }
  } else {
    copy(atom, src, dst);
  }
}
template <class... A>
void cv__copy(cute_verify::detail::Site s, A&&... a) {
  if constexpr (sizeof...(A) == 3) {
    cv__copy3(s, a...);
  } else {
    copy(static_cast<A&&>(a)...);
  }
}
}  // namespace cute
namespace std {
template <class... A>
decltype(auto) cv__copy(cute_verify::detail::Site, A&&... a) { return std::copy(static_cast<A&&>(a)...); }
}  // namespace std
"""
_POINTER_MACROS = """#define make_gmem_ptr cv__make_gmem_ptr
#define make_smem_ptr cv__make_smem_ptr
#define copy(...) cv__copy(cute_verify::detail::Site{__FILE__, __LINE__}, __VA_ARGS__)
"""


def _quote(path: Path) -> str:
    return json.dumps(str(path))


_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "decltype", "static_assert", "alignof",
                       "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "catch", "defined"})


def symbolic_regions(code: str, fn: Function) -> list[tuple[int, int]]:
    """The line spans where ``int`` is the symbolic integer: the function under test and every function of the
    same file it calls, transitively (a kernel body the host code calls, a helper): a run-time value computed
    there stays symbolic.  Template headers are outside the spans (``template <int N>`` keeps a builtin ``int``)."""
    spans = [(fn.first_line, fn.last_line)]
    todo = [(fn.first_line, fn.last_line)]
    seen = {fn.name, "main"}
    lines = code.split("\n")
    while todo:
        a, b = todo.pop()
        body = "\n".join(lines[a - 1:b])
        for name in set(re.findall(r"\b([A-Za-z_]\w*)\s*(?=[(<])", body)) - seen - _KEYWORDS:
            seen.add(name)
            for m, _close, _start, end in definitions(code, name):
                span = (code.count("\n", 0, m.start()) + 1, code.count("\n", 0, end) + 1)
                if not any(x <= span[0] <= y for x, y in spans):
                    spans.append(span)
                    todo.append(span)
    return sorted(spans)


_LAUNCH = re.compile(r"[\w:]+\s*(?:<[^<>;]*>)?\s*<<<[^;]*?>>>\s*\([^;]*?\)\s*;", re.S)


def driver(fn: Function) -> str:
    """The translation unit that runs ``fn`` on symbolic parameters (module docstring)."""
    text = fn.text
    edits = sorted((p.start, p.end, f"cute_symbolic::Int<{p.symbolic}>") for p in fn.params
                   if p.symbolic is not None and p.end > p.start and p.ctype != "int")
    for a, b, new in reversed(edits):
        text = text[:a] + new + text[b:]
    # a kernel launch of another function is device code: blanked (its newlines kept), as nvcc's host pass would
    # replace it; the function under test must not launch (it is run up to the launch)
    code = blank_comments(text)
    for m in reversed(list(_LAUNCH.finditer(code))):
        if fn.first_line <= code.count("\n", 0, m.start()) + 1 <= fn.last_line:
            raise CppInputError(f"{fn.path}:{code.count(chr(10), 0, m.start()) + 1}: {fn.name} launches a kernel: "
                                "give the host code up to the launch as the function to verify")
        text = text[:m.start()] + re.sub(r"[^\n]", " ", text[m.start():m.end()]) + text[m.end():]
    # the file's own main is the program's entry, not code under test: its body is left out (the driver has its
    # own main), so what it instantiates for the device is not compiled
    if fn.name != "main":
        code = blank_comments(text)
        span = body_span(code, "main")
        if span is not None:
            a, b = span
            text = text[:a + 1] + re.sub(r"[^\n]", " ", text[a + 1:b]) + text[b:]
    lines = text.split("\n")
    code_lines = blank_comments(text).split("\n")
    last_include = max((k for k, s in enumerate(code_lines) if re.match(r"^\s*#\s*include\b", s)
                        and k < fn.first_line - 1), default=-1)
    q = _quote(fn.path)
    regions = symbolic_regions(blank_comments(text), fn)
    starts = {a - 1 for a, _ in regions}
    ends = {b - 1 for _, b in regions}
    out = _PRELUDE.replace("{shims}", _HOST_SHIMS if fn.path.suffix in (".cu", ".cuh") else "").strip("\n")
    out += f"\n#define main cute_verify_user_main\n#line 1 {q}\n"
    body: list[str] = []
    for k, line in enumerate(lines):
        if k in starts:
            body.append("#define int cute_symbolic::Int<int>")
            body.append(f"#line {k + 1} {q}")
        body.append(line)
        if k in ends:
            body.append("#undef int")
            body.append(f"#line {k + 2} {q}")
        if k == last_include:
            body.append('#line 1 "cute-verify-recording-layer"')
            body.append(recording_layer())
            body.append(f"#line {k + 2} {q}")
    if last_include < 0:
        body.insert(0, '#line 1 "cute-verify-recording-layer"\n' + recording_layer() + f"#line 1 {q}")
    out += "\n".join(body)
    args = ", ".join(f'cute_symbolic::var<{p.symbolic}>("{p.name}", p[{i}])'
                     for i, p in enumerate(fn.params) if p.symbolic is not None)
    out += "\n#undef main\n#line 1 \"cute-verify-driver\"\n" + _MAIN.replace("{call}", f"::{fn.name}({args})")
    return out


# -- compiling (cached by the driver's text) --------------------------------------------------------------------


@dataclass(frozen=True)
class Program:
    path: Path
    cached: bool
    seconds: float


_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(?P<msg>.*)$")


def first_error(stderr: str, user: Path) -> str:
    """The compiler's first error as ``file:line: message``, at the user's line where the diagnostics reach it."""
    lines = stderr.splitlines()
    for k, raw in enumerate(lines):
        m = _ERROR.match(raw)
        if m is None:
            continue
        where = f"{m.group('file')}:{m.group('line')}"
        if Path(m.group("file")) != user:
            # an error inside a header: the user's line that led there (the instantiation chain before it)
            for prev in reversed(lines[:k]):
                pm = re.match(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+:\s+required from", prev)
                if pm and Path(pm.group("file")) == user:
                    where = f"{pm.group('file')}:{pm.group('line')} (in {where})"
                    break
        return f"{where}: {m.group('msg')}"
    return "the file does not compile: " + (lines[-1] if lines else "no diagnostic")


def compile_program(fn: Function, include: Path | None = None) -> Program:
    import time

    src_text = driver(fn)
    cute = include or cute_cpp.cute_include()
    # the CUDA runtime functions the rest of a .cu file calls are never run: left unresolved, no libcudart needed
    flags = [f"-I{INCLUDE}", f"-I{fn.path.parent}", "-g1", "-rdynamic", "-Wl,--unresolved-symbols=ignore-all"]
    util = cute.parent / "tools" / "util" / "include"  # the wheel's CUTLASS tools (cutlass/util/*.hpp)
    if util.is_dir():
        flags.append(f"-I{util}")
    header_digest = hashlib.sha256(b"".join((INCLUDE / h).read_bytes() for h in HEADERS)).hexdigest()
    ident = "\0".join((DRIVER_VERSION, src_text, header_digest, cute_cpp._compiler_version(),
                       cute_cpp.headers_digest(cute), *flags))
    key = hashlib.sha256(ident.encode()).hexdigest()[:32]
    exe = cute_cpp.cache_dir() / f"cpp-{key}.bin"
    if exe.is_file():
        return Program(exe, True, 0.0)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cute-verify-cpp-") as tmp:
        src = Path(tmp) / "driver.cpp"
        out = Path(tmp) / "driver.bin"
        src.write_text(src_text)
        cmd = [cute_cpp.compiler(), "-std=c++17", "-O0", "-w", "-fmax-errors=20", *flags, f"-I{cute}"]
        cmd += [f"-I{p}" for p in cute_cpp.cuda_includes()] + [str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CppInputError(first_error(proc.stderr, fn.path))
        tmp_exe = exe.with_suffix(f".{os.getpid()}.tmp")
        shutil.copy(out, tmp_exe)
        os.replace(tmp_exe, exe)
    return Program(exe, False, time.perf_counter() - t0)


# -- running and reading a run ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A recorded call of a CuTe function (``call``) or a stated property (``expect``), at the user's line."""

    kind: str            # "call" or "expect"
    name: str            # the operation or the property
    line: int
    file: str
    args: tuple[str, ...]   # CuTe's print of each operand, each run-time leaf v__N
    ints: tuple[int, ...] = ()  # template integers (upcast<N>, recast_layout's bit widths)
    result: str | None = None


@dataclass
class Run:
    env: dict[str, int]
    events: list[Event] = field(default_factory=list)
    nodes: dict[int, object] = field(default_factory=dict)
    decisions: list[tuple[int, int, int]] = field(default_factory=list)    # (node, taken, where)
    obligations: list[tuple[str, int, int]] = field(default_factory=list)  # (kind, node, where)
    sites: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict)
    data: list[tuple[int, ...]] = field(default_factory=list)  # the call stack of each read/write through a pointer
    signal: bool = False


def _parse(stdout: str, envs: Sequence[dict[str, int]]) -> list[Run]:
    from verifier.oracle.symbolic import Node

    runs: list[Run] = []
    cur: Run | None = None
    ev: dict[str, object] | None = None
    for line in stdout.split("\n"):
        if line.startswith("@@BEGIN"):
            cur = Run(dict(envs[len(runs)]))
            runs.append(cur)
            continue
        if cur is None:
            continue
        if line.startswith("@@CALL ") or line.startswith("@@EXPECT "):
            tag, name, ln, file = line.split(" ", 3)
            ev = {"kind": "call" if tag == "@@CALL" else "expect", "name": name, "line": int(ln), "file": file,
                  "args": [], "ints": []}
        elif line.startswith("@@ARG ") and ev is not None:
            ev["args"].append(line[6:].strip())  # type: ignore[attr-defined]
        elif line.startswith("@@INT ") and ev is not None:
            ev["ints"].append(int(line[6:]))  # type: ignore[attr-defined]
        elif line.startswith("@@RES ") and ev is not None:
            ev["result"] = line[6:].strip()
        elif line.startswith("@@DONE") and ev is not None:
            cur.events.append(Event(str(ev["kind"]), str(ev["name"]), int(ev["line"]), str(ev["file"]),  # type: ignore[call-overload]
                                    tuple(ev["args"]), tuple(ev["ints"]), ev.get("result")))  # type: ignore[arg-type]
            ev = None
        elif line.startswith("@@NODE "):
            parts = line.split()
            cur.nodes[int(parts[1])] = Node(parts[2], parts[3], int(parts[4]), parts[5],
                                            tuple(int(a) for a in parts[6:]))
        elif line.startswith("@@DECISION "):
            _, c, taken, where = line.split()
            cur.decisions.append((int(c), int(taken), int(where, 16)))
        elif line.startswith("@@OBLIGATION "):
            _, kind, c, where = line.split()
            cur.obligations.append((kind, int(c), int(where, 16)))
        elif line.startswith("@@SITE "):
            parts = line.split()
            cur.sites[(parts[1], int(parts[2]))] = tuple(int(a, 16) for a in parts[3:])
        elif line.startswith("@@DATA"):
            cur.data.append(tuple(int(a, 16) for a in line.split()[1:]))
        elif line.startswith("@@UB"):
            cur.signal = True
    return runs


class Runner:
    def __init__(self, fn: Function, program: Program) -> None:
        self.fn = fn
        self.program = program
        self.params = [p for p in fn.params if p.symbolic is not None]
        self._lines: dict[int, tuple[str, int]] = {}

    def run(self, envs: Sequence[dict[str, int]]) -> list[Run]:
        text = "".join(f"{len(self.params)} {' '.join(str(e[p.name]) for p in self.params)}\n" for e in envs)
        try:
            proc = subprocess.run([str(self.program.path)], input=text, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise CppInputError(f"{self.fn.path}: {self.fn.name} ran for more than {RUN_TIMEOUT:.0f} s on one "
                                "batch of parameter values") from None
        runs = _parse(proc.stdout, envs)
        if len(runs) < len(envs) or not proc.stdout.rstrip().endswith("@@END"):
            tail = (proc.stderr or proc.stdout)[-300:].strip().replace("\n", " | ")
            raise CppInputError(f"{self.fn.path}: {self.fn.name} stopped (exit {proc.returncode}): {tail}")
        return runs

    def lines(self, addresses: Sequence[int]) -> None:
        """Resolve code addresses to (file, line) with one addr2line call (cached)."""
        todo = sorted({a for a in addresses if a not in self._lines})
        tool = shutil.which("addr2line")
        if not todo or tool is None:
            for a in todo:
                self._lines[a] = ("?", 0)
            return
        out = subprocess.run([tool, "-e", str(self.program.path), *(f"{max(a - 1, 0):#x}" for a in todo)],
                             capture_output=True, text=True, check=False).stdout.split("\n")
        for a, text in zip(todo, out):
            file, _, ln = text.strip().partition(":")
            m = re.match(r"\d+", ln)
            self._lines[a] = (file, int(m.group()) if m else 0)

    def user_line(self, frames: Sequence[int]) -> int | None:
        """The first frame of the call stack in the user's file."""
        self.lines(frames)
        for a in frames:
            file, ln = self._lines[a]
            if ln and Path(file) == self.fn.path:
                return ln
        return None


# -- exploring ----------------------------------------------------------------------------------------------


@dataclass
class PathRun:
    condition: tuple[Bool, ...]
    run: Run
    translate: object  # symbolic.Translator of the run's nodes


@dataclass
class Exploration:
    paths: list[PathRun] = field(default_factory=list)
    unknown: list[tuple[int | None, str]] = field(default_factory=list)   # (line, why)
    runs: int = 0



def explore(runner: Runner, symbols: Symbols, max_paths: int = MAX_PATHS) -> Exploration:
    """Every path of the function (``symbolic.concolic``, the symbolic back end's exploration), each round of
    runs one process, every call stack of the round resolved by one addr2line."""
    from verifier.oracle.symbolic import DECISION_UNITS, Translator, Unencodable, Unexplorable, concolic
    from verifier.solver.budget import Budget
    from verifier.solver.paths import satisfy

    status, values, why = satisfy(symbols, [], Budget(DECISION_UNITS))
    if status != "sat" or values is None:
        raise CppInputError(f"the parameters' ranges and assumptions admit no value{': ' + why if why else ''}")
    names = {p.name: p.name for p in runner.params}

    def run(queries: Sequence[tuple[int, dict[str, int]]]) -> list[Run]:
        runs = runner.run([env for _, env in queries])
        runner.lines([a for r in runs for frames in (*r.sites.values(), *r.data) for a in frames])
        return runs

    def decisions(r: Run) -> tuple[Bool, ...]:
        if len(r.decisions) > MAX_DECISIONS:
            counts: dict[int | None, int] = {}
            for k in range(len(r.decisions)):
                ln = runner.user_line(r.sites.get(("D", k), ()))
                counts[ln] = counts.get(ln, 0) + 1
            raise Unexplorable(f"more than {MAX_DECISIONS} decisions on run-time values in one run: a loop bound "
                               "by a run-time value", max(counts, key=lambda x: counts[x]))
        tr = Translator(r.nodes, names)  # type: ignore[arg-type]
        try:
            return tuple(Bool(tr(c), False) if taken else not_(Bool(tr(c), False)) for c, taken, _ in r.decisions)
        except Unencodable as exc:
            raise Unexplorable(str(exc)) from None

    def where(r: Run, i: int | None) -> int | None:
        return runner.user_line(r.sites.get(("D", i), ())) if i is not None else None

    [found] = concolic([symbols], [values], run, decisions, where, max_paths=max_paths)
    ex = Exploration(runs=found.runs)
    ex.paths = [PathRun(conds, r, Translator(r.nodes, names)) for conds, r, _ in found.paths]  # type: ignore[arg-type]
    if found.unknown is not None:
        beyond = ": a branch beyond the path bound" if found.unknown.startswith("more than") and \
            found.unknown.endswith("paths") else ""
        ex.unknown.append((found.at, found.unknown + beyond))  # type: ignore[arg-type]
    return ex


# -- operands -------------------------------------------------------------------------------------------------


def _substitute(e: Expr, leaf: Mapping[str, Expr]) -> Expr:
    if isinstance(e, Sym):
        return leaf.get(e.name, e)
    if isinstance(e, Op):
        return Op(e.op, tuple(_substitute(a, leaf) for a in e.args))
    return e


def operand(text: str, kind: str, translate: object) -> object:
    """CuTe's print of an operand (run-time leaves ``v__N``) as the model's operand over the parameters."""
    from verifier.core.layouts import Layout
    from verifier.core.operands import map_leaves
    from verifier.run.problems import parse_operand

    scratch = Symbols()
    x = parse_operand(text, scratch)
    if kind.startswith("T") and type(x) is tuple:
        x = parse_operand("<" + text.strip()[1:-1] + ">", scratch)
    refs = {s.name: translate(int(s.name[3:])) for s in scratch if s.name.startswith("v__")}  # type: ignore[operator]

    def leaf(v: Int) -> Int:
        if v.static:
            return v
        return Int(_substitute(v.expr, refs), False)

    del Layout
    return map_leaves(x, leaf)


# -- deciding -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    line: int | None
    kind: str          # "operation", "property", "undefined behaviour", "exploration"
    what: str          # the call as recorded, e.g. composition((2,3):(1,2), (2,3):(3,1))
    verdict: Verdict
    cute_line: str = ""  # the CuTe line of an undefined behaviour
    paths: int = 1


@dataclass
class Report:
    fn: Function
    symbols: Symbols
    assumed: tuple[str, ...]
    findings: list[Finding]
    paths: int
    runs: int
    compile_seconds: float
    cached: bool
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        # a property's verdict is proved / refuted, an operation's valid / invalid: each verdict's own exit code
        codes = {f.verdict.exit_code for f in self.findings}
        return 1 if 1 in codes else (3 if 3 in codes else 0)


def _with(symbols: Symbols, condition: Bool) -> Symbols:
    s = replace(symbols, table=dict(symbols.table), relations=list(symbols.relations))  # Symbols is a dataclass
    if not condition.static:
        s.assume(condition)
    return s


def _path_condition(conds: Sequence[Bool]) -> Bool:
    return and_(*conds) if conds else Bool(Const(True), True)


def _text(x: object) -> str:
    from verifier.core.int_tuple import format_tuple

    return format_tuple(x) if type(x) is tuple else str(x)


def _show_call(ev: Event) -> str:
    ints = [str(i) for i in ev.ints]
    return f"{ev.name}({', '.join([*ints, *ev.args])})"


def _decide_event(ev: Event, operands: list[object], symbols: Symbols, timeout: float | None,
                  policy: Policy = DEFAULT_POLICY) -> Verdict:
    return decide_problem(_problem(ev, operands, symbols, timeout, policy))


def _problem(ev: Event, operands: list[object], symbols: Symbols, timeout: float | None,
             policy: Policy) -> Problem:
    """What an event of the run asks: the operation it calls, or the property, TMA box or GMMA check it states."""
    if ev.kind == "call":
        return Operation(ev.name, (*ev.ints, *operands), symbols, policy, timeout, via_divide=True)
    name = ev.name
    prop = _expected(name)
    if prop is not None:  # cute_verify::expect_NAME(operands..., the first options...)
        n = len(prop.operands)
        options = tuple((o.name, o.kind(x)) for o, x in zip(prop.options, operands[n:]))
        return Property(name, tuple(operands[:n]), symbols, options, policy=policy, timeout=timeout)
    if name == "tma_box":
        bits, smem, gmem = operands
        return Operation("make_tma_box", (int(bits), smem, gmem), symbols,  # type: ignore[call-overload]
                         policy, timeout)
    if name.startswith("canonical_gmma_"):
        smem, bits = operands
        return GmmaCanonical(smem, int(bits) or 16, name.rsplit("_", 1)[1])  # type: ignore[call-overload]
    raise LayoutError(f"unknown property {name}")


def _expected(name: str) -> Declared | None:
    """The property that ``cute_verify::expect_NAME`` states (its declaration's ``cpp``), if any."""
    from verifier.engine.checks import PROPERTIES  # noqa: F401 - declares them
    from verifier.engine.property import DECLARED

    prop = DECLARED.get(name)
    return prop if prop is not None and prop.cpp is not None else None


def _kinds(ev: Event) -> tuple[str, ...]:
    if ev.kind == "call":
        from verifier.algebra.registry import REGISTRY

        return REGISTRY[ev.name].operands
    prop = _expected(ev.name)
    if prop is not None and prop.cpp is not None:
        return prop.cpp
    # expect_tma_box(element_bits, smem, gmem): the make_tma_box operation; expect_canonical_gmma<Major>(smem, bits)
    return ("I", "L", "L") if ev.name == "tma_box" else ("L", "I")


def decide(runner: Runner, ex: Exploration, symbols: Symbols, timeout: float | None = None,
           policy: Policy = DEFAULT_POLICY) -> list[Finding]:
    findings: list[Finding] = []
    user = str(runner.fn.path)
    # the same operation at the same line with the same operands, on several paths: one question, under the
    # disjunction of those paths' conditions
    groups: dict[tuple[str, str, int, str], tuple[Event, list[object], list[PathRun]]] = {}
    for p in ex.paths:
        for ev in p.run.events:
            if ev.file != user:
                continue
            kinds = _kinds(ev)
            try:
                ops = [operand(t, kinds[k] if k < len(kinds) else "L", p.translate) for k, t in enumerate(ev.args)]
            except (LayoutError, UndefinedBehavior) as exc:
                findings.append(Finding(ev.line, ev.kind, _show_call(ev),
                                        Verdict(ev.name, ev.args, UNKNOWN, reason=f"operand not modelled: {exc}")))
                continue
            key = (ev.kind, ev.name, ev.line, repr([str(o) for o in ops]))
            if key not in groups:
                groups[key] = (ev, ops, [])
            if not groups[key][2] or groups[key][2][-1] is not p:
                groups[key][2].append(p)
    for (kind, _name, line, _), (ev, ops, paths) in groups.items():
        try:
            s = _with(symbols, _covering(ex, paths))
            v = _decide_event(ev, ops, s, timeout, policy)
        except LayoutError as exc:
            v = Verdict(ev.name, ev.args, UNKNOWN, reason=str(exc))
        shown = f"{ev.name}({', '.join([*map(str, ev.ints), *map(_text, ops)])})"
        findings.append(Finding(line, "operation" if kind == "call" else "property", shown, v, paths=len(paths)))
    findings.extend(_undefined(runner, ex, symbols))
    data_lines = sorted({runner.user_line(frames) or 0 for p in ex.paths for frames in p.run.data})
    for dl in data_lines:
        findings.append(Finding(dl or None, "exploration", runner.fn.name, Verdict(
            runner.fn.name, (), UNKNOWN, reason="a run-time value used as a pointer into data: the read or write "
            "through it is not followed")))
    if any(p.run.signal for p in ex.paths):
        findings.append(Finding(None, "exploration", runner.fn.name, Verdict(
            runner.fn.name, (), UNKNOWN, reason="the function stopped on a signal (SIGFPE/SIGSEGV) on some path")))
    for where, why in ex.unknown:
        findings.append(Finding(where, "exploration", runner.fn.name, Verdict(runner.fn.name, (), UNKNOWN, reason=why)))
    return findings


_UB_NAMES = {"DIV0": "a division by zero", "OVF": "a signed overflow", "SHIFT": "a shift out of range",
             "ALIGN": "a misaligned vector access to global memory"}


def _covering(ex: Exploration, paths: Sequence[PathRun]) -> Bool:
    """The condition under which something that happened on ``paths`` happens: the disjunction of their
    conditions, or true when they are every path of a complete exploration (its paths cover every admitted value,
    so the disjunction is the admitted space itself: a question asked with no condition is the same question)."""
    if not ex.unknown and len(paths) == len(ex.paths):
        return Bool(Const(True), True)
    conds = [_path_condition(p.condition) for p in paths]
    return or_(*conds) if len(conds) > 1 else conds[0]


def _undefined(runner: Runner, ex: Exploration, symbols: Symbols) -> list[Finding]:
    """Each division, signed operation and shift CuTe (or the function) performed on the run-time integers: its
    obligation proved on every path that performs it (under the disjunction of their conditions), or refuted with
    values replayed on the program (every refutation in one run of it)."""
    from verifier.oracle.symbolic import Unencodable, place
    from verifier.solver.budget import UNITS_PER_SECOND

    out: list[Finding] = []
    # (kind, line, obligation) -> (the obligation, where CuTe incurred it, the paths that incur it)
    groups: dict[tuple[str, int | None, Expr], tuple[Bool, int, list[PathRun]]] = {}
    for p in ex.paths:
        r = p.run
        for k, (kind, node, where) in enumerate(r.obligations):
            if kind not in _UB_NAMES:
                continue
            line = runner.user_line(r.sites.get(("O", k), ()))
            try:
                cond = Bool(p.translate(node), False)  # type: ignore[operator]
            except Unencodable as exc:
                out.append(Finding(line, "undefined behaviour", _UB_NAMES[kind], Verdict(
                    kind, (), UNKNOWN, reason=f"{_UB_NAMES[kind]}: not decided ({exc})")))
                continue
            group = groups.setdefault((kind, line, cond.expr), (cond, where, []))
            if not group[2] or group[2][-1] is not p:
                group[2].append(p)
    refuted: list[tuple[str, int | None, str, str, dict[str, int]]] = []
    for (kind, line, _), (cond, where, paths) in groups.items():
        status, values, why = _prove(symbols, _covering(ex, paths), cond, 4 * UNITS_PER_SECOND, _UB_NAMES[kind])
        if status == "proved":
            continue
        cute_line = place(runner.program, where)  # type: ignore[arg-type]
        text = format_expr(cond.expr)
        if status == "refuted" and values is not None:
            refuted.append((kind, line, text, cute_line, {**paths[0].run.env, **values}))
        else:
            out.append(Finding(line, "undefined behaviour", f"{text} ({cute_line})", Verdict(
                kind, (), UNKNOWN, reason=f"{_UB_NAMES[kind]}: {text} undecided ({why})"), cute_line))
    replays = runner.run([env for *_, env in refuted]) if refuted else []
    runner.lines([a for r in replays for frames in r.sites.values() for a in frames])
    for (kind, line, text, cute_line, env), replay in zip(refuted, replays):
        confirmed = any(o[0] == kind and runner.user_line(replay.sites.get(("O", j), ())) == line
                        and not _holds(replay, o[1], runner) for j, o in enumerate(replay.obligations))
        if confirmed:
            v = Verdict(kind, (), INVALID, counterexample=Counterexample(
                dict(env), kind, note=f"{_UB_NAMES[kind]} in {cute_line}"),
                reason=f"{_UB_NAMES[kind]}: {text} fails", guard=Guard(text, "unknown", text, text))
        else:
            v = Verdict(kind, (), UNKNOWN, reason=f"{_UB_NAMES[kind]}: {text} refuted by the solver but "
                        "not replayed")
        out.append(Finding(line, "undefined behaviour", f"{text} ({cute_line})", v, cute_line))
    return _merged(out, symbols, runner)


def _prove(symbols: Symbols, hypothesis: Bool, goal: Bool, units: int, what: str
           ) -> tuple[str, dict[str, int] | None, str]:
    """``goal`` for every value the assumptions and ``hypothesis`` admit, decided by ``engine.problem.decide`` as
    every front end's statements are (a ``Claims`` problem of one item): ``("proved", None, "")``, ``("refuted",
    values, "")`` (a candidate the caller replays on the compiled program) or ``("unknown", None, why)``.  Only the
    goal's own decision is read: its divisors are assumed nonzero there, a zero divisor being an obligation of its
    own (the division CuTe performs)."""
    from verifier.contracts.claims import Replay
    from verifier.core.obligations import UB
    from verifier.engine.decide import Item
    from verifier.engine.problem import Claims
    from verifier.solver.budget import Budget

    text = format_expr(goal.expr)
    item = Item(what, text, "", UB, True, (), goal, lambda values: Replay(True))
    v = decide_problem(Claims(what, (text,), (item,), _with(symbols, hypothesis), budget=Budget(units)))
    d = v.obligations[0]
    if d.status == PROVED:
        return "proved", None, ""
    if d.status == REFUTED and d.counterexample is not None:
        return "refuted", dict(d.counterexample.params), ""
    return "unknown", None, d.reason or "undecided"


def _merged(found: list[Finding], symbols: Symbols, runner: Runner) -> list[Finding]:
    """One finding per kind of undefined behaviour and line: the first counterexample, and as its guard the
    simplest sufficient condition found (one parameter a multiple of a power of two, proved to discharge every
    failing obligation of the line), else the conjunction of the obligations."""
    from verifier.core.integers import eq, mod, symbol
    from verifier.engine.problem import Admits
    from verifier.notation.cpp import parse_relation
    from verifier.solver.budget import UNITS_PER_SECOND

    groups: dict[tuple[str, int | None], list[Finding]] = {}
    out: list[Finding] = []
    for f in found:
        if f.verdict.verdict == INVALID:
            groups.setdefault((f.verdict.op, f.line), []).append(f)
        else:
            out.append(f)
    for fs in groups.values():
        texts = list(dict.fromkeys(f.verdict.guard.condition for f in fs if f.verdict.guard is not None))
        conds = [parse_relation(t, symbols) for t in texts]
        guard = " && ".join(f"({t})" for t in texts) if len(texts) > 1 else texts[0]
        # the weakest such guard: the smallest modulus (it admits the most values), then the first parameter; a
        # guard on the thread index (tid % 64 == 0 aligns every thread's rows too) excludes more values than one on
        # the leading dimension, which is the host's to check
        names = [p.name for p in runner.params]
        for k in (2, 4, 8, 16, 32, 64, 128, 256):
            chosen = None
            for name in list(names):
                cand = eq(mod(symbol(name), k), 0)
                if decide_problem(Admits(_with(symbols, cand))).verdict != PROVED:
                    names.remove(name)  # a guard no admitted value meets would hold vacuously
                    continue
                if all(_prove(symbols, cand, c, 2 * UNITS_PER_SECOND, "guard")[0] == "proved" for c in conds):
                    chosen = name
                    break
            if chosen is not None:
                guard = f"{chosen} % {k} == 0"
                break
        first = fs[0]
        more = f" (and {len(fs) - 1} more obligations of this line)" if len(fs) > 1 else ""
        v = replace(first.verdict, guard=Guard(guard, "unknown", guard, guard),
                    reason=(first.verdict.reason or "") + more)
        out.append(replace(first, verdict=v))
    return out


def _holds(r: Run, node: int, runner: Runner) -> bool:
    from verifier.oracle.symbolic import Translator

    tr = Translator(r.nodes, {p.name: p.name for p in runner.params})  # type: ignore[arg-type]
    try:
        return bool(tr(node).evaluate(r.env))
    except UndefinedBehavior:
        return False


# -- the whole command ----------------------------------------------------------------------------------------


def verify_cpp(target: str, ranges: Mapping[str, tuple[int, int]] | None = None, assume: Sequence[str] = (),
               include: Path | None = None, timeout: float | None = None, max_paths: int = MAX_PATHS,
               strict: bool = False) -> Report:
    import time

    path, name = parse_target(target)
    fn = find_function(path, name)
    symbols = declare(fn, ranges or {}, assume)
    program = compile_program(fn, include)
    runner = Runner(fn, program)
    t0 = time.perf_counter()
    ex = explore(runner, symbols, max_paths)
    t1 = time.perf_counter()
    findings = decide(runner, ex, symbols, timeout, Policy(strict=strict))
    t2 = time.perf_counter()
    findings.sort(key=lambda f: (f.line or 0, f.kind))
    return Report(fn, symbols, tuple(assume), findings, len(ex.paths), ex.runs, program.seconds, program.cached,
                  {"compile": program.seconds, "explore": t1 - t0, "decide": t2 - t1})


def summary_verdict(report: Report) -> Verdict:
    """The function's one verdict (a spec file's ``cpp`` check): invalid if a finding is, else unknown if one is,
    else valid; the reason and counterexample of the first such finding, at its line."""
    worst = next((f for f in report.findings if f.verdict.exit_code == 1), None) or next(
        (f for f in report.findings if f.verdict.exit_code == 3), None)
    where = f"{report.fn.path.name}::{report.fn.name}"
    guard = can_implement(report)
    if worst is None:
        return Verdict("cpp", (where,), VALID, result=f"{len(report.findings)} findings valid over {report.paths} "
                       "path(s)")
    v = worst.verdict
    return Verdict("cpp", (where,), INVALID if v.exit_code == 1 else UNKNOWN, counterexample=v.counterexample,
                   guard=replace(v.guard, cpp=guard) if v.guard is not None and guard else v.guard,
                   reason=f"line {worst.line}: {worst.kind}: {worst.what}: {v.reason or v.verdict}")


def can_implement(report: Report) -> str | None:
    """The guards of the invalid findings as the body of a ``can_implement`` over the function's parameters."""
    conds: list[str] = []
    for f in report.findings:
        g = f.verdict.guard
        if f.verdict.verdict == INVALID and g is not None and g.condition not in conds:
            conds.append(g.condition)
    if not conds:
        return None
    params = ", ".join(f"{p.ctype} {p.name}" for p in report.fn.params if p.symbolic is not None)
    body = "\n      && ".join(f"({c})" for c in conds)
    return f"bool can_implement({params}) {{\n  return {body};\n}}"


def run_check(check: Check) -> Verdict:
    """A spec file's ``cpp`` check (``engine.problem.decide`` decides a ``Check`` of kind ``cpp`` with it)."""
    assert check.cpp is not None
    report = verify_cpp(check.cpp, parse_ranges(check.args), check.assume, timeout=check.timeout)
    return summary_verdict(report)


register("cpp", run_check)

__all__ = ["CppInputError", "Report", "can_implement", "declare", "driver", "find_function", "parse_ranges",
           "parse_target", "recording_layer", "run_check", "verify_cpp"]
