"""``mypy --strict`` on the whole ``verifier`` package, front ends and integrations included (issue 14, point 4;
issue 27, point 4).  The settings are pyproject.toml's ``[tool.mypy]``; mypy comes with the ``test`` extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "verifier"
# Third-party modules that ship no type information (or, for tomli, exist only on Python 3.10): the only modules an
# override may name, and only to stop mypy looking for their types.
UNTYPED = {"z3", "z3.*", "pycute", "pycute.*", "cutlass_library", "cutlass_library.*", "tomli"}


def _config() -> dict[str, object]:
    config: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return config


def test_the_package_type_checks() -> None:
    # no paths: mypy checks pyproject's ``files``, which the next test pins to the whole package
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"mypy exited with {run.returncode}:\n{run.stdout}{run.stderr}"
    assert "Success: no issues found" in run.stdout, run.stdout


def test_the_whole_package_is_strict() -> None:
    """pyproject.toml turns ``strict`` on for the whole package, and no override relaxes it for any module of it:
    an override names only an untyped third-party module, and only ignores its missing types."""
    config = _config()
    assert config["strict"] is True
    assert config["files"] == [PACKAGE]
    overrides = config.get("overrides", [])
    assert isinstance(overrides, list)
    for override in overrides:
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        for pattern in modules:
            assert pattern in UNTYPED, f"[[tool.mypy.overrides]] for {pattern}: not an untyped third-party module"
            assert not pattern.split(".")[0] == PACKAGE
        settings = set(override) - {"module"}
        assert settings == {"ignore_missing_imports"}, f"[[tool.mypy.overrides]] for {modules} sets {settings}"
