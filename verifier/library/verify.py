"""``verify_key``: one key's layouts verified for every admitted problem, and compared with ``can_implement``.

The unit of work of a sweep: a pure function of its payload (plain data in, plain JSON data out), so that it
can run in any process.  The payload names the key, its fields, the configurations sharing it and the C++
instance of its representative; with ``derived`` (what ``derive.derive_many`` printed for it) the program is not
compiled again.

For an SM90 TMA + GMMA mainloop (``MainloopSm90TmaGmmaWarpSpecialized*``), per operand X in {A, B} of extents
(R, K, L), R = M or N, with the strides CUTLASS declares (``StrideX``: 64-bit, one of them the static ``_1``):

* ``smem``: ``tile_to_shape`` of the builder's smem atom over (BLK_R, BLK_K, Stages) in the order of
  sm90_mma_tma_gmma_ss_warpspecialized.hpp:128-135, which must print as compiled CUTLASS's ``SmemLayoutX``;
* ``gmma``: ``make_gmma_desc``'s canonical-layout check of one stage (``algebra.gmma.canonical_gmma``);
* ``tma``: the TMA box of one stage over the gmem tensor (R,K,L) (``make_tma_box``), and
* ``tiling``: ``local_tile(mX, TileShape, (_,_,_), Step)`` of the collective's ``load_init``,

the last two for every (M, N, K, L) and strides that ``can_implement`` accepts.  ``can_implement``'s acceptance
condition is its symbolic run's (``can_implement.section``: the kernel's own code on symbolic integers), or the
one read by hand from the headers (``acceptance``, ``ACCEPTANCE_SOURCES``) where that run fails, and the report
says which: a layout refuted under it is a problem that ``can_implement`` accepts and the kernel gets wrong,
replayed on compiled CUTLASS (``can_implement`` returns true there, and the mainloop's ``make_tma_copy`` fails
CuTe's host assert) before it is reported.

The epilogue's layouts (``epilogue.py``: smem, TMA boxes of C and D, the R2S / S2R partitions and their bank
conflicts, or the no-smem epilogue's predicated store) and the cp.async mainloop's (``sm90_cpasync.py``) are
checked by their own modules, called from here.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.algebra.gmma import canonical_gmma
from verifier.core.errors import LayoutError
from verifier.core.symbols import Symbol, declaration
from verifier.engine.problem import decide
from verifier.engine.verdicts import INVALID, VALID, Verdict
from verifier.library import can_implement, derive, epilogue, grouped, parts, sm90_cpasync, sm100
from verifier.library.parts import ACCEPTANCE_NOTE, ACCEPTANCE_SOURCES, INT32_MAX, NO_OVERFLOW, acceptance, problem
from verifier.notation.cpp import parse
from verifier.run.spec import Check

# The mainloop policies whose collective (sm90_mma_tma_gmma_ss_warpspecialized.hpp) the checks and the
# acceptance condition are read from; a policy with another collective (sparse, FP8, mixed input, rmem A,
# cp.async, ptr-array, SM100) is reported as not derived, with its name.
SUPPORTED_MAINLOOPS = ("cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<",
                       # sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp: the same smem layouts (130-137), load_init
                       # (295) and alignment checks (240-251); its other conjunct, the MMA promotion interval
                       # (253), is not about the problem's size.
                       "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedFP8<",
                       # the ptr-array collective of grouped kernels: the same smem layouts (129-137) and load_init
                       # (341-346) over one group's gmem tensor (grouped.py)
                       grouped.SM90_POLICY, grouped.SM90_BLOCKWISE_POLICY)


# Verdicts of the layout problems this process has decided: keys share most of them (the tiling depends only on
# the tile and the projection, the TMA box on the element width, the stage and the stride pattern). A verdict is
# a function of its problem, so reusing it changes no answer. A sweep shares them further: ``problem_id`` names a
# problem across processes, and a payload's ``verdicts`` (decided by ``decide_problem``) are used as they are.
_DECIDED: dict[tuple[object, ...], Verdict] = {}


def _symbols_of(p: Mapping[str, Any]) -> list[Symbol]:
    return [] if p["names"] is None else _symbols(p["names"])


def problem_id(p: Mapping[str, Any], tool: str | None, cutlass: str | None) -> str:
    """The second-level key: a digest of what the engine decides (op, operands, the symbols' declarations,
    assumptions) and the tool's and CUTLASS's versions; the check's display name is not part of it."""
    text = json.dumps({"op": p["op"], "args": p["args"], "symbols": [repr(s) for s in _symbols_of(p)],
                       "assume": p["assume"], "tool": tool, "cutlass": cutlass}, sort_keys=True)
    return "p" + hashlib.sha256(text.encode()).hexdigest()[:24]


