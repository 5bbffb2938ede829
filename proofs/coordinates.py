"""Coordinate maps (seed 000, CuTe's 01_layout.md): 1-D, R-D and natural coordinates name the same element;
``idx2crd`` and ``crd2idx`` are inverse on compact layouts; and the compatibility examples as proved or refuted
facts, each over symbolic extents instead of the document's 24, (4,6), ((2,2),6) ...

The coordinate claims are built from the model's own ``idx2crd`` / ``crd2idx`` (stride.hpp), evaluated at witness
coordinates ``#i``, ``#j``, ``#k`` that range over the layout's domain."""

from verifier.theorems import (
    Claim,
    D,
    Layout,
    Theorem,
    and_,
    compatible,
    crd2idx,
    eq,
    forall,
    idx2crd,
    product,
    size,
    symbol,
)

I, J, K = symbol("#i"), symbol("#j"), symbol("#k")
SRC = "stride.hpp:60-247"


def _flat(t: object) -> list:
    return [t] if type(t) is not tuple else [x for e in t for x in _flat(e)]


def colex_roundtrip(shape: tuple) -> list[Claim]:
    """crd2idx(idx2crd(i, S), S) == i for every 1-D coordinate i < size(S)."""
    back = crd2idx(idx2crd(I, shape), shape)
    return [Claim("IDX-CRD-IDX", "1-D -> natural -> 1-D is the identity", SRC, (("#i", D(0), product(shape)),),
                  eq(back, I), I, back)]


def natural_roundtrip(shape: tuple) -> list[Claim]:
    """idx2crd(crd2idx(c, S), S) == c for every natural coordinate c of a rank-2 or rank-3 flat shape S."""
    ws, names = (I, J, K), ("#i", "#j", "#k")
    extents = _flat(shape)
    c = tuple(ws[: len(extents)])
    again = _flat(idx2crd(crd2idx(c, shape), shape))
    ranges = tuple((names[k], D(0), e) for k, e in enumerate(extents))
    return [Claim("CRD-IDX-CRD", "natural -> 1-D -> natural is the identity", SRC, ranges,
                  and_(*(eq(x, y) for x, y in zip(again, c))))]


def layout_inverse(layout: Layout) -> list[Claim]:
    """On a compact layout, idx2crd(L(c), shape, stride) == c and crd2idx(idx2crd(i, shape, stride)) == i."""
    extents = _flat(layout.shape)
    ws, names = (I, J, K), ("#i", "#j", "#k")
    c = tuple(ws[: len(extents)])
    nested = _nest(layout.shape, iter(c))
    idx = crd2idx(nested, layout.shape, layout.stride)
    back = _flat(idx2crd(idx, layout.shape, layout.stride))
    ranges = tuple((names[k], D(0), e) for k, e in enumerate(extents))
    i_back = crd2idx(idx2crd(I, layout.shape, layout.stride), layout.shape, layout.stride)
    return [Claim("IDX2CRD-LEFT", "idx2crd(L(c), shape, stride) == c for every natural coordinate c", SRC, ranges,
                  and_(*(eq(x, y) for x, y in zip(back, c)))),
            Claim("IDX2CRD-RIGHT", "L(idx2crd(i, shape, stride)) == i for every index i < size(L)", SRC,
                  (("#i", D(0), size(layout)),), eq(i_back, I), I, i_back)]


def natural_back(layout: Layout) -> list[Claim]:
    """idx2crd(L(c), shape, stride) == c alone."""
    return layout_inverse(layout)[:1]


def index_back(layout: Layout) -> list[Claim]:
    """crd2idx(idx2crd(i, shape, stride), shape, stride) == i alone."""
    return layout_inverse(layout)[1:]


def _nest(shape: object, it: object) -> object:
    return tuple(_nest(s, it) for s in shape) if type(shape) is tuple else next(it)  # type: ignore[call-overload]


