"""CuTe's own headers as the semantics: compiled CuTe run on symbolic run-time integers, every path explored.

A case is the C++ call ``oracle.cute_cpp`` generates for an operation, with ``SymbolicBuilder`` spelling its
run-time integers as ``cute_symbolic::Int<T>`` (``include/cute_symbolic.hpp``): a symbol is a variable of the
expression DAG, a known run-time value a literal.  The program prints CuTe's ``print`` of the result with each
dynamic leaf as a reference to its node, the DAG, the decisions the run took (a symbolic comparison converted to
``bool``) and the obligations it incurred (each ``/`` and ``%``: its divisor nonzero; each signed operation: its
exact result in its type; each shift: its amount in range; each narrowing conversion: its value kept).

The run is concolic: the program reads values of the symbols and follows them.  ``explore`` starts from values
the assumptions admit, and after each run asks the solver (``solver.paths``) for values that keep the first i
decisions and flip decision i; every such query is answered once, so the paths found cover every admitted value
(where no divisor is zero) when the exploration completes.  Past ``max_paths`` paths, or where the solver cannot
answer, the exploration is ``unknown`` and names the decision's place (``file:line`` by addr2line).

Many cases are compiled into one translation unit (``cute_cpp.build``'s cache) and each round of runs is one
process.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from verifier.core.errors import UndefinedBehavior
from verifier.core.integers import Bool, Const, Expr, Op, Sym, and_, not_
from verifier.core.symbols import Symbols
from verifier.oracle import cute_cpp
from verifier.oracle.cute_cpp import Binary, CppBuilder, CppCase, Slot
from verifier.solver.budget import UNITS_PER_SECOND, Budget
from verifier.solver.paths import satisfy

INCLUDE = Path(__file__).resolve().parent / "include"
HEADER = INCLUDE / "cute_symbolic.hpp"
# A dynamic leaf of CuTe's print, as the program writes it: a reference to its node.
NODE_REF = re.compile(r"v__(\d+)")
_SLOT_NAME = re.compile(r"\bp\d+\b")
# Per decision query: a small problem over a handful of symbols.
DECISION_UNITS = 2 * UNITS_PER_SECOND


class Unencodable(Exception):
    """A node the expression language cannot state (a bit operation on run-time values)."""


class SymbolicBuilder(CppBuilder):
    """``CppBuilder`` whose run-time integers are symbolic: a symbol is ``cute_symbolic::var<T>("pK", p[K])`` (its
    slot number as its name: no text of a user reaches the compiler), a known dynamic value a literal."""

    def _slot_for_value(self, v: int) -> str:
        self.slots.append(Slot(value=int(v)))
        return f"cute_symbolic::lit<int>(p[{len(self.slots) - 1}])"

    def _slot_for_symbol(self, name: str) -> str:
        if name not in self._symbol_slot:
            self.slots.append(Slot(symbol=name))
            self._symbol_slot[name] = len(self.slots) - 1
        k = self._symbol_slot[name]
        return f'cute_symbolic::var<{self._type(name)}>("p{k}", p[{k}])'

    def _expr(self, e: Expr) -> str:
        if type(e) is Const:
            return f"cute_symbolic::lit<int>({int(e.value)})"
        return super()._expr(e)

    def int(self, x: object) -> str:
        from verifier.core.integers import Int

        if not isinstance(x, Int):
            raise TypeError(f"cannot generate C++ for {type(x).__name__} as an integer")
        if x.static or type(x.expr) is Const:
            return super().int(x)
        return (f"cute_symbolic::cast<{self._type(*x.expr.symbols())}>("
                f"cute_symbolic::quietly([&] {{ return {self._expr(x.expr)}; }}))")

    def counting(self) -> str:
        return "counting_iterator<cute_symbolic::Int<long long>>(cute_symbolic::lit<long long>(0))"


_PRELUDE = r"""
#include <cute_symbolic.hpp>
#include <cute/tensor.hpp>
#include <cute/swizzle_layout.hpp>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <vector>
using namespace cute;

