"""The CuTe DSL as ground truth: cases built inside a host-side ``@cute.jit`` function, run on the CPU.

A case is an algebra operation on our operands (``Layout``, ``Tile``, shapes and integers, in C++ notation) and
the values its named run-time integers take.  Each static leaf becomes a Python ``int`` (static in the DSL), each
dynamic leaf a parameter of the jit function (``cutlass.Int32``, so the DSL sees a run-time value), and a symbol
with ``multiple_of = N`` goes through ``cute.assume(x, divby=N)``.  For every case the harness records

* ``trace``: the result as Python ``print`` shows it at trace time (``((4,?),(3,?)):((1,4),(?,?{div=3}))``);
* ``error``: the DSL's refusal (an exception while tracing: an ``MLIRError`` such as "expects an input with static
  shape"), when it refuses;
* ``values``: the result as ``cute.printf`` prints it at run time, once per assignment of the symbols;
* ``crashed``: the DSL process died (an abort in its C++ library) while this case ran alone.

Cost model (measured on a 2-core machine): importing the DSL costs about 0.8 s per process, tracing and
compiling about 15 ms per case, a call of the compiled function microseconds.  So many cases share one jit
function (``BATCH`` of them, one compile), every assignment is one call of it, and two worker processes run at a
time.  A batch whose process dies is split in halves until the culprit is alone.  Results are cached per case,
keyed by a SHA-256 of the generated code, the parameter values, the DSL version and this harness's sources.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from verifier.algebra import declare
from verifier.algebra.registry import REGISTRY
from verifier.core.basis import ScaledBasis
from verifier.core.errors import LayoutError
from verifier.core.integers import Const, Expr, Int, Op, Sym
from verifier.core.layouts import Layout, Tile, Underscore
from verifier.core.swizzle import ComposedLayout, Swizzle
from verifier.run.files import write_atomic

DSL_VERSION = "4.8.1"
BATCH = 120
WORKERS = 2
TIMEOUT_S = 600
# Bump when the generated code or the way results are read changes (part of every cache key).
FORMAT = 1

# The DSL's spelling of each operation, as its declaration states it (``Operation.dsl``): ``cute.NAME(L)``,
# ``cute.NAME(A, B)``; upcast/downcast/recast_layout go through recast_layout(new, old, L).
UNARY = tuple(n for n, r in REGISTRY.items() if declare.UNARY in r.dsl)
BINARY = tuple(n for n, r in REGISTRY.items() if declare.BINARY in r.dsl)
RECAST = tuple(n for n, r in REGISTRY.items() if declare.RECAST_FORM in r.dsl)
SUPPORTED = (*UNARY, *BINARY, *RECAST)


class Unsupported(LayoutError):
    """The case cannot be written in the DSL's Python API (a swizzle, a scaled basis, a symbolic expression)."""


@dataclass(frozen=True)
class DslCase:
    """``op`` on ``args`` (leading template integers for upcast/downcast/recast_layout, as ``problems.py`` has
    them), run once per assignment of the symbols; ``divisible`` are ``cute.assume`` facts (symbol -> N)."""

    op: str
    args: tuple[object, ...]
    assignments: tuple[Mapping[str, int], ...] = ({},)
    divisible: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class DslResult:
    trace: str | None
    error: str | None
    values: tuple[str, ...]
    crashed: str | None = None
    cached: bool = False

    @property
    def refused(self) -> bool:
        return self.error is not None or self.crashed is not None


# -- code generation ----------------------------------------------------------------------------------------------


