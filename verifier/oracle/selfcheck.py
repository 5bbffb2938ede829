"""Translation validation: the model (``algebra/``) proved equal to CuTe's own headers run symbolically.

For each registry operation and a corpus of operand structures (the registry's examples, the parametric corpus
``oracle/data/parametric_cases.json``, and swizzled, scaled-basis and ``smem_ptr`` operands), ``selfcheck``

1. generates the C++ call (``cute_cpp.operation_case`` with the symbolic builder) and explores every path of it
   under the entry's assumptions (``symbolic.explore``);
2. runs the model on the same symbolic operands (``registry.apply``);
3. proves with Z3, on every path: the same printed structure (CuTe's ``print`` with each dynamic leaf a
   placeholder: the same static values, the same static/dynamic flags), each dynamic leaf the same integer
   function of the symbols under the path condition, the assumptions and CuTe's divisors nonzero; and that
   undefined behaviour (a division by zero, a signed overflow) arises for the same values in both.

A disagreement found by Z3 is replayed: compiled CuTe with plain ints (``cute_cpp.run_cases``) and the model's
concrete algebra at the witness; only a replayed difference is reported as one (with the path, the leaf and the
witness), otherwise the entry is ``unknown``.  An entry is ``proved`` only when every path is.

Beyond the registry's calls: TiledMMA / TiledCopy queries and partitions by a symbolic thread, and the TMA box
(``selfcheck_tiled``), compiled with the atom headers; every MMA / copy atom against its traits compiled afresh
(``selfcheck_atoms``); and each registry row with no CuTe call as an ``unknown`` entry carrying the row's reason.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from verifier.algebra.registry import REGISTRY, Outcome, apply
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.integers import Bool, Int, Op, and_, eq, or_, symbol
from verifier.core.obligations import Recorder
from verifier.core.operands import map_leaves, substitute
from verifier.core.overflow import under, watching
from verifier.core.symbols import Symbols
from verifier.oracle import atoms_gen, cute_cpp, selfcheck_atoms, selfcheck_tiled, symbolic
from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS, PARAMETRIC_CORPUS, TEMPLATE_OPS, load, operands, problem
from verifier.solver.budget import UNITS_PER_SECOND, Budget
from verifier.solver.paths import prove

# The model's obligations whose failure is undefined behaviour (docs/semantics.md, Severities).
UB_IDS = frozenset({"CMP-6", "CMP-7", "CPL-4", "DIV0", "CUTE-UB", "OVF-ARITH"})
# The header's obligations that are undefined behaviour (NARROW is an implementation-defined conversion).
CUTE_UB = frozenset({"DIV0", "OVF", "SHIFT"})
PROOF_UNITS = 4 * UNITS_PER_SECOND
CHUNK = 48  # cases per translation unit
_PLACEHOLDER = re.compile(r"v__(\d+)")

# Operand structures beyond the registry examples and the parametric corpus: CuTe's swizzled, scaled-basis and
# smem_ptr operands (the kinds the soundness issues found the model wrong on before), each (op, args, assume).
EXTRA: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("composition", ("Sw<3,4,3> o _0 o (_64,_64):(_64,_1)", "(_8,M):(_1,_8)"), ("M <= 512",)),
    ("composition", ("Sw<2,3,3> o smem_ptr[16b](unset) o (_32,_32):(_32,_1)", "<_16,_8>"), ()),
    ("composition", ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(_64,_8):(_1,_64)"), ()),
    ("right_inverse", ("Sw<2,0,3> o _0 o (_8,_8):(_8,_1)",), ()),
    ("left_inverse", ("Sw<2,0,3> o _0 o (_8,_8):(_8,_1)",), ()),
    ("logical_divide", ("(M,N):(_1@0,_1@1)", "<_128,_64>"), ()),
    ("zipped_divide", ("(M,N):(_1@1,_1@0)", "<_16,_32>"), ()),
    ("composition", ("(M,N):(_1@0,_1@1)", "(_4,_8):(_1,_4)"), ()),
    ("coalesce", ("(M,_2,N):(_1@0,M@0,_1@1)",), ()),
    ("filter", ("(M,_1,N):(_1@0,_0,_1@1)",), ()),
    ("composition", ("(M,N):(N,_1)", "(K,_4):(_4,_1)"), ("M <= 64", "N <= 64", "K <= 64")),
    ("composition", ("(_4,M):(_1,_4)", "(_2,K):(K,_1)"), ("M <= 64", "K <= 64")),
    ("complement", ("(M,_4):(_4,_1)", "_256"), ()),
    ("complement", ("(_2,M):(M,_1)",), ("M <= 4096",)),
    ("slice_and_offset", ("(_,m)", "(M,N):(_1,M)"), ("m < N",)),
    ("slice_and_offset", ("(i,_)", "(M,(N,_4)):(_1,(M,M*N))"), ("i < M",)),
    ("local_partition", ("(M,N):(_1,M)", "(_4,_8):(_8,_1)", "t"), ("t < 32",)),
    ("upcast", ("4", "(M,N):(_1,M)"), ("M % 4 == 0",)),
    ("downcast", ("4", "(M,N):(N,_1)"), ()),
    ("recast_layout", ("16", "8", "(M,N):(_1,M)"), ()),
)


@dataclass(frozen=True)
class Entry:
    """One operand structure of one operation, with its assumptions."""

    op: str
    args: tuple[str, ...]
    assume: tuple[str, ...]
    source: str
    operands: tuple[object, ...] = ()
    symbols: Symbols = field(default_factory=Symbols)
    # A TiledMMA / TiledCopy query (selfcheck_tiled.py): the model's computation and CuTe's call by builder,
    # compiled with the atom headers, instead of the registry row's.
    tiled: selfcheck_tiled.TiledCase | None = None
    # Why there is no CuTe call to compare with (a registry row without one): reported as unknown, never dropped.
    unchecked: str = ""


@dataclass
class Finding:
    entry: Entry
    status: str = "unknown"  # proved, disagrees, unknown
    paths: int = 0
    detail: str = ""
    witness: Mapping[str, int] | None = None

    def as_json(self) -> dict[str, object]:
        return {"op": self.entry.op, "args": list(self.entry.args), "assume": list(self.entry.assume),
                "source": self.entry.source, "status": self.status, "paths": self.paths, "detail": self.detail,
                "witness": dict(self.witness) if self.witness is not None else None}


def _entry(op: str, args: Sequence[str], assume: Sequence[str], source: str) -> Entry:
    from verifier.run.problems import build

    symbols = Symbols()
    operands = build(op, list(args), symbols, list(assume))
    return Entry(op, tuple(args), tuple(assume), source, tuple(operands), symbols)


def corpus(ops: Iterable[str] | None = None) -> tuple[list[Entry], list[str]]:
    """The entries to check (of ``ops``, default every operation with a C++ call), and the registry operations
    that have none (``not_compiled``) with the reason."""
    wanted = set(ops) if ops else None
    out: list[Entry] = []
    skipped = []
    for name, row in REGISTRY.items():
        if wanted is not None and name not in wanted:
            continue
        ex = list(row.example)
        # the example's options (--assume X, --symbol NAME=RANGE) are not operands
        args = [a for i, a in enumerate(ex) if a not in ("--assume", "--symbol")
                and (i == 0 or ex[i - 1] not in ("--assume", "--symbol"))]
        assume = [ex[i + 1] for i, a in enumerate(ex) if a == "--assume"]
        if row.cpp is None and name in BUILT_HERE:
            continue
        if row.cpp is None:
            skipped.append(f"{name}: {row.not_compiled}")
            out.append(Entry(name, tuple(args), tuple(assume), "registry example",
                             unchecked=f"no CuTe call to run: {row.not_compiled}"))
            continue
        out.append(_entry(name, args, assume, "registry example"))
    for raw in load(PARAMETRIC_CORPUS):
        if wanted is not None and raw["op"] not in wanted:
            continue
        op, operands, symbols = problem(raw)
        out.append(Entry(op, tuple(raw["args"]), tuple(raw.get("assume", [])), f"parametric {raw['id']}",
                         tuple(operands), symbols))
    for extra_op, extra_args, extra_assume in EXTRA:
        if wanted is None or extra_op in wanted:
            out.append(_entry(extra_op, extra_args, extra_assume, "operand kinds"))
    out += _spec_checks(wanted)
    out += _generalized_unit_cases(wanted)
    out += _tiled_cases(wanted)
    return out, skipped


# The selector of the tiled builders' entries on the command line (their labels, TiledMMA.partition_A ..., too).
TILED = "tiled"


# Registry operations with no call of the differential harness whose CuTe call the selfcheck builds itself.
BUILT_HERE = frozenset({"make_tma_box"})


def _tiled_cases(wanted: set[str] | None) -> list[Entry]:
    tiled = [Entry(c.label, c.args, (), "tiled builders", (), c.symbols, c)
             for c in selfcheck_tiled.cases() if wanted is None or TILED in wanted or c.label in wanted]
    tma = [Entry(c.label, c.args[:3], c.args[3:], "construct_tma_gbasis", (), c.symbols, c)
           for c in selfcheck_tiled.tma_cases() if wanted is None or c.label in wanted]
    return tiled + tma


# The example spec files of the repository (not package data: absent from an installed copy, then skipped).
EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def _spec_checks(wanted: set[str] | None) -> list[Entry]:
    """The operation checks of the example spec files, with their symbols' ranges and assumptions."""
    from verifier.run.spec import load as load_spec

    out = []
    for path in sorted(EXAMPLES.glob("*.cute.toml")) if EXAMPLES.is_dir() else []:
        for check in load_spec([path]):
            row = REGISTRY.get(check.op)
            if check.is_property or row is None or row.cpp is None or check.semantics != "cpp":
                continue
            if wanted is not None and check.op not in wanted:
                continue
            args, symbols = check.problem()
            out.append(Entry(check.op, check.args, check.assume, f"{path.name}: {check.name}", tuple(args), symbols))
    return out


