"""``mypy --strict`` on the layers below the front ends (issue 14, point 4): ``core``, ``algebra``, ``contracts``,
``solver`` and ``engine``.  The settings are pyproject.toml's ``[tool.mypy]``; mypy comes with the ``test`` extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
STRICT = ("verifier/core", "verifier/algebra", "verifier/contracts", "verifier/solver", "verifier/engine")


def test_strict_layers_type_check() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", *STRICT],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"mypy exited with {run.returncode}:\n{run.stdout}{run.stderr}"
    assert "Success: no issues found" in run.stdout, run.stdout


def test_the_strict_layers_are_strict() -> None:
    """pyproject.toml turns ``strict`` on, and no override relaxes it for a module of the five packages."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    strict = [package.replace("/", ".") for package in STRICT]
    for override in config.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        for pattern in modules:
            # "a.*" is a and every module below it; "a" is a alone (mypy's override patterns).
            prefix, below = (pattern[:-2], True) if pattern.endswith(".*") else (pattern, False)
            hit = [m for m in strict
                   if m == prefix or prefix.startswith(m + ".") or (below and m.startswith(prefix + "."))]
            assert not hit, f"[[tool.mypy.overrides]] for {pattern} applies to the strict layers {hit}"
