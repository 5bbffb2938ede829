"""The ``smem`` family: shared-memory tensors of swizzled layouts, their bank conflicts and GMMA/UMMA descriptors.

Drawn: swizzles ``Sw<B,M,S>`` over every parameter CuTe accepts (masks up to bit 31, negative shifts, identity
swizzles), layouts with zero, negative and large strides, every ``smem_ptr`` width (1, 2, 4, 6, 8, 16, 32, 64 bits)
and the unflagged ``Sw o _0 o L``; thread-to-coordinate access layouts with element and access widths; GMMA and
UMMA atoms tiled to CTA tiles and their perturbations (the flag dropped or of another width, a plain layout, an
identity swizzle of another base, another swizzle, strides broken).

Asked: ``conflict_free`` (a proof or a witness pair), ``bank_conflicts`` (wavefronts per phase), ``in_bounds`` of a
flagged layout, the index picture of a flagged layout, ``gmma_canonical`` and ``umma_canonical``.

Judged against: the bit addresses of every element of ``make_tensor(make_smem_ptr<T>(nullptr), L)`` (the pointer
``&t(i)``, a ``subbyte_iterator``'s byte and bit for sub-byte ``T``), and ``make_gmma_desc`` / ``make_umma_desc``
compiled (a compile error, or the descriptor's layout type, SBO and LBO), all cases in one program.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from verifier.algebra.gmma import (
    KINDS,
    MAJORS,
    UMMA_KINDS,
    UMMA_LAYOUT_CODES,
    Canonical,
    atom,
    canonical_gmma,
    canonical_umma,
    umma_atom,
)
from verifier.algebra.registry import apply
from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.int_tuple import leaves
from verifier.core.integers import S, symbol
from verifier.core.layouts import Layout, size
from verifier.core.swizzle import ComposedLayout, SmemPtrFlag, Swizzle, flag_bits
from verifier.core.symbols import INT32_MAX, Symbols
from verifier.engine.banks import ACCESS_BITS, BANK_BYTES, BANKS, AccessModel, count, wavefronts
from verifier.engine.problem import Property, decide
from verifier.engine.verdicts import PROVED, REFUTED
from verifier.notation.cpp import parse
from verifier.oracle import cute_cpp
from verifier.oracle.adversarial import Disagreement, Report
from verifier.oracle.cute_cpp import CppBuilder, CppCase
from verifier.present.pictures import layout_picture

FAMILY = "smem"
#: sizeof_bits<T> of a type of each width, as a kernel's smem tensor holds it.
CPP_TYPES = {1: "cute::uint1b_t", 2: "cute::uint2b_t", 4: "cute::uint4b_t", 6: "cute::float_e3m2_t",
             8: "uint8_t", 16: "cute::half_t", 32: "float", 64: "double"}
#: make_gmma_desc's LayoutType values (mma_sm90_desc.hpp:48-53) by the model's names.
GMMA_CODES = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
MAX_ELEMENTS = 256  # elements whose addresses one case prints
CHUNK = 150  # cases per compiled program

_HEADER = r"""#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cstdio>
using namespace cute;
// The bit address of every element of the smem tensor over a null base: the pointer &t(i) (a subbyte_iterator,
// printed as its byte and bit, for sub-byte T).
template <class T, class L> void bit_addresses(L const& l) {
  auto t = make_tensor(make_smem_ptr<T>((void*)nullptr), l);
  printf("@@A");
  for (int i = 0; i < int(size(l)); ++i) {
    auto p = &t(i);
    // the byte address, made a bit address in Python: 8 * a pointer past 2^60 would wrap (a swizzle whose mask
    // reaches bit 31 sign-extends over the upper bits of a negative address)
    if constexpr (sizeof_bits_v<T> % 8 == 0) { printf(" B%lld", (long long)reinterpret_cast<intptr_t>(p)); }
    else { printf(" "); print(p); }
  }
  printf("\n");
}
template <class T, int MN, class L> void gmma(L const& l) {
  auto t = make_tensor(make_smem_ptr<T>((void*)nullptr), l);
  constexpr auto major = MN ? SM90::GMMA::Major::MN : SM90::GMMA::Major::K;
  auto d = SM90::GMMA::make_gmma_desc<major>(t);
  printf("@@D %d %d %d\n", int(d.bitfield.layout_type_), int(d.bitfield.stride_byte_offset_),
         int(d.bitfield.leading_byte_offset_));
}
template <class T, int MN, class L> void umma(L const& l) {
  auto t = make_tensor(make_smem_ptr<T>((void*)nullptr), l);
  constexpr auto major = MN ? UMMA::Major::MN : UMMA::Major::K;
  auto d = UMMA::make_umma_desc<major>(t);
  printf("@@D %d %d %d\n", int(d.layout_type_), int(d.stride_byte_offset_), int(d.leading_byte_offset_));
}"""


def _unit(cases: Sequence[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    lines = _HEADER.split("\n")
    spans: dict[int, tuple[int, int]] = {}
    for k, case in enumerate(cases):
        start = len(lines) + 1
        body = 'printf("@@REJECTED\\n");' if k in rejected else f"{case.code};"
        lines.append(f"static void case_{k}() {{ {body} }}")
        spans[k] = (start, len(lines))
    lines.append("int main() {")
    for k in range(len(cases)):
        lines.append(f'  printf("@@BEGIN {k}\\n"); case_{k}(); printf("@@END\\n");')
    lines.append("  return 0;\n}")
    return "\n".join(lines) + "\n", spans


_SUBPTR = re.compile(r"subptr\[\d+b\]\((.*)\.(\d+)\)")


def _bit(text: str) -> int:
    if text.startswith("B"):  # a byte address
        return 8 * int(text[1:])
    m = _SUBPTR.fullmatch(text)
    if m is None:
        return int(text)
    byte = 0 if m.group(1) == "(nil)" else int(m.group(1), 16)
    return 8 * (byte - (1 << 64) if byte >= 1 << 63 else byte) + int(m.group(2))


def compiled(codes: Sequence[str]) -> list[str | list[int] | tuple[int, int, int]]:
    """Run the generated calls (``bit_addresses<T>(L)``, ``gmma<T,MN>(L)``, ``umma<T,MN>(L)``) in one program:
    per call, the bit addresses, the descriptor's (layout type, SBO, LBO), or the compile error."""
    results: list[str | list[int] | tuple[int, int, int]] = []
    for start in range(0, len(codes), CHUNK):
        results += _compiled([CppCase(c, ()) for c in codes[start:start + CHUNK]])
    return results


