"""Verifying a user's host-side ``@cute.jit`` function: every layout operation it performs, for every value of
its parameters.

The function's Python body runs once with ``cute`` and ``cutlass`` bound to a recording stand-in (``_Cute``):
each integer parameter is a named run-time integer (the parameter's name, an int32 or int64 as annotated, in
the range ``--arg NAME=LO..HI`` gives it), a Python ``int`` is static, as in the DSL.  Each layout operation is
computed by our algebra with ``dsl`` semantics (its agreement with the DSL is what ``tests/differential/test_dsl_*.py``
establish) and recorded with its operands, the ``cute.assume`` facts known at that point and the user's source
line; then each recorded operation is verified symbolically by the engine, so a counterexample names the
function's parameters.  A value the stand-in cannot tie to a parameter (``cute.arch.thread_idx()``, a value read
from memory) is a fresh unconstrained run-time integer named after its line, and said so in the report.

Where the DSL itself is installed, ``crosscheck`` traces the same function with the real DSL and compares the
trace form of every recorded result with ours."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from verifier.algebra import ops as algebra
from verifier.algebra import registry
from verifier.algebra.declare import TRACED
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.int_tuple import IntTuple, product
from verifier.core.integers import Int, S, eq, mod, symbol
from verifier.core.layouts import Layout, Tile, Underscore, cosize, make_layout, rank, size
from verifier.core.semantics import using
from verifier.core.symbols import INT32_MAX, INT64_MAX, Symbols
from verifier.engine.verdicts import Policy, Verdict

INT_TYPES = {"Int32": 32, "Int64": 64, "Uint32": 32, "Int16": 16, "Int8": 8, "int": 32}
_RANGE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(-?\d+)(?:\.\.(-?\d+))?$")


class TraceError(LayoutError):
    """The function cannot be traced (a bad FILE::FUNCTION, a parameter of a kind we cannot model, an error in the
    user's code): one line naming the place."""


@dataclass(frozen=True)
class Recorded:
    """One layout operation of the user's function: our operation name and operands (over the parameters), the
    result as the DSL's trace form, and where it happened."""

    op: str
    args: tuple[object, ...]
    result: str
    line: int
    source: str
    call: str  # the DSL spelling, e.g. cute.recast_layout(128, 16, ...)
    untied: tuple[str, ...] = ()


@dataclass
class Trace:
    path: str
    function: str
    params: tuple[str, ...]
    symbols: Symbols
    ops: list[Recorded] = field(default_factory=list)
    facts: list[tuple[str, int, str]] = field(default_factory=list)  # (fact, line, source)
    untied: list[tuple[str, int, str]] = field(default_factory=list)  # (symbol, line, what)
    assumed: tuple[str, ...] = ()  # the --assume relations
    unmodelled: list[tuple[str, int, str]] = field(default_factory=list)  # calls not verified: (what, line, source)


# -- the stand-in for cutlass / cutlass.cute ------------------------------------------------------------------------


class _Tensor:
    """A tensor of the user's function: only its layout matters here (the pointer's offset is not a layout)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    @property
    def shape(self) -> IntTuple:
        return self.layout.shape

    @property
    def stride(self) -> IntTuple:
        return self.layout.stride

    def __str__(self) -> str:
        return f"tensor<{self.layout}>"


class _Opaque:
    """A value the tracer does not model (a pointer, a numeric type, an atom): carried along, never a layout
    operand. Calling one is recorded as an operation the tracer did not verify."""

    def __init__(self, what: str, tracer: _Tracer | None = None) -> None:
        self.what = what
        self._t = tracer

    def __getattr__(self, name: str) -> _Opaque:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Opaque(f"{self.what}.{name}", self._t)

    def __call__(self, *args: object, **kwargs: object) -> _Opaque:
        if self._t is not None:
            line = self._t.line()
            self._t.trace.unmodelled.append((self.what, line, self._t.source(line)))
        return _Opaque(f"{self.what}(...)", self._t)


def _int_tuple(x: object, tracer: _Tracer) -> IntTuple:
    if isinstance(x, bool):
        raise TraceError(f"line {tracer.line()}: a bool is not an integer of a layout")
    if isinstance(x, int):
        return S(x)
    if isinstance(x, Int):
        return x
    if isinstance(x, (tuple, list)):
        return tuple(_int_tuple(e, tracer) for e in x)
    raise TraceError(f"line {tracer.line()}: {x!r} is not an integer or a tuple of integers")


def _operand(x: object, tracer: _Tracer) -> object:
    """A DSL operand as ours: a layout, a tensor's layout, a tiler tuple (a ``Tile`` when it holds layouts)."""
    if isinstance(x, _Tensor):
        return x.layout
    if isinstance(x, Layout):
        return x
    if x is None:
        return Underscore()
    if isinstance(x, (tuple, list)) and any(isinstance(e, Layout) or e is None for e in x):
        return Tile([_operand(e, tracer) for e in x])  # type: ignore[misc]
    return _int_tuple(x, tracer)


class _Tracer:
    def __init__(self, trace: Trace, path: Path) -> None:
        self.trace = trace
        self.path = path.resolve()
        self.lines = path.read_text().splitlines()
        self.untied = 0

    def line(self) -> int:
        for frame in inspect.stack()[1:]:
            if Path(frame.filename).resolve() == self.path:
                return frame.lineno
        return 0

    def source(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    def fresh(self, what: str) -> Int:
        line = self.line()
        self.untied += 1
        name = f"u{self.untied}_L{line}"
        # Any int32 a size can be (a negative extent is no layout; tool-wide, extents are >= 0).
        self.trace.symbols.declare(name, lo=0, hi=INT32_MAX)
        self.trace.untied.append((name, line, what))
        return symbol(name)

    def run(self, op: str, call: str, *args: object) -> object:
        line = self.line()
        with using("dsl"):
            outcome = registry.apply(op, *args)
        if outcome.rejection is not None:
            shown = "x:x" if "x:x" in str(outcome.rejection) else f"refused: {outcome.rejection.assertion}"
            self.record(op, args, shown, line, call)
            raise _Refused(line, str(outcome.rejection))
        if outcome.result is None:
            self.record(op, args, f"undefined behaviour: {outcome.undefined}", line, call)
            raise _Refused(line, f"undefined behaviour: {outcome.undefined}")
        from verifier.notation.dsl_forms import trace_form

        r = outcome.result
        shown = trace_form(r.layout if isinstance(r, algebra.OffsetLayout) else r, self.trace.symbols)
        self.record(op, args, shown, line, call)
        return r

    def record(self, op: str, args: tuple[object, ...], shown: str, line: int, call: str) -> None:
        names: set[str] = set()
        for a in args:
            names |= _names(a)
        untied = tuple(sorted(n for n, _, _ in self.trace.untied if n in names))
        self.trace.ops.append(Recorded(op, tuple(args), shown, line, self.source(line), call, untied))


class _Refused(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def _names(x: object) -> set[str]:
    if isinstance(x, Layout):
        return x.symbols()
    if isinstance(x, Tile):
        return set().union(*(_names(e) for e in x.elements)) if x.elements else set()
    if isinstance(x, Int):
        return x.symbols()
    if type(x) is tuple:
        return set().union(*(_names(e) for e in x)) if x else set()
    return set()


class _Cute(types.SimpleNamespace):
    """``cutlass.cute`` as the tracer models it. Every function the user may call on layouts is here; any other
    attribute is an opaque value (a type, an address space, an atom) that must not reach a layout operation."""

    def __init__(self, tracer: _Tracer) -> None:
        super().__init__()
        self._t = tracer

    def __getattr__(self, name: str) -> object:
        if name in ("arch",):
            return _Arch(self._t)
        if name.startswith("__"):
            raise AttributeError(name)
        return _Opaque(f"cute.{name}", self._t)

    # -- construction ----------------------------------------------------------------------------------------
    def make_layout(self, shape: object, *, stride: object = None, **_: object) -> Layout:
        s = _int_tuple(shape, self._t)
        if stride is None:
            return make_layout(s, "LayoutLeft")
        return Layout(s, _int_tuple(stride, self._t))

    def make_ordered_layout(self, shape: object, order: object, **_: object) -> Layout:
        return algebra.make_ordered_layout(_int_tuple(shape, self._t), _int_tuple(order, self._t))

    def make_ptr(self, *args: object, **kwargs: object) -> _Opaque:
        return _Opaque("pointer")  # its address never enters a layout: nothing to verify

    def make_tensor(self, ptr: object, layout: object, **_: object) -> _Tensor:
        if not isinstance(layout, Layout):
            raise TraceError(f"line {self._t.line()}: make_tensor: the tracer models a tensor by its Layout")
        return _Tensor(layout)

    def assume(self, src: object, divby: int | None = None, pow2: bool | None = None, **_: object) -> object:
        line = self._t.line()
        if isinstance(src, Int) and divby is not None and divby > 1 and not src.static:
            fact = eq(mod(src, S(divby)), S(0))
            self._t.trace.symbols.assume(fact)
            if len(src.symbols()) == 1 and str(src) in self._t.trace.symbols:
                self._t.trace.symbols.declare(str(src), multiple_of=divby)
            self._t.trace.facts.append((f"{src} % {divby} == 0", line, self._t.source(line)))
        return src

    # -- queries ---------------------------------------------------------------------------------------------
    def size(self, x: object, mode: Sequence[int] | None = None, **_: object) -> Int:
        x = _operand(x, self._t)
        if mode is not None:
            return size(x, *mode)  # type: ignore[arg-type]
        return size(x)  # type: ignore[arg-type]

    def cosize(self, x: object, **_: object) -> Int:
        return cosize(_operand(x, self._t))  # type: ignore[arg-type]

    def rank(self, x: object, **_: object) -> int:
        return rank(_operand(x, self._t))  # type: ignore[arg-type]

    def product(self, x: object, **_: object) -> Int:
        return product(_int_tuple(x, self._t))

    def ceil_div(self, a: object, b: object, **_: object) -> IntTuple:
        from verifier.core.int_tuple import ceil_div

        return ceil_div(_int_tuple(a, self._t), _int_tuple(b, self._t))

    def printf(self, *args: object, **kwargs: object) -> None:
        return None

    # -- the algebra -----------------------------------------------------------------------------------------
    def _apply(self, op: str, *args: object) -> object:
        ours = [_operand(a, self._t) for a in args]
        call = f"cute.{op}(" + ", ".join(_shown(a) for a in ours) + ")"
        r = self._t.run(op, call, *ours)
        return r

    def _tensor_or_layout(self, op: str, target: object, *rest: object) -> object:
        r = self._apply(op, target, *rest)
        if isinstance(r, algebra.OffsetLayout):
            r = r.layout
        return _Tensor(r) if isinstance(target, _Tensor) and isinstance(r, Layout) else r

    def recast_layout(self, new_type_bits: int, old_type_bits: int, src_layout: object, **_: object) -> object:
        layout = _operand(src_layout, self._t)
        call = f"cute.recast_layout({new_type_bits}, {old_type_bits}, {_shown(layout)})"
        return self._t.run("recast_layout", call, old_type_bits, new_type_bits, layout)

    def local_tile(self, input: object, tiler: object, coord: object, proj: object = None, **_: object) -> object:
        if proj is not None:
            raise TraceError(f"line {self._t.line()}: local_tile with a projection is not modelled")
        c = _coord(coord, self._t)
        layout, t = _operand(input, self._t), _operand(tiler, self._t)
        r = self._t.run("local_tile", f"cute.local_tile({_shown(layout)}, {_shown(t)}, {_shown(c)})", layout, t, c)
        return _Tensor(r.layout) if isinstance(input, _Tensor) else r.layout  # type: ignore[attr-defined]

    def local_partition(self, target: object, tiler: object, index: object, proj: object = 1, **_: object
                        ) -> object:
        layout, thr = _operand(target, self._t), _operand(tiler, self._t)
        i = _int_tuple(index, self._t)
        r = self._t.run("local_partition", f"cute.local_partition({_shown(layout)}, {_shown(thr)}, {_shown(i)})",
                        layout, thr, i)
        return _Tensor(r.layout) if isinstance(target, _Tensor) else r.layout  # type: ignore[attr-defined]


def _shown(x: object) -> str:
    from verifier.notation.cpp import show

    if isinstance(x, _Tensor):
        return show(x.layout)
    if type(x) is tuple:
        return "(" + ",".join(_shown(e) for e in x) + ")"
    if isinstance(x, Underscore):
        return "_"
    if isinstance(x, (Layout, Tile, Int)):
        return show(x)
    return str(x)


def _coord(c: object, tracer: _Tracer) -> object:
    if c is None:
        return Underscore()
    if isinstance(c, (tuple, list)):
        return tuple(_coord(e, tracer) for e in c)
    return _int_tuple(c, tracer)


# The operations ``cute.NAME`` runs the algebra for (their declarations say ``TRACED``, ``algebra.declare``).
_ALGEBRA = tuple(n for n, r in registry.REGISTRY.items() if TRACED in r.dsl)


def _bind(op: str) -> Callable[..., object]:
    def method(self: _Cute, *args: object, **kwargs: object) -> object:
        if kwargs.get("target_profile") is not None:
            args = (*args, kwargs["target_profile"])
        return self._tensor_or_layout(op, *args)

    method.__name__ = op
    return method


for _op in _ALGEBRA:
    setattr(_Cute, _op, _bind(_op))


class _Arch:
    """``cute.arch``: thread and block indices are run-time values no parameter determines."""

    def __init__(self, tracer: _Tracer) -> None:
        self._t = tracer

    def __getattr__(self, name: str) -> Callable[..., object]:
        def value(*args: object, **kwargs: object) -> object:
            return (self._t.fresh(f"cute.arch.{name}()"),) * 3

        return value


class _Cutlass(types.SimpleNamespace):
    """``cutlass``: ``cutlass.Int32(x)`` is a run-time integer; ``cutlass.cute`` is the stand-in."""

    def __init__(self, cute: _Cute, tracer: _Tracer) -> None:
        super().__init__(cute=cute)
        self._t = tracer

    def __getattr__(self, name: str) -> object:
        if name in INT_TYPES:
            return _IntType(name, self._t)
        if name.startswith("__"):
            raise AttributeError(name)
        return _Opaque(f"cutlass.{name}", self._t)


class _IntType:
    def __init__(self, name: str, tracer: _Tracer) -> None:
        self.name, self._t = name, tracer

    def __call__(self, value: object) -> Int:
        if isinstance(value, Int):
            return Int(value.expr, False)
        if isinstance(value, int) and not isinstance(value, bool):
            from verifier.core.integers import D

            return D(value)
        return self._t.fresh(f"cutlass.{self.name}({value!r})")


# -- loading and running ------------------------------------------------------------------------------------------


def parse_args(items: Sequence[str]) -> dict[str, tuple[int, int]]:
    """``--arg NAME=LO..HI`` (or ``NAME=V``): the range of a parameter."""
    out: dict[str, tuple[int, int]] = {}
    for item in items:
        m = _RANGE.match(item.strip())
        if not m:
            raise TraceError(f"--arg {item!r}: expected NAME=LO..HI or NAME=VALUE, e.g. --arg M=1..65536")
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) is not None else lo
        if lo > hi:
            raise TraceError(f"--arg {item!r}: the range is empty")
        if m.group(1) in out:
            raise TraceError(f"--arg {m.group(1)} is given twice")
        out[m.group(1)] = (lo, hi)
    return out


def load(target: str) -> tuple[Path, str, types.FunctionType]:
    """``FILE.py::FUNCTION`` as (path, name, the function's undecorated Python body)."""
    if "::" not in target:
        raise TraceError(f"{target!r}: expected FILE.py::FUNCTION")
    file, name = target.rsplit("::", 1)
    path = Path(file)
    if not path.is_file():
        raise TraceError(f"{file}: no such file")
    spec = importlib.util.spec_from_file_location(f"_cute_verify_user_{abs(hash(str(path.resolve())))}", path)
    if spec is None or spec.loader is None:
        raise TraceError(f"{file}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        line = _user_line(exc, path)
        raise TraceError(f"{file}:{line}: importing it raised {type(exc).__name__}: {exc}") from None
    finally:
        sys.path.remove(str(path.resolve().parent))
    fn = getattr(module, name, None)
    if fn is None or not callable(fn):
        raise TraceError(f"{file}: no function {name!r}")
    body = getattr(fn, "__wrapped__", fn)
    if not isinstance(body, types.FunctionType):  # a class or a builtin has no Python body to trace
        raise TraceError(f"{file}: {name!r} is not a Python function (it is a {type(body).__name__})")
    return path, name, body


def _user_line(exc: BaseException, path: Path) -> int:
    if isinstance(exc, SyntaxError) and exc.lineno:  # raised by the compiler: no frame of the file to walk
        return exc.lineno
    tb = exc.__traceback__
    line = 0
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _param_bits(annotation: object) -> int | None:
    name = getattr(annotation, "__name__", None) or str(annotation).rsplit(".", 1)[-1]
    return INT_TYPES.get(str(name))


def trace(target: str, ranges: Mapping[str, tuple[int, int]] | None = None,
          assume: Sequence[str] = ()) -> Trace:
    """Run ``FILE.py::FUNCTION`` under the recording stand-in and return what it did."""
    path, name, fn = load(target)
    ranges = dict(ranges or {})
    sig = inspect.signature(fn)
    symbols = Symbols()
    values: list[object] = []
    params: list[str] = []
    for p in sig.parameters.values():
        bits = _param_bits(p.annotation)
        if bits is None:
            raise TraceError(f"{path}: parameter {p.name}: only integer parameters (cutlass.Int32, cutlass.Int64) "
                             "are modelled")
        lo, hi = ranges.pop(p.name, (1, INT64_MAX if bits == 64 else INT32_MAX))
        symbols.declare(p.name, lo=lo, hi=hi, bits=64 if bits == 64 else 32)
        values.append(symbol(p.name))
        params.append(p.name)
    if ranges:
        raise TraceError(f"--arg {sorted(ranges)[0]}: {name} has no parameter of that name "
                         f"(its parameters: {', '.join(params) or 'none'})")
    from verifier.run.problems import assume as add_relations

    add_relations(symbols, assume)
    result = Trace(str(path), name, tuple(params), symbols, assumed=tuple(assume))
    tracer = _Tracer(result, path)
    cute = _Cute(tracer)
    cutlass = _Cutlass(cute, tracer)
    glb = dict(fn.__globals__)
    for k, v in list(glb.items()):
        if isinstance(v, types.ModuleType) and v.__name__ == "cutlass.cute":
            glb[k] = cute
        elif isinstance(v, types.ModuleType) and v.__name__ == "cutlass":
            glb[k] = cutlass
    shadow = types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)
    try:
        shadow(*values)
    except _Refused:
        pass  # recorded: the DSL stops tracing at the refused operation
    except TraceError:
        raise
    except (CuteRejection, UndefinedBehavior, LayoutError, TypeError, AttributeError, ValueError) as exc:
        line = _user_line(exc, path)
        raise TraceError(f"{path}:{line}: the tracer cannot follow this line ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # an error of the user's own code, at its line: bad input, not ours
        line = _user_line(exc, path)
        raise TraceError(f"{path}:{line}: the function raised {type(exc).__name__}: {exc}") from None
    return result


@dataclass(frozen=True)
class Finding:
    op: Recorded
    verdict: Verdict


def verify_trace(t: Trace, timeout: float | None = None, strict: bool = False) -> list[Finding]:
    """Each recorded operation verified for every admitted value of the parameters, with dsl semantics
    (``strict``: warnings, such as a partial last tile, are errors)."""
    from verifier.engine.problem import Operation, decide

    return [Finding(r, decide(Operation(r.op, tuple(r.args), t.symbols, Policy(strict=strict), timeout,
                                        semantics="dsl", via_divide=True))) for r in t.ops]


def sample_values(t: Trace) -> list[int]:
    """The smallest admitted value of each parameter's own range (trace-time forms do not depend on the values;
    the relations between parameters are not consulted), for running the function with the real DSL."""
    out = []
    for n in t.params:
        s = t.symbols.table[n]
        v = max(s.lo, 1)
        while v % s.multiple_of:
            v += 1
        out.append(v)
    return out


def crosscheck(t: Trace, values: Sequence[int] | None = None) -> list[str]:
    """Trace the same function with the real CuTe DSL (in a subprocess) and compare the trace-time form of each
    recorded result with ours, in order. Returns the differences (empty: the DSL agrees at every operation)."""
    import json
    import subprocess
    import tempfile

    vals = list(values) if values is not None else sample_values(t)
    with tempfile.TemporaryDirectory(prefix="cute-dsl-") as tmp:
        out = Path(tmp) / "out.json"
        # The worker runs in the package root (to import this verifier): the user's path is made absolute first.
        proc = subprocess.run([sys.executable, "-m", "verifier.dsl._crosscheck", str(Path(t.path).resolve()),
                               t.function, json.dumps(vals), str(out)], capture_output=True, text=True, timeout=600,
                              cwd=str(Path(__file__).resolve().parents[2]))
        if not out.exists():
            last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            return [f"the DSL could not trace {t.function}: {last}"]
        real = json.loads(out.read_text())
    diffs = []
    ours = [(r.op, r.line, r.result) for r in t.ops]
    theirs = [(d["op"], d["line"], d["trace"]) for d in real["ops"]]
    for k in range(max(len(ours), len(theirs))):
        a = ours[k] if k < len(ours) else None
        b = theirs[k] if k < len(theirs) else None
        if a is not None and b is None and a[2].startswith("refused") and real["error"]:
            continue  # the DSL raised at the operation we say it refuses: nothing to record
        if a != b:
            diffs.append(f"operation {k + 1}: ours {a}, the DSL's {b}")
    if real["error"] and not (t.ops and t.ops[-1].result.startswith(("refused", "x:x", "undefined"))):
        diffs.append(f"the DSL raised {real['error']}")
    return diffs


__all__ = ["Finding", "Recorded", "Trace", "TraceError", "crosscheck", "parse_args", "trace", "verify_trace"]
