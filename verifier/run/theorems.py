"""Theorems of the layout algebra over symbolic sizes: stated in Python, decided by the engine.

A ``Theorem`` quantifies over named run-time integers (symbols with ranges, divisibilities and relations) and says
whether its statement is expected to be **proved** (it holds for every allowed value) or **refuted** (a
counterexample exists; the engine replays it concretely before reporting it).  Statements:

* ``valid(op, *args)``: CuTe's ``op`` on these operands computes a correct result (its postcondition of
  ``docs/semantics.md``, no division by zero): an ``Operation`` problem;
* ``check(prop, *args)``, and the shorthands ``bijective``, ``injective``, ``equivalent``, ``compatible``,
  ``in_bounds``: a property of layouts (a ``Property`` problem);
* ``equal(X, Y)``: two layouts are the same ``Shape:Stride``: the same profile and equal integers at every value;
* ``forall(build, *args)``: a custom claim built from the model: ``build(*operands)`` returns ``claims.Claim``s
  over the witnesses ``#i``, ``#j``, ``#k`` (non-negative ranges), each decided by ``engine.Engine.decide``.

Operands are CuTe notation (``"(M,N):(_1,M)"``, ``"<_128,_64>"``, ``"(M,N)"``), plain integers (template
arguments), the tags ``"LayoutLeft"``/``"LayoutRight"``, or ``call(op, *args)``: the result of an algebra
operation computed exactly as CuTe computes it (``ops.coalesce(L)`` is ``call("coalesce", L)``; ``ops.concat``
is ``make_layout(A, B)``).  Every symbol must be declared in ``symbols``.

Domains: ``"int32"`` keeps the symbols' default range (``1 <= M <= 2**31-1`` unless declared otherwise);
``"positive"`` removes the upper bound, so a proof holds for every positive integer (mathematical integers: the
statement is about the algebra, not about ``int`` overflow, which ``cute-verify check no_overflow`` decides).

Soundness is the engine's: ``proved`` only on ``unsat`` of the whole negated statement, ``refuted`` only with a
counterexample replayed by recomputing the operands at its values.  No second solver path exists here.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from verifier.algebra import registry
from verifier.contracts.claims import CONFIRM_BY_ORACLE, Claim, Replay, has_postcondition, substitute_operand
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.int_tuple import leaves, symbols_of
from verifier.core.integers import TRUE, Bool, Const, Int, and_, eq, substitute
from verifier.core.layouts import Layout, Tile, make_layout
from verifier.core.obligations import UB
from verifier.core.symbols import Symbols
from verifier.engine import checks
from verifier.engine import decide as engine
from verifier.engine.problem import Admits, Claims, Operation, Property, decide
from verifier.engine.verdicts import INVALID, PROVED, REFUTED, UNKNOWN, VALID, Counterexample, Policy, Verdict
from verifier.notation.cpp import parse, parse_relation, parse_tile, show
from verifier.solver import budget
from verifier.solver.budget import Budget
from verifier.solver.domain import VacuousAssumptions

DOMAINS = {"int32": "every int32 value", "positive": "every positive integer"}
EXPECTATIONS = (PROVED, REFUTED)
DEFAULT_TIMEOUT: float | None = None  # the safety net of one theorem: the hang guard of its budget (budget.py)
DEFAULT_RLIMIT = 2 * budget.DEFAULT_RLIMIT  # Z3 resource units of one theorem (20 nominal seconds)


class TheoremError(LayoutError):
    """A theorem that cannot be stated: unknown symbol, bad notation, an operand CuTe rejects."""


# -- operands ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """``op(*args)`` computed by the algebra, as CuTe computes it."""

    op: str
    args: tuple[object, ...]

    def __str__(self) -> str:
        return f"{self.op}({', '.join(_text(a) for a in self.args)})"


# Layout constructors a statement may use besides the algebra: ``make_layout(shape, LayoutRight)``, and
# ``concat(A, B)`` for ``make_layout(A, B)``.
_EXTRA: dict[str, Callable[..., object]] = {"make_layout": make_layout, "concat": make_layout}


def call(op: str, *args: object) -> Call:
    if op not in registry.OPERATIONS and op not in _EXTRA:
        raise TheoremError(f"unknown operation {op!r}")
    return Call(op, args)


class _Ops:
    """``ops.coalesce(L)`` is ``call("coalesce", L)``."""

    def __getattr__(self, op: str) -> Callable[..., Call]:
        if op.startswith("_"):
            raise AttributeError(op)
        return lambda *args: call(op, *args)


ops = _Ops()


def _text(a: object) -> str:
    return f"{a}" if not isinstance(a, str) else a.strip()


def _leaf(arg: object, symbols: Symbols) -> object:
    if isinstance(arg, str):
        text = arg.strip()
        if text in ("LayoutLeft", "LayoutRight"):
            return text
        try:
            return parse_tile(text, symbols) if text.startswith("<") else parse(text, symbols)
        except LayoutError as exc:
            raise TheoremError(f"{text!r}: {exc}") from None
    if isinstance(arg, int) and not isinstance(arg, bool):
        return arg
    raise TheoremError(f"operand {arg!r}: expected CuTe notation, an integer or call(...)")


def evaluate(arg: object, symbols: Symbols, values: Mapping[str, int] | None = None) -> object:
    """The operand as the model's object; with ``values``, computed from the concrete (substituted) leaves."""
    if isinstance(arg, Call):
        args = [evaluate(a, symbols, values) for a in arg.args]
        if arg.op in _EXTRA:
            return _EXTRA[arg.op](*args)
        out = registry.apply(arg.op, *args)
        if out.rejection is not None:
            if values is not None:
                raise out.rejection
            raise TheoremError(f"{arg}: CuTe rejects it: {out.rejection}")
        if out.undefined is not None:
            if values is not None:
                raise UndefinedBehavior(out.undefined)
            raise TheoremError(f"{arg}: undefined behaviour in CuTe: {out.undefined}")
        return out.result
    leaf = _leaf(arg, symbols)
    return substitute_operand(leaf, values) if values is not None else leaf


