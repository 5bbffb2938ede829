"""Divides and products as tilings (layout.hpp:1555-1742, spec sections 7-9).

``valid`` of a divide is DIV-EXACT (the tiles cover A exactly: no padding) and DIV-POST (``R(i) == A(Z(i))`` with
``Z = (T, complement(T, shape(A)))``, the complement meeting its contract); of a product, PRD-POST with the
complement's contract.  Each is proved under the divisibility it needs and refuted without it; where Z3 decides
injectivity quickly, the tiling is also stated as a bijection onto the original domain."""

from verifier.theorems import (
    REALISTIC,
    Claim,
    D,
    Theorem,
    and_,
    bijective,
    eq,
    forall,
    not_,
    ops,
    or_,
    size,
    sublayout,
    symbol,
    valid,
)


def exact_iff(*moduli: tuple[str, int]):
    """A claim builder: mode k of the result has the extent of mode k of A (no padding) if and only if the k-th
    symbol is a multiple of the k-th modulus: the tiling is exact exactly when the divisibility holds."""

    def build(a: object, r: object) -> list[Claim]:
        out = []
        for k, (n, t) in enumerate(moduli):
            same, cond = eq(size(sublayout(r, k)), size(sublayout(a, k))), eq(symbol(n) % D(t), D(0))
            out.append(Claim("EXACT-IFF", f"mode {k} is exact iff {n} % {t} == 0", "layout.hpp", (),
                             or_(and_(same, cond), and_(not_(same), not_(cond)))))
        return out

    build.__name__ = "exact_iff"
    return build


A = "(M,N):(_1,M)"
DIV = {"M": {"multiple_of": 128}, "N": {"multiple_of": 64}}
DIV16 = {"M": {"multiple_of": 16}, "N": {"multiple_of": 8}}

THEOREMS = [
    Theorem("zipped-divide-gemm", valid("zipped_divide", A, "<_128,_64>"), DIV,
            note="for every M divisible by 128 and N by 64, the 128x64 tiles cover the matrix exactly once"),
    Theorem("zipped-divide-gemm-needs-divisibility", valid("zipped_divide", A, "<_128,_64>", strict=True),
            {"M": REALISTIC, "N": REALISTIC},
            expect="refuted", domain="int32", note="a partial tile pads past the matrix (spec 19.1 #10)"),
    Theorem("logical-divide-exactly-when", forall(exact_iff(("M", 128), ("N", 64)), A,
                                                ops.logical_divide(A, "<_128,_64>")), "M N",
            note="the divide has no padding if and only if 128 | M and 64 | N"),
    Theorem("logical-divide-gemm-bijective", bijective(ops.logical_divide(A, "<_128,_64>")), DIV,
            note="the tiled matrix is a bijection onto [0, M*N): every element in exactly one tile"),
    Theorem("zipped-divide-static-n-bijective", bijective(ops.zipped_divide("(M,_8):(_1,M)", "<_128,_8>")),
            {"M": {"multiple_of": 128}}, note="zipped with both modes symbolic is not decided in 40 s"),
    Theorem("logical-divide-2d-tile-bijective", bijective(ops.logical_divide("(M):(_1)", "(_4,_8):(_8,_1)")),
            {"M": {"multiple_of": 32}}),
    Theorem("logical-divide-vector", valid("logical_divide", "(M):(_1)", "_8:_1"), {"M": {"multiple_of": 8}}),
    Theorem("logical-divide-vector-bijective", bijective(ops.logical_divide("(M):(_1)", "_8:_1")),
            {"M": {"multiple_of": 8}}),
    Theorem("logical-divide-strided-tile", valid("logical_divide", "(M):(_1)", "_8:_2"), {"M": {"multiple_of": 16}}),
    Theorem("logical-divide-strided-needs-16", valid("logical_divide", "(M):(_1)", "_8:_2", strict=True),
            {"M": {"multiple_of": 8, **REALISTIC}}, expect="refuted", domain="int32"),
    Theorem("tiled-divide-col-major", valid("tiled_divide", A, "<_16,_8>"), DIV16),
    Theorem("flat-divide-row-major", valid("flat_divide", "(M,N):(N,_1)", "<_16,_8>"), DIV16),
    Theorem("logical-product-vector", valid("logical_product", "(M):(_1)", "(_4):(_1)"), "M"),
    Theorem("logical-product-vector-bijective", bijective(ops.logical_product("(M):(_1)", "(_4):(_1)")), "M",
            note="M:1 repeated 4 times tiles [0, 4M) exactly once"),
    Theorem("blocked-product-vector-bijective", bijective(ops.blocked_product("(_4):(_1)", "(M):(_1)")), "M"),
    Theorem("raked-product-vector-bijective", bijective(ops.raked_product("(_4):(_1)", "(M):(_1)")), "M",
            note="raked: element i of each of the M blocks is interleaved, still each index exactly once"),
    Theorem("logical-product-block-bijective", bijective(ops.logical_product("(_4,_2):(_2,_1)", "(M):(_1)")), "M"),
    Theorem("logical-product-block", valid("logical_product", "(_4,_8):(_1,_4)", A), "M N"),
    Theorem("blocked-product", valid("blocked_product", "(_4,_8):(_1,_4)", A), "M N"),
    Theorem("raked-product", valid("raked_product", "(_4,_8):(_1,_4)", A), "M N"),
    Theorem("zipped-product", valid("zipped_product", "(_2,_2):(_1,_2)", "(M,N):(N,_1)"), "M N"),
    Theorem("tile-to-shape", valid("tile_to_shape", "(_4,_8):(_8,_1)", "(M,N)"),
            {"M": {"multiple_of": 4}, "N": {"multiple_of": 8}}),
    Theorem("tile-to-shape-exactly-when", forall(exact_iff(("M", 4), ("N", 8)), "(M,N):(_1,M)",
                                                 ops.tile_to_shape("(_4,_8):(_8,_1)", "(M,N)")), "M N",
            note="the result has the target's size if and only if the block divides it"),
    Theorem("tile-to-shape-needs-divisibility", valid("tile_to_shape", "(_4,_8):(_8,_1)", "(M,N)"), "M N",
            expect="refuted", domain="int32", note="the result is larger than the target (spec 19.1 #12)"),
]
