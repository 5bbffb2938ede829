"""SM100 TMA + UMMA warp-specialized mainloops (``MainloopSm100TmaUmmaWarpSpecialized``, the collective of
cutlass/gemm/collective/sm100_mma_warpspecialized.hpp, 1SM and 2SM), verified as ``verify`` verifies the SM90
TMA + GMMA ones, from what compiled CUTLASS printed (``derive``'s program, with ``sm100_show``'s lines).

Per operand X in {A, B} of extents (R, K, L), with MMA shape ((MMA_R, MMA_K), n_R, n_K) = ``partition_shape_X``
(the per-CTA share of the tile: half of it for a 2SM MMA) and ``Stages``:

* ``smem``: ``UMMA::tile_to_mma_shape`` (mma_traits_sm100.hpp:113-121): ``tile_to_shape`` of the builder's atom over
  ((MMA_R, n_R), (MMA_K, n_K), Stages) in the collective's order (sm100_mma_warpspecialized.hpp:178-186), then
  ``tiled_divide`` by (MMA_R, MMA_K): must print as compiled CUTLASS's ``SmemLayoutX``;
* ``umma``: ``UMMA::make_umma_desc<Major>`` on mode 0 of a stage, the tensor ``TiledMma::make_fragment_X`` hands it
  (mma_traits_sm100.hpp:367-377): the model's ``canonical_umma`` (``algebra.gmma``), whose layout type, SBO and LBO
  must be the descriptor compiled CUTLASS built;
* ``tma_basis``: the model's TMA box of one stage in (R, K) coordinates (``tile_to_shape`` of the atom over
  (MMA_R * n_R, MMA_K * n_K)) at a sample problem, equal to the basis compiled CuTe's ``construct_tma_gbasis`` built
  from the mainloop's own ``cta_v_tile`` (``make_tma_atom_X_sm100``: a CTA's values, the 2SM half included), and
  the multicast truncation of that box (copy_traits_sm90_tma.hpp:990-1006) passing CuTe's asserts;
* ``tma``, ``tiling``, ``tma_aligned_strides``: the problems of ``verify._operands`` (the box of that stage for every
  admitted M, N, K, L and 64-bit stride; ``local_tile`` of the TMA coordinate tensor by the whole ``TileShape``,
  sm100_mma_warpspecialized.hpp:509-510, whose 2SM tile is the CTA pair's).

``can_implement`` (hand-read, ``ACCEPTANCE_SOURCES``): the kernel's mode check, the mainloop's 128-bit alignment of
A's and B's unit-stride extents, and the TMA epilogue's of C and D; the no-smem epilogues' conjuncts (on M and N
only) are left out, a weaker assumption (every finding is replayed on compiled ``can_implement``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from verifier.algebra.gmma import UMMA_LAYOUT_CODES, canonical_umma
from verifier.algebra.registry import apply
from verifier.core.errors import LayoutError
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout
from verifier.core.symbols import Symbols
from verifier.engine.verdicts import INVALID, VALID
from verifier.library import grouped, parts
from verifier.notation.cpp import parse
from verifier.run import problems as run_problems

# and the ptr-array collectives of grouped kernels, plain and blockwise-scaled (sm100_mma_array_warpspecialized*.hpp:
# the same smem layouts, TMA atoms and load_init, over one group: grouped.py)
MAINLOOPS = ("cutlass::gemm::MainloopSm100TmaUmmaWarpSpecialized<", grouped.SM100_POLICY,
             grouped.SM100_BLOCKWISE_POLICY, grouped.SM100_BLOCKSCALED_POLICY)
ACCEPTANCE_SOURCES = (
    "cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp:302-337",
    "cutlass/gemm/collective/sm100_mma_warpspecialized.hpp:419-440",
    "cutlass/epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp:336-375",
    "cutlass/detail/layout.hpp:372-415",
)
# The sample problem sm100_show's TMA basis is built at: (R, K, L) = (1024, 1024, 2), packed strides.
SAMPLE_EXTENTS = (1024, 1024, 2)
SAMPLE_STRIDES = (1024, 1024, 1024 * 1024)
_TMA_EPILOGUE = "cutlass::epilogue::Sm100TmaWarpSpecialized"


def is_sm100(d: Mapping[str, Any]) -> bool:
    return str(d.get("MAINLOOP", "")).startswith(MAINLOOPS)


def not_derived(d: Mapping[str, Any]) -> str | None:
    """Why an SM100 UMMA key is not verified (None: it is)."""
    for x in ("A", "B"):
        if f"BITS_{x}" in d and int(d[f"BITS_{x}"]) < 8:
            return (f"{d[f'BITS_{x}']}-bit {x} (the f8f6f4 16U4/16U6 smem formats and their 64/96-byte alignment): "
                    "not modelled yet")
    need = ("SMEM_A", "SMEM_B", "ATOM_A", "ATOM_B", "STRIDE_A", "STRIDE_B", "MMA_SHAPE_A", "MMA_SHAPE_B",
            "UMMA_DESC_A", "UMMA_DESC_B", "BITS_A", "BITS_B")
    missing = [t for t in need if t not in d]
    if missing:
        return f"mainloop {str(d.get('MAINLOOP', '')).split('<')[0]}: compiled CUTLASS printed no {missing[0]}"
    return None


def acceptance(fields: Mapping[str, Any], d: Mapping[str, Any], strides: Mapping[str, str]) -> list[str]:
    """can_implement's condition (``ACCEPTANCE_SOURCES``): A's and B's unit-stride extent a multiple of 128 bits of
    the element compiled CUTLASS printed (``BITS_X``: runtime-typed f8 included), C's and D's for the TMA epilogue."""
    extents = {"A": ("M", "K", "L"), "B": ("N", "K", "L")}
    conds: list[str] = []
    for x in ("A", "B"):
        unit = [i for i, a in enumerate(parts.top_args(strides[x])) if a == "cute::C<1>"]
        if unit:
            conds.append(f"{extents[x][unit[0]]} % {128 // int(d[f'BITS_{x}'])} == 0")
    if str(d.get("EPI_POLICY", "")).startswith((_TMA_EPILOGUE, *grouped.TMA_EPILOGUES)):
        # C's and D's conjuncts: verify.acceptance's, without A and B (a void element has none)
        conds += parts.acceptance({**fields, "element_a": "void", "element_b": "void"}, strides, True)
    return sorted(set(conds))


def _mma_shape(text: str) -> tuple[int, int, int, int]:
    """((MMA_R, MMA_K), n_R, n_K) as printed (``MMA_SHAPE_X``)."""
    m = re.fullmatch(r"\(\(_(\d+),_(\d+)\),_(\d+),_(\d+)\)", text.strip())
    if not m:
        raise LayoutError(f"SM100 MMA shape {text!r}: not ((MMA_R,MMA_K),n_R,n_K)")
    a, b, c, e = (int(g) for g in m.groups())
    return a, b, c, e


def _apply(op: str, *args: str) -> object:
    return apply(op, *run_problems.operands(op, list(args), Symbols())).result


def smem_model(d: Mapping[str, Any], x: str) -> str:
    """``UMMA::tile_to_mma_shape(atom, append(MmaShape, Stages), order)`` in the model."""
    a, b, c, e = _mma_shape(str(d[f"MMA_SHAPE_{x}"]))
    mn = _apply("tile_to_shape", str(d[f"ATOM_{x}"]), f"((_{a},_{c}),(_{b},_{e}),_{d['STAGES']})",
                parts.order(str(d[f"STRIDE_{x}"])))
    return str(_apply("tiled_divide", str(mn), f"(_{a},_{b})"))


def stage(d: Mapping[str, Any], x: str) -> str:
    """One stage of the CTA's smem in (R, K) coordinates: what the TMA box is built from."""
    a, b, c, e = _mma_shape(str(d[f"MMA_SHAPE_{x}"]))
    return parts.stage(str(d[f"ATOM_{x}"]), f"_{a * c}", f"_{b * e}", parts.order(str(d[f"STRIDE_{x}"])))