# A generalised unit case's symbols range over [1, 64] (or [0, 64] where CuTe's test has a zero): small enough
# that no intermediate nears 2^31, so the comparison is about the algorithm, not the overflow regions.
UNIT_HI = 64


def _symbolizer(symbols: Symbols, counter: list[int]) -> Callable[[Int], Int]:
    """A leaf function that makes each run-time integer a fresh symbol of ``symbols``, its sign kept."""
    def leaf(x: Int) -> Int:
        if x.static or x.value is None:
            return x
        counter[0] += 1
        name = f"u{counter[0]}"
        v = int(x.value)
        symbols.declare(name, lo=0 if v == 0 else 1, hi=UNIT_HI)
        s = symbol(name)
        return s if v >= 0 else Int(Op("neg", (s.expr,)), False)

    return leaf


def _generalized_unit_cases(wanted: set[str] | None) -> list[Entry]:
    """CUTLASS's own unit cases (``oracle/data/cutlass_unit_cases.json``) with every run-time integer a symbol of
    its own: the same static/dynamic structure, for every value instead of the one CuTe's test uses."""
    out = []
    seen = set()
    for raw in load(CUTLASS_UNIT_CORPUS):
        op = raw["op"]
        row = REGISTRY.get(op)
        if row is None or row.cpp is None or (wanted is not None and op not in wanted):
            continue
        k = TEMPLATE_OPS.get(op, 0)
        try:
            parsed = operands(raw["args"][k:], "original")
        except LayoutError:
            continue
        symbols = Symbols()
        counter = [0]
        leaf = _symbolizer(symbols, counter)

        general = tuple(map_leaves(o, leaf) for o in parsed)
        if not counter[0]:
            continue  # all static: nothing symbolic to compare
        key = (op, tuple(raw["args"]))
        if key in seen:
            continue
        seen.add(key)
        ints = tuple(int(a) for a in raw["args"][:k])
        out.append(Entry(op, tuple(raw["args"]), (), f"cutlass unit {raw['file']}:{raw['line']}, generalised",
                         (*ints, *general), symbols))
    return out


