"""Parsing a spec file never asks the solver (issue 27): ``spec.parse_suite`` reads, validates and builds the
checks; whether the assumptions admit a value is decided afterwards, through ``engine.problem.decide``, with the
same ``file:line: key`` error as before."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from verifier.core.errors import LayoutError
from verifier.engine import problem
from verifier.engine.verdicts import PROVED, REFUTED
from verifier.run import spec
from verifier.solver import domain, queries, solve

ROOT = Path(__file__).resolve().parents[2]

LINKED = '''
assume = ["ldA >= M"]

[symbols]
M   = { min = 1, max = 4096 }
K   = { min = 1, max = 4096 }
ldA = { min = 1, max = 1024 }

[[check]]
name = "A"
op = "zipped_divide"
args = ["(M,K):(_1,ldA)", "<_128,_32>"]
assume = ["M % 128 == 0", "K % 32 == 0"]

[[check]]
name = "K alone"
property = "injective"
args = ["(K):(_1)"]
'''


def _no_solver(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way into the solver raises, and says which was tried."""
    tried: list[str] = []

    def refuse(name: str):  # type: ignore[no-untyped-def]
        def call(*args: object, **kwargs: object) -> object:
            tried.append(name)
            raise AssertionError(f"{name} called while parsing a spec file")
        return call

    monkeypatch.setattr(domain, "admitted_value", refuse("admitted_value"))
    monkeypatch.setattr(queries, "extends_everywhere", refuse("extends_everywhere"))
    monkeypatch.setattr(solve, "solve", refuse("solve"))
    monkeypatch.setattr(solve, "check_sat", refuse("check_sat"))
    monkeypatch.setattr(z3.Solver, "check", refuse("z3.Solver.check"))
    monkeypatch.setattr(problem, "decide", refuse("decide"))
    spec.relevant_relations.cache_clear()
    return tried


FILES = [*sorted((ROOT / "examples").glob("*.cute.toml")), *sorted((ROOT / "tests/cpp/data").glob("*.toml"))]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_parsing_a_spec_file_never_calls_the_solver(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tried = _no_solver(monkeypatch)
    checks, _ = spec.parse_suite(path)
    assert checks and not tried


def test_parsing_linked_relations_never_calls_the_solver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "linked.cute.toml").write_text(LINKED)
    tried = _no_solver(monkeypatch)
    checks, admissions = spec.parse_suite(tmp_path / "linked.cute.toml")
    assert not tried
    # the relations and the check's own assumptions are there to be decided, not decided yet
    assert [c.name for c in checks] == ["A", "K alone"]
    assert [a.problem.kind for a in admissions] == ["admits", "spec_assumptions"]


def test_loading_decides_the_admissions_through_decide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "linked.cute.toml").write_text(LINKED)
    _, admissions = spec.parse_suite(tmp_path / "linked.cute.toml")
    assert [problem.decide(a.problem).verdict for a in admissions] == [PROVED, PROVED]
    seen: list[str] = []
    real = problem.decide

    def counting(p: problem.Problem) -> object:
        seen.append(p.kind)
        return real(p)

    monkeypatch.setattr(spec, "decide", counting)
    assert [c.name for c in spec.load_suite(tmp_path / "linked.cute.toml")] == ["A", "K alone"]
    assert seen == ["admits", "spec_assumptions", "admits"]  # a check's: its relevant relations, then admits


@pytest.mark.parametrize("text, key, words", [
    ('assume = ["M >= 60", "M + 1 <= N", "N <= 50"]\n[symbols]\nM = { min = 1, max = 64 }\nN = { min = 1, max = 64 }\n'
     '[[check]]\nname = "x"\nproperty = "injective"\nargs = ["(M,N):(_1,M)"]\n', "assume[2]", "contradicts"),
    ('[symbols]\nM = { min = 1, max = 64 }\nN = { min = 1, max = 64 }\n[[check]]\nname = "x"\n'
     'property = "injective"\nargs = ["(M,N):(_1,M)"]\nassume = ["M + N > 200"]\n', "check[0].assume",
     "contradict the symbols' assumptions"),
])
def test_empty_assumptions_are_parsed_then_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
                                                   key: str, words: str) -> None:
    path = tmp_path / "empty.cute.toml"
    path.write_text(text)
    with monkeypatch.context() as m:
        _no_solver(m)
        checks, admissions = spec.parse_suite(path)
    assert checks and admissions
    refuted = [a for a in admissions if problem.decide(a.problem).verdict == REFUTED]
    assert refuted and f": {key}: " in str(refuted[0].error) and words in str(refuted[0].error)
    with pytest.raises(LayoutError) as err:
        spec.load_suite(path)
    assert str(err.value) == str(refuted[0].error)
