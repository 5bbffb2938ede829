"""Composition ``R = A o B`` (layout.hpp:1022): ``size(R) == size(B)`` and ``R(i) == A(B(i))``.

Correctness families for the compact ``(M,N)`` column-major matrix with static tiles, each proved under the
divisibility it needs and refuted without it; seed 002's reshape and sub-tile examples with symbolic extents and
strides; left-distributivity over concatenation when B is injective, and associativity."""

from verifier.theorems import Theorem, equivalent, ops, valid

A = "(M,N):(_1,M)"
M32 = {"M": {"multiple_of": 32}, "N": {}}

THEOREMS = [
    Theorem("comp-contiguous-tile", valid("composition", A, "(_32):(_1)"), M32,
            note="32 consecutive elements of a column: needs M % 32 == 0"),
    Theorem("comp-contiguous-tile-needs-divisibility", valid("composition", A, "(_32):(_1)"), "M N",
            expect="refuted", domain="int32"),
    Theorem("comp-col-major-subtile", valid("composition", A, "(_4,_8):(_1,_4)"), M32),
    Theorem("comp-col-major-subtile-needs-32", valid("composition", A, "(_4,_8):(_1,_4)"),
            {"M": {"multiple_of": 4}, "N": {}}, expect="refuted", domain="int32",
            note="M % 4 == 0 is not enough: the 4x8 tile is 32 consecutive indices"),
    Theorem("comp-row-major-subtile", valid("composition", A, "(_4,_8):(_8,_1)"), M32),
    Theorem("comp-strided-subtile", valid("composition", A, "(_4,_8):(_1,M)"), {"M": {"multiple_of": 4}, "N": {}},
            assume=["N >= 8"], note="a 4x8 block of the matrix: rows 0..3, columns 0..7"),
    Theorem("comp-strided-subtile-needs-divisibility", valid("composition", A, "(_4,_8):(_1,M)"), "M N",
            assume=["N >= 8"], expect="refuted", domain="int32"),
    Theorem("comp-by-mode-tiler", valid("composition", A, "<_4,_8>"), "M N",
            note="a by-mode tiler composes mode by mode: no condition"),
    Theorem("comp-whole-matrix", valid("composition", A, "(M*N):(_1)"), "M N"),
    Theorem("comp-reshape-1d", valid("composition", "(M*N):(D)", "(M,N):(N,_1)"), "M N D",
            note="seed 002: 20:2 o (5,4):(4,1) == (5,4):(8,2), with symbolic extents and stride"),
    Theorem("comp-reshape-static", valid("composition", "(K):(_2)", "(_5,_4):(_4,_1)"), "K",
            note="seed 002's reshape for every length K of the 1-D layout"),
    Theorem("comp-seed003-workaround", valid("composition", "(M*N):(_1)", "(M,N):(N,_1)"), "M N",
            note="seed 003's fix: a 1-D first layout makes column-major o row-major correct for every M, N"),
    Theorem("comp-subtile-seed002", valid("composition", "(M,(_4,_8)):(S,(T,_1))", "<_3:_4,_8:_2>"), "M S T",
            note="seed 002: (12,(4,8)):(59,(13,1)) o <3:4,8:2> with symbolic M and strides"),
    Theorem("comp-subtile-dynamic", valid("composition", "(M,(N,K)):(S,(T,_1))", "<_3:_4,_8:_2>"),
            {"M": {}, "S": {}, "T": {}, "N": {"multiple_of": 16}, "K": {}},
            note="with a dynamic inner shape the stride-2 tile must fit in N: N % 16 == 0"),
    Theorem("comp-left-distributive",
            equivalent(ops.composition(A, ops.concat("(_8):(_4)", "(_4):(_1)")),
                       ops.concat(ops.composition(A, "(_8):(_4)"), ops.composition(A, "(_4):(_1)"))), M32,
            note="A o (B0,B1) == (A o B0, A o B1) for the injective B = (8,4):(4,1)"),
    Theorem("comp-left-distributive-valid", valid("composition", A, ops.concat("(_8):(_4)", "(_4):(_1)")), M32),
    Theorem("comp-associative",
            equivalent(ops.composition(ops.composition(A, "(_32):(_1)"), "(_4,_8):(_8,_1)"),
                       ops.composition(A, ops.composition("(_32):(_1)", "(_4,_8):(_8,_1)"))), M32),
]