def _compiled(cases: list[CppCase]) -> list[str | list[int] | tuple[int, int, int]]:
    binary = cute_cpp.build(cases, unit=_unit)
    out = subprocess.run([str(binary.path)], capture_output=True, text=True, timeout=600, check=False).stdout
    results: list[str | list[int] | tuple[int, int, int]] = []
    blocks = out.split("@@BEGIN ")[1:]
    by_case = {int(b.split("\n", 1)[0]): b for b in blocks}
    for k in range(len(cases)):
        if k in binary.rejected:
            results.append(binary.rejected[k])
            continue
        block = by_case.get(k, "")
        a = re.search(r"@@A(.*)\n", block)
        d = re.search(r"@@D (\d+) (\d+) (\d+)\n", block)
        if a is not None:
            results.append([_bit(x) for x in a.group(1).split()])
        elif d is not None:
            results.append((int(d.group(1)), int(d.group(2)), int(d.group(3))))
        else:
            results.append(f"no answer: {block[-300:]!r}")
    return results


# -- drawing ------------------------------------------------------------------------------------------------------


def draw_swizzle(rng: random.Random) -> Swizzle:
    """Any ``Sw<B,M,S>`` CuTe accepts: mostly the GMMA/UMMA/TMA ones, then identities, negative shifts and masks up
    to bit 31 (whose ``int`` masks are negative)."""
    pick = rng.random()
    if pick < 0.4:
        b = rng.choice((0, 1, 2, 3))
        return Swizzle(b, rng.choice((3, 4, 4, 4, 5)), 3 if rng.random() < 0.8 or b == 3 else 2)
    while True:
        b = rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5))
        s = rng.choice((1, -1)) * rng.randint(max(b, 1), max(b, 1) + 4)
        top = 32 - b - abs(s)
        m = rng.choice((0, 1, 2, 3, 4, 5, 6, top, top - 1, rng.randint(0, max(0, top))))
        try:
            return Swizzle(b, max(0, m), s)
        except CuteRejection:
            continue


