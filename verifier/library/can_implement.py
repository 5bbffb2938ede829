"""``can_implement``'s acceptance set, from the kernel's own code run on symbolic integers.

For a key, the instance CUTLASS's emitter writes (``derive.Instance``) is compiled once more into a program whose
kernel is the same ``GemmUniversal`` with two changes of *types*, nothing of CUTLASS's text changed:

* its ``ProblemShape`` ``Shape<int,int,int,int>`` becomes ``Shape<Int<int>,...>`` (``cute_symbolic::Int``, the
  symbolic run-time integer of ``oracle/include/cute_symbolic.hpp``), and
* in its collective mainloop and epilogue (the builders' ``CollectiveOp``s, taken as they are), every occurrence of
  ``StrideA``, ``StrideB``, ``StrideC`` and ``StrideD`` is replaced by the same tuple with its ``int64_t`` leaves
  ``Int<int64_t>`` (the static ``_1`` and ``_0`` stay).

The kernel's ``can_implement(Arguments)`` (hence the mainloop's and the epilogue's, and ``check_alignment``) then
runs on symbolic M, N, K, L and strides; ``oracle.symbolic.concolic`` follows every path.  The acceptance set is
the disjunction of the conditions of the paths that return true; each path's obligations (a signed ``int``
operation's exact result in range, a divisor nonzero) are where ``can_implement`` itself is defined.

What this needed of the symbolic integer: a default-constructed ``Int<T>`` is a constant expression (CUTLASS
builds ``StrideA{}`` in constant expressions, ``is_major<0, StrideA>()``), so ``cute_symbolic.hpp`` interns the
literal 0 of each type at a fixed node.  The builders are *not* given the symbolic strides (their selection of
atoms compares strides in ``if constexpr``): the built collectives' types are rewritten after.

The extents range over 0..2^31-1 (int, not negative), the strides over int64.  The ``mode`` argument is run as
``kGemm`` and as ``kBatched``; the answer is the set of each.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.core.integers import Bool, Const, and_, not_
from verifier.core.symbols import Symbols
from verifier.library import derive, parts
from verifier.oracle import cute_cpp, symbolic
from verifier.solver.budget import UNITS_PER_SECOND, Budget
from verifier.solver.paths import satisfy

INT32_MAX = 2**31 - 1
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
EXTENTS = ("M", "N", "K", "L")
OPERANDS = ("A", "B", "C", "D")
MODES = ("kGemm", "kBatched")
# Per comparison query (non-linear: products of the extents).
COMPARE_UNITS = 20 * UNITS_PER_SECOND
MAX_PATHS = 64

PRELUDE = r"""
// Type rewriting: every occurrence of Old in X (through X's type arguments) replaced by New.
template <class T> struct sym_identity { using type = T; };
template <class Old, class New, class X> struct sym_replace;
template <class Old, class New, class X> struct sym_replace_args { using type = X; };
template <class Old, class New, template <class...> class T, class... A>
struct sym_replace_args<Old, New, T<A...>> { using type = T<typename sym_replace<Old, New, A>::type...>; };
template <class Old, class New, class X> struct sym_replace {
  using type = typename std::conditional_t<std::is_same<Old, X>::value, sym_identity<New>,
                                           sym_replace_args<Old, New, X>>::type;
};
// A stride or problem shape with its run-time leaves symbolic.
template <class T> struct sym_leaf { using type = T; };
template <> struct sym_leaf<int> { using type = cute_symbolic::Int<int>; };
template <> struct sym_leaf<long> { using type = cute_symbolic::Int<long>; };
template <> struct sym_leaf<long long> { using type = cute_symbolic::Int<long long>; };
template <class S> struct sym_tuple { using type = S; };
template <class... T> struct sym_tuple<cute::tuple<T...>> { using type = cute::tuple<typename sym_leaf<T>::type...>; };
template <class C, class S> using sym_swap = typename sym_replace<S, typename sym_tuple<S>::type, C>::type;

