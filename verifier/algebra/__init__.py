"""CuTe's layout algorithms exactly as CuTe 4.2 computes them, in CuTe's own integer types, recording CuTe's own
checks as obligations; the MMA/copy atoms, TiledMMA/TiledCopy and predication built on them, and the one operation
registry (``registry``).  Imports ``core`` and ``notation``.

This package is also the public namespace of CuTe's functions, named as CuTe names them: the operations
(``composition``, ``logical_divide``, ``upcast``, ...), the layout functions (``size``, ``cosize``, ``sublayout``,
...) and the int-tuple functions (``crd2idx``, ``shape_div``, ...).  They load on first use.
"""

from __future__ import annotations

from pathlib import Path

from verifier.core.lazy import lazy_exports

# The public names load their modules on first use (PEP 562): a submodule of this package does not pay for them.
# The operations are those the registry declares as CuTe functions of their own name (``operations``); these are
# CuTe's other functions.
_MODULES = {
    "verifier.algebra.ops": "OffsetLayout slice_and_offset slice_layout",
    "verifier.core.layouts": (
        "append cosize depth flatten group make_layout prepend rank replace select shape size stride "
        "sublayout take"),
    "verifier.core.int_tuple": (
        "ceil_div compact_col_major compact_major compact_row_major compatible congruent crd2crd crd2idx "
        "elem_scale idx2crd inner_product prefix_product product shape_div weakly_congruent"),
    "verifier.core.swizzle": (
        "make_composed_layout"),
}
_get, _listing = lazy_exports(globals(), _MODULES)


def operations() -> dict[str, object]:
    """The declared operations of CuTe's layout algorithms (``ops``) whose function is named as the operation:
    ``composition``, ``logical_divide``, ``upcast``, ... (``registry.REGISTRY``)."""
    from verifier.algebra.registry import REGISTRY

    return {n: r.fn for n, r in REGISTRY.items()
            if getattr(r.fn, "__module__", "") == "verifier.algebra.ops" and getattr(r.fn, "__name__", "") == n}


def __getattr__(name: str) -> object:
    if name == "__all__":
        return sorted({*(n for names in _MODULES.values() for n in names.split()), *operations()})
    try:
        return _get(name)
    except AttributeError:
        # a submodule being imported (``from verifier.algebra import composed``) is not an operation
        if name.startswith("_") or (Path(__file__).parent / f"{name}.py").exists():
            raise
        ops = operations()
        if name not in ops:
            raise
        globals()[name] = ops[name]
        return ops[name]


def __dir__() -> list[str]:
    return sorted({*_listing(), *operations()})