# -- comparing ---------------------------------------------------------------------------------------------------


def _skeleton(text: str) -> tuple[str, list[int]]:
    """A printed value with each placeholder renumbered in order of appearance, and the original numbers."""
    refs: list[int] = []

    def sub(m: re.Match[str]) -> str:
        refs.append(int(m.group(1)))
        return f"#{len(refs) - 1}"

    return _PLACEHOLDER.sub(sub, text), refs


def model_print(result: object) -> tuple[str, list[Int]]:
    """The model's result as CuTe prints it, each dynamic leaf a placeholder, and the leaves in print order."""
    found: list[Int] = []

    def leaf(x: Int) -> Int:
        if x.static:
            return x
        found.append(x)
        return symbol(f"v__{len(found) - 1}")

    from verifier.algebra.ops import OffsetLayout

    if isinstance(result, OffsetLayout):
        text = f"{map_leaves(result.offset, leaf)} o {map_leaves(result.layout, leaf)}"
    else:
        text = str(map_leaves(result, leaf))
    skeleton, refs = _skeleton(text)
    return skeleton, [found[k] for k in refs]


def cute_print(run: symbolic.Run) -> str:
    return f"{run.offset} o {run.result}" if run.offset is not None else str(run.result)


def _replay(entry: Entry, env: Mapping[str, int], model: object) -> tuple[str, str]:
    """What compiled CuTe with plain ints prints at ``env``, and the model's symbolic result (the one proved
    against) evaluated there."""
    if entry.tiled is not None:
        case = entry.tiled.cpp(cute_cpp.CppBuilder)
        binary = cute_cpp.build([case], unit=atoms_gen.traits_unit, flags=atoms_gen.FLAGS)
        got = cute_cpp.run_binary(binary, [case], [cute_cpp.Query(0, dict(env))])[0]
    else:
        case = cute_cpp.operation_case(entry.op, *entry.operands)
        got = cute_cpp.run_cases([case], [cute_cpp.Query(0, dict(env))])[0]
    if got.rejected:
        cute = f"rejected: {got.rejected}"
    elif got.ub:
        cute = "undefined behaviour (signal)"
    else:
        cute = f"{got.offset} o {got.result}" if got.offset is not None else str(got.result)
    from verifier.algebra.ops import OffsetLayout

    try:
        if isinstance(model, OffsetLayout):
            return cute, f"{substitute(model.offset, env)} o {substitute(model.layout, env)}"
        return cute, str(substitute(model, env))
    except (LayoutError, UndefinedBehavior) as exc:
        return cute, f"error: {exc}"


