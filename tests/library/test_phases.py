"""The three-phase sweep (derive in batches, decide each distinct layout problem once, verify each key) answers
for every key what ``verify_key`` answers for the key alone, decides fewer problems than the keys use, and resumes
in any phase."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifier.library import phases
from verifier.library.configs import enumerate_gemms
from verifier.library.distribute import ResultStore
from verifier.library.keys import group
from verifier.library.verify import verify_key

FAMILY = "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_"
# Three schedules of one tile and one layout: the cooperative and ping-pong TMA epilogues and the no-smem one
# (whose carveout leaves more stages, so its smem problems differ and its TMA boxes and tilings do not).
NAMES = [FAMILY + s for s in ("cooperative_epi_tma", "pingpong_epi_tma", "epi_nosmem")]
TOOL, CUTLASS = "test-tool", "4.2.0"


def _payloads() -> dict[str, dict[str, Any]]:
    e = enumerate_gemms("90a", ",".join(NAMES))
    return {g.key: {"key": g.key, "fields": g.fields, "representative": g.representative, "configs": list(g.configs),
                    "tool": TOOL, "cutlass": CUTLASS, "include": None, "source": e.source(g.representative)}
            for g in group(e.configs, TOOL, CUTLASS)}


def _plain(r: dict[str, Any]) -> dict[str, Any]:
    """A key's answer as the store keeps it (JSON), less its own time."""
    out: dict[str, Any] = json.loads(json.dumps(r, sort_keys=True))
    out.pop("seconds", None)
    return out


def _stored(path: Path) -> dict[str, dict[str, Any]]:
    with ResultStore(path, tool=TOOL, cutlass=CUTLASS) as s:
        return {k: _plain(r.result) for k, r in s.records.items() if r.result is not None}


@pytest.mark.cute
def test_three_phases_answer_what_verify_key_answers_and_resume(tmp_path: Path) -> None:
    payloads = _payloads()
    assert len(payloads) == 3
    store = tmp_path / "keys.jsonl"
    options: dict[str, Any] = {"engine": "local", "workers": 1}
    first = phases.run(payloads, list(payloads), store, TOOL, CUTLASS, batch=2, **options)
    assert first.keys.computed == 3 and first.keys.errors == 0
    assert first.derive is not None and first.derive.total == 2  # 3 keys in batches of 2
    # The keys share their TMA boxes and tilings: fewer distinct problems than (key, problem) pairs.
    assert 0 < first.problems < first.problem_uses
    assert first.decide is not None and first.decide.computed == first.problems
    swept = _stored(store)
    alone = {k: _plain(verify_key(p)) for k, p in payloads.items()}
    assert swept == alone
    assert all(r["status"] == "verified" and r["verdict"] == "invalid" for r in alone.values())

    # Nothing changed: nothing computed in any phase.
    again = phases.run(payloads, list(payloads), store, TOOL, CUTLASS, batch=2, **options)
    assert again.keys.cached == 3 and again.keys.computed == 0 and again.derive is None and again.decide is None

    # Interrupted after the decide phase (the key store lost): only the keys are computed again, from the
    # derivations and verdicts the side stores kept, with the same answers.
    store.unlink()
    resumed = phases.run(payloads, list(payloads), store, TOOL, CUTLASS, batch=2, **options)
    assert resumed.derive is not None and resumed.derive.computed == 0 and resumed.derive.cached == 2
    assert resumed.decide is not None and resumed.decide.computed == 0
    assert resumed.keys.computed == 3 and _stored(store) == alone
