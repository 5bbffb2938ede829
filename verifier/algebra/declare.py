"""The declaration of an operation, written beside its algorithm: ``@declare(...)`` on the function that computes
it.  Every per-operation table of the tool (the registry, the exports of ``verifier.algebra``, the command line's
commands and their help, the spec loader's operations, the contracts' table, the C++ generator's cases, the DSL's
and the sweep's lists, the guard search's index operands, the domain check's coordinates and the tables of
``docs/semantics.md``) is read from these declarations (``registry.REGISTRY`` collects them).

Imports ``core`` only, so that any ``algebra`` module can declare its operations.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from verifier.core.claim import Claim

# How compiled CuTe is called for an operation (Operation.cpp).
CALL, TEMPLATED, RECAST, SLICE, TENSOR = "call", "templated", "recast", "slice", "tensor"
# What an operation returns (Operation.result): a layout, an integer, a layout with an offset (a tensor's view),
# a pair of layouts (CuTe's tuple of a tiler and a TV layout), a tiled object, a TMA box.
LAYOUT, INDEX, OFFSET_LAYOUT, PAIR, TILED, BOX = "layout", "index", "offset layout", "pair", "tiled", "box"
RESULTS = (LAYOUT, INDEX, OFFSET_LAYOUT, PAIR, TILED, BOX)
# How the CuTe DSL reaches an operation (Operation.dsl): the GPU harness calls it as ``cute.NAME(L)`` (UNARY),
# ``cute.NAME(A, B)`` (BINARY) or through ``cute.recast_layout(new, old, L)`` (RECAST_FORM); the tracer binds
# ``cute.NAME`` to the algebra (TRACED); the DSL cross-check records the trace-time form of ``cute.NAME``'s result
# (RECORDED).
UNARY, BINARY, RECAST_FORM, TRACED, RECORDED = "unary", "binary", "recast", "traced", "recorded"
DSL_USES = (UNARY, BINARY, RECAST_FORM, TRACED, RECORDED)
# What CuTe does with a composed layout ``A o O o B`` as the first operand (Operation.composed,
# ``algebra.composed``): forwards the operation to B (layout_composed.hpp:446-582), recasts the swizzle with it, or
# slices B and folds the offset.
BY_INNER, BY_RECAST, BY_SLICE = "forwarded to the inner layout", "recast with its swizzle", "sliced"

F = TypeVar("F", bound=Callable[..., object])


@dataclass(frozen=True)
class Operation:
    """One operation as CuTe names it.

    ``operands``: the kinds of its operands after its ``template`` leading C++ template integers (``upcast<N>``):
    ``L`` a layout, ``T`` a tiler, ``S`` a shape, ``C`` a coordinate (may hold ``_``), ``I`` an integer, ``O`` an
    order; ``A|B`` either, a trailing ``?`` optional.  ``result``: what it returns (``RESULTS``).  ``swizzled`` /
    ``basis``: it takes swizzles and composed layouts / scaled-basis strides directly (CuTe's overloads,
    ``algebra.swizzled``); ``composed``: what CuTe does with a composed layout as its first operand (``BY_INNER``,
    ``BY_RECAST``, ``BY_SLICE``; ``algebra.composed``).  ``cpp``: how compiled CuTe is called for it
    (``oracle.cute_cpp.operation_case``): ``CALL`` the function of that name, ``TEMPLATED`` with its template
    integers (``upcast<N>``), ``RECAST`` ``recast_layout<uint_bit_t<Old>, uint_bit_t<New>>``, ``SLICE`` through
    ``slice_and_offset``, ``TENSOR`` on a tensor over a counting iterator; or ``None`` with ``not_compiled`` saying
    why it has no C++ check of its own.  ``through``: the operation it is decided through where it has no symbolic
    postcondition of its own (a partition: the ``zipped_divide`` it slices, ``engine.verify``).
    ``dsl``: how the CuTe DSL reaches it (``DSL_USES``).  ``sweep``: compiled CuTe's results are compared with its
    contract over a corpus (``oracle.sweep``).  ``example``: a representative dynamic case, the command-line
    arguments after the operation's name (shown in ``cute-verify OP --help``, decided by
    tests/frontends/test_cli_operations.py, and the operands of its C++ check in tests/project/test_registry.py).
    ``indices``: the positions (among ``operands``) that are indices (a slice coordinate, a tile coordinate, a
    thread index): a symbol only they name starts at 0 unless the user states its lower bound
    (``core.symbols.Symbols.index_default``), and a guard constrains none of the symbols found only there
    (``engine.guards``); the operands that are coordinates (kind ``C``) and the indices are no extents
    (``solver.domain``).  ``widths``: the template integers that are element widths in bits
    (``recast_layout<Old, New>``, ``make_tma_box``'s element): the guard search derives its moduli in elements from
    them.  ``contract``: the function that states its postcondition as claims over its result and operands (a
    ``Claim`` builder, ``builder(result, *operands)``), written beside the algorithm.  ``records``: the prefixes of the
    obligation ids its algorithm and its contract record (``obligations`` reads them, with their severities, from
    the catalogue, ``core.obligations``).  ``docs``: its rows of ``docs/semantics.md``'s table of operations (the
    call, the postcondition, the obligations recorded), which ``docs/generate.py`` writes there.
    """

    name: str
    fn: Callable[..., object]
    operands: tuple[str, ...]
    source: str
    contract: Callable[..., list[Claim]]
    result: str = LAYOUT
    records: tuple[str, ...] = ()
    template: int = 0
    swizzled: bool = False
    basis: bool = False
    cpp: str | None = None
    not_compiled: str = ""
    dsl: tuple[str, ...] = ()
    sweep: bool = False
    example: tuple[str, ...] = ()
    indices: tuple[int, ...] = ()
    widths: tuple[int, ...] = ()
    docs: tuple[tuple[str, str, str], ...] = ()
    composed: str = ""
    through: str = ""

    @property
    def coordinates(self) -> tuple[int, ...]:
        """The operand positions that are positions, not extents: the coordinates and the indices."""
        return tuple(sorted({k for k, kind in enumerate(self.operands) if kind.rstrip("?") == "C"}
                            | set(self.indices)))

    @property
    def obligations(self) -> dict[str, str]:
        """The obligation ids its algorithm records, each with its severity, as the catalogue states them."""
        from verifier.core.obligations import KNOWN, severity

        return {i: severity(i) for i in sorted(KNOWN) if any(i == p or i.startswith(f"{p}-") for p in self.records)}

    def claims(self) -> Callable[..., list[Claim]]:
        """Its contract's claim builder."""
        return self.contract


