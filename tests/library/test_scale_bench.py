"""bench/library_scale.py's extrapolation: the per-unit costs of the finished point with the most workers, applied
to SM90 all + SM100 all at the point's efficiency (docs/library.md, "Scale on a many-core host"): its steady
efficiency with its start-up and drain paid once, or, for a point measured before the timeline, its whole wall's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.library_scale import SM90, SM100, extrapolate_points, sample
from verifier.library import phases


def _point(workers: int, keys: int, wall: float, stopped: bool = False) -> dict[str, object]:
    # batches of 8: keys/8 batches at 20 s, keys/4 problems at 4 s, keys at 1 s
    return {"workers": workers, "keys": keys, "wall_s": wall, "stopped_at_timeout": stopped,
            "derive": {"units": keys // 8, "busy_s": keys // 8 * 20.0},
            "decide": {"units": keys // 4, "busy_s": keys // 4 * 4.0},
            "verify": {"units": keys, "busy_s": keys * 1.0}}


def test_the_extrapolation_uses_the_largest_finished_point() -> None:
    points = [_point(1, 8, 50.0), _point(16, 128, 40.0), _point(64, 512, 10.0, stopped=True)]
    out = extrapolate_points(points, None, 64, 8)
    assert out["from_point"] == {"workers": 16, "keys": 128, "wall_s": 40.0, "order": "phased"}
    assert (out["efficiency_model"], out["fixed_s"]) == ("whole point", 0.0)
    assert out["seconds_per_unit"] == {"derive_batch": 20.0, "decide_problem": 4.0, "verify_key": 1.0}
    busy = 16 * 20.0 + 32 * 4.0 + 128 * 1.0
    assert out["efficiency"] == round(busy / (16 * 40.0), 3)
    sm90_batches, sm100_batches = -(-SM90["keys_3x"] // 8), -(-SM100["keys_3x"] // 8)
    sm90_problems = min(SM90["problems_at_most"], round(SM90["keys"] / 4))
    seconds = (sm90_batches * 20 + sm90_problems * 4 + SM90["keys"] + sm100_batches * 20 + SM100["keys"])
    assert out["sm90_all_plus_sm100_all_wall_min"] == pytest.approx(seconds / (64 * busy / 640) / 60, abs=0.1)
    assert out["worker_hours"]["sm100_decide_if_modelled"] == round(SM100["keys"] / 4 * 4 / 3600, 2)


def test_nothing_finished_is_said() -> None:
    assert "error" in extrapolate_points([_point(4, 32, 99.0, stopped=True)], None, 64, 8)


def test_a_timed_point_extrapolates_from_its_steady_efficiency() -> None:
    """A small point's fill and drain are a large share of its wall, and a fixed cost of a whole sweep: the steady
    efficiency (while its workers were saturated) is what the sweep keeps up, the start-up and the unsaturated
    seconds are added once; a point never saturated (steady efficiency 0) falls back to its whole wall."""
    p = {**_point(16, 128, 40.0), "order": "pipeline", "steady_efficiency": 0.8, "startup_s": 5.0,
         "unsaturated_s": 7.0}
    out = extrapolate_points([p], None, 64, 8)
    assert out["from_point"]["order"] == "pipeline"
    assert (out["efficiency"], out["efficiency_model"], out["fixed_s"]) == (0.8, "steady", 12.0)
    sm90_batches, sm100_batches = -(-SM90["keys_3x"] // 8), -(-SM100["keys_3x"] // 8)
    sm90_problems = min(SM90["problems_at_most"], round(SM90["keys"] / 4))
    seconds = (sm90_batches * 20 + sm90_problems * 4 + SM90["keys"] + sm100_batches * 20 + SM100["keys"])
    assert out["sm90_all_plus_sm100_all_wall_min"] == pytest.approx((seconds / (64 * 0.8) + 12.0) / 60, abs=0.1)
    # the same point's whole efficiency (busy over workers x its 60 s of wall, start and drain included) is lower,
    # and would have charged them to every unit of the sweep
    whole = extrapolate_points([{**_point(16, 128, 60.0), "steady_efficiency": 0.0, "startup_s": 5.0,
                                 "unsaturated_s": 60.0}], None, 64, 8)
    assert (whole["efficiency"], whole["efficiency_model"]) == (0.6, "whole point")
    assert whole["sm90_all_plus_sm100_all_wall_min"] > out["sm90_all_plus_sm100_all_wall_min"]


def test_a_point_samples_whole_derive_batches_evenly_spaced() -> None:
    # 10 tiles x 4 epilogues: 40 keys, batches of 4 (one tile each, in the derive order)
    payloads = {f"k{t}{d}": {"fields": {"is_3x": True, "arch": "90a", "tile": [t * 8, 64, 64], "element_d": f"e{d}"}}
                for t in range(1, 11) for d in range(4)}
    formed = phases.batches(payloads, list(payloads), 4)
    picked = sample(payloads, 12, 4)
    assert len(picked) == 12
    assert [picked[i:i + 4] for i in range(0, 12, 4)] == [formed[0], formed[3], formed[6]]
    assert sample(payloads, 3, 4) == formed[5][:3]


def test_the_sweeps_problems_are_fitted_on_how_they_grew_between_points() -> None:
    """Distinct problems that double from 64 to 256 keys and again to 1024 grow with exponent 0.5: the sweep's
    problems are the largest point's times (keys / its keys)^0.5; the linear bound charges every key's share."""
    def point(workers: int, keys: int, problems: int) -> dict[str, object]:
        q = _point(workers, keys, 60.0)
        return {**q, "sample_archs": ["90a", "100a"], "decide": {"units": problems + 10, "busy_s": problems * 2.0,
                                                                 "shared_units": 10, "shared_busy_s": 0.0}}

    out = extrapolate_points([point(1, 64, 100), point(4, 256, 200), point(16, 1024, 400)], None, 64, 8)
    fitted = out["problems_fitted"]
    all_keys = SM90["keys"] + SM100["keys"]
    assert fitted["points"] == [[64, 100], [256, 200], [1024, 400]] and fitted["keys"] == all_keys
    assert fitted["last_pair"]["exponent"] == fitted["largest_exponent"]["exponent"] == 0.5
    assert fitted["last_pair"]["distinct_problems"] == round(400 * (all_keys / 1024) ** 0.5)
    assert fitted["linear"]["distinct_problems"] == round(400 * all_keys / 1024)
    assert fitted["last_pair"]["wall_min"] < fitted["linear"]["wall_min"]
    # one point alone says nothing of the growth
    assert "problems_fitted" not in extrapolate_points([point(16, 1024, 400)], None, 64, 8)


def test_a_counted_bound_caps_the_distinct_problems() -> None:
    """bench/library_problems.py count's bound on the sweep's distinct solver problems replaces the linear bound
    where it is lower (said so), and no fitted estimate exceeds it; where it is not lower, the linear one stays.
    From session 12's 32-worker point (tests/library/data/scale32.json: 1,106 solver problems on 2,048 keys)."""
    data = json.loads((Path(__file__).parent / "data" / "scale32.json").read_text())
    points = [{"sample_archs": data["sample_archs"], **q} for q in data["points"]]
    without = extrapolate_points(points, data["sm90"], 64, data["batch"])
    assert "problems_fitted" not in without  # one point: no growth to fit, no bound

    def bound(n: int) -> dict[str, Any]:
        return {"archs": ["90a", "100a"], "kernels": "all", "solver_problems_at_most": n}
    keys = SM90["keys"] + SM100["keys"]
    linear = round(1106 * keys / 2048)
    low = extrapolate_points(points, data["sm90"], 64, data["batch"], bound(linear - 1000))["problems_fitted"]
    assert low["linear"]["distinct_problems"] == linear
    assert (low["upper_bound"], low["bound"]["replaces_linear"]) == ("bound", True)
    assert low["bound"]["distinct_problems"] == linear - 1000
    assert low["bound"]["wall_min"] < low["linear"]["wall_min"]
    assert "below the linear" in low["said"]
    high = extrapolate_points(points, data["sm90"], 64, data["batch"], bound(linear + 1))["problems_fitted"]
    assert (high["upper_bound"], high["bound"]["replaces_linear"]) == ("linear", False)
    # two points: the fitted estimates are capped by the bound
    small = {**points[0], "keys": 512, "verify": {**points[0]["verify"], "units": 512},
             "decide": {**points[0]["decide"], "units": 274 + 600}}
    fitted = extrapolate_points([small, *points], data["sm90"], 64, data["batch"], bound(2000))["problems_fitted"]
    assert fitted["last_pair"]["distinct_problems"] == 2000 and fitted["last_pair"]["capped"]
    with pytest.raises(SystemExit):
        extrapolate_points(points, data["sm90"], 64, data["batch"], {**bound(5), "archs": ["90a"]})
