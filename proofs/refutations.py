"""Refutations that must stay refuted: the seed 003/004 cases, the weak stride condition's hole, and the silent
failures of the spec's master list (cute_preconditions.md 19.1), each over symbolic sizes.  Every counterexample
is replayed against compiled CuTe by tests/engine/test_proofs.py.  Not stated here, because the engine does not model
them: #16 (a dynamic +-1 stride in downcast: no case found where the result is wrong), #17 (ComposedLayout upcast),
#23 (pointer alignment)."""

from verifier.theorems import (
    REALISTIC,
    Claim,
    D,
    Theorem,
    and_,
    crd2idx,
    eq,
    equal,
    forall,
    idx2crd,
    injective,
    le,
    ops,
    shape_div,
    size,
    symbol,
    valid,
)

I, J = symbol("#i"), symbol("#j")
R = "refuted"
Z = {"lo": 0, "hi": 0}


def shape_div_exact(m: object, t: object) -> list[Claim]:
    """shape_div(M, T) * T == M: a dynamic shape_div silently returns ceil_div."""
    q = shape_div(m, t)
    return [Claim("SHAPE-DIV", "shape_div(M, T) * T == M", "int_tuple.hpp:407-412", (), eq(q * t, m), m, q * t)]


def idx2crd_inverse(layout: object) -> list[Claim]:
    """idx2crd(L(c), shape, stride) == c for every coordinate c (true only for compact layouts)."""
    (m, n) = layout.shape
    c = (I, J)
    back = idx2crd(crd2idx(c, layout.shape, layout.stride), layout.shape, layout.stride)
    return [Claim("IDX2CRD", "idx2crd(L(c), shape, stride) == c", "stride.hpp:179-205",
                  (("#i", D(0), m), ("#j", D(0), n)), and_(eq(back[0], I), eq(back[1], J)))]


def within_domain(a: object, vector: object) -> list[Claim]:
    """max_common_vector(a, b) <= size(a): the common vector stays inside a's domain."""
    return [Claim("MCV-DOMAIN", "max_common_vector(a, b) <= size(a)", "layout.hpp:1380-1426", (),
                  le(vector, size(a)), size(a), vector)]


THEOREMS = [
    Theorem("seed003-col-o-row", valid("composition", "(M,N):(_1,M)", "(M,N):(N,_1)"), "M N", expect=R,
            domain="int32", note="seed 003 / DEVELOPERS.md: (2,3):(1,2) o (2,3):(3,1) with run-time ints"),
    Theorem("seed003-all-symbolic", valid("composition", "(A0,A1):(_1,A0)", "(B0,B1):(B1,_1)"), "A0 A1 B0 B1",
            expect=R, domain="int32", note="CMP-4/CMP-5 on unmerged dynamic modes (19.1 #4, #5, #7)"),
    Theorem("seed004-upcast-dynamic-unit", valid("upcast", 2, "(M):(1)"), "M", expect=R, domain="int32",
            note="seed 004: upcast<2> of a run-time (16):(1) gives (16):(0) (19.1 #14)"),
    Theorem("weak-stride-hole", valid("composition", "(_3,_4):(_1,K)", "_6:_2"), "K", expect=R, domain="int32",
            note="(_3,_4):(_1,_10) o _6:_2 compiles and is wrong: the CMP-4 hole, for every stride K"),
    Theorem("shape-div-dynamic", forall(shape_div_exact, "M", "_4"), "M", expect=R, domain="int32",
            note="19.1 #1"),
    Theorem("cmp-weak-stride", valid("composition", "(M,N):(_1,M)", "_6:_2"), "M N", expect=R, domain="int32",
            note="19.1 #2 (CMP-2)"),
    Theorem("cmp-weak-shape", valid("composition", "(_4,_8):(_1,_32)", "(M):(_1)"), "M", expect=R, domain="int32",
            note="19.1 #3: a static A with a dynamic B shape (CMP-3)"),
    Theorem("cmp-multi-leaf", valid("composition", "(_4,_3):(_1,K)", "(_3,_2):(_1,_3)"), "K", expect=R,
            domain="int32", note="19.1 #5: CMP-5, (_4,_3):(_1,_10) o (_3,_2):(_1,_3) with symbolic stride"),
    Theorem("cmp-dynamic-zero-stride", valid("composition", "(M,N):(_1,M)", "(_4):(S)"), {"M": {}, "N": {}, "S": Z},
            expect=R, domain="int32", note="19.1 #6: a dynamic 0 stride in B over a multi-mode A: SIGFPE"),
    Theorem("cmp-compact-unmerged", valid("composition", "(M,N):(_1,M)", "(K):(_1)"), "M N K", expect=R,
            domain="int32", note="19.1 #7: (3,4):(1,3) o 4:1 has size 3: dynamic modes are never coalesced"),
    Theorem("cpl-overlapping-strides", valid("complement", "(M,_2):(_1,_2)", "_32"), "M", expect=R, domain="int32",
            note="19.1 #8: CPL-2, a size-0 mode then SIGFPE"),
    Theorem("cpl-zero-stride", valid("complement", "(M):(K)", "N"), {"M": {}, "N": {}, "K": Z}, expect=R,
            domain="int32", note="19.1 #9: a rank-1 dynamic stride 0"),
    Theorem("divide-padding", valid("logical_divide", "(M,N):(_1,M)", "(_4,_2):(_1,_4)"), "M N", expect=R,
            domain="int32", note="19.1 #10: a 2-D layout tiler over the unmerged (M,N)"),
    Theorem("product-dynamic-stride", valid("logical_product", "(M):(S)", "(_4):(_1)"), "M S", expect=R,
            domain="int32", note="19.1 #11: the block's complement with a dynamic stride"),
    Theorem("upcast-partial-vector", valid("upcast", 4, "(M):(_1)", strict=True), {"M": REALISTIC}, expect=R,
            domain="int32",
            note="19.1 #15: UP-3, the unit-stride extent must be a multiple of 4"),
    Theorem("left-inverse-overlap", valid("left_inverse", "(_4,M):(_1,_2)", strict=True), {"M": REALISTIC}, expect=R,
            domain="int32",
            note="19.1 #18: LI-3 with a dynamic shape that overlaps"),
    Theorem("idx2crd-not-compact", forall(idx2crd_inverse, "(M,N):(_1,K)"), "M N K", expect=R, domain="int32",
            note="19.1 #20: idx2crd inverts crd2idx only on compact layouts"),
    Theorem("ordered-layout-dynamic-order", equal(ops.make_ordered_layout("(M,N)", "(1,0)"), "(M,N):(N,_1)"), "M N",
            expect=R, domain="int32", note="19.1 #13: a run-time order is ignored (ORD-2): column-major"),
    Theorem("mcv-past-the-domain",
            forall(within_domain, "(_4,M):(_1,_4)", ops.max_common_vector("(_4,M):(_1,_4)", "(_4,_8):(_1,_4)")), "M",
            expect=R, domain="int32", note="19.1 #19: MCV-1, the dynamic extent M is ignored: _32 for every M"),
    Theorem("make-layout-like-dynamic-order",
            equal(ops.make_layout_like("(M,(N,K)):(N*K,(K,_1))"), "(M,(N,K)):(N*K,(K,_1))"), "M N K", expect=R,
            domain="int32", note="19.1 #21: the order of dynamic strides is ignored"),
    Theorem("filter-dynamic-zero", injective(ops.filter("(M,N):(_1,S)")), {"M": {}, "N": {"lo": 2}, "S": Z},
            expect=R, domain="int32", note="19.1 #22: a dynamic 0 stride is not filtered out"),
]
