"""Properties of layouts, decided for every allowed value of their symbols.

``compatible(S1, S2)``, ``injective(L)``, ``surjective(L, n)`` onto ``[0, n)``, ``bijective(L)`` onto
``[0, size)``, ``equivalent(L1, L2)`` as functions on their domain (``extended``: on every non-negative 1-D
coordinate, as CuTe evaluates past the domain along the last mode), ``in_bounds(L, extent)`` and
``no_overflow(L, bits)`` of every intermediate of CuTe's index computation (``size``, each ``coord * stride`` and
each partial sum of ``crd2idx``).

Each property is a list of claims built from the operands; the engine proves or refutes them, and a refutation is
replayed by rebuilding the claims on the operands with the counterexample's values substituted.  Surjectivity needs
"for every k there is an i", which is not a single universal claim: it is proved through bijectivity or a
quantified query, and refuted by counting (``size(L) < n``) or by a quantified query whose answer is replayed by
enumeration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from verifier.algebra import ops as algebra
from verifier.contracts.claims import Claim, Replay, substitute_operand
from verifier.core.basis import ScaledBasis, basis_get
from verifier.core.codomain import Path, coshape_components, differ, paths_of, same, within
from verifier.core.errors import LayoutError
from verifier.core.int_tuple import IntTuple, compatible, leaves, product
from verifier.core.integers import Bool, D, Int, and_, eq, ge, le, max_, min_, symbol
from verifier.core.layouts import Layout, size
from verifier.core.overflow import under
from verifier.core.swizzle import ComposedLayout, flag_bits, offset_view, smem_bit_address
from verifier.core.symbols import Symbols
from verifier.engine.decide import Engine, Item, decide_all, decide_bits_first, summarize
from verifier.engine.property import DECLARED, Option, declare_property
from verifier.engine.verdicts import (
    DEFAULT_POLICY,
    PROVED,
    REFUTED,
    UNKNOWN,
    VALID,
    Counterexample,
    ObligationVerdict,
    Policy,
    Verdict,
)
from verifier.notation.cpp import show
from verifier.notation.interop import coerce
from verifier.solver.budget import DEFAULT_TIMEOUT, Budget
from verifier.solver.domain import check_domain
from verifier.solver.queries import missed_index

_I, _J = symbol("#i"), symbol("#j")
SEPARATED = "sorted strides (no solver)"
STRUCTURAL = "equal coalesced forms (no solver)"
UNBOUNDED = D(2**62)


def _range(n: Int) -> tuple[tuple[str, Int, Int], ...]:
    return (("#i", D(0), n),)


@declare_property("compatible", ("S", "S"), "every leaf of S1 equals the size of the matching mode of S2 "
                  "(int_tuple.hpp:485-506)", ("COMPATIBLE",))
def _compatible(a: IntTuple, b: IntTuple) -> list[Claim]:
    return [Claim("COMPATIBLE", "every leaf of S1 equals the size of the matching mode of S2",
                  "int_tuple.hpp:485-506", (), compatible(a, b))]


def _size(f: object) -> Int:
    """``size`` of a layout or of a composed layout (its inner layout's, layout_composed.hpp:270)."""
    return f.size() if isinstance(f, ComposedLayout) else size(f)  # type: ignore[arg-type]


@declare_property("injective", ("L",), "L(i) != L(j) for i < j < size(L)", ("INJECTIVE",), cpp=("L",))
def _injective(layout: Layout) -> list[Claim]:
    n = _size(layout)
    return [Claim("INJECTIVE", "L(i) != L(j) for i < j < size(L)", "layout.hpp", (("#i", D(0), n), ("#j", _I + 1, n)),
                  differ(layout(_I), layout(_J), paths_of(layout)))]


def _extents(layout: Layout, extent: IntTuple, paths: list[Path]) -> list[Int]:
    """The bound of each codomain component: an integer extent for an integer-valued layout, and for a
    scaled-basis layout a shape read along each basis path (``(M,K)`` bounds ``_1@0`` by M and ``_1@1`` by K)."""
    if paths == [()]:
        return [extent if isinstance(extent, Int) else size(extent)]
    if isinstance(extent, Int) and paths != [(0,)]:
        raise LayoutError(f"in_bounds: {layout} has coordinates as values; give the extent as a shape with a mode "
                          "per basis, e.g. (M,N)")
    out = []
    for p in paths:
        e = basis_get(ScaledBasis(D(1), p), extent)
        out.append(e if isinstance(e, Int) else size(e))  # type: ignore[arg-type]
    return out


@declare_property("bijective", ("L",), "injective and onto [0, size(L)) (a coordinate-valued L: onto its codomain "
                  "box coshape(L))", ("INJECTIVE", "IN-BOUNDS", "ONTO-SIZE"), cpp=("L",))
def _bijective(layout: Layout) -> list[Claim]:
    paths = paths_of(layout)
    if paths == [()]:
        return _injective(layout) + _in_bounds(layout, _size(layout))
    # Onto the codomain box coshape(L) (layout.hpp:646-656): injective into it, and as many coordinates as it has.
    box = coshape_components(layout, paths)
    i = layout(_I)
    return [*_injective(layout),
            Claim("IN-BOUNDS", "0 <= L(i) < coshape(L) componentwise for every i < size(L)", "layout.hpp:646-656",
                  _range(size(layout)), within(i, box, paths)),
            _fact_claim("ONTO-SIZE", "size(L) == size(coshape(L)): as many coordinates as the codomain box has",
                        eq(size(layout), product(tuple(box))))]


def _fact_claim(id: str, description: str, holds: Bool) -> Claim:
    return Claim(id, description, "layout.hpp", (), holds)


@declare_property("equivalent", ("L", "L"), "L1(i) == L2(i) for every i < size(L1) == size(L2) (extended: on every "
                  "non-negative 1-D coordinate, as CuTe evaluates past the domain along the last mode)",
                  ("EQUIV", "EQUIV-SIZE"),
                  (Option("extended", bool, "equivalent: also past the domain, as CuTe evaluates", form="true|false"),),
                  cpp=("L", "L"))
def _equivalent(a: Layout, b: Layout, extended: bool = False) -> list[Claim]:
    n = UNBOUNDED if extended else _size(a)
    bits = flag_bits(a) or flag_bits(b)
    if bits is not None:
        return [_equiv_size(a, b), _smem_equivalent(a, b, bits, n, extended)]
    paths = paths_of(a, b)
    scalar = paths == [()]
    return [_equiv_size(a, b),
            Claim("EQUIV", "L1(i) == L2(i) for every i" + (" >= 0" if extended else " < size"), "layout.hpp",
                  _range(n), same(a(_I), b(_I), paths), a(_I) if scalar else None, b(_I) if scalar else None)]


def _equiv_size(a: Layout, b: Layout) -> Claim:
    return Claim("EQUIV-SIZE", "size(L1) == size(L2)", "layout.hpp", (), eq(_size(a), _size(b)))


def _smem_equivalent(a: object, b: object, bits: int, n: Int, extended: bool) -> Claim:
    """A flagged layout is a shared-memory tensor's layout (``_smem_in_bounds``): two layouts are the same function
    where ``make_tensor(make_smem_ptr<T>(p), L)`` places every element of both at one address, ``T`` the flag's
    ``B``-bit type (an unflagged side addresses ``T`` elements through a plain pointer; two flags of other widths
    cannot address one ``T``: CuTe's static_assert, pointer_flagged.hpp:64)."""
    x, y = smem_bit_address(a, bits, _I), smem_bit_address(b, bits, _I)
    return Claim("EQUIV", "make_tensor(make_smem_ptr(p), L1) and make_tensor(make_smem_ptr(p), L2) address the same "
                 f"{bits}-bit element at every i" + (" >= 0" if extended else " < size")
                 + " (a flagged layout's swizzle acts on byte addresses)",
                 "pointer_flagged.hpp:57-66, pointer_swizzle.hpp:86-87", _range(n), eq(x, y), _element(x, bits),
                 _element(y, bits))


def _element(bit_address: Int, bits: int) -> Int:
    """The element index of a ``bits``-bit element at ``bit_address``, or -1 where the address is not a multiple
    of the element's width (a swizzle that XORs bits inside an element)."""
    from verifier.core.integers import Op

    aligned = Op("==", ((bit_address % D(bits)).expr, D(0).expr))
    return Int(Op("ite", (aligned, (bit_address / D(bits)).expr, D(-1).expr)), False)


def _tensor_index(layout: object, i: Int) -> Int:
    """The element ``make_tensor(make_smem_ptr(p), layout)`` addresses at ``i`` for a flagged layout
    (``_smem_in_bounds``); ``layout(i)`` for any other."""
    bits = flag_bits(layout)
    return layout(i) if bits is None else _element(smem_bit_address(layout, bits, i), bits)  # type: ignore[operator]


@declare_property("in_bounds", ("L", "S"), "0 <= L(i) < EXTENT for every i < size(L) (a shape bounds a "
                  "coordinate-valued L componentwise)", ("IN-BOUNDS",), cpp=("L", "I"))
def _in_bounds(layout: Layout, extent: IntTuple) -> list[Claim]:
    bits = flag_bits(layout)
    if bits is not None:
        return _smem_in_bounds(layout, extent, bits)
    paths = paths_of(layout)
    bounds = _extents(layout, extent, paths)
    i = layout(_I)
    scalar = paths == [()]
    shown = bounds[0] if scalar else "(" + ",".join(str(b) for b in bounds) + ")"
    return [Claim("IN-BOUNDS", f"0 <= L(i) < {shown} for every i < size(L)", "layout.hpp", _range(_size(layout)),
                  within(i, bounds, paths), None, i if scalar else None)]


def _smem_in_bounds(layout: object, extent: IntTuple, bits: int) -> list[Claim]:
    """A flagged ``Sw o smem_ptr[Bb](unset) o L`` is a shared-memory tensor's layout: its elements lie where
    ``make_tensor(make_smem_ptr(p), layout)`` puts them, the swizzle acting on byte addresses
    (``swizzle.smem_bit_address``), and each of its ``B`` bits must lie in the ``E`` elements of the buffer."""
    e = extent if isinstance(extent, Int) else size(extent)
    a = smem_bit_address(layout, bits, _I)
    return [Claim("IN-BOUNDS", f"every element of make_tensor(make_smem_ptr(p), L) lies in the {e} elements from p "
                  f"(the swizzle acts on byte addresses): 0 <= bit address and bit address + {bits} <= {e}*{bits}",
                  "pointer_flagged.hpp:57-66, pointer_swizzle.hpp:86-87", _range(_size(layout)),
                  and_(ge(a, D(0)), le(a + D(bits), e * D(bits))), None, a)]


@declare_property("no_overflow", ("L",), "every intermediate of CuTe's index computation (size, each coord * stride, "
                  "each partial sum of crd2idx) fits the index type", ("OVF-SIZE", "OVF-TERM", "OVF-SUM", "OVF-OFFSET"),
                  (Option("bits", int, "no_overflow: the index width", choices=(32, 64), default=32, form="32|64"),))
def _no_overflow(layout: Layout | ComposedLayout, bits: int = 32) -> list[Claim]:
    lo, hi = D(-(2 ** (bits - 1))), D(2 ** (bits - 1) - 1)

    def fits(x: Int) -> Bool:
        return and_(ge(x, lo), le(x, hi))

    if isinstance(layout, ComposedLayout):
        view = offset_view(layout)
        if view is None:
            raise LayoutError("no_overflow: a composed layout's index is its inner layout's, through a swizzle that "
                              "keeps the bits below its top; check no_overflow of the inner layout")
        # A thread's partition (Sw<0,..> o offset o L): L's index arithmetic, and the offset, crd2idx of the
        # thread's coordinate in the tensor (the pointer then moves by it: pointer arithmetic).  The offset's value
        # is what a counterexample replays on concrete operands (its intermediates fold away there).
        offset, inner = view
        return [*_no_overflow(inner, bits),
                Claim("OVF-OFFSET", f"the view's offset {offset} fits in int{bits}",
                      "tensor_impl.hpp (slice_and_offset)", (), fits(offset))]
    shapes = list(leaves(layout.shape))
    # A scaled-basis stride computes each coordinate component separately; its value is what can overflow.
    strides = [d.value if isinstance(d, ScaledBasis) else d for d in leaves(layout.stride)]
    out: list[Claim] = []
    prod: Int = D(1)
    for k, s in enumerate(shapes):
        prod = prod * s
        out.append(Claim("OVF-SIZE", f"the product of the first {k + 1} extents (size) fits in int{bits}",
                         "layout.hpp (size)", (), fits(prod)))
    low, high = D(0), D(0)
    for k, (s, d) in enumerate(zip(shapes, strides)):
        term = (s - 1) * d
        out.append(Claim("OVF-TERM", f"coord * stride of mode {k} fits in int{bits}", "stride.hpp (crd2idx)", (),
                         fits(term)))
        low = low + _min0(term)
        high = high + _max0(term)
        out.append(Claim("OVF-SUM", f"the partial sums of crd2idx up to mode {k} fit in int{bits}",
                         "stride.hpp (crd2idx)", (), and_(fits(low), fits(high))))
    return out


def _min0(x: Int) -> Int:
    return min_(x, D(0))


def _max0(x: Int) -> Int:
    return max_(x, D(0))


@declare_property("conflict_free", ("L", "L"), "one wavefront per phase of a shared-memory access: SMEM read by "
                  "the threads of ACCESS (banks.py)", ("CONFLICT-FREE", "SMEM-ADDR"),
                  (Option("element_bits", int, "conflict_free: the element width in bits (16 for half)",
                          required=True, metavar="B"),
                   Option("access_bits", int, "conflict_free: the bits each thread accesses (8, 16, 32, 64, 128; 128 "
                          "for ldmatrix)", required=True, metavar="W"),
                   Option("offset", str, "conflict_free: a tile-coordinate offset added to every thread's coordinate "
                          "(a stage)", metavar="EXPR", form='"EXPR"')),
                  cpp=("L", "L", "I", "I"))
def _conflict_free(smem: object, access: Layout, element_bits: int = 0, access_bits: int = 0,
                   offset: Int | None = None) -> list[Claim]:
    """One wavefront per phase of a shared-memory access (the model of ``banks.py``)."""
    from verifier.engine.banks import AccessModel, claims_for

    model = AccessModel(element_bits, access_bits)
    return [Claim(c.id, c.description, "banks.py (32 banks of 4 bytes)", c.ranges, c.holds, c.expected, c.actual)
            for c in claims_for(smem, access, model, offset)]




def _items(prop: str, args: Sequence[object], options: Mapping[str, object]) -> list[Item]:
    builder: Callable[..., list[Claim]] = DECLARED[prop].fn  # type: ignore[assignment]
    built = builder(*args, **options)

    def replay(values: Mapping[str, int], k: int) -> Replay:
        concrete = [substitute_operand(a, values) for a in args]
        opts = {key: substitute_operand(v, values) for key, v in options.items()}  # a symbolic --offset
        c = builder(*concrete, **opts)[k]
        w = {name: values[name] for name in c.witnesses}
        for name, lo, hi in c.ranges:
            if not (int(lo.evaluate(w)) <= w[name] < int(hi.evaluate(w))):
                return Replay(False)
        ok = bool(c.holds.evaluate(w)) if c.holds.value is None else bool(c.holds.value)
        exp = int(c.expected.evaluate(w)) if c.expected is not None else None
        act = int(c.actual.evaluate(w)) if c.actual is not None else None
        return Replay(not ok, exp, act)

    return [Item(c.id, c.description, c.source, "property", True, c.ranges, c.holds,
                 partial(replay, k=k)) for k, c in enumerate(built)]


def check(prop: str, args: Sequence[object], symbols: Symbols, timeout: float | None = DEFAULT_TIMEOUT,
          policy: Policy = DEFAULT_POLICY, rlimit: int | None = None, budget: Budget | None = None,
          **options: object) -> Verdict:
    """Decide ``prop(*args)`` for every value the assumptions allow: proved, refuted or unknown, within ``rlimit``
    Z3 resource units and the wall-clock safety net of ``timeout`` seconds (``budget.py``).  Raises
    ``LayoutError`` when the assumptions admit no value or an extent can be negative (``domain.py``)."""
    args = [coerce(a) for a in args]  # pycute layouts are accepted (interop.py)
    if isinstance(options.get("offset"), str):  # conflict_free from a spec file: an expression over its symbols
        from verifier.notation.cpp import parse_offset

        options = {**options, "offset": parse_offset(options["offset"], symbols)}  # type: ignore[arg-type]
    inputs = tuple(show(a) for a in args)
    assumptions = symbols.described()
    undecided = check_domain(prop, args, symbols)
    if undecided is not None:
        return Verdict(prop, inputs, UNKNOWN, reason=undecided, assumptions=assumptions)
    engine = Engine(symbols, budget=budget if budget is not None else Budget(rlimit, timeout))
    with under(symbols):  # CuTe's integer types (a swizzle's offset is int64 where a 64-bit symbol is involved)
        decisions = _reduce_swizzled(engine, prop, args, options, policy)
        if decisions is None:
            decisions = _decide(engine, prop, args, options, policy)
    decisions = [replace(d, severity=policy.severity(d.id)) for d in decisions]
    verdict, cex, reason = summarize(decisions, policy)
    verdict = {VALID: PROVED, "invalid": REFUTED}.get(verdict, verdict)
    if prop == "conflict_free" and cex is not None and isinstance(cex.coordinate, tuple):
        from verifier.engine.banks import AccessModel, witness_note

        model = AccessModel(int(options["element_bits"]), int(options["access_bits"]))  # type: ignore[call-overload]
        note = witness_note(args[0], args[1], model, cex.params, cex.coordinate,  # type: ignore[arg-type]
                            options.get("offset"))  # type: ignore[arg-type]
        cex = replace(cex, note=note)
        reason = f"{reason}: {note}"
    return Verdict(prop, inputs, verdict, None, tuple(decisions), cex, reason, assumptions=assumptions)


def _decide(engine: Engine, prop: str, args: Sequence[object], options: Mapping[str, object],
            policy: Policy = DEFAULT_POLICY) -> list[ObligationVerdict]:
    decisions: list[ObligationVerdict]
    if prop == "surjective":
        decisions = _surjective(engine, args[0], args[1])  # type: ignore[arg-type]
    elif prop in ("injective", "bijective") and _separated(args[0]):  # type: ignore[arg-type]
        layout = args[0]
        inj = _injective(layout)[0]  # type: ignore[arg-type]
        decisions = [ObligationVerdict(inj.id, inj.description, inj.source, "property",
                                       "sorted by |stride|, each stride exceeds the reach of the smaller ones",
                                       PROVED, True, route=SEPARATED)]
        if prop == "bijective":
            bounds = _items("in_bounds", [layout, _size(layout)], {})
            # A swizzle's XOR is bit fields: the exact bit-vector route first, as for the other swizzled checks.
            decisions += (decide_bits_first(engine, bounds, policy) if isinstance(layout, ComposedLayout)
                          else decide_all(engine, bounds, policy))
    elif prop == "conflict_free" or any(isinstance(a, ComposedLayout) for a in args):
        decisions = decide_bits_first(engine, _items(prop, args, options), policy)
    elif prop == "equivalent" and not options.get("extended") and (
            structural := _structurally_equivalent(args[0], args[1])) is not None:
        decisions = structural
    else:
        decisions = decide_all(engine, _items(prop, args, options), policy)
    return decisions


def _reduce_swizzled(engine: Engine, prop: str, args: Sequence[object], options: Mapping[str, object],
                     policy: Policy = DEFAULT_POLICY) -> list[ObligationVerdict] | None:
    """The property of a swizzled layout as the same property of its inner layout, where an exact lemma of
    ``swizzle_props`` allows it (None otherwise: the bit-level encoding decides it)."""
    from verifier.engine.swizzle_props import LEMMA_BOUNDS, LEMMA_EQUIV, LEMMA_INJECTIVE, divides_block, swizzled_layout

    first = swizzled_layout(args[0]) if args else None
    if first is None or not first[0].sign_free:  # the lemmas hold for masks below bit 31 only
        return None
    sw, offset, inner = first

    def routed(ds: list[ObligationVerdict], lemma: str) -> list[ObligationVerdict]:
        return [replace(d, route=f"{lemma}; {d.route}" if d.route else lemma) for d in ds]

    if prop == "injective":
        return routed(_decide(engine, prop, [inner], options, policy), LEMMA_INJECTIVE)
    if prop in ("in_bounds", "bijective") and offset.is_constant(0):
        extent = args[1] if prop == "in_bounds" else size(inner)
        e = extent if isinstance(extent, Int) else size(extent)  # type: ignore[arg-type]
        divides = divides_block(sw, e, flag_bits(args[0]))
        if divides is not None and engine_proves(engine, divides):
            rest = [inner, *args[1:]]
            return routed(_decide(engine, prop, rest, options, policy), f"{LEMMA_BOUNDS}" if prop == "in_bounds"
                          else f"{LEMMA_INJECTIVE}; {LEMMA_BOUNDS}")
        if prop == "bijective":  # injective by the lemma; the bounds on the swizzle's bits
            return (routed(_decide(engine, "injective", [inner], options, policy), LEMMA_INJECTIVE)
                    + decide_bits_first(engine, _items("in_bounds", [args[0], size(inner)], {}), policy,
                                         prove_only=True))
        return None
    if prop == "equivalent" and len(args) == 2:
        second = swizzled_layout(args[1])
        if second is not None and second[0] == sw and second[1] == offset:
            return routed(_decide(engine, prop, [inner, second[2]], options, policy), LEMMA_EQUIV)
    return None


def _separated(layout: Layout) -> bool:
    """A sufficient condition for injectivity of a concrete layout, decided without a solver and in time flat in
    its size: sorted by ``|stride|``, each mode's stride exceeds the largest offset the smaller modes reach, so
    the digits of a coordinate are recovered from its index one mode at a time (mixed radix)."""
    if not isinstance(layout, Layout) or not layout.concrete or paths_of(layout) != [()]:
        return False
    modes = [(int(s), abs(int(d))) for s, d in zip(leaves(layout.shape), leaves(layout.stride)) if int(s) != 1]
    if any(s < 1 for s, _ in modes):
        return False
    reach = 0
    for s, d in sorted(modes, key=lambda m: m[1]):
        if d <= reach:
            return False
        reach += (s - 1) * d
    return True


def _canonical(layout: Layout) -> list[tuple[int, int]]:
    """The flat modes of a concrete layout without its size-1 modes, adjacent modes merged where
    ``d1 == s0 * d0``.  Two layouts of one size are equal functions on ``[0, size)`` exactly when these agree:
    the function determines each mode in turn (``d0 = f(1) - f(0)``; ``s0`` is the first ``i`` with
    ``f(i) != i * d0``, as the next mode could not be merged), and the rest is ``f(s0 * j)``."""
    out: list[tuple[int, int]] = []
    for shape, stride in zip(leaves(layout.shape), leaves(layout.stride)):
        s, d = int(shape), int(stride)
        if s == 1:
            continue
        if out and d == out[-1][0] * out[-1][1]:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    return out


def _first_difference(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int | None:
    """The least index where two different canonical forms (``_canonical``) of one size disagree."""
    prefix = 1
    for (sa, da), (sb, db) in zip(a, b):
        if da != db:
            return prefix
        if sa != sb:
            return prefix * min(sa, sb)
        prefix *= sa
    return None


def _structurally_equivalent(a: object, b: object) -> list[ObligationVerdict] | None:
    """``equivalent`` of two concrete layouts of one size without a solver, in time linear in their rank (flat
    in their size); None where it does not apply (symbols, sizes that differ, basis strides)."""
    if not (isinstance(a, Layout) and isinstance(b, Layout) and a.concrete and b.concrete):
        return None
    if any(isinstance(x, ScaledBasis) for x in (*leaves(a.stride), *leaves(b.stride))):
        return None
    n = int(size(a))
    if n != int(size(b)) or n < 1:
        return None
    claims = _items("equivalent", [a, b], {})
    ca, cb = _canonical(a), _canonical(b)

    def verdict(c: Item, status: str, cex: Counterexample | None = None) -> ObligationVerdict:
        return ObligationVerdict(c.id, c.description, c.source, "property", c.condition, status, True, cex,
                                 route=STRUCTURAL)

    if ca == cb:
        return [verdict(claims[0], PROVED), verdict(claims[1], PROVED)]
    i = _first_difference(ca, cb)
    if i is None or not 0 <= i < n:
        return None
    x, y = int(a(i)), int(b(i))
    if x == y:  # cannot happen by _canonical's argument; the solver decides
        return None
    return [verdict(claims[0], PROVED),
            verdict(claims[1], REFUTED, Counterexample({}, claims[1].id, i, x, y))]


@declare_property("surjective", ("L", "S"), "every k < N is L(i) for some i < size(L)", ("SURJ-COUNT", "SURJ"),
                  builds_claims=False)
def _surjective(engine: Engine, layout: Layout, n: IntTuple) -> list[ObligationVerdict]:
    if paths_of(layout) != [()]:
        raise LayoutError(f"surjective: {layout} has coordinates as values; check bijective (onto its codomain "
                          "box) or in_bounds instead")
    target = n if isinstance(n, Int) else size(n)
    count = Claim("SURJ-COUNT", f"size(L) >= {target}: enough coordinates to cover [0, n)", "layout.hpp", (),
                  ge(_size(layout), target))
    count_item = Item(count.id, count.description, count.source, "property", True, (), count.holds,
                      lambda v: Replay(int(_size(layout.substitute(v))) < int(target.evaluate(v))))
    first = decide_all(engine, [count_item])
    if first[0].status != PROVED:
        return first
    desc = f"every k < {target} is L(i) for some i < size(L)"
    # Sufficient: L, or L without its static-0-stride modes (the same image), maps [0, size) injectively into
    # [0, n) and has size n (pigeonhole).
    parts = [layout] if isinstance(layout, ComposedLayout) else [layout, algebra.filter(layout)]
    for part in parts:
        if engine_proves(engine, eq(_size(part), target)):
            sub = decide_all(engine, _items("injective", [part], {}) + _items("in_bounds", [part, target], {}))
            if all(d.status == PROVED for d in sub):
                return [*first, ObligationVerdict("SURJ", desc, "layout.hpp", "property", "by bijectivity",
                                                  PROVED, True)]
    return [*first, _surjective_quantified(engine, layout, target, desc)]


def engine_proves(engine: Engine, b: Bool) -> bool:
    item = Item("AUX", "", "", "", False, (), b, lambda v: Replay(False))
    return engine.decide(item, budget=engine.remaining() / 4).status == PROVED


def _surjective_quantified(engine: Engine, layout: Layout, target: Int, desc: str) -> ObligationVerdict:
    r, values, kk, why = missed_index(engine.encoder, _tensor_index(layout, _I), _size(layout), target, engine.budget)
    cond = f"for all k < {target}: exists i < size(L): L(i) == k"
    if r == "unsat":
        return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, PROVED, True)
    if r == "sat" and values is not None and kk is not None:
        concrete = layout.substitute(values)
        nn = int(_size(concrete))
        if nn <= 1 << 20 and all(int(_tensor_index(concrete, D(j)).evaluate({})) != kk for j in range(nn)):
            cex = Counterexample(values, "SURJ", None, kk, None, note=f"index {kk} is never reached")
            return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, REFUTED, True, cex)
        return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, UNKNOWN, True,
                                 reason="the solver's missed index could not be replayed")
    return ObligationVerdict("SURJ", desc, "layout.hpp", "property", cond, UNKNOWN, True,
                             reason=f"the quantified query was not decided: {why}")


def __getattr__(name: str) -> Any:
    """``PROPERTIES``, every property, and ``BUILDERS``, the claim builder of each that has one, from their
    declarations (``engine.property``) wherever in this module they are."""
    if name == "PROPERTIES":
        return tuple(DECLARED)
    if name == "BUILDERS":
        return {n: p.fn for n, p in DECLARED.items() if p.builds_claims}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PROPERTIES", "check"]  # noqa: F822 - PROPERTIES comes from the declarations (__getattr__)
