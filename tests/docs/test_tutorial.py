"""docs/tutorial.md stays true: every `$ cute-verify ...` command in its console blocks is run, and the output
shown under it must be what the command prints now (a trailing `...` allows more lines).  The solver may pick a
different counterexample from run to run, so a counterexample table row is compared by its shape and obligation
only.  Pictures the tutorial shows are regenerated and compared with the committed ones.

After a deliberate change of the output, `python -m tests.test_tutorial --update` (from the repository root)
rewrites the outputs in docs/tutorial.md (keeping as many lines before each `...` as before) and the pictures in
docs/pictures/."""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from verifier.cli.app import main

DOCS = Path(__file__).resolve().parents[2] / "docs"
TUTORIAL = DOCS / "tutorial.md"
CEX_HEADER = re.compile(r"^\s+(\S+\s+)*coordinate\s+expected\s+actual\s+obligation$")


def _commands() -> list[tuple[str, list[str]]]:
    """(command, shown output lines) for every command of every console block."""
    out: list[tuple[str, list[str]]] = []
    in_block = False
    for line in TUTORIAL.read_text().splitlines():
        if line.startswith("```"):
            in_block = line == "```console"
            continue
        if not in_block:
            continue
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            assert out, f"output before any command in {TUTORIAL}: {line!r}"
            out[-1][1].append(line)
    return out


COMMANDS = _commands()


def test_the_tutorial_has_commands_for_every_seed() -> None:
    text = " ".join(cmd for cmd, _ in COMMANDS)
    for needle in ('composition "(2,3):(1,2)" "(2,3):(3,1)"', 'upcast 2 "(16):(1)"', "zipped_divide", "draw"):
        assert needle in text


def _same(shown: list[str], actual: list[str], cmd: str) -> None:
    elided = bool(shown) and shown[-1] == "..."
    body = shown[:-1] if elided else shown
    assert len(actual) >= len(body) if elided else len(actual) == len(body), (cmd, actual)
    for k, line in enumerate(body):
        if k > 0 and CEX_HEADER.match(body[k - 1]):
            # The counterexample row: same columns and obligation; the values are the solver's choice.
            assert len(line.split()) == len(actual[k].split()) and line.split()[-1] == actual[k].split()[-1], \
                (cmd, line, actual[k])
            continue
        assert actual[k] == line, f"{cmd}\n  tutorial: {line!r}\n  now:      {actual[k]!r}"


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tutorial")


@pytest.mark.parametrize("cmd, shown", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_tutorial_command_prints_what_the_tutorial_shows(cmd: str, shown: list[str], ran: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    argv = shlex.split(cmd)
    assert argv[0] == "cute-verify"
    monkeypatch.chdir(ran)
    capsys.readouterr()
    rc = main(argv[1:])
    captured = capsys.readouterr()
    assert captured.err == "", captured.err
    first = captured.out.split(":", 1)[0]
    assert rc == (1 if first in ("invalid", "refuted") else 0), (cmd, rc)
    _same(shown, captured.out.rstrip("\n").splitlines(), cmd)


def test_tutorial_pictures_are_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for cmd, _ in COMMANDS:
        if shlex.split(cmd)[1] == "draw":
            main(shlex.split(cmd)[1:])
    capsys.readouterr()
    ran = tmp_path
    shown = re.findall(r"!\[[^\]]*\]\((pictures/[^)]+)\)", TUTORIAL.read_text())
    assert shown
    for rel in shown:
        committed, fresh = DOCS / rel, ran / Path(rel).name
        assert committed.exists() and fresh.exists(), rel
        if "overlap" in rel:
            # Its failing coordinates are the solver's choice; the grid and the collisions are not.
            def summary(p: Path) -> tuple[list[str], int]:
                root = ET.fromstring(p.read_text())
                labels = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")
                          if t.get("class") == "label"]
                collisions = sum(1 for e in root.iter() if e.get("class") == "collision")
                return labels, collisions

            assert summary(committed) == summary(fresh)
        else:
            assert committed.read_text() == fresh.read_text(), f"{rel} is out of date: rerun the tutorial command"


def update() -> None:
    """Rerun every command in a scratch directory and write its output (and pictures) back into the docs."""
    import contextlib
    import io
    import os
    import shutil
    import tempfile

    lines = TUTORIAL.read_text().splitlines()
    out: list[str] = []
    scratch = tempfile.mkdtemp()
    here = os.getcwd()
    os.chdir(scratch)
    try:
        k = 0
        while k < len(lines):
            line = lines[k]
            out.append(line)
            k += 1
            if not line.startswith("$ cute-verify "):
                continue
            shown = []
            while k < len(lines) and not lines[k].startswith(("$ ", "```")):
                shown.append(lines[k])
                k += 1
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                main(shlex.split(line)[2:])
            now = buf.getvalue().rstrip("\n").splitlines()
            if shown and shown[-1] == "..." and len(now) > len(shown) - 1:
                now = now[:len(shown) - 1] + ["..."]
            out += now
        for name in os.listdir(scratch):
            shutil.copy(os.path.join(scratch, name), DOCS / "pictures" / name)
    finally:
        os.chdir(here)
    TUTORIAL.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.test_tutorial --update")
    update()
