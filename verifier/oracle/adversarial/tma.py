"""The ``tma`` family: ``make_tma_box`` judged against ``make_tma_copy``'s compiled host run.

Each case is an element width (8, 16, 32, 64 bits), a static smem tile (plain or swizzled, K- or M-major) and a
gmem layout whose run-time integers are drawn at the corners of the descriptor's rules: zero and negative extents,
extents near 2^31 and (int64) near 2^32, zero, negative and huge strides, 64-bit strides near 2^40 bytes and near
2^60 (where CuTe's ``uint64_t`` byte stride wraps), and more gmem modes than the TMA's five.  Compiled CuTe is the
judge: g++ runs the whole host path of ``make_tma_copy`` (its asserts, copy_traits_sm90_tma.hpp:949-1007; without
nvcc the driver call is skipped) and prints the descriptor ``fill_tma_gmem_shape_stride`` fills
(:854-891, scaled to bytes as :966-969 does).  Cases that share a structure (width, smem, which leaves are static)
are compiled once and run with many values; a program catches each assert and goes on with the next query.

An answer agrees with CuTe when

* CuTe refuses the smem layout at compile time exactly where the tool reports a rejection;
* the tool is ``valid`` only where the host run passes every assert and the descriptor CuTe fills is the layout's:
  each box mode's byte stride is the tool's gmem stride times the element size, each extent the tool's;
* where the host run asserts at a line, the tool is ``invalid`` with that line's obligation the first refuted one
  among CuTe's checked obligations (TMA-GDIM, TMA-MAJOR, TMA-GSTRIDE, TMA-BOX, in CuTe's order), or refuted
  after another where the descriptor CuTe filled is not the layout's or comes from a negative stride (the order of
  the asserts is then that of ``uint64_t`` values the layout never has);
* where the host run passes, the tool refutes none of CuTe's checked obligations unless the descriptor CuTe filled
  is not the layout's (a ``uint64_t`` wrap: a negative or huge stride whose byte stride passed the asserts);
  the driver's own rules (TMA-INNER, TMA-SWIZZLE) and TMA-RANK are not host checks.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from verifier.core.symbols import Symbols, declaration
from verifier.oracle.adversarial import Disagreement, Report

FAMILY = "tma"
TYPES = {8: "uint8_t", 16: "cute::half_t", 32: "float", 64: "double"}
# CuTe's asserts in make_tma_copy_desc (copy_traits_sm90_tma.hpp), by line, and the obligation each one is.
ASSERTS = ((range(949, 950), "the gmem address alignment"), (range(951, 961), "TMA-GDIM"),
           (range(963, 964), "TMA-MAJOR"), (range(971, 979), "TMA-GSTRIDE"), (range(993, 1008), "TMA-BOX"))
CUTE_CHECKED = ("TMA-GDIM", "TMA-MAJOR", "TMA-GSTRIDE", "TMA-BOX")
INT32_MAX = 2**31 - 1
CHUNK = 6  # compiled structures per program

_HEADER = r"""#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <vector>
#include <unistd.h>
using namespace cute;
static sigjmp_buf g_jump;
static void on_abort(int) { siglongjmp(g_jump, 1); }
// The descriptor make_tma_copy encodes (its gmem shape and byte strides), then make_tma_copy itself.
template <class T, class S, class G> void tma_probe(S const& s, G const& g) {
  auto gt = make_tensor(make_gmem_ptr((T*)nullptr), g);
  auto sl = get_nonswizzle_portion(s);
  auto v = make_identity_layout(product_each(shape(sl)));
  auto basis = detail::construct_tma_gbasis<T>(gt, sl, v);
  cute::array<uint64_t, 5> shp = {1,1,1,1,1};
  cute::array<uint64_t, 5> str = {0,0,0,0,0};
  detail::fill_tma_gmem_shape_stride(gt, stride(basis), shp, str);
  printf("@@RANK %d\n@@DESC", int(decltype(rank(basis))::value));
  for (int i = 0; i < 5; ++i) printf(" %llu %llu", (unsigned long long)shp[i],
                                      (unsigned long long)((str[i] * sizeof_bits_v<T>) / 8));
  printf("\n");
  fflush(stdout);
  auto t = make_tma_copy(SM90_TMA_LOAD{}, gt, s);
  (void)t;
}"""

_MAIN = r"""
int main() {
  dup2(1, 2);
  long long qid, cid, n;
  while (scanf("%lld %lld %lld", &qid, &cid, &n) == 3) {
    std::vector<long long> p(n > 0 ? n : 1);
    for (long long k = 0; k < n; ++k) { if (scanf("%lld", &p[k]) != 1) return 3; }
    printf("@@BEGIN %lld\n", qid);
    fflush(stdout);
    signal(SIGABRT, on_abort);
    if (sigsetjmp(g_jump, 1) == 0) { kTable[cid](p.data()); printf("\n@@OK\n"); }
    else { printf("\n@@ABORT\n"); }
    printf("@@END\n");
    fflush(stdout);
  }
  return 0;
}
"""


def _unit(cases: Sequence[object], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    lines = _HEADER.split("\n")
    spans = {}
    for k, case in enumerate(cases):
        start = len(lines) + 1
        body = "" if k in rejected else f"  {case.code};"  # type: ignore[attr-defined]
        lines += [f"static void case_{k}(const long long* p) {{", body, "}"]
        spans[k] = (start, len(lines))
    table = ", ".join(f"case_{k}" for k in range(len(cases))) or "nullptr"
    lines.append(f"static void (*kTable[])(const long long*) = {{{table}}};")
    return "\n".join(lines) + _MAIN, spans


@dataclass(frozen=True)
class HostRun:
    """What ``make_tma_copy``'s host path did for one case."""

    rejected: str | None = None  # the compile error (a static_assert) when CuTe refuses the types
    line: int | None = None  # the line of the assert that fired
    rank: int = 0
    desc: tuple[tuple[int, int], ...] = ()  # (gmem extent, byte stride) of each of the five descriptor modes

    @property
    def checked(self) -> str | None:
        """The obligation of the assert that fired (None: no assert)."""
        if self.line is None:
            return None
        return next((name for lines, name in ASSERTS if self.line in lines), f"line {self.line}")