// The emitted kernel (a struct deriving from GemmUniversal<...>) rewritten: symbolic problem shape and strides.
template <class PS, class CM, class CE, class TS, class E>
cutlass::gemm::kernel::GemmUniversal<PS, CM, CE, TS, E> const*
    sym_base(cutlass::gemm::kernel::GemmUniversal<PS, CM, CE, TS, E> const*);
void const* sym_base(void const*);
template <class K> struct sym_kernel { using type = void; };
template <class PS, class CM, class CE, class TS, class E>
struct sym_kernel<cutlass::gemm::kernel::GemmUniversal<PS, CM, CE, TS, E> const*> {
  using M1 = sym_swap<CM, typename CM::StrideA>;
  using M2 = sym_swap<M1, typename CM::StrideB>;
  using E1 = sym_swap<CE, typename CE::StrideC>;
  using E2 = sym_swap<E1, typename CE::StrideD>;
  using type = cutlass::gemm::kernel::GemmUniversal<typename sym_tuple<PS>::type, M2, E2, TS>;
};
template <class K> using sym_kernel_t = typename sym_kernel<decltype(sym_base((K const*)nullptr))>::type;

static const char* const kSlotName[] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11",
                                        "p12", "p13", "p14", "p15"};
template <int I, class S> void sym_set(S& s, const long long* p, int first) {
  if constexpr (I < (int)cute::tuple_size<S>::value) {
    using E = std::decay_t<decltype(cute::get<I>(s))>;
    if constexpr (cute_symbolic::is_sym<E>::value) {
      cute::get<I>(s) = cute_symbolic::var<typename E::value_type>(kSlotName[first + I], p[first + I]);
    }
  }
}
template <class S> void sym_strides(S& s, const long long* p, int first) {
  sym_set<0>(s, p, first); sym_set<1>(s, p, first); sym_set<2>(s, p, first);
}
// Whether mode I of the stride type S is symbolic (a leaf the harness sets).
template <int I, class S> int sym_is(int) {
  if constexpr (I < (int)cute::tuple_size<S>::value) {
    return cute_symbolic::is_sym<std::decay_t<decltype(cute::get<I>(S{}))>>::value ? 1 : 0;
  } else { return 0; }
}

// can_implement of the rewritten kernel: p = M N K L, then the strides of A B C D (3 each); mode 1: kBatched.
template <class Kernel> void sym_can_implement(const long long* p, int batched) {
  using K = sym_kernel_t<Kernel>;
  if constexpr (std::is_void<K>::value) {
    printf("@@RESULT -1\n");
  } else if constexpr (!plain_args<K>::value) {
    printf("@@RESULT -1\n");
  } else {
    using cute_symbolic::var;
    typename K::Arguments args{};
    args.mode = batched ? cutlass::gemm::GemmUniversalMode::kBatched : cutlass::gemm::GemmUniversalMode::kGemm;
    args.problem_shape = typename K::ProblemShape{var<int>("p0", p[0]), var<int>("p1", p[1]), var<int>("p2", p[2]),
                                                   var<int>("p3", p[3])};
    // A run-time cluster (SM100): the smallest admitted one, as Program.accepts passes it (derive's replay_hw_info).
    if constexpr (has_atom_thr<K>::value) args.hw_info = replay_hw_info<K>();
    sym_strides(args.mainloop.dA, p, 4);
    sym_strides(args.mainloop.dB, p, 7);
    sym_strides(args.epilogue.dC, p, 10);
    sym_strides(args.epilogue.dD, p, 13);
    using DA = std::decay_t<decltype(args.mainloop.dA)>; using DB = std::decay_t<decltype(args.mainloop.dB)>;
    using DC = std::decay_t<decltype(args.epilogue.dC)>; using DD = std::decay_t<decltype(args.epilogue.dD)>;
    bool ok = K::can_implement(args);
    // The answer, then which stride slots the run had symbolic (the rewriting reached args.dX).
    printf("@@RESULT %d %d%d%d%d%d%d%d%d%d%d%d%d\n", ok ? 1 : 0, sym_is<0, DA>(0), sym_is<1, DA>(0), sym_is<2, DA>(0),
           sym_is<0, DB>(0), sym_is<1, DB>(0), sym_is<2, DB>(0), sym_is<0, DC>(0), sym_is<1, DC>(0),
           sym_is<2, DC>(0), sym_is<0, DD>(0), sym_is<1, DD>(0), sym_is<2, DD>(0));
  }
  cute_symbolic::dump();
}

