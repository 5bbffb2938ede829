"""CI files: `.ci/run` runs exactly the README's test command in a new virtual environment, and the GitHub
Actions workflow the README describes is committed and well-formed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text()
    m = re.search(r"Install and run the tests.*?```sh\n(.*?)\n```", readme, re.S)
    assert m, "the README's test command"
    return m.group(1).strip()


def test_ci_runs_the_readme_command_in_a_new_venv() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")], check=True)
    command = _readme_test_command()
    assert command == 'pip install -e ".[test]" && python -m pytest -q'
    lines = [ln.strip() for ln in script.splitlines()]
    assert command in lines  # verbatim, on a line of its own
    venv = next(k for k, ln in enumerate(lines) if "-m venv" in ln)
    activate = next(k for k, ln in enumerate(lines) if "/bin/activate" in ln)
    assert venv < activate < lines.index(command)
    assert "--system-site-packages" not in script  # a missing extra must fail
    for check in ("g++", "cuda_runtime_api.h", "5)"):
        assert check in script


def test_ci_fails_loudly_without_gxx(tmp_path: Path) -> None:
    p = subprocess.run(["bash", str(ROOT / ".ci" / "run")], capture_output=True, text=True,
                       env={"PATH": str(tmp_path), "HOME": str(tmp_path)}, executable="/bin/bash")
    assert p.returncode == 1 and "ci: ERROR: g++ is required" in p.stderr