@dataclass(frozen=True)
class Case:
    """One input: the element width, the smem tile, the gmem layout over symbols, and the symbols' values."""

    bits: int
    smem: str
    gmem: str
    env: tuple[tuple[str, int], ...]
    wide: frozenset[str] = frozenset()

    @property
    def command(self) -> str:
        params = " ".join(f"--param {k}={v}" for k, v in self.env)
        symbols = " ".join(f"--symbol {k}=..:i64" for k in sorted(self.wide))
        return f"cute-verify make_tma_box {self.bits} '{self.smem}' '{self.gmem}' {symbols} {params}".replace("  ", " ")


def host_runs(cases: Sequence[Case]) -> list[HostRun]:
    """``make_tma_copy`` compiled once per structure and run on every case's values, in one process per program
    (restarted after a crash)."""
    from verifier.notation.cpp import parse
    from verifier.oracle import cute_cpp

    codes: dict[str, int] = {}
    compiled: list[cute_cpp.CppCase] = []
    case_of: list[tuple[int, list[int]]] = []
    for c in cases:
        b = cute_cpp.CppBuilder(wide=c.wide)
        symbols = _symbols(c)
        code = f"tma_probe<{TYPES[c.bits]}>({b.operand(parse(c.smem, symbols))}, {b.operand(parse(c.gmem, symbols))})"
        cpp = b.case(code)
        if code not in codes:
            codes[code] = len(compiled)
            compiled.append(cpp)
        case_of.append((codes[code], cpp.params(dict(c.env))))
    out: list[HostRun | None] = [None] * len(cases)
    # a few structures per program: a static_assert isolates its case by recompiling the program without it
    for start in range(0, len(compiled), CHUNK):
        binary = cute_cpp.build(compiled[start:start + CHUNK], unit=_unit)
        todo = []
        for qid, (cid, params) in enumerate(case_of):
            if not start <= cid < start + CHUNK:
                continue
            if cid - start in binary.rejected:
                out[qid] = HostRun(rejected=binary.rejected[cid - start])
            else:
                todo.append((qid, cid - start, params))
        while todo:
            text = "".join(f"{q} {c} {len(p)} {' '.join(map(str, p))}\n" for q, c, p in todo)
            proc = subprocess.run([str(binary.path)], input=text, capture_output=True, text=True, timeout=600,
                                  check=False)
            done = _parse(proc.stdout)
            for qid, run in done.items():
                out[qid] = run
            left = [t for t in todo if t[0] not in done]
            if len(left) == len(todo):
                raise RuntimeError(f"the make_tma_copy program answered nothing (exit {proc.returncode}): "
                                   f"{proc.stdout[-1000:]}")
            todo = left
    return [r for r in out if r is not None]


