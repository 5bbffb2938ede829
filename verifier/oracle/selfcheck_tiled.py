"""The selfcheck's builders: real configurations of ``make_tiled_mma`` and ``make_tiled_copy`` (``_A`` / ``_B`` /
``_C``), each query (``get_layout*_TV``) and each thread partition of a tensor with symbolic extents and strides by
a **symbolic thread index** ``t`` (``get_slice(t).partition_*``); and the TMA box (``make_tma_box``: CuTe's
``detail::construct_tma_gbasis``, the host part of ``make_tma_copy`` that derives the box, on a gmem tensor with
symbolic extents and strides).  Entries of ``selfcheck``: CuTe's headers compute them on ``cute_symbolic::Int``
and the model (``algebra/tiled.py``, ``algebra/tma.py``) is proved equal on every path.  The model's calls and
CuTe's are generated from one description, so they cannot drift."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from verifier.algebra.atoms import CopyAtom, MmaAtom, find
from verifier.algebra.tiled import (
    TiledCopy,
    TiledMMA,
    make_tiled_copy,
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
    make_tiled_mma,
)
from verifier.core.integers import Int, symbol
from verifier.core.layouts import UNDERSCORE, Layout, Underscore, make_layout, size
from verifier.core.symbols import Symbols
from verifier.notation.cpp import parse, parse_layout
from verifier.oracle.cute_cpp import CppBuilder, CppCase

ELEMENT = {16: "half_t", 32: "float"}
# The run-time extents of the partitioned tensors: large enough for every tile, bounded so that CuTe's index
# arithmetic stays far from 2^31 (the comparison is about the algorithm; the overflow regions are the layout
# algebra's, proved there).
EXTENT_HI = 4096


@dataclass(frozen=True)
class MmaConfig:
    atom: str
    thr: str                      # AtomLayoutMNK
    perms: tuple[str, ...] = ()   # PermutationMNK ("_" for none)


@dataclass(frozen=True)
class CopyConfig:
    atom: str
    bits: int
    how: str                      # make_tiled_copy or make_tiled_copy_A / _B / _C
    thr: str = ""                 # make_tiled_copy: the thread layout
    val: str = ""                 # make_tiled_copy: the value layout
    mma: MmaConfig | None = None  # make_tiled_copy_A / _B / _C: the TiledMMA


MMAS = (
    MmaConfig("SM80_16x8x16_F32F16F16F32_TN", "(_2,_2,_1):(_1,_2,_0)"),
    MmaConfig("SM80_16x8x16_F32F16F16F32_TN", "(_2,_2,_1):(_1,_2,_0)", ("_32", "_32", "_16")),
    MmaConfig("SM80_16x8x8_F16F16F16F16_TN", "(_2,_1,_1):(_1,_0,_0)", ("(_8,_4):(_4,_1)", "_", "_")),
    MmaConfig("SM80_8x8x4_F64F64F64F64_TN", "(_1,_2,_1):(_0,_1,_0)"),
)
COPIES = (
    CopyConfig("SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>", 16, "make_tiled_copy", "(_16,_8):(_8,_1)",
               "(_1,_8):(_0,_1)"),
    CopyConfig("UniversalCopy<uint32_t,uint32_t>", 16, "make_tiled_copy", "(_32,_4):(_1,_32)", "(_2,_1):(_1,_0)"),
    CopyConfig("SM75_U32x4_LDSM_N", 16, "make_tiled_copy_A", mma=MMAS[1]),
    CopyConfig("SM75_U16x8_LDSM_T", 16, "make_tiled_copy_B", mma=MMAS[1]),
    CopyConfig("UniversalCopy<uint32_t,uint32_t>", 32, "make_tiled_copy_C", mma=MMAS[1]),
)
# The partitioned tensors, each dynamic extent and stride a symbol: column- and row-major, one with a leading
# dimension of its own.
TENSORS = ("(M,N):(_1,M)", "(M,K):(ldA,_1)")


def _perm(p: str) -> Layout | Int | Underscore:
    if p == "_":
        return UNDERSCORE
    got = parse(p)
    assert isinstance(got, (Layout, Int)), p
    return got


def _mma_cpp(b: CppBuilder, c: MmaConfig) -> str:
    perms = f", make_tile({', '.join('_' if p == '_' else b.operand(parse(p)) for p in c.perms)})" if c.perms else ""
    return f"make_tiled_mma({c.atom}{{}}, {b.layout(parse_layout(c.thr))}{perms})"


def _mma_model(c: MmaConfig) -> TiledMMA:
    atom = find(c.atom)
    assert isinstance(atom, MmaAtom)
    return make_tiled_mma(atom, parse_layout(c.thr), [_perm(p) for p in c.perms])


def _copy_cpp(b: CppBuilder, c: CopyConfig) -> str:
    atom = f"Copy_Atom<{c.atom}, {ELEMENT[c.bits]}>{{}}"
    if c.how == "make_tiled_copy":
        return f"make_tiled_copy({atom}, {b.layout(parse_layout(c.thr))}, {b.layout(parse_layout(c.val))})"
    assert c.mma is not None
    return f"{c.how}({atom}, {_mma_cpp(b, c.mma)})"


def _copy_model(c: CopyConfig) -> TiledCopy:
    atom = find(c.atom)
    assert isinstance(atom, CopyAtom)
    if c.how == "make_tiled_copy":
        return make_tiled_copy(atom, c.bits, parse_layout(c.thr), parse_layout(c.val))
    assert c.mma is not None
    maker = {"make_tiled_copy_A": make_tiled_copy_A, "make_tiled_copy_B": make_tiled_copy_B,
             "make_tiled_copy_C": make_tiled_copy_C}[c.how]
    return maker(atom, c.bits, _mma_model(c.mma))


@dataclass(frozen=True)
class TiledCase:
    """One query of one configuration: its label, symbols, the model's computation and CuTe's call by builder."""

    label: str
    args: tuple[str, ...]
    symbols: Symbols
    model: Callable[[], object]
    cpp: Callable[[type[CppBuilder]], CppCase]


def _symbols(n_threads: int) -> Symbols:
    sy = Symbols()
    for name in ("M", "N", "K", "ldA"):
        sy.declare(name, lo=1, hi=EXTENT_HI)
    sy.declare("t", lo=0, hi=n_threads - 1)
    return sy


def _tensor(b: CppBuilder, layout: Layout) -> str:
    return f"make_tensor({b.counting()}, {b.layout(layout)})"


def _query(obj: TiledMMA | TiledCopy, name: str) -> object:
    return getattr(obj, name)()


def _partition(obj: TiledMMA | TiledCopy, name: str, tensor: Layout) -> object:
    return getattr(obj, name)(tensor, THREAD)


def _query_cpp(spell: Callable[[CppBuilder], str], name: str, builder: type[CppBuilder]) -> CppCase:
    b = builder()
    return b.case(f"{spell(b)}.{name}()")


def _partition_cpp(spell: Callable[[CppBuilder], str], name: str, tensor: Layout,
                   builder: type[CppBuilder]) -> CppCase:
    b = builder()
    return b.case(f"{spell(b)}.get_slice({b.int(THREAD)}).{name}({_tensor(b, tensor)})")


THREAD: Int = symbol("t")


def _queries(kind: str, desc: str, obj: TiledMMA | TiledCopy, spell: Callable[[CppBuilder], str],
             which: str, n_threads: int) -> list[TiledCase]:
    out = []
    for q in which:
        name = f"get_layout{q}_TV"
        out.append(TiledCase(f"{kind}.{name}", (desc,), _symbols(n_threads), partial(_query, obj, name),
                             partial(_query_cpp, spell, name)))
        for text in TENSORS:
            tensor = parse_layout(text)
            name = f"partition_{q}"
            out.append(TiledCase(f"{kind}.{name}", (desc, text, "t"), _symbols(n_threads),
                                 partial(_partition, obj, name, tensor), partial(_partition_cpp, spell, name, tensor)))
    return out


def cases() -> list[TiledCase]:
    """Every configuration's queries: the TV layouts, and each partition of each tensor by the symbolic thread
    ``t`` (in [0, threads - 1])."""
    out: list[TiledCase] = []
    for c in MMAS:
        mma = _mma_model(c)
        desc = f"make_tiled_mma({c.atom}, {c.thr}{', <' + ','.join(c.perms) + '>' if c.perms else ''})"
        out += _queries("TiledMMA", desc, mma, partial(_mma_cpp, c=c), "ABC", int(size(mma.thr_layout_vmnk)))
    for cc in COPIES:
        tc = _copy_model(cc)
        inner = (f"{cc.thr}, {cc.val}" if cc.mma is None
                 else f"make_tiled_mma({cc.mma.atom}, {cc.mma.thr}, <{','.join(cc.mma.perms)}>)")
        desc = f"{cc.how}({cc.atom}, {cc.bits}, {inner})"
        out += _queries("TiledCopy", desc, tc, partial(_copy_cpp, c=cc), "SD", int(size(tc.layout_tv, 0)))
    return out


# make_tma_box's corpus: (smem layout, gmem layout, assumptions) with half_t elements; the smem layouts of CuTe's
# TMA tests (swizzled, smem_ptr-flagged, multi-mode), the gmem ones with symbolic extents and strides.
TMA_BOXES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)", ("K % 8 == 0",)),
    ("Sw<3,4,3> o _0 o (_64,_64):(_64,_1)", "(M,K):(K,_1)", ()),
    ("(_64,_64):(_64,_1)", "(M,K):(_1,M)", ()),
    ("(_32,_8):(_1,_32)", "(_32,_8,M):(_1,_32,K)", ()),
    ("Sw<3,4,3> o _0 o ((_64,_2),_64):((_64,_4096),_1)", "(M,K):(K,_1)", ()),
    ("((_8,_16),(_8,_4)):((_8,_64),(_1,_1024))", "(M,K):(K,_1)", ()),
    ("(_64,_64):(_64,_1)", "(M,K,N):(K,_1,ldA)", ()),
    ("Sw<2,4,3> o _0 o (_128,_32):(_32,_1)", "(M,K):(ldA,_1)", ()),
)
TMA_BITS = 16


def _tma_model(smem: object, gmem: object) -> object:
    from verifier.algebra.tma import make_tma_box

    # CuTe's construct_tma_gbasis returns the box's basis layout; its shape is the box (the strides are basis
    # elements, E<i>): compared as the compact layout of that shape on both sides.
    return make_layout(make_tma_box(TMA_BITS, smem, gmem).box.shape)


def _tma_cpp(smem: object, gmem: object, builder: type[CppBuilder]) -> CppCase:
    b = builder()
    return b.case("[&] { auto gt = make_tensor(make_gmem_ptr((half_t*)nullptr), " + b.operand(gmem) + "); "
                  "auto sl = get_nonswizzle_portion(" + b.operand(smem) + "); "
                  "auto v = make_identity_layout(product_each(shape(sl))); "
                  "return make_layout(shape(detail::construct_tma_gbasis<half_t>(gt, sl, v))); }()")


def tma_cases() -> list[TiledCase]:
    from verifier.run.problems import build

    out = []
    for smem, gmem, assume in TMA_BOXES:
        sy = Symbols()
        _, s, g = build("make_tma_box", [str(TMA_BITS), smem, gmem], sy, list(assume))
        out.append(TiledCase("make_tma_box", (str(TMA_BITS), smem, gmem, *assume), sy, partial(_tma_model, s, g),
                             partial(_tma_cpp, s, g)))
    return out
