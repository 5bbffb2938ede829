"""cute-layout-verifier: NVIDIA CuTe layouts with run-time integers, modelled exactly.

The public API is what this module exports (below), the namespace of CuTe's functions ``verifier.algebra``, and
the integrations: ``verifier.pycute`` (pycute layouts), ``verifier.dsl`` (the CuTe DSL), ``verifier.pictures``
(SVG / TikZ / PNG), ``verifier.testing`` and the pytest plugin ``verifier.pytest_plugin`` (assertions and spec
files in pytest), ``verifier.strategies`` (Hypothesis) and ``verifier.theorems`` (theorem files).  Every other
module is private and may change; docs/architecture.md describes them.

* values:    ``Layout``, ``Tile``, ``Int`` (``S(8)`` is CuTe's ``_8``, ``D(8)`` a run-time 8, ``symbol("M")`` a
             run-time symbol), ``Symbols`` (the symbol table with assumptions), ``Swizzle``, ``ComposedLayout``,
             ``E(i...)`` (scaled-basis strides ``_1@0``), ``UNDERSCORE`` (``_``);
* notation:  ``parse("(M,N):(_1,M)")``, ``parse_layout``, ``parse_tile``, ``parse_int_tuple``, ``parse_relation``;
             ``str()`` and ``to_cpp`` print CuTe's C++ form, ``parse_dsl`` / ``to_dsl`` the DSL's
             ``(?,4):(1,?{div=8})``;
* algebra:   ``apply(op, *args)`` runs a registered operation (``REGISTRY``) exactly as CuTe 4.2 computes it and
             returns its result with the obligations the call incurred (``Outcome``);
* engine:    ``verify(op, args, symbols)`` and ``check(prop, args, symbols)`` decide for every admitted value and
             return a ``Verdict`` (``Policy`` picks the severities: ``--strict``, ``--select``, ``--ignore``),
             through ``engine.problem.decide`` as every front end does;
* errors:    ``LayoutError`` (bad input), ``CuteRejection`` (CuTe rejects the operands at compile time),
             ``UndefinedBehavior`` (CuTe divides by zero).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.core.lazy import lazy_exports

__version__ = "0.1.0"

# Every name loads its module on first use (PEP 562), so that `import verifier.cli` costs only what the command
# needs (the engine loads z3).
_MODULES = {
    "verifier.core.layouts": "Layout Tile UNDERSCORE",
    "verifier.core.integers": "Int S D symbol",
    "verifier.core.symbols": "Symbols",
    "verifier.core.swizzle": "Swizzle ComposedLayout",
    "verifier.core.basis": "E",
    "verifier.core.errors": "LayoutError CuteRejection UndefinedBehavior",
    "verifier.notation.cpp": "parse parse_layout parse_tile parse_int_tuple parse_relation",
    "verifier.notation.interop": "to_cpp parse_dsl to_dsl",
    "verifier.algebra.registry": "apply Outcome REGISTRY",
    "verifier.engine.api": "verify check",
    "verifier.engine.verdicts": "Verdict Policy",
}
__getattr__, __dir__ = lazy_exports(globals(), _MODULES)

if TYPE_CHECKING:
    from verifier.algebra.registry import REGISTRY, Outcome, apply
    from verifier.core.basis import E
    from verifier.core.errors import CuteRejection, LayoutError, UndefinedBehavior
    from verifier.core.integers import D, Int, S, symbol
    from verifier.core.layouts import UNDERSCORE, Layout, Tile
    from verifier.core.swizzle import ComposedLayout, Swizzle
    from verifier.core.symbols import Symbols
    from verifier.engine.api import check, verify
    from verifier.engine.verdicts import Policy, Verdict
    from verifier.notation.cpp import parse, parse_int_tuple, parse_layout, parse_relation, parse_tile
    from verifier.notation.interop import parse_dsl, to_cpp, to_dsl


__all__ = [
    "D", "E", "REGISTRY", "S", "UNDERSCORE", "ComposedLayout", "CuteRejection", "Int", "Layout", "LayoutError",
    "Outcome", "Policy", "Swizzle", "Symbols", "Tile", "UndefinedBehavior", "Verdict", "apply", "check", "parse",
    "parse_dsl", "parse_int_tuple", "parse_layout", "parse_relation", "parse_tile", "symbol", "to_cpp", "to_dsl",
    "verify",
]