def _ub(conditions: Sequence[Bool]) -> Bool:
    from verifier.core.integers import not_

    return or_(*(not_(c) for c in conditions)) if conditions else Bool(eq(0, 1).expr, False)


def check_entry(entry: Entry, ex: symbolic.Exploration, binary: cute_cpp.Binary) -> Finding:
    """The model against CuTe's paths for one entry."""
    f = Finding(entry, paths=len(ex.paths))
    if ex.unknown is not None:
        f.detail = ex.unknown
        return f
    with under(entry.symbols):
        model = apply(entry.op, *entry.operands) if entry.tiled is None else _apply_tiled(entry.tiled)
    rejected = [p for p in ex.paths if p.run.rejected]
    if rejected:
        if model.rejection is not None:
            f.status, f.detail = "proved", "both reject at compile time"
        else:
            f.status, f.detail = "disagrees", f"CuTe rejects ({rejected[0].run.rejected}); the model computes"
        return f
    if model.rejection is not None:
        f.status, f.detail = "disagrees", f"the model rejects ({model.rejection}); CuTe compiles"
        return f
    model_ub = [o.condition for o in model.obligations if o.id in UB_IDS]
    skeleton: str | None = None
    leaves: list[Int] = []
    if model.result is None:  # undefined behaviour on every value: the UB comparison below decides
        pass
    else:
        skeleton, leaves = model_print(model.result)
    for k, p in enumerate(ex.paths):
        pc = symbolic.path_condition(p)
        cute_ub = [o.condition for o in p.run.obligations if o.kind in CUTE_UB]
        defined = [o.condition for o in p.run.obligations if o.kind == "DIV0"]
        where = f"path {k + 1}/{len(ex.paths)} ({' && '.join(map(str, p.condition)) or 'no decision'})"
        # Undefined behaviour for the same values: the header's obligations against the model's.
        status, values, why = prove(entry.symbols, [pc], Bool(eq(0, 0).expr, False) if not (cute_ub or model_ub)
                                    else _iff(_ub(cute_ub), _ub(model_ub)), Budget(PROOF_UNITS))
        if status == "refuted" and values is not None:
            cute_bad = [str(o.condition) for o in p.run.obligations if o.kind in CUTE_UB
                        and not _holds(o.condition, values)]
            model_bad = [f"{o.id}: {o.condition}" for o in model.obligations if o.id in UB_IDS
                         and not _holds(o.condition, values)]
            if bool(cute_bad) != bool(model_bad):
                f.status, f.witness = "disagrees", values
                f.detail = (f"{where}: undefined behaviour differs: CuTe {cute_bad or 'none'}, "
                            f"the model {model_bad or 'none'}")
                return f
            f.detail = f"{where}: the UB comparison's candidate {values} did not replay"
            return f
        if status == "unknown":
            f.detail = f"{where}: UB comparison: {why}"
            return f
        if skeleton is None:
            continue
        cute_skel, refs = _skeleton(cute_print(p.run))
        if cute_skel != skeleton:
            f.status, f.witness = "disagrees", p.env
            f.detail = f"{where}: structure: CuTe {cute_skel}, the model {skeleton}"
            cute_txt, model_txt = _replay(entry, p.env, model.result)
            f.detail += f"; replayed at {dict(p.env)}: CuTe {cute_txt}, the model {model_txt}"
            return f
        if not leaves:
            continue
        goal = and_(*(eq(m, Int(p.run.leaves[r], False)) for m, r in zip(leaves, refs)))
        status, values, why = prove(entry.symbols, [pc, *defined], goal, Budget(PROOF_UNITS))
        if status == "refuted" and values is not None:
            cute_txt, model_txt = _replay(entry, values, model.result)
            if cute_txt != model_txt:
                bad = [i for i, (m, r) in enumerate(zip(leaves, refs)) if not _equal(m, p.run.leaves[r], values)]
                f.status, f.witness = "disagrees", values
                f.detail = (f"{where}: leaf #{bad[0] if bad else '?'}: at {values} compiled CuTe prints "
                            f"{cute_txt}, the model {model_txt}")
                return f
            f.detail = f"{where}: a candidate {values} that did not replay"
            return f
        if status == "unknown":
            f.detail = f"{where}: {why}"
            return f
    f.status = "proved"
    f.detail = f"{len(ex.paths)} path(s)"
    return f