def decide_problem(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The unit of work of a sweep's decide phase: one problem (``problem``'s data) decided, as the verdict's
    JSON (``Verdict.to_json``); or a check shared by keys (``SHARED``: ``op`` "shared"), as ``parts.shared_entry``'s
    answer (with ``error`` where the model cannot read its types: each key then computes it, and says why)."""
    if payload["op"] == "shared" and "entry" in payload:  # computed with the key's problems (``parts.recording``)
        return {"verdict": payload["entry"]}
    if payload["op"] == "shared":
        kind, compute = payload["args"][0], SHARED[payload["args"][0]]
        try:
            return {"verdict": parts.shared_entry(kind, compute, payload["inputs"], *payload["plain"])}
        except LayoutError as exc:
            return {"verdict": {"shared": kind, "error": str(exc)}}
    return {"verdict": _decide_cached(payload).to_json()}


# The checks ``verify_key`` computes through ``parts.shared`` that a sweep's decide phase computes once for every
# key printing the same types, by their name there: ``_shared_units`` lists a key's, ``decide_problem`` computes
# them, and ``verify_key`` primes its process with their answers (``parts.prime``).  The inputs a unit carries
# are the types its check reads (``partition_inputs``, ``layout_inputs``): a check that read anything else would
# have read it absent there, so that its answer is stored under that absence and answers no key that prints it.
SHARED: dict[str, Callable[..., Any]] = {epilogue.PARTITIONS: epilogue._partition_checks,
                                         sm100.LAYOUTS: sm100._layout_checks}


def _shared_units(d: Mapping[str, Any]) -> list[dict[str, Any]]:
    units: list[tuple[str, dict[str, Any], list[str]]] = []
    if epilogue.is_tma_epilogue(d) and not grouped.is_grouped(d):  # a grouped key's epilogue is not verified
        units.append((epilogue.PARTITIONS, epilogue.partition_inputs(d), []))
    if sm100.is_sm100(d):
        units += [(sm100.LAYOUTS, sm100.layout_inputs(d, x), [x]) for x in ("A", "B")]
    out = []
    for kind, inputs, plain in units:
        digest = hashlib.sha256(json.dumps([inputs, plain], sort_keys=True).encode()).hexdigest()
        out.append({**problem(kind, "shared", [kind, digest], None, []), "inputs": inputs, "plain": plain})
    return out


def _decide_cached(p: Mapping[str, Any]) -> Verdict:
    symbols = _symbols_of(p)
    memo = (p["op"], tuple(p["args"]), tuple(symbols), tuple(p["assume"]))
    if memo not in _DECIDED:
        _DECIDED[memo] = _decide(p["name"], p["op"], p["args"], symbols, p["assume"])
    return _DECIDED[memo]


def _check(p: Mapping[str, Any], verdicts: Mapping[str, Any] | None, tool: str | None,
           cutlass: str | None) -> Verdict:
    """``p``'s verdict: the one a sweep decided for it (``verdicts``, by ``problem_id``), else decided here."""
    if verdicts:
        got = verdicts.get(problem_id(p, tool, cutlass))
        if got is not None:
            return Verdict.from_json(got)
    return _decide_cached(p)


def _decide(name: str, op: str, args: Sequence[str], symbols: Sequence[Symbol], assume: Sequence[str]) -> Verdict:
    c = Check(name=name, op=op, is_property=False, args=tuple(args), expect="valid", timeout=None, file="library",
              line=0, assume=tuple(assume), symbols=tuple(symbols))
    return decide(c)


def _verdict(v: Verdict) -> dict[str, Any]:
    out: dict[str, Any] = {"verdict": v.verdict, "result": v.result, "reason": v.reason}
    if v.counterexample is not None:
        out["counterexample"] = v.counterexample.to_json()
    if v.guard is not None:
        out["guard"] = v.guard.condition
    out["warnings"] = [o.id for o in v.warnings]
    return out


