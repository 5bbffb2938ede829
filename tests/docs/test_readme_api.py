"""README's "Python API" and "Pictures" sections run as written: every python block is executed and each
`# -> VALUE` line must be what the print before it printed; every `cute-verify draw` line of the shell block runs
and writes its picture."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from verifier.cli.app import main

README = Path(__file__).resolve().parents[2] / "README.md"


def _sections() -> str:
    text = README.read_text()
    return text[text.index("## Python API"):text.index("## The algebra")]


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", _sections(), re.DOTALL)


# Blocks that state no `# -> ` line, by their first line, with the reason; each must print nothing.
SILENT = {
    "from hypothesis import given, settings, strategies as st":
        "a Hypothesis property test: its asserts are the check, and it prints nothing",
}


@pytest.mark.parametrize("block", _blocks("python"), ids=lambda b: b.splitlines()[0][:40])
def test_readme_python_block_prints_what_it_says(block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    expected = [line[len("# -> "):] for line in block.splitlines() if line.startswith("# -> ")]
    silent = block.splitlines()[0] in SILENT
    assert bool(expected) != silent, ("a README python block must state what it prints (`# -> VALUE` after each "
                                      "print) or be listed in SILENT with the reason it states nothing")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    assert out.getvalue().splitlines() == expected


def test_every_silent_block_is_in_the_readme() -> None:
    firsts = {block.splitlines()[0] for block in _blocks("python")}
    assert set(SILENT) <= firsts


def test_readme_draw_commands_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    lines = [line.split("  #")[0] for block in _blocks("sh") for line in block.splitlines()
             if line.startswith("cute-verify draw")]
    assert len(lines) >= 4
    for line in lines:
        argv = shlex.split(line)[1:]
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == (1 if "--counterexample" in argv else 0) and not err, (line, err)
        out = argv[argv.index("-o") + 1]
        assert out == "-" or (tmp_path / out).stat().st_size > 0