def _faults(arg: object, symbols: Symbols) -> list[engine.Item]:
    """The division-by-zero obligations (UB) the algebra recorded while computing a ``call`` operand."""
    if not isinstance(arg, Call):
        return []
    out = [item for a in arg.args for item in _faults(a, symbols)]
    if arg.op in _EXTRA:
        return out
    outcome = registry.apply(arg.op, *(evaluate(a, symbols) for a in arg.args))
    for ob in outcome.obligations:
        if ob.cute_checks == UB and ob.condition.value is not True:
            cond = ob.condition
            out.append(engine.Item(ob.id, f"{arg}: {ob.description}", ob.source, UB, True, (), cond,
                                   partial(_fault_replay, cond=cond)))
    return out


def _fault_replay(values: Mapping[str, int], cond: Bool) -> Replay:
    return Replay(not cond.evaluate(values))


def _symbols_in(obj: object) -> set[str]:
    if isinstance(obj, Layout):
        return obj.symbols()
    if isinstance(obj, Tile):
        return set().union(*(_symbols_in(e) for e in obj.elements)) if obj.elements else set()
    if isinstance(obj, (Int, tuple)):
        return symbols_of(obj)
    return set()


# -- statements -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    """What a theorem claims: ``kind`` is valid / check / equal / forall."""

    kind: str
    name: str
    args: tuple[object, ...]
    options: Mapping[str, object] = field(default_factory=dict)
    build: Callable[..., list[Claim]] | None = None

    def __str__(self) -> str:
        inner = ", ".join(_text(a) for a in self.args)
        if self.kind == "equal":
            return f"{_text(self.args[0])} == {_text(self.args[1])}"
        opts = "".join(f", {k}={v}" for k, v in self.options.items())
        prefix = {"valid": "valid ", "forall": "for all: "}.get(self.kind, "")
        return f"{prefix}{self.name}({inner}{opts})"

    def operands(self, symbols: Symbols, values: Mapping[str, int] | None = None) -> list[object]:
        return [evaluate(a, symbols, values) for a in self.args]

    def decide(self, symbols: Symbols, timeout: float | None = DEFAULT_TIMEOUT,
               rlimit: int | None = DEFAULT_RLIMIT) -> Verdict:
        """Decide the statement within ``rlimit`` Z3 resource units and the wall-clock safety net ``timeout``;
        the division-by-zero items of computed operands get another ``rlimit`` after it."""
        operands = self.operands(symbols)
        spend = Budget(rlimit, timeout)
        if self.kind == "valid":
            v = decide(Operation(self.name, tuple(operands), symbols, Policy(strict=bool(self.options.get("strict"))),
                                 derive=False, budget=spend))
        elif self.kind == "check":
            # every named parameter given, so that the options can only reach ``**options``
            v = decide(Property(self.name, tuple(operands), symbols, tuple(self.options.items()), Policy(), timeout,
                                rlimit, budget=spend))
        else:
            build = _equal_claims if self.kind == "equal" else self.build
            assert build is not None
            admitted = decide(Admits(symbols))  # no vacuous theorem
            if admitted.verdict == REFUTED:
                raise VacuousAssumptions(admitted.reason or "no value satisfies the assumptions")
            if admitted.verdict == UNKNOWN:
                return Verdict(str(self), tuple(_text(a) for a in self.args), UNKNOWN, reason=admitted.reason)
            v = _decide_claims(self, build, operands, symbols, spend)
        faults = [item for a in self.args for item in _faults(a, symbols)]
        if not faults or v.verdict not in (PROVED, VALID):
            return v
        # A statement about computed results also claims that computing them never divides by zero.
        faults_budget = Budget(spend.rlimit, timeout)
        faults_budget.deadline = spend.deadline
        f = decide(Claims(self.name, v.inputs, tuple(faults), symbols, faults_budget))
        merged = v.obligations + f.obligations
        if f.verdict == PROVED:
            return replace(v, obligations=merged)
        return replace(v, verdict=f.verdict, obligations=merged, counterexample=f.counterexample, reason=f.reason)


