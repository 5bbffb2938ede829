"""The ``swizzle`` family: swizzles up to bit 31, composed-layout offsets and slices, judged against compiled CuTe.

Each case is drawn at a corner of ``Swizzle<B,M,S>`` and ``Sw o O o L`` (issue 29, classes 2-4): masks whose top bit
is 31 (a negative ``int`` constant, swizzle.hpp:66-68: arithmetic ``shiftr``, sign extension against an ``int64_t``
offset), parameters past bit 31 (which do not compile), offsets static and run-time, 0 and negative, strides near
2^30/2^31, 64-bit symbols near 2^31, 2^32 and 2^63, and slice coordinates at 0, below 0 and past the end.  Four kinds:

* ``compile``: ``Swizzle<B,M,S>`` is rejected by the tool exactly when g++ rejects it;
* ``eval``: the values of a concrete ``Sw o O o L`` at every coordinate, or the overflow the tool records where
  CuTe's own arithmetic overflows (UBSan traps it);
* ``check``: ``injective`` / ``bijective`` / ``in_bounds`` of ``Sw o O o L`` with a 32- or 64-bit symbol: a
  ``proved`` is replayed at the ends and inside the symbol's range, a counterexample at its own values;
* ``slice``: ``slice_and_offset((r,_), Sw o O o L)`` with ``r`` ranging over a window around the extent: a ``valid``
  is replayed at every admitted ``r`` (the view plus its offset against the tensor's own addressing
  ``L(make_coord(r, i))``, and a SLICE-IN warning wherever ``r`` can leave the extent), an ``invalid`` at its
  counterexample.

Every C++ program is built under UBSan with trapping (``-fsanitize=signed-integer-overflow``, a trap per case caught
by ``sigsetjmp``), many cases to one translation unit (``cute_cpp.build``, cached).  A concrete leaf is an ``int``
where its value fits and an ``int64_t`` otherwise, and coordinates are ``int``s, as the tool types a concrete value;
a 64-bit symbol is an ``int64_t`` whatever its value.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import D, Int, S, Sym, symbol
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout, Swizzle
from verifier.core.symbols import Symbols
from verifier.oracle.adversarial import Disagreement, Report

NAME = "swizzle"
INT32 = (-(1 << 31), (1 << 31) - 1)
UBSAN = ("-fsanitize=signed-integer-overflow", "-fsanitize-undefined-trap-on-error")
RLIMIT = 2_000_000  # each symbolic question's Z3 budget: an unknown is no disagreement, only a cost


# -- drawing -------------------------------------------------------------------------------------------------------


def draw_swizzle(rng: random.Random) -> tuple[int, int, int]:
    """``(B, M, S)`` at a corner: a mask whose top bit is 31 (Y for S > 0, Z for S < 0), one past it, or an
    ordinary one."""
    b = rng.randint(1, 3)
    k = rng.randint(b, b + 4)
    kind = rng.random()
    if kind < 0.35:  # yyy_msk reaches bit 31
        return b, 32 - b - k, k
    if kind < 0.55:  # zzz_msk reaches bit 31
        return b, 32 - b - k, -k
    if kind < 0.65:  # one bit further: no int constant
        return b, 33 - b - k, rng.choice([k, -k])
    if kind < 0.7:
        return rng.choice([(31, 0, 31), (0, 40, 0), (2, 0, 1), (1, 31, 0), (0, 31, 0)])
    return b, rng.randint(0, 4), rng.choice([k, -k])


def _value(rng: random.Random) -> int:
    """A run-time integer near a corner of int32 (and sometimes beyond, an int64_t)."""
    c = rng.random()
    if c < 0.2:
        return rng.choice([0, 1, -1, 2, -2])
    if c < 0.5:
        return rng.choice([1, -1]) * (1 << rng.randint(20, 30)) + rng.randint(-2, 2)
    if c < 0.6:
        return rng.choice([1, -1]) * ((1 << 31) - rng.randint(1, 64))
    if c < 0.7:
        return rng.choice([1, -1]) * (1 << rng.randint(31, 40)) + rng.randint(-3, 3)
    return rng.randint(-(1 << 31), (1 << 31) - 1)


_STATIC = (0, 1, 2, 4, 8, 64, -1, -64, 1 << 20)


def _leaf(rng: random.Random, v: int) -> Int:
    # Static leaves from a few values, so that cases share their compiled function (the values are run-time).
    return S(v) if v in _STATIC and rng.random() < 0.5 else D(v)


def draw_layout(rng: random.Random) -> Layout:
    rank = rng.choice([1, 2, 2])
    shape = tuple(S(rng.choice([1, 2, 3, 4, 8])) for _ in range(rank))
    stride = tuple(_leaf(rng, _value(rng) if rng.random() < 0.6 else rng.choice([1, 2, 4, 8, 64, -1])) for _ in
                   range(rank))
    return Layout(shape if rank > 1 else shape[0], stride if rank > 1 else stride[0])


def draw_offset(rng: random.Random) -> Int:
    c = rng.random()
    if c < 0.4:
        return S(0)
    if c < 0.5:
        return D(0)
    v = _value(rng)
    return _leaf(rng, v)


# -- compiled CuTe ---------------------------------------------------------------------------------------------------


@dataclass
class Program:
    """Cases for one batched program: C++ bodies over the parameters ``p[]``, each printing its values."""

    bodies: list[str] = field(default_factory=list)
    params: list[list[int]] = field(default_factory=list)

    def add(self, body: str, params: Sequence[int]) -> int:
        self.bodies.append(body)
        self.params.append([int(x) for x in params])
        return len(self.bodies) - 1

    def run(self, chunk: int = 120) -> list[Answer]:
        """Each case's printed integers, or its rejection by g++, or ``ub`` where UBSan trapped.  Cases with the
        same C++ text (the same static structure) share one compiled function; ``chunk`` functions to a
        translation unit, each compiled once and cached by its text."""
        unique: dict[str, int] = {}
        for b in self.bodies:
            unique.setdefault(b, len(unique))
        texts = list(unique)
        out: list[Answer | None] = [None] * len(self.bodies)
        for start in range(0, len(texts), chunk):
            local = {t: k for k, t in enumerate(texts[start:start + chunk])}
            mine = [(i, local[b]) for i, b in enumerate(self.bodies) if b in local]
            answers = self._run(texts[start:start + chunk], [(k, self.params[i]) for i, k in mine])
            for (i, _), a in zip(mine, answers, strict=True):
                out[i] = a
        return [a if a is not None else Answer() for a in out]

    @staticmethod
    def _run(bodies: list[str], queries: list[tuple[int, list[int]]]) -> list[Answer]:
        from verifier.oracle.cute_cpp import CppCase, build

        binary = build([CppCase(b, ()) for b in bodies], unit=_unit, flags=UBSAN)
        lines = [f"{q} {k} {len(p)} {' '.join(map(str, p))}" for q, (k, p) in enumerate(queries)
                 if k not in binary.rejected]
        proc = subprocess.run([str(binary.path)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              timeout=900, check=False)
        got: dict[int, Answer] = {}
        q = -1
        for line in proc.stdout.split("\n"):
            if line.startswith("@@BEGIN "):
                q = int(line.split()[1])
                got[q] = Answer(values=[])
            elif line.startswith("@@UB"):
                got[q] = Answer(ub=True)
            elif line.startswith("@@V") and q in got and got[q].values is not None:
                got[q].values.extend(int(x) for x in line.split()[1:])  # type: ignore[union-attr]
        out: list[Answer] = []
        for q, (k, _) in enumerate(queries):
            if k in binary.rejected:
                out.append(Answer(rejected=binary.rejected[k]))
            elif q in got:
                out.append(got[q])
            else:
                raise RuntimeError(f"the swizzle program gave no answer for query {q}: {proc.stderr[-2000:]}")
        return out


@dataclass
class Answer:
    values: list[int] | None = None
    ub: bool = False
    rejected: str | None = None


_HEAD = r"""
#include <cute/tensor.hpp>
#include <cute/swizzle_layout.hpp>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <vector>
using namespace cute;
static sigjmp_buf g_jump;
static void on_signal(int) { siglongjmp(g_jump, 1); }
template <class T> void put(T const& v) { printf(" %lld", (long long)(v)); }
"""

_MAIN = r"""
int main() {
  signal(SIGILL, on_signal); signal(SIGFPE, on_signal); signal(SIGSEGV, on_signal); signal(SIGTRAP, on_signal);
  long long qid, cid, n;
  while (scanf("%lld %lld %lld", &qid, &cid, &n) == 3) {
    std::vector<long long> p(n > 0 ? n : 1);
    for (long long k = 0; k < n; ++k) { if (scanf("%lld", &p[k]) != 1) return 3; }
    printf("@@BEGIN %lld\n@@V", qid);
    fflush(stdout);
    if (sigsetjmp(g_jump, 1) == 0) { kTable[cid](p.data()); printf("\n"); }
    else { printf("\n@@UB\n"); }
    fflush(stdout);
  }
  return 0;
}
"""


def _unit(cases: Sequence[object], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    lines = _HEAD.strip("\n").split("\n")
    spans: dict[int, tuple[int, int]] = {}
    for k, case in enumerate(cases):
        start = len(lines) + 1
        if k in rejected:
            lines.append(f"static void case_{k}(const long long*) {{}}")
        else:
            lines.append(f"static void case_{k}(const long long* p) {{")
            lines.append(f"  {case.code}")  # type: ignore[attr-defined]
            lines.append("}")
        spans[k] = (start, len(lines))
    table = ", ".join(f"case_{k}" for k in range(len(cases)))
    lines.append(f"static void (*kTable[])(const long long*) = {{{table}}};")
    lines.extend(_MAIN.strip("\n").split("\n"))
    return "\n".join(lines) + "\n", spans


class Cpp:
    """C++ text for model objects; run-time values read ``p[k]``: an ``int`` where the value fits (``int64_t``
    otherwise), a symbol as its declared width."""

    def __init__(self, wide: frozenset[str] = frozenset()) -> None:
        self.params: list[int] = []
        self.names: dict[str, int] = {}
        self.wide = wide

    def slot(self, v: int) -> str:
        self.params.append(v)
        kind = "int" if INT32[0] <= v <= INT32[1] else "int64_t"
        return f"{kind}(p[{len(self.params) - 1}])"

    def sym(self, name: str, v: int) -> str:
        if name not in self.names:
            self.names[name] = len(self.params)
            self.params.append(v)
        return f"{'int64_t' if name in self.wide else 'int'}(p[{self.names[name]}])"

    def leaf(self, x: Int, env: dict[str, int]) -> str:
        if x.static:
            return f"Int<{int(x)}>{{}}"
        if x.concrete:
            return self.slot(int(x))
        if type(x.expr) is not Sym:
            raise ValueError(f"a leaf is a constant or a bare symbol here, not {x}")
        return self.sym(x.expr.name, env[x.expr.name])

    def tup(self, t: object, env: dict[str, int]) -> str:
        if type(t) is tuple:
            return f"make_shape({', '.join(self.tup(x, env) for x in t)})"
        return self.leaf(t, env)  # type: ignore[arg-type]

    def composed(self, c: ComposedLayout, env: dict[str, int]) -> str:
        sw, inner = c.outer, c.inner
        assert isinstance(sw, Swizzle) and isinstance(inner, Layout)
        return (f"make_composed_layout(Swizzle<{sw.bits},{sw.base},{sw.shift}>{{}}, {self.leaf(c.offset, env)}, "
                f"make_layout({self.tup(inner.shape, env)}, {self.tup(inner.stride, env)}))")


def _values_body(c: ComposedLayout, env: dict[str, int], coords: Sequence[int], wide: frozenset[str]
                 ) -> tuple[str, list[int]]:
    """``L(c)`` at each 1-D coordinate of ``coords`` (an ``int``, or an ``int64_t`` beyond int32)."""
    cpp = Cpp(wide)
    layout = cpp.composed(c, env)
    first = len(cpp.params)
    cpp.params.extend([len(coords), *coords])
    body = (f"auto L = {layout}; long long n = p[{first}]; for (long long k = 0; k < n; ++k) {{ long long c = "
            f"p[{first + 1} + k]; if (c >= -2147483648LL && c <= 2147483647LL) put(L(int(c))); "
            "else put(L(int64_t(c))); }")
    return body, cpp.params


# -- the tool's answers, judged ---------------------------------------------------------------------------------


Judge = Callable[[list["Answer"]], None]


@dataclass
class Tally:
    cases: int = 0
    judged: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    bad: list[Disagreement] = field(default_factory=list)

    def count(self, verdict: str) -> None:
        self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1

    def disagree(self, case: str, tool: str, cute: str) -> None:
        self.bad.append(Disagreement(NAME, case, tool, cute))


def _model_eval(c: ComposedLayout) -> list[int] | None:
    """The tool's values of a concrete composed layout at every coordinate, or None where its overflow watch
    (core/overflow.py: each operation typed by its operands) records an overflow in CuTe's arithmetic."""
    from verifier.core.obligations import Recorder
    from verifier.core.overflow import watching

    inner = c.inner
    assert isinstance(inner, Layout)
    with Recorder() as rec, watching("eval"):
        values = [c(D(i)) for i in range(int(inner.size()))]
    if any(o.condition.value is False for o in rec.obligations):
        return None
    return [int(v) for v in values]


