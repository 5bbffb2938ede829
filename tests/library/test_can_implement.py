"""can_implement's acceptance set from its symbolic run (verifier/library/can_implement.py), on real SM90 keys:
derived on every path, independent of the strides (finding 1), equal to the hand-read condition for positive
extents, and equal to compiled can_implement at sampled concrete points, the corners included (0, 1, extents no
multiple of the alignment, the int overflow boundaries, where the sanitized program must trap)."""

from __future__ import annotations

import random
import subprocess
from typing import Any

import pytest

from verifier.library import can_implement, derive
from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group
from verifier.library.verify import NO_OVERFLOW, acceptance, checks_epilogue_alignment

KEYS = (
    # f16, K-major A and B, column-major C and D: the TMA epilogue checks C and D (alignment 8).
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma",
    # FP8 mainloop (alignment 16), no C, a stream-K scheduler.
    "cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_void_e5m2_128x128x128_1x2x1_0_tnn_align16_stream_k_"
    "warpspecialized_cooperative_epi_tma",
    # A no-smem epilogue (CUTLASS's DefaultEpilogue): C and D are not checked.
    "cutlass3x_sm90_tensorop_gemm_e4m3_e5m2_f32_f32_f32_64x128x128_2x1x1_0_tnn_align16_warpspecialized_epi_nosmem",
)
I32 = 2**31 - 1


@pytest.fixture(scope="module")
def keys() -> dict[str, Any]:
    instances, fields = [], []
    for name in KEYS:
        e = enumerate_gemms("90a", name)
        (g,) = group(e.configs, "tool", "4.2.0")
        instances.append(derive.Instance(name, e.source(name)))
        fields.append(g.fields)
    shown = derive.derive_many(instances)
    derivations = []
    for k, d in enumerate(shown):
        strides = {x: str(d[f"STRIDE_{x}"]) for x in can_implement.OPERANDS}
        der = can_implement.derive_acceptance(instances, k, strides)
        hand = acceptance(fields[k], strides, checks_epilogue_alignment(d))
        derivations.append((der, hand, strides))
    return {"instances": instances, "shown": shown, "derivations": derivations}


@pytest.mark.cute
def test_the_symbolic_condition_is_derived_and_ignores_the_strides(keys: dict[str, Any]) -> None:
    for der, hand, _ in keys["derivations"]:
        assert der.rejected is None
        for mode in can_implement.MODES:
            ma = der.modes[mode]
            assert ma.unknown is None and ma.paths
            assert any(p.accepts == 1 for p in ma.paths) and any(p.accepts == 0 for p in ma.paths)
            # Every dynamic stride leaf of A and B reached can_implement's arguments as a symbol ...
            assert ma.symbolic_strides[:6].count("1") == 4
        # ... and no decision or obligation names one: can_implement checks StrideX{}, not args.dX (finding 1).
        assert not can_implement.reads_strides(der)
        # Both modes take the same paths (a rank-4 problem shape admits kBatched).
        assert [str(p.condition) for p in der.modes["kGemm"].paths] == [
            str(p.condition) for p in der.modes["kBatched"].paths]
        # For positive extents, where can_implement is defined, the set is the hand-read one.
        versus = can_implement.compare(der, hand, extent_lo=1)
        assert all(v["equal"] for v in versus.values()), versus
    # The no-smem epilogue checks nothing: its paths name K only; the TMA epilogue's name M too.
    no_smem = keys["derivations"][2][0].modes["kGemm"]
    assert {s for p in no_smem.paths for s in p.condition.expr.symbols()} <= {"M", "N", "K", "L"}
    assert "M % 16 == 0" not in keys["derivations"][2][1]


@pytest.mark.cute
def test_zero_extents_are_where_the_hand_reading_is_wrong(keys: dict[str, Any]) -> None:
    """At L = 0 every size(shape) is 0 and check_alignment holds whatever K is: compiled can_implement accepts a
    problem the hand-read K % 8 == 0 rejects."""
    der, hand, _ = keys["derivations"][0]
    versus = can_implement.compare(der, hand, extent_lo=0)["kGemm"]
    assert not versus["equal"]
    (diff,) = versus["differences"]
    w = diff["witness"]
    assert diff["can_implement"] == 1 and 0 in (w["M"], w["N"], w["L"])
    program = derive.compile_instances(keys["instances"])
    q = [8, 8, 9, 0, 16, 1, 16 * 9, 16, 1, 16 * 9, 1, 8, 64, 1, 8, 64]
    assert program.accepts([(0, q)]) == [1]
    q[3] = 1
    assert program.accepts([(0, q)]) == [0]