def valid(op: str, *args: object, strict: bool = False) -> Statement:
    """CuTe's ``op(*args)`` is correct for every allowed value (``docs/semantics.md``); ``strict``: with no
    warning either (no partial tile ...)."""
    if op not in registry.OPERATIONS:
        raise TheoremError(f"unknown operation {op!r}")
    return Statement("valid", op, args, {"strict": True} if strict else {})


def check(prop: str, *args: object, **options: object) -> Statement:
    if prop not in checks.PROPERTIES:
        raise TheoremError(f"unknown property {prop!r}")
    return Statement("check", prop, args, options)


def bijective(layout: object) -> Statement:
    return check("bijective", layout)


def injective(layout: object) -> Statement:
    return check("injective", layout)


def equivalent(a: object, b: object, extended: bool = False) -> Statement:
    return check("equivalent", a, b, extended=True) if extended else check("equivalent", a, b)


def compatible(a: object, b: object) -> Statement:
    return check("compatible", a, b)


def in_bounds(layout: object, extent: object) -> Statement:
    return check("in_bounds", layout, extent)


def equal(a: object, b: object) -> Statement:
    """The two layouts are the same Shape:Stride: same profile and equal integers (static or not)."""
    return Statement("equal", "equal", (a, b))


def forall(build: Callable[..., list[Claim]], *args: object, name: str | None = None) -> Statement:
    """Every claim ``build(*operands)`` returns holds over its witnesses, for every allowed value."""
    return Statement("forall", name or build.__name__.lstrip("_"), args, build=build)


