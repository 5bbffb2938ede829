"""The cp.async mainloop's residue predication (verifier/library/sm90_cpasync.py): the model of load()'s
predicates equals load()'s statements compiled (CuTe's partitions of the identity tensor) at concrete sizes, the
residues 0, 1, tile-1, K below the tile, later tiles included; for every admitted residue each value read is in
bounds and each in-bounds one read; K = 0, which can_implement admits, reads out of bounds (replayed on compiled
can_implement and CuTe); and a condition that admits an unaligned extent is refuted, replayed the same way."""

from __future__ import annotations

from typing import Any

import pytest

from verifier.library import derive, sm90_cpasync, verify
from verifier.library.configs import enumerate_gemms
from verifier.library.keys import group

KEYS = (
    # K-major A and B, 64-bit copies (4 f16)
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_cpasync_warpspecialized_"
    "cooperative_epi_nosmem",
    # M-major A: each copy takes 4 rows of a column, predicated on its first
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_nnn_align4_stream_k_cpasync_"
    "warpspecialized_cooperative_epi_nosmem",
    # MN-major A and B, 32-bit copies, no condition on K
    "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_ntn_align2_cpasync_warpspecialized_epi_nosmem",
)


@pytest.fixture(scope="module")
def keys() -> dict[str, Any]:
    e = enumerate_gemms("90a", ",".join(KEYS))
    fields = {g.representative: g.fields for g in group(e.configs, "tool", "4.2.0")}
    instances = [derive.Instance(n, e.source(n)) for n in KEYS]
    shown = derive.derive_many(instances)
    accept = [sm90_cpasync.acceptance(fields[n], verify._strides(d), verify.checks_epilogue_alignment(d))
              for n, d in zip(KEYS, shown)]
    return {"instances": instances, "shown": shown, "fields": [fields[n] for n in KEYS], "accept": accept}


def _part(keys: dict[str, Any], k: int, x: str) -> tuple[sm90_cpasync.Partition, int, int]:
    d = keys["shown"][k]
    copy, _ = sm90_cpasync.model_copy(keys["fields"][k], d, x)
    blk = [int(v.strip("_")) for v in str(d["TILE"]).strip("()").split(",")]
    r = blk[0] if x == "A" else blk[1]
    return sm90_cpasync.partition(copy, r, blk[2], sm90_cpasync._threads(d, x)), r, blk[2]


# (R, K, first k-tile, row tile): residues 0, 1 and tile-1 of R and K, K below the tile, a later row tile, a later
# first k-tile, K = 0
QUERIES = ((128, 64, 0, 0), (1, 1, 0, 0), (127, 63, 0, 0), (4, 4, 0, 0), (129, 65, 1, 1), (200, 36, 0, 1),
           (300, 200, 2, 2), (256, 130, 1, 0), (8, 0, 0, 0))


@pytest.mark.cute
def test_the_model_is_loads_statements_compiled(keys: dict[str, Any]) -> None:
    queries = [(k, x, *q) for k in range(len(KEYS)) for x in ("A", "B") for q in QUERIES]
    got = sm90_cpasync.compiled_residues(keys["instances"], queries)
    for (k, x, r, kk, kt0, rc), compiled in zip(queries, got):
        part, blk_r, blk_k = _part(keys, k, x)
        assert compiled is not None and len(compiled) == blk_r * blk_k
        assert sm90_cpasync.model_residues(part, blk_r, blk_k, r, kk, kt0, rc) == compiled, (KEYS[k], x, r, kk)
        oob = [v for v in compiled.values() if v[0] == "L" and not (0 <= v[1] < r and 0 <= v[2] < kk)]
        missed = [v for v in compiled.values() if v[0] != "L" and 0 <= v[1] < r and 0 <= v[2] < kk]
        admitted = all(sm90_cpasync._holds(c, {"M": r, "N": r, "K": kk, "L": 1}) for c in keys["accept"][k])
        if kk == 0:
            assert len(oob) == min(r, blk_r) * blk_k  # every row in bounds, every column
        elif admitted and kt0 == 0:
            assert not oob and not missed, (KEYS[k], x, r, kk)
        elif admitted and kk % blk_k:
            # a first stage at a later k-tile (a stream-K unit's): the shifted columns it clears are in bounds
            rows = min(r - rc * blk_r, blk_r)
            assert not oob and len(missed) == rows * (blk_k - kk % blk_k), (KEYS[k], x, r, kk, kt0)
    # an M-major A at M = 1 (can_implement rejects it): the copy of rows 0..3 is predicated on row 0
    (at_one,) = [g for q, g in zip(queries, got) if q == (1, "A", 1, 1, 0, 0)]
    assert at_one is not None and sorted(v[1] for v in at_one.values() if v[0] == "L") == [0, 1, 2, 3]


@pytest.mark.cute
def test_predication_holds_for_positive_k_and_k_zero_is_replayed(keys: dict[str, Any]) -> None:
    program = derive.compile_instances(keys["instances"])
    for k in range(len(KEYS)):
        for x in ("A", "B"):
            c = sm90_cpasync.predication(keys["fields"][k], keys["shown"][k], x, keys["accept"][k])
            assert c["verdict"] == "invalid" and c["for_positive_K"] == "valid", c
            w = c["witness"]
            assert w["K"] == 0
            q = [w["M"], w["N"], 0, w["L"], *[64] * 12]
            assert program.accepts([(k, q)]) == [1]  # compiled can_implement admits K = 0
            replay = sm90_cpasync.replay(keys["instances"], k, x, w)
            assert replay["out_of_bounds"] > 0 and replay["first"][1] == 0


