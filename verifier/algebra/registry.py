"""The one operation registry: every operation the tool models, with what each consumer needs to know of it,
collected from the declarations beside the algorithms (``@declare(...)``, ``algebra.declare``).

The command line, the spec loader, the claims, the C++ generators, the GPU harness, the DSL, the sweep, the guard
search and the docs all read ``REGISTRY``; ``tests/project/test_registry.py`` checks that every declaration has its
contract, its C++ check (``oracle.cute_cpp``), its row in ``docs/semantics.md`` and its operand signature, or an
explicit "not modelled" marker, and that no other module keeps a table of operations.  Adding an operation means
writing its algorithm with its declaration (and its contract) in a declaring module (``DECLARING``).

``apply(op, *args)`` runs a registered operation as CuTe would and returns its result with the obligations the
call incurred (``Outcome``): CuTe's rejections and undefined behaviour become data, not errors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from verifier.algebra import composed as composed_ops
from verifier.algebra.declare import CALL, DECLARING, RECAST, SLICE, TEMPLATED, TENSOR, Operation, collect
from verifier.algebra.ops import OffsetLayout
from verifier.core.basis import has_basis
from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
from verifier.core.integers import Int, symbol
from verifier.core.layouts import Layout, Tile
from verifier.core.obligations import Obligation, Recorder
from verifier.core.operands import map_leaves
from verifier.core.overflow import watching
from verifier.core.semantics import using
from verifier.core.swizzle import is_swizzled
from verifier.notation.interop import coerce

# Collected from the declaring modules (``declare.DECLARING``).
REGISTRY: Mapping[str, Operation] = MappingProxyType(dict(collect(DECLARING)))
# The operations by name, for callers that only need the function.
OPERATIONS: Mapping[str, Callable[..., object]] = MappingProxyType({n: r.fn for n, r in REGISTRY.items()})
SWIZZLE_OPERATIONS = frozenset(n for n, r in REGISTRY.items() if r.swizzled)
BASIS_OPERATIONS = frozenset(n for n, r in REGISTRY.items() if r.basis)
TEMPLATE_ARGS: Mapping[str, int] = MappingProxyType({n: r.template for n, r in REGISTRY.items() if r.template})


def check_operands(row: Operation, args: tuple[object, ...]) -> None:
    """A one-line ``LayoutError`` when ``row`` is given an operand kind it is not modelled for."""

    def kinds(x: object) -> set[str]:
        if isinstance(x, Tile):
            return set().union(*(kinds(e) for e in x.elements)) if x.elements else set()
        if is_swizzled(x):
            return {"swizzled"}
        if isinstance(x, Layout) and has_basis(x.stride):
            return {"basis"}
        return set()

    found = set().union(*(kinds(a) for a in args)) if args else set()
    if "swizzled" in found and not row.swizzled:
        raise LayoutError(f"{row.name}: swizzle and composed-layout operands are modelled only for "
                          f"{', '.join(sorted(SWIZZLE_OPERATIONS))}")
    if "basis" in found and not row.basis:
        raise LayoutError(f"{row.name}: scaled-basis strides are modelled only for "
                          f"{', '.join(sorted(BASIS_OPERATIONS))}")


@dataclass(frozen=True)
class Outcome:
    """The result CuTe computes (or its rejection / undefined behaviour) and the obligations the call incurred."""

    result: Layout | Int | OffsetLayout | None
    obligations: tuple[Obligation, ...]
    rejection: CuteRejection | None = None
    undefined: str | None = None


def apply(op: str, *args: object, semantics: str | None = None) -> Outcome:
    """Run ``op`` as CuTe would and collect its obligations; CuTe's rejections and UB become data, not errors.
    ``semantics`` (``cpp`` or ``dsl``, semantics.py) picks which CuTe; by default the one in force."""
    if semantics is not None:
        with using(semantics):
            return apply(op, *args)
    row = REGISTRY.get(op)
    if row is None:
        raise LayoutError(f"unknown operation {op!r}; known: {', '.join(sorted(REGISTRY))}")
    fn = row.fn
    args = tuple(coerce(a) for a in args)  # pycute layouts are accepted (interop.py)
    if composed_ops.takes_composed(op, args):
        plain = fn
        fn = lambda *a: composed_ops.apply_composed(op, plain, a)  # noqa: E731 - CuTe's composed overloads
    else:
        check_operands(row, args)
    with Recorder() as rec:
        try:
            with watching(op):  # CuTe's integer types: each intermediate that can overflow (core/overflow.py)
                result = fn(*args)
        except CuteRejection as exc:
            return Outcome(None, tuple(rec.obligations), rejection=exc)
        except UndefinedBehavior as exc:
            undefined = str(exc)
        else:
            return Outcome(result, tuple(rec.obligations))  # type: ignore[arg-type]
    # A compile-time rejection comes before any run-time division by zero. CuTe's static checks depend only on
    # static values, so rerun with every run-time value symbolic: no division can fault, every check still fires.
    try:
        with Recorder():
            fn(*(_symbolize(a) for a in args))
    except CuteRejection as exc:
        return Outcome(None, tuple(rec.obligations), rejection=exc)
    except UndefinedBehavior:
        pass
    return Outcome(None, tuple(rec.obligations), undefined=undefined)


def _symbolize(obj: object, counter: list[int] | None = None) -> object:
    """``obj`` with each concrete run-time leaf replaced by a fresh symbol (static leaves kept)."""
    counter = counter if counter is not None else [0]

    def leaf(x: Int) -> Int:
        if x.static or not x.concrete:
            return x
        counter[0] += 1
        return symbol(f"?rt{counter[0]}")

    return map_leaves(obj, leaf)




__all__ = ["BASIS_OPERATIONS", "CALL", "DECLARING", "OPERATIONS", "RECAST", "REGISTRY", "SLICE", "SWIZZLE_OPERATIONS",
           "TEMPLATED", "TEMPLATE_ARGS", "TENSOR", "Operation", "Outcome", "apply", "check_operands"]
