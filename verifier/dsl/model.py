"""Our algebra with ``dsl`` semantics, in the form the DSL harness records: the trace-time print, the refusal, and
the run-time print for each assignment.  ``compare`` says where the two differ."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from verifier.algebra.ops import OffsetLayout
from verifier.algebra.registry import apply
from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.int_tuple import transform_leaf
from verifier.core.integers import Int, substitute
from verifier.core.layouts import Layout
from verifier.core.semantics import DslInvalidLayout, using
from verifier.core.symbols import Symbols
from verifier.dsl.harness import DslCase, DslResult
from verifier.notation.dsl_forms import anonymize, trace_form


@dataclass(frozen=True)
class Prediction:
    trace: str | None
    error: str | None
    values: tuple[str, ...]


def _show(x: object, symbols: Symbols | None, values: bool) -> str:
    from verifier.core.swizzle import ComposedLayout

    if isinstance(x, (Layout, Int, ComposedLayout)) or type(x) is tuple:
        return trace_form(x, symbols, values)  # type: ignore[arg-type]
    return str(x)


def predict(case: DslCase) -> Prediction:
    """What our ``dsl`` semantics says the DSL prints for ``case``."""
    fixed: dict[str, int] = {}
    args = [anonymize(a, fixed) for a in case.args]
    symbols = Symbols()
    for name, n in case.divisible.items():
        symbols.declare(name, multiple_of=n)
    with using("dsl"):
        if case.op == "complement" and len(args) == 1:  # the harness's idiom: complement(L, cosize(filter(L)))
            from verifier.algebra.ops import filter as filter_
            from verifier.core.layouts import cosize

            args = [args[0], cosize(filter_(args[0]))]  # type: ignore[arg-type]
        out = apply(case.op, *args)
    if isinstance(out.rejection, DslInvalidLayout):  # printed, and printed again at run time, as x:x
        return Prediction("x:x", None, ("x:x",) * len(case.assignments or ({},)))
    if out.rejection is not None:
        return Prediction(None, str(out.rejection), ())
    result = out.result
    if result is None:
        return Prediction(None, f"undefined behaviour: {out.undefined}", ())
    if isinstance(result, OffsetLayout):  # local_tile / local_partition: the tensor's layout
        result = result.layout
    trace = _show(result, symbols, False)
    values = []
    for env in case.assignments or ({},):
        full: Mapping[str, int] = {**fixed, **env}
        try:
            concrete = result.substitute(full) if hasattr(result, "substitute") else transform_leaf(
                result, partial(substitute, values=full))
            values.append(_show(concrete, None, True))
        except UndefinedBehavior as exc:
            values.append(f"undefined behaviour: {exc}")
    return Prediction(trace, None, tuple(values))


def compare(p: Prediction, r: DslResult) -> str | None:
    """None when the prediction is what the DSL did, else the difference in one line. A DSL process killed by
    SIGFPE in a call is the run-time division by zero our values predict, and one killed by SIGFPE while tracing
    the static division by zero our ``dsl`` semantics predicts; any other crash while tracing and an
    ``MLIRError`` are refusals, which our ``dsl`` semantics must predict as refusals."""
    if r.crashed is not None and "SIGFPE" in r.crashed and r.crashed.startswith("at run time"):
        if any(v.startswith("undefined behaviour") for v in p.values) and p.trace == r.trace:
            return None
        return f"the DSL divides by zero at run time ({r.crashed}); we predicted {p.trace} = {list(p.values)}"
    if r.crashed is not None and "SIGFPE" in r.crashed:  # while tracing: the DSL's compiler divides by zero
        if p.error is not None and p.error.startswith("undefined behaviour"):
            return None
        return f"the DSL divides by zero while tracing ({r.crashed}); we predicted {p.error or p.trace}"
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