def _parse(stdout: str) -> dict[int, HostRun]:
    runs: dict[int, HostRun] = {}
    for block in stdout.split("@@BEGIN ")[1:]:
        head, _, body = block.partition("\n")
        if "@@END" not in body:
            continue  # the program died inside this query: it is run again
        rank = re.search(r"@@RANK (\d+)", body)
        desc = re.search(r"@@DESC((?: \d+)+)", body)
        pairs: tuple[tuple[int, int], ...] = ()
        if desc:
            nums = [int(x) for x in desc.group(1).split()]
            pairs = tuple(zip(nums[0::2], nums[1::2], strict=True))
        line = None
        if "@@ABORT" in body:
            m = re.search(r"copy_traits_sm90_tma\.hpp:(\d+)", body)
            line = int(m.group(1)) if m else -1
        runs[int(head)] = HostRun(None, line, int(rank.group(1)) if rank else 0, pairs)
    return runs


def _symbols(c: Case) -> Symbols:
    symbols = Symbols()
    for name, _ in c.env:
        symbols.declare(name, lo=-(2**63), hi=2**63 - 1, bits=64) if name in c.wide else \
            symbols.declare(name, lo=-(2**31), hi=INT32_MAX)
    return symbols


# -- the tool's answer, and the judge -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    verdict: str
    refuted: tuple[str, ...]
    rejected: bool
    modes: tuple[tuple[int, int] | None, ...]  # the tool's (gmem extent, gmem stride in elements) of each box mode


def decide(c: Case) -> Answer:
    """The tool's answer on the case's values, as ``cute-verify make_tma_box ... --param`` gives it."""
    from verifier.algebra import tma
    from verifier.engine.problem import Operation
    from verifier.engine.problem import decide as decide_problem
    from verifier.notation.cpp import parse
    from verifier.run.problems import substitute

    symbols = _symbols(c)
    args = substitute([c.bits, parse(c.smem, symbols), parse(c.gmem, symbols)], symbols, dict(c.env))
    v = decide_problem(Operation("make_tma_box", tuple(args), Symbols()))  # concrete: no symbol left to guard
    refuted = tuple(d.id for d in v.obligations if d.status == "refuted")
    rejected = v.verdict == "invalid" and not v.obligations
    modes: tuple[tuple[int, int] | None, ...] = ()
    if not rejected:
        modes = tma.descriptor(c.bits, args[1], args[2])
    return Answer(v.verdict, refuted, rejected, modes)