def _equal_claims(a: Layout, b: Layout) -> list[Claim]:
    if not (isinstance(a, Layout) and isinstance(b, Layout)):
        raise TheoremError("equal compares two layouts")
    holds: Bool = Bool(Const(False), False)
    if _same_profile(a.shape, b.shape):
        pairs = list(zip(leaves(a.shape), leaves(b.shape))) + list(zip(leaves(a.stride), leaves(b.stride)))
        holds = and_(TRUE, *(eq(x, y) for x, y in pairs))
    return [Claim("EQUAL", "the same Shape:Stride: equal profiles and equal integers", "layout.hpp", (), holds)]


def _same_profile(a: object, b: object) -> bool:
    if type(a) is tuple and type(b) is tuple:
        return len(a) == len(b) and all(_same_profile(x, y) for x, y in zip(a, b))
    return type(a) is not tuple and type(b) is not tuple


def _truth(b: Bool, values: Mapping[str, int]) -> bool:
    return bool(b.value) if b.value is not None else bool(b.evaluate(values))


def _decide_claims(st: Statement, build: Callable[..., list[Claim]], operands: list[object], symbols: Symbols,
                   spend: Budget) -> Verdict:
    built = build(*operands)

    def replay(values: Mapping[str, int], k: int) -> Replay:
        try:
            concrete = build(*st.operands(symbols, values))[k]
        except UndefinedBehavior as exc:  # computing the operands faults here: the statement cannot hold
            return Replay(True, undefined=str(exc))
        except CuteRejection:  # static checks do not depend on the values: never a counterexample
            return Replay(False)
        w = {n: values[n] for n in concrete.witnesses}
        for n, lo, hi in concrete.ranges:
            if not int(substitute(lo, w)) <= w[n] < int(substitute(hi, w)):
                return Replay(False)
        exp = int(substitute(concrete.expected, w)) if concrete.expected is not None else None
        act = int(substitute(concrete.actual, w)) if concrete.actual is not None else None
        return Replay(not _truth(concrete.holds, w), exp, act)

    items = [engine.Item(c.id, c.description, c.source, "property", True, c.ranges, c.holds,
                         partial(replay, k=k)) for k, c in enumerate(built)]
    return decide(Claims(st.name, tuple(show(o) for o in operands), tuple(items), symbols, spend))


