"""No vacuous verdicts (issue 13): assumptions that admit no value, assumptions that divide by zero, negative
extents and literal divisions by zero are bad input (exit 2, one line) in the CLI, the Python API, the pytest
helpers, spec files and theorems; never ``valid`` / ``proved``."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from verifier.cli.app import main
from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.symbols import Symbols
from verifier.engine.checks import check
from verifier.engine.verify import verify
from verifier.run import problems
from verifier.run.theorems import Theorem, TheoremError, injective, valid
from verifier.solver.domain import VacuousAssumptions, admitted_value
from verifier.testing import assert_proved, assert_valid

EQUIV = ["check", "equivalent", "(M,N):(_1,M)", "(M,N):(N,_1)"]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _bad_input(capsys, *argv: str, says: str = "") -> str:
    rc, out, err = _run(capsys, *argv)
    assert rc == 2, (argv, out, err)
    assert out == "" and err.startswith("cute-verify: error: ") and err.count("\n") == 1, err
    assert says in err, err
    return err


@pytest.mark.parametrize("assumption", ["M < M", "-M > 0", "2*M == 1", "M != M"])
def test_contradictory_assumptions_are_bad_input_and_named(capsys, assumption: str) -> None:
    err = _bad_input(capsys, *EQUIV, "--assume", assumption, says="admit no value")
    assert assumption.replace(" ", "") in err.replace(" ", "")


@pytest.mark.parametrize("assumption", ["M % 0 == 0", "M/(M-M) == 0"])
def test_a_literal_division_by_zero_in_an_assumption_is_bad_input(capsys, assumption: str) -> None:
    _bad_input(capsys, *EQUIV, "--assume", assumption, says="division by zero")


def test_an_assumption_that_divides_by_zero_admits_nothing_there(capsys) -> None:
    # Without the assumption the composition is invalid at M=5, N=1 (compiled CuTe agrees: test_engine_conformance).
    rc, out, _ = _run(capsys, "composition", "(M,N):(_1,M)", "_4:_2", "--timeout", "5")
    assert rc == 1 and out.startswith("invalid:")
    _bad_input(capsys, "composition", "(M,N):(_1,M)", "_4:_2", "--assume", "M/0 == 1", says="division by zero")
    _bad_input(capsys, "check", "injective", "(M,N):(_1,_1)", "--assume", "M/0 >= 0", says="division by zero")
    # N <= 1 admits only N == 1, where M/(N-1) divides by zero: nothing is admitted.
    err = _bad_input(capsys, "check", "injective", "(M,N):(_1,_1)", "--assume", "N <= 1", "--assume",
                     "M/(N-1) >= 0", says="admit no value")
    assert "M/(N-1) >= 0" in err
    err = _bad_input(capsys, *EQUIV, "--assume", "N <= 1", "--assume", "M/(N-1) >= 0", says="admit no value")


def test_an_assumption_that_divides_by_zero_only_somewhere_excludes_those_values() -> None:
    # N == 1 is excluded (the assumption is undefined there), N == 2 is admitted: not vacuous.
    table = Symbols()
    args = problems.build("injective", ["(M,N):(_1,_1)"], table, ["N <= 2", "M/(N-1) >= 0"], prop=True)
    v = check("injective", args, table, timeout=5)
    assert v.verdict == "refuted" and v.counterexample is not None
    assert v.counterexample.params["N"] == 2


def test_negative_and_divided_by_zero_extents_are_bad_input(capsys) -> None:
    _bad_input(capsys, "check", "bijective", "(-M):(_1)", says="negative")
    _bad_input(capsys, "check", "injective", "(M,_4-M):(_1,_8)", "--assume", "M <= 8", says="negative")
    _bad_input(capsys, "coalesce", "(M-N,_4):(_4,_1)", says="negative")
    _bad_input(capsys, "eval", "(M/0):(_1)", says="division by zero")
    _bad_input(capsys, "composition", "(M%(2-2)):(_1)", "_4:_1", says="division by zero")
    # Never negative under the assumptions: decided as usual.
    rc, out, _ = _run(capsys, "check", "injective", "(M,_8-M):(_1,_8)", "--assume", "M <= 7")
    assert rc == 0 and out.startswith("proved:")


def test_the_python_api_raises_instead_of_answering() -> None:
    table = Symbols()
    args = problems.build("composition", ["(M,N):(_1,M)", "_4:_2"], table, ["M < M"])
    with pytest.raises(VacuousAssumptions, match="admit no value"):
        verify("composition", args, table)
    table = Symbols()
    args = problems.build("equivalent", ["(M,N):(_1,M)", "(M,N):(N,_1)"], table, ["2*M == 1"], prop=True)
    with pytest.raises(VacuousAssumptions, match=r"2\*M == 1"):
        check("equivalent", args, table)


def test_the_pytest_helpers_fail_on_vacuous_assumptions() -> None:
    with pytest.raises(LayoutError, match="admit no value"):
        assert_valid("composition", "(M,N):(_1,M)", "_4:_2", assume=["M < M"])
    with pytest.raises(LayoutError, match="admit no value"):
        assert_proved("equivalent", "(M,N):(_1,M)", "(M,N):(N,_1)", assume=["M != M"])
    with pytest.raises(LayoutError, match="admit no value"):
        assert_valid("coalesce", "(M,_4):(_4,_1)", symbols={"M": {"max": 8}}, assume=["M*M > 64"])


def test_spec_files_reject_assumptions_that_divide_by_zero_everywhere(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("v.cute.toml").write_text('[symbols]\nM = { min = 1, max = 64 }\nN = { min = 1, max = 1 }\n\n'
                                   '[[check]]\nname = "c"\nop = "coalesce"\nargs = ["(M,N):(_1,M)"]\n'
                                   'assume = ["M/(N-1) >= 0"]\n')
    rc, _, err = _run(capsys, "run", "v.cute.toml", "--no-cache")
    assert rc == 2 and "v.cute.toml:9: check[0].assume:" in err and "no value" in err


def test_theorems_reject_vacuous_assumptions() -> None:
    for statement in (valid("coalesce", "(M,_4):(_1,M)"), injective("(M,_4):(_1,M)")):
        t = Theorem("vacuous", statement, symbols="M", assume=["M < M"])
        with pytest.raises(TheoremError, match="vacuous: .*admit no value"):
            t.run()
    t = Theorem("vacuous-div", injective("(M,_4):(_1,M)"), symbols={"M": {"max": 8}, "N": {"max": 1}},
                assume=["M/(N-1) == 1"])
    with pytest.raises(TheoremError, match="admit no value"):
        t.run()


# -- random assumption sets: those that admit no value are rejected, never proved ---------------------------------

HI = 9
ATOMS = st.one_of(
    st.tuples(st.sampled_from(["M", "N", "M+N", "2*M", "M-N", "M*N", "3*N-M"]),
              st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), st.integers(-3, 20)).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.tuples(st.sampled_from(["M", "N", "M+N"]), st.integers(2, 5), st.integers(0, 4)).map(
        lambda t: f"{t[0]} % {t[1]} == {t[2]}"),
    st.tuples(st.sampled_from(["M", "N*M"]), st.sampled_from(["N-1", "M-N", "N-2", "M-3"]),
              st.sampled_from(["<", ">=", "=="]), st.integers(-1, 3)).map(
        lambda t: f"{t[0]}/({t[1]}) {t[2]} {t[3]}"),
    st.sampled_from(["M < N", "N < M", "M == N", "M != N", "M <= N", "N <= M"]),
)


def _admitted_values(table: Symbols) -> list[dict[str, int]]:
    out = []
    for m, n in itertools.product(range(1, HI + 1), repeat=2):
        env = {"M": m, "N": n}
        try:
            if all(r.evaluate(env) for r in table.relations):
                out.append(env)
        except UndefinedBehavior:
            continue
    return out


def _admitted(table: Symbols) -> bool:
    return bool(_admitted_values(table))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(ATOMS, min_size=1, max_size=4))
def test_random_assumption_sets_that_admit_nothing_are_rejected(assumptions: list[str]) -> None:
    table = Symbols()
    table.declare("M", lo=1, hi=HI)  # a stated range: an assumption only narrows it
    table.declare("N", lo=1, hi=HI)
    try:
        args = problems.build("equivalent", ["(M,N):(_1,M)", "(M,N):(N,_1)"], table, assumptions, prop=True)
    except LayoutError:
        event("rejected while parsed")
        return  # a contradiction of the ranges alone, found while the assumption is added: also bad input
    if _admitted(table):
        event("admits a value")
        values, why = admitted_value(table)
        assert why is None and values is not None
        assert all(r.evaluate(values) for r in table.relations)
        # (M,N):(_1,M) and (M,N):(N,_1) are the same function exactly when M == 1 or N == 1.
        differ = [env for env in _admitted_values(table) if env["M"] > 1 and env["N"] > 1]
        v = check("equivalent", args, table, timeout=5)
        if v.verdict == "unknown":  # a timeout, never a wrong answer; it must say why
            assert v.reason, assumptions
            return
        assert v.verdict == ("refuted" if differ else "proved"), (assumptions, v.verdict, differ[:3])
        if differ:
            assert {k: v.counterexample.params[k] for k in ("M", "N")} in differ, (assumptions, v.counterexample)
        return
    event("admits nothing")
    with pytest.raises(VacuousAssumptions):
        check("equivalent", args, table, timeout=5)
    with pytest.raises(VacuousAssumptions):
        verify("coalesce", [args[0]], table, timeout=5)