def _points(align: int, rng: random.Random) -> list[tuple[int, int, int, int]]:
    corners = [0, 1, align - 1, align, align + 1, 2 * align + 3, 65536, I32 - 16, I32 - align, I32 - 1, I32]
    out = {(m, n, k, batch) for m in (0, 1, align, align + 1) for n in (1, align) for k in corners
           for batch in (0, 1, 2)}
    out |= {(m, 1, 8 * align, 1) for m in corners}
    out |= {(rng.choice(corners), rng.choice(corners), rng.choice(corners), rng.choice((0, 1, 2, 3, 65536)))
            for _ in range(120)}
    out |= {(rng.randrange(1, 300), rng.randrange(1, 300), rng.randrange(1, 300), rng.randrange(0, 4))
            for _ in range(120)}
    return sorted(out)


def _predicted(der: can_implement.Derivation, point: tuple[int, int, int, int]) -> int | None:
    """The symbolic answer at a point (1 or 0), or None where the path it takes has undefined behaviour."""
    env = dict(zip(can_implement.EXTENTS, point))
    env.update({n: 16 for x in can_implement.OPERANDS for n in der.names[x] if n is not None})
    mode = "kBatched" if point[3] > 1 else "kGemm"  # derive.accepts' choice
    (path,) = [p for p in der.modes[mode].paths if all(c.evaluate(env) for c in p.decisions)]
    if not all(o.condition.evaluate(env) for o in path.obligations):
        return None
    return path.accepts


@pytest.mark.cute
def test_the_symbolic_condition_is_compiled_can_implement_at_sampled_points(keys: dict[str, Any]) -> None:
    sanitized = derive.compile_instances(keys["instances"], sanitize=True)
    rng = random.Random(30)
    for k, (der, _, _) in enumerate(keys["derivations"]):
        align = 16 if "align16" in KEYS[k] else 8
        defined: list[tuple[list[int], int]] = []
        undefined: list[list[int]] = []
        for point in _points(align, rng):
            m, n, _, _ = point
            q = [*point, 16, 1, 16 * 16, 16, 1, 16 * 16, 1, max(m, 1), max(m, 1) * n, 1, max(m, 1), max(m, 1) * n]
            want = _predicted(der, point)
            if want is None:
                undefined.append(q)
            else:
                defined.append((q, want))
        got = sanitized.accepts([(k, q) for q, _ in defined])
        assert got == [w for _, w in defined]
        assert sum(w for _, w in defined) > 10 and len(defined) - sum(w for _, w in defined) > 10
        # Where a path's obligation breaks, compiled can_implement overflows int: UBSan traps.
        assert len(undefined) > 5
        for q in undefined[:: max(1, len(undefined) // 6)]:
            run = subprocess.run([str(sanitized.binary.path)], input=f"{k} {' '.join(map(str, q))}\n",
                                 capture_output=True, text=True, timeout=120)
            assert run.returncode != 0 and "signed integer overflow" in run.stderr, q


@pytest.mark.cute
def test_can_implement_overflows_on_a_problem_the_hand_reading_calls_defined(keys: dict[str, Any]) -> None:
    """The hand-read condition needs M*K*L, N*K*L, M*N*L to fit in int; the symbolic obligations also need
    ceil_div's K + 8 to: at (M,N,K,L) = (1,1,2^31-1,1) every product fits and the sanitized can_implement
    traps in upcast's ceil_div (cute/int_tuple.hpp), on its way to rejecting K."""
    der = keys["derivations"][0][0]
    assert _predicted(der, (1, 1, I32, 1)) is None
    sanitized = derive.compile_instances(keys["instances"], sanitize=True)
    q = [1, 1, I32, 1, I32, 1, I32, I32, 1, I32, 1, 1, 1, 1, 1, 1]
    run = subprocess.run([str(sanitized.binary.path)], input="0 " + " ".join(map(str, q)) + "\n",
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "2147483647 + 8 cannot be represented in type 'int'" in run.stderr
    assert "int_tuple.hpp" in run.stderr


@pytest.mark.cute
def test_can_implement_accepts_a_problem_on_which_it_overflows(keys: dict[str, Any]) -> None:
    """The no-smem kernel checks only K % 16 == 0 (no epilogue condition): at K = 2^31-16 with M = N = L = 1 the
    hand-read condition and its no-overflow conjuncts hold, and ceil_div's K + 16 overflows on the path that
    accepts.  The symbolic run finds it (``undefined`` within the hand-read condition); UBSan traps there."""
    der, hand, _ = keys["derivations"][2]
    (found,) = can_implement.undefined(der, 1, [*hand, *NO_OVERFLOW])
    assert found["can_implement"] == 1 and found["first_broken"]["at"].startswith("cute/int_tuple.hpp")
    w = found["witness"]
    assert w["K"] % 16 == 0 and w["K"] + 16 > I32
    sanitized = derive.compile_instances(keys["instances"], sanitize=True)
    q = [w["M"], w["N"], w["K"], w["L"], *[2**20] * 6, 1, 1, 1, 1, 1, 1]
    run = subprocess.run([str(sanitized.binary.path)], input="2 " + " ".join(map(str, q)) + "\n",
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and f"{w['K']} + 16 cannot be represented in type 'int'" in run.stderr
    q[2] -= 16  # the next multiple of 16 down: defined, and accepted
    assert sanitized.accepts([(2, q)]) == [1]
