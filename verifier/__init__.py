"""cute-layout-verifier: NVIDIA CuTe layouts with run-time integers, modelled exactly.

The public API is what this module exports; the modules behind it are private and may change.

* integers:   ``S(8)`` is CuTe's ``_8``, ``D(8)`` a run-time 8, ``symbol("M")`` a run-time symbol;
* layouts:    ``Layout``, ``make_layout``, ``size``, ``cosize``, ``sublayout`` (``layout<I...>``), ``select``,
              ``take``, ``group``, ``flatten``, ``append``, ``prepend``, ``replace``;
* notation:   ``parse_layout("(M,N):(_1,M)")``, ``parse_int_tuple``, ``parse_tile``, ``parse``; ``str()`` prints;
* swizzles:   ``Swizzle(B, M, S)``, ``ComposedLayout`` / ``make_composed_layout`` (``Sw<2,0,-3> o _0 o L``), and
              scaled-basis strides ``ScaledBasis`` / ``E(i...)`` (``_1@0``);
* int tuples: CuTe's ``int_tuple.hpp`` functions (``crd2idx``, ``idx2crd``, ``compatible``, ...);
* algebra:    ``composition``, ``complement``, ``logical_divide``, ``upcast`` ... exactly as CuTe 4.2 computes them,
              and ``apply(op, *args)``, which returns the result with the obligations the call incurred;
* interop:    ``from_pycute`` / ``to_pycute`` (pycute layouts are also accepted by ``apply``, ``parse_layout``, the
              engine's ``verify`` and ``check``), ``parse_dsl`` / ``to_dsl`` for the CuTe DSL's printed form
              ``(?,4):(1,?{div=8})``, ``to_cpp`` for C++ ``print``'s;
* pictures:   ``to_svg``, ``to_tikz``, ``to_png`` draw a layout, a thread/value layout or a counterexample;
* strategies: ``verifier.strategies`` (Hypothesis strategies; needs the ``hypothesis`` extra, not imported here);
* partition:  ``slice_and_offset``, ``local_tile``, ``local_partition`` give the layout and pointer offset
              (``OffsetLayout``) of the tensor view CuTe builds.
"""

from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Every name loads its module on first use (PEP 562), so that `import verifier.cli` costs only what the command
# needs (the pictures import urllib and http; the engine z3).
_MODULES = {
    "algebra.ops": ("OPERATIONS OffsetLayout Outcome apply blocked_product coalesce complement composition downcast "
              "filter filter_zeros flat_divide flat_product left_inverse local_partition local_tile logical_divide "
              "logical_product make_layout_like make_ordered_layout max_common_layout max_common_vector nullspace "
              "raked_product recast_layout right_inverse slice_and_offset slice_layout tiled_divide tiled_product "
              "upcast zipped_divide zipped_product"),
    "core.basis": "E ScaledBasis",
    "core.errors": "CuteRejection LayoutError LayoutSyntaxError UndefinedBehavior",
    "core.int_tuple": ("ceil_div compact_col_major compact_major compact_row_major compatible congruent crd2crd crd2idx "
              "elem_scale idx2crd inner_product prefix_product product shape_div weakly_congruent"),
    "core.integers": "Bool D Int S symbol",
    "notation.interop": "from_pycute parse_dsl parse_dsl_layout to_cpp to_dsl to_pycute",
    "core.layouts": ("UNDERSCORE Layout Tile append cosize depth flatten group make_layout prepend rank replace select "
              "shape size stride sublayout take"),
    "notation.cpp": "parse parse_coord parse_int_tuple parse_layout parse_relation parse_shape parse_tile",
    "core.obligations": "Obligation",
    "core.swizzle": "ComposedLayout Swizzle make_composed_layout",
    "core.symbols": "Symbol Symbols",
    "present.tables": "print_1d print_layout",
    "present.pictures": "to_png to_svg to_tikz",
}
_LAZY = {name: module for module, names in _MODULES.items() for name in names.split()}

