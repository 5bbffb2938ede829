"""Proof obligations: the conditions an algebra operation needs, each tied to the CuTe source it comes from.

An ``Obligation`` is plain immutable data: an id from the spec's catalogue (``CMP-2``, ``CPL-4``, ``UP-2`` ...), a
one-line description, the CuTe source line, how CuTe treats it (``static_assert`` when static, ``never checked``,
``undefined behaviour``), and the condition as a ``Bool`` over the symbols.  When every value is concrete the
condition is decided on the spot (``holds`` / ``fails``); otherwise it is ``open`` for the engine.

The algebra records obligations into the innermost active ``Recorder`` (a context manager), so the operations
themselves stay plain functions that read like their math.
"""

from __future__ import annotations

import contextvars
import threading
from dataclasses import dataclass

from verifier.core.integers import Bool, Int, ne

SA = "static_assert when the operands are static; never checked when they are dynamic"
NEVER = "never checked"
UB = "division by zero: undefined behaviour (SIGFPE on the host)"

# What an obligation states (``Obligation.kind``): a condition the operation needs (CuTe's checks and the
# catalogue's preconditions); one clause of a postcondition of its result (``size(R) == size(B)``), which alone does
# not say the result is right; or a whole postcondition, decided by enumerating concrete values, which does.
# Postconditions are superseded by those of an enclosing operation (``algebra.swizzled``) and by the claims of the
# contract (``engine.decide``).
NEEDS, CLAUSE, POSTCONDITION = "needs", "clause", "postcondition"


@dataclass(frozen=True)
class Obligation:
    id: str
    description: str
    source: str
    cute_checks: str
    condition: Bool
    kind: str = NEEDS

    @property
    def status(self) -> str:
        v = self.condition.value
        if v is None:
            return "open"
        return "holds" if v else "fails"

    def __str__(self) -> str:
        return f"{self.id} [{self.status}] {self.description} ({self.source}): {self.condition}"


_active: contextvars.ContextVar[list[Obligation] | None] = contextvars.ContextVar("obligations", default=None)
# Recorders entered and not yet exited, in every thread.  While there is none, no call records and the context
# variable need not be read (concrete algebra asks "recording?" several times per operation).  Counted under a
# lock: a count that reached 0 while a Recorder is active would lose its obligations.
_open = 0
_open_lock = threading.Lock()


class Recorder:
    """Collects the obligations recorded while it is active: ``with Recorder() as rec: ...; rec.obligations``."""

    def __init__(self) -> None:
        self.obligations: list[Obligation] = []
        self._token: contextvars.Token[list[Obligation] | None] | None = None

    def __enter__(self) -> Recorder:
        global _open
        with _open_lock:
            _open += 1
        self._token = _active.set(self.obligations)
        return self

    def __exit__(self, *exc: object) -> None:
        global _open
        assert self._token is not None
        _active.reset(self._token)
        with _open_lock:
            _open -= 1


class Quiet:
    """Records nothing while it is active, inside a ``Recorder`` too: for results whose obligations are discarded
    (they repeat ones recorded elsewhere), which then skip the postconditions decided by enumeration and reuse
    remembered results (``algebra.pure``)."""

    def __init__(self) -> None:
        self._token: contextvars.Token[list[Obligation] | None] | None = None

    def __enter__(self) -> Quiet:
        self._token = _active.set(None)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _active.reset(self._token)


def recording() -> bool:
    """Whether a ``Recorder`` is active: postconditions decided by enumeration are worth computing only then."""
    return _open != 0 and _active.get() is not None


_enumerate: contextvars.ContextVar[bool] = contextvars.ContextVar("enumerate", default=True)


class Shallow:
    """Obligations are recorded, but the postconditions that the algebra decides by enumerating concrete layouts
    are not computed: for operations whose claims decide the verdict and supersede them (a kernel's partitions of a
    128x64 tile enumerate thousands of values per divide, at every concrete replay)."""

    def __init__(self) -> None:
        self._token: contextvars.Token[bool] | None = None

    def __enter__(self) -> Shallow:
        self._token = _enumerate.set(False)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _enumerate.reset(self._token)


