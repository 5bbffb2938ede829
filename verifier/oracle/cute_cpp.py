"""Compiled CuTe as ground truth: generate C++ against the CuTe 4.2 headers, build it with g++, run it.

A ``CppBuilder`` turns parsed, validated model objects (layouts, int tuples, tilers) into C++ expressions with the
same static/dynamic structure: a static ``_8`` becomes ``Int<8>{}``, and every dynamic leaf becomes a run-time
read ``int(p[k])`` of a parameter slot, so that one binary serves every value of the dynamic integers (a sweep over
M is one compile).  Symbols are never spelled in C++: they too are parameter slots.  Operation names come from a
fixed whitelist.  No text from a user ever reaches the compiler, so no input can inject code.

``run_cases`` compiles many cases into one translation unit (cached by a hash of the source and the compiler),
runs each query (case, parameter values) under a SIGFPE guard (CuTe's divisions by zero are reported as ``UB``),
and returns what CuTe printed: the result, its size and cosize, and its value at every 1-D coordinate.  A case that
CuTe refuses to compile is isolated from the rest and reported as a rejection with the ``static_assert`` message.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from verifier.algebra.registry import CALL, RECAST, REGISTRY, SLICE, TENSOR
from verifier.algebra.registry import TEMPLATED as TEMPLATE_CALL
from verifier.core.basis import ScaledBasis
from verifier.core.int_tuple import IntTuple
from verifier.core.integers import Const, Expr, Int, Op, Sym
from verifier.core.layouts import Layout, Tile, Underscore
from verifier.core.swizzle import ComposedLayout, Swizzle

# Functions a generated case may call: the registered operations CuTe calls by name, and CuTe's queries and
# constructors of the layout algebra.
CALLABLES = frozenset(
    {name for name, row in REGISTRY.items() if row.cpp in (CALL, TENSOR, SLICE)} | {
        "size", "cosize", "rank", "depth", "shape", "stride", "flatten", "compatible", "congruent",
        "weakly_congruent", "ceil_div", "shape_div", "elem_scale", "crd2idx", "idx2crd", "crd2crd", "make_layout",
        "make_shape", "make_stride", "make_tile", "make_coord", "product", "evenly_divides", "round_up",
    })
# The functions called with template integers: the declared operations that are (``Operation.cpp``), and CuTe's
# layout functions.
TEMPLATED = frozenset({n for n, r in REGISTRY.items() if r.cpp == TEMPLATE_CALL}) | frozenset({
    "layout", "select", "take", "group", "append", "prepend", "get", "size", "rank", "depth", "shape", "stride",
    "replace"})

TAGS = frozenset({"LayoutLeft", "LayoutRight"})
VALUE_LIMIT = 1 << 16
# Part of every cache key: bump it when the way results are read from g++ or the program changes.
HARNESS_VERSION = "5"


class ToolMissing(RuntimeError):
    """g++ or the CuTe headers are not available; the message says how to install them."""


# -- locating the toolchain -----------------------------------------------------------------------------------


def cute_include() -> Path:
    """The folder holding ``cute/layout.hpp``: ``$CUTE_INCLUDE``, else the ``nvidia-cutlass`` wheel's copy."""
    env = os.environ.get("CUTE_INCLUDE")
    candidates = [Path(env)] if env else []
    try:
        import cutlass_library

        candidates.append(Path(cutlass_library.__file__).parent / "source" / "include")
    except ImportError:
        pass
    for c in candidates:
        if (c / "cute" / "layout.hpp").is_file():
            return c
    raise ToolMissing("the CuTe headers were not found: pip install nvidia-cutlass==4.2.0.0 "
                      "(or set CUTE_INCLUDE to the folder that holds cute/layout.hpp)")