class _Code:
    """The DSL code of one case: its body (locals a0, a1, ... are its parameters) and each parameter's source."""

    def __init__(self, divisible: Mapping[str, int]) -> None:
        self.params: list[tuple[str, int | None]] = []  # (symbol name or "", fixed value for a concrete leaf)
        self.names: dict[str, str] = {}
        self.prelude: list[str] = []
        self.divisible = divisible

    def leaf(self, x: object) -> str:
        if isinstance(x, ScaledBasis):
            raise Unsupported("scaled-basis strides are not generated for the DSL harness")
        if not isinstance(x, Int):
            raise Unsupported(f"cannot write {x!r} in the DSL")
        if x.static:
            return str(x.value)
        if x.concrete:
            self.params.append(("", x.value))
            return f"a{len(self.params) - 1}"
        if type(x.expr) is not Sym:
            return self.expr(x.expr)
        return self.symbol(x.expr.name)

    def expr(self, e: Expr) -> str:
        """A run-time expression of sums, differences and products, computed in the DSL's Int32 arithmetic."""
        if type(e) is Const:
            return str(e.value)
        if type(e) is Sym:
            return self.symbol(e.name)
        assert isinstance(e, Op)
        if e.op in ("+", "-", "*"):
            return f"({self.expr(e.args[0])} {e.op} {self.expr(e.args[1])})"
        if e.op == "neg":
            return f"(-{self.expr(e.args[0])})"
        raise Unsupported(f"the run-time expression operator {e.op!r} is not written for the DSL")

    def symbol(self, name: str) -> str:
        if name not in self.names:
            self.params.append((name, None))
            local = f"a{len(self.params) - 1}"
            if self.divisible.get(name, 1) > 1:
                self.prelude.append(f"{local} = cute.assume({local}, divby={self.divisible[name]})")
            self.names[name] = local
        return self.names[name]

    def tuple_(self, t: object) -> str:
        if type(t) is tuple:
            inner = ", ".join(self.tuple_(x) for x in t)
            return f"({inner},)" if len(t) == 1 else f"({inner})"
        return self.leaf(t)

    def coord(self, c: object) -> str:
        if isinstance(c, Underscore):
            return "None"
        if type(c) is tuple:
            return "(" + "".join(self.coord(e) + ", " for e in c) + ")"
        return self.leaf(c)

    def operand(self, x: object) -> str:
        if isinstance(x, Layout):
            return f"cute.make_layout({self.tuple_(x.shape)}, stride={self.tuple_(x.stride)})"
        if isinstance(x, Tile):
            return "(" + "".join(self.operand(e) + ", " for e in x.elements) + ")"
        if isinstance(x, Underscore):
            return "None"
        if isinstance(x, ComposedLayout) and isinstance(x.outer, Swizzle):
            sw = x.outer
            return (f"cute.make_composed_layout(cute.make_swizzle({sw.bits}, {sw.base}, {sw.shift}), "
                    f"{self.leaf(x.offset)}, {self.operand(x.inner)})")
        if isinstance(x, Int) or type(x) is tuple:
            return self.tuple_(x)
        raise Unsupported(f"cannot write the operand {x} in the DSL's Python API")


def _call(case: DslCase, code: _Code) -> str:
    op, args = case.op, case.args
    if op in RECAST:
        if op == "upcast":
            new, old, rest = 8 * int(args[0]), 8, args[1:]  # type: ignore[call-overload]
        elif op == "downcast":
            new, old, rest = 8, 8 * int(args[0]), args[1:]  # type: ignore[call-overload]
        else:
            old, new, rest = int(args[0]), int(args[1]), args[2:]  # type: ignore[call-overload]
        return f"cute.recast_layout({new}, {old}, {code.operand(rest[0])})"
    if op in ("local_tile", "local_partition"):
        # The DSL partitions tensors: a tensor over a (never dereferenced) global pointer, and its result's layout.
        tensor = (f"cute.make_tensor(cute.make_ptr(cutlass.Float32, 0, cute.AddressSpace.gmem), "
                  f"{code.operand(args[0])})")
        return f"cute.{op}({tensor}, {code.operand(args[1])}, {code.coord(args[2])}).layout"
    if op not in SUPPORTED:
        raise Unsupported(f"{op} is not run through the DSL harness")
    if op == "complement" and len(args) == 1:
        # The DSL has no complement(L); its idiom for C++'s default cotarget, cosize(filter(L)), computed by the DSL.
        code.prelude.append(f"x = {code.operand(args[0])}")
        return "cute.complement(x, cute.cosize(cute.filter(x)))"
    if op in ("coalesce", "filter") and len(args) == 2:
        return f"cute.{op}({code.operand(args[0])}, target_profile={code.operand(args[1])})"
    return f"cute.{op}({', '.join(code.operand(a) for a in args)})"


def case_code(case: DslCase) -> tuple[str, list[tuple[str, int | None]]]:
    """The statements that compute the case into ``r`` (locals a0.. are its parameters) and its parameters."""
    code = _Code(case.divisible)
    call = _call(case, code)
    return "\n".join([*code.prelude, f"r = {call}"]), code.params


def _values(params: list[tuple[str, int | None]], env: Mapping[str, int]) -> list[int]:
    out = []
    for name, fixed in params:
        if fixed is not None:
            out.append(fixed)
        elif name in env:
            out.append(int(env[name]))
        else:
            raise LayoutError(f"no value for the symbol {name}")
    return out


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


