"""Issue 30's cross-check: SM90 configurations that ``verify_key`` derives from compiled CUTLASS, against the same
kernels written by hand as spec files (tests/library/data/sm90_cross_check/, one file per kernel; its
``write_specs.py`` says how each layout was read from CUTLASS's builders).

Part by part: the smem layout (the spec's ``tile_to_shape`` of the builder's atom over (BLK, BLK_K, Stages), the
text its description states, verify_key's model and compiled CUTLASS's ``SmemLayoutX``), the GMMA canonical check
of one stage, and the TMA box (under can_implement's condition, and under aligned strides alone) and the CTA
tiling: the spec check, loaded by the normal spec loader and decided by the engine, has the same operands, the
verdict the file expects, verify_key's verdict and verify_key's guard.  can_implement's acceptance is compared
with the hand-read one of the spec file, and both against compiled ``can_implement``.

The default run takes two kernels (f16 with no-smem epilogues: one with an MN-major A, one K-major, where the
finding below shows); ``-m long`` takes all twenty.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from verifier.algebra.gmma import canonical_gmma
from verifier.engine.problem import decide
from verifier.engine.verdicts import Verdict
from verifier.library import derive
from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group
from verifier.library.verify import NO_OVERFLOW, verify_key
from verifier.notation.cpp import parse
from verifier.run.spec import Check, load_suite

DATA = Path(__file__).parent / "data" / "sm90_cross_check"
KERNELS = sorted(p.name[:-len(".spec.toml")] for p in DATA.glob("*.spec.toml"))
DEFAULT = ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f32_64x256x64_1x2x1_0_nnn_align8_warpspecialized_"
           "pingpong_epi_nosmem",
           "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_tnn_align8_warpspecialized_epi_nosmem")
# A kernel with a TMA epilogue (C and D alignment in can_implement), for the acceptance test.
TMA_EPILOGUE = ("cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_"
                "cooperative_epi_tma")
PARTS = ("tma {x}", "tma {x} with aligned strides", "tiling {x}")
KEYS = {"tma {x}": "tma_{x}", "tma {x} with aligned strides": "tma_{x}_aligned_strides", "tiling {x}": "tiling_{x}"}


def test_the_sample_is_twenty_kernels_of_the_verified_mainloops() -> None:
    assert len(KERNELS) >= 20 and set(DEFAULT) <= set(KERNELS)
    layouts = {re.search(r"_([tn]{2})n_align", k).group(1) for k in KERNELS}  # type: ignore[union-attr]
    assert layouts == {"tn", "nt", "nn", "tt"}
    types = {k.split("_")[4] for k in KERNELS}
    assert {"f16", "bf16", "f32", "tf32", "e4m3"} <= types


@cache
def _verified(kernel: str) -> dict[str, Any]:
    e = enumerate_gemms("90a", kernel)
    (g,) = [g for g in group(e.configs, "tool", "4.2.0") if g.representative == kernel]
    return verify_key({"key": g.key, "fields": g.fields, "representative": g.representative,
                       "configs": list(g.configs), "source": e.source(g.representative)})


def _spec(kernel: str) -> dict[str, Check]:
    return {c.name: c for c in load_suite(DATA / f"{kernel}.spec.toml")}


def _described(check: Check) -> dict[str, str]:
    text = check.description or ""
    m = re.fullmatch(r"SmemLayout[AB] = (.*); one stage = (.*); make_gmma_desc<(K|MN)> accepts the stage", text)
    assert m, f"{check.id}: the description states the smem layout, the stage and the GMMA major"
    return {"smem": m.group(1), "stage": m.group(2), "major": m.group(3)}


def _acceptance(check: Check) -> set[str]:
    return set(check.assume)


def _moduli(cond: set[str]) -> dict[str, int]:
    """A conjunction of ``X % c == 0`` as each extent's modulus (the lcm of its conjuncts): two conjunctions
    admit the same problems exactly when their moduli are equal."""
    out: dict[str, int] = {}
    for c in cond:
        m = re.fullmatch(r"([MNKL]) % (\d+) == 0", c)
        assert m, f"not a divisibility conjunct: {c!r}"
        out[m.group(1)] = math.lcm(out.get(m.group(1), 1), int(m.group(2)))
    return out


# Spec checks of different kernels often state the same problem (the same tile, stage and strides): each is decided
# once per process. A verdict is a function of its problem, so sharing it changes no answer.
_DECIDED: dict[tuple[object, ...], Verdict] = {}


def _decide(check: Check) -> Verdict:
    memo = (check.op, check.args, check.assume, check.symbols, check.relations)
    if memo not in _DECIDED:
        _DECIDED[memo] = decide(check)
    return _DECIDED[memo]


def cross_check(kernel: str) -> dict[str, Any]:
    """Every part of ``kernel``: the spec file's answer and verify_key's, and which agree."""
    r = _verified(kernel)
    assert r["status"] == "verified", r.get("reason")
    spec = _spec(kernel)
    d = r["derived"]
    out: dict[str, Any] = {}
    for x in ("A", "B"):
        smem = spec[f"smem {x}"]
        said = _described(smem)
        v = _decide(smem)
        out[f"smem_{x}"] = (said["smem"], str(v.result), r["checks"][f"smem_{x}"]["result"], d[f"SMEM_{x}"])
        bits = int(spec[f"tma {x}"].args[0])
        can = canonical_gmma(parse(said["stage"]), bits, said["major"])
        # The spec states that make_gmma_desc accepts the stage: expected valid, decided, verify_key's.
        out[f"gmma_{x}"] = ((said["stage"], "valid", "valid" if can.accepted else "invalid"),
                           (r["checks"][f"gmma_{x}"]["stage"], r["checks"][f"gmma_{x}"]["verdict"],
                            r["checks"][f"gmma_{x}"]["verdict"]))
        for part in PARTS:
            c = spec[part.format(x=x)]
            mine = r["checks"][KEYS[part].format(x=x)]
            v = _decide(c)
            guard = v.guard.condition if v.guard is not None else None
            out[KEYS[part].format(x=x)] = ((list(c.args), c.expect, v.verdict, guard),
                                           # the aligned-strides box has the operands of the box under
                                           # can_implement's condition (verify_key records them there)
                                           (mine.get("args", r["checks"][f"tma_{x}"]["args"]), mine["verdict"],
                                            mine["verdict"], mine.get("guard")))
            if part == "tma {x} with aligned strides":
                out[f"assume_{KEYS[part].format(x=x)}"] = (set(c.assume), set(mine["assume"]))
    spec_accept = _acceptance(spec["tma A"])
    out["can_implement"] = (_moduli(spec_accept), _moduli(set(r["can_implement"]["condition"]) - set(NO_OVERFLOW)))
    return out


def _agree(parts: Mapping[str, Any]) -> dict[str, bool]:
    agree: dict[str, bool] = {}
    for k, v in parts.items():
        if k.startswith("smem_"):
            agree[k] = len(set(v)) == 1
        else:
            agree[k] = v[0] == v[1]
    return agree


def _assert_layouts_agree(kernel: str) -> None:
    parts = cross_check(kernel)
    agree = _agree(parts)
    wrong = {k: parts[k] for k, ok in agree.items() if not ok}
    assert not wrong, f"{kernel}: the spec file and verify_key disagree on {wrong}"


@pytest.mark.cute
@pytest.mark.parametrize("kernel", DEFAULT)
def test_spec_file_and_verify_key_agree(kernel: str) -> None:
    _assert_layouts_agree(kernel)


@pytest.mark.cute
@pytest.mark.long
@pytest.mark.parametrize("kernel", [k for k in KERNELS if k not in DEFAULT])
def test_spec_file_and_verify_key_agree_long(kernel: str) -> None:
    _assert_layouts_agree(kernel)


@cache
def _program(kernel: str) -> derive.Program:
    e = enumerate_gemms("90a", kernel)
    return derive.compile_instances([derive.Instance(kernel, e.source(kernel))])


def _satisfies(cond: set[str], p: Mapping[str, int]) -> bool:
    return all(eval(c, {}, dict(p)) for c in cond)  # noqa: S307 - conditions of the form "M % 8 == 0"


# Problems around the alignment conditions (M, N, K, L); strides packed and 16-byte aligned for every type here.
PROBLEMS = [{"M": m, "N": n, "K": k, "L": 1} for m in (1, 16, 17) for n in (1, 16) for k in (16, 17)]


def _compiled_accepts(kernel: str, p: Mapping[str, int]) -> int:
    m, n, k = p["M"], p["N"], p["K"]
    lead = 64  # a 16-byte multiple for 8-, 16- and 32-bit elements, and >= every extent above
    a = [lead, 1, lead * lead] if re.search(r"_t[tn]n_align", kernel) else [1, lead, lead * lead]
    b = [lead, 1, lead * lead] if re.search(r"_[tn]nn_align", kernel) else [1, lead, lead * lead]
    q = [m, n, k, 1, *a, *b, 1, lead, lead * lead, 1, lead, lead * lead]
    return _program(kernel).accepts([(0, q)])[0]


@pytest.mark.cute
@pytest.mark.parametrize("kernel", [*DEFAULT, TMA_EPILOGUE])
def test_the_hand_read_acceptance_is_compiled_can_implement(kernel: str) -> None:
    """The spec file's can_implement condition accepts exactly what compiled can_implement accepts, on problems
    on both sides of every conjunct."""
    cond = _acceptance(_spec(kernel)["tma A"])
    for p in PROBLEMS:
        assert _compiled_accepts(kernel, p) == int(_satisfies(cond, p)), (kernel, p, cond)


@pytest.mark.cute
def test_a_no_smem_kernel_has_no_epilogue_condition() -> None:
    """A finding of the cross-check, fixed: verify_key's can_implement condition included D's (and C's) alignment
    for every kernel, but a no-smem epilogue (DefaultEpilogue, default_epilogue.hpp:137-141) accepts every
    problem, so compiled can_implement accepted (M,N,K,L) = (17,1,16,1) that verify_key's condition rejected."""
    kernel = DEFAULT[1]  # tnn: A and B K-major, so can_implement never constrains M
    r = _verified(kernel)
    theirs = set(r["can_implement"]["condition"]) - set(NO_OVERFLOW)
    ours = _acceptance(_spec(kernel)["tma A"])
    assert _moduli(theirs) == _moduli(ours)
    p = {"M": 17, "N": 1, "K": 16, "L": 1}
    assert _satisfies(ours, p) and _satisfies(theirs, p)
    assert _compiled_accepts(kernel, p) == 1
