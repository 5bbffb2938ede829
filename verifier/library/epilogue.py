"""The SM90 epilogues' layouts, derived from compiled CUTLASS (``epilogue_cpp.CPP`` prints them) and verified.

For the TMA epilogue (``CollectiveEpilogue<Sm90TmaWarpSpecialized<...>>``,
cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp, built by
cutlass/epilogue/collective/builders/sm90_builder.inl), per output X in {C, D} that the epilogue moves:

* ``epi_smem_X``: ``tile_to_shape(SmemLayoutAtomX, (EPI_TILE_M, EPI_TILE_N, stages), order)`` (lines 161-168:
  MN-major X tiles N first; D has ``StagesC`` stages when it reuses C's smem) must print as compiled CUTLASS's
  ``SmemLayoutX``;
* ``epi_tma_X``: the TMA box (``make_tma_copy_C_sm90``, copy_traits_sm90_tma.hpp:1566-1591: the identity tiler of
  ``EpilogueTile`` over (M,N,L)) of one stage over the gmem tensor (M,N,L) with CUTLASS's 64-bit strides, for every
  problem ``can_implement`` accepts, and under aligned strides alone (the other direction); a refutation is
  replayed on compiled CUTLASS (``can_implement`` accepts, the epilogue's ``to_underlying_arguments`` fails CuTe's
  host assert);
* ``epi_r2s`` / ``epi_s2r``: the TiledCopies of ``store()`` (lines 586-606, 631: ``make_tiled_copy_C_atom`` of the
  kernel's TiledMma, then ``make_tiled_copy_S`` of the R2S / S2R operation) modelled (``algebra.tiled``) and checked
  equal to compiled CUTLASS's (``Tiler_MN`` and ``TiledLayout_TV``), every thread's partition of the smem tensor
  checked equal to compiled CUTLASS's addresses, and their bank conflicts counted (``engine.banks.count``, the
  model of ``cute-verify bank_conflicts``) per warp and instruction: all of them, so the count is exhaustive.
  D's store is a TMA store that the hardware clips at the tensor's bounds: no thread-level predication there.

For the no-smem epilogue (``DefaultEpilogue``, cutlass/epilogue/collective/default_epilogue.hpp:175-245), which
stores the accumulators straight to gmem: ``epi_direct_D``, the thread's ``partition_C`` of the CTA tile of D
(``local_tile(mD, blk_shape, _, Step<_1,_1,X>)``) with its predicate ``elem_less(coord, (M,N))``
(``predicated_copy``, with the kernel's TiledMma), for every M, N, tile coordinate and thread.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from verifier.core.errors import LayoutError
from verifier.library import parts

SOURCES = {
    "tma": "cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp",
    "builder": "cutlass/epilogue/collective/builders/sm90_builder.inl",
    "default": "cutlass/epilogue/collective/default_epilogue.hpp",
}
# The properties of performance, not of correctness: a bank conflict makes a kernel slower, never wrong, so its
# verdict does not enter the key's.
PERFORMANCE = "performance"


def is_tma_epilogue(d: Mapping[str, Any]) -> bool:
    return "EPI_OP_R2S" in d and "EPI_SMEM_D" in d


def _order(stride_type: str) -> str:

    # sm90_epilogue_tma_warpspecialized.hpp:161-168: an M-major output (unit stride in mode 0) tiles N first.
    return "(_2,_1,_3)" if parts.top_args(stride_type)[0] == "cute::C<1>" else "(_1,_2,_3)"


def _epi_tile(d: Mapping[str, Any]) -> list[str] | None:
    """(EPI_TILE_M, EPI_TILE_N) when the epilogue tile is a plain static shape (what the model's TMA box and
    smem checks read); None for a tile of layouts."""
    m = re.fullmatch(r"\((_\d+),(_\d+)\)", str(d.get("EPI_TILE", "")))
    return [m.group(1), m.group(2)] if m else None


def outputs(d: Mapping[str, Any]) -> list[str]:
    """The outputs the TMA epilogue moves through smem: D when it stores one, C when it reads a source."""
    return [x for x, tag in (("C", "EPI_SOURCE"), ("D", "EPI_DESTINATION")) if d.get(tag)]


def problems(fields: Mapping[str, Any], d: Mapping[str, Any], accept: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The epilogue's layout problems (``verify.problem`` data), by check name: the smem layouts and the TMA boxes
    of the TMA epilogue, the predicated direct store of the no-smem one.  A function of ``fields`` and ``d``."""

    out: dict[str, dict[str, Any]] = {}
    if is_tma_epilogue(d):
        tile = _epi_tile(d)
        if tile is None:
            return out
        for x in outputs(d):
            stride = str(d[f"STRIDE_{x}"])
            order = _order(stride)
            stages = d["EPI_STAGES_C"] if x == "C" or d.get("EPI_REUSE_C") else d["EPI_STAGES_D"]
            atom = str(d[f"EPI_ATOM_{x}"])
            out[f"epi_smem_{x}"] = parts.problem(f"epilogue smem {x}", "tile_to_shape",
                                           [atom, f"({tile[0]},{tile[1]},_{stages})", order], None, [])
            bits = int(d[f"EPI_BITS_{x}"])
            stride_text, modes = parts.stride(stride, (f"ld{x}", f"ld{x}", f"bs{x}"))
            names = [str(v) for v in modes if isinstance(v, str)]
            gmem = f"(M,N,L):{stride_text}"
            stage = parts.stage(atom, tile[0], tile[1], order)
            out[f"epi_tma_{x}"] = parts.problem(f"epilogue tma {x}", "make_tma_box", [str(bits), stage, gmem], names,
                                          list(accept))
            if bits >= 8 and 128 % bits == 0:
                align = 128 // bits
                cond = [c for n in names for c in (f"{n} % {align} == 0", f"{n} <= {(2**43 - 1) // bits}")]
                out[f"epi_tma_{x}_aligned_strides"] = parts.problem(f"epilogue tma {x} with aligned strides",
                                                              "make_tma_box", [str(bits), stage, gmem], names, cond)
    elif d.get("EPI_DEFAULT") and "STRIDE_D" in d and str(d.get("EPI_MMA_ATOM", "")).startswith("cute::SM90::GMMA::"):
        # (An SM100 kernel's no-smem epilogue partitions the accumulators in tensor memory: not this store.)
        mma = tiled_mma_text(d)
        stride_text, modes = parts.stride(str(d["STRIDE_D"]), ("ldD", "ldD", "bsD"))
        names = [str(v) for v in modes[:2] if isinstance(v, str)]
        cta = str(d["TILE"])
        bm, bn = (int(v.strip("_")) for v in cta.strip("()").split(",")[:2])
        threads = int(mma_threads(d))
        # One batch of D ((M,N) at the batch's offset l*bsD): the predicate and the tiling are the same in each.
        gmem = "(M,N):(" + ",".join(stride_text.strip("()").split(",")[:2]) + ")"
        # The leading dimension spans the unit-stride extent (M for a column-major D), and is below 2^40 bytes as
        # for the TMA boxes (the GPU's 49-bit virtual addresses bound any real tensor; unbounded, the int64
        # offsets n*ldD would overflow at ldD near 2^56).

        bits = parts.BITS.get(str(fields.get("element_d", "")), 0) or 8
        ld = [f"{names[0]} >= {'M' if modes[0] == 1 else 'N'}", f"{names[0]} <= {(2**43 - 1) // bits}"] \
            if names else []
        out["epi_direct_D"] = parts.problem(
            "epilogue D stored from the accumulators, predicated", "predicated_copy",
            [gmem, cta, "(m,n,_)", "Step<_1,_1,X>", mma, "t", "(M,N)"], [*names, "m", "n", "t"],
            [f"m < (M+{bm - 1})/{bm}", f"n < (N+{bn - 1})/{bn}", f"t < {threads}", *ld])
    return out


