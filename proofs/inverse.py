"""Inverses (layout.hpp:1255-1361): ``L(right_inverse(L)(i)) == i`` for ``i < size(R)`` (RI-POST) and
``left_inverse(L)(L(i)) == i`` for ``i < size(L)`` (LI-3), with the size of the right inverse: on a compact layout
with static strides it inverts the whole codomain."""

from verifier.theorems import Claim, Theorem, bijective, eq, equivalent, forall, ops, size, valid


def covers(layout: object, inverse: object) -> list[Claim]:
    """size(right_inverse(L)) == size(L): nothing of L's codomain is dropped."""
    return [Claim("RI-SIZE", "the right inverse has the size of L", "layout.hpp:1262-1303", (),
                  eq(size(inverse), size(layout)), size(layout), size(inverse))]


THEOREMS = [
    Theorem("right-inverse-row-major", valid("right_inverse", "(M,_4):(_4,_1)"), "M"),
    Theorem("right-inverse-col-major", valid("right_inverse", "(_4,M):(_1,_4)"), "M"),
    Theorem("right-inverse-dynamic", valid("right_inverse", "(M,N):(_1,M)"), "M N",
            note="dynamic strides are dropped: the result is conservative (a prefix), still a right inverse"),
    Theorem("right-inverse-full-size", forall(covers, "(_4,M):(_1,_4)", ops.right_inverse("(_4,M):(_1,_4)")), "M"),
    Theorem("right-inverse-full-size-transposed",
            forall(covers, "(M,_4):(_4,_1)", ops.right_inverse("(M,_4):(_4,_1)")), "M"),
    Theorem("right-inverse-dynamic-stride", valid("right_inverse", "(_4,M):(M,_1)"), "M"),
    Theorem("right-inverse-interleaved", valid("right_inverse", "(_2,_4,M):(_4,_1,_8)"), "M"),
    Theorem("right-inverse-law-col", equivalent(ops.composition("(_4,M):(_1,_4)", ops.right_inverse("(_4,M):(_1,_4)")),
                                                "(_4*M):(_1)"), "M", note="L o right_inverse(L) is the identity"),
    Theorem("right-inverse-law-row", equivalent(ops.composition("(M,_4):(_4,_1)", ops.right_inverse("(M,_4):(_4,_1)")),
                                                "(M*_4):(_1)"), "M"),
    Theorem("right-inverse-bijective", bijective(ops.right_inverse("(M,_4):(_4,_1)")), "M",
            note="the inverse of a bijection is a bijection"),
    Theorem("left-inverse-law", equivalent(ops.composition(ops.left_inverse("(_4,M):(_1,_4)"), "(_4,M):(_1,_4)"),
                                           "(_4*M):(_1)"), "M", note="left_inverse(L) o L is the identity"),
    Theorem("left-inverse-col-major", valid("left_inverse", "(_4,M):(_1,_4)"), "M"),
    Theorem("left-inverse-gap", valid("left_inverse", "(_4,M):(_1,_8)"), "M",
            note="an injective layout with a gap between its modes"),
]