def three_coordinates(layout: Layout) -> list[Claim]:
    """L(i) == L(i % M, i / M) == L((i % M, ((i / M) % N, i / M / N))) for L of shape (M,(N,K)): the 1-D, 2-D and
    natural coordinates of the document's table name the same element."""
    m, (n, _k) = layout.shape
    one = layout(I)
    two = layout(I % m, I / m)
    nat = layout((I % m, ((I / m) % n, (I / m) / n)))
    dom = (("#i", D(0), size(layout)),)
    return [Claim("1D-RD", "the 1-D and the R-D coordinate give the same index", "layout.hpp:101-111", dom,
                  eq(one, two), one, two),
            Claim("RD-NATURAL", "the R-D and the natural coordinate give the same index", "layout.hpp:101-111", dom,
                  eq(two, nat), two, nat)]


P = "positive"
THEOREMS = [
    Theorem("coord-colex-2d", forall(colex_roundtrip, "(M,N)"), "M N"),
    Theorem("coord-colex-hier", forall(colex_roundtrip, "(M,(N,K))"), "M N K"),
    Theorem("coord-natural-2d", forall(natural_roundtrip, "(M,N)"), "M N"),
    Theorem("coord-natural-3d", forall(natural_roundtrip, "(M,N,K)"), "M N K", domain="int32",
            note="the unbounded version is proved too, in about 5 s instead of 0.05 s: int32 keeps the suite fast"),
    Theorem("coord-three-systems", forall(three_coordinates, "(M,(N,K)):(A,(B,C))"),
            {"M": {}, "N": {}, "K": {}, "A": {"lo": 0}, "B": {"lo": 0}, "C": {"lo": 0}},
            note="seed 000's (3,(2,3)):(3,(12,1)) with every integer symbolic"),
    Theorem("idx2crd-inverse-left", forall(layout_inverse, "(M,N):(_1,M)"), "M N"),
    Theorem("idx2crd-inverse-right", forall(layout_inverse, "(M,N):(N,_1)"), "M N"),
    Theorem("idx2crd-hier-natural", forall(natural_back, "(M,(_4,K)):(_1,(M,_4*M))"), "M K",
            note="with a symbolic middle extent N this is decided only sometimes within the budget"),
    Theorem("idx2crd-hier-index", forall(index_back, "(M,(N,K)):(_1,(M,M*N))"), "M N K"),
    # Compatibility (01_layout.md, "Layout compatibility"), with symbolic extents.
    Theorem("compat-int-tuple", compatible("M*N", "(M,N)"), "M N", note="24 ~ (4,6)"),
    Theorem("compat-split-mode", compatible("(M*N,K)", "((M,N),K)"), "M N K", note="(4,6) ~ ((2,2),6)"),
    Theorem("compat-deeper", compatible("((M,N),K*L)", "((M,N),(K,L))"), "M N K L",
            note="((2,2),6) ~ ((2,2),(3,2))"),
    Theorem("compat-transitive-instance", compatible("M*N*K*L", "((M,N),(K,L))"), "M N K L",
            note="24 ~ ((2,2),(3,2)), by transitivity"),
    Theorem("compat-int-rank1", compatible("M", "(M)"), "M", note="24 ~ (24)"),
    Theorem("compat-sizes-differ", compatible("M", "2*M"), "M", expect="refuted", domain="int32",
            note="24 !~ 32: different sizes"),
    Theorem("compat-rank1-int", compatible("(M)", "M"), "M", expect="refuted", domain="int32",
            note="(24) !~ 24: a tuple is never compatible with an integer"),
    Theorem("compat-rank-mismatch", compatible("(M*N)", "(M,N)"), "M N", expect="refuted", domain="int32",
            note="(24) !~ (4,6): ranks differ"),
    Theorem("compat-not-symmetric", compatible("((M,N),K)", "((M,M),(N,K))"), "M N K", expect="refuted",
            domain="int32", note="((2,3),4) !~ ((2,2),(3,2))"),
]