def draw_inner(rng: random.Random, big: bool, negative: bool = True) -> Layout:
    """A static layout of at most ``MAX_ELEMENTS`` elements: column- or row-major tiles, zero and (``negative``)
    negative strides, and (``big``) strides reaching high address bits, every offset within ``int``."""
    shapes = rng.choice(((8, 8), (8, 16), (8, 32), (8, 64), (16, 8), (4, 16), (64,), (32,), (2, 2, 8), (128,)))
    dense = []
    prod = 1
    for x in (shapes if rng.random() < 0.5 else shapes[::-1]):
        dense.append(prod)
        prod *= x
    if len(dense) > 1 and dense[0] != 1:
        dense = dense[::-1]
    strides = []
    for x, d in zip(shapes, dense):
        roll = rng.random()
        if roll < 0.6:
            pass
        elif roll < 0.75:
            d = rng.choice((0, -1, -d, 2 * d, 3) if negative else (0, 2 * d, 3))
        elif big:
            d = (rng.choice((1, -1)) if negative else 1) * (1 << rng.randint(10, 29 - (x - 1).bit_length()))
        else:
            d = rng.choice((1, 2, 8, 64, 72, 128, 256))
        strides.append(d)
    if len(shapes) == 1:
        return Layout(S(shapes[0]), S(strides[0]))
    return Layout(tuple(S(x) for x in shapes), tuple(S(d) for d in strides))


def draw_smem(rng: random.Random) -> tuple[object, int]:
    """A shared-memory layout and the element width of the tensor that holds it; now and then a flag of another
    width (which CuTe refuses to build)."""
    bits = rng.choice((8, 16, 16, 16, 32, 32, 64, 1, 2, 4, 6))
    sw = draw_swizzle(rng)
    # A sub-byte iterator's negative offsets are not addresses (array_subbyte.hpp:262-264 divides k truncating into
    # a uint8_t bit index): they are not drawn.
    inner = draw_inner(rng, big=sw.base + sw.bits + abs(sw.shift) > 12 and rng.random() < 0.6, negative=bits >= 8)
    roll = rng.random()
    if roll < 0.7:
        return ComposedLayout(sw, SmemPtrFlag(bits), inner), bits
    if roll < 0.75:
        return ComposedLayout(sw, SmemPtrFlag(rng.choice([w for w in CPP_TYPES if w != bits])), inner), bits
    if roll < 0.9:
        return ComposedLayout(sw, S(0), inner), bits  # what composition(Swizzle{}, L) prints
    return inner, bits


@dataclass(frozen=True)
class Access:
    """One shared-memory instruction: ``threads:stride`` over the tile's 1-D coordinates, and its widths."""

    layout: Layout
    model: AccessModel


def draw_access(rng: random.Random, bits: int, n: int) -> Access | None:
    widths = [w for w in ACCESS_BITS if w % bits == 0]
    if not widths:
        return None
    w = rng.choice(widths)
    per = w // bits
    for _ in range(8):
        threads = rng.choice((8, 16, 32))
        d = rng.choice((per, per, 2 * per, 8 * per, 64, 1, per * rng.randint(1, 9)))
        if (threads - 1) * d < n:
            return Access(Layout(S(threads), S(d)), AccessModel(bits, w))
    return None


# -- the tool's answers, judged ----------------------------------------------------------------------------------


def _flagged_case(smem: object, bits: int) -> str:
    b = CppBuilder()
    return f"bit_addresses<{CPP_TYPES[bits]}>({b.operand(smem)})"


