"""can_implement's symbolic run on SM100 keys (verifier/library/can_implement.py): it compiles (the SM100 mainloop's
Params type instantiates CuTe's TMA descriptor code, which assigns a stride into a uint64_t), explores every path,
and its set is compiled CUTLASS's can_implement on a grid of problem sizes and strides, the corners included (0,
1, odd, no multiple of the alignment, the int overflow boundaries, negative and huge strides): 1SM and 2SM, a
run-time cluster, f16, runtime f8 and tf32."""

from __future__ import annotations

import random
import re
import subprocess
from typing import Any

import pytest

from verifier.library import can_implement, derive, verify
from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group
from verifier.library.parts import NO_OVERFLOW

KEYS = (
    "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_64x128x64_1x1x1_0_tnn_align8_1sm",
    "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_2x1x1_0_tnn_align8_2sm_epi_tma",
    # a run-time cluster: can_implement also reads hw_info's cluster (the smallest admitted, as in the replays)
    "cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_0x0x1_0_nnn_align8_2sm_epi_tma",
    # runtime-typed f8 A and B (8 bits: 16 elements a 128-bit unit), MN-major B
    "cutlass3x_sm100_tensorop_gemm_f8_f8_f32_f16_f16_64x128x128_1x1x1_0_ntn_align16_1sm",
    # tf32, MN-major A, a static 4x1x1 cluster
    "cutlass3x_sm100_tensorop_tf32gemm_f32_f32_f32_f32_f32_128x128x32_4x1x1_0_nnn_align4_2sm_epi_tma",
)
I32 = 2**31 - 1
STRIDES = (0, 1, 3, 7, 9, 16, 24, 2**31 + 1, 2**40, 2**62 + 5, 2**63 - 1, -1, -16, -(2**63))


@pytest.fixture(scope="module")
def keys() -> dict[str, Any]:
    e = enumerate_gemms("100a", ",".join(KEYS))
    fields = {g.representative: g.fields for g in group(e.configs, "tool", "4.2.0")}
    instances = [derive.Instance(n, e.source(n)) for n in KEYS]
    shown = derive.derive_many(instances)
    out = []
    for k, d in enumerate(shown):
        _, strides, hand = verify._operands(fields[KEYS[k]], d)
        out.append((can_implement.derive_acceptance(instances, k, strides), hand, strides))
    return {"instances": instances, "shown": shown, "derivations": out}


def _align(name: str) -> int:
    return int(name.split("_align")[1].split("_")[0])


@pytest.mark.cute
def test_the_symbolic_run_compiles_for_sm100_and_ignores_the_strides(keys: dict[str, Any]) -> None:
    for k, (der, hand, _) in enumerate(keys["derivations"]):
        assert der.rejected is None, der.rejected
        for mode in can_implement.MODES:
            ma = der.modes[mode]
            assert ma.unknown is None and ma.paths
            assert any(p.accepts == 1 for p in ma.paths) and any(p.accepts == 0 for p in ma.paths)
            # every dynamic stride of A, B, C and D was a symbol in can_implement's arguments ...
            assert ma.symbolic_strides.count("1") == 8, ma.symbolic_strides
        # ... none is read, and nothing is read as a builtin (the uint64_t conversion the Params type needs is never
        # run: it would be a decision `x == v`)
        assert not can_implement.reads_strides(der)
        pinned = [str(c) for ma in der.modes.values() for p in ma.paths for c in p.decisions
                  if re.fullmatch(r"!?\(?\w+ == -?\d+\)?", str(c))]
        assert not pinned, pinned
        # the hand-read condition (sm100.acceptance) is the set for positive extents
        versus = can_implement.compare(der, hand, extent_lo=1)
        assert all(v["equal"] for v in versus.values()), (KEYS[k], versus)


@pytest.mark.cute
def test_the_report_says_symbolic_for_sm100(keys: dict[str, Any]) -> None:
    der, hand, strides = keys["derivations"][1]
    section, assumed = can_implement.section(keys["instances"], 1, strides, hand, NO_OVERFLOW)
    assert section["derivation"].startswith("symbolic") and assumed == hand
    # at zero extents the hand reading is wrong, as for SM90 (finding 4)
    assert not section["versus_hand_read_with_zero_extents"]["kGemm"]["equal"]


def _points(align: int, rng: random.Random) -> list[tuple[int, int, int, int]]:
    corners = [0, 1, 3, align - 1, align, align + 1, 2 * align + 3, 65536, I32 - 16, I32 - align, I32 - 1, I32]
    out = {(m, n, k, batch) for m in (0, 1, align, align + 1) for n in (1, align, align + 2) for k in corners
           for batch in (0, 1, 2)}
    out |= {(m, 1, 8 * align, 1) for m in corners} | {(align, n, align, 1) for n in corners}
    out |= {(rng.choice(corners), rng.choice(corners), rng.choice(corners), rng.choice((0, 1, 2, 3, 65536)))
            for _ in range(100)}
    out |= {(rng.randrange(1, 300), rng.randrange(1, 300), rng.randrange(1, 300), rng.randrange(0, 4))
            for _ in range(100)}
    return sorted(out)


def _predicted(der: can_implement.Derivation, point: tuple[int, int, int, int]) -> int | None:
    """The symbolic answer at a point (the paths name no stride), None where its path's obligations break."""
    env = dict(zip(can_implement.EXTENTS, point))
    mode = "kBatched" if point[3] > 1 else "kGemm"  # derive.accepts' choice
    (path,) = [p for p in der.modes[mode].paths if all(c.evaluate(env) for c in p.decisions)]
    if not all(o.condition.evaluate(env) for o in path.obligations):
        return None
    return path.accepts


@pytest.mark.cute
def test_the_symbolic_set_is_compiled_can_implement_on_a_grid(keys: dict[str, Any]) -> None:
    sanitized = derive.compile_instances(keys["instances"], sanitize=True)
    rng = random.Random(100)
    for k, (der, _, _) in enumerate(keys["derivations"]):
        defined: list[tuple[list[int], int]] = []
        undefined: list[list[int]] = []
        for point in _points(_align(KEYS[k]), rng):
            q = [*point, *(rng.choice(STRIDES) for _ in range(12))]
            want = _predicted(der, point)
            if want is None:
                undefined.append(q)
            else:
                defined.append((q, want))
        got = sanitized.accepts([(k, q) for q, _ in defined])
        wrong = [(q, w, g) for (q, w), g in zip(defined, got) if w != g]
        assert not wrong, (KEYS[k], wrong[:5])
        assert sum(w for _, w in defined) > 10 and len(defined) - sum(w for _, w in defined) > 10
        # where a path's obligation breaks, compiled can_implement overflows int: UBSan traps
        assert len(undefined) > 5
        for q in undefined[:: max(1, len(undefined) // 3)]:
            run = subprocess.run([str(sanitized.binary.path)], input=f"{k} {' '.join(map(str, q))}\n",
                                 capture_output=True, text=True, timeout=120)
            assert run.returncode != 0 and "signed integer overflow" in run.stderr, (KEYS[k], q)
