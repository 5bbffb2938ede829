"""The API of theorem files (``cute-verify prove PATH``): a file defines ``THEOREMS``, a list of ``Theorem``.

A statement is one of ``valid``, ``check``, ``bijective``, ``injective``, ``equivalent``, ``compatible``,
``in_bounds``, ``equal`` or ``forall`` (a claim builder over the witnesses ``#i``, ``#j``, ``#k``); ``ops``
builds the calls of the algebra they compare.  The formula primitives a ``forall`` builder needs (``Claim``, the
integer comparisons and connectives, ``symbol``, ``D``, and the layout functions) are re-exported here so that a
theorem file imports this module and ``verifier`` only.
"""

from verifier.contracts.claim import Claim
from verifier.core.int_tuple import crd2idx, idx2crd, product, shape_div
from verifier.core.integers import D, and_, eq, le, not_, or_, symbol
from verifier.core.layouts import Layout, size, sublayout
from verifier.run.theorems import (
    DOMAINS,
    Call,
    Statement,
    Theorem,
    TheoremError,
    TheoremResult,
    bijective,
    call,
    check,
    compatible,
    equal,
    equivalent,
    forall,
    in_bounds,
    injective,
    load,
    ops,
    prove,
    valid,
)

#: The range of a realistic problem size, for refutations about something other than integer overflow: with no
#: bound an ``int32`` extent reaches ``2^31 - 1``, where CuTe's own ``ceil_div`` overflows first (OVF-ARITH).
REALISTIC: dict[str, int] = {"max": 1 << 14}

__all__ = ["DOMAINS", "REALISTIC", "Call", "Claim", "D", "Layout", "Statement", "Theorem", "TheoremError",
           "TheoremResult", "and_",
           "bijective", "call", "check", "compatible", "crd2idx", "eq", "equal", "equivalent", "forall", "idx2crd",
           "in_bounds", "injective", "le", "load", "not_", "ops", "or_", "product", "prove", "shape_div", "size",
           "sublayout", "symbol", "valid"]