def _major(stride_type: str) -> str:
    return "MN" if parts.top_args(stride_type)[0] == "cute::C<1>" else "K"


def umma_check(d: Mapping[str, Any], x: str, smem: str) -> dict[str, Any]:
    """The model's ``make_umma_desc`` on mode 0 of the smem layout, against the descriptor compiled CUTLASS built."""
    a, b, _, _ = _mma_shape(str(d[f"MMA_SHAPE_{x}"]))
    tile = parse(smem)
    if not (isinstance(tile, ComposedLayout) and isinstance(tile.inner, Layout)):
        raise LayoutError(f"SM100 smem layout {smem!r}: not Sw o smem_ptr o L")
    inner = tile.inner
    mode0 = ComposedLayout(tile.outer, tile.offset, Layout(inner.shape[0], inner.stride[0]))  # type: ignore[index]
    can = canonical_umma(mode0, int(d[f"BITS_{x}"]), _major(str(d[f"STRIDE_{x}"])), k_block=b)
    code, sbo, lbo = (int(v) for v in str(d[f"UMMA_DESC_{x}"]).split())
    model = (UMMA_LAYOUT_CODES.get(can.layout_type or "", -1), can.stride_byte_offset, can.leading_byte_offset)
    equal = can.accepted and model == (code, sbo, lbo)
    return {"verdict": (VALID if equal else "disagrees") if can.accepted else INVALID, "reason": can.reason,
            "tile": str(mode0), "mma": f"({a},{b})", "model": {"layout_type": can.layout_type, "sbo": model[1],
                                                               "lbo": model[2]},
            "cutlass": {"layout_type": code, "sbo": sbo, "lbo": lbo}, "equal": equal, "derivation": "cutlass"}


