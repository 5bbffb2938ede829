"""What the verify phase computes once a process and shares between keys (``parts.shared``, ``parts.stage``, the
solver's answers in ``solver.paths.satisfy``) answers exactly what computing it again answers: a key verified with
every process cache empty and the same key verified from the caches give the same answer
(bench/library_verify_cost.py compares the whole answers with the previous commit's on a sample of keys)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from verifier.core.symbols import Symbols, declaration
from verifier.library import parts
from verifier.notation.cpp import parse_relation
from verifier.solver import paths
from verifier.solver.budget import Budget

TMA_EPI = ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x2x1_0_tnn_align8_"
           "warpspecialized_cooperative_epi_tma")
NO_SMEM = "cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_256x128x64_1x2x1_0_tnn_align8_warpspecialized_epi_nosmem"


def test_shared_keeps_an_answer_under_exactly_what_it_read() -> None:
    calls: list[dict[str, Any]] = []

    def f(d: Any, scale: int) -> dict[str, int]:
        calls.append(dict(d))  # reads every key: only for the record below
        return {"v": (d["a"] + (d["b"] if d.get("c") else 0)) * scale}

    def g(d: Any, scale: int) -> dict[str, int]:
        calls.append({})
        return {"v": (d["a"] + (d["b"] if d.get("c") else 0)) * scale}

    assert parts.shared("test g", g, {"a": 1, "c": 0, "b": 5}, 1) == {"v": 1}
    # b was not read (c is 0): another b, or another key nobody read, is the same answer
    assert parts.shared("test g", g, {"a": 1, "c": 0, "b": 7, "z": 3}, 1) == {"v": 1} and len(calls) == 1
    # a value read that differs, a read key that is absent, or another plain argument: computed again
    assert parts.shared("test g", g, {"a": 1, "c": 1, "b": 7}, 1) == {"v": 8} and len(calls) == 2
    assert parts.shared("test g", g, {"a": 1, "b": 7}, 1) == {"v": 1} and len(calls) == 3
    assert parts.shared("test g", g, {"a": 1, "c": 0, "b": 5}, 2) == {"v": 2} and len(calls) == 4
    # a caller's edit of its answer is its own
    mine = parts.shared("test g", g, {"a": 1, "c": 0, "b": 5}, 1)
    mine["v"] = 99
    assert parts.shared("test g", g, {"a": 1, "c": 0, "b": 5}, 1) == {"v": 1} and len(calls) == 4
    # iterating the mapping reads all of it: any other key is another answer
    assert parts.shared("test f", f, {"a": 1}, 1) == {"v": 1}
    assert parts.shared("test f", f, {"a": 1, "z": 0}, 1) == {"v": 1} and len(calls) == 6


def test_satisfy_answers_a_query_asked_before_as_it_did_and_keeps_no_unknown() -> None:
    t = Symbols()
    for n in ("M", "K"):
        t.table[n] = declaration(n)
    conds = [parse_relation("M % 8 != 0", t), parse_relation("M * K == 24", t)]
    first, b1 = paths.satisfy(t, conds, b := Budget(10**6)), b.spent
    kept = len(paths._ANSWERS)
    second, b2 = paths.satisfy(t, conds, b := Budget(10**6)), b.spent
    assert first == second and first[0] == "sat" and b1 == b2 > 0 and len(paths._ANSWERS) == kept
    values = first[1]
    assert values is not None and values["M"] % 8 != 0 and values["M"] * values["K"] == 24
    # another budget is another query; an answer the budget cut short is never kept
    status, _, _ = paths.satisfy(t, conds, Budget(500))
    assert status == "unknown" and len(paths._ANSWERS) == kept


def _payload(name: str) -> dict[str, Any]:
    from verifier.library.configs import enumerate_gemms
    from verifier.library.keys import group

    e = enumerate_gemms("90a", name)
    (g,) = group(e.configs, "tool", "4.2.0")
    return {"key": g.key, "fields": g.fields, "representative": g.representative, "configs": list(g.configs),
            "source": e.source(g.representative)}


def _plain(r: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(r, sort_keys=True))
    out.pop("seconds", None)
    return out


@pytest.mark.cute
def test_a_key_verified_from_the_process_caches_is_the_key_verified_afresh() -> None:
    from verifier.library.verify import verify_key

    payloads = [_payload(TMA_EPI), _payload(NO_SMEM)]
    fresh = []
    for p in payloads:
        parts._SHARED.clear()
        paths._ANSWERS.clear()
        fresh.append(_plain(verify_key(p)))
    sizes = (len(paths._ANSWERS), sum(len(a) for f in parts._SHARED.values() for a in f.values()))
    # the second key was verified with the first key's answers still there: both again, every answer kept
    again = [_plain(verify_key(p)) for p in payloads]
    assert (len(paths._ANSWERS), sum(len(a) for f in parts._SHARED.values() for a in f.values())) >= sizes
    assert again == fresh
    assert [r["status"] for r in fresh] == ["verified", "verified"]
    assert fresh[0]["checks"]["epi_r2s"]["verdict"] in ("proved", "refuted")
    assert fresh[0]["can_implement"]["derivation"].startswith("symbolic")


@pytest.mark.cute
def test_a_section_computed_ahead_is_used_only_by_the_key_whose_inputs_it_was_computed_from(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The derive unit's ``can_implement`` sections (``verify.compile_ahead``) spare the key's verification the
    symbolic exploration, with the same answer; one whose inputs differ from the key's is not used."""
    from verifier.library import can_implement, derive
    from verifier.library.verify import compile_ahead, verify_key

    payloads = {}
    for name in (TMA_EPI, NO_SMEM):  # one batch, as a derive unit has it
        p = _payload(name)
        payloads[p["key"]] = p
    keys = list(payloads)
    batch = [[payloads[k]["representative"], payloads[k]["source"]] for k in keys]
    shown = derive.derive_many([derive.Instance(n, s) for n, s in batch])
    for i, (k, d) in enumerate(zip(keys, shown)):
        payloads[k].update(derived=d, batch=batch, index=i)
    alone = {k: _plain(verify_key(p)) for k, p in payloads.items()}
    ahead = json.loads(json.dumps(compile_ahead({"keys": keys, "batch": batch, "include": None}, payloads,
                                                {k: p["derived"] for k, p in payloads.items()})))
    assert set(ahead) == set(keys)

    explored: list[int] = []
    inner = can_implement.derive_acceptance
    def counted(*a: Any, **k: Any) -> Any:
        explored.append(1)
        return inner(*a, **k)
    monkeypatch.setattr(can_implement, "derive_acceptance", counted)
    given = {k: _plain(verify_key({**p, "can_implement_ahead": ahead[k]})) for k, p in payloads.items()}
    assert given == alone and explored == []
    # A section is the key's only under the digest of its own inputs: another key's (or one stated for other
    # inputs) is computed again, with the key's own answer; the digest's own key is taken as it is.
    first, second = keys
    swapped = _plain(verify_key({**payloads[first], "can_implement_ahead": ahead[second]}))
    assert swapped == alone[first] and explored == [1]
    marked = {**ahead[first], "section": {**ahead[first]["section"], "paths": {"kGemm": -1}}}
    used = _plain(verify_key({**payloads[first], "can_implement_ahead": marked}))
    assert used["can_implement"]["paths"] == {"kGemm": -1} and explored == [1]
    moved = {**marked, "key": can_implement.section_key([derive.Instance(*batch[0])], 0, {}, [])}
    assert _plain(verify_key({**payloads[first], "can_implement_ahead": moved})) == alone[first]
    assert explored == [1, 1]