def judge(c: Case, a: Answer, r: HostRun) -> str | None:
    """Why the tool's answer contradicts compiled CuTe (None: it agrees)."""
    if r.rejected is not None or a.rejected:
        return None if (r.rejected is not None) == a.rejected else "compile-time rejection differs"
    faithful = _faithful(c, a, r)
    if a.verdict == "valid":
        if r.line is not None:
            return f"valid, but make_tma_copy asserts at copy_traits_sm90_tma.hpp:{r.line}"
        if not faithful:
            return f"valid, but CuTe's descriptor {r.desc[:r.rank]} is not the layout's {a.modes}"
        return None
    if a.verdict != "invalid":
        return None  # unknown: no claim to judge
    checked = [i for i in CUTE_CHECKED if i in a.refuted]
    if r.line is not None:
        if r.checked == "the gmem address alignment":
            return "the gmem address assert fired (the harness's pointer is aligned)"
        if checked and checked[0] == r.checked:
            return None
        # a refutation CuTe reaches later: only where the descriptor CuTe fills is not the layout's, or is computed
        # from a negative stride (its uint64_t gcd and recurrence, :876-888), so that the order of CuTe's asserts
        # comes from values the layout never has
        negative = any(stride < 0 for mode in a.modes if mode is not None for stride in mode[1:]) or \
            _negative_stride(c)
        if r.checked in checked and (not faithful or negative):
            return None
        return f"CuTe asserts {r.checked} first, the tool refutes {checked or list(a.refuted)}"
    if checked and faithful:
        return f"the tool refutes {checked}, but make_tma_copy passes with the layout's own descriptor"
    return None


def _faithful(c: Case, a: Answer, r: HostRun) -> bool:
    """Whether the descriptor CuTe filled is the layout's: each box mode's extent, and its stride in bytes (the
    first mode's stride is the element, not stored)."""
    if len(a.modes) != r.rank:
        return False
    for k, (mode, (cute_extent, cute_bytes)) in enumerate(zip(a.modes, r.desc, strict=False)):
        if mode is None:
            continue  # coalesce_256's Layout<_1,_0>: no gmem mode
        extent, stride = mode
        if extent != cute_extent:
            return False
        if k and stride * c.bits != cute_bytes * 8:
            return False
    return True


# -- the generator --------------------------------------------------------------------------------------------------

_SMEM = {  # (smem text, by element width): K-major and M-major tiles, with the swizzles make_tma_copy accepts
    8: ["Sw<3,4,3> o _0 o (_8,_128):(_128,_1)", "Sw<2,4,3> o _0 o (_16,_64):(_64,_1)", "(_16,_16):(_16,_1)",
        "(_64,_32):(_1,_64)", "Sw<1,4,3> o _0 o (_32,_32):(_32,_1)", "(_8,_512):(_512,_1)"],
    16: ["Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_8):(_1,_64)", "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)",
         "Sw<2,4,3> o _0 o (_64,_32):(_32,_1)", "(_64,_8):(_1,_64)", "(_32,_4):(_4,_1)", "(_64,_64):(_64,_1)",
         "Sw<3,4,3> o _0 o (_64,_128):(_128,_1)"],
    32: ["Sw<3,4,3> o _0 o (_8,_32):(_32,_1)", "(_32,_8):(_1,_32)", "Sw<2,4,3> o _0 o (_16,_16):(_16,_1)",
         "(_16,_2):(_2,_1)"],
    64: ["Sw<3,4,3> o _0 o (_8,_16):(_16,_1)", "(_16,_8):(_1,_16)", "(_8,_8):(_8,_1)"],
}


def _extent(rng: random.Random, wide: bool) -> int:
    top = 2**63 - 1 if wide else INT32_MAX
    pool = [1, 2, 7, 8, 64, 100, 1000, 65536, INT32_MAX, INT32_MAX - 1, 2**31 - 64, 0, -1, -64]
    if wide:
        pool += [2**32, 2**32 + 1, 2**32 - 1, 2**33, -(2**32), 2**62]
    return min(top, rng.choice(pool) if rng.random() < 0.8 else rng.randint(1, 4096))