def _judge_banks(smem: object, acc: Access, bits_of: list[int], rng: random.Random, out: list[Disagreement],
                 verdicts: dict[str, int]) -> int:
    """conflict_free (with, half the time, a symbolic stage offset ``s*step``, ``0 <= s <= 3``) and
    bank_conflicts of one access against CuTe's byte addresses; returns the answers judged."""
    model = acc.model
    n = int(size(acc.layout.shape))
    coords = [int(acc.layout(S(t))) for t in range(n)]
    room = len(bits_of) - 1 - max(coords)
    step = rng.choice([x for x in (1, 8, 16, 64, n, room // 3) if 0 < x and 3 * x <= room] or [0])
    stages = range(4) if step and rng.random() < 0.5 else range(1)

    def truth(stage: int) -> tuple[list[int], int, bool]:
        starts = [bits_of[c + stage * step] for c in coords]
        addrs = [b // 8 for b in starts]
        worst = max(p.wavefronts for p in count(addrs, model))
        return addrs, worst, all(b >= 0 and b % model.access_bits == 0 for b in starts)

    addrs, _, _ = truth(0)
    case = (f"cute-verify check conflict_free '{smem}' '{acc.layout}' --element-bits {model.element_bits} "
            f"--access-bits {model.access_bits}" + (f" --offset 's*{step}' --assume 's <= 3'" if len(stages) > 1
                                                    else ""))
    judged = 1
    counted = count(addrs, model)
    try:
        ours = wavefronts(smem, acc.layout, model)
        if [p.wavefronts for p in ours] != [p.wavefronts for p in counted]:
            out.append(Disagreement(FAMILY, case.replace("check conflict_free", "bank_conflicts"),
                                    f"wavefronts {[p.wavefronts for p in ours]}",
                                    f"wavefronts {[p.wavefronts for p in counted]} at bytes {addrs}"))
    except LayoutError as exc:
        out.append(Disagreement(FAMILY, case.replace("check conflict_free", "bank_conflicts"), f"error: {exc}",
                                f"bytes {addrs}"))
    symbols = Symbols()
    offset = None
    if len(stages) > 1:
        symbols.declare("s", lo=0, hi=3)
        offset = symbol("s") * S(step)
    try:
        options = (("element_bits", model.element_bits), ("access_bits", model.access_bits),
                   *((("offset", offset),) if offset is not None else ()))
        v = decide(Property("conflict_free", (smem, acc.layout), symbols, options))
    except LayoutError as exc:
        verdicts["error"] = verdicts.get("error", 0) + 1
        out.append(Disagreement(FAMILY, case, f"error: {exc}", f"bytes {addrs}"))
        return judged
    verdicts[v.verdict] = verdicts.get(v.verdict, 0) + 1
    if v.verdict == PROVED:
        judged += 1
        for stage in stages:
            addrs, worst, aligned = truth(stage)
            if worst > 1 or not aligned:
                out.append(Disagreement(FAMILY, case, "proved", f"at s={stage}: {worst} wavefronts at bytes {addrs}"))
                break
    elif v.verdict == REFUTED and v.counterexample is not None:
        judged += 1
        cex = v.counterexample
        stage = int(cex.params.get("s", 0))
        addrs, _, _ = truth(stage) if stage in stages else ([], 0, True)
        if cex.obligation == "CONFLICT-FREE" and isinstance(cex.coordinate, tuple) and addrs:
            i, j = cex.coordinate
            p = model.threads_per_phase
            real = 0 <= i < n and 0 <= j < n and i // p == j // p and any(
                (addrs[i] // BANK_BYTES + k1) % BANKS == (addrs[j] // BANK_BYTES + k2) % BANKS
                and addrs[i] // BANK_BYTES + k1 != addrs[j] // BANK_BYTES + k2
                for k1 in range(model.words_per_thread) for k2 in range(model.words_per_thread))
        else:
            i = cex.coordinate if isinstance(cex.coordinate, int) else -1
            b = bits_of[coords[i] + stage * step] if addrs and 0 <= i < n else 0
            real = bool(addrs) and 0 <= i < n and not (b >= 0 and b % model.access_bits == 0)
        if not real:
            out.append(Disagreement(FAMILY, case, f"refuted at {cex.obligation} {cex.coordinate} {dict(cex.params)}",
                                    f"bytes {addrs}: no such failure"))
    return judged


def _judge_bounds(smem: object, bits: int, bits_of: list[int], rng: random.Random, out: list[Disagreement],
                  verdicts: dict[str, int]) -> int:
    """in_bounds of a flagged layout and its picture against CuTe's bit addresses."""
    hi = max(bits_of) + bits
    extent = max(1, rng.choice((hi // bits, -(-hi // bits), hi // bits - 1, len(bits_of), 1 << rng.randint(3, 12))))
    symbolic = rng.random() < 0.5  # the extent a run-time E >= extent, the worst case its least value
    wide = extent > INT32_MAX  # addresses past 2^31 (a mask at bit 31 sign-extends): E is an int64_t
    case = f"cute-verify check in_bounds '{smem}' " + (
        f"E --assume 'E >= {extent}'" + (" --symbol E=..:i64" if wide else "") if symbolic else str(extent))
    judged = 0
    symbols = Symbols()
    if symbolic:
        symbols.declare("E", lo=extent, **({"bits": 64} if wide else {}))
    try:
        v = decide(Property("in_bounds", (smem, symbol("E") if symbolic else S(extent)), symbols))
    except LayoutError as exc:
        out.append(Disagreement(FAMILY, case, f"error: {exc}", f"bit addresses {bits_of}"))
        return judged
    verdicts[f"in_bounds {v.verdict}"] = verdicts.get(f"in_bounds {v.verdict}", 0) + 1
    if v.verdict == PROVED:
        judged += 1
        inside = [0 <= a and a + bits <= extent * bits for a in bits_of]
        if not all(inside):
            out.append(Disagreement(FAMILY, case, "proved", f"element {inside.index(False)} at bit "
                                    f"{bits_of[inside.index(False)]}"))
    elif v.verdict == REFUTED and v.counterexample is not None:
        judged += 1
        i = v.counterexample.coordinate
        e = int(v.counterexample.params.get("E", extent))
        if not (isinstance(i, int) and 0 <= i < len(bits_of) and e >= extent
                and not (0 <= bits_of[i] and bits_of[i] + bits <= e * bits)):
            out.append(Disagreement(FAMILY, case, f"refuted at {i}, E={e}", f"bit addresses {bits_of}: inside"))
    if len(bits_of) <= 4096:
        judged += 1
        pic = layout_picture(smem)
        want = [str(a // bits) if a % bits == 0 else f"{a / bits:g}" for a in bits_of]
        if [c.label for c in pic.cells] != want:
            out.append(Disagreement(FAMILY, f"cute-verify draw '{smem}'", f"labels {[c.label for c in pic.cells]}",
                                    f"element offsets {want}"))
    return judged


def _judge_rejected(smem: object, bits: int, truth: str, out: list[Disagreement]) -> int:
    """CuTe does not build the tensor: the tool must refuse the pattern too (bad input), never decide it."""
    case = f"cute-verify check conflict_free '{smem}' 8:_1 --element-bits {bits} --access-bits 128"
    if 128 % bits:
        return 0
    try:
        v = decide(Property("conflict_free", (smem, Layout(S(8), S(1))), Symbols(),
                            (("element_bits", bits), ("access_bits", 128))))
    except LayoutError:
        return 1
    out.append(Disagreement(FAMILY, case, v.verdict, f"does not compile: {truth}"))
    return 1


# -- descriptors ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DescCase:
    tile: object
    bits: int
    major: str
    umma: bool

    def command(self) -> str:
        return (f"cute-verify {'umma' if self.umma else 'gmma'}_canonical '{self.tile}' --element-bits {self.bits} "
                f"--major {self.major}")

    def code(self) -> str:
        """The call of the descriptor on the k-block one MMA reads, as the model restricts it."""
        b = CppBuilder()
        tile = self.tile
        inner = tile.inner if isinstance(tile, ComposedLayout) else tile
        kb = max(1, 256 // self.bits)
        text = b.operand(tile)
        if isinstance(inner, Layout) and int(size(inner.shape[1])) > kb:  # type: ignore[index]
            text = f"composition({text}, make_tile(_, Layout<Int<{kb}>>{{}}))"
        return f"{'umma' if self.umma else 'gmma'}<{CPP_TYPES[self.bits]}, {int(self.major == 'MN')}>({text})"


def draw_desc(rng: random.Random) -> DescCase:
    umma = rng.random() < 0.5
    major = rng.choice(MAJORS)
    bits = rng.choice((8, 16, 32) if umma else (8, 16, 32, 64))
    kinds = [k for k in (UMMA_KINDS if umma else KINDS) if not (k == "SW128_32B" and major == "K")]
    kind = rng.choice(kinds)
    a = umma_atom(major, kind, bits) if umma else atom(major, kind, bits)
    r, c = (int(x) for x in leaves(a.shape))  # the atom's (rows, columns): its layout's shape
    shape = (max(r, rng.choice((64, 128))), max(c, rng.choice((32, 64))))
    tile = apply("tile_to_shape", a, parse(f"(_{shape[0]},_{shape[1]})")).result
    assert isinstance(tile, ComposedLayout)
    roll = rng.random()
    if roll < 0.3:
        pass
    elif roll < 0.45:  # composition(Swizzle{}, layout): no flag
        tile = ComposedLayout(tile.outer, S(0), tile.inner)
    elif roll < 0.6:  # a flag of another width
        tile = ComposedLayout(tile.outer, SmemPtrFlag(rng.choice([w for w in CPP_TYPES if w != bits])), tile.inner)
    elif roll < 0.7:  # the plain layout
        tile = tile.inner
    elif roll < 0.8:  # an identity swizzle of any base and shift
        tile = ComposedLayout(Swizzle(0, rng.randint(0, 6), rng.choice((-3, 1, 2, 3, 4))), tile.offset, tile.inner)
    elif roll < 0.9:  # another swizzle
        tile = ComposedLayout(draw_swizzle(rng), tile.offset, tile.inner)
    else:  # a stride broken
        inner = tile.inner
        assert isinstance(inner, Layout)
        flat = list(leaves(inner.stride))
        k = rng.randrange(len(flat))
        flat[k] = S(int(flat[k]) * rng.choice((2, 3)) or 1)
        it = iter(flat)

        def rebuild(t: object) -> object:
            return tuple(rebuild(x) for x in t) if type(t) is tuple else next(it)

        tile = ComposedLayout(tile.outer, tile.offset, Layout(inner.shape, rebuild(inner.stride)))
    return DescCase(tile, bits, major, umma)


def _judge_desc(case: DescCase, truth: object, out: list[Disagreement], verdicts: dict[str, int]) -> int:
    check_fn = canonical_umma if case.umma else canonical_gmma
    try:
        c: Canonical = check_fn(case.tile, case.bits, case.major)
    except LayoutError as exc:
        out.append(Disagreement(FAMILY, case.command(), f"error: {exc}", str(truth)))
        return 0
    key = f"{'umma' if case.umma else 'gmma'} {'canonical' if c.accepted else 'not canonical'}"
    verdicts[key] = verdicts.get(key, 0) + 1
    if isinstance(truth, tuple):
        if not c.accepted:
            if "do not fit" in c.reason:  # CuTe truncates the offsets into 14 bits: a descriptor, but a wrong one
                return 1
            out.append(Disagreement(FAMILY, case.command(), f"not canonical: {c.reason}",
                                    f"compiles: layout type {truth[0]}, SBO {truth[1]}, LBO {truth[2]}"))
            return 1
        code = (UMMA_LAYOUT_CODES if case.umma else GMMA_CODES)[c.layout_type or ""]
        if (code, c.stride_byte_offset, c.leading_byte_offset) != truth:
            out.append(Disagreement(FAMILY, case.command(), f"canonical {c.layout_type} SBO "
                                    f"{c.stride_byte_offset} LBO {c.leading_byte_offset}",
                                    f"layout type {truth[0]}, SBO {truth[1]}, LBO {truth[2]}"))
        return 1
    if c.accepted:
        out.append(Disagreement(FAMILY, case.command(), f"canonical {c.layout_type}", f"does not compile: {truth}"))
    return 1


# -- the run ------------------------------------------------------------------------------------------------------


def run(cases: int, seed: int) -> Report:
    """``cases`` inputs: about a third descriptors, the rest shared-memory tensors asked about their addresses."""
    rng = random.Random(seed)
    descs = [draw_desc(rng) for _ in range(cases // 3)]
    tensors = [draw_smem(rng) for _ in range(cases - len(descs))]
    codes = [d.code() for d in descs] + [_flagged_case(s, b) for s, b in tensors]
    truths = compiled(codes)
    out: list[Disagreement] = []
    verdicts: dict[str, int] = {}
    judged = 0
    for d, truth in zip(descs, truths[:len(descs)], strict=True):
        judged += _judge_desc(d, truth, out, verdicts)
    for (smem, bits), truth in zip(tensors, truths[len(descs):], strict=True):
        if not isinstance(truth, list):
            verdicts["does not compile"] = verdicts.get("does not compile", 0) + 1
            judged += _judge_rejected(smem, bits, str(truth), out)
            continue
        if flag_bits(smem) is not None:
            judged += _judge_bounds(smem, bits, truth, rng, out, verdicts)
        acc = draw_access(rng, bits, len(truth))
        if acc is not None:
            judged += _judge_banks(smem, acc, truth, rng, out, verdicts)
    return Report(FAMILY, cases, judged, verdicts, tuple(out))


__all__ = ["CPP_TYPES", "DescCase", "compiled", "draw_desc", "draw_smem", "draw_swizzle", "run"]