def checks_epilogue_alignment(d: Mapping[str, Any]) -> bool:
    """Whether the kernel's epilogue checks C's and D's alignment in ``can_implement``: the TMA epilogue does
    (sm90_epilogue_tma_warpspecialized.hpp:324-350); a no-smem epilogue is CUTLASS's ``DefaultEpilogue`` (in an
    adapter), whose ``can_implement`` accepts every problem (default_epilogue.hpp:137-141).  ``d``: what compiled
    CUTLASS printed for the key (``EPI_DEFAULT``: its epilogue's type names ``DefaultEpilogue``)."""
    return not d.get("EPI_DEFAULT", 0)


def _symbols(names: Sequence[str]) -> list[Symbol]:
    out = [declaration(n) for n in ("M", "N", "K", "L")]
    return out + [declaration(n, lo=0, bits=64) for n in names if n not in ("M", "N", "K", "L")]


def _aligned_strides(params: Mapping[str, int], modes: Mapping[str, list[str | int]],
                     fields: Mapping[str, Any]) -> dict[str, int]:
    """Values for the stride symbols a witness leaves free: the other operand's, aligned to 16 bytes, so that a
    replay fails (or passes) for the operand the finding is about."""
    out: dict[str, int] = {}
    for x in ("A", "B"):
        bits = parts.BITS.get(str(fields[f"element_{x.lower()}"]), 16) or 16
        align = max(1, 128 // bits)
        for v in modes[x]:
            if isinstance(v, str) and v not in params:
                out[v] = 2 * align
    return out


def _query(params: Mapping[str, int], modes: Mapping[str, list[str | int]],
           strides_of: Mapping[str, int] | None = None) -> list[int]:
    """The 16 values of a compiled query at a counterexample: (M,N,K,L), then the strides of A, B, C, D (C and D
    packed column-major: can_implement never reads their values)."""
    free = dict(strides_of or {})

    def val(v: str | int) -> int:
        return v if isinstance(v, int) else int(params.get(v, free.get(v, 0)))
    m, n = int(params.get("M", 1)), int(params.get("N", 1))
    out = [int(params.get(s, 1)) for s in ("M", "N", "K", "L")]
    for x in ("A", "B"):
        out += [val(v) for v in modes[x]]
    return out + [1, m, m * n, 1, m, m * n]


def verify_key(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Verify one key (the module's docstring says what); plain JSON data out.  A layout the model cannot read
    yet makes the key "not derived", with the reason, never an error of the sweep."""
    try:
        return _verify_key(payload)
    except LayoutError as exc:
        return {"key": payload["key"], "representative": payload["representative"],
                "configs": list(payload["configs"]), "tool": payload.get("tool"), "cutlass": payload.get("cutlass"),
                "derived": payload.get("derived"), "status": "not derived", "reason": f"not modelled: {exc}"}


@dataclass(frozen=True)
class _Operand:
    """One operand's problems and what the verdicts are read against."""

    x: str
    extent: str  # M or N
    names: list[str]  # its stride symbols
    modes: list[str | int]  # its stride's modes: a symbol's name or a static value
    bits: int
    stage: str
    problems: dict[str, dict[str, Any]]  # smem, gmma is not one (decided without the solver), tma, tiling, ...
    derivation: dict[str, str]
    mma: str = "gmma"  # "umma": an SM100 mainloop (``sm100``), whose smem and descriptor checks are its own


def _operands(fields: Mapping[str, Any], d: Mapping[str, Any], assumed: Sequence[str] | None = None
              ) -> tuple[list[_Operand], dict[str, str], list[str]]:
    """The layout problems of a derived key (``d``: what compiled CUTLASS printed), per operand, with the
    strides' types and can_implement's condition (``assumed``, else the hand-read one): a function of ``fields``
    and ``d`` alone, so that a sweep lists them (``problems_of``) before any is decided."""
    strides = _strides(d)
    umma = sm100.is_sm100(d)
    if assumed is not None:
        accept = list(assumed)
    elif umma:
        accept = sm100.acceptance(fields, d, strides)
    else:
        accept = acceptance(fields, strides, checks_epilogue_alignment(d))
    tile = parse(str(d["TILE"]))
    blk = [str(t) for t in tile]  # type: ignore[union-attr]
    found: list[_Operand] = []
    for x, r, step in (("A", "M", "Step<_1,X,_1>"), ("B", "N", "Step<X,_1,_1>")):
        stride_text, modes = parts.stride(strides[x], (f"ld{x}", f"ld{x}", f"bs{x}"))
        names = [str(v) for v in modes if isinstance(v, str)]
        gmem = f"({r},K,{grouped.batch_extent(d)}):{stride_text}"  # a group's batch extent is _1
        bits = int(d[f"BITS_{x}"])
        blk_r = blk[0] if x == "A" else blk[1]
        probs = {} if umma else {"smem": problem(
            f"smem {x}", "tile_to_shape", [str(d[f"ATOM_{x}"]), f"({blk_r},{blk[2]},_{d['STAGES']})",
                                           parts.order(strides[x])], None, [])}
        # An SM100 CTA's stage is its share of the MMA tile (half of it for a 2SM MMA): sm100.stage
        stage = sm100.stage(d, x) if umma else parts.stage(str(d[f"ATOM_{x}"]), blk_r, blk[2], parts.order(strides[x]))
        # load_init tiles the TMA coordinate tensor (get_tma_tensor), whose strides are scaled bases: compiled
        # CUTLASS printed them at a sample problem (they are static, the same for every problem); without that
        # print, the gmem modes' order is written by hand.
        printed_coords = d.get(f"TMA_TENSOR_{x}")
        basis = str(printed_coords).split(":", 1)[1] if printed_coords else "(_1@0,_1@1,_1@2)"
        coords = f"({r},K,{grouped.batch_extent(d)}):{basis}"
        probs["tma"] = problem(f"tma {x}", "make_tma_box", [str(bits), stage, gmem], names, accept)
        probs["tiling"] = problem(f"tiling {x}", "local_tile", [coords, str(d["TILE"]), "(_,_,_)", step], names,
                                  accept)
        # The other direction: the TMA box needs aligned strides, not aligned extents. Decided without
        # can_implement's condition.
        if bits >= 8 and 128 % bits == 0:
            align = 128 // bits
            cond = [c for n in names for c in (f"{n} % {align} == 0", f"{n} <= {(2**43 - 1) // bits}")]
            probs["tma_aligned_strides"] = problem(f"tma {x} with aligned strides", "make_tma_box",
                                                   [str(bits), stage, gmem], names, cond)
        found.append(_Operand(x, r, names, modes, bits, stage, probs,
                              {"tma": "cutlass", "tiling": "cutlass" if printed_coords else "hand-derived"},
                              "umma" if umma else "gmma"))
    return found, strides, accept


def _strides(d: Mapping[str, Any]) -> dict[str, str]:
    return {x: str(d[f"STRIDE_{x}"]) for x in ("A", "B", "C", "D") if f"STRIDE_{x}" in d}


def epilogue_alone(fields: Mapping[str, Any], d: Mapping[str, Any]) -> bool:
    """Whether a key whose mainloop is not modelled has an epilogue ``epilogue.py`` verifies: a compiled instance
    with one plain stride per operand (not a grouped kernel's arrays) and an SM90 TMA or no-smem epilogue."""
    if d.get("REJECTED") or "Grouped" in str(fields.get("gemm_kind", "")):
        return False
    if not all(str(d.get(f"STRIDE_{x}", "")).startswith("cute::tuple<") for x in ("A", "B", "C", "D")):
        return False
    try:  # what the model cannot read makes the key not derived for its mainloop's reason, not this one's
        if epilogue.is_tma_epilogue(d) and "EPI_MMA_ATOM" in d and not d.get("EPI_R2R"):
            epilogue._tiled_copies(d)
        return bool(epilogue.problems(fields, d, []))
    except LayoutError:
        return False


def _derived_layouts(d: Mapping[str, Any]) -> str | None:
    """Why a derived key has no layout problems to verify (None: it has)."""
    if d.get("REJECTED"):
        return f"CUTLASS's instance did not compile: {d['REJECTED']}"
    mainloop = str(d.get("MAINLOOP", ""))
    if d.get("SHOW_ABORTED") and (sm100.is_sm100(d) or mainloop.startswith(SUPPORTED_MAINLOOPS)):
        return f"the derive program aborted on this key: {d['SHOW_ABORTED']}"
    if sm100.is_sm100(d):
        return sm100.not_derived(d)
    if not mainloop.startswith(SUPPORTED_MAINLOOPS) or "SMEM_A" not in d or "STRIDE_A" not in d:
        return f"mainloop {mainloop.split('<')[0]} not modelled yet"
    return None


def _route(fields: Mapping[str, Any], d: Mapping[str, Any]) -> tuple[str | None, bool, bool]:
    """How a derived key is verified, for ``problems_of`` and ``verify_key`` alike: why its mainloop's layouts are
    not derived (None: they are), whether it is a cp.async key, and whether its epilogue alone is verified.  A key
    whose printing died (``SHOW_ABORTED``) printed only part of its types: neither of the partial routes."""
    why = _derived_layouts(d)
    aborted = bool(d.get("SHOW_ABORTED"))
    cpasync = not aborted and sm90_cpasync.applies(d)
    alone = why is not None and not aborted and not cpasync and epilogue_alone(fields, d)
    return why, cpasync, alone


def compile_ahead(batch: Mapping[str, Any], keys: Mapping[str, Mapping[str, Any]],
                  derived: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the derive unit computes ahead of its batch's verifications, on its worker: the batch's symbolic
    ``can_implement`` program (``can_implement.compile_batch``, cached) when a key of the batch takes the route
    that runs it, so that the keys' verifications, on whichever workers, find it compiled (one compile a batch,
    off the verify units: measured on 64 workers, a key's verification 3.7 s of a worker while the first key of a
    batch on each worker compiled it); then each such key's ``can_implement.section``, by key, with the digest of
    its inputs (``can_implement.section_key``), handed on to the key's verification (``verify_key``'s
    ``can_implement_ahead``).  A batch's keys are neighbours in the derive order and take most of the same
    decisions: here the exploration's ~100 solver queries a key are answered once for the batch from the process's
    answers (``solver.paths.satisfy``), where the workers of a many-worker sweep, each seeing a key or two of a
    batch, asked each of them again.  What is computed and answered is unchanged; a compile that fails, or a
    symbolic run that fails, is left for ``verify_key`` to compute and report."""
    def symbolic(k: str, d: Mapping[str, Any]) -> bool:
        why, cpasync, alone = _route(keys[k]["fields"], d)
        return bool(keys[k]["fields"].get("is_3x", False)) and why is None and not cpasync and not alone
    mine = [k for k, d in derived.items() if symbolic(k, d)]
    if not mine:
        return {}
    include = Path(batch["include"]) if batch.get("include") else None
    instances = [derive.Instance(n, src) for n, src in batch["batch"]]
    try:
        can_implement.compile_batch(instances, include)
    except (RuntimeError, OSError, ValueError, subprocess.SubprocessError):
        return {}
    order = list(batch.get("keys") or derived)
    out: dict[str, dict[str, Any]] = {}
    for k in mine:
        try:
            _, strides, accept = _operands(keys[k]["fields"], derived[k])
        except LayoutError:  # verify_key reports it
            continue
        index = order.index(k)
        found, assumed = can_implement.section(instances, index, strides, accept, NO_OVERFLOW, include)
        if str(found.get("symbolic", "")).startswith("the symbolic run failed"):
            continue  # perhaps this worker's (a signal, the memory): the key's verification runs it again
        out[k] = {"key": can_implement.section_key(instances, index, strides, accept, NO_OVERFLOW, include),
                  "section": found, "assumed": assumed}
    return out


def _section(payload: Mapping[str, Any], batch: Sequence[derive.Instance], index: int, strides: Mapping[str, str],
             accept: Sequence[str], include: Path | None) -> tuple[dict[str, Any], list[str] | None]:
    """``can_implement.section`` of the key: the one its derive unit computed (``compile_ahead``) if the payload
    carries one computed from exactly these inputs, else computed here."""
    ahead = payload.get("can_implement_ahead")
    if isinstance(ahead, Mapping) and ahead.get("key") == can_implement.section_key(batch, index, strides, accept,
                                                                                    NO_OVERFLOW, include):
        assumed = ahead["assumed"]
        return dict(ahead["section"]), None if assumed is None else list(assumed)
    return can_implement.section(batch, index, strides, accept, NO_OVERFLOW, include)


def problems_of(payload: Mapping[str, Any], d: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The layout problems ``verify_key`` decides for a key whose derivation is ``d``, by ``problem_id`` (none
    for a key it does not verify: a 2.x kernel, a rejected instance, a mainloop not modelled, or a layout the
    model cannot read, which ``verify_key`` reports)."""
    why, cpasync, alone = _route(payload["fields"], d)
    if not payload["fields"].get("is_3x", False) or (why is not None and not cpasync and not alone):
        return {}
    with parts.recording() as computed:  # the smem stages computed here: handed on as they are
        try:
            ops, _, _ = ([], None, None) if cpasync or alone else _operands(payload["fields"], d)
        except LayoutError:
            return {}
        found = [p for op in ops for p in op.problems.values()]
        found += sm90_cpasync.problems(d).values() if cpasync else []
        accept = (sm90_cpasync.acceptance if cpasync else acceptance)(payload["fields"], _strides(d),
                                                                      checks_epilogue_alignment(d))
        found += [] if grouped.is_grouped(d) else epilogue.problems(payload["fields"], d, accept).values()
    found += _shared_units(d)
    for entry in computed:
        digest = hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()
        found.append({**problem(entry["shared"], "shared", [entry["shared"], digest], None, []), "entry": entry})
    return {problem_id(p, payload.get("tool"), payload.get("cutlass")): p for p in found}


def _verify_key(payload: Mapping[str, Any]) -> dict[str, Any]:
    start = time.monotonic()
    out: dict[str, Any] = {"key": payload["key"], "representative": payload["representative"],
                           "configs": list(payload["configs"]), "tool": payload.get("tool"),
                           "cutlass": payload.get("cutlass")}
    fields = payload["fields"]
    if not fields.get("is_3x", False):
        return {**out, "status": "not derived", "reason": "a CUTLASS 2.x kernel (not built from CuTe layouts)"}
    include = Path(payload["include"]) if payload.get("include") else None
    # The key's program: its own instance, or (``batch``, ``index``) the batch of instances a sweep's derive
    # phase compiled together, whose cached binary the replays then reuse.
    batch = [derive.Instance(n, src) for n, src in payload.get("batch") or
             [(payload["representative"], payload["source"])]]
    index = int(payload.get("index", 0))
    d = payload.get("derived")
    program = None
    if d is None:
        program = derive.compile_instances(batch, include)
        d = derive.show(program)[index]
    if d.get("CRASHED") and "MAINLOOP" not in d:
        # It died before its mainloop was printed: an error of the sweep, not a layout the model lacks (the record
        # names the key and batch). One that died later is "not derived" with CuTe's message (_derived_layouts).
        raise derive.Crashed(f"key {payload['key']}: {d['CRASHED']}")
    out["derived"] = d
    why, cpasync, alone = _route(fields, d)
    if why is not None and not cpasync and not alone:
        return {**out, "status": "not derived", "reason": why}
    verdicts = payload.get("verdicts")
    for shared in (verdicts or {}).values():  # the shared checks' answers (``SHARED``), for this process's memo
        if "shared" in shared and "error" not in shared:
            parts.prime(shared)
    tool, cutlass = payload.get("tool"), payload.get("cutlass")
    checks: dict[str, Any] = {}
    findings: list[dict[str, Any]] = []
    modes: dict[str, list[str | int]] = {}
    if cpasync:
        # The cp.async mainloop (sm90_cpasync.py): no TMA box nor TMA tiling; its smem layouts and gmem TiledCopies.
        ops: list[_Operand] = []
        strides = _strides(d)
        accept = sm90_cpasync.acceptance(fields, strides, checks_epilogue_alignment(d))
        modes = {x: parts.stride(strides[x], (f"ld{x}", f"ld{x}", f"bs{x}"))[1] for x in ("A", "B")}
        checks.update(sm90_cpasync.checks(fields, d, lambda p: _check(p, verdicts, tool, cutlass), _verdict,
                                          accept, payload["configs"]))
        findings += sm90_cpasync.findings(checks)
    elif alone:
        # A mainloop not modelled, with one of the verified epilogues: the epilogue alone, under the TMA mainloop's
        # hand-read condition (every finding is replayed on the kernel's own compiled can_implement).
        ops = []
        strides = _strides(d)
        accept = acceptance(fields, strides, checks_epilogue_alignment(d))
        modes = {x: parts.stride(strides[x], (f"ld{x}", f"ld{x}", f"bs{x}"))[1] for x in ("A", "B")}
    else:
        ops, strides, accept = _operands(fields, d)
    if cpasync or alone:
        # Their checks are stated under the hand-read condition (the cp.async mainloop's own, or the TMA one's).
        out["can_implement"] = {"condition": [*accept, *NO_OVERFLOW],
                                "sources": [sm90_cpasync.SOURCE + ":175-188", *ACCEPTANCE_SOURCES[2:]] if cpasync
                                else list(ACCEPTANCE_SOURCES), "note": ACCEPTANCE_NOTE, "derivation": "hand-read"}
    else:
        # can_implement's set from its symbolic run (can_implement.py); the hand-read one where that fails.
        symbolic, assumed = _section(payload, batch, index, strides, accept, include)
        if assumed is not None and assumed != accept:
            ops, strides, accept = _operands(fields, d, assumed)
        hand = symbolic["derivation"] == "hand-read"
        sources = grouped.sources(d) or (sm100.ACCEPTANCE_SOURCES if sm100.is_sm100(d) else ACCEPTANCE_SOURCES)
        out["can_implement"] = {"condition": [*accept, *NO_OVERFLOW] if hand else list(accept),
                                "sources": list(sources), "note": ACCEPTANCE_NOTE, **symbolic}
    for op in ops:
        x, r, names = op.x, op.extent, op.names
        modes[x] = op.modes
        if op.mma == "umma":
            checks.update(sm100.layout_checks(d, x))
        else:
            smem = str(d[f"SMEM_{x}"])
            tts = _check(op.problems["smem"], verdicts, tool, cutlass)
            checks[f"smem_{x}"] = {**_verdict(tts), "cutlass": smem, "equal": tts.result == smem,
                                   "derivation": "cutlass"}
            if tts.result != smem:
                # The model's tile_to_shape of the builder's atom is not the layout compiled CUTLASS built: the
                # derivation, not the kernel, is in question, so the key is undecided, never valid.
                checks[f"smem_{x}"]["verdict"] = "disagrees"
            major = "MN" if parts.top_args(strides[x])[0] == "cute::C<1>" else "K"
            can = canonical_gmma(parse(op.stage), op.bits, major)
            checks[f"gmma_{x}"] = {"verdict": VALID if can.accepted else INVALID, "reason": can.reason,
                                   "stage": op.stage, "derivation": "cutlass"}
        for part in ("tma", "tiling"):
            p = op.problems[part]
            v = _check(p, verdicts, tool, cutlass)
            checks[f"{part}_{x}"] = {**_verdict(v), "op": p["op"], "args": list(p["args"]),
                                     "derivation": op.derivation[part]}
            # Only a TMA finding has a compiled replay yet (CuTe's host asserts in make_tma_copy).
            if part == "tma" and v.verdict == INVALID and v.counterexample is not None:
                findings.append({"kind": "accepted_but_wrong", "check": f"{part}_{x}",
                                 "obligation": v.counterexample.obligation, "reason": v.reason,
                                 "witness": dict(v.counterexample.params)})
        # Where the box holds under aligned strides alone, a problem can_implement rejects (an unaligned extent)
        # with aligned strides is one the mainloop's layouts get right.
        if "tma_aligned_strides" in op.problems:
            align = 128 // op.bits
            p = op.problems["tma_aligned_strides"]
            cond = list(p["assume"])
            v = _check(p, verdicts, tool, cutlass)
            checks[f"tma_{x}_aligned_strides"] = {**_verdict(v), "op": "make_tma_box", "assume": cond,
                                                  "derivation": "cutlass"}
            unit = [i for i, a in enumerate(parts.top_args(strides[x])) if a == "cute::C<1>"]
            extent = (r, "K", "L")[unit[0]] if unit else None
            if v.verdict == VALID and extent is not None and not grouped.partial_acceptance(d):
                w = dict(zip(("M", "N", "K", "L"), parts.smallest(accept)))
                w[extent] = align + 1
                for n in names:
                    w[n] = 2 * align
                findings.append({"kind": "rejected_but_safe", "check": f"tma_{x}_aligned_strides",
                                 "reason": f"can_implement requires {extent} % {align} == 0; the TMA box of {x} "
                                           f"needs only {' and '.join(cond)}", "witness": w})
    # The epilogue (epilogue.py): its smem layouts, TMA boxes, R2S/S2R partitions and their bank conflicts, or the
    # predicated direct store of a no-smem epilogue.
    epi_checks, epi_findings = grouped.not_derived_parts(d) or epilogue.verify(
        fields, d, accept, lambda p: _check(p, verdicts, tool, cutlass), _verdict, strides)
    checks.update(epi_checks)
    # A "rejected but safe" replay needs can_implement's rejection to be the epilogue's: where the mainloop's own
    # condition is not modelled, its rejection cannot be told apart, so none is reported.
    findings += [f for f in epi_findings if not (alone and f["kind"] == "rejected_but_safe")]
    out["checks"] = checks
    if findings:
        program = program or derive.compile_instances(batch, include)
        for f in findings:
            w = dict(f["witness"])
            ext = [int(w.get(s, 1)) for s in ("M", "N", "K", "L")]
            note = None
            if max(ext[0] * ext[2], ext[1] * ext[2], ext[0] * ext[1]) * ext[3] > INT32_MAX:
                for s_, c in zip(("M", "N", "K", "L"), parts.smallest(accept)):
                    w[s_] = c
                note = "extents reduced to the smallest admitted: can_implement's size(shape) overflows int there"
            q = _query(w, modes, strides_of=_aligned_strides(w, modes, fields))
            part = f.get("part", "mainloop")
            if part == "epilogue":
                q = epilogue.query(w, d, q)
            if part == "predication":
                # cp.async's residue predication: compiled can_implement, then load()'s statements compiled
                accepted = program.accepts([(index, q)])[0]
                f["replay"] = {"query": q, "can_implement": accepted, "note": note,
                               **sm90_cpasync.replay(batch, index, f["matrix"], w, include, f["first_k_tile"],
                                                     f["splits"])}
                f["confirmed"] = accepted == 1 and f["replay"]["out_of_bounds"] + f["replay"]["not_read"] > 0
                continue
            accepted = program.accepts([(index, q)])[0]
            builds, message = program.builds_tma(index, q, part)
            f["replay"] = {"query": q, "can_implement": accepted, "make_tma_copy_returns": builds,
                           "cute": message, "note": note}
            f["confirmed"] = (accepted == 1 and not builds and message != derive.NOT_RUN) if (
                f["kind"] == "accepted_but_wrong") else (
                accepted == 0 and builds)
    _replay_differences(out["can_implement"], ops, lambda: program or derive.compile_instances(batch, include),
                        index)
    out["findings"] = findings
    # A bank conflict (epilogue.PERFORMANCE) slows a kernel, it does not make it wrong: not part of the verdict.
    bad = [k for k, c in checks.items() if c["verdict"] not in (VALID, "proved")
           and not (c.get("kind") == epilogue.PERFORMANCE and c["verdict"] == "refuted")]
    out["status"] = "verified"
    out["verdict"] = INVALID if any(f.get("confirmed") for f in findings) else (VALID if not bad else "unknown")
    if alone:
        # Its mainloop's layouts are not checked: the key is not derived, its epilogue's checks and findings kept.
        out["status"], out["reason"] = "not derived", f"{why}; its epilogue verified"
        if out["verdict"] == VALID:
            out["verdict"] = "unknown"
    out["seconds"] = round(time.monotonic() - start, 2)
    return out


def _replay_differences(section: dict[str, Any], ops: Sequence[_Operand], compiled: Any, index: int) -> None:
    """Each point where the symbolic set and the hand-read condition differ, run on compiled ``can_implement``
    (``compiled()``: the key's program): compiled CUTLASS, not the reading, says which is right."""
    diffs = [diff for part in ("versus_hand_read", "versus_hand_read_with_zero_extents")
             for mode in section.get(part, {}).values() for diff in mode["differences"]]
    if not diffs:
        return
    program = compiled()
    modes = {op.x: op.modes for op in ops}
    for diff in diffs:
        q = _query(diff["witness"], modes)
        diff["replay"] = {"query": q, "can_implement": program.accepts([(index, q)])[0]}


def payload_errors(payload: Mapping[str, Any]) -> None:
    for k in ("key", "fields", "representative", "configs", "source"):
        if k not in payload:
            raise LayoutError(f"library payload: missing {k!r}")