static sigjmp_buf g_jump;
static void on_signal(int) { siglongjmp(g_jump, 1); }

template <class T> struct is_layout_offset : cute::false_type {};
template <class L, class O> struct is_layout_offset<cute::tuple<L, O>> : cute::is_layout<L> {};
template <class T> void emit_printed(T const& v) {
  cute_symbolic::graph().print_refs = true;
  printf("@@RESULT "); print(v); printf("\n");
  cute_symbolic::graph().print_refs = false;  // CuTe's print form with the expressions at the dynamic leaves
  printf("@@PRINT "); print(v); printf("\n");
  cute_symbolic::graph().print_refs = true;
}
template <class T> void emit(T const& r) {
  cute_symbolic::graph().print_refs = true;
  if constexpr (cute::is_tensor<T>::value) {
    printf("@@OFFSET "); print(*r.data()); printf("\n");
    emit_printed(r.layout());
  } else if constexpr (is_layout_offset<T>::value) {
    printf("@@OFFSET "); print(get<1>(r)); printf("\n");
    emit_printed(get<0>(r));
  } else {
    emit_printed(r);
  }
  cute_symbolic::dump();
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
    cute_symbolic::graph().reset();
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


# Headers a program may add to the prelude's (the atoms, for TiledMMA / TiledCopy cases; the TMA box's): a fixed
# list, so that no text of a caller reaches the compiler.
ATOM_HEADERS = ("cute/atom/mma_atom.hpp", "cute/atom/copy_atom.hpp", "cute/atom/mma_traits_sm80.hpp",
                "cute/atom/copy_traits_sm80.hpp", "cute/atom/mma_traits_sm90_gmma.hpp",
                "cute/atom/copy_traits_sm90_tma.hpp")


def _unit(cases: Sequence[CppCase], rejected: set[int], atoms: bool = False
          ) -> tuple[str, dict[int, tuple[int, int]]]:
    lines = _PRELUDE.strip("\n").split("\n")
    if atoms:
        lines[3:3] = [f"#include <{h}>" for h in ATOM_HEADERS]
    spans: dict[int, tuple[int, int]] = {}
    for k, case in enumerate(cases):
        start = len(lines) + 1
        if k in rejected:
            lines.append(f"static void case_{k}(const long long*, long long) {{ printf(\"@@REJECTED\\n\"); }}")
        else:
            lines.append(f"static void case_{k}(const long long* p, long long) {{")
            lines.append(f"  auto r = {case.code};")
            lines.append("  emit(r);")
            lines.append("}")
        spans[k] = (start, len(lines))
    lines.append("typedef void (*case_fn)(const long long*, long long);")
    lines.append(f"static const long long kCases = {len(cases)};")
    lines.append(f"static case_fn kTable[] = {{{', '.join(f'case_{k}' for k in range(len(cases))) or 'nullptr'}}};")
    lines.extend(_MAIN.strip("\n").split("\n"))
    return "\n".join(lines) + "\n", spans


# The header is part of the program: its text keys the cache through the flag that names its digest.
@functools.cache
def _header_flags() -> tuple[str, ...]:
    import hashlib

    digest = hashlib.sha256(HEADER.read_bytes()).hexdigest()[:16]
    return (f"-I{INCLUDE}", "-g1", f"-DCUTE_SYMBOLIC_DIGEST=0x{digest}")


def build(cases: Sequence[CppCase], atoms: bool = False) -> Binary:
    """The cases compiled into one symbolic program (cached by ``cute_cpp.build``); rejected cases isolated.
    ``atoms``: with CuTe's MMA and copy atoms (``ATOM_HEADERS``)."""
    unit = functools.partial(_unit, atoms=True) if atoms else _unit
    return cute_cpp.build([CppCase(c.code, ()) for c in cases], unit=unit, flags=_header_flags())


# -- reading a run ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    op: str
    type: str
    lit: int
    name: str
    args: tuple[int, ...]


@dataclass(frozen=True)
class Obligation:
    kind: str        # DIV0, OVF, SHIFT, NARROW (cute_symbolic.hpp)
    condition: Bool  # must hold
    where: int       # the caller's address in the binary (place())


@dataclass(frozen=True)
class Run:
    """One run of one case: CuTe's printed result with each dynamic leaf a node reference, the leaves' values as
    expressions, the decisions taken and the obligations incurred."""

    result: str | None = None
    offset: str | None = None
    leaves: Mapping[int, Expr] = field(default_factory=dict)
    decisions: tuple[tuple[Bool, int], ...] = ()   # (the condition as taken, the caller's address)
    obligations: tuple[Obligation, ...] = ()
    rejected: str | None = None
    ub: bool = False
    unencodable: str | None = None  # a leaf, decision or obligation the expression language cannot state
    printed: str | None = None  # CuTe's print of the result with each dynamic leaf's expression (a tensor: its layout)


def _wrap(e: Expr, bits: int) -> Expr:
    m = Const(1 << bits)
    return Op("%", (Op("+", (Op("%", (e, m)), m)), m))


def _fold(e: Expr) -> Expr:
    if isinstance(e, Op) and not any(True for _ in e.symbols()):
        try:
            v = e.evaluate({})
        except UndefinedBehavior:
            return e
        return Const(bool(v)) if e.op in _BOOLEAN else Const(int(v))
    return e


_BOOLEAN = frozenset({"==", "!=", "<", "<=", ">", ">=", "and", "or", "not"})
_PLAIN = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "min": "min", "max": "max", "abs": "abs",
          "signum": "signum", "gcd": "gcd", "lcm": "lcm", "z+": "+", "z-": "-", "z*": "*", "z/": "/",
          "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "and": "and", "not": "not"}


def _bits(t: str) -> int:
    return int(t[1:]) if t[:1] in "iu" else 0


class Translator:
    """The nodes of one run as the tool's expressions: a signed node is its mathematical value (exact while its
    OVF obligations hold), an unsigned one its value modulo 2^bits; ``pK`` is the symbol of slot K."""

    def __init__(self, nodes: Mapping[int, Node], names: Mapping[str, str]) -> None:
        self.nodes = nodes
        self.names = names
        self.memo: dict[int, Expr] = {}

    def __call__(self, k: int) -> Expr:
        got = self.memo.get(k)
        if got is None:
            got = self.memo[k] = _fold(self._node(self.nodes[k]))
        return got

    def _node(self, n: Node) -> Expr:
        if n.op == "var":
            return Sym(self.names[n.name])
        if n.op == "lit":
            return Const(n.lit % (1 << 64) if n.type == "u64" else n.lit)
        args = [self(a) for a in n.args]
        unsigned = n.type.startswith("u")
        if n.op == "cast":
            src = self.nodes[n.args[0]].type
            if unsigned and not src.startswith("u"):
                return _wrap(args[0], _bits(n.type))
            return args[0]  # a narrowing one records NARROW: its value is kept where that holds
        if n.op == "ite":  # a select on a symbolic condition (cute_symbolic::select): no decision
            return Op("ite", tuple(args))
        if n.op in ("neg", "zneg"):
            e: Expr = Op("neg", (args[0],))
            return _wrap(e, _bits(n.type)) if unsigned else e
        if n.op == "zabs":
            return Op("abs", (args[0],))
        if n.op in ("<<", "z<<", ">>"):
            amount = args[1]
            if type(amount) is not Const or not 0 <= int(amount.value) < 128:
                raise Unencodable(f"a shift by a run-time amount ({n.op})")
            k = Const(1 << int(amount.value))
            if n.op == ">>":  # an arithmetic shift: floor division
                x = args[0]
                if unsigned:
                    return Op("/", (x, k))
                return Op("ite", (Op(">=", (x, Const(0))), Op("/", (x, k)),
                                  Op("/", (Op("-", (x, Const(int(k.value) - 1))), k))))
            e = Op("*", (args[0], k))
            return _wrap(e, _bits(n.type)) if unsigned and n.op == "<<" else e
        if n.op in _PLAIN:
            e = Op(_PLAIN[n.op], tuple(args))
            if unsigned and n.op in ("+", "-", "*"):
                return _wrap(e, _bits(n.type))
            return e
        if all(type(a) is Const for a in args) and n.op in ("&", "|", "^", "~"):
            vals = [int(a.value) for a in args]  # type: ignore[attr-defined]
            bits = _bits(n.type)
            r = {"&": lambda: vals[0] & vals[1], "|": lambda: vals[0] | vals[1], "^": lambda: vals[0] ^ vals[1],
                 "~": lambda: ~vals[0]}[n.op]()
            if unsigned:
                return Const(r % (1 << bits))
            return Const(((r + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)))
        raise Unencodable(f"the bit operation {n.op!r} on run-time values")


def _parse_runs(stdout: str, names_of: Sequence[Mapping[str, str]]) -> dict[int, Run]:
    runs: dict[int, Run] = {}
    qid: int | None = None
    fields: dict[str, str] = {}
    nodes: dict[int, Node] = {}
    decisions: list[tuple[int, int, int]] = []
    obligations: list[tuple[str, int, int]] = []
    for line in stdout.split("\n"):
        if line.startswith("@@BEGIN "):
            qid = int(line.split()[1])
            fields, nodes, decisions, obligations = {}, {}, [], []
        elif line.startswith("@@NODE ") and qid is not None:
            parts = line.split()
            nodes[int(parts[1])] = Node(parts[2], parts[3], int(parts[4]), parts[5],
                                        tuple(int(a) for a in parts[6:]))
        elif line.startswith("@@DECISION ") and qid is not None:
            _, c, taken, where = line.split()
            decisions.append((int(c), int(taken), int(where, 16)))
        elif line.startswith("@@OBLIGATION ") and qid is not None:
            _, kind, c, where = line.split()
            obligations.append((kind, int(c), int(where, 16)))
        elif line.startswith("@@END") and qid is not None:
            runs[qid] = _run(fields, nodes, decisions, obligations, names_of[qid])
            qid = None
        elif line.startswith("@@") and qid is not None:
            tag, _, rest = line[2:].partition(" ")
            fields[tag] = rest.strip()
    return runs


def _run(fields: Mapping[str, str], nodes: Mapping[int, Node], decisions: Sequence[tuple[int, int, int]],
         obligations: Sequence[tuple[str, int, int]], names: Mapping[str, str]) -> Run:
    if "REJECTED" in fields:
        return Run(rejected="rejected")
    if "PRINT" in fields:  # the variables are named by their slots (pK): their symbols' names put back
        fields = {**fields, "PRINT": _SLOT_NAME.sub(lambda m: names.get(m.group(0), m.group(0)), fields["PRINT"])}
    tr = Translator(nodes, names)
    try:
        refs = [int(m) for text in (fields.get("RESULT", ""), fields.get("OFFSET", ""))
                for m in NODE_REF.findall(text)]
        leaves = {k: tr(k) for k in refs}
        decs = tuple((Bool(tr(c), False) if taken else not_(Bool(tr(c), False)), where)
                     for c, taken, where in decisions)
        obls = tuple(Obligation(kind, Bool(tr(c), False), where) for kind, c, where in obligations)
    except Unencodable as exc:
        return Run(result=fields.get("RESULT"), offset=fields.get("OFFSET"), ub="UB" in fields,
                   unencodable=str(exc), printed=fields.get("PRINT"))
    return Run(fields.get("RESULT"), fields.get("OFFSET"), leaves, decs, obls, ub="UB" in fields,
               printed=fields.get("PRINT"))


def run(binary: Binary, cases: Sequence[CppCase], queries: Sequence[tuple[int, Mapping[str, int]]],
        timeout: float = 600.0) -> list[Run]:
    """Run each (case number, symbol values) on ``binary``, in one process."""
    lines = []
    names_of = []
    for qid, (k, env) in enumerate(queries):
        case = cases[k]
        lines.append(f"{qid} {k} 0 {len(case.slots)} {' '.join(map(str, case.params(env)))}")
        names_of.append({f"p{i}": s.symbol for i, s in enumerate(case.slots) if s.symbol is not None})
    proc = subprocess.run([str(binary.path)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=timeout, check=False)
    runs = _parse_runs(proc.stdout, names_of)
    out = []
    for qid, (k, _env) in enumerate(queries):
        if k in binary.rejected:
            out.append(Run(rejected=binary.rejected[k]))
        elif qid in runs:
            out.append(runs[qid])
        else:
            raise RuntimeError(f"the symbolic CuTe program gave no answer for query {qid} (exit {proc.returncode}): "
                               f"{proc.stderr[-2000:]}")
    return out


@functools.cache
def _addr2line(path: str, where: int) -> str:
    tool = shutil.which("addr2line")
    if tool is None or where == 0:
        return f"{Path(path).name}+{where:#x}"
    out = subprocess.run([tool, "-e", path, f"{where - 1:#x}"], capture_output=True, text=True, check=False)
    text = out.stdout.strip()
    if not text or text.startswith("??"):
        return f"{Path(path).name}+{where:#x}"
    file, _, line = text.partition(":")
    marker = "/include/"
    short = file.split(marker, 1)[1] if marker in file else Path(file).name
    return f"{short}:{line.split()[0]}"


def place(binary: Binary, where: int) -> str:
    """The source line of CuTe (``cute/layout.hpp:1094``) that made a decision or incurred an obligation."""
    return _addr2line(str(binary.path), where)


# -- exploring every path ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Path_:
    """One path: its condition (the decisions, as taken) and what CuTe computed on it."""

    condition: tuple[Bool, ...]
    run: Run
    env: Mapping[str, int]  # values that take it


@dataclass
class Exploration:
    """Every path of one case, or ``unknown`` with the reason and the place."""

    paths: list[Path_] = field(default_factory=list)
    unknown: str | None = None


def _initial(symbols: Symbols, budget: Budget) -> tuple[dict[str, int] | None, str]:
    status, values, why = satisfy(symbols, [], budget)
    if status == "sat" and values is not None:
        return values, ""
    return None, why or "the assumptions admit no value"


class Unexplorable(Exception):
    """A run whose paths cannot be followed (a loop bound by a run-time value): ``at`` is the caller's place."""

    def __init__(self, reason: str, at: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.at = at


R = TypeVar("R")


@dataclass
class Explored(Generic[R]):
    """The paths of one job (its decisions as taken, its run, values that take it), or where it stopped."""

    paths: list[tuple[tuple[Bool, ...], R, dict[str, int]]] = field(default_factory=list)
    unknown: str | None = None
    at: object = None  # the caller's place of the decision it stopped at (``place``), or an Unexplorable's
    runs: int = 0


def concolic(tables: Sequence[Symbols], starts: Sequence[dict[str, int]],
             run: Callable[[Sequence[tuple[int, dict[str, int]]]], Sequence[R]],
             decisions: Callable[[R], tuple[Bool, ...]], place: Callable[[R, int | None], object], *,
             max_paths: int) -> list[Explored[R]]:
    """The one concolic exploration (the symbolic back end's cases and ``cute-verify cpp``'s function): every
    feasible path of each job k (its symbols and assumptions ``tables[k]``, first run on ``starts[k]``), in rounds,
    each round one call of ``run`` on every pending (job, values).  After each new path, the solver is asked once
    for values that keep decisions [0, i) and flip decision i, for each i; the paths found cover every admitted
    value when no job stops.  A job stops (``unknown``, with ``place`` of the run and decision) past ``max_paths``
    paths, where the solver cannot answer, or where ``decisions`` raises ``Unexplorable``.

    A decision that reads a run-time value as a builtin is an equality with the value it read, and flipping it
    once only excludes that value; the run that follows reads another value at the same place, which must flip
    again with both excluded, until no value is left (a missed value is a wrong proof): each pending run carries
    the first decision that may flip and the conditions already excluded there."""
    results: list[Explored[R]] = [Explored() for _ in tables]
    seen: list[set[tuple[Expr, ...]]] = [set() for _ in tables]
    asked: list[set[tuple[Expr, ...]]] = [set() for _ in tables]
    pending: list[tuple[int, dict[str, int], int, tuple[Bool, ...]]] = [
        (k, dict(env), 0, ()) for k, env in enumerate(starts)]
    while pending:
        runs = run([(k, env) for k, env, _, _ in pending])
        nxt: list[tuple[int, dict[str, int], int, tuple[Bool, ...]]] = []
        for (k, env, start, excluded), r in zip(pending, runs):
            ex = results[k]
            if ex.unknown is not None:
                continue
            ex.runs += 1
            try:
                conds = decisions(r)
            except Unexplorable as exc:
                ex.unknown, ex.at = exc.reason, exc.at
                continue
            key = tuple(c.expr for c in conds)
            if key in seen[k]:
                continue
            seen[k].add(key)
            if len(ex.paths) >= max_paths:
                ex.unknown = f"more than {max_paths} paths"
                ex.at = place(r, len(conds) - 1 if conds else None)
                continue
            ex.paths.append((conds, r, dict(env)))
            for i in range(start, len(conds)):
                also = excluded if i == start else ()
                if also and any(conds[i].expr == e.expr for e in also):
                    continue  # a comparison flipped to its other side: nothing is left there
                prefix = (*key[:i], *(e.expr for e in also), not_(conds[i]).expr)
                if prefix in asked[k]:
                    continue
                asked[k].add(prefix)
                status, values, why = satisfy(tables[k], [*conds[:i], *also, not_(conds[i])],
                                              Budget(DECISION_UNITS))
                if status == "sat" and values is not None:
                    nxt.append((k, {**env, **values}, i, (*also, not_(conds[i]))))
                elif status == "unknown":
                    ex.unknown = f"the solver could not decide a branch: {why}"
                    ex.at = place(r, i)
                    break
        pending = [p for p in nxt if results[p[0]].unknown is None]
    return results


def explore(cases: Sequence[CppCase], tables: Sequence[Symbols], *, max_paths: int = 32,
            binary: Binary | None = None) -> tuple[Binary, list[Exploration]]:
    """Every feasible path of each case under its table's assumptions (``concolic``, one process per round)."""
    binary = binary or build(cases)
    results = [Exploration() for _ in cases]
    jobs: list[int] = []
    starts: list[dict[str, int]] = []
    for k, table in enumerate(tables):
        if k in binary.rejected:
            results[k].paths.append(Path_((), Run(rejected=binary.rejected[k]), {}))
            continue
        env, why = _initial(table, Budget(DECISION_UNITS))
        if env is None:
            results[k].unknown = f"no admitted value: {why}"
            continue
        jobs.append(k)
        starts.append(env)

    def decisions(r: Run) -> tuple[Bool, ...]:
        if r.unencodable is not None:
            raise Unexplorable(r.unencodable)
        return tuple(c for c, _ in r.decisions)

    def where(r: Run, i: int | None) -> object:
        return place(binary, r.decisions[i][1]) if i is not None else "?"

    found = concolic([tables[k] for k in jobs], starts,
                     lambda queries: run(binary, cases, [(jobs[j], env) for j, env in queries]),
                     decisions, where, max_paths=max_paths)
    for k, f in zip(jobs, found):
        results[k].paths = [Path_(conds, r, env) for conds, r, env in f.paths]
        if f.unknown is not None:
            results[k].unknown = f.unknown if f.at is None else f"{f.unknown} (a decision at {f.at})"
    return binary, results


def path_condition(p: Path_) -> Bool:
    return and_(*p.condition) if p.condition else Bool(Const(True), False)
