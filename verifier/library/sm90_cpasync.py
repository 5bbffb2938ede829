"""The SM90 cp.async mainloop (``MainloopSm90CpAsyncGmmaWarpSpecialized``, the ``cpasync`` kernels): its layouts
derived from compiled CUTLASS (``epilogue_cpp.CPP`` prints them) and verified.

cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp, built by
cutlass/gemm/collective/builders/sm90_gmma_builder.inl:777-850, per operand X in {A, B}:

* ``smem_X``: ``tile_to_shape(SmemLayoutAtomX, (BLK, BLK_K, Stages))`` in the default order (lines 123-128), which
  must print as compiled CUTLASS's ``SmemLayoutX``, and ``gmma_X``, the GMMA canonical check of one stage (the
  TiledMma reads it with descriptors, as in the TMA mainloop);
* ``copy_X``: ``GmemTiledCopyX``, modelled as the builder makes it (``make_simt_gmem_tiled_copy``,
  cutlass/gemm/collective/builders/sm90_common.inl:130-167: ``make_tiled_copy`` of the cp.async atom over a
  thread layout that is major along the gmem's unit-stride mode and ``Alignment`` values) and checked equal to
  compiled CUTLASS's (``Tiler_MN``, ``TiledLayout_TV``); every thread's ``partition_D`` of the staged smem tensor
  (its cp.async destinations, lines 233-235) checked equal to compiled CUTLASS's addresses; their bank conflicts
  counted (``engine.banks.count``) per warp and instruction, exhaustively;
* ``predication_X``: the residue predication of ``load()`` (lines 238-307), as CUTLASS states it: the kernel's
  ``residue_mnk = (M - BLK_M m, N - BLK_N n, K - BLK_K k_tiles)`` (sm90_gemm_warpspecialized*.hpp), gA shifted by
  the (non-positive) k residue (``domain_offset``), each copy row's predicate ``get<0>(tAcA(0,m,0)) < residue_m``
  (the row's first value, for every k), and in the first k-tile each copy column's ``get<1>(tAcA(0,0,k)) >=
  -residue_k`` (the column's first value, for every row; the column is cleared otherwise); the later k-tiles are
  loaded under the row predicate alone.  Checked on the model's partition (``model_copy``, equal to compiled
  CUTLASS's) for every admitted residue, hence every admitted M, N, K: each value the copy reads is in bounds, each
  in-bounds value of the tile is read (a false predicate zero-fills: the ZFILL atom), each out-of-bounds k of the
  first tile is cleared.  The residues are what M, N, K reach the tile through: a row is in bounds iff its tile
  coordinate is below ``min(residue, BLK)``, the first k-tile's column iff its coordinate is at least
  ``-residue_k``, every later k-tile wholly (K >= 1).  ``compiled_residues`` runs the same statements compiled
  (CuTe's partitions of the identity tensor, ``CPP``) at concrete sizes: the model's cross-check and the replay
  of a refutation;
* ``predication_X_stream_k`` (a key with stream-K configurations): a stream-K work unit's first stage is a later
  k-tile, which the same predicates treat as the first (``stream_k``; replayed with compiled CUTLASS's scheduler,
  ``stream_k_units``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from verifier.core.errors import LayoutError
from verifier.library import parts

POLICY = "cutlass::gemm::MainloopSm90CpAsyncGmmaWarpSpecialized<"
SOURCE = "cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp"



def applies(d: Mapping[str, Any]) -> bool:
    return str(d.get("MAINLOOP", "")).startswith(POLICY) and "MAIN_COPY_A_TV" in d and "SMEM_A" in d


def acceptance(fields: Mapping[str, Any], strides: Mapping[str, str], epilogue_checks: bool) -> list[str]:
    """``can_implement``'s condition, read by hand: the mainloop's ``check_alignment<GmemTiledCopyX::NumValSrc>``
    (lines 175-188: the unit-stride extent of A and B a multiple of the copy's values, the kernel's alignment), and
    the TMA epilogue's C/D conjuncts where it has one (``verify.acceptance``)."""

    # The TMA mainloop's A/B conjuncts (128 bits' worth) are not this mainloop's: only C's and D's are kept.
    conds = parts.acceptance({**fields, "element_a": "void", "element_b": "void"}, strides, epilogue_checks)
    extents = {"A": ("M", "K", "L"), "B": ("N", "K", "L")}
    for x in ("A", "B"):
        unit = [i for i, a in enumerate(parts.top_args(strides[x])) if a == "cute::C<1>"]
        align = int(fields[f"align_{x.lower()}"])
        if unit and align > 1:
            conds.append(f"{extents[x][unit[0]]} % {align} == 0")
    return sorted(set(conds))