def _compile_cases(rng: random.Random, n: int, prog: Program, tally: Tally) -> list[Judge]:
    judges: list[Judge] = []
    for _ in range(n):
        b, m, s = draw_swizzle(rng)
        try:
            Swizzle(b, m, s)
            ours = "compiles"
        except (CuteRejection, LayoutError) as exc:
            ours = f"rejected: {exc}"
        v = _value(rng)
        k = prog.add(f"put(Swizzle<{b},{m},{s}>{{}}(int(p[0]))); put(Swizzle<{b},{m},{s}>{{}}(int64_t(p[1])));",
                     [max(min(v, INT32[1]), INT32[0]), v])
        tally.cases += 1

        def judge(ans: list[Answer], k: int = k, ours: str = ours, p: tuple[int, int, int] = (b, m, s),
                  v: int = v) -> None:
            a = ans[k]
            tally.judged += 1
            tally.count("rejected" if ours != "compiles" else "compiles")
            theirs = "rejected" if a.rejected is not None else "compiles"
            if (ours == "compiles") != (theirs == "compiles"):
                tally.disagree(f"Swizzle<{p[0]},{p[1]},{p[2]}>", ours, f"{theirs} {a.rejected or ''}")
            elif ours == "compiles" and a.values is not None:
                sw = Swizzle(*p)
                mine = [sw.apply_value(max(min(v, INT32[1]), INT32[0]), 32), sw.apply_value(v, 64)]
                if mine != a.values:
                    tally.disagree(f"Swizzle<{p[0]},{p[1]},{p[2]}> at int {mine} / int64_t {v}", str(mine),
                                   str(a.values))
        judges.append(judge)
    return judges