def enumerating() -> bool:
    """Whether postconditions are to be decided by enumeration: while recording, outside ``Shallow``."""
    return _active.get() is not None and _enumerate.get()


def record(id: str, description: str, source: str, cute_checks: str, condition: Bool, kind: str = NEEDS) -> None:
    """Record an obligation unless it is statically true (nothing to prove)."""
    if not _open or condition.is_constant(True):
        return
    sink = _active.get()
    if sink is not None:
        sink.append(Obligation(id, description, source, cute_checks, condition, kind))


def nonzero(divisor: Int, id: str, what: str, source: str, *what_args: object) -> None:
    """A division CuTe performs: its divisor must not be zero (a static divisor is checked by the compiler).
    ``what`` is formatted with ``what_args`` (``str.format``) only when the obligation is recorded."""
    if divisor.static or not recording():
        return
    record(id, f"{what.format(*what_args) if what_args else what} must not be zero", source, UB, ne(divisor, 0))


# -- severities ------------------------------------------------------------------------------------------------
#
# CuTe's documented contract is the line (docs/semantics.md, "Severities"): an obligation is an ``error`` when its
# failure means CuTe computes something other than what CuTe documents (its ``@post`` comments, its docs, what
# CUTLASS's unit tests assert), divides by zero or rejects the operands; a ``warning`` when its failure is a true
# and useful fact that CuTe's contract allows.  ``--strict`` makes warnings count as errors.

ERROR, WARNING = "error", "warning"

#: Every warning, with the source that shows CuTe's contract allows its failure.
WARNINGS: dict[str, str] = {
    "SLICE-IN": "a slice coordinate outside the extent of the mode it indexes: the view then addresses elements "
                "outside the tensor, which CuTe never checks (layout.hpp:689-703 for a plain layout, whose crd2idx "
                "is linear; a swizzled layout's slice_and_offset tracks only the bits of (shape-1)*stride, "
                "swizzle.hpp:443, and SLICE-POST judges it against the tensor's addressing there too)",
    "DIV-EXACT": "a partial last tile: logical_divide pads past the end of A (02_layout_algebra.md, Logical "
                 "Divide; CUTLASS test/unit/cute/core/logical_divide.cpp asserts logical_divide(48:_1, _32:_1))",
    "CPL-POST-BOUND": "complement's cosize bound (layout.hpp:1166-1171) is not met by compiled CuTe's own "
                      "complement for any cotarget that is not a multiple of cosize(L) (complement.cpp:46-66 tests "
                      "only the other three clauses)",
    "LI-3": "R(L(i)) == i needs an injective L; CuTe documents the quasi-inverse L(R(L(i))) == L(i) "
            "(layout.hpp:1313-1316, LI-POST), which CUTLASS's left_inverse.cpp tests on ((_3,_7)):((_0,_0))",
    "RC-SIZE": "recast's 'same bytes' reading; CuTe documents a per-mode recast (layout.hpp:1801-1803: divide the "
               "stride-1 mode's size by N, every other stride by N), which a non-contiguous or size-1 mode meets",
    "RC-REM": "as RC-SIZE (layout.hpp:1801-1803)",
    "RC-DIV": "as RC-SIZE: a stride-1 extent that N does not divide is rounded up by ceil_div (layout.hpp:1817)",
    "RC-POST": "as RC-SIZE (layout.hpp:1801-1803)",
    "UP-POST": "as RC-SIZE (layout.hpp:1801-1803)",
    "UP-3": "a stride-1 extent that N does not divide is rounded up by ceil_div (layout.hpp:1817): a partial wide "
            "element, as documented",
    "IX-2": "a tile or thread coordinate outside the grid: CuTe's local_tile / local_partition are defined there "
            "(an offset past the tensor, tensor_impl.hpp:976-1087); the access needs predication",
}


