"""The pytest plugin on a sample project: spec files are collected (one item per check), a passing and a failing
check behave as expected, the failure shows the counterexample and the table around it, and the assertion helpers
of ``verifier.testing`` fail with the same.  pytest runs in a subprocess on this worktree's ``verifier`` (the
installed package may be another checkout), with entry-point autoloading off so that the plugin is loaded once,
by ``-p``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.run.spec import tomllib
from verifier.testing import assert_bijective, assert_equivalent, assert_valid

ROOT = Path(__file__).resolve().parents[2]

# strict: a partial tile (DIV-EXACT) is a warning, which strict = true makes the failure shown here (issue 13).
SPEC = '''strict = true
[symbols]
M = { min = 1, max = 4096 }

[[check]]
name = "tiles with the guard"
op = "zipped_divide"
args = ["(M,_8):(_1,M)", "<_128,_8>"]
assume = ["M % 128 == 0"]

[[check]]
name = "tiles without the guard"
op = "zipped_divide"
args = ["(M,_8):(_1,M)", "<_128,_8>"]

[[check]]
name = "known bug"
op = "upcast"
args = ["2", "(16):(1)"]
expect = "invalid"
'''

TESTS = '''
from verifier.testing import assert_bijective, assert_valid


def test_upcast_with_the_guard():
    assert_valid("upcast", 2, "(M):(_1)", assume=["M % 2 == 0", "M <= 65536"])


def test_composition_seed():
    assert_valid("composition", "(2,3):(1,2)", "(2,3):(3,1)")


def test_smem_tile_is_bijective():
    assert_bijective("(_4,_8):(_8,_1)")
'''


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "CUTE_VERIFY_CACHE": str(project / ".cache")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "verifier.pytest_plugin", "-p", "no:cacheprovider",
                           "-q", "-rf", *args], cwd=project, env=env, capture_output=True, text=True, timeout=600)


def test_sample_project(tmp_path: Path) -> None:
    (tmp_path / "kernel.cute.toml").write_text(SPEC)
    (tmp_path / "test_layouts.py").write_text(TESTS)
    collected = _pytest(tmp_path, "--collect-only")
    assert collected.returncode == 0, collected.stdout + collected.stderr
    ids = [x for x in collected.stdout.splitlines() if "::" in x]
    assert ids[:3] == ["kernel.cute.toml::tiles with the guard", "kernel.cute.toml::tiles without the guard",
                       "kernel.cute.toml::known bug"]
    r = _pytest(tmp_path)
    out = r.stdout
    assert r.returncode == 1, out + r.stderr
    assert out.splitlines()[-1].startswith("2 failed, 4 passed")
    assert "FAILED kernel.cute.toml::tiles without the guard" in out
    assert "FAILED test_layouts.py::test_composition_seed" in out
    # The spec failure: where, what was expected, the counterexample and CuTe's layout at its values.
    assert "kernel.cute.toml:11: tiles without the guard: expected valid, got invalid" in out
    assert "  M  coordinate  expected  actual  obligation" in out
    assert "CuTe's zipped_divide at M=1:" in out and "condition: M % 128 == 0" in out
    # The helper's failure: the counterexample, and the wrong result's table with the failing cell marked.
    assert "CuTe's composition at these operands: ((1,2),(2,1)):((3,4),(1,2)) (* marks the failing coordinate):" \
        in out
    assert "CMP-POST" in out and " *" in out


def test_a_malformed_spec_is_a_collection_error(tmp_path: Path) -> None:
    (tmp_path / "bad.cute.toml").write_text(SPEC.replace("(M,_8):(_1,M)", "(M,_8):(_1,Q)", 1))
    r = _pytest(tmp_path)
    assert r.returncode != 0
    assert "bad.cute.toml:8: check[0].args[0]: argument 1 ('(M,_8):(_1,Q)'): column 12: unknown symbol 'Q'" \
        in r.stdout


def test_the_plugin_is_registered_by_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"cute_verify": "verifier.pytest_plugin"}
    # The repository's own run collects tests/ only, where no spec file lives: the example is not collected.
    assert project["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]
    assert not list((ROOT / "tests").rglob("*.cute.toml"))


def test_helpers_pass_and_fail_with_tables() -> None:
    assert assert_valid("zipped_divide", "(M,N):(_1,M)", "<_128,_64>",
                        assume=["M % 128 == 0", "N % 64 == 0", "M <= 16384", "N <= 16384"]).verdict == "valid"
    assert assert_equivalent("(_4,_8):(_1,_4)", "(_32):(_1)").verdict == "proved"
    with pytest.raises(AssertionError) as e:
        assert_equivalent("(_4,_8):(_1,_4)", "(_4,_8):(_8,_1)")
    msg = str(e.value)
    assert msg.startswith("refuted: equivalent((_4,_8):(_1,_4), (_4,_8):(_8,_1)): EQUIV fails")
    assert "argument 1 at these operands (* marks the failing coordinate):" in msg
    assert "argument 2 at these operands (* marks the failing coordinate):" in msg
    with pytest.raises(AssertionError) as e:
        assert_bijective("(M,_4):(_2,_1)", symbols={"M": {"max": 64}})
    msg = str(e.value)
    assert "INJECTIVE fails" in msg and "assuming: 1 <= M <= 64" in msg
    # Both colliding coordinates are marked in the table at the counterexample's M.
    table = msg[msg.index("(* marks the failing coordinate):"):]
    assert table.count("*") == 3
