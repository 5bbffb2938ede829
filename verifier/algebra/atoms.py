"""MMA and copy atoms as CuTe 4.2 defines them, read from ``data/atoms.json`` (written by ``atoms_gen.py`` from the
compiled headers, never by hand), and the checks of their thread/value layouts.

An MMA atom's ``ALayout``, ``BLayout`` and ``CLayout`` map a (thread, value) coordinate to a column-major index of
the ``M x K``, ``N x K`` and ``M x N`` tiles of its ``Shape_MNK`` (mma_traits.hpp:45-60).  A copy atom's
``SrcLayout``, ``DstLayout`` and ``RefLayout`` map (thread, value) to a bit of an abstract ordering that TiledCopy
only uses to relate the source, destination and reference views to each other (copy_traits.hpp:45-56).

What CuTe's design requires of them (and what ``check`` verifies, each finding naming thread and value):

* ``THR``: every TV layout has ``size(ThrID)`` threads, the thread count TiledMMA / TiledCopy tile with
  (mma_atom.hpp:216-226, copy_atom.hpp:203-214), and ``ThrID`` is injective.
* ``TILE``: every index of an MMA TV layout lies in its tile (the layouts are functions onto the stated shapes).
* ``COVER`` and ``OVERLAP``: leaving out the coordinates of zero-stride modes (a broadcast: every thread of such a
  mode holds the same element, as the GMMA shared-memory descriptors and the replicated SM70 quad-pair operands
  do), each TV layout is a bijection onto its tile (MMA) or onto the bits it moves (copy): no element is missed,
  none is held by two (thread, value) pairs.  ``partition_A/B/C`` give every thread the values its TV layout
  names, so an overlap is two threads computing with one element and a gap an element no thread holds.
* ``REF``: a copy atom's ``RefLayout`` is its ``SrcLayout`` or its ``DstLayout``; ``COVER``: the two cover the
  same bits (TiledCopy composes ``right_inverse(Ref)`` with both, copy_atom.hpp:236-262), except that a zero-stride
  leaf in the source's value mode replicates a source value into several destination values (the SM100 UTCCP
  multicasts) where the two layouts have the same size.
* ``SHAPE``: CuTe can evaluate the layout at all (its shape and stride are congruent).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from verifier.core.errors import LayoutError
from verifier.core.int_tuple import get, leaves
from verifier.core.layouts import Layout, size
from verifier.notation.cpp import parse_int_tuple, parse_layout

DATA_FILE = Path(__file__).parent.parent / "data" / "atoms.json"


@dataclass(frozen=True)
class MmaAtom:
    name: str
    header: str
    line: int
    shape_mnk: tuple[int, int, int]
    thr_id: Layout
    a: Layout | None     # None: CuTe's print of it is not a layout CuTe can evaluate (see ``printed``)
    b: Layout | None
    c: Layout | None
    bits: tuple[int, int, int, int] | None  # ValTypeA, B, C, D
    printed: tuple[tuple[str, str], ...] = ()  # every layout as compiled CuTe printed it

    @property
    def source(self) -> str:
        return f"{self.header}:{self.line}"


@dataclass(frozen=True)
class CopyAtom:
    name: str
    header: str
    line: int
    thr_id: Layout
    src: Layout | None
    dst: Layout | None
    ref: Layout | None
    src_regs: tuple[int, int] | None  # (bits of one register, count)
    dst_regs: tuple[int, int] | None
    printed: tuple[tuple[str, str], ...] = ()

    @property
    def source(self) -> str:
        return f"{self.header}:{self.line}"


Atom = MmaAtom | CopyAtom


def _regs(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    bits, count = text.split()
    return int(bits), int(count)


def _layout(text: str) -> Layout | None:
    """The layout CuTe printed, or None where its shape and stride are not congruent: CuTe 4.2 does not check
    congruence when a Layout type is formed (layout.hpp:103 has the check commented out), only when it is evaluated
    (stride.hpp:116, "Mismatched Ranks") or its cosize is taken (int_tuple.hpp:309)."""
    try:
        return parse_layout(text)
    except LayoutError:
        return None


def _atom(d: dict[str, object]) -> Atom:
    name, header, line = str(d["name"]), str(d["header"]), int(d["line"])  # type: ignore[call-overload]
    if d["kind"] == "mma":
        keys = ("ThrID", "ALayout", "BLayout", "CLayout")
        printed = tuple((k, str(d[k])) for k in keys)
        mnk = tuple(int(x) for x in leaves(parse_int_tuple(str(d["Shape_MNK"]))))
        bits = tuple(int(x) for x in str(d["ValBits"]).split()) if "ValBits" in d else None
        return MmaAtom(name, header, line, mnk, parse_layout(str(d["ThrID"])),  # type: ignore[arg-type]
                       _layout(str(d["ALayout"])), _layout(str(d["BLayout"])),
                       _layout(str(d["CLayout"])), bits, printed)  # type: ignore[arg-type]
    keys = ("ThrID", "SrcLayout", "DstLayout", "RefLayout")
    printed = tuple((k, str(d[k])) for k in keys)
    return CopyAtom(name, header, line, parse_layout(str(d["ThrID"])), _layout(str(d["SrcLayout"])),
                    _layout(str(d["DstLayout"])), _layout(str(d["RefLayout"])),
                    _regs(d.get("SRegisters")), _regs(d.get("DRegisters")), printed)  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return json.loads(DATA_FILE.read_text())  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def atoms() -> tuple[Atom, ...]:
    """Every atom of the data file, in header order."""
    return tuple(_atom(d) for d in _data()["atoms"])


def skipped() -> list[dict[str, object]]:
    """The declarations the generator could not instantiate, with the reason."""
    return list(_data()["skipped"])


def find(name: str) -> Atom:
    """The atom of this C++ name (``SM80_16x8x16_F16F16F16F16_TN``, ``UniversalCopy<uint128_t,uint128_t>``)."""
    found = _find("".join(name.split()))
    if found is None:
        raise KeyError(name)
    return found


@cache
def _find(key: str) -> Atom | None:
    """The first atom of the data file whose name is ``key`` up to blanks, the only one parsed (parsing all 2,412
    of them, as ``atoms()`` does, took 1.3 s of a spec file's loading: issue 28)."""
    for d in _data()["atoms"]:
        if "".join(str(d["name"]).split()) == key:
            return _atom(d)
    return None


# -- checks ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One violated requirement of an atom's layout."""

    atom: str
    source: str          # header:line of the traits specialisation
    layout: str          # ALayout, BLayout, CLayout, SrcLayout, DstLayout, RefLayout, ThrID
    id: str              # THR, TILE, COVER, OVERLAP, REF
    message: str
    witnesses: tuple[str, ...] = ()  # e.g. "T4V0 and T0V4 both hold (n=0,k=32)"


def _offsets(shape: object, stride: object) -> list[int]:
    """The offsets of one mode at each of its coordinates (first leaf fastest), leaving out the coordinates that
    are not 0 along a zero-stride (broadcast) leaf."""
    out = [0]
    for extent, step in zip(leaves(shape), leaves(stride)):  # type: ignore[arg-type]
        e, d = int(extent), int(step)
        if d == 0:
            continue
        out = [o + c * d for c in range(e) for o in out]
    return out


def _positions(shape: object, stride: object) -> list[int]:
    """The 1-D coordinates of the mode that ``_offsets`` keeps, in the same order."""
    out, scale = [0], 1
    for extent, step in zip(leaves(shape), leaves(stride)):  # type: ignore[arg-type]
        e, d = int(extent), int(step)
        if d != 0:
            out = [o + c * scale for c in range(e) for o in out]
        scale *= e
    return out


# (the first holder, the second holder, the index): holders are (thread, value) coordinates
Clash = tuple[tuple[int, int], tuple[int, int], int]


@lru_cache(maxsize=4096)
def _tv_image(layout: Layout) -> tuple[dict[int, tuple[int, int]], tuple[Clash, ...]]:
    """Map each index to the first (thread, value) holding it, leaving out broadcast coordinates (those along a
    zero-stride leaf other than 0), and the collisions (first holder, second holder, index)."""
    ts, vs = get(layout.shape, 0), get(layout.shape, 1)
    td, vd = get(layout.stride, 0), get(layout.stride, 1)
    toff, voff = _offsets(ts, td), _offsets(vs, vd)
    tpos, vpos = _positions(ts, td), _positions(vs, vd)
    held: dict[int, tuple[int, int]] = {}
    clashes: list[Clash] = []
    for vo, v in zip(voff, vpos):
        for to, t in zip(toff, tpos):
            idx = to + vo
            first = held.setdefault(idx, (t, v))
            if first != (t, v):
                clashes.append((first, (t, v), idx))
    return held, tuple(clashes)


def _tile_coord(idx: int, rows: int, names: tuple[str, str]) -> str:
    return f"({names[0]}={idx % rows},{names[1]}={idx // rows})"


WITNESS_LIMIT = 4


def _check_tv(atom: str, source: str, what: str, layout: Layout, extent: int,
              describe: _Describe) -> list[Finding]:
    out: list[Finding] = []
    held, clashes = _tv_image(layout)
    outside = sorted(i for i in held if not 0 <= i < extent)
    if outside:
        out.append(Finding(atom, source, what, "TILE",
                           f"{len(outside)} indices outside the tile of {extent} elements",
                           tuple(f"T{held[i][0]}V{held[i][1]} -> {i}" for i in outside[:WITNESS_LIMIT])))
    if clashes:
        out.append(Finding(atom, source, what, "OVERLAP",
                           f"{len(clashes)} (thread, value) pairs hold an element another pair already holds "
                           f"(zero-stride broadcast modes excluded)",
                           tuple(f"T{a[0]}V{a[1]} and T{b[0]}V{b[1]} both hold {describe(i)}"
                                 for a, b, i in clashes[:WITNESS_LIMIT])))
    missing = [i for i in range(extent) if i not in held]
    if missing:
        out.append(Finding(atom, source, what, "COVER",
                           f"{len(missing)} of the {extent} elements are held by no thread",
                           tuple(describe(i) for i in missing[:WITNESS_LIMIT])))
    return out


class _Describe:
    def __init__(self, rows: int, names: tuple[str, str]) -> None:
        self.rows, self.names = rows, names

    def __call__(self, idx: int) -> str:
        return _tile_coord(idx, self.rows, self.names)


def _bits(idx: int) -> str:
    return f"bit {idx}"


def _check_thr(atom: Atom, layouts: Sequence[tuple[str, Layout]]) -> list[Finding]:
    out: list[Finding] = []
    n = int(size(atom.thr_id))
    for what, layout in layouts:
        t = int(size(get(layout.shape, 0)))
        if t != n:
            out.append(Finding(atom.name, atom.source, what, "THR",
                               f"{t} threads, but ThrID {atom.thr_id} has {n}"))
    ids = atom.thr_id.values()
    if len(set(ids)) != len(ids) and any(int(d) != 0 for d in leaves(atom.thr_id.stride)):
        out.append(Finding(atom.name, atom.source, "ThrID", "THR", f"ThrID {atom.thr_id} is not injective"))
    return out


def _malformed(atom: Atom, named: Sequence[tuple[str, Layout | None]]) -> list[Finding]:
    printed = dict(atom.printed)
    return [Finding(atom.name, atom.source, what, "SHAPE",
                    f"{printed[what]}: shape and stride are not congruent; CuTe forms the type (layout.hpp:103 "
                    f"does not check) but rejects its evaluation and its cosize (static_assert \"Mismatched Ranks\", "
                    f"stride.hpp:116; \"Mismatched ranks\", int_tuple.hpp:309), so no TiledMMA / TiledCopy built on "
                    f"this atom compiles")
            for what, layout in named if layout is None]


def check(atom: Atom) -> list[Finding]:
    """Every violated requirement of the atom's layouts (empty when it meets them all)."""
    if isinstance(atom, MmaAtom):
        m, n, k = atom.shape_mnk
        named = [("ALayout", atom.a), ("BLayout", atom.b), ("CLayout", atom.c)]
        out = _malformed(atom, named)
        out += _check_thr(atom, [(w, x) for w, x in named if x is not None])
        tiles = {"ALayout": (m * k, _Describe(m, ("m", "k"))), "BLayout": (n * k, _Describe(n, ("n", "k"))),
                 "CLayout": (m * n, _Describe(m, ("m", "n")))}
        for what, layout in named:
            if layout is not None:
                out += _check_tv(atom.name, atom.source, what, layout, *tiles[what])
        return out
    named = [("SrcLayout", atom.src), ("DstLayout", atom.dst), ("RefLayout", atom.ref)]
    out = _malformed(atom, named)
    if out or atom.src is None or atom.dst is None or atom.ref is None:
        return out
    out = _check_thr(atom, [("SrcLayout", atom.src), ("DstLayout", atom.dst), ("RefLayout", atom.ref)])
    if atom.ref != atom.src and atom.ref != atom.dst:
        out.append(Finding(atom.name, atom.source, "RefLayout", "REF", "RefLayout is neither SrcLayout nor DstLayout"))
    src, src_clash = _tv_image(atom.src)
    dst, dst_clash = _tv_image(atom.dst)
    for what, clashes in (("SrcLayout", src_clash), ("DstLayout", dst_clash)):
        if clashes:
            out.append(Finding(atom.name, atom.source, what, "OVERLAP",
                               f"{len(clashes)} (thread, value) pairs address a bit another pair already does",
                               tuple(f"T{a[0]}V{a[1]} and T{b[0]}V{b[1]} both address bit {i}"
                                     for a, b, i in clashes[:WITNESS_LIMIT])))
    only_src = sorted(set(src) - set(dst))
    only_dst = sorted(set(dst) - set(src))
    # A zero-stride leaf in the source's value mode replicates a source value into several destination values
    # (the UTCCP 4x32dp / 2x64dp multicasts); the (thread, value) pairs still correspond one to one.
    replicated = any(int(d) == 0 for d in leaves(get(atom.src.stride, 1))) and size(atom.src) == size(atom.dst)
    if replicated:
        only_dst = []
    if only_src or only_dst:
        w = [f"bit {i} is read (T{src[i][0]}V{src[i][1]}) but never written" for i in only_src[:WITNESS_LIMIT]]
        w += [f"bit {i} is written (T{dst[i][0]}V{dst[i][1]}) but never read" for i in only_dst[:WITNESS_LIMIT]]
        out.append(Finding(atom.name, atom.source, "SrcLayout", "COVER",
                           f"source and destination cover different bits ({len(only_src)} only read, "
                           f"{len(only_dst)} only written)", tuple(w)))
    return out


def check_all(names: Sequence[str] = ()) -> list[tuple[Atom, list[Finding]]]:
    chosen = [find(n) for n in names] if names else list(atoms())
    return [(a, check(a)) for a in chosen]