def _gmma_name(printed: str) -> str:
    """The atom table's name of a GMMA operation as compiled CUTLASS prints it
    (``cute::SM90::GMMA::MMA_64x128x16_F32F16F16_SS<cute::SM90::GMMA::Major::K, ...>``): its template arguments
    completed with the defaults the table spells out."""
    from verifier.algebra import atoms

    text = printed.replace("cute::SM90::GMMA::MMA_", "SM90_").replace("cute::SM90::GMMA::", "GMMA::")
    text = text.replace("cute::", "")
    base, _, args = text.partition("<")
    given = [a.strip() for a in args.rstrip(">").split(",") if a.strip()] if args else []
    same_base: list[str] = []
    for a in atoms.atoms():
        name = a.name
        b, _, rest = name.partition("<")
        if b != base:
            continue
        table = [x.strip() for x in rest.rstrip(">").split(",") if x.strip()]
        if name == text or table[:len(given)] == given:
            return name
        same_base.append(name)
    # The table holds one instantiation of each GMMA operation (K-major operands); the operands' majors select
    # smem descriptors, not the accumulator's layout (mma_traits_sm90_gmma.hpp: one CLayout per shape), which is all
    # the epilogue reads of the atom; the TiledCopies built from it are compared with compiled CUTLASS's anyway.
    if same_base:
        return same_base[0]
    raise LayoutError(f"the MMA atom {printed} is not in the atom table")