if TYPE_CHECKING:
    from verifier.algebra.ops import (
        OPERATIONS,
        OffsetLayout,
        Outcome,
        apply,
        blocked_product,
        coalesce,
        complement,
        composition,
        downcast,
        filter,
        filter_zeros,
        flat_divide,
        flat_product,
        left_inverse,
        local_partition,
        local_tile,
        logical_divide,
        logical_product,
        make_layout_like,
        make_ordered_layout,
        max_common_layout,
        max_common_vector,
        nullspace,
        raked_product,
        recast_layout,
        right_inverse,
        slice_and_offset,
        slice_layout,
        tiled_divide,
        tiled_product,
        upcast,
        zipped_divide,
        zipped_product,
    )
    from verifier.core.basis import E, ScaledBasis
    from verifier.core.errors import CuteRejection, LayoutError, LayoutSyntaxError, UndefinedBehavior
    from verifier.core.int_tuple import (
        ceil_div,
        compact_col_major,
        compact_major,
        compact_row_major,
        compatible,
        congruent,
        crd2crd,
        crd2idx,
        elem_scale,
        idx2crd,
        inner_product,
        prefix_product,
        product,
        shape_div,
        weakly_congruent,
    )
    from verifier.core.integers import Bool, D, Int, S, symbol
    from verifier.core.layouts import (
        UNDERSCORE,
        Layout,
        Tile,
        append,
        cosize,
        depth,
        flatten,
        group,
        make_layout,
        prepend,
        rank,
        replace,
        select,
        shape,
        size,
        stride,
        sublayout,
        take,
    )
    from verifier.core.obligations import Obligation
    from verifier.core.swizzle import ComposedLayout, Swizzle, make_composed_layout
    from verifier.core.symbols import Symbol, Symbols
    from verifier.notation.cpp import (
        parse,
        parse_coord,
        parse_int_tuple,
        parse_layout,
        parse_relation,
        parse_shape,
        parse_tile,
    )
    from verifier.notation.interop import from_pycute, parse_dsl, parse_dsl_layout, to_cpp, to_dsl, to_pycute
    from verifier.present.pictures import to_png, to_svg, to_tikz
    from verifier.present.tables import print_1d, print_layout


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "OPERATIONS", "Obligation", "Outcome", "apply", "blocked_product", "coalesce", "complement", "composition",
    "downcast", "filter", "filter_zeros", "flat_divide", "flat_product", "left_inverse", "local_partition",
    "local_tile", "logical_divide", "OffsetLayout", "slice_and_offset", "slice_layout",
    "logical_product", "make_layout_like", "make_ordered_layout", "max_common_layout", "max_common_vector",
    "nullspace", "raked_product", "recast_layout", "right_inverse", "tiled_divide", "tiled_product", "upcast",
    "zipped_divide", "zipped_product",
    "Bool", "CuteRejection", "D", "Int", "Layout", "LayoutError", "LayoutSyntaxError", "S", "Symbol", "Symbols",
    "Tile", "UNDERSCORE", "UndefinedBehavior", "append", "ceil_div", "compact_col_major", "compact_major",
    "compact_row_major", "compatible", "congruent", "cosize", "crd2crd", "crd2idx", "depth", "elem_scale",
    "flatten", "group", "idx2crd", "inner_product", "make_layout", "parse", "parse_coord", "parse_int_tuple",
    "parse_layout",
    "parse_relation", "parse_shape", "parse_tile", "prefix_product", "prepend", "print_1d", "print_layout",
    "product", "rank", "replace", "select", "shape", "shape_div", "size", "stride", "sublayout", "symbol", "take",
    "weakly_congruent",
    "ComposedLayout", "E", "ScaledBasis", "Swizzle", "make_composed_layout",
    "from_pycute", "parse_dsl", "parse_dsl_layout", "to_cpp", "to_dsl", "to_pycute",
    "to_png", "to_svg", "to_tikz",
]
