"""Recast (layout.hpp:1801-1891): ``upcast<N>(downcast<N>(L)) == L``, the byte-addressing law (the recast layout
addresses the same bytes, RC-*/UP-POST/DN-POST), and the conditions they need."""

from verifier.theorems import Claim, D, Theorem, and_, eq, equal, forall, not_, ops, or_, size, symbol, valid


def upcast_exact_iff(layout: object, wide: object) -> list[Claim]:
    """4 * size(upcast<4>(M:1)) == M if and only if 4 divides M (UP-3: otherwise the extent is rounded up)."""
    same, cond = eq(size(wide) * D(4), size(layout)), eq(symbol("M") % D(4), D(0))
    return [Claim("UP-EXACT-IFF", "upcast<4> keeps the bytes' count iff M % 4 == 0", "layout.hpp:1801-1830", (),
                  or_(and_(same, cond), and_(not_(same), not_(cond))))]


K2 = {"M": {}, "K": {"multiple_of": 2}}

THEOREMS = [
    Theorem("upcast-downcast-row-major", equal(ops.upcast(2, ops.downcast(2, "(M,K):(K,_1)")), "(M,K):(K,_1)"),
            "M K"),
    Theorem("upcast-downcast-col-major", equal(ops.upcast(2, ops.downcast(2, "(M,K):(_1,M)")), "(M,K):(_1,M)"),
            "M K"),
    Theorem("downcast-upcast-row-major", equal(ops.downcast(2, ops.upcast(2, "(M,K):(K,_1)")), "(M,K):(K,_1)"), K2,
            note="needs an even row stride K"),
    Theorem("upcast-bytes", valid("upcast", 2, "(M,K):(K,_1)"), K2),
    Theorem("upcast-bytes-needs-even-stride", valid("upcast", 2, "(M,K):(K,_1)"), "M K", expect="refuted",
            domain="int32", note="an odd dynamic stride is divided blindly (UP-2, spec 19.1 #14)"),
    Theorem("seed004-static-unit-stride", valid("upcast", 2, "(M):(_1)"), {"M": {"multiple_of": 2}},
            note="seed 004's recast<uint32_t> of half data with a static unit stride, for every even length"),
    Theorem("upcast-vector", valid("upcast", 4, "(M):(_1)"), {"M": {"multiple_of": 4}}),
    Theorem("upcast-vector-exactly-when", forall(upcast_exact_iff, "(M):(_1)", ops.upcast(4, "(M):(_1)")), "M"),
    Theorem("upcast-static-stride", valid("upcast", 2, "(M,_8):(_8,_1)"), "M"),
    Theorem("downcast-bytes", valid("downcast", 2, "(M,K):(K,_1)"), "M K"),
    Theorem("downcast-col-major", valid("downcast", 4, "(M,_8):(_1,M)"), "M"),
    Theorem("recast-16-to-32", valid("recast_layout", 16, 32, "(M,K):(K,_1)"), K2),
    Theorem("recast-32-to-8", valid("recast_layout", 32, 8, "(M,K):(K,_1)"), "M K"),
]