# Every declaration, in the order the declaring modules were imported and, within one, of the source.
DECLARED: dict[str, Operation] = {}
# The modules that declare operations, in the order of the registry.
DECLARING = ("verifier.algebra.ops", "verifier.algebra.predication", "verifier.algebra.tma")


def declare(operands: tuple[str, ...], source: str, contract: Callable[..., list[Claim]],
            name: str | None = None, **fields: object) -> Callable[[F], F]:
    """Declare the decorated function as the operation ``name`` (its own name by default), with the fields of
    ``Operation``; the function itself is unchanged."""
    def register(fn: F) -> F:
        op = Operation(name or fn.__name__, fn, operands, source, contract, **fields)  # type: ignore[arg-type]
        if op.name in DECLARED and DECLARED[op.name].fn is not fn:
            raise ValueError(f"operation {op.name!r} is declared twice")
        DECLARED[op.name] = op
        return fn

    return register


def collect(modules: tuple[str, ...] = DECLARING) -> Mapping[str, Operation]:
    """The declarations of ``modules`` (imported here), in declaration order: ``registry.REGISTRY``, and what a
    module the registry imports reads (``algebra.composed``)."""
    for m in modules:
        importlib.import_module(m)
    return dict(DECLARED)


__all__ = ["BINARY", "BOX", "BY_INNER", "BY_RECAST", "BY_SLICE", "CALL", "DECLARED", "DECLARING", "DSL_USES",
           "INDEX", "LAYOUT", "OFFSET_LAYOUT", "PAIR", "RECAST", "RECAST_FORM", "RECORDED", "RESULTS", "SLICE",
           "TEMPLATED", "TENSOR", "TILED", "TRACED", "UNARY", "Operation", "collect", "declare"]
