"""Complement: CuTe's contract (test/unit/cute/core/complement.cpp:46-66) for symbolic cotargets: (L, R) covers
the cotarget, R stays within the rounded-up cotarget, R is strictly increasing and misses L's image."""

from verifier.theorems import Theorem, valid

THEOREMS = [
    Theorem("cpl-strided-vector", valid("complement", "(_4):(_2)", "M"), {"M": {"multiple_of": 8}}),
    Theorem("cpl-strided-vector-bound", valid("complement", "(_4):(_2)", "M"), "M", expect="refuted",
            domain="int32", note="for a cotarget that is not a multiple of 8 the complement overshoots the "
            "round_up bound of the contract"),
    Theorem("cpl-two-modes", valid("complement", "(_4,_2):(_1,_8)", "M"), {"M": {"multiple_of": 16}}),
    Theorem("cpl-dynamic-extent", valid("complement", "(M):(_1)", "M*N"), "M N"),
    Theorem("cpl-dynamic-stride", valid("complement", "(M):(K)", "M*K"), "M K",
            note="rank 1: a dynamic stride is allowed (layout.hpp:1188)"),
    Theorem("cpl-static-matrix", valid("complement", "(_4,_8):(_1,_16)", "M"), {"M": {"multiple_of": 128}}),
]
