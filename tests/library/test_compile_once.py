"""A program is compiled once on a host however many workers ask for it at once (``cute_cpp.build``'s lock), and a
sweep's derive unit compiles its batch's symbolic ``can_implement`` program ahead of the keys' verifications
(``Units.ahead``, ``verify.compile_ahead``)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from bench import library_synthetic as syn
from verifier.library import can_implement, distribute, phases, verify
from verifier.oracle import cute_cpp


def _plain(cases: Any, rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    return "int main() { return 0; }\n", {}


@pytest.mark.cute  # g++ on a one-line program
def test_workers_asking_for_one_program_at_once_compile_it_once(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTE_VERIFY_CACHE", str(tmp_path))
    compiles: list[str] = []
    real = subprocess.run

    def counted(cmd: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(cmd, list) and cmd and cmd[0] == cute_cpp.compiler() and "-std=c++17" in cmd:
            compiles.append(cmd[-1])
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    cases = [cute_cpp.CppCase(code="once", slots=(), label="once")]
    got: list[Path] = []
    threads = [threading.Thread(target=lambda: got.append(cute_cpp.build(cases, unit=_plain).path)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 6 and len(set(got)) == 1 and got[0].is_file()
    assert len(compiles) == 1  # the five others waited for it and read it from the cache
    other = [cute_cpp.CppCase(code="another", slots=(), label="another")]
    cute_cpp.build(other, unit=lambda c, r: ("int main() { return 1; }\n", {}))
    assert len(compiles) == 2  # a different program is compiled, as before


def test_the_derive_unit_prepares_its_batch_for_the_verifications() -> None:
    seen: list[tuple[Any, ...]] = []
    units = phases.Units(derive=syn.derive, problems=syn.problems, decide=syn.decide, verify=syn.verify,
                         ahead=lambda item, keys, derived: seen.append((item, dict(keys), dict(derived))))
    payloads = syn.payloads(4, 0.0)
    [batch] = phases.batches(payloads, list(payloads), 8)
    item = {"keys": batch, "batch": [[k, payloads[k]["source"]] for k in batch]}
    out = phases.derive_unit({"units": units, "item": item, "keys": {k: payloads[k] for k in batch}})
    [(given, keys, derived)] = seen
    assert given is item and set(keys) == set(batch) and derived == out["derived"]
    assert phases.LIBRARY.ahead is verify.compile_ahead and syn.UNITS.ahead is None


def test_a_batch_no_key_of_which_runs_can_implement_symbolically_compiles_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    monkeypatch.setattr(can_implement, "compile_batch", lambda *a, **k: asked.append(a))
    keys = {"k0": {"fields": {"is_3x": False}}, "k1": {"fields": {"is_3x": True}}}
    # a 2.x kernel, and a 3.x one whose instance CuTe rejected (nothing derived): neither runs the symbolic program
    verify.compile_ahead({"batch": [["k0", ""], ["k1", ""]]}, keys, {"k0": {}, "k1": {"REJECTED": "static_assert"}})
    assert asked == []


def _ahead(item: Any, keys: Any, derived: Any) -> dict[str, Any]:
    return {k: {"for": k} for k in derived}


def _verify_with_ahead(payload: Any) -> dict[str, Any]:
    return {**syn.verify(payload), "ahead": payload.get("can_implement_ahead")}


def test_what_the_derive_unit_computed_ahead_for_a_key_reaches_its_verification_and_is_stored(
        tmp_path: Path) -> None:
    units = phases.Units(derive=syn.derive, problems=syn.problems, decide=syn.decide, verify=_verify_with_ahead,
                         ahead=_ahead)
    payloads = syn.payloads(5, 0.0)
    store = tmp_path / "keys.jsonl"
    run = phases.run(payloads, list(payloads), store, "t", "c", engine="local", workers=1, batch=2, units=units)
    assert run.keys.computed == 5 and run.keys.errors == 0
    with distribute.ResultStore(store, tool="t", cutlass="c") as s:
        assert {k: r.result["ahead"] for k, r in s.records.items() if r.result} == {k: {"for": k} for k in payloads}
    # the key store lost: the keys are verified again from the derive store, which kept what was computed ahead
    store.unlink()
    again = phases.run(payloads, list(payloads), store, "t", "c", engine="local", workers=1, batch=2, units=units)
    assert again.derive is not None and again.derive.computed == 0 and again.keys.computed == 5
    with distribute.ResultStore(store, tool="t", cutlass="c") as s:
        assert {k: r.result["ahead"] for k, r in s.records.items() if r.result} == {k: {"for": k} for k in payloads}
