"""cuda_harness on a real GPU (CuPy): the checks of ``test_cuda_harness.py`` with the kernels on the device.

Skipped, with the reason, only where no CUDA GPU or no CuPy is present (``cuda_harness.probe.gpu_available``).
The whole corpora run on the GPU in ``python -m cuda_harness.gpu_run`` (``docs/hardware.md``)."""

from __future__ import annotations

import pytest

from cuda_harness.harness import Case, evaluate, sweep
from cuda_harness.probe import gpu_available
from tests.support.harness_cases import CORPUS, SWEEP_IDS, conformance, small_grid
from verifier import parse_layout
from verifier.oracle.corpora import parametric
from verifier.oracle.sweep import SweepCase, key
from verifier.oracle.sweep import sweep as host_sweep

WHY = gpu_available()
pytestmark = [pytest.mark.gpu, pytest.mark.cute,
              pytest.mark.skipif(WHY is not None, reason=f"needs a CUDA GPU and CuPy: {WHY}")]


def test_conformance_cases_agree_on_the_gpu_as_in_host_mode(cute) -> None:
    cases, gpu = conformance(host=False)
    _, host = conformance(host=True)
    assert "nvrtc" in gpu.method or "nvcc" in gpu.method
    bad = [f"{c.label}: {c.detail}" for c in gpu.checks if c.status not in ("agree", "rejected", "ub")]
    assert not bad, "\n".join(bad)
    for g, h in zip(gpu.checks, host.checks, strict=True):
        if h.status == "ub":  # the GPU does not trap integer division by zero; both skip the comparison
            continue
        assert (g.status, g.indices, g.injective, g.in_bounds, g.bijective) == \
            (h.status, h.indices, h.injective, h.in_bounds, h.bijective), g.label
        assert g.model_on_device == h.model_on_device


@pytest.mark.parametrize("text, injective, in_bounds", [("(4,2):(1,0)", False, True), ("(4):(-1)", True, False)])
def test_guarded_copy_on_device_memory(text: str, injective: bool, in_bounds: bool) -> None:
    (check,) = evaluate([Case(text, None, (parse_layout(text),))], host=False).checks
    assert check.status == "agree", check.detail
    assert (check.injective, check.in_bounds) == (injective, in_bounds)


def test_gpu_sweep_decides_as_the_host_sweep(cute) -> None:
    entries = [CORPUS[i] for i in SWEEP_IDS]
    cases = [SweepCase(*parametric(e)) for e in entries]
    envs = [small_grid(e) for e in entries]
    dev, method = sweep(cases, envs, host=False)
    ref = host_sweep(cases, envs)
    for e, d, h in zip(entries, dev, ref, strict=True):
        for k, s in h.status.items():
            if s != "ub":  # CuTe divides by zero: undefined on the GPU, which does not trap
                assert d.status[k] == s, (e["id"], dict(k), d.status[k], s)


def test_seed_composition_is_wrong_on_the_gpu_at_the_seed_values() -> None:
    e = CORPUS["cmp-seed-colmajor-rowmajor"]
    env = {"M": 2, "N": 3}
    (dev,), _ = sweep([SweepCase(*parametric(e))], [[env]], host=False)
    assert dev.status[key(env)] == "wrong"
