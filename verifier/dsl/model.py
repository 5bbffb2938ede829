"""Our algebra with ``dsl`` semantics, in the form the DSL harness records: the trace-time print, the refusal, and
the run-time print for each assignment.  ``compare`` says where the two differ."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..algebra import apply
from ..basis import ScaledBasis
from ..errors import LayoutError, UndefinedBehavior
from ..int_tuple import transform_leaf
from ..integers import Int, substitute, symbol
from ..layouts import Layout, Tile
from ..semantics import using
from ..symbols import Symbols
from .harness import DslCase, DslResult
from .trace import trace_form


@dataclass(frozen=True)
class Prediction:
    trace: str | None
    error: str | None
    values: tuple[str, ...]


def _symbolize(obj: object, env: dict[str, int]) -> object:
    """Every concrete run-time leaf a fresh anonymous symbol (``?dN``), its value recorded in ``env``: the DSL
    sees each such leaf as a parameter of the jit function."""

    def leaf(x: Int) -> Int:
        if isinstance(x, ScaledBasis):
            return ScaledBasis(leaf(x.value), x.modes)  # type: ignore[return-value]
        if x.static or not x.concrete:
            return x
        name = f"?d{len(env)}"
        env[name] = int(x.value)  # type: ignore[arg-type]
        return symbol(name)

    if isinstance(obj, Layout):
        return Layout(transform_leaf(obj.shape, leaf), transform_leaf(obj.stride, leaf))
    if isinstance(obj, Tile):
        return Tile([_symbolize(e, env) for e in obj.elements])
    if isinstance(obj, Int) or type(obj) is tuple:
        return transform_leaf(obj, leaf)  # type: ignore[arg-type]
    return obj


def _show(x: object, symbols: Symbols | None, values: bool) -> str:
    if isinstance(x, (Layout, Int)) or type(x) is tuple:
        return trace_form(x, symbols, values)  # type: ignore[arg-type]
    return str(x)


def predict(case: DslCase) -> Prediction:
    """What our ``dsl`` semantics says the DSL prints for ``case``."""
    fixed: dict[str, int] = {}
    args = [_symbolize(a, fixed) for a in case.args]
    symbols = Symbols()
    for name, n in case.divisible.items():
        symbols.declare(name, multiple_of=n)
    with using("dsl"):
        out = apply(case.op, *args)
    if out.rejection is not None:
        return Prediction(None, str(out.rejection), ())
    if out.result is None:
        return Prediction(None, f"undefined behaviour: {out.undefined}", ())
    trace = _show(out.result, symbols, False)
    values = []
    for env in case.assignments or ({},):
        full: Mapping[str, int] = {**fixed, **env}
        try:
            r = out.result
            concrete = r.substitute(full) if isinstance(r, Layout) else transform_leaf(
                r, lambda x: substitute(x, full))  # type: ignore[arg-type]
            values.append(_show(concrete, None, True))
        except UndefinedBehavior as exc:
            values.append(f"undefined behaviour: {exc}")
    return Prediction(trace, None, tuple(values))


def compare(p: Prediction, r: DslResult) -> str | None:
    """None when the prediction is what the DSL did, else the difference in one line."""
    if r.crashed is not None or r.error is not None:
        if p.error is not None:
            return None
        return f"the DSL refuses ({r.crashed or r.error}); we computed {p.trace}"
    if p.error is not None:
        return f"the DSL computes {r.trace} = {list(r.values)}; we said {p.error}"
    if p.trace != r.trace:
        return f"trace {p.trace} vs DSL {r.trace}"
    if p.values != r.values:
        return f"values {list(p.values)} vs DSL {list(r.values)}"
    return None


__all__ = ["Prediction", "compare", "predict", "LayoutError"]
