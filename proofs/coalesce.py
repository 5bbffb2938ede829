"""Coalesce and by-mode coalesce preserve the layout function (layout.hpp:861-863), whatever CuTe manages to merge;
LayoutLeft and LayoutRight (make_layout's stride generators, 01_layout.md) and their relations.

``valid("coalesce", L)`` is the postcondition ``size(R) == size(L)`` and ``R(i) == L(i)`` for every ``i``; the
``equivalent`` statements compare layouts as functions on their domain."""

from verifier.theorems import Claim, D, Theorem, bijective, eq, equal, equivalent, forall, ops, symbol, valid

I, J = symbol("#i"), symbol("#j")


def transpose(left: object, right: object) -> list[Claim]:
    """LayoutRight of (M,N) at (i,j) is LayoutLeft of (N,M) at (j,i)."""
    m, n = right.shape
    r, lft = right(I, J), left(J, I)
    return [Claim("TRANSPOSE", "LayoutRight(M,N)(i,j) == LayoutLeft(N,M)(j,i)", "stride.hpp:368-420",
                  (("#i", D(0), m), ("#j", D(0), n)), eq(r, lft), r, lft)]


THEOREMS = [
    Theorem("coalesce-col-major", valid("coalesce", "(M,N):(_1,M)"), "M N"),
    Theorem("coalesce-row-major", valid("coalesce", "(M,N):(N,_1)"), "M N"),
    Theorem("coalesce-hier", valid("coalesce", "((M,N),K):((_1,M),M*N)"), "M N K"),
    Theorem("coalesce-unit-modes", valid("coalesce", "(M,(_1,N)):(_1,(K,M))"), "M N K",
            note="seed 002's (2,(1,6)):(1,(6,2)) with symbolic extents and an arbitrary stride under the _1"),
    Theorem("coalesce-static-merge", valid("coalesce", "(_4,M,_2):(_1,_4,S)"), "M S",
            note="CuTe merges the static (_4):(_1) with M:_4 only where it can prove it; the function is kept"),
    Theorem("coalesce-by-mode", valid("coalesce", "((M,N),K,L):((_1,M),M*N,M*N*K)", "(_1,_1,_1)"), "M N K L",
            note="seed 002:50, coalesce(layout, Step<_1,_1,_1>)"),
    Theorem("coalesce-by-mode-2", valid("coalesce", "(M,(_1,N)):(_1,(K,M))", "(_1,_1)"), "M N K"),
    Theorem("coalesce-equivalent", equivalent(ops.coalesce("((M,N),K):((_1,M),M*N)"), "((M,N),K):((_1,M),M*N)"),
            "M N K"),
    Theorem("compact-is-identity", equivalent("(M,N):(_1,M)", "(M*N):(_1)"), "M N",
            note="LayoutLeft of (M,N) is the identity function on [0, M*N)"),
    Theorem("compact-not-row-major", equivalent("(M,N):(N,_1)", "(M*N):(_1)"), "M N", expect="refuted",
            domain="int32", note="LayoutRight is not the identity unless M or N is 1"),
    Theorem("layout-left-bijective", bijective("(M,N):(_1,M)"), "M N"),
    Theorem("layout-right-bijective", bijective("(M,N):(N,_1)"), "M N"),
    Theorem("layout-right-transpose", forall(transpose, "(N,M):(_1,N)", "(M,N):(N,_1)"), "M N"),
    Theorem("layout-right-hier", equal(ops.make_layout("(M,(N,K))", "LayoutRight"), "(M,(N,K)):(N*K,(K,_1))"),
            "M N K", note="seed 000's s2xh4: LayoutRight of a hierarchical shape, right to left across the nesting"),
    Theorem("layout-left-hier", equal(ops.make_layout("(M,(N,K))", "LayoutLeft"), "(M,(N,K)):(_1,(M,M*N))"),
            "M N K", note="seed 000's s2xh4_col"),
]