# -- theorems ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theorem:
    """A named statement over symbolic sizes and the verdict it must get (``proved`` or ``refuted``)."""

    name: str
    statement: Statement
    symbols: Mapping[str, Mapping[str, int | None]] | str = field(default_factory=dict)
    assume: Sequence[str] = ()
    expect: str = PROVED
    domain: str = "positive"
    note: str = ""
    family: str = ""
    family_doc: str = ""  # the theorem file's docstring, set by ``load``

    def __post_init__(self) -> None:
        if self.expect not in EXPECTATIONS:
            raise TheoremError(f"{self.name}: expect must be one of {EXPECTATIONS}, got {self.expect!r}")
        if self.domain not in DOMAINS:
            raise TheoremError(f"{self.name}: domain must be one of {tuple(DOMAINS)}, got {self.domain!r}")
        if not isinstance(self.name, str) or not self.name:
            raise TheoremError(f"a theorem's name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.symbols, str | Mapping) or (isinstance(self.symbols, Mapping) and not all(
                isinstance(n, str) and isinstance(a, Mapping) for n, a in self.symbols.items())):
            raise TheoremError(f"{self.name}: symbols must be names (\"M N\") or a dict of name -> assumptions "
                               f"({{\"M\": {{\"multiple_of\": 8}}}}), got {self.symbols!r:.60}")
        if isinstance(self.assume, str) or not all(isinstance(a, str) for a in self.assume):
            raise TheoremError(f"{self.name}: assume must be a list of relations, e.g. [\"M <= N\"]")

    def declared(self) -> dict[str, dict[str, int | None]]:
        if isinstance(self.symbols, str):
            return {n: {} for n in self.symbols.split()}
        return {n: dict(a) for n, a in self.symbols.items()}

    def table(self, relations: bool = True) -> Symbols:
        """The symbols with their assumptions; strict, so an undeclared name in a statement is an error.  Without
        ``relations``, only what the symbols were declared with (``assume`` may tighten a symbol's range)."""
        sy = Symbols(strict=True)
        for n, a in self.declared().items():
            a = {{"min": "lo", "max": "hi"}.get(k, k): v for k, v in a.items()}
            if self.domain == "positive" and "hi" not in a:
                a["hi"] = None
            try:
                sy.declare(n, **a)  # type: ignore[arg-type]
            except (LayoutError, TypeError) as exc:
                raise TheoremError(f"{self.name}: symbol {n}: {exc}") from None
        for text in self.assume if relations else ():
            try:
                sy.assume(parse_relation(text, sy))
            except LayoutError as exc:
                raise TheoremError(f"{self.name}: assumption {text!r}: {exc}") from None
        return sy

    def quantified(self) -> set[str]:
        """The symbols the statement's operands mention that take at least two values."""
        sy = self.table()
        try:
            names = set().union(*(_mentions(a, sy) for a in self.statement.args))
        except LayoutError as exc:
            raise TheoremError(f"{self.name}: {exc}") from None
        out = set()
        for n in names:
            s = sy.lookup(n)
            if s is not None and (s.hi is None or s.hi - s.lo >= s.multiple_of):
                out.add(n)
        return out

    @property
    def assumptions(self) -> str:
        sy = self.table(relations=False)
        parts = []
        for s in sy:
            bits = []
            if s.lo != 1:
                bits.append(f"{s.name} >= {s.lo}")
            if s.hi is not None and s.hi != 2**31 - 1:
                bits.append(f"{s.name} <= {s.hi}")
            if s.multiple_of != 1:
                bits.append(f"{s.name} % {s.multiple_of} == 0")
            parts += bits
        return "; ".join(parts + [t.strip() for t in self.assume])

    def run(self, timeout: float | None = DEFAULT_TIMEOUT, rlimit: int | None = DEFAULT_RLIMIT) -> TheoremResult:
        start = time.monotonic()
        try:
            v = self.statement.decide(self.table(), timeout, rlimit)
        except TheoremError:
            raise
        except LayoutError as exc:  # assumptions that admit no value, a negative extent: the theorem is malformed
            raise TheoremError(f"{self.name}: {exc}") from None
        seconds = time.monotonic() - start
        verdict = {VALID: PROVED, INVALID: REFUTED}.get(v.verdict, v.verdict)
        return TheoremResult(self, verdict, seconds, strategy(v, self.domain), v.counterexample, v.reason, v)


def _mentions(arg: object, symbols: Symbols) -> set[str]:
    """The symbols an operand's written leaves mention."""
    if isinstance(arg, Call):
        return set().union(*(_mentions(a, symbols) for a in arg.args))
    return _symbols_in(_leaf(arg, symbols))


@dataclass(frozen=True)
class TheoremResult:
    theorem: Theorem
    verdict: str
    seconds: float
    strategy: str
    counterexample: Counterexample | None
    reason: str | None
    detail: Verdict

    @property
    def ok(self) -> bool:
        return self.verdict == self.theorem.expect

    def to_json(self) -> dict[str, object]:
        t = self.theorem
        return {"theorem": t.name, "family": t.family, "statement": str(t.statement), "assumptions": t.assumptions,
                "domain": t.domain, "expected": t.expect, "verdict": self.verdict, "ok": self.ok,
                "seconds": round(self.seconds, 3), "strategy": self.strategy, "reason": self.reason,
                "counterexample": self.counterexample.to_json() if self.counterexample else None}


