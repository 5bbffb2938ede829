"""``cute-verify cpp``: the user's own C++ run on CuTe's headers with symbolic run-time integers
(verifier/oracle/cpp.py).

Each C++ function here is compiled once (the program cache keys it by its driver's text); the spec file
``data/seeds.spec.toml`` states the same layouts, and its verdicts are compared with the C++ front end's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier.algebra.registry import CALL, RECAST, REGISTRY, SLICE, TEMPLATED, TENSOR
from verifier.cli.app import main
from verifier.cli.cpp import shown
from verifier.engine.verdicts import INVALID, UNKNOWN, VALID
from verifier.oracle import cpp

DATA = Path(__file__).parent / "data"


def _at(report: cpp.Report, line: int, kind: str | None = None) -> list[cpp.Finding]:
    return [f for f in report.findings if f.line == line and (kind is None or f.kind == kind)]


def test_recording_layer_has_every_compiled_registry_operation() -> None:
    """The layer is generated from the registry: every operation CuTe is called for has its recording macro."""
    layer = cpp.recording_layer()
    for name, row in REGISTRY.items():
        if row.cpp in (CALL, SLICE, TENSOR):
            assert f"#define {name}(...) cv__{name}(" in layer
        elif row.cpp in (TEMPLATED, RECAST):
            assert f"#define {name} cv__{name}" in layer
        else:
            assert f"cv__{name}" not in layer


def test_function_and_parameters_are_read() -> None:
    fn = cpp.find_function(DATA / "seeds.cpp", "compose_2x3")
    assert [(p.name, p.symbolic) for p in fn.params] == [("m", "int"), ("n", "int")]
    assert (fn.first_line, fn.last_line) == (9, 14)
    with pytest.raises(cpp.CppInputError, match="no definition"):
        cpp.find_function(DATA / "seeds.cpp", "nothing")


def test_user_file_untouched_and_driver_keeps_lines() -> None:
    fn = cpp.find_function(DATA / "seeds.cpp", "recast_16")
    text = cpp.driver(fn)
    assert f'#line 1 "{DATA / "seeds.cpp"}"' in text
    assert "#define int cute_symbolic::Int<int>" in text and "#undef int" in text
    # every #line directive after an inserted block names the line that follows it in the user's file
    lines = text.split("\n")
    user = (DATA / "seeds.cpp").read_text().split("\n")
    for k, line in enumerate(lines[:-1]):
        m = re.match(rf'#line (\d+) "{re.escape(str(DATA / "seeds.cpp"))}"', line)
        if m and not lines[k + 1].startswith("#"):
            assert lines[k + 1] == user[int(m.group(1)) - 1]


@pytest.mark.cute
def test_seed_composition_found_at_its_line() -> None:
    r = cpp.verify_cpp(f"{DATA / 'seeds.cpp'}::compose_2x3", {"m": (1, 64), "n": (1, 64)})
    [f] = _at(r, 12, "operation")
    assert f.verdict.verdict == INVALID
    c = f.verdict.counterexample
    assert c is not None and set(c.params) >= {"m", "n"}
    # the counterexample is CuTe's: the composed layout at its coordinate differs from col(row(i))
    m, n = c.params["m"], c.params["n"]
    i = int(c.coordinate)  # type: ignore[arg-type]
    row = (i // m) * 1 + (i % m) * n  # (m,n):(n,1) at i
    col = (row % m) + (row // m) * m if row < m * n else None
    assert col is None or col == c.expected


@pytest.mark.cute
def test_seed_recast_found_at_its_lines_and_spec_agrees() -> None:
    from verifier.run import batch
    from verifier.run.spec import load

    r = cpp.verify_cpp(f"{DATA / 'seeds.cpp'}::recast_16", {"n": (1, 64)})
    [recast] = _at(r, 19, "operation")
    [up] = _at(r, 20, "operation")
    for f in (recast, up):
        assert f.verdict.verdict == INVALID and f.verdict.counterexample is not None
        assert f.verdict.counterexample.params["n"] > 1  # a (1):(1) layout upcasts fine
    assert r.exit_code == 1
    # the same layouts as a spec file: the same verdicts, operation by operation
    checks = {c.name: c for c in load([DATA / "seeds.spec.toml"])}
    # two worker processes: the cpp check runs in a spawned worker, handed the C++ front end's registration
    results = {res.check.name: res.verdict.verdict for res in batch.run(list(checks.values()), jobs=2)}
    assert results["004 recast of a run-time (16):(1) from 16 to 32 bits"] == recast.verdict.verdict
    assert results["004 upcast<2> of a run-time (16):(1)"] == up.verdict.verdict
    assert results["the seeds' C++ as a cpp check"] == INVALID
    comp = cpp.verify_cpp(f"{DATA / 'seeds.cpp'}::compose_2x3", {"m": (1, 64), "n": (1, 64)})
    assert results["003 composition of two run-time 2x3 layouts"] == _at(comp, 12, "operation")[0].verdict.verdict


@pytest.mark.cute
def test_division_by_zero_in_cute_found_with_guard(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["cpp", f"{DATA / 'ub.cpp'}::divides", "--arg", "m=1..4096", "--arg", "d=0..8"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"{shown(DATA / 'ub.cpp')}:8: invalid: undefined behaviour" in out  # named relative to the working folder
    assert "d=0" in out and "return (d != 0);" in out
    # with the divisor admitted nonzero, the same program is valid
    assert main(["cpp", f"{DATA / 'ub.cpp'}::divides", "--arg", "m=1..4096", "--arg", "d=1..8"]) == 0


@pytest.mark.cute
def test_loop_bound_by_run_time_value_is_unknown_at_its_line() -> None:
    r = cpp.verify_cpp(f"{DATA / 'ub.cpp'}::loops", {"m": (1, 4096)})
    assert r.exit_code == 3
    [f] = [f for f in r.findings if f.kind == "exploration"]
    assert f.line == 13 and f.verdict.verdict == UNKNOWN


@pytest.mark.cute
def test_valid_function_json_and_sarif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cpp", f"{DATA / 'ub.cpp'}::proven", "--arg", "m=1..4096", "--format", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["exit_code"] == 0 and [f["line"] for f in obj["findings"]] == [21]
    assert obj["findings"][0]["verdict"] == VALID
    out = tmp_path / "r.sarif"
    assert main(["cpp", f"{DATA / 'ub.cpp'}::proven", "--arg", "m=1..4096", "--format", "sarif", "-o", str(out)]) == 0
    sarif = json.loads(out.read_text())
    [loc] = sarif["runs"][0]["results"][0]["locations"]
    assert loc["physicalLocation"]["region"]["startLine"] == 21
    assert loc["physicalLocation"]["artifactLocation"]["uri"].endswith("ub.cpp")
    # the same layout as a spec file, and the C++ function named by one: the same verdict
    from verifier.run import batch
    from verifier.run.spec import load

    spec = {res.check.name: res.verdict.verdict for res in batch.run(load([DATA / "ub.spec.toml"]))}
    assert spec == {"proven: zipped_divide of (m,8):(8,1) by 4x8": obj["findings"][0]["verdict"],
                    "proven, as the C++ function": obj["findings"][0]["verdict"]}


@pytest.mark.cute
def test_file_that_does_not_compile_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cpp", f"{DATA / 'bad.cpp'}::broken"]) == 2
    err = capsys.readouterr().err
    assert f"{DATA / 'bad.cpp'}:4:" in err and "not_declared" in err
    assert not any(p.name != "bad.cpp" for p in DATA.glob("bad*"))  # nothing written beside the user's file


@pytest.mark.cute
def test_hopper_gmma_atom_and_tma_box() -> None:
    r = cpp.verify_cpp(f"{DATA / 'hopper.cu'}::hopper_layouts", {"m": (1, 65536), "k": (1, 65536)})
    assert _at(r, 10, "operation")[0].verdict.verdict == VALID      # tile_to_shape of the GMMA atom
    assert _at(r, 11, "property")[0].verdict.verdict == VALID       # canonical for make_gmma_desc<K>
    [box] = _at(r, 13, "property")
    assert box.verdict.verdict == INVALID                          # an unaligned run-time row stride
    assert box.verdict.counterexample is not None and box.verdict.counterexample.params["k"] % 8 != 0
    fixed = cpp.verify_cpp(f"{DATA / 'hopper.cu'}::hopper_layouts", {"m": (1, 65536), "k": (1, 65536)},
                           ["k % 16 == 0"])
    assert fixed.exit_code == 0
    # the same layouts as a spec file: the same verdicts
    from verifier.run import batch
    from verifier.run.spec import load

    spec = {res.check.name: res.verdict.verdict for res in batch.run(load([DATA / "hopper.spec.toml"]))}
    assert spec["the GMMA atom tiled to the CTA tile"] == _at(r, 10, "operation")[0].verdict.verdict
    assert spec["the TMA box of a run-time (M,K) row-major tensor"] == box.verdict.verdict


def test_bad_arguments_are_bad_input() -> None:
    with pytest.raises(cpp.CppInputError, match="FILE.cpp::FUNCTION"):
        cpp.parse_target("seeds.cpp")
    with pytest.raises(cpp.CppInputError, match="no such file"):
        cpp.parse_target("missing.cpp::f")
    fn = cpp.find_function(DATA / "seeds.cpp", "recast_16")
    with pytest.raises(cpp.CppInputError, match="no integer parameter"):
        cpp.declare(fn, {"q": (1, 2)}, ())


@pytest.mark.cute
def test_an_obligation_on_two_paths_is_proved_on_both() -> None:
    # the same division on both sides of `d > 4` (ub.cpp:28): proved where d > 4, it fails at d = 0 on the other
    # path, which must be asked too (an obligation proved on its first path only was a wrong "valid")
    r = cpp.verify_cpp(f"{DATA / 'ub.cpp'}::two_paths", {"m": (1, 4096), "d": (0, 8)})
    assert r.paths == 2
    [f] = _at(r, 28, "undefined behaviour")
    assert f.verdict.verdict == INVALID
    assert f.verdict.counterexample is not None and f.verdict.counterexample.params["d"] == 0


@pytest.mark.cute
def test_expected_properties_are_decided_and_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Each ``expect_*`` is the declared property (its trailing integers its options: conflict_free's widths); a
    refuted one fails the function as an invalid operation does: its exit status, the summary's counts and a spec
    file's ``cpp`` check (a refuted property once counted as nothing, and the function exited 0)."""
    from verifier.engine.verdicts import PROVED, REFUTED

    r = cpp.verify_cpp(f"{DATA / 'properties.cpp'}::properties", {"m": (1, 64), "n": (1, 64)})
    got = {f.line: f.verdict.verdict for f in r.findings if f.kind == "property"}
    assert got == {11: PROVED, 12: PROVED, 13: PROVED, 14: REFUTED, 15: REFUTED, 18: REFUTED}
    [bank] = _at(r, 18, "property")
    assert bank.verdict.counterexample is not None and bank.verdict.counterexample.obligation == "CONFLICT-FREE"
    assert r.exit_code == 1 and cpp.summary_verdict(r).verdict == INVALID
    assert main(["cpp", f"{DATA / 'properties.cpp'}::properties", "--arg", "m=1..64", "--arg", "n=1..64"]) == 1
    assert "6 findings in properties over 1 path(s): 3 valid, 3 invalid, 0 unknown" in capsys.readouterr().out
    from verifier.cli.cpp import render_sarif

    results = json.loads(render_sarif(r))["runs"][0]["results"]  # the failures only, each an error
    assert sorted(x["locations"][0]["physicalLocation"]["region"]["startLine"] for x in results) == [14, 15, 18]
    assert {x["level"] for x in results} == {"error"}