def _apply_tiled(case: selfcheck_tiled.TiledCase) -> Outcome:
    """A tiled query of the model as ``registry.apply`` runs an operation: its obligations recorded, CuTe's
    rejections and undefined behaviour as data."""
    with Recorder() as rec:
        try:
            with watching(case.label):
                result = case.model()
        except CuteRejection as exc:
            return Outcome(None, tuple(rec.obligations), rejection=exc)
        except UndefinedBehavior as exc:
            return Outcome(None, tuple(rec.obligations), undefined=str(exc))
    return Outcome(result, tuple(rec.obligations))  # type: ignore[arg-type]


def _iff(a: Bool, b: Bool) -> Bool:
    from verifier.core.integers import not_

    return and_(or_(not_(a), b), or_(not_(b), a))


def _holds(c: Bool, values: Mapping[str, int]) -> bool:
    try:
        return bool(c.expr.evaluate(values))
    except (UndefinedBehavior, KeyError):
        return False


def _equal(m: Int, e: object, values: Mapping[str, int]) -> bool:
    try:
        return bool(m.expr.evaluate(values) == e.evaluate(values))  # type: ignore[attr-defined]
    except (UndefinedBehavior, KeyError):
        return False


def case_of(entry: Entry) -> cute_cpp.CppCase:
    """The symbolic C++ call of an entry: its registry row's, except that ``slice`` calls CuTe's ``slice`` itself
    (the differential harness calls ``slice_and_offset`` for both, and prints the offset; ``slice`` computes none)."""
    if entry.tiled is not None:
        return entry.tiled.cpp(symbolic.SymbolicBuilder)
    if entry.op == "slice":
        b = symbolic.SymbolicBuilder()
        coord, layout = entry.operands
        return b.case(b.call("slice", b.coord(coord), b.layout(layout)))  # type: ignore[arg-type]
    return cute_cpp.operation_case(entry.op, *entry.operands, builder=symbolic.SymbolicBuilder)


