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
  counted (``engine.banks.count``) per warp and instruction, exhaustively.

Not derived: the residue predication of ``load()`` (lines 238-307).  CUTLASS shifts the k-tiles by the negative k
residue (``domain_offset``) and predicates the first k-tile from below (``blk_k >= -residue_k``, on the first value
of each copy) and M/N from the first value of each row; ``predicated_copy``'s predicate is ``elem_less(coord,
residue)``, an upper bound on every value, so it does not state CUTLASS's predicate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from verifier.core.errors import LayoutError
from verifier.library import parts

POLICY = "cutlass::gemm::MainloopSm90CpAsyncGmmaWarpSpecialized<"
SOURCE = "cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp"
NOT_DERIVED = ("the residue predication of load() (sm90_mma_multistage_gmma_ss_warpspecialized.hpp:238-307): the "
               "first k-tile shifted by the negative k residue and predicated from below on each copy's first "
               "value, which predicated_copy's elem_less(coord, residue) does not express")


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
           verdict_json: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
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
    out["predication"] = {"verdict": "not derived", "reason": NOT_DERIVED, "kind": "not derived"}
    return out