def _eval_cases(rng: random.Random, n: int, prog: Program, tally: Tally) -> list[Judge]:
    judges: list[Judge] = []
    for _ in range(n):
        try:
            sw = Swizzle(*draw_swizzle(rng))
        except (CuteRejection, LayoutError):
            continue
        c = ComposedLayout(sw, draw_offset(rng), draw_layout(rng))
        assert isinstance(c.inner, Layout)
        mine = _model_eval(c)
        body, params = _values_body(c, {}, list(range(int(c.inner.size()))), frozenset())
        k = prog.add(body, params)
        tally.cases += 1

        def judge(ans: list[Answer], k: int = k, c: ComposedLayout = c, mine: list[int] | None = mine) -> None:
            a = ans[k]
            tally.judged += 1
            tally.count("overflow" if mine is None else "values")
            if a.rejected is not None:
                tally.disagree(f"cute-verify eval '{c}'", str(mine), f"rejected: {a.rejected}")
            elif a.ub != (mine is None):
                tally.disagree(f"cute-verify eval '{c}'", "overflow" if mine is None else str(mine),
                               "UBSan: signed overflow" if a.ub else str(a.values))
            elif mine is not None and a.values != mine:
                tally.disagree(f"cute-verify eval '{c}'", str(mine), str(a.values))
        judges.append(judge)
    return judges