def mma_threads(d: Mapping[str, Any]) -> int:
    from verifier.notation.cpp import parse

    return int(parse(str(d["EPI_MMA_THR"])).size())  # type: ignore[union-attr]


def tiled_mma_text(d: Mapping[str, Any]) -> str:
    """The kernel's TiledMma in the model's notation: the atom compiled CUTLASS names and the AtomLayoutMNK its
    ``ThrLayoutVMNK`` (``(V,M,N,K):(1,...)``) holds after the atom's threads."""
    from verifier.notation.cpp import parse

    vmnk: Any = parse(str(d["EPI_MMA_THR"]))
    shape, stride = vmnk.shape, vmnk.stride
    v = int(shape[0])
    mnk = ",".join(f"_{int(s)}" for s in shape[1:])
    strides = ",".join(f"_{int(t) // v}" for t in stride[1:])
    return f"make_tiled_mma({_gmma_name(str(d['EPI_MMA_ATOM']))}, ({mnk}):({strides}))"


def _copy_op(printed: str) -> str:
    return printed.replace("cute::", "")


def _addresses(text: str) -> tuple[int, list[list[int]]]:
    """``EPI_*_ADDR``: the atom's values per thread, then per thread the byte offsets of its instructions."""
    head, *threads = text.split("|")
    return int(head), [[int(v) for v in t.split()] for t in threads]