def batch_source(items: Sequence[tuple[int, str, int, int]], nparams: int) -> str:
    """One jit function for a batch: case k's body runs on parameters p[first .. first+count)."""
    sig = ", ".join(f"p{i}: cutlass.Int32" for i in range(nparams))
    blocks = []
    for k, body, first, count in items:
        binds = "".join(f"a{j} = p{first + j}\n" for j in range(count))
        blocks.append(
            f"try:\n{_indent(binds + body, 4)}\n"
            f"    TRACE[{k}] = {{'trace': str(r), 'error': None}}\n"
            f"    cute.printf(\"@{k} {{}}\", r)\n"
            f"except Exception as exc:\n"
            f"    TRACE[{k}] = {{'trace': TRACE.get({k}, {{}}).get('trace'),"
            f" 'error': type(exc).__name__ + ': ' + ' '.join(str(exc).split())[:400]}}\n")
    body = "\n".join(blocks) or "pass\n"
    return ("import cutlass\nimport cutlass.cute as cute\n\nTRACE = {}\n\n\n@cute.jit\n"
            f"def batch({sig}):\n    cute.printf(\"@@call\")\n{_indent(body, 4)}\n")


# -- running -------------------------------------------------------------------------------------------------------


@dataclass
class _Prepared:
    index: int
    body: str
    params: list[tuple[str, int | None]]
    calls: list[list[int]]
    key: str


def _harness_hash() -> str:
    """The worker's source and ``FORMAT`` (the batch wrapper's version); a case's own code is in its key."""
    return hashlib.sha256((Path(__file__).parent / "_worker.py").read_bytes() + str(FORMAT).encode()).hexdigest()[:16]


def cache_dir() -> Path:
    """``dsl/`` beside the compiled-CuTe cache (``CUTE_VERIFY_CACHE`` or ``XDG_CACHE_HOME`` move both)."""
    root = os.environ.get("CUTE_VERIFY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cute-layout-verifier")
    return Path(root) / "dsl"


def _run_batch(batch: list[_Prepared]) -> dict[int, DslResult]:
    """Run the batch in one worker process (``_worker.py``: crashes are isolated there)."""
    with tempfile.TemporaryDirectory(prefix="cute-dsl-") as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        job.write_text(json.dumps({"cases": [{"body": p.body, "nparams": len(p.params), "calls": p.calls}
                                             for p in batch]}))
        try:
            proc = subprocess.run([sys.executable, "-m", "verifier.dsl._worker", str(job), str(out)],
                                  capture_output=True, text=True, timeout=TIMEOUT_S,
                                  cwd=str(Path(__file__).resolve().parents[2]))
            why = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        except subprocess.TimeoutExpired:
            why = f"timed out after {TIMEOUT_S} s"
        if not out.exists():
            raise LayoutError(f"the DSL harness's worker failed: {why}")
        results = json.loads(out.read_text())["results"]
    return {p.index: DslResult(r["trace"], r["error"], tuple(r["values"]), r["crashed"])
            for p, r in zip(batch, results)}


def run(cases: Sequence[DslCase], *, use_cache: bool = True) -> list[DslResult]:
    """Each case as the DSL computes it (see the module docstring). Raises ``Unsupported`` for a case the DSL's
    Python API cannot express; ``LayoutError`` when ``nvidia-cutlass-dsl`` is not installed."""
    try:
        import importlib.metadata as md

        version = md.version("nvidia-cutlass-dsl")
    except Exception:
        raise LayoutError("the CuTe DSL is not installed: pip install 'cute-layout-verifier[dsl]'") from None
    tool = _harness_hash()
    prepared = []
    for i, case in enumerate(cases):
        body, params = case_code(case)
        calls = [_values(params, env) for env in (case.assignments or ({},))]
        key = hashlib.sha256(json.dumps([FORMAT, version, tool, body, calls]).encode()).hexdigest()
        prepared.append(_Prepared(i, body, params, calls, key))
    cdir = cache_dir()
    results: dict[int, DslResult] = {}
    todo = []
    for p in prepared:
        path = cdir / f"{p.key}.json"
        if use_cache and path.exists():
            d = json.loads(path.read_text())
            results[p.index] = DslResult(d["trace"], d["error"], tuple(d["values"]), d.get("crashed"), cached=True)
        else:
            todo.append(p)
    batches = [todo[i:i + BATCH] for i in range(0, len(todo), BATCH)]
    keys = {p.index: p.key for p in todo}
    cdir.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for part in pool.map(_run_batch, batches):
            results.update(part)
            for index, r in part.items():  # cached batch by batch: an interrupted run keeps what it did
                write_atomic(cdir / f"{keys[index]}.json", json.dumps(
                    {"trace": r.trace, "error": r.error, "values": list(r.values), "crashed": r.crashed}))
    return [results[i] for i in range(len(cases))]