def severity(id: str) -> str:
    return WARNING if id in WARNINGS else ERROR


#: Every error, with the source that makes its failure a CuTe bug, undefined behaviour or a rejection.
ERRORS: dict[str, str] = {
    "CMP-2": "composition's weak Stride Divisibility Condition (layout.hpp:1077): rest_stride % curr_shape == 0 or "
             "rest_stride < curr_shape, a static_assert only when both are static; never checked when dynamic, where "
             "CuTe silently computes a wrong layout",
    "CMP-3": "composition's weak Shape Divisibility Condition (layout.hpp:1101): rest_shape % new_shape == 0; as "
             "CMP-2",
    "CMP-4": "composition: every B leaf s:d fits A's unmerged modes (the exact per-leaf rule of the fold at "
             "layout.hpp:1054-1110), decided on concrete values",
    "CMP-5": "composition: B's leaves add without carrying between A's modes (the by-mode distribution, "
             "layout.hpp:1036-1039), decided on concrete values",
    "CMP-6": "composition divides by a zero B stride or a zero extent taken from A (ceil_div at layout.hpp:1084, "
             "rest_shape / new_shape at layout.hpp:1109): undefined behaviour",
    "CMP-7": "composition divides by a zero extent of A (ceil_div at layout.hpp:1086): undefined behaviour",
    "CMP-POST": "@post of composition: (A o B)(i) == A(B(i)) (layout.hpp:1022)",
    "CMP-POST-SIZE": "@post of composition: size(A o B) == size(B) (layout.hpp:1022)",
    "COA-POST": "@post of coalesce: R(i) == L(i) (layout.hpp:861-863)",
    "COA-POST-SIZE": "@post of coalesce: size(R) == size(L) (layout.hpp:861-863)",
    "CPL-2": "complement needs non-overlapping sorted strides, else a size-0 mode (layout.hpp:1166-1171)",
    "CPL-3": "complement needs positive strides (layout.hpp:1166-1171)",
    "CPL-4": "complement divides by a stride that is zero: undefined behaviour",
    "CPL-POST": "complement's @post, the clauses CUTLASS's complement.cpp:46-66 asserts",
    "CPL-POST-NONEMPTY": "the complement is not empty (layout.hpp:1212-1213: overlapping strides give a 0-extent "
                         "mode, spec CPL-2), which CUTLASS's test_complement never produces",
    "CPL-POST-COVER": "complement covers the cotarget (layout.hpp:1166-1171; complement.cpp:46-66)",
    "CPL-POST-ORDER": "the complement is strictly increasing (layout.hpp:1166-1171; complement.cpp:46-66)",
    "CPL-POST-DISJOINT": "the complement misses L (layout.hpp:1166-1171; complement.cpp:46-66)",
    "TMA-POST": "the TMA box walks the smem tile in smem order: box(i) is the gmem offset of the tile coordinate at "
                "smem index i (copy_traits_sm90_tma.hpp:723-845, construct_tma_gbasis)",
    "TMA-RANK": "the box modes from the fifth on are grouped into one (copy_traits_sm90_tma.hpp:834, since "
                "cuTensorMapEncodeTiled takes at most 5, cuda.h:23275) and read as one progression of stride gcd "
                "(:876-891): the grouped modes must be one, else the TMA reads other elements than the tile's; CuTe "
                "does not check it",
    "TMA-BOX": "every TMA box extent is in [1, 256] (copy_traits_sm90_tma.hpp:998-1007 asserts it; cuda.h:23300)",
    "TMA-INNER": "the inner box row, boxDim[0] times the element size, is a multiple of 16 bytes (cuda.h:23302); CuTe "
                 "does not check it: the driver's error at copy_traits_sm90_tma.hpp:1041 is CuTe's assert(false) at "
                 ":1069",
    "TMA-SWIZZLE": "with a swizzle, the inner box row fits the swizzle span: <= 32, 64, 128 bytes for SWIZZLE_32B, "
                   "64B, 128B* (cuda.h:23322-23326); only the driver checks it (copy_traits_sm90_tma.hpp:1041, 1069)",
    "TMA-MAJOR": "the box's first mode has gmem stride 1: the descriptor does not store it "
                 "(copy_traits_sm90_tma.hpp:963 asserts it)",
    "TMA-GSTRIDE": "every other box mode's gmem stride in bytes is non-negative, a multiple of 16 and below 2^40 "
                   "(copy_traits_sm90_tma.hpp:971-978 asserts it of the uint64_t strides of :866-880, 966-969, "
                   "where a negative stride is 2^64 minus its size; cuda.h:23288-23289)",
    "TMA-GDIM": "every box mode's gmem extent is in [1, 2^32] (copy_traits_sm90_tma.hpp:951-960 asserts it; "
                "cuda.h:23282)",
    "SLICE-POST": "slicing a tensor addresses the same elements (tensor_impl.hpp:237-239: the view is "
                  "make_tensor(data() + offset, slice)); slice_and_offset of a swizzled layout combines the offset "
                  "with the sliced-off part by XOR (no carry assumed) and decides to keep the swizzle on static "
                  "active bits only (swizzle_layout.hpp:240-268), so CuTe's own slice can address other elements",
    "RI-POST": "@post of right_inverse: L(R(i)) == i (layout.hpp:1255-1260)",
    "LI-POST": "the quasi-inverse left_inverse documents: L(R(L(i))) == L(i) (layout.hpp:1313-1316)",
    "DIV-POST": "logical_divide is A o (T, complement(T)) (layout.hpp:1572; 02_layout_algebra.md:400)",
    "DIV-POST-SIZE": "as DIV-POST (layout.hpp:1572)",
    "PRD-POST": "logical_product is (A, complement(A) o B) (layout.hpp:1666; 02_layout_algebra.md)",
    "PRD-POST-COMPACT": "the copies of A leave no gap: (filter(A), C) is onto [0, size), the repetition the products "
                        "document (02_layout_algebra.md, Logical Product); detail::complement needs a filtered "
                        "layout without size-1 modes (layout.hpp:1176), which a run-time extent 1 breaks",
    "PRD-POST-SIZE": "as PRD-POST (layout.hpp:1666)",
    "DN-POST": "downcast addresses the same bytes (layout.hpp:1836-1838; the algebra's enumerated DN-RC-*)",
    "UP-2": "upcast assumes a dynamic stride is a multiple of N, at least N (layout.hpp:1820-1822); else the "
            "stride truncates (a run-time (16):(1) gives (16):(0))",
    "DN-2": "downcast treats only a static +-1 stride as the unit mode (layout.hpp:1848); a dynamic 1 is scaled "
            "(informative: the same bytes, DN-RC-*, decides)",
    "DN-RC-SIZE": "downcast addresses the same bytes, N narrow elements per wide one (layout.hpp:1836-1838)",
    "DN-RC-REM": "as DN-RC-SIZE (layout.hpp:1836-1838)",
    "DN-RC-DIV": "as DN-RC-SIZE (layout.hpp:1836-1838)",
    "DN-RC-POST": "as DN-RC-SIZE (layout.hpp:1836-1838)",
    "TTS-2": "tile_to_shape: the block divides a dynamic target (layout.hpp:1785)",
    "TTS-POST": "tile_to_shape's @post: the block repeated to the target (layout.hpp:1773)",
    "TTS-SIZE": "tile_to_shape's @post: compatible(trg, R) at mode level (layout.hpp:1773)",
    "MCV-1": "max_common_vector compares layouts of one size (layout.hpp:1402)",
    "MCV-POST": "@post of max_common_vector (layout.hpp:1402)",
    "NUL-POST": "@post of nullspace, counted by value (layout.hpp:1477-1480)",
    "SW-3": "composition(L, Sw) needs L XOR-linear on the swizzled bits (swizzle_layout.hpp:327-341)",
    "IX-3": "local_partition needs a compact thread layout: thr(get_hier_coord(i)) == i (layout.hpp:244-253)",
    "FLT-POST": "filter(L) is L without its static-0-stride modes, coalesced: the same function (layout.hpp:931-950)",
    "FLT-POST-SIZE": "as FLT-POST (layout.hpp:931-950)",
    "NUL-POST-SIZE": "nullspace's size counts every zero-stride mode, by value (layout.hpp:1477-1508)",
    "MCV-J": "max_common_vector's @post: the coordinate of n in b lies in both domains (layout.hpp:1398-1416)",
    "MCV-A": "max_common_vector's @post: a(j) == n there (layout.hpp:1398-1416)",
    "MCL-POST-A": "@post of max_common_layout: a(R(i)) == i (layout.hpp:1374-1394)",
    "MCL-POST-B": "@post of max_common_layout: b(R(i)) == i (layout.hpp:1374-1394)",
    "LIKE-BOUND": "make_layout_like is compact past its static-0 modes (layout.hpp:431-445)",
    "LIKE-INJ": "as LIKE-BOUND (layout.hpp:431-445)",
    "SLC-POST": "slice / slice_and_offset: offset + R(i) == L(c at R's coordinate of i) (layout.hpp:689-703)",
    "DIV0": "a division by zero in CuTe's arithmetic or in evaluating the layouts: undefined behaviour",
    "PRED-IN": "a copy_if whose predicate admits an access outside the tensor reads or writes out of bounds "
               "(predication.py; elem_less, int_tuple.hpp:885)",
    "PRED-AT": "a predicated access must read the element at its identity coordinate (predication.py)",
    "PRED-COVER": "a residue smaller than the problem skips elements of it (predication.py)",
    "ALIGN": "a vectorised access of W bits needs a W-bit aligned address (copy.hpp max_common_vector, the "
             "ld/st.v* and cp.async instructions fault or are split otherwise)",
    "ALIGN-CONTIG": "a vectorised access reads contiguous elements (copy.hpp max_common_vector)",
    "COVER-THR": "the threads' values must cover the CTA tile once each, else elements are skipped or copied twice "
                 "(tensor_impl.hpp:1076-1087)",
    "THR-ONCE": "a thread whose values reach outside the CTA tile or onto another thread's elements copies them "
                "twice or into the next tile (tensor_impl.hpp:1076-1087)",
    "CUTE-UB": "a division by zero CuTe performs on these operands: undefined behaviour",
    "CUTE-REJECTS": "CuTe rejects the operands at compile time (a static_assert)",
    "COMPATIBLE": "the property checked (cute-verify check compatible)",
    "INJECTIVE": "the property checked (cute-verify check injective / bijective)",
    "IN-BOUNDS": "the property checked (cute-verify check in_bounds / bijective)",
    "EQUIV": "the property checked (cute-verify check equivalent)",
    "EQUIV-SIZE": "the property checked (cute-verify check equivalent)",
    "SURJ": "the property checked (cute-verify check surjective)",
    "SURJ-COUNT": "the property checked (cute-verify check surjective)",
    "OVF-ARITH": "signed overflow in the arithmetic CuTe executes for the operation (undefined behaviour; compiled "
                 "CuTe wraps, or then divides by zero): the computation named, e.g. ceil_div at int_tuple.hpp:344",
    "OVF-RESULT": "the result's evaluation (size, coord*stride, crd2idx's sums, stride.hpp:60-124) overflows its "
                  "index type where the operands' does not",
    "OVF-SIZE": "the property checked (cute-verify check no_overflow)",
    "OVF-TERM": "the property checked (cute-verify check no_overflow)",
    "OVF-SUM": "the property checked (cute-verify check no_overflow)",
    "OVF-OFFSET": "the property checked (cute-verify check no_overflow of a thread's partition): the offset of the "
                  "thread's view, crd2idx of its coordinate in the tensor (tensor_impl.hpp, slice_and_offset)",
    "ORD-COMPACT": "make_ordered_layout is compact in the order O: each leaf's stride is the product of the extents "
                   "before it in that order (layout.hpp:420-428)",
    "ONTO-SIZE": "the property checked (cute-verify check bijective / surjective of a coordinate-valued layout): "
                 "size(L) == size(coshape(L))",
    "SMEM-ADDR": "the property checked (cute-verify check conflict_free): every address is a non-negative, naturally "
                 "aligned shared-memory address",
    "CONFLICT-FREE": "the property checked (cute-verify check conflict_free): one wavefront per phase "
                     "(engine/banks.py states the model)",
    "FZ-POST": "filter_zeros(L) is L with the extent of each static-0-stride mode made _1: R(i) == L(idx2crd(i, "
               "shape(R))) (layout.hpp:914-920)",
}

