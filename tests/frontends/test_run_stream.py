"""``cute-verify run`` streams: on a terminal a progress line comes first and each check's line is printed as it is
decided, before the run ends (issue 28, point 2); ``--jobs`` defaults to the cores and keeps the load order."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifier.run import batch, spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gemm.cute.toml"


def _on_a_terminal(argv: list[str], tmp_path: Path, first: bytes = b"\nok ") -> tuple[int, str, bool | None]:
    """Run the command on a pseudo-terminal: its exit status, what the terminal showed (erasures as new lines),
    and whether it was still running when ``first`` appeared."""
    leader, follower = pty.openpty()
    env = {**os.environ, "CUTE_VERIFY_CACHE": str(tmp_path), "COLUMNS": "200", "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "verifier.cli", *argv], cwd=ROOT,
                            stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    seen = b""
    running_at_first = None
    deadline = time.monotonic() + 600  # a hang guard only
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the pty closes when the process ends
                break
            if not chunk:
                break
            seen += chunk
            if running_at_first is None and first in b"\n" + seen.replace(b"\r\x1b[K", b"\n"):
                running_at_first = proc.poll() is None
    finally:
        proc.wait(timeout=60)
        os.close(leader)
    return proc.returncode, seen.decode(errors="replace").replace("\r\x1b[K", "\n"), running_at_first


def test_run_on_a_terminal_shows_progress_first_and_each_check_before_the_end(tmp_path: Path) -> None:
    rc, text, running_at_first_check = _on_a_terminal(["run", str(EXAMPLE), "-j", "1"], tmp_path)
    assert rc == 0, text
    first_progress, first_check = text.find("deciding "), text.find("\nok ")
    assert first_progress != -1 and (first_check == -1 or first_progress < first_check), text[:500]
    assert "[0/" in text and running_at_first_check is True, text[:500]
    assert text.rstrip().splitlines()[-1].startswith("17 checks: 17 as expected")


def test_a_long_command_on_a_terminal_shows_what_it_decides(tmp_path: Path) -> None:
    # a 4-D divide by tiles that divide nothing takes seconds (its guard search; 4 s of CPU when this was written,
    # where the 3-D tiling this test first ran now takes under one): the status line names what is being decided
    rc, text, _ = _on_a_terminal(["logical_divide", "(M,N,K,L):(K*N,K,_1,M*N*K)", "<_96,_80,_24,_3>"], tmp_path)
    lines = text.splitlines()
    status = [k for k, line in enumerate(lines) if re.match(r"\d+ s: deciding [A-Z0-9-]+: ", line)]
    verdict = [k for k, line in enumerate(lines) if re.match(r"(valid|invalid): logical_divide", line)]
    assert rc in (0, 1) and status and verdict and max(status) < verdict[0], text  # erased before the verdict


def test_results_come_in_load_order_whatever_the_jobs(tmp_path: Path) -> None:
    checks = spec.load_suite(EXAMPLE)[:4]
    order: list[str] = []
    results = batch.run(checks, jobs=2, on_result=lambda r: order.append(r.check.name))
    assert order == [c.name for c in checks] == [r.check.name for r in results]


def test_jobs_default_to_the_cores_and_j_1_is_honoured() -> None:
    assert batch.default_jobs() >= 1
    run = subprocess.run([sys.executable, "-m", "verifier.cli", "run", str(EXAMPLE), "-j", "0"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 2 and "--jobs must be at least 1, got 0" in run.stderr


@pytest.mark.parametrize("quiet", [False, True])
def test_streamed_text_is_the_rendered_report(tmp_path: Path, quiet: bool) -> None:
    env = {**os.environ, "CUTE_VERIFY_CACHE": str(tmp_path)}
    out = tmp_path / "report.txt"
    streamed = subprocess.run([sys.executable, "-m", "verifier.cli", "run", str(EXAMPLE), "-j", "1",
                               *(["-q"] if quiet else [])], cwd=ROOT, capture_output=True, text=True, env=env)
    written = subprocess.run([sys.executable, "-m", "verifier.cli", "run", str(EXAMPLE), "-j", "1", "-o", str(out),
                              *(["-q"] if quiet else [])], cwd=ROOT, capture_output=True, text=True, env=env)
    assert streamed.returncode == written.returncode == 0
    body = lambda text: [x for x in text.splitlines() if not x.startswith("17 checks")]  # noqa: E731
    assert body(streamed.stdout) == body(out.read_text().replace(" (cached)", ""))