@functools.cache
def headers_digest(include: Path) -> str:
    """A digest of the content of the CuTe and CUTLASS headers under ``include``.  The binary cache is keyed by it,
    not by the folder's path: a fresh virtual environment (CI's) installs the same headers elsewhere, and a binary
    built from identical headers is the same binary."""
    h = hashlib.sha256()
    for sub in ("cute", "cutlass"):
        root = include / sub
        for f in sorted(root.rglob("*")) if root.is_dir() else []:
            if f.is_file():
                h.update(f.relative_to(include).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def cuda_includes() -> list[Path]:
    """Folders for ``cuda_runtime_api.h`` and the CCCL headers CuTe includes on the host."""
    roots = [Path(p) for p in (os.environ.get("CUDA_INCLUDE", ""), "/usr/local/cuda/include") if p]
    try:
        import nvidia.cuda_cccl as cccl  # type: ignore[import-not-found]

        roots.append(Path(list(cccl.__path__)[0]) / "include")
    except ImportError:
        pass
    for r in roots:
        if (r / "cuda_runtime_api.h").is_file():
            out = [r]
            if (r / "cccl").is_dir():
                out.append(r / "cccl")
            return out
    raise ToolMissing("the CUDA headers (cuda_runtime_api.h) were not found: install the CUDA toolkit or set "
                      "CUDA_INCLUDE to its include folder")


def compiler() -> str:
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        raise ToolMissing(f"the C++ compiler {cxx!r} was not found: install g++ (apt-get install g++)")
    return cxx


def cache_dir() -> Path:
    root = os.environ.get("CUTE_VERIFY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cute-layout-verifier")
    p = Path(root) / "cpp"
    p.mkdir(parents=True, exist_ok=True)
    return p


# -- code generation ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One run-time parameter ``p[k]``: a fixed dynamic value, or the value of a symbol."""

    value: int | None = None
    symbol: str | None = None


@dataclass(frozen=True)
class CppCase:
    """A C++ expression whose dynamic integers read the parameter slots ``p[0..]``."""

    code: str
    slots: tuple[Slot, ...]
    label: str = ""

    def params(self, env: Mapping[str, int] | None = None) -> list[int]:
        env = env or {}
        out = []
        for s in self.slots:
            if s.symbol is not None:
                if s.symbol not in env:
                    raise KeyError(f"no value for symbol {s.symbol}")
                out.append(int(env[s.symbol]))
            else:
                assert s.value is not None
                out.append(s.value)
        return out


_CPP_BINOPS = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%"}
_CPP_FUNCS = {"min": "cute::min", "max": "cute::max", "abs": "cute::abs", "signum": "cute::signum",
              "gcd": "cute::gcd", "lcm": "cute::lcm"}


@dataclass
class CppBuilder:
    """Builds C++ expressions from model objects, allocating parameter slots for dynamic values."""

    slots: list[Slot] = field(default_factory=list)
    _symbol_slot: dict[str, int] = field(default_factory=dict)
    wide: frozenset[str] = frozenset()  # symbols declared 64-bit: read as int64_t, not int

    def _slot_for_value(self, v: int) -> str:
        self.slots.append(Slot(value=int(v)))
        return f"int(p[{len(self.slots) - 1}])"

    def _slot_for_symbol(self, name: str) -> str:
        if name not in self._symbol_slot:
            self.slots.append(Slot(symbol=name))
            self._symbol_slot[name] = len(self.slots) - 1
        return f"{self._type(name)}(p[{self._symbol_slot[name]}])"

    def _type(self, *names: str) -> str:
        return "int64_t" if any(n in self.wide for n in names) else "int"

    def _expr(self, e: Expr) -> str:
        if type(e) is Const:
            return f"int({int(e.value)})"
        if type(e) is Sym:
            return self._slot_for_symbol(e.name)
        assert isinstance(e, Op)
        if e.op in _CPP_BINOPS:
            a, b = (self._expr(x) for x in e.args)
            return f"({a} {_CPP_BINOPS[e.op]} {b})"
        if e.op == "neg":
            return f"(-{self._expr(e.args[0])})"
        if e.op in _CPP_FUNCS:
            return f"{_CPP_FUNCS[e.op]}({', '.join(self._expr(x) for x in e.args)})"
        if e.op == "seq":  # C++'s comma: every operand computed, the value the last
            return f"({', '.join(f'(void)({self._expr(x)})' for x in e.args[:-1])}, {self._expr(e.args[-1])})"
        raise ValueError(f"operation {e.op!r} cannot appear in a CuTe integer")

    def counting(self) -> str:
        """The iterator of a tensor over indices (``local_tile``, ``local_partition``): a counting iterator from 0."""
        return "counting_iterator<long long>(0)"

    def int(self, x: Int) -> str:
        if x.static:
            return f"Int<{int(x)}>{{}}"
        if type(x.expr) is Const:
            return self._slot_for_value(x.expr.value)
        return f"{self._type(*x.expr.symbols())}({self._expr(x.expr)})"

    def int_tuple(self, t: IntTuple | ScaledBasis, maker: str = "make_shape") -> str:
        # a stride's leaf may be a scaled basis (an identity layout's E<i>), which IntTuple does not spell
        if isinstance(t, tuple):
            return f"{maker}({', '.join(self.int_tuple(x, maker) for x in t)})"
        if isinstance(t, ScaledBasis):  # v * E<i...> is ScaledBasis<decltype(v), i...> (arithmetic_tuple.hpp:395-401)
            return f"({self.int(t.value)} * E<{','.join(str(int(n)) for n in t.modes)}>{{}})"
        return self.int(t)

    def swizzle(self, sw: Swizzle) -> str:
        return f"Swizzle<{int(sw.bits)},{int(sw.base)},{int(sw.shift)}>{{}}"

    def composed(self, c: ComposedLayout) -> str:
        """``composition(Swizzle{}, layout)`` as CuTe's tests build it where that gives the same type (a non-identity
        swizzle and a static ``_0`` offset), else ``make_composed_layout(a, offset, b)``."""
        from verifier.core.swizzle import SmemPtrFlag

        if isinstance(c.offset, SmemPtrFlag):
            return (f"make_composed_layout({self.operand(c.outer)}, smem_ptr_flag_bits<{int(c.offset.bits)}>{{}}, "
                    f"{self.operand(c.inner)})")
        if (isinstance(c.outer, Swizzle) and not c.outer.identity and c.offset.is_constant(0)
                and isinstance(c.inner, Layout)):
            return f"composition({self.swizzle(c.outer)}, {self.layout(c.inner)})"
        return f"make_composed_layout({self.operand(c.outer)}, {self.int(c.offset)}, {self.operand(c.inner)})"

    def layout(self, layout: Layout) -> str:
        return (f"make_layout({self.int_tuple(layout.shape, 'make_shape')}, "
                f"{self.int_tuple(layout.stride, 'make_stride')})")

    def tile(self, tile: Tile) -> str:
        return f"make_tile({', '.join(self.operand(e) for e in tile.elements)})"

    def operand(self, x: object) -> str:
        if isinstance(x, Layout):
            return self.layout(x)
        if isinstance(x, Swizzle):
            return self.swizzle(x)
        if isinstance(x, ComposedLayout):
            return self.composed(x)
        if isinstance(x, Tile):
            return self.tile(x)
        if isinstance(x, Underscore):
            return "_"
        if isinstance(x, (Int, tuple)):
            return self.int_tuple(x)
        if isinstance(x, str) and x in TAGS:
            return f"{x}{{}}"
        raise TypeError(f"cannot generate C++ for {type(x).__name__}")

    def coord(self, x: object) -> str:
        """A coordinate: ``make_coord`` of integers and ``_`` (CuTe's Underscore) at any depth."""
        if isinstance(x, Underscore):
            return "_"
        if type(x) is tuple:
            return f"make_coord({', '.join(self.coord(e) for e in x)})"
        if isinstance(x, Int):
            return self.int(x)
        raise TypeError(f"cannot generate a C++ coordinate for {type(x).__name__}")

    # builtins.int: the method int above shadows the type in the class body
    def call(self, fn: str, *args: str, template: Sequence[builtins.int] = ()) -> str:
        if template:
            if fn not in TEMPLATED:
                raise ValueError(f"{fn!r} is not a templated operation the harness may call")
            targs = ",".join(str(int(t)) for t in template)
            return f"{fn}<{targs}>({', '.join(args)})"
        if fn not in CALLABLES:
            raise ValueError(f"{fn!r} is not an operation the harness may call")
        return f"{fn}({', '.join(args)})"

    def case(self, code: str, label: str = "") -> CppCase:
        return CppCase(code, tuple(self.slots), label)


def layout_case(layout: Layout, label: str = "") -> CppCase:
    """A case that builds ``layout`` itself in CuTe."""
    b = CppBuilder()
    return b.case(b.layout(layout), label)


def call_case(fn: str, *operands: object, template: Sequence[int] = (), label: str = "",
              builder: type[CppBuilder] = CppBuilder) -> CppCase:
    """A case that calls CuTe's ``fn`` (optionally ``fn<template...>``) on model operands."""
    b = builder()
    args = [b.operand(x) for x in operands]
    return b.case(b.call(fn, *args, template=template), label)


def tensor_case(fn: str, layout: Layout, *operands: object, coord: object = None, label: str = "",
                builder: type[CppBuilder] = CppBuilder) -> CppCase:
    """A case that calls CuTe's tensor function ``fn`` (``local_tile``, ``local_partition``) on a tensor over a
    counting iterator from 0 with ``layout``; ``coord`` (integers and ``_``) is passed last. The harness prints
    the result tensor's layout and, as ``@@OFFSET``, the index its iterator has moved to."""
    b = builder()
    args = [f"make_tensor({b.counting()}, {b.layout(layout)})"]
    # a coordinate that slices (``(m,n,_)`` before a ``Step<_1,X,_1>`` projection) is spelled as one
    args += [b.coord(x) if _has_underscore(x) else b.operand(x) for x in operands]
    if coord is not None:
        args.append(b.coord(coord))
    return b.case(b.call(fn, *args), label)


def _has_underscore(x: object) -> bool:
    return isinstance(x, Underscore) or (type(x) is tuple and any(_has_underscore(e) for e in x))


def slice_case(coord: object, layout: Layout, label: str = "", builder: type[CppBuilder] = CppBuilder) -> CppCase:
    """A case that calls CuTe's ``slice_and_offset(coord, layout)``: the harness prints the sliced layout and the
    offset (with its static/dynamic flag) as ``@@OFFSET``."""
    b = builder()
    c = b.coord(coord)
    return b.case(b.call("slice_and_offset", c, b.operand(layout)), label)


# The element types recast_layout may be instantiated with, by bit width (cute/numeric/int.hpp:91-100).
RECAST_BITS = frozenset({1, 2, 4, 6, 8, 16, 32, 64, 128, 256})


def recast_case(old_bits: int, new_bits: int, layout: Layout, label: str = "",
                builder: type[CppBuilder] = CppBuilder) -> CppCase:
    """A case that calls ``recast_layout<uint_bit_t<Old>, uint_bit_t<New>>(layout)`` (layout.hpp:1870-1891)."""
    if old_bits not in RECAST_BITS or new_bits not in RECAST_BITS:
        raise ValueError(f"recast_layout: no CuTe element type of {old_bits} or {new_bits} bits")
    b = builder()
    return b.case(f"recast_layout<uint_bit_t<{int(old_bits)}>, uint_bit_t<{int(new_bits)}>>({b.layout(layout)})",
                  label)


def operation_case(op: str, *operands: object, label: str = "", builder: type[CppBuilder] = CppBuilder) -> CppCase:
    """A case that runs registered operation ``op`` in compiled CuTe on model operands (its template integers
    first, as ``apply`` takes them), the way its registry row says CuTe is called for it. ``builder`` spells the
    run-time integers (``oracle.symbolic.SymbolicBuilder``: symbolic ones)."""
    row = REGISTRY[op]
    ints = [int(x) for x in operands[:row.template]]  # type: ignore[call-overload]
    rest = operands[row.template:]
    if row.cpp == CALL:
        return call_case(op, *rest, label=label, builder=builder)
    if row.cpp == TEMPLATE_CALL:
        return call_case(op, *rest, template=ints, label=label, builder=builder)
    if row.cpp == RECAST:
        return recast_case(ints[0], ints[1], rest[0], label, builder=builder)  # type: ignore[arg-type]
    if row.cpp == SLICE:
        return slice_case(rest[0], rest[1], label, builder=builder)  # type: ignore[arg-type]
    if row.cpp == TENSOR:
        return tensor_case(op, *rest[:-1], coord=rest[-1], label=label, builder=builder)  # type: ignore[arg-type]
    raise ValueError(f"{op} has no C++ check of its own: {row.not_compiled}")


def apply_case(layout: Layout, *coord: object, label: str = "") -> CppCase:
    """A case that evaluates CuTe's ``layout(coord...)``."""
    b = CppBuilder()
    fn = b.layout(layout)
    args = [b.operand(c) for c in coord]
    return b.case(f"({fn})({', '.join(args)})", label)


# -- the translation unit -------------------------------------------------------------------------------------

_PRELUDE = r"""
#include <cute/tensor.hpp>
#include <cute/swizzle_layout.hpp>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <vector>
using namespace cute;

static sigjmp_buf g_jump;
static void on_signal(int) { siglongjmp(g_jump, 1); }

template <class T> void emit_value(T const& v) {
  if constexpr (cute::is_scaled_basis<T>::value) { print(v); }  // is_integral, but a coordinate
  else if constexpr (cute::is_integral<T>::value) { printf("%lld", (long long)(v)); }
  else { print(v); }
}
// A layout, or a composed layout whose innermost function is a layout (a swizzle has no size).
template <class T> struct has_domain : cute::is_layout<T> {};
template <class A, class O, class B> struct has_domain<cute::ComposedLayout<A, O, B>> : has_domain<B> {};
template <class T> struct is_layout_offset : cute::false_type {};
template <class L, class O> struct is_layout_offset<cute::tuple<L, O>> : cute::is_layout<L> {};
template <class T> void emit_result(T const& r, long long limit) {
  printf("@@RESULT "); print(r); printf("\n");
  if constexpr (has_domain<T>::value) {
    printf("@@SIZE "); print(size(r)); printf("\n");
    printf("@@COSIZE "); print(cosize(r)); printf("\n");
    long long n = (long long)(size(r));
    printf("@@VALUES");
    if (n > limit) { printf(" TOO_MANY"); n = 0; }
    for (long long i = 0; i < n; ++i) { printf(" "); emit_value(r(int(i))); }
    printf("\n");
  }
}
// A tensor over a counting iterator (its layout, and the index its iterator moved to), or a (layout, offset)
// pair from slice_and_offset; anything else as it is.
template <class T> void emit(T const& r, long long limit) {
  if constexpr (cute::is_tensor<T>::value) {
    printf("@@OFFSET %lld\n", (long long)(*r.data()));
    emit_result(r.layout(), limit);
  } else if constexpr (is_layout_offset<T>::value) {
    printf("@@OFFSET "); print(get<1>(r)); printf("\n");
    emit_result(get<0>(r), limit);
  } else {
    emit_result(r, limit);
  }
}
"""

_MAIN = r"""
int main() {
  signal(SIGFPE, on_signal);
  signal(SIGSEGV, on_signal);
  long long qid, cid, n, limit;
  while (scanf("%lld %lld %lld %lld", &qid, &cid, &limit, &n) == 4) {
    std::vector<long long> p(n > 0 ? n : 1);
    for (long long k = 0; k < n; ++k) { if (scanf("%lld", &p[k]) != 1) return 3; }
    printf("@@BEGIN %lld\n", qid);
    fflush(stdout);
    if (sigsetjmp(g_jump, 1) == 0) {
      if (cid < 0 || cid >= kCases) { printf("@@ERROR no such case\n"); }
      else { kTable[cid](p.data(), limit); }
    } else {
      printf("\n@@UB signal\n");
    }
    printf("@@END\n");
    fflush(stdout);
  }
  return 0;
}
"""


def _translation_unit(cases: Sequence[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    lines = _PRELUDE.strip("\n").split("\n")
    spans: dict[int, tuple[int, int]] = {}
    for k, case in enumerate(cases):
        start = len(lines) + 1
        if k in rejected:
            lines.append(f"static void case_{k}(const long long*, long long) {{ printf(\"@@REJECTED\\n\"); }}")
        else:
            lines.append(f"static void case_{k}(const long long* p, long long limit) {{")
            lines.append(f"  auto r = {case.code};")
            lines.append("  emit(r, limit);")
            lines.append("}")
        spans[k] = (start, len(lines))
    lines.append("typedef void (*case_fn)(const long long*, long long);")
    lines.append(f"static const long long kCases = {len(cases)};")
    table = ", ".join(f"case_{k}" for k in range(len(cases))) or "nullptr"
    lines.append(f"static case_fn kTable[] = {{{table}}};")
    lines.extend(_MAIN.strip("\n").split("\n"))
    return "\n".join(lines) + "\n", spans


def _compile_command(src: Path, out: Path, flags: Sequence[str] = ()) -> list[str]:
    cmd = [compiler(), "-std=c++17", "-O0", "-w", "-fmax-errors=200", *flags, f"-I{cute_include()}"]
    cmd += [f"-I{p}" for p in cuda_includes()]
    return cmd + [str(src), "-o", str(out)]


def _compiler_version() -> str:
    out = subprocess.run([compiler(), "--version"], capture_output=True, text=True, check=False)
    return out.stdout.split("\n", 1)[0]


_ERR_LINE = re.compile(r"^(?P<file>[^:\s]+\.cpp):(?P<line>\d+):(?:\d+:)?\s*(?P<rest>.*)$")


def _attribute_errors(stderr: str, spans: Mapping[int, tuple[int, int]], src_name: str) -> dict[int, str]:
    """Map g++ diagnostics to the cases they come from, with the first error message of each case."""
    def case_of(line: int) -> int | None:
        for k, (a, b) in spans.items():
            if a <= line <= b:
                return k
        return None

    found: dict[int, str] = {}
    pending: set[int] = set()
    for raw in stderr.splitlines():
        m = _ERR_LINE.match(raw.strip())
        if m and os.path.basename(m.group("file")) == src_name:
            k = case_of(int(m.group("line")))
            if k is not None:
                pending.add(k)
        if ": error:" in raw or ": fatal error:" in raw:
            msg = raw.split("error:", 1)[1].strip()
            sa = re.search(r"static assertion failed(?::\s*(.*))?", msg)
            msg = (sa.group(1) or "static assertion failed").strip() if sa else f"compile error: {msg}"
            for k in pending:
                found.setdefault(k, msg)
            pending = set()
    return found


@dataclass(frozen=True)
class Binary:
    path: Path
    rejected: dict[int, str]


# Generates a program from the cases and the set of rejected ones: its text and each case's line span.
TranslationUnit = Callable[[Sequence[CppCase], set[int]], tuple[str, dict[int, tuple[int, int]]]]


def build(cases: Sequence[CppCase], unit: TranslationUnit | None = None, flags: Sequence[str] = ()) -> Binary:
    """Compile ``cases`` into one program (cached). Cases CuTe refuses are isolated and recorded as rejected.

    ``unit`` generates the program (default: the printing harness of ``run_cases``); ``flags`` are extra g++
    options. Both are part of the cache key."""
    unit = unit or _translation_unit
    key_src, _ = unit(cases, set())
    ident = "\0".join((HARNESS_VERSION, key_src, _compiler_version(), headers_digest(cute_include()), *flags))
    key = hashlib.sha256(ident.encode()).hexdigest()
    cdir = cache_dir()
    exe = cdir / f"{key[:32]}.bin"
    meta = cdir / f"{key[:32]}.json"
    if exe.is_file() and meta.is_file():
        return _cached(exe, meta)
    with _compiling(cdir / f"{key[:32]}.lock"):
        if exe.is_file() and meta.is_file():  # another process compiled it while this one waited
            return _cached(exe, meta)
        return _compile(cases, unit, flags, exe, meta, key)


def _cached(exe: Path, meta: Path) -> Binary:
    return Binary(exe, {int(k): v for k, v in json.loads(meta.read_text())["rejected"].items()})


@contextlib.contextmanager
def _compiling(lock: Path) -> Iterator[None]:
    """One compile of a program at a time on a host: the workers of a sweep that need the same program at once
    (the keys of one batch, verified side by side) wait for the first one's instead of each running g++ on it."""
    with open(lock, "a") as fd:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)


def _compile(cases: Sequence[CppCase], unit: TranslationUnit, flags: Sequence[str], exe: Path, meta: Path,
             key: str) -> Binary:
    cdir = exe.parent
    rejected: dict[int, str] = {}
    with tempfile.TemporaryDirectory(prefix="cute-verify-") as tmp:
        src = Path(tmp) / "cases.cpp"
        out = Path(tmp) / "cases.bin"
        for _attempt in range(len(cases) + 2):
            text, spans = unit(cases, set(rejected))
            src.write_text(text)
            proc = subprocess.run(_compile_command(src, out, flags), capture_output=True, text=True, check=False)
            if proc.returncode == 0:
                break
            new = _attribute_errors(proc.stderr, spans, src.name)
            new = {k: v for k, v in new.items() if k not in rejected}
            if not new:
                if len(cases) == 1 and not rejected:
                    rejected[0] = _first_error(proc.stderr)
                    continue
                raise RuntimeError("g++ failed outside any case:\n" + proc.stderr[-4000:])
            rejected.update(new)
        else:  # pragma: no cover - every iteration rejects at least one case
            raise RuntimeError("could not isolate the cases CuTe rejects")
        tmp_exe = cdir / f"{key[:32]}.{os.getpid()}.tmp"
        shutil.copy(out, tmp_exe)
        os.replace(tmp_exe, exe)
        tmp_meta = cdir / f"{key[:32]}.{os.getpid()}.json.tmp"
        tmp_meta.write_text(json.dumps({"rejected": rejected}))
        os.replace(tmp_meta, meta)
    return Binary(exe, rejected)


def _first_error(stderr: str) -> str:
    for raw in stderr.splitlines():
        if "error:" in raw:
            msg = raw.split("error:", 1)[1].strip()
            sa = re.search(r"static assertion failed(?::\s*(.*))?", msg)
            return (sa.group(1) or "static assertion failed").strip() if sa else f"compile error: {msg}"
    return "compilation failed"


# -- running --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CuteResult:
    """What compiled CuTe did for one query."""

    rejected: str | None = None          # the static_assert (or other compile error) message, if CuTe refused
    ub: bool = False                     # the program hit SIGFPE/SIGSEGV: undefined behaviour
    result: str | None = None            # CuTe's print of the result
    size: str | None = None              # print(size(r)), e.g. "_8" or "8"
    cosize: str | None = None
    values: tuple[int, ...] | None = None  # r(i) for every 1-D coordinate (None if too many or not integral)
    printed_values: tuple[str, ...] | None = None  # r(i) as CuTe prints it: "(_0,3)", "3@1" for scaled bases
    offset: str | None = None            # the offset a tensor slice adds to the pointer (slice_and_offset, local_*)

    @property
    def ok(self) -> bool:
        return self.rejected is None and not self.ub


@dataclass(frozen=True)
class Query:
    case: int
    env: Mapping[str, int] = field(default_factory=dict)


def run_binary(binary: Binary, cases: Sequence[CppCase], queries: Sequence[Query],
               limit: int = VALUE_LIMIT, timeout: float = 600.0,
               case_index: Sequence[int] | None = None) -> list[CuteResult]:
    """Run ``queries`` on ``binary``; query k evaluates compiled case ``case_index[k]`` (default: its own case
    number) with the parameter values of ``cases[query.case]``."""
    index = list(case_index) if case_index is not None else [q.case for q in queries]
    lines = []
    for qid, q in enumerate(queries):
        params = cases[q.case].params(q.env)
        lines.append(f"{qid} {index[qid]} {limit} {len(params)} {' '.join(map(str, params))}")
    proc = subprocess.run([str(binary.path)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=timeout, check=False)
    blocks = _parse_output(proc.stdout)
    out: list[CuteResult] = []
    for qid, _q in enumerate(queries):
        if index[qid] in binary.rejected:
            out.append(CuteResult(rejected=binary.rejected[index[qid]]))
            continue
        block = blocks.get(qid)
        if block is None:
            raise RuntimeError(f"the CuTe program gave no answer for query {qid} (exit {proc.returncode}): "
                               f"{proc.stderr[-2000:]}")
        out.append(block)
    return out


def _parse_output(stdout: str) -> dict[int, CuteResult]:
    blocks: dict[int, CuteResult] = {}
    qid: int | None = None
    fields: dict[str, str] = {}
    for line in stdout.split("\n"):
        if line.startswith("@@BEGIN "):
            qid = int(line.split()[1])
            fields = {}
        elif line.startswith("@@END") and qid is not None:
            values = None
            raw = fields.get("VALUES")
            printed = tuple(raw.split()) if raw is not None and "TOO_MANY" not in raw else None
            if raw is not None and "TOO_MANY" not in raw:
                try:
                    values = tuple(int(v) for v in raw.split())
                except ValueError:
                    values = None
            blocks[qid] = CuteResult(
                rejected="rejected" if "REJECTED" in fields else None,
                ub="UB" in fields, result=fields.get("RESULT"), size=fields.get("SIZE"),
                cosize=fields.get("COSIZE"), values=values, offset=fields.get("OFFSET"), printed_values=printed)
            qid = None
        elif line.startswith("@@") and qid is not None:
            tag, _, rest = line[2:].partition(" ")
            fields[tag] = rest.strip()
    return blocks


def run_cases(cases: Sequence[CppCase], queries: Iterable[Query] | None = None, *,
              chunk: int = 64, jobs: int | None = None, limit: int = VALUE_LIMIT) -> list[CuteResult]:
    """Compile ``cases`` (in chunks of ``chunk`` per translation unit, built in parallel) and run ``queries``
    (default: each case once, with no symbol values). Results come back in query order.

    Cases whose C++ text is identical (the same static structure; dynamic values are run-time parameters) are
    compiled once and run with each case's own parameter values."""
    qs = list(queries) if queries is not None else [Query(k) for k in range(len(cases))]
    unique: dict[str, int] = {}
    for c in cases:
        unique.setdefault(c.code, len(unique))
    codes = list(unique)
    chunks = [codes[i:i + chunk] for i in range(0, len(codes), chunk)]
    jobs = jobs or max(1, min(len(chunks), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        binaries = list(pool.map(lambda cs: build([CppCase(code, ()) for code in cs]), chunks))
    results: list[CuteResult | None] = [None] * len(qs)
    for ci, chunk_codes in enumerate(chunks):
        local = {code: li for li, code in enumerate(chunk_codes)}
        mine = [(qi, q) for qi, q in enumerate(qs) if cases[q.case].code in local]
        if not mine:
            continue
        # Each query keeps its own case (for its parameter values) but runs the shared compiled function.
        run_set = [cases[q.case] for _, q in mine]
        res = run_binary(binaries[ci], run_set, [Query(k, q.env) for k, (_, q) in enumerate(mine)],
                         limit=limit, case_index=[local[cases[q.case].code] for _, q in mine])
        for (qi, _), r in zip(mine, res):
            results[qi] = r
    return [r for r in results if r is not None]