static sigjmp_buf g_jump;
static void on_signal(int) { siglongjmp(g_jump, 1); }
"""


def _unit(instances: Sequence[derive.Instance]) -> cute_cpp.TranslationUnit:
    """The program: the symbolic integer, derive's prelude (the host stand-ins, CUTLASS's headers), the
    rewriting above, each instance in its namespace and two cases per instance (``MODES``), then the symbolic
    back end's driver (``oracle.symbolic``'s protocol: one line per query, the DAG and the decisions back)."""
    def unit(cases: Sequence[cute_cpp.CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
        lines = ["#include <cute_symbolic.hpp>", "#include <csetjmp>", "#include <csignal>",
                 *derive.PRELUDE.strip("\n").split("\n"), *PRELUDE.strip("\n").split("\n")]
        spans: dict[int, tuple[int, int]] = {}
        for k, inst in enumerate(instances):
            start = len(lines) + 1
            bad = 2 * k in rejected or 2 * k + 1 in rejected
            if not bad:
                lines.append(f"namespace key_{k} {{")
                lines.extend(inst.source.strip("\n").split("\n"))
                lines.append("}")
            for m in range(len(MODES)):
                body = ('printf("@@REJECTED\\n");' if bad else
                        f"sym_can_implement<key_{k}::{inst.name}>(p, {m});")
                lines.append(f"static void case_{2 * k + m}(const long long* p, long long) {{ {body} }}")
            spans[2 * k] = spans[2 * k + 1] = (start, len(lines))
        n = len(MODES) * len(instances)
        lines.append("typedef void (*case_fn)(const long long*, long long);")
        lines.append(f"static const long long kCases = {n};")
        lines.append(f"static case_fn kTable[] = {{{', '.join(f'case_{k}' for k in range(n))}}};")
        lines.extend(symbolic._MAIN.strip("\n").split("\n"))
        return "\n".join(lines) + "\n", spans
    return unit


def stride_names(strides: Mapping[str, str]) -> dict[str, list[str | None]]:
    """Each operand's stride modes as symbols (None: a static mode), named as ``verify`` names them: ``ldX`` the
    dynamic mode among the first two, ``bsX`` the batch mode.  ``strides``: the printed ``StrideX`` types."""

    out: dict[str, list[str | None]] = {}
    for x in OPERANDS:
        text = strides.get(x)
        modes = parts.top_args(text) if text else ["", "", ""]
        names: list[str | None] = []
        for i, arg in enumerate(modes[:3]):
            static = arg.startswith("cute::C<") or arg.startswith("cute::integral_constant<")
            names.append(None if static else (f"bs{x}" if i == 2 else f"ld{x}"))
        if names[0] is not None and names[1] is not None:  # two dynamic leading modes: keep them apart
            names[0], names[1] = f"ld{x}0", f"ld{x}1"
        out[x] = names + [None] * (3 - len(names))
    return out


def table(names: Mapping[str, Sequence[str | None]], extent_lo: int = 0) -> Symbols:
    """The admitted arguments: int extents from ``extent_lo``, int64 strides."""
    t = Symbols()
    for e in EXTENTS:
        t.declare(e, lo=extent_lo, hi=INT32_MAX, bits=32)
    for x in OPERANDS:
        for n in names[x]:
            if n is not None:
                t.declare(n, lo=INT64_MIN, hi=INT64_MAX, bits=64)
    return t


def _case(names: Mapping[str, Sequence[str | None]]) -> tuple[cute_cpp.Slot, ...]:
    slots = [cute_cpp.Slot(symbol=e) for e in EXTENTS]
    for x in OPERANDS:
        slots += [cute_cpp.Slot(symbol=n) if n is not None else cute_cpp.Slot(value=0) for n in names[x]]
    return tuple(slots)


@dataclass
class PathResult:
    condition: Bool
    decisions: tuple[Bool, ...]
    accepts: int  # 1, 0, or -1 (the kernel's arguments are not plain: not run)
    obligations: list[symbolic.Obligation]
    env: dict[str, int]


@dataclass
class ModeAcceptance:
    """can_implement for one ``mode``: its paths, or why they are not all known."""

    paths: list[PathResult] = field(default_factory=list)
    unknown: str | None = None
    runs: int = 0
    symbolic_strides: str = ""  # per stride mode of A, B, C, D: 1 where the run had it symbolic


@dataclass
class Derivation:
    """One key's symbolic ``can_implement``: per mode, and the program's costs."""

    modes: dict[str, ModeAcceptance]
    names: dict[str, list[str | None]]
    binary: cute_cpp.Binary
    rejected: str | None
    compile_seconds: float
    explore_seconds: float


def compile_batch(instances: Sequence[derive.Instance], include: Path | None = None) -> cute_cpp.Binary:
    """The batch's symbolic program (cached by ``cute_cpp.build``); ``include``: CUTLASS's headers there
    (``--cutlass PATH``), as ``derive.compile_instances`` takes them."""
    flags = [*derive.FLAGS, *symbolic._header_flags()]
    if include is not None:
        flags.insert(0, f"-I{include}")
    cases = [cute_cpp.CppCase(code=f"{i.name}:{m}", slots=(), label=i.name) for i in instances for m in MODES]
    return cute_cpp.build(cases, unit=_unit(instances), flags=flags)


def derive_acceptance(instances: Sequence[derive.Instance], index: int, strides: Mapping[str, str],
                      max_paths: int = MAX_PATHS, include: Path | None = None) -> Derivation:
    """can_implement of ``instances[index]`` (its batch compiled into one program) explored on every path, for
    each mode.  ``strides``: the key's printed stride types (``derive``'s ``STRIDE_X``), which name the symbols."""
    t0 = time.monotonic()
    binary = compile_batch(instances, include)
    t1 = time.monotonic()
    names = stride_names(strides)
    slots = _case(names)
    cases = [cute_cpp.CppCase(code="", slots=slots) for _ in range(len(MODES) * len(instances))]
    mine = [len(MODES) * index + m for m in range(len(MODES))]
    rejected = next((binary.rejected[k] for k in mine if k in binary.rejected), None)
    modes: dict[str, ModeAcceptance] = {}
    if rejected is None:
        tables = [table(names) for _ in mine]
        starts = []
        for t in tables:
            status, values, why = satisfy(t, [], Budget(symbolic.DECISION_UNITS))
            if status != "sat" or values is None:
                raise RuntimeError(f"no admitted arguments: {why}")
            starts.append(values)

        def decisions(r: symbolic.Run) -> tuple[Bool, ...]:
            if r.unencodable is not None:
                raise symbolic.Unexplorable(r.unencodable)
            return tuple(c for c, _ in r.decisions)

        def where(r: symbolic.Run, i: int | None) -> object:
            return symbolic.place(binary, r.decisions[i][1]) if i is not None else "?"

        found = symbolic.concolic(
            tables, starts, lambda qs: symbolic.run(binary, cases, [(mine[j], env) for j, env in qs]),
            decisions, where, max_paths=max_paths)
        for mode, f in zip(MODES, found):
            ma = ModeAcceptance(runs=f.runs)
            for conds, r, env in f.paths:
                answer, _, mask = (r.result or "").partition(" ")
                ma.symbolic_strides = mask
                ma.paths.append(PathResult(and_(*conds) if conds else Bool(Const(True), False), tuple(conds),
                                           int(answer) if answer.lstrip("-").isdigit() else -2,
                                           list(r.obligations), env))
            if f.unknown is not None:
                ma.unknown = f.unknown if f.at is None else f"{f.unknown} (a decision at {f.at})"
            modes[mode] = ma
    return Derivation(modes, names, binary, rejected, round(t1 - t0, 2), round(time.monotonic() - t1, 2))


def _obliged(p: PathResult) -> Bool:
    return and_(*[o.condition for o in p.obligations]) if p.obligations else Bool(Const(True), False)


def _ask(t: Symbols, conds: Sequence[Bool]) -> tuple[str, dict[str, int] | None, str]:
    return satisfy(t, conds, Budget(COMPARE_UNITS))


def compare(der: Derivation, hand: Sequence[str], extent_lo: int = 1) -> dict[str, Any]:
    """The symbolic acceptance set against the hand-read condition ``hand`` (``verify.acceptance``'s conjuncts)
    where ``can_implement`` is defined (each path's obligations), for extents from ``extent_lo``: per mode, the
    paths whose answer differs from the hand-read one somewhere, each with a witness, or ``equal``."""
    from verifier.notation.cpp import parse_relation

    t = table(der.names, extent_lo)
    h = and_(*[parse_relation(c, t) for c in hand]) if hand else Bool(Const(True), False)
    out: dict[str, Any] = {}
    for mode, ma in der.modes.items():
        diffs: list[dict[str, Any]] = []
        unknown: list[str] = []
        for p in ma.paths:
            if p.accepts not in (0, 1):
                continue
            status, values, why = _ask(t, [p.condition, _obliged(p), not_(h) if p.accepts == 1 else h])
            if status == "sat" and values is not None:
                diffs.append({"can_implement": p.accepts, "hand_read": 1 - p.accepts, "path": str(p.condition),
                              "witness": {k: values[k] for k in (*EXTENTS, *_stride_symbols(der))}})
            elif status == "unknown":
                unknown.append(f"{p.condition}: {why}")
        out[mode] = {"equal": not diffs and not unknown and ma.unknown is None, "differences": diffs,
                     "unknown": unknown}
    return out


def _stride_symbols(der: Derivation) -> list[str]:
    return [n for x in OPERANDS for n in der.names[x] if n is not None]


def undefined(der: Derivation, extent_lo: int = 0, within: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Where ``can_implement`` itself has undefined behaviour: per path (both modes give the same paths: the mode
    is read before any run-time value), a problem taking it on which an obligation breaks (``within``: one where
    these conditions also hold), and the first obligation broken."""
    from verifier.notation.cpp import parse_relation

    t = table(der.names, extent_lo)
    also = [parse_relation(c, t) for c in within]
    ma = next(iter(der.modes.values()))
    out: list[dict[str, Any]] = []
    for p in ma.paths:
        status, values, _ = _ask(t, [*also, p.condition, not_(_obliged(p))])
        if status != "sat" or values is None:
            continue
        # The obligations in the order the run incurred them: the first broken one is where the behaviour is
        # first undefined.
        o = next(o for o in p.obligations if not o.condition.evaluate(values))
        out.append({"can_implement": p.accepts, "path": str(p.condition),
                    "witness": {k: values[k] for k in EXTENTS},
                    "first_broken": {"kind": o.kind, "condition": str(o.condition),
                                     "at": symbolic.place(der.binary, o.where)}})
    return out


def reads_strides(der: Derivation) -> bool:
    """Whether any decision or obligation of any path names a stride symbol (finding 1 says none does)."""
    names = set(_stride_symbols(der))
    for ma in der.modes.values():
        for p in ma.paths:
            used = set(p.condition.expr.symbols())
            for o in p.obligations:
                used |= set(o.condition.expr.symbols())
            if used & names:
                return True
    return False


def _accepting(ma: ModeAcceptance) -> list[PathResult]:
    return [p for p in ma.paths if p.accepts == 1]


def section_key(batch: Sequence[derive.Instance], index: int, strides: Mapping[str, str], hand: Sequence[str],
                no_overflow: Sequence[str] = (), include: Path | None = None) -> str:
    """A digest of every input of ``section``: the batch's instances (its program), the key's place there, its
    printed strides, the hand-read conjuncts and ``include`` (the tool's own code and headers are the sweep's).  A
    section computed ahead (``verify.compile_ahead``) is used by a key only under the digest of its own inputs."""
    text = json.dumps({"batch": [[i.name, i.source] for i in batch], "index": index, "strides": dict(strides),
                       "hand": list(hand), "no_overflow": list(no_overflow),
                       "include": None if include is None else str(include)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def section(batch: Sequence[derive.Instance], index: int, strides: Mapping[str, str],
            hand: Sequence[str], no_overflow: Sequence[str] = (), include: Path | None = None
            ) -> tuple[dict[str, Any], list[str] | None]:
    """The report's ``can_implement`` part for a key, and the assumptions its layout problems take: the linear
    hand-read conjuncts ``hand`` where the symbolic set equals them on M, N, K, L >= 1 (the problems' domain; the
    same set, in the form the solver decides fast), the symbolic accepting path's decisions where it differs (one
    accepting path, the same in both modes), else None (the hand-read condition, and the report says why).
    ``no_overflow``: the hand reading's no-overflow conjuncts (``undefined_where_hand_read_defined``: problems
    that they and ``hand`` admit, with positive extents, on which can_implement's behaviour is undefined)."""
    try:
        der = derive_acceptance(batch, index, strides, include=include)
    except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as exc:
        return {"derivation": "hand-read", "symbolic": f"the symbolic run failed: {exc}"}, None
    if der.rejected is not None:
        return {"derivation": "hand-read", "symbolic": f"the symbolic program did not compile: {der.rejected}"}, None
    unknown = [f"{m}: {ma.unknown}" for m, ma in der.modes.items() if ma.unknown is not None]
    if unknown:
        return {"derivation": "hand-read", "symbolic": f"not every path explored: {'; '.join(unknown)}"}, None
    if any(p.accepts not in (0, 1) for ma in der.modes.values() for p in ma.paths):
        return {"derivation": "hand-read", "symbolic": "can_implement not run: the kernel's arguments hold "
                                                        "stride arrays or a rank-3 problem shape"}, None
    out: dict[str, Any] = {
        "symbolic": "derived",
        "accepted": {m: [str(p.condition) for p in _accepting(ma)] for m, ma in der.modes.items()},
        "paths": {m: len(ma.paths) for m, ma in der.modes.items()},
        "defined_where": sorted({str(o.condition) for ma in der.modes.values() for p in _accepting(ma)
                                 for o in p.obligations if o.condition.value is None}),
        "reads_strides": reads_strides(der),
        "symbolic_strides": {m: ma.symbolic_strides for m, ma in der.modes.items()},
        "versus_hand_read": compare(der, hand, extent_lo=1),
        "versus_hand_read_with_zero_extents": compare(der, hand, extent_lo=0),
        "undefined": undefined(der),
        "undefined_where_hand_read_defined": undefined(der, 1, [*hand, *no_overflow]),
    }
    if all(c["equal"] for c in out["versus_hand_read"].values()):
        return {**out, "derivation": "symbolic (equal to the hand-read conjuncts for M, N, K, L >= 1)"}, list(hand)
    paths = [tuple(str(c) for c in p.decisions) for ma in der.modes.values() for p in _accepting(ma)]
    if len(set(paths)) == 1:
        return {**out, "derivation": "symbolic"}, sorted(set(paths[0]))
    return {**out, "derivation": "hand-read", "note": "the symbolic set differs from the hand-read one and is not "
                                                      "one conjunction: the hand-read condition is assumed"}, None