def _tiled_copies(d: Mapping[str, Any]) -> dict[str, Any]:
    """The model's TiledMma, ``tiled_copy_C_atom``, R2S and S2R TiledCopies, built as store() builds them."""
    from verifier.algebra import atoms, tiled

    mma = tiled.parse_tiled(tiled_mma_text(d))
    assert isinstance(mma, tiled.TiledMMA)
    catom_op = re.fullmatch(r"cute::Copy_Atom<(.*), (.*)>", str(d["EPI_COPY_ATOM_C"]))
    if catom_op is None:
        raise LayoutError(f"CopyAtomC {d['EPI_COPY_ATOM_C']} is not a Copy_Atom<Op, T>")
    bits_of = {"cutlass::half_t": 16, "cutlass::bfloat16_t": 16, "float": 32, "cutlass::tfloat32_t": 32,
               "int": 32, "int8_t": 8, "signed char": 8, "unsigned char": 8, "cutlass::float_e4m3_t": 8,
               "cutlass::float_e5m2_t": 8, "double": 64}
    catom_bits = bits_of.get(catom_op.group(2).strip())
    if catom_bits is None:
        raise LayoutError(f"CopyAtomC's element type {catom_op.group(2)} has no known width")
    catom = tiled.make_tiled_copy_C_atom(atoms.find(_copy_op(catom_op.group(1))), catom_bits, mma)  # type: ignore[arg-type]
    out: dict[str, Any] = {"mma": mma, "c_atom": catom}
    for part, op, bits in (("r2s", "EPI_OP_R2S", "EPI_BITS_D"), ("s2r", "EPI_OP_S2R", "EPI_BITS_C")):
        # make_tiled_copy_S (copy_atom.hpp:429-436): the other TiledCopy's source TV layout and tiler.
        out[part] = tiled.TiledCopy(atoms.find(_copy_op(str(d[op]))), int(d[bits]),  # type: ignore[arg-type]
                                    catom.get_layoutS_TV(), catom.tiler_mn)
    return out


def _tiler_text(t: object) -> str:
    elements = getattr(t, "elements", t)
    return "(" + ",".join(str(e) for e in elements) + ")" if type(elements) is tuple else str(elements)


def _model_addresses(copy: Any, smem: Any, shape: tuple[int, int, int], bits: int, dst: bool, threads: int,
                     vals: int) -> list[list[int]]:
    """Each thread's byte offsets of its instructions' first elements, from the model: the thread's partition of
    the tile's coordinates (a compact (M,N,PIPE) layout), each coordinate through the smem layout
    (``swizzle.smem_bit_address``, the address ``make_tensor(make_smem_ptr(p), SMEM)`` gives)."""
    from verifier.core.integers import S
    from verifier.core.swizzle import smem_bit_address
    from verifier.notation.cpp import parse

    coords = parse(f"(_{shape[0]},_{shape[1]},_{shape[2]}):(_1,_{shape[0]},_{shape[0] * shape[1]})")
    out: list[list[int]] = []
    for t in range(threads):
        part = (copy.partition_D if dst else copy.partition_S)(coords, t)
        n = int(part.layout.size())
        out.append([int(smem_bit_address(smem, bits, part.offset + part.layout(S(i)))) // 8
                    for i in range(0, n, vals)])
    return out


def bank_check(name: str, copy: Any, smem_text: str, tile: list[str], stages: int, bits: int, dst: bool,
               printed: str, threads: int) -> dict[str, Any]:
    """One TiledCopy's smem accesses: the model's addresses equal to compiled CUTLASS's, and their wavefronts per
    warp and instruction (``banks.count``), every thread and instruction of the epilogue tile's stages.  Computed
    once a process for the same arguments (``parts.shared``; ``str(copy)`` names the TiledCopy's atom, value width,
    TV layout and tiler, all its partitions read)."""
    return parts.shared("bank check", lambda *_: _bank_check(name, copy, smem_text, tile, stages, bits, dst, printed,
                                                             threads),
                        name, str(copy), smem_text, tile, stages, bits, dst, printed, threads)


