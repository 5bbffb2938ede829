"""CuTe's layout algorithms exactly as CuTe 4.2 computes them, in CuTe's own integer types, recording CuTe's own
checks as obligations; the MMA/copy atoms, TiledMMA/TiledCopy and predication built on them, and the one operation
registry (``registry``).  Imports ``core`` and ``notation``.

This package is also the public namespace of CuTe's functions, named as CuTe names them: the operations
(``composition``, ``logical_divide``, ``upcast``, ...), the layout functions (``size``, ``cosize``, ``sublayout``,
...) and the int-tuple functions (``crd2idx``, ``shape_div``, ...).  They load on first use.
"""

from __future__ import annotations

from verifier.core.lazy import lazy_exports

# The public names load their modules on first use (PEP 562): a submodule of this package does not pay for them.
_MODULES = {
    "verifier.algebra.ops": (
        "OffsetLayout blocked_product coalesce complement composition downcast filter filter_zeros "
        "flat_divide flat_product left_inverse local_partition local_tile logical_divide logical_product "
        "make_layout_like make_ordered_layout max_common_layout max_common_vector nullspace "
        "raked_product recast_layout right_inverse slice_and_offset slice_layout tile_to_shape "
        "tiled_divide tiled_product upcast zipped_divide zipped_product"),
    "verifier.core.layouts": (
        "append cosize depth flatten group make_layout prepend rank replace select shape size stride "
        "sublayout take"),
    "verifier.core.int_tuple": (
        "ceil_div compact_col_major compact_major compact_row_major compatible congruent crd2crd crd2idx "
        "elem_scale idx2crd inner_product prefix_product product shape_div weakly_congruent"),
    "verifier.core.swizzle": (
        "make_composed_layout"),
}
__getattr__, __dir__ = lazy_exports(globals(), _MODULES)


__all__ = [
    "OffsetLayout", "append", "blocked_product", "ceil_div", "coalesce", "compact_col_major", "compact_major",
    "compact_row_major", "compatible", "complement", "composition", "congruent", "cosize", "crd2crd", "crd2idx",
    "depth", "downcast", "elem_scale", "filter", "filter_zeros", "flat_divide", "flat_product", "flatten", "group",
    "idx2crd", "inner_product", "left_inverse", "local_partition", "local_tile", "logical_divide",
    "logical_product", "make_composed_layout", "make_layout", "make_layout_like", "make_ordered_layout",
    "max_common_layout", "max_common_vector", "nullspace", "prefix_product", "prepend", "product", "raked_product",
    "rank", "recast_layout", "replace", "right_inverse", "select", "shape", "shape_div", "size",
    "slice_and_offset", "slice_layout", "stride", "sublayout", "take", "tile_to_shape", "tiled_divide",
    "tiled_product", "upcast", "weakly_congruent", "zipped_divide", "zipped_product",
]