def problems(d: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The smem layout problems (``verify.problem`` data), by check name."""

    out: dict[str, dict[str, Any]] = {}
    blk = str(d["TILE"]).strip("()").split(",")
    for x, blk_r in (("A", blk[0]), ("B", blk[1])):
        out[f"smem_{x}"] = parts.problem(f"smem {x}", "tile_to_shape",
                                   [str(d[f"ATOM_{x}"]), f"({blk_r},{blk[2]},_{d['STAGES']})", "(_1,_2,_3)"], None, [])
    return out


def _atom_name(printed: str) -> str:
    """``cute::Copy_Traits<cute::SM80_CP_ASYNC_CACHEALWAYS_ZFILL<cute::uint128_t, ...> >`` as the atom table names
    the operation."""
    text = printed.strip()
    if text.startswith("cute::Copy_Traits<"):
        text = text[len("cute::Copy_Traits<"):text.rindex(">")].strip()
    text = text.replace("cute::", "").replace("cutlass::", "")
    for wide, short in (("unsigned __int128", "uint128_t"), ("long unsigned int", "uint64_t"),
                        ("unsigned int", "uint32_t"), ("short unsigned int", "uint16_t"),
                        ("unsigned char", "uint8_t")):
        text = text.replace(wide, short)
    return text.replace(", ", ",")


def model_copy(fields: Mapping[str, Any], d: Mapping[str, Any], x: str) -> Any:
    """``make_simt_gmem_tiled_copy`` (sm90_common.inl:130-167) in the model."""
    from verifier.algebra import atoms, tiled
    from verifier.core.layouts import make_layout
    from verifier.notation.cpp import parse

    bits = int(d[f"BITS_{x}"])
    align = int(fields[f"align_{x.lower()}"])
    threads = _threads(d, x)
    blk = [int(v.strip("_")) for v in str(d["TILE"]).strip("()").split(",")]
    mn, k = (blk[0] if x == "A" else blk[1]), blk[2]
    k_major = parts.top_args(str(d[f"STRIDE_{x}"]))[1] == "cute::C<1>"
    major_size = k if k_major else mn
    threads_major = major_size // align if threads >= major_size // align else threads
    threads_minor = threads // threads_major
    if k_major:
        thr, val = f"(_{threads_minor},_{threads_major}):(_{threads_major},_1)", f"(_1,_{align})"
    else:
        thr, val = f"(_{threads_major},_{threads_minor}):(_1,_{threads_major})", f"(_{align},_1)"
    name = _atom_name(str(d[f"MAIN_COPY_{x}_OP"]))
    try:
        atom = atoms.find(name)
    except Exception as exc:  # the atom table's own error: a name it does not hold
        raise LayoutError(f"the copy atom {name} is not in the atom table: {exc}") from None
    # Layout<Shape<...>> of the builder: the compact column-major layout of the shape.
    copy = tiled.make_tiled_copy(atom, bits, parse(thr), make_layout(parse(val)))  # type: ignore[arg-type]
    return copy, f"make_tiled_copy({name}, {bits}, {thr}, {val})"


def _threads(d: Mapping[str, Any], x: str) -> int:
    """The TiledCopy's threads: ``size<0>(TiledLayout_TV)``, as compiled CUTLASS printed it."""
    from verifier.core.layouts import size
    from verifier.notation.cpp import parse

    return int(size(parse(str(d[f"MAIN_COPY_{x}_TV"])), 0))  # type: ignore[arg-type]


def checks(fields: Mapping[str, Any], d: Mapping[str, Any], check: Callable[[Mapping[str, Any]], Any],
           verdict_json: Callable[[Any], dict[str, Any]], accept: Sequence[str] = (),
           configs: Sequence[str] = ()) -> dict[str, Any]:
    from verifier.algebra.gmma import canonical_gmma
    from verifier.engine.verdicts import INVALID, VALID
    from verifier.library.epilogue import _tiler_text, bank_check
    from verifier.notation.cpp import parse

    out: dict[str, Any] = {}
    blk = str(d["TILE"]).strip("()").split(",")
    for name, p in problems(d).items():
        x = name[-1]
        v = check(p)
        printed = str(d[f"SMEM_{x}"])
        out[name] = {**verdict_json(v), "cutlass": printed, "equal": v.result == printed, "derivation": "cutlass"}
        if v.result != printed:
            out[name]["verdict"] = "disagrees"
        stage = parts.stage(str(d[f"ATOM_{x}"]), blk[0] if x == "A" else blk[1], blk[2], "(_1,_2,_3)")
        major = "MN" if parts.top_args(str(d[f"STRIDE_{x}"]))[0] == "cute::C<1>" else "K"
        can = canonical_gmma(parse(stage), int(d[f"BITS_{x}"]), major)
        out[f"gmma_{x}"] = {"verdict": VALID if can.accepted else INVALID, "reason": can.reason, "stage": stage,
                            "derivation": "cutlass"}
        copy, text = model_copy(fields, d, x)
        same = (str(copy.layout_tv), _tiler_text(copy.tiler_mn)) == (str(d[f"MAIN_COPY_{x}_TV"]),
                                                                     str(d[f"MAIN_COPY_{x}_TILER"]))
        if not same:
            out[f"copy_{x}"] = {"verdict": "disagrees", "derivation": "cutlass", "model": text,
                                "tv": [str(copy.layout_tv), _tiler_text(copy.tiler_mn)],
                                "cutlass": [str(d[f"MAIN_COPY_{x}_TV"]), str(d[f"MAIN_COPY_{x}_TILER"])]}
            continue
        tile = [blk[0] if x == "A" else blk[1], blk[2]]
        out[f"copy_{x}"] = {**bank_check(f"copy_{x}", copy, printed, tile, int(d["STAGES"]), int(d[f"BITS_{x}"]),
                                         True, str(d[f"MAIN_COPY_{x}_ADDR"]), _threads(d, x)), "model": text}
    for x in ("A", "B"):
        out[f"predication_{x}"] = predication(fields, d, x, accept)
        sk = stream_k(d, x, accept, configs)
        if sk is not None:
            out[f"predication_{x}_stream_k"] = sk
    return out


# A copy value's place: (thread, value, copy row, copy column) -> the tile coordinate (r, k) it reads.
Partition = dict[tuple[int, int, int, int], tuple[int, int]]


def partition(copy: Any, blk_r: int, blk_k: int, threads: int) -> Partition:
    """Every thread's ``partition_S`` of the (BLK_R, BLK_K) identity tensor (``tAcA``, line 245): the model's
    partition of the tile's column-major index, read back as coordinates."""
    from verifier.core.integers import S
    from verifier.core.layouts import size
    from verifier.notation.cpp import parse

    coords = parse(f"(_{blk_r},_{blk_k}):(_1,_{blk_r})")
    out: Partition = {}
    for t in range(threads):
        part = copy.partition_S(coords, t)
        nv, ni, nj = (int(size(part.layout, i)) for i in range(3))
        for j in range(nj):
            for i in range(ni):
                for v in range(nv):
                    idx = int(part.offset + part.layout(S(v + nv * (i + ni * j))))
                    out[(t, v, i, j)] = (idx % blk_r, idx // blk_r)
    return out


def first_tile(part: Partition, rho: int, res_k: int) -> dict[tuple[int, int, int], tuple[str, int]]:
    """load()'s first k-tile (lines 259-284) at the row residue ``rho`` and k residue ``res_k`` (<= 0):
    per (thread, tile row, tile column), ``L`` (read from gmem), ``Z`` (the row predicate false: the ZFILL copy
    writes zeros) or ``C`` (the column cleared), with the k of the unshifted tensor."""
    out: dict[tuple[int, int, int], tuple[str, int]] = {}
    for (t, _v, i, j), (r, c) in part.items():
        row = part[(t, 0, i, 0)][0] < rho
        col = part[(t, 0, 0, j)][1] >= -res_k
        out[(t, r, c)] = ("L" if col and row else "Z" if col else "C", c + res_k)
    return out


def _step(accept: Sequence[str], extent: str) -> int:
    """The modulus can_implement's conjuncts put on ``extent`` (1: none)."""
    step = 1
    for c in accept:
        m = re.fullmatch(rf"{extent} % (\d+) == 0", c.strip())
        if m:
            step = step * int(m.group(1)) // math.gcd(step, int(m.group(1)))
    return step


def predication(fields: Mapping[str, Any], d: Mapping[str, Any], x: str, accept: Sequence[str]) -> dict[str, Any]:
    """``predication_X`` (module doc): the row and first-tile column predicates against the bounds, for every
    residue an extent that ``accept`` admits reaches a tile with (the tile sizes are multiples of the moduli), and
    K = 0 where ``accept`` admits it (no k-tile, and the first stage loads tile 0 all the same: line 288 counts it
    down after the fact).  A refutation's witness is a problem (M, N, K, L) that ``accept`` admits."""
    from verifier.engine.verdicts import INVALID, VALID

    copy, text = model_copy(fields, d, x)
    if (str(copy.layout_tv), _tiler(copy)) != (str(d[f"MAIN_COPY_{x}_TV"]), str(d[f"MAIN_COPY_{x}_TILER"])):
        return {"verdict": "disagrees", "reason": "the model's TiledCopy is not compiled CUTLASS's (copy_X)",
                "derivation": "cutlass", "model": text}
    blk = [int(v.strip("_")) for v in str(d["TILE"]).strip("()").split(",")]
    blk_r, blk_k = (blk[0] if x == "A" else blk[1]), blk[2]
    extent = "M" if x == "A" else "N"
    step_r, step_k = _step(accept, extent), _step(accept, "K")
    if blk_r % step_r or blk_k % step_k:
        return {"verdict": "unknown", "derivation": "cutlass", "model": text,
                "reason": f"a tile extent is no multiple of can_implement's modulus ({step_r}, {step_k})"}
    part = partition(copy, blk_r, blk_k, _threads(d, x))
    small = dict(zip(("M", "N", "K", "L"), parts.smallest(accept)))
    out: dict[str, Any] = {"derivation": "cutlass", "model": text, "tile": [blk_r, blk_k], "matrix": x,
                           "residues": {extent: f"{step_r}..{blk_r} step {step_r}",
                                        "K": f"{step_k - blk_k}..0 step {step_k}"}}
    if sorted(part.values()) != sorted((r, c) for r in range(blk_r) for c in range(blk_k)):
        return {**out, "verdict": INVALID, "reason": "the copy's partition does not take each tile coordinate once"}
    # Rows (every column) and first-tile columns (every row): each value's bound against its copy's predicate.
    for rho in range(step_r, blk_r + 1, step_r):
        for (t, v, i, _j), (r, _c) in part.items():
            if (part[(t, 0, i, 0)][0] < rho) != (r < rho):
                return {**out, "verdict": INVALID, "witness": {**small, extent: rho}, "obligation": f"row < {extent}",
                        "reason": f"thread {t}'s value {v} of copy row {i} (tile row {r}) is "
                                  f"{'read' if r >= rho else 'not read'} at {extent} = {rho}: its predicate is "
                                  "the copy row's first value's"}
    for res in range(0, blk_k, step_k):
        for (t, v, _i, j), (_r, c) in part.items():
            if (part[(t, 0, 0, j)][1] >= res) != (c >= res):
                return {**out, "verdict": INVALID, "witness": {**small, "K": blk_k - res}, "obligation": "0 <= k",
                        "reason": f"thread {t}'s value {v} of copy column {j} (tile column {c}) is "
                                  f"{'read' if c < res else 'cleared'} at K = {blk_k - res}: its predicate is the "
                                  "copy column's first value's"}
    if all(_holds(c, {**small, "K": 0}) for c in accept):
        return {**out, "verdict": INVALID, "witness": {**small, "K": 0}, "obligation": "k < K",
                "for_positive_K": VALID,
                "reason": f"can_implement admits K = 0, where load() still runs its first stage: every row in "
                          f"bounds reads columns 0..{blk_k - 1} of {x}, none in bounds (and mma() asserts "
                          "k_tile_count >= 1, line 405); for K >= 1 every admitted residue is predicated exactly"}
    return {**out, "verdict": VALID,
            "reason": "for every admitted residue, each value read is in bounds, each in-bounds value of the tile "
                      "is read, each first-tile column out of bounds is cleared"}


def stream_k(d: Mapping[str, Any], x: str, accept: Sequence[str], configs: Sequence[str]) -> dict[str, Any] | None:
    """``predication_X_stream_k``, for a key with stream-K configurations (None: none).  Their kernel
    (sm90_gemm_warpspecialized_cooperative.hpp:379-395) starts a work unit's k-tiles at ``work_k_tile_start`` and
    passes the same residues: the unit's first stage is then a later k-tile, whose columns below ``-residue_k``
    load() clears although they are in bounds (global k = kt0 BLK_K + c + residue_k >= 0), and no unit reads them."""
    from verifier.engine.verdicts import INVALID, VALID

    names = [c for c in configs if "_stream_k_" in c]
    if not names:
        return None
    blk = [int(v.strip("_")) for v in str(d["TILE"]).strip("()").split(",")]
    blk_k, step_k = blk[2], _step(accept, "K")
    out: dict[str, Any] = {"derivation": "cutlass", "matrix": x, "configs": names}
    if step_k % blk_k == 0:
        return {**out, "verdict": VALID, "reason": "every admitted K is a multiple of BLK_K: no k residue"}
    if blk_k % step_k:
        return {**out, "verdict": "unknown", "reason": f"BLK_K {blk_k} is no multiple of K's modulus {step_k}"}
    small = dict(zip(("M", "N", "K", "L"), parts.smallest(accept)))
    k = blk_k + step_k
    return {**out, "verdict": INVALID, "witness": {**small, "K": k}, "first_k_tile": 1, "splits": 2,
            "obligation": "k read",
            "reason": f"with 2 splits a stream-K kernel runs each tile as two units, the second from k-tile 1 "
                      f"(K = {k}: two k-tiles, k residue {step_k - blk_k}); its first stage "
                      f"clears columns {step_k}..{blk_k - 1} of {x}, all in bounds; the unit "
                      f"before it reads columns 0..{step_k - 1}: no unit reads them"}


def findings(checks: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each refuted ``predication_X`` (and ``..._stream_k``) as a finding (replayed by ``replay``)."""
    return [{"kind": "accepted_but_wrong", "check": name, "part": "predication", "matrix": c["matrix"],
             "obligation": c["obligation"], "reason": c["reason"], "witness": dict(c["witness"]),
             "first_k_tile": int(c.get("first_k_tile", 0)), "splits": int(c.get("splits", 0)),
             **({"configs": c["configs"]} if "configs" in c else {})}
            for name, c in checks.items() if name.startswith("predication_") and "witness" in c]


def replay(instances: Sequence[Any], index: int, x: str, w: Mapping[str, int], include: Any = None,
           kt0: int = 0, splits: int = 0) -> dict[str, Any]:
    """A predication finding's witness run on compiled CuTe (``CPP``, the first row tile's first stage, at k-tile
    ``kt0``): the values it reads out of bounds and the in-bounds ones it does not read (a cleared column of a
    first stage at k-tile 0 is read by no other stage; of one at ``kt0`` > 0, by no other unit).  ``splits`` > 0:
    ``kt0`` is the first k-tile of the second unit compiled CUTLASS's stream-K scheduler gives output tile 0 with
    that many splits (none: nothing to replay)."""
    r, k = int(w["M" if x == "A" else "N"]), int(w["K"])
    sched: dict[str, Any] = {}
    if splits:
        units = stream_k_units(instances, index, int(w["M"]), int(w["N"]), k, splits, include=include)
        later = [u[3] for u in units if u[:3] == (0, 0, 0) and u[3] > 0]
        sched = {"splits": splits, "sms": SMS, "units_of_tile_0": [list(u[3:]) for u in units if u[:3] == (0, 0, 0)]}
        if not later:
            return {"out_of_bounds": 0, "not_read": 0, **sched, "cute": "no unit of tile 0 starts at a later k-tile"}
        kt0 = later[0]
    (got,) = compiled_residues(instances, [(index, x, r, k, kt0, 0)], include)
    if got is None:
        return {"out_of_bounds": 0, "not_read": 0, "cute": "CUTLASS rejected the instance"}
    oob = sorted((gr, gk) for st, gr, gk in got.values() if st == "L" and not (0 <= gr < r and 0 <= gk < k))
    missed = sorted((gr, gk) for st, gr, gk in got.values() if st != "L" and 0 <= gr < r and 0 <= gk < k)
    first = (oob or missed)[0] if oob or missed else None
    return {"out_of_bounds": len(oob), "not_read": len(missed), "first": first, "first_k_tile": kt0, **sched,
            "cute": f"{len(oob)} values read out of bounds, {len(missed)} in-bounds values not read"}


def _holds(cond: str, values: Mapping[str, int]) -> bool:
    m = re.fullmatch(r"([MNKL]) % (\d+) == 0", cond.strip())
    if m:
        return values[m.group(1)] % int(m.group(2)) == 0
    return True  # a conjunct on strides or products (no-overflow): true at the small witness


def _tiler(copy: Any) -> str:
    from verifier.library.epilogue import _tiler_text

    return str(_tiler_text(copy.tiler_mn))


# load()'s predication compiled: the kernel's residues (sm90_gemm_warpspecialized.hpp:305-344) and load()'s
# statements (sm90_mma_multistage_gmma_ss_warpspecialized.hpp:222-284) with the collective's own TiledCopy, smem
# layout and tile, over CuTe's identity tensor of the operand (so that each gmem value is its coordinate).  Per
# thread and value of the first stage (k-tile kt0): the tile coordinate, L (copied), Z (row predicate false: the
# ZFILL copy writes zeros) or C (cleared), and the gmem coordinate (row, k).
CPP = r"""
template <class Kernel, int X> void cp_residues(const long long* p) {
  using namespace cute;
  using CM = typename Kernel::CollectiveMainloop;
  using Copy = std::conditional_t<X == 0, typename CM::GmemTiledCopyA, typename CM::GmemTiledCopyB>;
  using Smem = std::conditional_t<X == 0, typename CM::SmemLayoutA, typename CM::SmemLayoutB>;
  using E = std::conditional_t<X == 0, typename CM::ElementA, typename CM::ElementB>;
  using StepX = std::conditional_t<X == 0, Step<_1, Underscore, _1>, Step<Underscore, _1, _1>>;
  int R = int(p[0]), K = int(p[1]), kt0 = int(p[2]), rc = int(p[3]);
  auto blk_shape = typename CM::TileShape{};
  Tensor m = make_identity_tensor(make_shape(R, K, 1));
  Tensor g_all = local_tile(m, blk_shape, make_coord(_, _, _), StepX{});
  Tensor g_in = g_all(_, _, rc, _, 0);
  auto r_max = R - int(size<0>(g_in)) * rc;
  auto k_residue = K - int(size<1>(g_in)) * int(size<2>(g_in));
  alignas(1024) static unsigned char buf[1 << 22];
  Tensor s = make_tensor(make_smem_ptr(reinterpret_cast<E*>(buf)), Smem{});
  Tensor g = domain_offset(make_coord(0, k_residue, 0), g_in);
  Copy copy;
  int threads = int(size<0>(typename Copy::TiledLayout_TV{}));
  for (int t = 0; t < threads; ++t) {
    auto thr = copy.get_slice(t);
    Tensor tg = thr.partition_S(g);
    Tensor ts = thr.partition_D(s);
    Tensor tp = make_tensor<bool>(make_shape(size<1>(ts), size<2>(ts)), Stride<_1, _0>{});
    Tensor c = make_identity_tensor(make_shape(size<0>(s), size<1>(s)));
    Tensor tc = thr.partition_S(c);
    for (int i = 0; i < size<0>(tp); ++i) { tp(i, 0) = get<0>(tc(0, i, 0)) < r_max; }
    for (int j = 0; j < size<2>(ts); ++j) {
      bool col = get<1>(tc(0, 0, j)) >= -k_residue;
      for (int i = 0; i < size<1>(ts); ++i) {
        for (int v = 0; v < size<0>(ts); ++v) {
          auto gc = tg(v, i, j, kt0);
          auto cc = tc(v, i, j);
          printf("@@P %d %d %d %c %d %d\n", t, int(get<0>(cc)), int(get<1>(cc)), col ? (tp(i, j) ? 'L' : 'Z') : 'C',
                 int(get<0>(gc)), int(get<1>(gc)));
        }
      }
    }
  }
}

// The work units the stream-K kernel of the same collectives (GemmUniversal<..., StreamKScheduler>, what the
// emitter writes for a stream_k configuration) runs (M, N, K) as, with `splits` and an SM count: its scheduler's
// own to_underlying_arguments and assignment of a linear index (sm90_gemm_warpspecialized_cooperative.hpp:197,
// sm90_tile_scheduler_stream_k.hpp:277): per unit, its output tile and first k-tile and count.
// The stream-K scheduler's host code names the runtime's device queries (KernelHardwareInfo, reached only for an
// SM count <= 0): stubs, as derive's prelude stubs the rest of the runtime.
extern "C" cudaError_t cudaGetDevice(int*) { return cudaErrorNotSupported; }
extern "C" cudaError_t cudaDeviceGetAttribute(int*, cudaDeviceAttr, int) { return cudaErrorNotSupported; }
template <class Kernel> void cp_units(const long long* p) {
  using namespace cute;
  // Only the cooperative kernel takes a stream-K scheduler (the generator's stream_k configurations are its own).
  if constexpr (std::is_same_v<typename Kernel::CollectiveMainloop::DispatchPolicy::Schedule,
                               cutlass::gemm::KernelCpAsyncWarpSpecializedCooperative>) {
  using SK = cutlass::gemm::kernel::GemmUniversal<typename Kernel::ProblemShape, typename Kernel::CollectiveMainloop,
                                                  typename Kernel::CollectiveEpilogue, cutlass::gemm::StreamKScheduler>;
  using TS = typename SK::TileScheduler;
  typename TS::Arguments args{};
  args.splits = int(p[3]);
  auto shape = make_shape(int(p[0]), int(p[1]), int(p[2]), 1);
  cutlass::KernelHardwareInfo hw{0, int(p[4]), 0};
  static char workspace[1 << 24];
  auto params = TS::to_underlying_arguments(shape, typename SK::TileShape{}, typename SK::ClusterShape{}, hw, args,
                                            workspace);
  dim3 grid = TS::get_grid_shape(params, shape, typename SK::TileShape{}, typename SK::ClusterShape{}, hw, args);
  for (uint64_t i = 0; i < uint64_t(grid.x) * grid.y * grid.z; ++i) {
    uint32_t start = 0;
    auto w = TS::get_current_work_for_linear_idx(start, i, dim3(0, 0, 0), params);
    if (w.is_valid()) {
      printf("@@U %d %d %d %d %u\n", int(w.M_idx), int(w.N_idx), int(w.L_idx), int(TS::get_work_k_tile_start(w)),
             unsigned(w.k_tile_count));
    }
  }
  }
}
"""

_MAIN = r"""
int main() {
  long long k, x, p[5];
  while (scanf("%lld %lld %lld %lld %lld %lld %lld", &k, &x, p, p + 1, p + 2, p + 3, p + 4) == 7) {
    if (k < 0 || k >= kCases) { printf("@@BAD\n"); continue; }
    kTable[3 * k + x](p);
    printf("@@END\n");
    fflush(stdout);
  }
  return 0;
}
"""


def _unit(instances: Sequence[Any]) -> Any:
    from verifier.library import derive

    def unit(cases: Sequence[Any], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
        lines = (derive.PRELUDE + CPP).strip("\n").split("\n")
        spans: dict[int, tuple[int, int]] = {}
        for k, inst in enumerate(instances):
            start = len(lines) + 1
            if k in rejected:
                lines += [f'static void cp_{k}_{x}(const long long*) {{ printf("@@REJECTED\\n"); }}'
                          for x in (0, 1, 2)]
            else:
                lines += [f"namespace key_{k} {{", *inst.source.strip("\n").split("\n"), "}"]
                lines += [f"static void cp_{k}_{x}(const long long* p) {{ cp_residues<key_{k}::{inst.name}, {x}>(p); }}"
                          for x in (0, 1)]
                lines.append(f"static void cp_{k}_2(const long long* p) {{ cp_units<key_{k}::{inst.name}>(p); }}")
            spans[k] = (start, len(lines))
        lines.append(f"static const long long kCases = {len(instances)};")
        lines.append("static void (*kTable[])(const long long*) = {"
                     + ", ".join(f"cp_{k}_{x}" for k in range(len(instances)) for x in (0, 1, 2)) + "};")
        lines.extend(_MAIN.strip("\n").split("\n"))
        return "\n".join(lines) + "\n", spans
    return unit


Compiled = dict[tuple[int, int, int], tuple[str, int, int]]


def _run(instances: Sequence[Any], text: str, include: Any) -> tuple[str, bool]:
    """``CPP``'s program of the batch (cached by ``cute_cpp.build``) run on ``text``: its output, and whether
    CUTLASS rejected a key of the batch."""
    import subprocess

    from verifier.library import derive
    from verifier.oracle import cute_cpp

    flags = list(derive.FLAGS) if include is None else [f"-I{include}", *derive.FLAGS]
    cases = [cute_cpp.CppCase(code=i.source, slots=(), label=i.name) for i in instances]
    binary = cute_cpp.build(cases, unit=_unit(instances), flags=flags)
    run = subprocess.run([str(binary.path)], input=text, capture_output=True, text=True, check=True, timeout=600)
    return run.stdout, bool(binary.rejected)


def compiled_residues(instances: Sequence[Any], queries: Sequence[tuple[int, str, int, int, int, int]],
                      include: Any = None) -> list[Compiled | None]:
    """``CPP`` compiled for the batch and run: per query (key index, operand, R, K, first k-tile, row tile), per
    (thread, tile row, tile column): the status and the gmem (row, k); None where CUTLASS rejected the key."""
    text = "".join(f"{k} {'AB'.index(x)} {r} {kk} {kt0} {rc} 0\n" for k, x, r, kk, kt0, rc in queries)
    stdout, rejected = _run(instances, text, include)
    out: list[Compiled | None] = []
    cur: Compiled = {}
    for line in stdout.splitlines():
        f = line.split()
        if f[0] == "@@P":
            cur[(int(f[1]), int(f[2]), int(f[3]))] = (f[4], int(f[5]), int(f[6]))
        elif f[0] == "@@END":
            out.append(None if not cur and rejected else cur)
            cur = {}
    return out


# The SM count the stream-K replays schedule for: an H100 SXM's.
SMS = 132


def stream_k_units(instances: Sequence[Any], index: int, m: int, n: int, k: int, splits: int = 1, sms: int = SMS,
                   include: Any = None) -> list[tuple[int, int, int, int, int]]:
    """The work units (M_idx, N_idx, L_idx, first k-tile, k-tiles) compiled CUTLASS's stream-K scheduler runs
    (M, N, K, 1) as, with ``splits`` (1: its heuristic) on ``sms`` SMs, for the stream-K kernel of key ``index``'s
    collectives (``cp_units``)."""
    stdout, _ = _run(instances, f"{index} 2 {m} {n} {k} {splits} {sms}\n", include)
    return [(int(a), int(b), int(c), int(d), int(e)) for line in stdout.splitlines()
            if line.startswith("@@U ") for a, b, c, d, e in [line.split()[1:6]]]


def model_residues(part: Partition, blk_r: int, blk_k: int, r: int, k: int, kt0: int, rc: int) -> Compiled:
    """The model's first stage at the same query as ``compiled_residues``: the residues the kernel computes
    (the row residue not clipped: the predicate compares with it as it is)."""
    k_tiles = -(-k // blk_k)
    res_k = k - blk_k * k_tiles
    rho = r - blk_r * rc
    out: Compiled = {}
    for (t, rr, c), (status, kk) in first_tile(part, rho, res_k).items():
        out[(t, rr, c)] = (status, rc * blk_r + rr, kk + kt0 * blk_k)
    return out