def _bank_check(name: str, copy: Any, smem_text: str, tile: list[str], stages: int, bits: int, dst: bool,
                printed: str, threads: int) -> dict[str, Any]:
    from verifier.algebra.tiled import TiledCopy
    from verifier.engine.banks import AccessModel, count
    from verifier.notation.cpp import parse

    assert isinstance(copy, TiledCopy)
    vals, compiled = _addresses(printed)
    smem = parse(smem_text)
    shape = (int(tile[0].strip("_")), int(tile[1].strip("_")), stages)
    model = _model_addresses(copy, smem, shape, bits, dst, threads, vals)
    equal = model == compiled
    access_bits = vals * bits
    out: dict[str, Any] = {"op": copy.atom.name, "tiler": _tiler_text(copy.tiler_mn), "tv": str(copy.layout_tv),
                           "addresses_equal": equal, "access_bits": access_bits, "threads": threads,
                           "instructions": len(compiled[0]) if compiled else 0, "derivation": "cutlass",
                           "kind": PERFORMANCE}
    if not equal:
        bad = next(t for t in range(min(len(model), len(compiled))) if model[t] != compiled[t]) \
            if len(model) == len(compiled) else 0
        return {**out, "verdict": "disagrees",
                "reason": f"thread {bad}: the model's addresses {model[bad][:8]} are not compiled CUTLASS's "
                          f"{compiled[bad][:8]}"}
    if access_bits not in (8, 16, 32, 64, 128):
        return {**out, "verdict": "unknown", "reason": f"an access of {access_bits} bits is not one instruction"}
    am = AccessModel(bits, access_bits)
    worst: tuple[int, dict[str, Any] | None] = (1, None)
    for w in range(0, threads, 32):
        for j in range(len(compiled[0])):
            for ph in count([compiled[t][j] for t in range(w, min(w + 32, threads))], am):
                if ph.wavefronts > worst[0]:
                    worst = (ph.wavefronts, {"warp": w // 32, "instruction": j, "bank": ph.bank,
                                             "threads": [w + ph.first_thread, w + ph.last_thread],
                                             "words": [[w + t, a] for t, a in ph.words]})
    out["wavefronts"] = worst[0]
    if worst[1] is None:
        return {**out, "verdict": "proved", "property": "conflict_free",
                "reason": "every phase of every warp's instruction takes one wavefront (counted exhaustively)"}
    return {**out, "verdict": "refuted", "property": "conflict_free", "witness": worst[1],
            "reason": f"{worst[0]}-way bank conflict"}


