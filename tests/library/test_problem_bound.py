"""bench/library_problems.py's bound on a sweep's distinct decide units: each unit ``verify.problems_of`` lists for a
key has a proxy, a tuple of the key's fields, and keys with equal proxies list the same unit there, so that the
distinct proxies over every key of the sweep (``count``) bound its distinct units.  Tested with ``check`` on
derived keys stored in tests/library/data/derived_keys.json.gz (96 keys: 48 of SM90 ``all`` in three derive
batches, TMA and no-smem epilogues, grouped and FP8 kernels; 48 of SM100 ``all``, 1SM, 2SM and grouped blockwise
kernels; derived with ``bench/library_problems.py derive``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.library_problems import _summary, check, load_sample, proxies

SAMPLE = Path(__file__).parent / "data" / "derived_keys.json.gz"


@pytest.fixture(scope="module")
def sample() -> list[dict[str, Any]]:
    return load_sample(SAMPLE)


def test_every_unit_has_a_proxy_that_names_it_alone(sample: list[dict[str, Any]]) -> None:
    got = check(sample)
    assert got["archs"] == {"90a": 48, "100a": 48}
    assert got["uncovered"] == [] and got["violations"] == []
    # the sample bites: many proxies are shared by several keys, whose units had to agree
    assert got["proxies_shared_by_keys"] >= 100 and got["unit_uses"] > 2 * got["units"]
    # the bound holds on the sample: its keys' distinct proxies are at least its distinct units
    distinct: dict[str, set[tuple[Any, ...]]] = {}
    for p in sample:
        for proxy in proxies(p["fields"]).values():
            distinct.setdefault(proxy[0], set()).add(proxy)
    assert _summary(0, len(sample), 0, distinct)["distinct_at_most"] >= got["units"]


@pytest.mark.parametrize(("kind", "cut"), [("tma", 3), ("tiling", 3), ("smem", 3), ("sm100_layouts", 3)])
def test_a_coarser_proxy_is_caught(sample: list[dict[str, Any]], kind: str, cut: int) -> None:
    """A proxy that leaves out what its unit reads (here the acceptance condition of the TMA box and the tiling,
    the stage count of the smem layouts and of SM100's shared checks) names several units: a violation."""
    def coarser(f: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        return {label: p[:cut] if p[0] == kind else p for label, p in proxies(f).items()}
    assert check(sample, coarser)["violations"]


def test_a_unit_without_a_proxy_is_uncovered(sample: list[dict[str, Any]]) -> None:
    def without_epilogue(f: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        return {label: p for label, p in proxies(f).items() if not label.startswith("epi_")}
    uncovered = check(sample, without_epilogue)["uncovered"]
    assert uncovered and {u["unit"].split()[0] for u in uncovered} >= {"epilogue"}