def selfcheck(ops: Iterable[str] | None = None, max_paths: int = 32,
              entries: Sequence[Entry] | None = None, atoms: bool | None = None) -> tuple[list[Finding], list[str]]:
    """Every entry of the corpus (or ``entries``) checked, and the atoms (``atom_findings``; by default with the
    corpus of every operation or of ``ops`` naming ``atoms``); the findings and the operations with no C++ call."""
    skipped: list[str] = []
    ops = list(ops) if ops else None
    if atoms is None:
        atoms = entries is None and (not ops or ATOMS in ops)
    if entries is None:
        entries, skipped = corpus(ops)
    cases: list[cute_cpp.CppCase] = []
    compiled: list[Entry] = []
    findings: dict[int, Finding] = {}
    for k, e in enumerate(entries):
        if e.unchecked:
            findings[k] = Finding(e, detail=e.unchecked)
            continue
        try:
            cases.append(case_of(e))
            compiled.append(e)
        except (TypeError, ValueError) as exc:  # an operand kind the C++ generator does not spell (a Step<...>)
            findings[k] = Finding(e, detail=f"no C++ call for these operands: {exc}")
    # Translation units of CHUNK cases, compiled in parallel (g++ is most of the time; a smaller unit also
    # recompiles less when cases CuTe rejects are isolated).
    # The tiled entries need the atom headers: units of their own, so that the others' cached units stay valid.
    spans: list[range | list[int]] = []
    for headers in (False, True):
        idx = [i for i, e in enumerate(compiled) if (e.tiled is not None) == headers]
        spans += [idx[j:j + CHUNK] for j in range(0, len(idx), CHUNK)]
    with ThreadPoolExecutor(max_workers=max(1, min(len(spans), os.cpu_count() or 1))) as pool:
        binaries = list(pool.map(lambda r: symbolic.build([cases[i] for i in r],
                                                          atoms=compiled[r[0]].tiled is not None), spans))
    results: dict[int, Finding] = {}
    for span, binary in zip(spans, binaries):
        _, explorations = symbolic.explore([cases[i] for i in span], [compiled[i].symbols for i in span],
                                           max_paths=max_paths, binary=binary)
        results.update((i, check_entry(compiled[i], ex, binary)) for i, ex in zip(span, explorations))
    checked = iter(results[i] for i in range(len(compiled)))
    out = [findings[k] if k in findings else next(checked) for k in range(len(entries))]
    if atoms:
        out += atom_findings()
    return out, skipped


# The selector of the atoms' entries on the command line.
ATOMS = "atoms"


def atom_findings() -> list[Finding]:
    """Every MMA / copy atom of the model against its traits compiled afresh (``selfcheck_atoms``)."""
    fresh = atoms_gen.generate()["atoms"]
    assert isinstance(fresh, list)
    return [Finding(Entry("atom", (name,), (), f"atom {where}"), status, 0, detail)
            for name, where, status, detail in selfcheck_atoms.compare(fresh)]


def summary(findings: Sequence[Finding]) -> dict[str, object]:
    n = len(findings)
    proved = sum(f.status == "proved" for f in findings)
    return {"entries": n, "proved": proved, "disagrees": sum(f.status == "disagrees" for f in findings),
            "unknown": sum(f.status == "unknown" for f in findings),
            "proved_fraction": round(proved / n, 4) if n else 0.0,
            "paths": {f"{f.entry.op} {' '.join(f.entry.args)}": f.paths for f in findings}}


def report(findings: Sequence[Finding], skipped: Sequence[str], as_json: bool = False) -> str:
    if as_json:
        return json.dumps({"summary": summary(findings), "findings": [f.as_json() for f in findings],
                           "not_compiled": list(skipped)}, indent=2)
    s = summary(findings)
    lines = [f"selfcheck: {s['proved']}/{s['entries']} operand structures proved equal to CuTe on every path "
             f"({100 * float(s['proved_fraction']):.1f}%), {s['disagrees']} disagree, {s['unknown']} unknown"]  # type: ignore[arg-type]
    for f in findings:
        if f.status != "proved":
            lines.append(f"  {f.status}: {f.entry.op} {' '.join(f.entry.args)}"
                         f"{' assuming ' + ', '.join(f.entry.assume) if f.entry.assume else ''} "
                         f"[{f.entry.source}]: {f.detail}")
    return "\n".join(lines)
