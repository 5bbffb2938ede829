"""Complement: CuTe's contract (test/unit/cute/core/complement.cpp:46-66) for symbolic cotargets: (L, R) covers
the cotarget, R stays within the rounded-up cotarget, R is strictly increasing and misses L's image."""

from verifier.theorems import REALISTIC, Theorem, valid

THEOREMS = [
    Theorem("cpl-strided-vector", valid("complement", "(_4):(_2)", "M"), {"M": {"multiple_of": 8}}),
    Theorem("cpl-strided-vector-bound", valid("complement", "(_4):(_2)", "M", strict=True), {"M": REALISTIC},
            expect="refuted", domain="int32", note="for a cotarget that is not a multiple of 8 the complement "
            "overshoots the round_up bound (a warning: compiled CuTe does not meet it either; strict)"),
    Theorem("cpl-two-modes", valid("complement", "(_4,_2):(_1,_8)", "M"), {"M": {"multiple_of": 16}}),
    Theorem("cpl-dynamic-extent", valid("complement", "(M):(_1)", "M*N"), "M N"),
    Theorem("cpl-dynamic-stride", valid("complement", "(M):(K)", "M*K"), "M K",
            note="rank 1: a dynamic stride is allowed (layout.hpp:1188)"),
    Theorem("cpl-interleaved", valid("complement", "(_2,_2):(_1,_4)", "M"), {"M": {"multiple_of": 8}},
            note="the complement fills the gap between the modes: (2, M/8):(2, 8)"),
    Theorem("cpl-contiguous-any-cotarget", valid("complement", "(_4):(_1)", "M"), "M",
            note="a contiguous block: the contract holds for every cotarget, divisible or not"),
    Theorem("cpl-odd-block", valid("complement", "(_3):(_1)", "M"), "M"),
    Theorem("cpl-dynamic-strided", valid("complement", "(M):(_2)", "_2*M*N"), "M N"),
    Theorem("cpl-transposed-tile", valid("complement", "(_8,_4):(_4,_32)", "M"), {"M": {"multiple_of": 128}}),
    Theorem("cpl-static-matrix", valid("complement", "(_4,_8):(_1,_16)", "M"), {"M": {"multiple_of": 128}}),
]