def strategy(v: Verdict, domain: str) -> str:
    """Which of the engine's routes decided the verdict, read from its decisions."""
    over = "unbounded integers" if domain == "positive" else "int32"
    if v.verdict in (VALID, PROVED):
        # an obligation the encoding's simplifier proved is on the Z3 route (its first stage)
        routes = {engine.FULL if o.route == engine.SIMPLIFIED else o.route for o in v.obligations if o.deciding}
        if routes <= {engine.FULL}:
            return f"Z3 over {over}"
        return f"Z3 over {over}" + (" and " + ", ".join(sorted(r for r in routes if r and r != engine.FULL))
                                    if routes - {engine.FULL, None} else " (by bijectivity)")
    if v.verdict in (INVALID, REFUTED):
        if not v.obligations:
            return "algebra: CuTe's compile-time check" if "rejects" in (v.reason or "") or "static" in (
                v.reason or "") else "algebra: concrete evaluation"
        cex = v.counterexample
        hit = next((o for o in v.obligations if o.status == REFUTED and o.deciding and o.counterexample == cex),
                   None) or next((o for o in v.obligations if o.status == REFUTED and o.deciding), None)
        if hit is None:
            return "algebra"
        route = {engine.BOUNDED: "bounded search (64 smallest values)", engine.FULL: f"Z3 model over {over}",
                 engine.PINNED: f"Z3 model over {over} at another obligation's counterexample values"}.get(
            hit.route or "", "quantified Z3 query")
        # Sufficient-only claims, and obligations of operations without a symbolic postcondition, are reported
        # only where the algebra's concrete postcondition (an enumeration) confirms that CuTe's result is wrong.
        oracle = hit.id in CONFIRM_BY_ORACLE or (v.op in registry.OPERATIONS and not has_postcondition(v.op)
                                                 and hit.cute_checks != UB)
        return route + ", replayed" + (" and confirmed by the concrete postcondition (enumeration)" if oracle else "")
    return "undecided"


# -- loading ----------------------------------------------------------------------------------------------------


def _files(paths: Iterable[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.glob("*.py") if not f.name.startswith("_"))
        elif p.is_file() and p.suffix == ".py":
            out.append(p)
        else:
            raise TheoremError(f"{p}: not a theorem file (.py) or a folder of them")
    return out


def load(paths: Iterable[str | Path]) -> list[Theorem]:
    """The ``THEOREMS`` of each Python file (a folder: its ``*.py`` files), each tagged with its file's name."""
    theorems: list[Theorem] = []
    seen: dict[str, Path] = {}
    for f in _files(paths):
        spec = importlib.util.spec_from_file_location(f"cute_proofs_{f.stem}", f)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except LayoutError as exc:
            raise TheoremError(f"{f}: {exc}") from None
        except Exception as exc:  # a theorem file is user code: report it in one line
            raise TheoremError(f"{f}: {type(exc).__name__}: {exc}") from None
        found = getattr(module, "THEOREMS", None)
        if not isinstance(found, list) or not all(isinstance(t, Theorem) for t in found):
            raise TheoremError(f"{f}: defines no THEOREMS list of Theorem")
        for t in found:
            if t.name in seen:
                raise TheoremError(f"{f}: theorem {t.name!r} is also in {seen[t.name]}")
            seen[t.name] = f
            theorems.append(replace(t, family=t.family or f.stem, family_doc=t.family_doc or module.__doc__ or ""))
    return theorems


def prove(theorems: Sequence[Theorem], timeout: float | None = DEFAULT_TIMEOUT,
          rlimit: int | None = DEFAULT_RLIMIT) -> list[TheoremResult]:
    return [t.run(timeout, rlimit) for t in theorems]


__all__ = ["Call", "DOMAINS", "Statement", "Theorem", "TheoremError", "TheoremResult", "bijective", "call", "check",
           "compatible", "equal", "equivalent", "evaluate", "forall", "in_bounds", "injective", "load", "ops",
           "prove", "strategy", "valid"]