# -- symbolic questions -------------------------------------------------------------------------------------------


def _symbolic_layout(rng: random.Random, sw: Swizzle) -> tuple[ComposedLayout, Symbols, str, Int | None]:
    """``Sw o O o L`` with one symbol ``X`` (32- or 64-bit, its range near 2^31, 2^32 or 2^63) and, for
    in_bounds, the extent."""
    symbols = Symbols()
    wide = rng.random() < 0.5
    shape_kind = rng.random()
    if wide:  # every value of the layout, and its size, within int64 (beyond it CuTe's own size() overflows)
        lo = rng.choice([(1 << 31) - 8, (1 << 32) - 8, 1 << 33, 1 << 40, 1] + [(1 << 62) - 64] * (shape_kind < 0.4))
        hi = min(lo + rng.choice([16, 1 << 20, 1 << 34]), (1 << 62) if shape_kind < 0.4 else 1 << 58)
        symbols.declare("X", bits=64, lo=lo, hi=hi)
    else:
        lo = rng.choice([1, (1 << 29) - 4, (1 << 30) - 4, (1 << 31) - 64])
        symbols.declare("X", lo=lo, hi=min(lo + rng.choice([8, 1 << 12, 1 << 30]), INT32[1]))
    x = symbol("X")
    if shape_kind < 0.4:  # X:_1, the size a symbol
        inner = Layout(x, S(1))
    elif shape_kind < 0.7:
        inner = Layout((S(rng.choice([2, 4])), S(rng.choice([2, 4]))), (S(1), x))
    else:
        inner = Layout((S(rng.choice([2, 4])), x), (x, S(rng.choice([1, -1]))))
    offset = rng.choice([S(0), S(0), D(0), D(-rng.randint(1, 1 << 30)), S(rng.randint(1, 1 << 20))])
    return ComposedLayout(sw, offset, inner), symbols, "X", x


