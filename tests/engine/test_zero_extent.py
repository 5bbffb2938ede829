"""Zero-extent layouts (issue 13): a division that runs once per coordinate runs for none of an empty layout, so
it is no division by zero there; divisions CuTe performs unconditionally still are.  Checked against compiled
CuTe, which returns a correct empty result."""

from __future__ import annotations

import pytest

from verifier import parse_layout
from verifier.cli.app import main
from verifier.core.symbols import Symbols
from verifier.engine.checks import check
from verifier.engine.verdicts import INVALID, PROVED, REFUTED, VALID
from verifier.engine.verify import verify
from verifier.oracle.sweep import SweepCase, sweep
from verifier.run import problems

LAYOUT = "(M/4,_4):(_4,_1)"
RANGE = ["M <= 12"]


@pytest.mark.parametrize(("op", "args"), [("coalesce", [LAYOUT]), ("right_inverse", [LAYOUT]),
                                          ("downcast", ["2", LAYOUT])])
def test_zero_extent_operations_are_valid(op: str, args: list[str]) -> None:
    table = Symbols()
    operands = problems.build(op, args, table, RANGE)
    v = verify(op, operands, table)
    assert v.verdict == VALID, v.reason
    assert all(o.status != REFUTED for o in v.obligations if o.id == "DIV0")


@pytest.mark.parametrize(("prop", "args"), [("bijective", [LAYOUT]), ("injective", [LAYOUT]),
                                            ("in_bounds", [LAYOUT, "12"])])
def test_zero_extent_properties_are_proved(prop: str, args: list[str]) -> None:
    table = Symbols()
    operands = problems.build(prop, args, table, RANGE, prop=True)
    assert check(prop, operands, table).verdict == PROVED


@pytest.mark.cute
def test_compiled_cute_is_correct_on_the_zero_extents(cute) -> None:
    layout = parse_layout(LAYOUT)
    envs = [{"M": m} for m in range(1, 13)]
    results = sweep([SweepCase("coalesce", (layout,)), SweepCase("right_inverse", (layout,)),
                     SweepCase("downcast", (layout,), (2,))], [envs] * 3)
    for r in results:
        assert r.rejected is None and set(r.status.values()) == {"correct"}


def test_a_division_cute_performs_is_still_a_division_by_zero(capsys) -> None:
    # composition divides by the shape of A (layout.hpp:1076-1095) whatever B's coordinates: UB at M < 4.
    rc = main(["composition", "(M/4,_4):(_4,_1)", "(_2):(_1)", "--assume", "M <= 12"])
    out = capsys.readouterr().out
    assert rc == 1 and out.startswith(f"{INVALID}:")
    assert "DIV0" in out or "undefined behaviour" in out


def test_cli_zero_extent_cases(capsys) -> None:
    for argv in (["coalesce", LAYOUT], ["check", "bijective", LAYOUT], ["check", "in_bounds", LAYOUT, "12"]):
        assert main([*argv, "--assume", "M <= 12"]) == 0, argv
        capsys.readouterr()


# Issue 29, class 11: a divide of an empty layout is an empty divide.  CuTe's complement promises
# size(R) >= size(cotarget) / size(filter(L)) (layout.hpp:1167), which an empty cotarget meets with an empty R;
# compiled CuTe gives logical_divide(0:_1, _2:_1) == (_2,0):(_1,_2) with no UB, so CPL-POST-NONEMPTY asks for a
# non-empty complement only of a non-empty cotarget.
EMPTY_DIVIDES = [("logical_divide", ["M/4:_1", "_2:_1"], {"N": (1, 1)}),
                 ("zipped_divide", ["(M/4,N):(_1,M/4)", "<_1:_0, _2:_1>"], {"N": (1, 64)})]


@pytest.mark.parametrize(("op", "args", "ranges"), EMPTY_DIVIDES)
def test_a_divide_of_an_empty_layout_is_no_error(op: str, args: list[str], ranges: dict) -> None:
    table = Symbols()
    operands = problems.build(op, args, table, [*RANGE, *(f"{n} <= {hi}" for n, (_, hi) in ranges.items()
                                                          if any(n in a for a in args))])
    v = verify(op, operands, table)
    assert v.verdict == VALID, v.reason
    nonempty = [o for o in v.obligations if o.id == "CPL-POST-NONEMPTY"]
    assert nonempty and all(o.status == PROVED for o in nonempty)


def test_an_empty_complement_of_a_non_empty_cotarget_is_still_refuted() -> None:
    # (M,_2):(_1,_2) overlaps itself for M > 2: a 0-extent mode in the complement of a non-empty cotarget (CPL-2).
    table = Symbols()
    v = verify("complement", problems.build("complement", ["(M,_2):(_1,_2)", "_32"], table), table)
    assert v.verdict == INVALID
    assert any(o.id == "CPL-POST-NONEMPTY" and o.status == REFUTED for o in v.obligations)


@pytest.mark.cute
@pytest.mark.parametrize(("op", "args", "ranges"), EMPTY_DIVIDES)
def test_compiled_cute_divides_an_empty_layout_correctly(cute, op: str, args: list[str], ranges: dict) -> None:
    table = Symbols()
    operands = problems.build(op, args, table)
    names = [s.name for s in table]
    envs = [{"M": m, **({"N": n} if "N" in names else {})}
            for m in range(1, 13) for n in range(ranges["N"][0], min(ranges["N"][1], 4) + 1)]
    [r] = sweep([SweepCase(op, tuple(operands))], [envs])
    assert r.rejected is None
    assert {r.of(env) for env in envs if env["M"] < 4} == {"correct"}, r.status