def _stride(rng: random.Random, wide: bool, bits: int, unit: int) -> int:
    """A gmem stride in elements; ``unit`` is a natural one (the extent of the mode before)."""
    e = 8 // bits if bits < 8 else max(1, bits // 8)  # bytes per element
    near40 = (1 << 40) // e
    pool = [unit, 2 * unit, unit + 1, 0, -1, -unit, -64, 16 // e or 1, 8, 1, 3]
    pool += [INT32_MAX, -(2**31)] if not wide else [near40, near40 - 16 // e, near40 + 16 // e, near40 - 1,
                                                     -near40, 2**60 // e, 2**60 // e + 16, -(2**60 // e),
                                                     2**62, -(2**62), 2**40, 2**36]
    v = rng.choice(pool) if rng.random() < 0.85 else rng.randint(-(1 << 20), 1 << 20)
    lo, hi = (-(2**63), 2**63 - 1) if wide else (-(2**31), INT32_MAX)
    return max(lo, min(hi, v))


def draw(rng: random.Random) -> tuple[int, str, str, frozenset[str], list[str], list[str]]:
    """A structure: width, smem, gmem text over symbols, the 64-bit symbols, and the extent and stride symbols."""
    bits = rng.choice(sorted(_SMEM))
    smem = rng.choice(_SMEM[bits])
    m_major = smem.rstrip(")").endswith(":(_1,_64") or "):(_1," in smem
    rank = rng.choice([2, 2, 2, 3, 3, 4, 6])
    shape = [f"g{i}" for i in range(rank)]
    stride = [f"d{i}" for i in range(rank)]
    inner = 0 if m_major else 1  # the gmem mode the smem's contiguous mode walks
    if rng.random() < 0.8:
        stride[inner] = "_1"
    if rng.random() < 0.15:
        stride[rng.randrange(rank)] = rng.choice(["_0", "_-64", "_64"])
    if rng.random() < 0.1:
        shape[rng.randrange(rank)] = rng.choice(["_1", "_8", "_64"])
    wide = frozenset(s for s in (*shape, *stride) if not s.startswith("_") and rng.random() < 0.5)
    gmem = f"({','.join(shape)}):({','.join(stride)})"
    return bits, smem, gmem, wide, [s for s in shape if not s.startswith("_")], \
        [s for s in stride if not s.startswith("_")]


def values(rng: random.Random, bits: int, wide: frozenset[str], extents: list[str], strides: list[str]
           ) -> tuple[tuple[str, int], ...]:
    env: dict[str, int] = {}
    for name in extents:
        env[name] = _extent(rng, name in wide)
    unit = 1
    for name in strides:
        env[name] = _stride(rng, name in wide, bits, unit)
        unit = max(1, abs(env[name])) * 64
    if rng.random() < 0.5:  # a well-formed neighbour: positive extents, aligned strides
        for name in extents:
            env[name] = rng.choice([64, 128, 1000, 4096])
        for k, name in enumerate(strides):
            env[name] = (k + 1) * 4096 if rng.random() < 0.8 else env[name]
    return tuple(sorted(env.items()))


def cases(count: int, seed: int, per_structure: int = 40) -> list[Case]:
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < count:
        bits, smem, gmem, wide, extents, strides = draw(rng)
        for _ in range(min(per_structure, count - len(out))):
            out.append(Case(bits, smem, gmem, values(rng, bits, wide, extents, strides), wide))
    return out


def symbolic(structure: list[Case], budget_units: int = 2_000_000) -> tuple[str, list[Case]]:
    """The tool's answer on ``structure``'s gmem with its symbols free over the range of the drawn values (each
    ``--symbol NAME=LO..HI``), and the cases that judge it: a ``valid`` answer is judged by every drawn case (each
    lies in the range, and each must pass make_tma_copy with the layout's descriptor), an ``invalid`` one by its
    counterexample, run as one more case."""
    from verifier.engine.problem import Operation
    from verifier.engine.problem import decide as decide_problem
    from verifier.notation.cpp import parse
    from verifier.solver.budget import Budget

    first = structure[0]
    symbols = Symbols()
    for name, _ in first.env:
        vals = [dict(c.env)[name] for c in structure]
        lo = max(0, min(vals)) if name in _extents(first) else min(vals)  # a symbolic extent is a size (>= 0)
        if lo > max(vals):
            return "skipped", []
        symbols.table[name] = declaration(name, lo, max(vals), bits=64 if name in first.wide else 32)
    args = [first.bits, parse(first.smem, symbols), parse(first.gmem, symbols)]
    v = decide_problem(Operation("make_tma_box", tuple(args), symbols, derive=False,
                                 budget=Budget(rlimit=budget_units)))
    if v.verdict == "valid":
        return "valid", [c for c in structure if all(symbols.table[k].admits(x) for k, x in c.env)]
    if v.verdict == "invalid" and v.counterexample is not None:
        env = {name: v.counterexample.params.get(name, dict(first.env)[name]) for name, _ in first.env}
        return "invalid", [Case(first.bits, first.smem, first.gmem, tuple(sorted(env.items())), first.wide)]
    return v.verdict, []


def _negative_stride(c: Case) -> bool:
    """Some gmem stride, static or run-time, is negative at the case's values (a mode the tool leaves out of its
    answer, merged past the TMA's five, included)."""
    from verifier.core.int_tuple import leaves
    from verifier.core.integers import Int, substitute
    from verifier.core.layouts import Layout
    from verifier.notation.cpp import parse

    layout = parse(c.gmem, _symbols(c))
    if not isinstance(layout, Layout):
        return False
    env = dict(c.env)
    return any(isinstance(d, Int) and int(substitute(d, env)) < 0 for d in leaves(layout.stride))


def _extents(c: Case) -> set[str]:
    """The symbols of the gmem layout's shape."""
    from verifier.core.layouts import Layout
    from verifier.core.operands import symbols as names
    from verifier.notation.cpp import parse

    layout = parse(c.gmem, _symbols(c))
    return names(layout.shape) if isinstance(layout, Layout) else set()


def run(count: int, seed: int) -> Report:
    # a structure is one make_tma_copy instantiation to compile (seconds); values are free: a long run draws more
    # values per structure rather than more compiles
    drawn = cases(count, seed, per_structure=max(40, count // 40))
    # each structure once more with its symbols free over the drawn range: a valid answer must hold at every drawn
    # value, an invalid one's counterexample must fail on compiled CuTe
    groups: dict[tuple[int, str, str, frozenset[str]], list[Case]] = {}
    for c in drawn:
        groups.setdefault((c.bits, c.smem, c.gmem, c.wide), []).append(c)
    claims = [symbolic(structure) for structure in groups.values() if structure[0].env]
    extra = [c for verdict, judged_by in claims if verdict == "invalid" for c in judged_by]
    hosts = host_runs(drawn + extra)
    host_of = dict(zip(drawn + extra, hosts, strict=True))
    verdicts: dict[str, int] = {}
    bad = []
    judged = 0

    def disagree(c: Case, tool: str, r: HostRun) -> None:
        cute = ("rejected at compile time" if r.rejected else
                f"asserts at copy_traits_sm90_tma.hpp:{r.line}" if r.line is not None else
                f"passes; descriptor {r.desc[:r.rank]}")
        bad.append(Disagreement(FAMILY, c.command, tool, cute))

    for c in drawn + extra:
        a = decide(c)
        verdicts[a.verdict] = verdicts.get(a.verdict, 0) + 1
        judged += a.verdict in ("valid", "invalid")
        why = judge(c, a, host_of[c])
        if why is not None:
            disagree(c, f"{a.verdict} {list(a.refuted)}: {why}", host_of[c])
    for verdict, judged_by in claims:
        key = f"symbolic {verdict}"
        verdicts[key] = verdicts.get(key, 0) + 1
        for c in judged_by:
            judged += 1
            r = host_of[c]
            a = decide(c)
            if verdict == "valid" and (a.verdict != "valid" or judge(c, a, r) is not None):
                disagree(c, f"valid over the drawn range, but at these values {a.verdict} {list(a.refuted)}", r)
            if verdict == "invalid" and a.verdict != "invalid":
                disagree(c, f"a counterexample that does not replay ({a.verdict} at its values)", r)
    return Report(FAMILY, len(drawn) + len(claims), judged, verdicts, tuple(bad))
