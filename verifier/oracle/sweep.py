"""Ground truth for layouts with symbolic run-time integers: compiled CuTe swept over assignments of the symbols.

For each case (an algebra operation on operands whose integers may be symbols ``M``, ``N`` ...) one C++ function
builds the operands from symbol values read at run time, calls CuTe 4.2's operation, and decides **in C++, from
CuTe's own results only**, whether the result is correct.  Every assignment gets one status:

* ``correct``   the postcondition below holds;
* ``warning``   CuTe's documented contract holds but a stricter clause below does not: a partial tile of a divide
                (its size is not A's), the complement's cosize bound (2), a left inverse that is only the
                quasi-inverse ``L(R(L(i))) == L(i)`` (the contract) and not ``R(L(i)) == i``, an upcast's same bytes;
* ``wrong``     it fails: CuTe silently returned a layout that is not the one asked for (also when evaluating
                CuTe's result faults while checking it);
* ``ub``        CuTe's operation itself divided by zero (SIGFPE; caught per assignment by ``sigsetjmp``);
* ``too_large`` the cheap size checks passed but a size to enumerate exceeds the cap, so nothing more is known.

A case CuTe refuses to compile is ``rejected`` (``cute_cpp.build`` isolates it from the other cases of its
translation unit).  Many cases share one translation unit, compiled once and cached by source hash.

The postconditions (``docs/semantics.md``; ``size``, ``cosize`` and ``L(i)`` at 1-D indices as in CuTe):

* ``coalesce(L)``: ``size(R) == size(L)`` and ``R(i) == L(i)`` for ``i < size(L)``.
* ``composition(A, B)``: ``size(R) == size(B)`` and ``R(i) == A(B(i))`` for ``i < size(B)``; for a by-mode tiler
  ``<B0,B1,...>`` mode by mode (A's modes beyond the tiler are dropped, ``layout.hpp:1151``).
* ``complement(L, n)`` (``n`` defaults to ``cosize(L)``): CUTLASS's ``test_complement``
  (``test/unit/cute/core/complement.cpp:46-66``): ``cosize((L,R)) >= size(n)``,
  ``cosize(R) <= round_up(size(n), cosize(L))``, ``R`` strictly increasing, ``R(i) != L(j)`` for ``i >= 1``; and
  ``size(R) >= 1`` (a complement with a 0-extent mode, spec CPL-2, completes nothing).
* ``logical/zipped/tiled/flat_divide(A, T)``: with ``Z = (T, complement(T, size(A)))`` (per mode for a by-mode
  tiler; A's extra modes kept), each complement meets its contract, ``size(R) == size(Z) == size(A)`` (exact
  tiling, no padding beyond A) and ``R(i) == A(Z(i))``.  The regroupings are compared as functions, not as
  multisets: the reference is evaluated at the digits of ``i`` in the base of R's own mode order
  (``(T0,C0),(T1,C1)`` for logical_divide, ``(T0,T1),(C0,C1)`` for the others, whose 1-D orders coincide).
* ``logical/zipped/tiled/flat/blocked/raked_product(A, B)``: ``C = complement(A, size(A)*cosize(B))`` (per mode
  for a by-mode tiler) meets its contract, ``size(R) == size(A)*size(B)`` and the multiset of R's values is that
  of ``A(i % size(A)) + C(B(i / size(A)))`` (multisets, because blocked/raked interleave the modes).
* ``upcast<N>``/``downcast<N>``/``recast_layout<Old,New>``: the same bytes: with ``num/den`` the reduced ratio of
  the new to the old element width, ``size(R)*num == size(L)*den`` and the multisets ``{num*R(i)+k | k < num}``
  and ``{den*L(j)+k | k < den}`` agree (``upcast<N>`` is ``N/1``, ``downcast<N>`` is ``1/N``).  For a pure upcast
  CuTe's contract is per mode (layout.hpp:1801-1803: the unit-stride mode's size and every other stride divided
  by N); the same bytes failing while that holds (a non-contiguous or size-1 mode) is ``warning``.
* ``right_inverse``: ``L(R(i)) == i`` for ``i < size(R)``; ``left_inverse``: ``R(L(i)) == i`` for ``i < size(L)``.
* ``tile_to_shape(block, target)`` (``layout.hpp:1774-1799``, default order): ``size(mode j of R) ==
  product(mode j of target)``, and R is the block repeated in column-major order over the tile counts
  ``q_j = t_j / b_j``: at the coordinate ``c_j = b_j*q + r`` of mode j, ``R(c) == block(r) + C(O(q))`` with
  ``O`` the compact column-major layout of the tile counts and ``C = complement(block, size(block)*size(O))``
  (which meets its contract): the blocked_product of ``layout.hpp:1730-1742`` that tile_to_shape builds.

Arithmetic: CuTe computes with its own ``int``s, as a user program would (compiled with ``-fwrapv``, so an
overflow wraps as it does unoptimised).  The checks compute sizes and cosizes from the shapes and strides CuTe
returned in saturating 64-bit arithmetic, so an overflow never makes a wrong result look right and a huge size
is reported as ``too_large`` instead of being enumerated.  The program is built with ``-O1`` for speed, with
``-fnon-call-exceptions -fno-delete-dead-exceptions`` so that no division whose result is unused is deleted:
every division by zero CuTe performs still traps, as at ``-O0``.

The checks themselves are C++ written once, in ``include/cute_checks.hpp`` (package data), for this host sweep and
``cuda_harness``'s device sweep alike; the bodies generated here call them by name.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from verifier.algebra.registry import REGISTRY
from verifier.core.errors import LayoutError
from verifier.core.int_tuple import substitute_tuple, symbols_of
from verifier.core.integers import Int
from verifier.core.layouts import Layout, Tile
from verifier.core.swizzle import ComposedLayout
from verifier.oracle.cute_cpp import RECAST_BITS, Binary, CppBuilder, CppCase, build

STATUSES = ("correct", "warning", "wrong", "ub", "too_large")
# Enumeration work per assignment is bounded by this many layout evaluations (and multiset elements).
DEFAULT_CAP = 1 << 22
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
# Extra g++ options: fast code that still executes every division CuTe performs, with wrapping int overflow.
FLAGS = ("-O1", "-fwrapv", "-fnon-call-exceptions", "-fno-delete-dead-exceptions")

# The operations the sweep checks (their declarations say ``sweep=True``, ``algebra.declare``); of those, the
# ones whose operands may be swizzled (ComposedLayout), and the divides and products (the operations that state the
# divide's postcondition, DIV-POST, or the product's, PRD-POST: ``Operation.obligations``, whatever their contract's
# builder is called).
SUPPORTED = tuple(n for n, r in REGISTRY.items() if r.sweep)
SWIZZLED = tuple(n for n in SUPPORTED if REGISTRY[n].swizzled)
DIVIDES = tuple(n for n in SUPPORTED if "DIV-POST" in REGISTRY[n].obligations)
PRODUCTS = tuple(n for n in SUPPORTED if "PRD-POST" in REGISTRY[n].obligations)

Key = tuple[tuple[str, int], ...]


def key(env: Mapping[str, int]) -> Key:
    """The key of an assignment in ``SweepResult.status``: its items sorted by name."""
    return tuple(sorted((str(k), int(v)) for k, v in env.items()))


@dataclass(frozen=True)
class SweepCase:
    """One operation on model operands (symbols allowed); ``template`` holds ``N`` of ``upcast<N>``/``downcast<N>``
    or the bit widths ``(old, new)`` of ``recast_layout``."""

    op: str
    operands: tuple[object, ...]
    template: tuple[int, ...] = ()

    def symbols(self) -> set[str]:
        out: set[str] = set()
        for x in self.operands:
            out |= _symbols(x)
        return out


@dataclass(frozen=True)
class SweepResult:
    """``rejected``: CuTe's compile error, if it refuses the case (then ``status`` is empty); ``status``: the
    verdict for each assignment (keyed by ``key(env)``)."""

    rejected: str | None
    status: dict[Key, str] = field(default_factory=dict)

    def of(self, env: Mapping[str, int]) -> str:
        return self.status[key(env)]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for s in self.status.values():
            out[s] += 1
        return out


def grid(ranges: Mapping[str, tuple[int, int] | Sequence[int]]) -> list[dict[str, int]]:
    """Every assignment of the symbols with ``lo <= value <= hi`` (inclusive), the first name varying slowest."""
    names = list(ranges)
    spans = []
    for n in names:
        if len(ranges[n]) != 2:
            raise LayoutError(f"grid: the range of {n} must be [lo, hi], got {list(ranges[n])}")
        lo, hi = (int(x) for x in ranges[n])
        if lo > hi:
            raise LayoutError(f"grid: empty range {lo}..{hi} for {n}")
        spans.append(range(lo, hi + 1))
    return [dict(zip(names, values)) for values in itertools.product(*spans)]


# -- operands -----------------------------------------------------------------------------------------------------


def _symbols(x: object) -> set[str]:
    if isinstance(x, Layout):
        return x.symbols()
    if isinstance(x, Tile):
        out: set[str] = set()
        for e in x.elements:
            out |= _symbols(e)
        return out
    if isinstance(x, (Int, tuple)):
        return symbols_of(x)
    return set()


def _is_shape(x: object) -> bool:
    return isinstance(x, Int) or (type(x) is tuple and all(_is_shape(e) for e in x))


def _is_flat_shape_tiler(x: object) -> TypeGuard[tuple[Int, ...]]:
    return type(x) is tuple and len(x) > 0 and all(isinstance(e, Int) for e in x)


def _tiler_elements(op: str, t: object) -> list[object] | None:
    """The per-mode elements of a by-mode tiler (each a Layout or an integer), or None for a whole-layout one."""
    if isinstance(t, Tile):
        for e in t.elements:
            if not isinstance(e, (Layout, Int)):
                raise LayoutError(f"{op}: the sweep takes tiler elements that are layouts or integers, not {e}")
        return list(t.elements)
    if _is_flat_shape_tiler(t):
        return [*t]
    if type(t) is tuple:
        raise LayoutError(f"{op}: the sweep takes a flat shape tiler, not a nested one")
    return None


def _check_case(case: SweepCase) -> None:
    op, xs, tpl = case.op, case.operands, case.template
    if op not in SUPPORTED:
        raise LayoutError(f"the sweep does not check {op!r}; it checks {', '.join(SUPPORTED)}")
    if not xs or not (isinstance(xs[0], Layout) or (op in SWIZZLED and isinstance(xs[0], ComposedLayout))):
        raise LayoutError(f"{op}: the first operand must be a layout")

    def need(n: int, what: str) -> None:
        if len(xs) != n:
            raise LayoutError(f"{op}: expected {what}, got {len(xs)} operand(s)")

    if op in ("upcast", "downcast"):
        need(1, "one layout")
        if len(tpl) != 1 or not isinstance(tpl[0], int) or tpl[0] < 1:
            raise LayoutError(f"{op}<N>: N must be one positive integer, got {tpl}")
    elif op == "recast_layout":
        need(1, "one layout")
        if len(tpl) != 2 or any(b not in RECAST_BITS for b in tpl):
            raise LayoutError(f"recast_layout: two element widths in bits from {sorted(RECAST_BITS)}, got {tpl}")
    elif tpl:
        raise LayoutError(f"{op} takes no template arguments")
    if op in ("right_inverse", "left_inverse", "coalesce"):
        need(1, "one layout")
    elif op == "complement":
        if len(xs) not in (1, 2) or (len(xs) == 2 and not (_is_shape(xs[1]) or isinstance(xs[1], Layout))):
            raise LayoutError("complement: expected a layout and optionally a cotarget shape")
    elif op == "composition":
        need(2, "two operands")
        if not isinstance(xs[1], (Layout, Int, ComposedLayout)) and not isinstance(xs[1], Tile):
            raise LayoutError("composition: the right operand must be a layout, an integer or a <...> tiler")
        if isinstance(xs[1], Tile):
            _tiler_elements(op, xs[1])
    elif op in DIVIDES or op in PRODUCTS:
        need(2, "a layout and a tiler")
        t = xs[1]
        if op in ("blocked_product", "raked_product") and not isinstance(t, Layout):
            raise LayoutError(f"{op}: the tiler must be a layout")
        if not isinstance(t, (Layout, Int)):
            elems = _tiler_elements(op, t)
            if elems is None:
                raise LayoutError(f"{op}: cannot use {t} as a tiler")
            if len(elems) > xs[0].rank():
                return  # CuTe rejects it at compile time ("Too many modes in tiler"); reported as rejected
    elif op == "tile_to_shape":
        need(2, "a block layout and a target shape")
        if not _is_shape(xs[1]):
            raise LayoutError("tile_to_shape: the target must be a shape")


def _substituted(x: object, env: Mapping[str, int]) -> object:
    if isinstance(x, Layout):
        return x.substitute(env)
    if isinstance(x, Tile):
        return Tile([_substituted(e, env) for e in x.elements])  # type: ignore[misc]
    if isinstance(x, (Int, tuple)):
        return substitute_tuple(x, env)
    return x


def substitute(case: SweepCase, env: Mapping[str, int]) -> SweepCase:
    """The case with the assignment ``env`` substituted into its operands."""
    return SweepCase(case.op, tuple(_substituted(x, env) for x in case.operands), case.template)


# -- code generation ----------------------------------------------------------------------------------------------


def _rank(x: Layout) -> int:
    return len(x.shape) if type(x.shape) is tuple else 1


def _mode(name: str, x: Layout, j: int) -> str:
    """C++ for mode j of the layout ``name`` (the layout itself when its shape is not a tuple)."""
    return f"layout<{j}>({name})" if type(x.shape) is tuple else name


def _elem_layout(tiler: str, elem: object, j: int) -> str:
    """C++ for the layout a by-mode tiler element stands for (an integer n means n:_1, layout.hpp:1577)."""
    return f"get<{j}>({tiler})" if isinstance(elem, Layout) else f"make_layout(get<{j}>({tiler}))"


# Separates the two bodies of a generated case: building the operands and calling CuTe, then checking the result.
SEP = "\n//@@check\n"


class _Gen:
    """Generates the two C++ bodies of one case: ``op`` (build the operands, call CuTe) and ``check``."""

    def __init__(self, case: SweepCase) -> None:
        self.case = case
        self.b = CppBuilder()
        self.op_lines: list[str] = []
        self.lines: list[str] = []
        self.tmp = 0

    def fresh(self, stem: str) -> str:
        self.tmp += 1
        return f"{stem}{self.tmp}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def step(self, status: str) -> None:
        self.emit(f"STEP({status});")

    def generate(self) -> CppCase:
        c = self.case
        names = [f"x{k}" for k in range(len(c.operands))]
        for n, x in zip(names, c.operands):
            self.op_lines.append(f"  auto {n} = {self.b.operand(x)};")
        self.op_lines.append(f"  auto r = {self._call(names)};")
        self.op_lines.append(f"  return cute::make_tuple({', '.join([*names, 'r'])});")
        for k, n in enumerate(names):
            self.emit(f"auto const& {n} = get<{k}>(res);")
        self.emit(f"auto const& r = get<{len(names)}>(res);")
        self._check(names)
        self.emit("return st;")
        return self.b.case("\n".join(self.op_lines) + SEP + "\n".join(self.lines), c.op)

    def _call(self, names: list[str]) -> str:
        c = self.case
        if c.op == "recast_layout":
            old, new = c.template
            return f"recast_layout<uint_bit_t<{old}>, uint_bit_t<{new}>>({names[0]})"
        return self.b.call(c.op, *names, template=c.template)

    # -- per operation --------------------------------------------------------------------------------------------

    def _check(self, names: list[str]) -> None:
        op = self.case.op
        if op == "composition":
            self._composition(names)
        elif op == "coalesce":
            self.step("check_coalesce(x0, r, cap)")
        elif op == "complement":
            cot = "xcosize(x0)" if len(names) == 1 else (
                "xsize(x1)" if isinstance(self.case.operands[1], Layout) else "xprod(x1)")
            self.step(f"check_complement(SCR, x0, {cot}, r, cap)")
        elif op == "right_inverse":
            self.step("check_right_inverse(x0, r, cap)")
        elif op == "left_inverse":
            self.step("check_left_inverse(x0, r, cap)")
        elif op in DIVIDES:
            self._divide()
        elif op in PRODUCTS:
            self._product()
        elif op in ("upcast", "downcast", "recast_layout"):
            num, den = self._ratio()
            self.step(f"check_recast(SCR, x0, r, {num}, {den}, cap)")
        elif op == "tile_to_shape":
            self._tile_to_shape()

    def _ratio(self) -> tuple[int, int]:
        from math import gcd

        c = self.case
        if c.op == "upcast":
            return c.template[0], 1
        if c.op == "downcast":
            return 1, c.template[0]
        old, new = c.template
        g = gcd(old, new)
        return new // g, old // g

    def _digits(self, sizes: list[str]) -> str:
        """Declare the digit bases; returns the name of the array."""
        ds = self.fresh("ds")
        self.emit(f"ll {ds}[{len(sizes)}] = {{{', '.join(sizes)}}};")
        return ds

    def _size_is(self, what: str, ds: str, k: int) -> str:
        n = self.fresh("n")
        self.emit(f"ll {n} = prod_of({ds}, {k});")
        self.emit(f"if ({what} != {n}) return ST_WRONG;")
        return n

    def _composition(self, names: list[str]) -> None:
        a, b = self.case.operands[0], self.case.operands[1]
        if isinstance(b, (Layout, Int, ComposedLayout)):
            rhs = "make_layout(x1)" if isinstance(b, Int) else "x1"
            self.step(f"check_composition(x0, {rhs}, r, cap)")
            return
        assert isinstance(a, Layout)
        elems = _tiler_elements("composition", b) or []
        if len(elems) > _rank(a):
            return
        ts = []
        for j, e in enumerate(elems):
            t = self.fresh("t")
            self.emit(f"auto {t} = {_elem_layout('x1', e, j)};")
            ts.append(t)
        ds = self._digits([f"xsize({t})" for t in ts])
        n = self._size_is("xsize(r)", ds, len(ts))
        terms = " + ".join(f"(ll){_mode('x0', a, j)}(int({t}(int(d[{j}]))))" for j, t in enumerate(ts))
        self.step(f"same_function(r, {n}, {ds}, cap, [&](ll const* d) {{ return {terms}; }})")

    def _divide(self) -> None:
        c = self.case
        a, t = c.operands[0], c.operands[1]
        assert isinstance(a, Layout)
        elems = None if isinstance(t, (Layout, Int)) else _tiler_elements(c.op, t)
        if elems is None:
            tl = "x1" if isinstance(t, Layout) else "make_layout(x1)"
            self.emit(f"auto t0 = {tl};")
            self.emit("auto c0 = complement(t0, size(x0));")
            self.step("check_complement(SCR, t0, xsize(x0), c0, cap)")
            ds = self._digits(["xsize(t0)", "xsize(c0)"])
            n = self._size_is("xsize(r)", ds, 2)
            self.emit(f"if ({n} != xsize(x0)) WARN();  // a partial tile pads past A: a warning (DIV-EXACT)")
            self.step(f"same_function(r, {n}, {ds}, cap, [&](ll const* d) "
                      "{ return (ll)x0(int(t0(int(d[0])) + c0(int(d[1])))); })")
            return
        rk, nt = _rank(a), len(elems)
        if nt > rk:
            return
        for j, e in enumerate(elems):
            self.emit(f"auto t{j} = {_elem_layout('x1', e, j)};")
            self.emit(f"auto c{j} = complement(t{j}, size({_mode('x0', a, j)}));")
            self.step(f"check_complement(SCR, t{j}, xsize({_mode('x0', a, j)}), c{j}, cap)")
        # Digit positions of each tile/rest/extra mode in R's 1-D order.
        if c.op == "logical_divide":
            order = [x for j in range(nt) for x in (("t", j), ("c", j))]
        else:
            order = [("t", j) for j in range(nt)] + [("c", j) for j in range(nt)]
        order += [("a", j) for j in range(nt, rk)]
        pos = {x: k for k, x in enumerate(order)}
        sizes = [f"xsize({kind}{j})" if kind != "a" else f"xsize({_mode('x0', a, j)})" for kind, j in order]
        ds = self._digits(sizes)
        n = self._size_is("xsize(r)", ds, len(order))
        self.emit(f"if ({n} != xsize(x0)) WARN();  // a partial tile pads past A: a warning (DIV-EXACT)")
        terms = []
        for j in range(rk):
            if j < nt:
                z = f"int(t{j}(int(d[{pos[('t', j)]}])) + c{j}(int(d[{pos[('c', j)]}])))"
            else:
                z = f"int(d[{pos[('a', j)]}])"
            terms.append(f"(ll){_mode('x0', a, j)}({z})")
        self.step(f"same_function(r, {n}, {ds}, cap, [&](ll const* d) {{ return {' + '.join(terms)}; }})")

    def _product(self) -> None:
        c = self.case
        a, t = c.operands[0], c.operands[1]
        assert isinstance(a, Layout)
        elems = None if isinstance(t, (Layout, Int)) else _tiler_elements(c.op, t)
        if elems is None:
            bl = "x1" if isinstance(t, Layout) else "make_layout(x1)"
            self.emit(f"auto b0 = {bl};")
            self.emit("auto c0 = complement(x0, size(x0) * cosize(b0));")
            self.step("check_complement(SCR, x0, mul(xsize(x0), xcosize(b0)), c0, cap)")
            self.step("check_compact(x0, c0, cap)")
            ds = self._digits(["xsize(x0)", "xsize(b0)"])
            n = self._size_is("xsize(r)", ds, 2)
            self.step(f"same_values(SCR, r, {n}, {ds}, cap, [&](ll const* d) "
                      "{ return (ll)x0(int(d[0])) + (ll)c0(b0(int(d[1]))); })")
            return
        rk, nt = _rank(a), len(elems)
        if nt > rk:
            return
        for j, e in enumerate(elems):
            m = _mode("x0", a, j)
            self.emit(f"auto b{j} = {_elem_layout('x1', e, j)};")
            self.emit(f"auto c{j} = complement({m}, size({m}) * cosize(b{j}));")
            self.step(f"check_complement(SCR, {m}, mul(xsize({m}), xcosize(b{j})), c{j}, cap)")
            self.step(f"check_compact({m}, c{j}, cap)")
        sizes, terms = [], []
        for j in range(rk):
            m = _mode("x0", a, j)
            sizes.append(f"xsize({m})")
            terms.append(f"(ll){m}(int(d[{len(sizes) - 1}]))")
            if j < nt:
                sizes.append(f"xsize(b{j})")
                terms.append(f"(ll)c{j}(b{j}(int(d[{len(sizes) - 1}])))")
        ds = self._digits(sizes)
        n = self._size_is("xsize(r)", ds, len(sizes))
        self.step(f"same_values(SCR, r, {n}, {ds}, cap, [&](ll const* d) {{ return {' + '.join(terms)}; }})")

    def _tile_to_shape(self) -> None:
        blk, trg = self.case.operands
        assert isinstance(blk, Layout)
        rt = len(trg) if type(trg) is tuple else 1
        rb = _rank(blk)
        if rb > rt:
            return  # CuTe rejects it ("Rank of layout must be <= rank of target shape.", layout.hpp:1782)
        t_exprs = [f"xprod(get<{j}>(x1))" for j in range(rt)] if type(trg) is tuple else ["xprod(x1)"]
        b_exprs = [f"xsize({_mode('x0', blk, j)})" if j < rb else "1" for j in range(rt)]
        r_modes = [f"xsize(layout<{j}>(r))" for j in range(rt)] if type(trg) is tuple else ["xsize(r)"]
        self.emit(f"ll tt[{rt}] = {{{', '.join(t_exprs)}}};")
        self.emit(f"ll bs[{rt}] = {{{', '.join(b_exprs)}}};")
        self.emit(f"ll rs[{rt}] = {{{', '.join(r_modes)}}};")
        self.emit(f"ll q[{rt}]; ll nq = 1;")
        self.emit(f"for (int j = 0; j < {rt}; ++j) {{")
        self.emit("  if (rs[j] != tt[j] || bs[j] < 1) return ST_WRONG;  // the shape of R is the target's")
        self.emit("  q[j] = tt[j] / bs[j]; nq = mul(nq, q[j]);")
        self.emit("}")
        self.emit("if (nq > INT_MAX) return ST_TOO_LARGE;")
        self.emit("auto c0 = complement(x0, size(x0) * int(nq));")
        self.step("check_complement(SCR, x0, mul(xsize(x0), nq), c0, cap)")
        coord = [f"int(d[{j}] % bs[{j}])" for j in range(rb)]
        blk_at = f"x0(make_coord({', '.join(coord)}))" if type(blk.shape) is tuple else f"x0({coord[0]})"
        # O: the compact column-major layout of the tile counts q (the default order, LayoutLeft).
        o = " + ".join(f"(d[{j}] / bs[{j}]) * {self._prefix('q', j)}" for j in range(rt))
        self.step(f"same_function(r, prod_of(tt, {rt}), tt, cap, [&](ll const* d) "
                  f"{{ return (ll){blk_at} + (ll)c0(int({o})); }})")

    @staticmethod
    def _prefix(arr: str, j: int) -> str:
        return " * ".join([f"{arr}[{k}]" for k in range(j)]) or "1"


# -- the translation unit -----------------------------------------------------------------------------------------

# The checks the generated bodies call, shared with cuda_harness's device kernels (package data).
CHECKS_HEADER = Path(__file__).resolve().parent / "include" / "cute_checks.hpp"
CHECKS_INCLUDE = '#include "cute_checks.hpp"'


def with_checks(prelude: str) -> str:
    """``prelude`` with its ``#include "cute_checks.hpp"`` line replaced by the header's text: the units carry the
    checks themselves, so the binary caches (keyed by a unit's text) follow every edit of the header, and no
    compiler (NVRTC included) needs its folder on an include path."""
    if prelude.count(CHECKS_INCLUDE) != 1:
        raise ValueError(f"the prelude must have the line {CHECKS_INCLUDE} exactly once")
    return prelude.replace(CHECKS_INCLUDE, CHECKS_HEADER.read_text().strip("\n"))


_PRELUDE = r"""
#include <cute/tensor.hpp>
#include <algorithm>
#include <climits>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <vector>
#include "cute_checks.hpp"
using namespace cute;

static sigjmp_buf g_jump;
static volatile int g_phase = 0;  // 0 while CuTe's operation runs (a fault is UB), 1 while checking
static void on_signal(int) { siglongjmp(g_jump, 1); }

// The scratch of the multiset checks (cute_checks.hpp), grown to what they ask for.
struct HostScratch {
  static constexpr bool counting = true;
  std::vector<ll> xs, ys;
  std::vector<int> cs;
  ll* x = nullptr;
  ll* y = nullptr;
  bool reserve(ll n) {
    if ((ll)xs.size() < n) { xs.resize(n); ys.resize(n); x = xs.data(); y = ys.data(); }
    return true;
  }
  int* counts(ll m) {
    if ((ll)cs.size() < m) cs.resize(m);
    std::fill(cs.begin(), cs.begin() + m, 0);
    return cs.data();
  }
};
static HostScratch SCR;
"""

_MAIN = r"""
int main() {
  signal(SIGFPE, on_signal);
  signal(SIGSEGV, on_signal);
  ll qid, cid, cap, n;
  std::vector<ll> p;
  while (scanf("%lld %lld %lld %lld", &qid, &cid, &cap, &n) == 4) {
    p.assign(n > 0 ? n : 1, 0);
    for (ll k = 0; k < n; ++k) { if (scanf("%lld", &p[k]) != 1) return 3; }
    int st;
    g_phase = 0;
    if (cid < 0 || cid >= kCases) { st = -1; }
    else if (sigsetjmp(g_jump, 1) == 0) { st = kTable[cid](p.data(), cap); }
    else { st = g_phase == 0 ? ST_UB : ST_FAULT; }
    printf("%lld %d\n", qid, st);
  }
  fflush(stdout);
  return 0;
}
"""


def _unit(cases: Sequence[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The sweep program. Case k's span (where its compile errors are attributed) is its ``op_k`` only, so an
    error in the checking code is a failure of this module, never a rejection by CuTe."""
    lines = with_checks(_PRELUDE).strip("\n").split("\n")
    spans: dict[int, tuple[int, int]] = {}
    for k, case in enumerate(cases):
        op_body, check_body = case.code.split(SEP)
        start = len(lines) + 1
        if k in rejected:
            lines.append(f"static int check_{k}(const ll*, ll) {{ return -1; }}")
            spans[k] = (start, len(lines))
            continue
        # noipa: the operation is not merged into the checks, so g_phase tells its faults from theirs.
        lines.append(f"__attribute__((noipa)) static auto op_{k}(const ll* p) {{")
        lines.extend(op_body.split("\n"))
        lines.append("}")
        spans[k] = (start, len(lines))
        lines.append(f"static int check_{k}(const ll* p, ll cap) {{")
        lines.append(f"  auto res = op_{k}(p);")
        lines.append("  g_phase = 1;")
        lines.append("  int st = ST_CORRECT;")
        lines.extend(check_body.split("\n"))
        lines.append("}")
    lines.append("typedef int (*check_fn)(const ll*, ll);")
    lines.append(f"static const ll kCases = {len(cases)};")
    lines.append(f"static check_fn kTable[] = {{{', '.join(f'check_{k}' for k in range(len(cases)))}}};")
    lines.extend(_MAIN.strip("\n").split("\n"))
    return "\n".join(lines) + "\n", spans


# A trivial case that keeps a lone case company: cute_cpp.build blames a single case for any error it cannot
# attribute, and an error in the checking code must not pass for CuTe's rejection.
_SENTINEL = CppCase("  auto r = 0;\n  return cute::make_tuple(r);" + SEP + "  return st;", ())

_CODES = {0: "correct", 1: "wrong", 2: "ub", 3: "too_large", 4: "wrong", 5: "warning"}


def _compile(cases: Sequence[CppCase]) -> Binary:
    return build(list(cases) if len(cases) > 1 else [*cases, _SENTINEL], unit=_unit, flags=FLAGS)


def _run(binary: Binary, runs: list[tuple[int, CppCase, Mapping[str, int]]], cap: int,
         timeout: float) -> list[str]:
    lines = []
    for qid, (local, case, env) in enumerate(runs):
        params = case.params(env)
        lines.append(f"{qid} {local} {cap} {len(params)} {' '.join(map(str, params))}")
    proc = subprocess.run([str(binary.path)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=timeout, check=False)
    got: dict[int, str] = {}
    for line in proc.stdout.splitlines():
        q, _, st = line.partition(" ")
        got[int(q)] = _CODES.get(int(st), "?")
    if len(got) != len(runs) or "?" in got.values():
        raise RuntimeError(f"the sweep program answered {len(got)} of {len(runs)} queries "
                           f"(exit {proc.returncode}): {proc.stderr[-2000:]}")
    return [got[q] for q in range(len(runs))]


def _check_env(case: SweepCase, env: Mapping[str, int], needed: set[str]) -> None:
    missing = needed - set(env)
    if missing:
        raise LayoutError(f"{case.op}: no value for symbol(s) {', '.join(sorted(missing))}")
    for name, v in env.items():
        if not isinstance(v, int) or isinstance(v, bool) or not INT32_MIN <= v <= INT32_MAX:
            raise LayoutError(f"{name}={v!r}: a run-time int of CuTe must be an int32")


def case_code(case: SweepCase) -> CppCase:
    """The validated case as C++: ``code`` is the body that builds the operands from the parameter slots and calls
    CuTe (returning a tuple of the operands and the result), ``SEP``, then the body that decides the result with
    the checks of ``include/cute_checks.hpp`` and a scratch ``SCR`` (also run by ``cuda_harness`` on the GPU)."""
    _check_case(case)
    return _Gen(case).generate()


def sweep(cases: Sequence[SweepCase], assignments: Sequence[Sequence[Mapping[str, int]]], *,
          cap: int = DEFAULT_CAP, chunk: int = 48, jobs: int | None = None,
          timeout: float = 3600.0) -> list[SweepResult]:
    """Run every case over its assignments (``assignments[k]`` for ``cases[k]``) in compiled CuTe and decide each
    result as described in the module docstring. Cases with the same C++ (the same static structure; symbols
    and run-time values are parameters) are compiled once."""
    if len(assignments) != len(cases):
        raise LayoutError(f"sweep: {len(cases)} cases but {len(assignments)} lists of assignments")
    gens: list[CppCase] = []
    for case, envs in zip(cases, assignments):
        gens.append(case_code(case))
        needed = case.symbols()
        for env in envs:
            _check_env(case, env, needed)
    unique: dict[str, int] = {}
    for g in gens:
        unique.setdefault(g.code, len(unique))
    codes = list(unique)
    chunks = [codes[i:i + chunk] for i in range(0, len(codes), chunk)]
    where = {code: (ci, li) for ci, ch in enumerate(chunks) for li, code in enumerate(ch)}
    jobs = jobs or max(1, min(len(chunks), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        binaries = list(pool.map(lambda ch: _compile([CppCase(code, ()) for code in ch]), chunks))
        per_chunk: list[list[tuple[int, CppCase, Mapping[str, int]]]] = [[] for _ in chunks]
        owners: list[list[int]] = [[] for _ in chunks]
        for k, (g, envs) in enumerate(zip(gens, assignments)):
            ci, li = where[g.code]
            if li in binaries[ci].rejected:
                continue
            for env in envs:
                per_chunk[ci].append((li, g, env))
                owners[ci].append(k)
        answers = list(pool.map(lambda ci: _run(binaries[ci], per_chunk[ci], cap, timeout), range(len(chunks))))
    results = []
    for g in gens:
        ci, li = where[g.code]
        results.append(SweepResult(binaries[ci].rejected.get(li)))
    for ci in range(len(chunks)):
        for (_, _, env), k, st in zip(per_chunk[ci], owners[ci], answers[ci]):
            results[k].status[key(env)] = st
    return results


__all__ = ["DEFAULT_CAP", "SEP", "STATUSES", "SweepCase", "SweepResult", "case_code", "grid", "key", "substitute",
           "sweep"]