def partition_checks(d: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The R2S / S2R TiledCopies of the TMA epilogue: model equal to compiled CUTLASS, bank conflicts counted.  A
    function of the epilogue's printed types, which many keys share: computed once a process (``parts.shared``)."""
    return parts.shared(PARTITIONS, _partition_checks, d)


# ``partition_checks``' name for ``parts.shared``, and the printed types its answer is computed from (a sweep's
# decide phase computes it once for the keys that print the same ones: ``verify.problems_of``).
PARTITIONS = "epilogue partitions"


def partition_inputs(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k.startswith("EPI_")}


def _partition_checks(d: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    tile = _epi_tile(d)
    if not is_tma_epilogue(d) or tile is None or d.get("EPI_R2R") or "EPI_MMA_ATOM" not in d:
        return out
    copies = _tiled_copies(d)
    threads = mma_threads(d)
    catom = copies["c_atom"]
    out["epi_c_atom"] = {"verdict": "valid" if (str(catom.layout_tv), _tiler_text(catom.tiler_mn)) == (
        str(d["EPI_C_ATOM_TV"]), str(d["EPI_C_ATOM_TILER"])) else "disagrees", "derivation": "cutlass",
        "model": [str(catom.layout_tv), _tiler_text(catom.tiler_mn)],
        "cutlass": [str(d["EPI_C_ATOM_TV"]), str(d["EPI_C_ATOM_TILER"])]}
    for part, x, dst in (("r2s", "D", True), ("s2r", "C", False)):
        tag = f"EPI_{part.upper()}"
        if f"{tag}_ADDR" not in d:
            continue
        copy = copies[part]
        same = (str(copy.layout_tv), _tiler_text(copy.tiler_mn)) == (str(d[f"{tag}_TV"]), str(d[f"{tag}_TILER"]))
        stages = int(d["EPI_STAGES_C"] if x == "C" or d.get("EPI_REUSE_C") else d["EPI_STAGES_D"])
        if not same:
            out[f"epi_{part}"] = {"verdict": "disagrees", "derivation": "cutlass", "kind": PERFORMANCE,
                                  "model": [str(copy.layout_tv), _tiler_text(copy.tiler_mn)],
                                  "cutlass": [str(d[f"{tag}_TV"]), str(d[f"{tag}_TILER"])]}
            continue
        out[f"epi_{part}"] = bank_check(part, copy, str(d[f"EPI_SMEM_{x}"]), tile, stages, int(d[f"EPI_BITS_{x}"]),
                                        dst, str(d[f"{tag}_ADDR"]), threads)
    return out


def verify(fields: Mapping[str, Any], d: Mapping[str, Any], accept: Sequence[str],
           check: Callable[[Mapping[str, Any]], Any], verdict_json: Callable[[Any], dict[str, Any]],
           strides: Mapping[str, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The epilogue's checks (``check`` decides a problem, as ``verify_key`` does) and its findings to replay."""
    from verifier.engine.verdicts import INVALID, VALID

    checks: dict[str, Any] = {}
    findings: list[dict[str, Any]] = []
    probs = problems(fields, d, accept)
    for name, p in probs.items():
        v = check(p)
        c = {**verdict_json(v), "op": p["op"], "args": list(p["args"]), "derivation": "cutlass"}
        if name.startswith("epi_smem_"):
            x = name[-1]
            printed = str(d[f"EPI_SMEM_{x}"])
            c = {**c, "cutlass": printed, "equal": v.result == printed}
            if v.result != printed:
                c["verdict"] = "disagrees"
        checks[name] = c
        if name.startswith("epi_tma_") and not name.endswith("_aligned_strides"):
            if v.verdict == INVALID and v.counterexample is not None:
                findings.append({"kind": "accepted_but_wrong", "check": name, "part": "epilogue",
                                 "obligation": v.counterexample.obligation, "reason": v.reason,
                                 "witness": dict(v.counterexample.params)})
        elif name.endswith("_aligned_strides") and v.verdict == VALID:
            x = name.split("_")[2]
            unit = [i for i, a in enumerate(parts.top_args(strides[x])) if a == "cute::C<1>"]
            bits = int(d[f"EPI_BITS_{x}"])
            align = 128 // bits
            extent = ("M", "N", "L")[unit[0]] if unit else None
            if extent is not None and f"{extent} % {align} == 0" in accept:
                w = dict(zip(("M", "N", "K", "L"), parts.smallest(accept)))
                w[extent] = align + 1
                for n in p["names"] or []:
                    w[n] = 2 * align
                findings.append({"kind": "rejected_but_safe", "check": name, "part": "epilogue",
                                 "reason": f"can_implement requires {extent} % {align} == 0; the TMA box of {x} "
                                           f"needs only {' and '.join(p['assume'])}", "witness": w})
    if "epi_direct_D" in probs:
        checks["epi_direct_D"]["derivation"] = "cutlass"
    checks.update(partition_checks(d))
    return checks, findings


def query(w: Mapping[str, int], d: Mapping[str, Any], base: Sequence[int]) -> list[int]:
    """A compiled query at an epilogue witness: ``base`` (``verify._query``'s, whose A and B strides are aligned)
    with C's and D's strides the witness's where it names them, packed 16-byte multiples otherwise."""

    q = list(base)
    m, n = int(w.get("M", 1)), int(w.get("N", 1))
    for x, at in (("C", 10), ("D", 13)):
        if f"STRIDE_{x}" not in d:
            continue
        _, modes = parts.stride(str(d[f"STRIDE_{x}"]), (f"ld{x}", f"ld{x}", f"bs{x}"))
        bits = int(d.get(f"EPI_BITS_{x}", 16)) or 16
        align = max(1, 128 // bits)
        unit = [i for i, v in enumerate(modes) if v == 1]
        ld = -(-(m if unit == [0] else n) // align) * align
        packed = {f"ld{x}": ld, f"bs{x}": ld * (n if unit == [0] else m)}
        q[at:at + 3] = [v if isinstance(v, int) else int(w.get(v, packed[v])) for v in modes]
    return q
