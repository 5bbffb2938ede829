"""One known configuration end to end: its layouts derived from compiled CUTLASS, verified, and the TMA finding
replayed on compiled CUTLASS (can_implement accepts, make_tma_copy's host assert fails)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group
from verifier.library.verify import verify_key

NAME = ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_"
        "warpspecialized_cooperative_epi_tma")


@pytest.mark.cute
def test_a_known_configuration_is_derived_verified_and_its_finding_replayed() -> None:
    e = enumerate_gemms("90a", NAME)
    (g,) = group(e.configs, "tool", "4.2.0")
    payload = {"key": g.key, "fields": g.fields, "representative": g.representative, "configs": list(g.configs),
               "source": e.source(g.representative)}
    r = verify_key(payload)
    assert json.loads(json.dumps(r)) == r  # plain JSON data
    d = r["derived"]
    # What compiled CUTLASS printed for this kernel (a K-major f16 128x64 tile, 128B swizzle, 6 stages).
    assert d["SMEM_A"] == ("Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_16),(_64,_1),(_1,_6)):"
                           "((_64,_512),(_1,_0),(_0,_8192))")
    assert d["STAGES"] == 6 and d["COPY_A"] == "cute::SM90_TMA_LOAD_MULTICAST"
    # The model's tile_to_shape of the builder's atom is the layout compiled CUTLASS built.
    assert r["checks"]["smem_A"]["equal"] and r["checks"]["smem_B"]["equal"]
    assert r["checks"]["gmma_A"]["verdict"] == "valid"
    assert "K % 8 == 0" in r["can_implement"]["condition"]
    # That condition is can_implement's own, from its symbolic run (equal to the hand-read one here), and it
    # reads no stride.
    assert r["can_implement"]["derivation"].startswith("symbolic") and r["can_implement"]["reads_strides"] is False
    # can_implement never reads the strides it is given: a leading dimension that is no multiple of 16 bytes is
    # accepted, and CuTe's make_tma_copy asserts on it.
    tma = [f for f in r["findings"] if f["check"] == "tma_A"]
    assert tma and tma[0]["obligation"] == "TMA-GSTRIDE" and tma[0]["confirmed"]
    replay = tma[0]["replay"]
    assert replay["can_implement"] == 1 and replay["make_tma_copy_returns"] is False
    assert "copy_traits_sm90_tma.hpp" in replay["cute"] and "gmem_prob_stride" in replay["cute"]
    assert (replay["query"][4] * 2) % 16 != 0  # the witness's ldA, in bytes
    # The other direction: the box needs aligned strides, not an aligned K; can_implement rejects K = 9 with
    # 16-byte strides, where make_tma_copy builds the descriptor.
    safe = [f for f in r["findings"] if f["kind"] == "rejected_but_safe" and f["check"] == "tma_A_aligned_strides"]
    assert safe and safe[0]["confirmed"] and safe[0]["witness"]["K"] % 8 != 0
    assert safe[0]["replay"]["can_implement"] == 0 and safe[0]["replay"]["make_tma_copy_returns"] is True
    # The CTA tiling is of the TMA coordinate tensor whose strides compiled CUTLASS printed.
    assert d["TMA_TENSOR_A"].endswith(":(_1@1,_1@0,_1@2)") and r["checks"]["tiling_A"]["derivation"] == "cutlass"
    assert r["verdict"] == "invalid" and r["status"] == "verified"


@pytest.mark.cute
def test_a_correct_stride_passes_compiled_can_implement_and_make_tma_copy() -> None:
    """The replay is not a tautology: at a 16-byte multiple leading dimension both accept."""
    from verifier.library.derive import Instance, compile_instances

    e = enumerate_gemms("90a", NAME)
    p = compile_instances([Instance(NAME, e.source(NAME))])
    q = [128, 128, 128, 1, 128, 1, 128 * 128, 128, 1, 128 * 128, 1, 128, 128 * 128, 1, 128, 128 * 128]
    assert p.accepts([(0, q)]) == [1]
    assert p.builds_tma(0, q)[0] is True
    q_bad_k = list(q)
    q_bad_k[2] = 100  # K % 8 != 0: can_implement rejects
    assert p.accepts([(0, q_bad_k)]) == [0]


@pytest.mark.cute
def test_can_implement_overflows_int_on_a_large_problem() -> None:
    """can_implement's size(make_shape(M,K,L)) is an int product: UBSan traps at M = N = K = 65536."""
    import subprocess

    from verifier.library.derive import Instance, compile_instances

    e = enumerate_gemms("90a", NAME)
    p = compile_instances([Instance(NAME, e.source(NAME))], sanitize=True)
    big = 65536
    q = [big, big, big, 1, big, 1, big * big, big, 1, big * big, 1, big, big * big, 1, big, big * big]
    run = subprocess.run([str(p.binary.path)], input="0 " + " ".join(map(str, q)) + "\n", capture_output=True,
                         text=True, timeout=120)
    assert run.returncode != 0 and "signed integer overflow: 65536 * 65536" in run.stderr
    small = [128, 128, 128, 1, 128, 1, 128 * 128, 128, 1, 128 * 128, 1, 128, 128 * 128, 1, 128, 128 * 128]
    ok = subprocess.run([str(p.binary.path)], input="0 " + " ".join(map(str, small)) + "\n", capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0 and "@@ACCEPTS 0 1" in ok.stdout


@pytest.mark.cute
def test_the_command_verifies_once_and_reads_the_store_again(tmp_path: Path) -> None:
    import subprocess
    import sys

    store, out = tmp_path / "store.jsonl", tmp_path / "r.json"
    argv = [sys.executable, "-m", "verifier.cli", "library", "--kernels", NAME, "--engine", "local", "--workers", "1",
            "--store", str(store), "-o", str(out)]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert first.returncode == 1, first.stderr  # findings
    # A and B's TMA boxes both ways, and the epilogue's C and D boxes both ways (tests/library/test_epilogue.py)
    assert "1 verified (0 from the store), 8 findings" in first.stdout
    data = json.loads(out.read_text())
    assert data["configurations"][0]["name"] == NAME and data["configurations"][0]["verdict"] == "invalid"
    assert {f["kind"] for f in data["findings"]} == {"accepted_but_wrong", "rejected_but_safe"}
    assert all(f["kernels"] == [NAME] for f in data["findings"])
    again = subprocess.run([*argv, "--html", str(tmp_path / "r.html")], capture_output=True, text=True, timeout=600)
    assert again.returncode == 1 and "1 verified (1 from the store), 8 findings" in again.stdout
    assert json.loads(out.read_text())["findings"] == data["findings"]
    assert "TMA-GSTRIDE" in (tmp_path / "r.html").read_text()


@pytest.mark.cute
def test_a_planted_smem_layout_that_is_not_the_builders_is_caught() -> None:
    """A payload whose printed SmemLayoutA is not what tile_to_shape of its atom gives (one stage fewer) is not
    verified: the model and compiled CUTLASS disagree, and the key is not valid."""
    from verifier.library.derive import Instance, derive_many

    e = enumerate_gemms("90a", NAME)
    (g,) = group(e.configs, "tool", "4.2.0")
    (d,) = derive_many([Instance(NAME, e.source(NAME))])
    planted = dict(d)
    planted["SMEM_A"] = d["SMEM_A"].replace("(_1,_6)", "(_1,_5)")
    assert planted["SMEM_A"] != d["SMEM_A"]
    payload = {"key": g.key, "fields": g.fields, "representative": NAME, "configs": [NAME],
               "source": e.source(NAME), "derived": planted}
    r = verify_key(payload)
    assert r["checks"]["smem_A"]["equal"] is False and r["checks"]["smem_A"]["verdict"] == "disagrees"
    assert r["checks"]["smem_B"]["equal"] is True
    assert r["verdict"] != "valid"
