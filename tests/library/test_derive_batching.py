"""The derive phase's batches (``phases.batches``: a sweep's 3.x keys in ``keys.DERIVE_ORDER``, neighbours sharing
their template instantiations, ``phases.DEFAULT_BATCH`` a batch) change no key's derivation: what a key's batch
prints for it is what its program alone prints (docs/library.md, "What a derive batch costs")."""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

import pytest

from verifier.library import derive, phases
from verifier.library.configs import Config, enumerate_gemms
from verifier.library.keys import DERIVE_ORDER, NOT_IN_KEY, group

TOOL, CUTLASS = "test-tool", "4.2.0"
# An FP8 TMA warp-specialized mainloop with a TMA epilogue and no C, a cp.async mainloop with a no-smem epilogue
# (SM90), and a 2SM UMMA mainloop with a run-time cluster (SM100): three families whose programs share little.
SM90 = ("cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_void_e5m2_128x128x128_1x2x1_0_tnn_align16_stream_k_"
        "warpspecialized_cooperative_epi_tma",
        "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x1x1_0_nnn_align2_cpasync_warpspecialized_"
        "cooperative_epi_nosmem")
SM100 = ("cutlass3x_sm100_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_0x0x1_0_nnn_align8_2sm_epi_tma",)


def _payloads() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for arch, names in (("90a", SM90), ("100a", SM100)):
        e = enumerate_gemms(arch, ",".join(names))
        for g in group(e.configs, TOOL, CUTLASS):
            out[g.key] = {"key": g.key, "fields": g.fields, "representative": g.representative,
                          "configs": list(g.configs), "include": None, "source": e.source(g.representative)}
    return out


def test_the_order_names_every_field_of_a_key_and_the_batches_are_a_function_of_the_key_set() -> None:
    # A field left out of the order would still be batched deterministically (the key id breaks ties), but its
    # keys would not be kept together.
    assert set(DERIVE_ORDER) == {f.name for f in fields(Config)} - NOT_IN_KEY - {"is_3x"}
    base = {"arch": "90a", "tile": [128, 128, 64], "cluster": [1, 2, 1], "element_a": "f16", "is_3x": True}
    variants = [(d, t) for d in ("f16", "f32", "bf16") for t in ([64, 128, 64], [128, 128, 64])]
    payloads: dict[str, dict[str, Any]] = {f"k{i:02d}": {"fields": {**base, "element_d": d, "tile": t}}
                                           for i, (d, t) in enumerate(variants)}
    payloads["old"] = {"fields": {**base, "is_3x": False}}  # a 2.x key: never derived
    keys = list(payloads)
    formed = phases.batches(payloads, keys, 4)
    assert [len(b) for b in formed] == [4, 2] and "old" not in sum(formed, [])
    # the tile comes before the epilogue's types: the keys of one tile are together
    tiles = [payloads[k]["fields"]["tile"][0] for k in sum(formed, [])]
    assert sum(a != b for a, b in zip(tiles, tiles[1:])) == 1
    shuffled = keys[:]
    random.Random(7).shuffle(shuffled)
    assert phases.batches(payloads, shuffled, 4) == formed
    # the keys asked for, not every key of the payloads: a --limit run derives no batch of keys it does not verify
    assert phases.batches(payloads, ["k05", "k01"], 4) == [[k for k in sum(formed, []) if k in ("k05", "k01")]]


@pytest.mark.cute
def test_a_batch_prints_for_each_key_what_its_program_alone_prints() -> None:
    payloads = _payloads()
    assert len(payloads) == 3
    [batch] = phases.batches(payloads, list(payloads), phases.DEFAULT_BATCH)
    assert [payloads[k]["fields"]["arch"] for k in batch] == ["100a", "90a", "90a"]  # SM100 and SM90 in one program
    derived = phases.derive_batch({"keys": batch, "include": None,
                                   "batch": [[payloads[k]["representative"], payloads[k]["source"]] for k in batch]})
    for k in batch:
        [alone] = derive.derive_many([derive.Instance(payloads[k]["representative"], payloads[k]["source"])])
        assert "CRASHED" not in alone and "REJECTED" not in alone and "MAINLOOP" in alone
        assert derived["derived"][k] == alone, payloads[k]["representative"]