KNOWN = frozenset(ERRORS) | frozenset(WARNINGS)

#: How to fix a failing obligation, by id or id prefix (the longest that matches wins; ``cute-verify rule ID``).
FIXES: dict[str, str] = {
    "": "the verdict's guard is the weakest condition found under which the operation is correct: check it in the "
        "kernel's can_implement (the guard is printed as C++), or make the integers involved static so that CuTe "
        "checks them at compile time",
    "DIV-EXACT": "either predicate the residue (a partial last tile: cute-verify predicated_copy checks the "
                 "predication) or require divisibility in can_implement with the printed guard (M % 128 == 0)",
    "IX-": "predicate the accesses of the thread or tile past the grid, or bound the index (--assume 't < 128' "
           "or a spec file's symbol range) to the grid the kernel launches",
    "SLICE-IN": "keep the coordinate inside the mode's extent, or predicate the access; a swizzled layout's slice "
                "past the extent addresses other elements than the tensor",
    "OVF-": "bound the run-time sizes so that CuTe's int arithmetic stays below 2^31 (the guard prints the bound), "
            "or declare the integers 64-bit (a spec file's bits = 64, the DSL's Int64)",
    "CMP-6": "a zero extent or stride reaches a division: require the run-time extents to be positive",
    "CMP-7": "a zero extent reaches a division: require the run-time extents to be positive",
    "CPL-4": "a zero stride reaches a division: complement needs positive strides",
    "DIV0": "a zero divisor: require the run-time value to be non-zero",
    "CUTE-UB": "CuTe has undefined behaviour at these values: add the printed guard to can_implement",
    "CUTE-REJECTS": "CuTe does not compile or asserts for these operands: change the operands to what the header "
                    "line named accepts",
    "UP-": "make the dynamic strides multiples of the recast ratio (the guard), or recast a layout whose "
           "contiguous mode is static",
    "DN-": "downcast needs a static unit stride: make the contiguous stride _1",
    "RC-": "CuTe's recast is per mode; if the bytes must stay the same, make the contiguous mode's extent a "
           "multiple of the ratio and the other strides multiples of it",
    "TMA-": "the TMA box or gmem tensor breaks a constraint of make_tma_copy / cuTensorMapEncodeTiled: change the "
            "smem box or require the printed guard on the gmem strides and sizes (16-byte multiples, < 2^40)",
    "CONFLICT-FREE": "the counterexample names two threads of one phase that hit one bank on different words: "
                     "pick a swizzle (Sw<B,M,S> o smem_ptr o L) or an access layout that spreads them",
    "SMEM-ADDR": "an access is misaligned or negative: align the smem layout's strides to the access width",
    "LI-3": "left_inverse of a non-injective layout only satisfies the quasi-inverse; use it only on the image",
    "CPL-POST-BOUND": "informative: compiled CuTe's complement does not meet this bound for such cotargets",
}


def fix(id: str) -> str:
    """How to fix a failing ``id`` (``FIXES``)."""
    return FIXES[max((k for k in FIXES if id.startswith(k)), key=len)]


# Postconditions are decided by enumeration on concrete layouts up to this size (the engine decides the rest).
POSTCONDITION_LIMIT = 1 << 14