@pytest.mark.cute
def test_an_unaligned_extent_is_refuted_with_a_replayed_witness(keys: dict[str, Any]) -> None:
    """Without can_implement's M % 4 == 0, the M-major A's copy of 4 rows reads past M: found, and compiled CuTe
    reads there."""
    accept = [c for c in keys["accept"][1] if not c.startswith("M %")]
    c = sm90_cpasync.predication(keys["fields"][1], keys["shown"][1], "A", accept)
    assert c["verdict"] == "invalid" and c["obligation"] == "row < M" and c["witness"]["M"] % 4 != 0
    replay = sm90_cpasync.replay(keys["instances"], 1, "A", c["witness"])
    assert replay["out_of_bounds"] > 0 and replay["first"][0] >= c["witness"]["M"]


def test_first_tile_states_loads_predicates() -> None:
    """Two threads, each one copy of two values along k: the column predicate is the copy's first value's."""
    part: sm90_cpasync.Partition = {(t, v, 0, 0): (0, 2 * t + v) for t in range(2) for v in range(2)}
    got = sm90_cpasync.first_tile(part, rho=1, res_k=-1)
    # k residue -1: the first column (k = -1 unshifted) is out of bounds; thread 0's copy starts there: cleared
    assert got == {(0, 0, 0): ("C", -1), (0, 0, 1): ("C", 0), (1, 0, 2): ("L", 1), (1, 0, 3): ("L", 2)}
    assert sm90_cpasync.first_tile(part, rho=0, res_k=0)[(1, 0, 2)] == ("Z", 2)


@pytest.mark.cute
def test_a_stream_k_unit_starting_at_a_later_k_tile_drops_columns(keys: dict[str, Any]) -> None:
    """A stream-K configuration's work unit may start at a later k-tile with the same residues: its first stage
    clears in-bounds columns that no unit reads (replayed on load()'s statements compiled; docs/library.md,
    finding 7)."""
    d, accept = keys["shown"][1], keys["accept"][1]
    assert sm90_cpasync.stream_k(d, "A", accept, [KEYS[0]]) is None
    c = sm90_cpasync.stream_k(d, "A", accept, [KEYS[1], KEYS[0]])
    assert c is not None and c["verdict"] == "invalid" and c["configs"] == [KEYS[1]]
    w = c["witness"]
    assert w["K"] == 64 + 4 and c["first_k_tile"] == 1
    assert c["splits"] == 2
    # compiled CUTLASS's stream-K scheduler (of this key's collectives) gives tile 0 two units, the second from
    # k-tile 1, and load()'s statements compiled clear 60 in-bounds columns of each row there
    replay = sm90_cpasync.replay(keys["instances"], 1, "A", w, splits=2)
    assert replay["units_of_tile_0"] == [[0, 1], [1, 1]] and replay["first_k_tile"] == 1
    assert replay["out_of_bounds"] == 0 and replay["not_read"] == w["M"] * 60
    assert sm90_cpasync.replay(keys["instances"], 1, "A", w, kt0=0)["not_read"] == 0
    # its own heuristic (splits 1) on 132 SMs splits K too: 256x256x1000 runs each of its 4 tiles as two units of
    # 8 k-tiles, the second from k-tile 8, where the k residue is -24
    units = sm90_cpasync.stream_k_units(keys["instances"], 1, 256, 256, 1000)
    assert sorted(u[3:] for u in units if u[:3] == (0, 0, 0)) == [(0, 8), (8, 8)]
    at8 = sm90_cpasync.replay(keys["instances"], 1, "A", {"M": 256, "N": 256, "K": 1000, "L": 1}, kt0=8)
    assert at8["out_of_bounds"] == 0 and at8["not_read"] == 128 * 24


def test_the_stream_k_check_follows_the_k_modulus() -> None:
    """Where can_implement makes K a multiple of BLK_K there is no residue to drop; a modulus that does not divide
    BLK_K is not decided; a key without stream-K configurations has no such check."""
    d = {"TILE": "(_128,_128,_64)"}
    sk = ["cutlass3x_sm90_x_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem"]
    assert sm90_cpasync.stream_k(d, "A", ["K % 8 == 0"], ["cutlass3x_sm90_x_cpasync_warpspecialized"]) is None
    assert sm90_cpasync.stream_k(d, "A", ["K % 128 == 0"], sk)["verdict"] == "valid"  # type: ignore[index]
    assert sm90_cpasync.stream_k(d, "A", ["K % 48 == 0"], sk)["verdict"] == "unknown"  # type: ignore[index]
    c = sm90_cpasync.stream_k(d, "B", ["K % 8 == 0", "M % 2 == 0"], sk)
    assert c is not None and c["witness"] == {"M": 2, "N": 1, "K": 72, "L": 1} and c["configs"] == sk
    assert sm90_cpasync._step(["K % 4 == 0", "K % 6 == 0", "M % 8 == 0"], "K") == 12