_BASIS = re.compile(r"^\(([^()]*)\):\(([^()]*)\)$")


def _basis(text: str) -> list[tuple[int, int, int]] | None:
    """A flat TMA basis ``(s0,s1,..):(k0@i0,...)`` as (size, scale, gmem mode) per mode (None: not flat)."""
    m = _BASIS.match(text.strip())
    if not m:
        return None
    out = []
    for size_, stride_ in zip(m.group(1).split(","), m.group(2).split(",")):
        sm = re.fullmatch(r"_?(\d+)", size_)
        bm = re.fullmatch(r"_?(\d+)@(\d+)", stride_)
        if not sm:
            return None
        if bm:
            out.append((int(sm.group(1)), int(bm.group(1)), int(bm.group(2))))
        elif stride_ in ("_0", "0"):
            out.append((int(sm.group(1)), 0, 0))
        else:
            return None
    return out


def _flat(layout: Layout) -> list[tuple[int, int]] | None:
    """A flat layout's (size, stride) per mode (None: a nested or symbolic one)."""
    shape, stride = layout.shape, layout.stride
    pairs = list(zip(shape, stride)) if isinstance(shape, tuple) and isinstance(stride, tuple) else [(shape, stride)]
    try:
        return [(int(a), int(b)) for a, b in pairs]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _truncate(box: list[int], multicast: int) -> tuple[list[int], str | None]:
    """make_tma_copy_desc's truncation of the box by the multicast count (copy_traits_sm90_tma.hpp:990-1006), with
    the assert that fails (None: they hold)."""
    out = list(box)
    i = len(out) - 1
    while multicast > 1 and i >= 0:
        if not (out[i] % multicast == 0 or multicast % out[i] == 0):
            return out, "smem_box_shape[i] % multicast == 0 || multicast % smem_box_shape[i] == 0"
        new = -(-multicast // out[i])
        out[i] = -(-out[i] // multicast)
        multicast = new
        i -= 1
    for v in out:
        if not 1 <= v <= 256:
            return out, "smem_box_shape[i] <= 256"
    return out, None


def tma_basis_check(d: Mapping[str, Any], x: str, stage_text: str) -> dict[str, Any]:
    """The model's box of ``stage_text`` at the sample problem against compiled CuTe's TMA basis."""
    printed = d.get(f"TMA_BASIS_{x}")
    basis = _basis(str(printed)) if printed else None
    if basis is None:
        return {"verdict": "unknown", "reason": f"compiled CuTe's TMA basis not read ({printed!r})",
                "derivation": "cutlass"}
    _, modes = parts.stride(str(d[f"STRIDE_{x}"]), ("s0", "s1", "s2"))
    sample = [v if isinstance(v, int) else SAMPLE_STRIDES[i] for i, v in enumerate(modes)]
    gmem = "(" + ",".join(str(e) for e in SAMPLE_EXTENTS) + "):(" + ",".join(
        f"_{v}" if isinstance(m, int) else str(v) for v, m in zip(sample, modes)) + ")"
    box = _apply("make_tma_box", str(d[f"BITS_{x}"]), stage_text, gmem)
    layout = getattr(box, "box", None)
    model = _flat(layout) if isinstance(layout, Layout) else None
    cutlass = [(n, k * sample[i]) for n, k, i in basis]
    boxes: dict[int, list[int]] = {}
    failed = None
    for multicast in multicasts(d, x):
        boxes[multicast], fails = _truncate([n for n, _, _ in basis], multicast)
        failed = failed or (f"{fails} (multicast over {multicast} CTAs)" if fails else None)
    equal = model == cutlass
    verdict = "disagrees" if not equal else (INVALID if failed else VALID)
    return {"verdict": verdict, "model": str(box), "cutlass": str(printed), "gmem": gmem, "equal": equal,
            "multicast": sorted(boxes), "box_after_multicast": {str(k): v for k, v in sorted(boxes.items())},
            "reason": failed or ("the model's box is compiled CuTe's" if equal else
                                 f"model {model} != compiled {cutlass}"),
            "derivation": "cutlass"}


# can_implement's bound on a run-time cluster (sm100_gemm_tma_warpspecialized.hpp:313-318, detail/cluster.hpp:70-95):
# at most 16 CTAs, each extent a power of 2, x a multiple of the MMA's CTAs.
MAX_CLUSTER = 16


def multicasts(d: Mapping[str, Any], x: str) -> list[int]:
    """The multicast counts ``make_tma_atom_X_sm100`` may truncate X's box by: the one compiled CUTLASS printed for
    a static cluster (``TMA_MCAST_X``); for a run-time cluster, every count an admitted cluster gives a multicast
    copy op (A over the cluster's N extent y, B over its M extent x / V, copy_traits_sm100_tma.hpp:421-433)."""
    if f"TMA_MCAST_{x}" in d:
        return [int(d[f"TMA_MCAST_{x}"])]
    if "MULTICAST" not in str(d.get(f"COPY_{x}", "")):
        return [1]
    v = int(d.get("ATOM_THR", 1))
    return [1 << i for i in range(8) if (1 << i) * v <= MAX_CLUSTER]


def _tree(text: str) -> object:
    """A printed nested tuple ``(a,(b,c))`` as nested lists of its leaves' text."""
    stack: list[list[object]] = [[]]
    leaf = ""
    for ch in text.strip():
        if ch == "(":
            stack.append([])
        elif ch in ",)":
            if leaf:
                stack[-1].append(leaf)
                leaf = ""
            if ch == ")":
                done = stack.pop()
                stack[-1].append(done)
        else:
            leaf += ch
    if leaf:
        stack[-1].append(leaf)
    return stack[0][0] if len(stack[0]) == 1 else stack[0]


def _leaves(tree: object) -> list[str]:
    return [str(tree)] if not isinstance(tree, list) else [v for t in tree for v in _leaves(t)]


def _coords(text: str) -> set[tuple[int, int]] | None:
    """The (row, column) coordinates a printed coordinate layout (``shape:stride``, strides ``_k@i`` or ``_0``)
    takes over its whole domain (None: a form this reader does not take)."""
    if ":" not in text:
        return None
    shape_text, stride_text = text.split(":", 1)
    sizes, strides = _leaves(_tree(shape_text)), _leaves(_tree(stride_text))
    if len(sizes) != len(strides):
        return None
    steps: list[tuple[int, int, int]] = []
    for n, st in zip(sizes, strides):
        sm, bm = re.fullmatch(r"_?(\d+)", n), re.fullmatch(r"_?(\d+)(?:@([01]))?", st)
        if not sm or not bm or (bm.group(2) is None and bm.group(1) != "0"):
            return None
        steps.append((int(sm.group(1)), int(bm.group(1)), int(bm.group(2) or 0)))
    points = {(0, 0)}
    for size_, k, i in steps:
        points = {(p[0] + j * k * (i == 0), p[1] + j * k * (i == 1)) for p in points for j in range(size_)}
    return points


def pair_check(d: Mapping[str, Any], x: str) -> dict[str, Any]:
    """The CTAs of the MMA (two for 2SM) partition the tile ``local_tile`` gives the pair: compiled CUTLASS's
    partition (``CTA_T_X`` + ``CTA_V_X``, ``TiledMma::thrfrg_X``) takes every coordinate of (BLK_R, BLK_K) once."""
    t, v = d.get(f"CTA_T_{x}"), d.get(f"CTA_V_{x}")
    tile = [int(n) for n in re.findall(r"\d+", str(d.get("TILE", "")))]
    ts, vs = _coords(str(t)) if t else None, _coords(str(v)) if v else None
    if ts is None or vs is None or len(tile) != 3:
        return {"verdict": "unknown", "reason": f"compiled CUTLASS's partition not read ({t!r}, {v!r})",
                "derivation": "cutlass"}
    rows, cols = (tile[0] if x == "A" else tile[1]), tile[2]
    covered = [(a[0] + b[0], a[1] + b[1]) for a in ts for b in vs]
    want = {(r, c) for r in range(rows) for c in range(cols)}
    ok = len(covered) == len(set(covered)) == len(want) and set(covered) == want
    return {"verdict": VALID if ok else INVALID, "ctas": len(ts), "tile": [rows, cols],
            "reason": (f"the {len(ts)} CTA(s) of the MMA take each coordinate of the {rows}x{cols} tile once" if ok
                       else f"the CTAs' coordinates ({len(covered)}, {len(set(covered))} distinct) are not the "
                            f"{rows}x{cols} tile"),
            "cta": str(t), "values": str(v), "derivation": "cutlass"}


def layout_checks(d: Mapping[str, Any], x: str) -> dict[str, dict[str, Any]]:
    """The SM100 checks without symbols (smem, UMMA descriptor, TMA basis) of operand ``x``: a function of the
    operand's printed types, which many keys share, computed once a process (``parts.shared``)."""
    return parts.shared(LAYOUTS, _layout_checks, d, x)


# ``layout_checks``' name for ``parts.shared``, and the printed types its answer is computed from (a sweep's decide
# phase computes it once for the keys that print the same ones: ``verify.problems_of``).
LAYOUTS = "sm100 layouts"


def layout_inputs(d: Mapping[str, Any], x: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k.endswith(f"_{x}") or k in ("STAGES", "TILE", "ATOM_THR")}


def _layout_checks(d: Mapping[str, Any], x: str) -> dict[str, dict[str, Any]]:
    smem = str(d[f"SMEM_{x}"])
    model = smem_model(d, x)
    out: dict[str, dict[str, Any]] = {
        f"smem_{x}": {"verdict": VALID if model == smem else "disagrees", "result": model, "cutlass": smem,
                      "equal": model == smem, "derivation": "cutlass"}}
    out[f"umma_{x}"] = umma_check(d, x, model)
    out[f"tma_basis_{x}"] = tma_basis_check(d, x, stage(d, x))
    out[f"cta_pair_{x}"] = pair_check(d, x)
    return out