def _assignments(rng: random.Random, symbols: Symbols) -> list[dict[str, int]]:
    sym = symbols.table["X"]
    assert sym.hi is not None
    vals = {sym.lo, sym.hi, rng.randint(sym.lo, sym.hi), rng.randint(sym.lo, sym.hi)}
    return [{"X": v} for v in sorted(vals)]


def _coords(rng: random.Random, size: int) -> list[int]:
    if size <= 64:
        return list(range(size))
    picks = {0, 1, size - 1, size - 2, size // 2} | {rng.randrange(size) for _ in range(24)}
    picks |= {c for c in ((1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32) if 0 <= c < size}
    return sorted(c for c in picks if 0 <= c < size)


def _holds(prop: str, values: list[int], coords: list[int], size: int, extent: int | None) -> bool:
    """The property on CuTe's values at ``coords`` (all of them when ``coords`` covers the size)."""
    if prop == "in_bounds":
        assert extent is not None
        return all(0 <= v < extent for v in values)
    inj = len(set(values)) == len(values)
    if prop == "injective":
        return inj
    return inj and all(0 <= v < size for v in values)


def _check_cases(rng: random.Random, n: int, prog: Program, tally: Tally) -> list[Judge]:
    from verifier.engine.problem import Property, decide

    judges: list[Judge] = []
    for _ in range(n):
        try:
            sw = Swizzle(*draw_swizzle(rng))
        except (CuteRejection, LayoutError):
            continue
        c, symbols, _, x = _symbolic_layout(rng, sw)
        prop = rng.choice(["in_bounds", "injective", "bijective"])
        assert isinstance(c.inner, Layout)
        extent = c.inner.size() if prop == "in_bounds" and rng.random() < 0.5 else x
        args: list[object] = [c, extent] if prop == "in_bounds" else [c]
        text = f"check {prop} '{c}'" + (f" {extent}" if prop == "in_bounds" else "") + f" with {symbols.described()}"
        try:
            v = decide(Property(prop, tuple(args), symbols, rlimit=RLIMIT))
        except LayoutError as exc:
            tally.cases += 1
            tally.count(f"bad input ({str(exc)[:40]})")
            continue
        tally.cases += 1
        tally.count(v.verdict)
        wide = frozenset({"X"}) if symbols.table["X"].bits == 64 else frozenset()
        if v.verdict == "proved":
            envs = _assignments(rng, symbols)
        elif v.verdict == "refuted" and v.counterexample is not None:
            envs = [dict(v.counterexample.params)]
        else:
            continue
        for env in envs:
            size = int(c.inner.size().evaluate(env)) if not c.inner.size().concrete else int(c.inner.size())
            coords = _coords(rng, size)
            cex = v.counterexample
            if cex is not None and cex.coordinate is not None:
                extra = cex.coordinate if isinstance(cex.coordinate, tuple) else (cex.coordinate,)
                coords = sorted(set(coords) | {int(e) for e in extra if 0 <= int(e) < size})
            body, params = _values_body(c, env, coords, wide)
            k = prog.add(body, params)
            ext = None
            if prop == "in_bounds" and extent is not None:
                ext = int(extent) if extent.concrete else int(extent.evaluate(env))
            case = f"{text} at {env}"

            def judge(ans: list[Answer], k: int = k, verdict: str = v.verdict, case: str = case, size: int = size,
                      coords: list[int] = coords, ext: int | None = ext, prop: str = prop) -> None:
                a = ans[k]
                if a.ub:  # CuTe's own evaluation overflows here: check no_overflow's question, not this property's
                    tally.count("not judged: CuTe's evaluation overflows")
                    return
                tally.judged += 1
                if a.rejected is not None or a.values is None:
                    tally.disagree(case, verdict, f"rejected {a.rejected}")
                    return
                full = len(coords) == size
                holds = _holds(prop, a.values, coords, size, ext)
                if verdict == "proved" and not holds:
                    tally.disagree(case, "proved", f"fails: values {a.values[:16]}")
                if verdict == "refuted" and holds and (full or prop == "in_bounds"):
                    tally.disagree(case, "refuted", f"holds: values {a.values[:16]}")
            judges.append(judge)
    return judges


def _slice_cases(rng: random.Random, n: int, prog: Program, tally: Tally) -> list[Judge]:
    from verifier.engine.problem import Operation, decide
    from verifier.notation.cpp import parse

    judges: list[Judge] = []
    for _ in range(n):
        b = rng.randint(1, 3)
        m = rng.randint(0, 4)
        s = rng.choice([b, b + 1, 3 if b < 3 else b])
        if rng.random() < 0.25:  # a mask reaching bit 31: the offset's high bits meet it
            m = 32 - b - s
        sw = Swizzle(b, m, s)
        rows = rng.choice([4, 8, 16])
        cols = rng.choice([8, 16, 64])
        inner = Layout((S(rows), S(cols)), (S(cols), S(1))) if rng.random() < 0.7 else \
            Layout((S(rows), S(cols)), (S(1), S(rows)))
        off = rng.choice([0, 0, 8, 64, 512, -512, 1 << 20, -(1 << 30), (1 << 30) + 64, -(1 << 31) + 4096])
        offset = S(off) if off >= 0 and rng.random() < 0.5 else D(off)
        c = ComposedLayout(sw, offset, inner)
        lo = rng.choice([0, 0, 1, -3, rows - 2])
        hi = lo + rng.choice([2, rows, rows + 4])
        symbols = Symbols()
        symbols.declare("r", lo=lo, hi=hi)
        coord = parse("(r,_)", symbols)
        text = f"slice_and_offset '(r,_)' '{c}' with {lo} <= r <= {hi}"
        tally.cases += 1
        try:
            v = decide(Operation("slice_and_offset", (coord, c), symbols, rlimit=RLIMIT, derive=False))
        except LayoutError as exc:
            tally.count(f"bad input ({str(exc)[:40]})")
            continue
        tally.count(v.verdict)
        leaves_out = lo < 0 or hi >= rows
        slice_in = next((d for d in v.obligations if d.id == "SLICE-IN"), None)
        rejected = v.verdict == "invalid" and "rejects this at compile time" in (v.reason or "")
        if leaves_out and not rejected and (slice_in is None or slice_in.status != "refuted"):
            tally.disagree(text, f"{v.verdict}, SLICE-IN {slice_in.status if slice_in else 'missing'}",
                           "r leaves the extent: SLICE-IN must be reported")
        if not leaves_out and slice_in is not None and slice_in.status == "refuted":
            tally.disagree(text, "SLICE-IN refuted", "every admitted r lies inside the extent")
        if v.verdict == "valid":
            rs = list(range(lo, hi + 1))
        elif rejected:
            rs = [lo]
        elif v.verdict == "invalid" and v.counterexample is not None:
            rs = [int(v.counterexample.params["r"])]
        else:
            continue
        for r in rs:
            cpp = Cpp()
            layout = cpp.composed(c, {})
            k_r = cpp.slot(r)
            body = (f"auto L = {layout}; int r = {k_r}; auto so = slice_and_offset(make_coord(r, _), L); "
                    f"auto V = get<0>(so); long long o = (long long)(get<1>(so)); "
                    f"for (int i = 0; i < int(size(V)); ++i) put(o + (long long)V(i)); "
                    f"for (int i = 0; i < {cols}; ++i) put(L(make_coord(r, i)));")
            k = prog.add(body, cpp.params)
            case = f"{text} at r={r}"

            def judge(ans: list[Answer], k: int = k, verdict: str = v.verdict, case: str = case,
                      cols: int = cols, rejected: bool = rejected) -> None:
                a = ans[k]
                tally.judged += 1
                if rejected or a.rejected is not None:
                    if rejected != (a.rejected is not None):
                        tally.disagree(case, verdict, f"rejected: {a.rejected}" if a.rejected else "compiles")
                    return
                if a.ub or a.values is None:
                    if verdict == "valid":
                        tally.disagree(case, verdict, "UBSan: signed overflow")
                    return
                view, whole = a.values[:cols], a.values[cols:]
                agree = view == whole
                if verdict == "valid" and not agree:
                    tally.disagree(case, "valid", f"view {view[:8]} vs tensor {whole[:8]}")
                if verdict == "invalid" and agree:
                    tally.disagree(case, "invalid", f"the view addresses what the tensor does: {view[:8]}")
            judges.append(judge)
    return judges


def run(cases: int, seed: int) -> Report:
    """Draw ``cases`` inputs over the four kinds (compile and eval are cheap, check and slice ask the solver) and
    judge every answer against compiled CuTe."""
    rng = random.Random(seed)
    tally = Tally()
    prog = Program()
    n_check = max(1, cases // 16)  # the solver's cases cost seconds each, the compiled ones milliseconds
    n_slice = max(1, cases // 16)
    n_compile = max(1, cases // 4)
    n_eval = max(1, cases - n_check - n_slice - n_compile)
    judges = _compile_cases(rng, n_compile, prog, tally) + _eval_cases(rng, n_eval, prog, tally)
    judges += _check_cases(rng, n_check, prog, tally) + _slice_cases(rng, n_slice, prog, tally)
    answers = prog.run()
    for judge in judges:
        judge(answers)
    return Report(NAME, tally.cases, tally.judged, dict(tally.verdicts), tuple(tally.bad))


__all__ = ["Program", "draw_layout", "draw_swizzle", "run"]
