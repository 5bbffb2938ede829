"""Every fenced code block of README.md and docs/*.md, run as written (the conventions: docs/contributing.md).

``tests/docs/test_docs.py`` runs each block as a test.  After a deliberate change of what the tool prints,
regenerate every shown output (and the pictures the documents show) with

    python -m tests.docs.run_docs --update          # from the repository root; --check only compares

Block kinds, by the fence's language:

* ``console``: a transcript.  ``$ COMMAND`` lines (a trailing ``\\`` continues one) each followed by what the
  command prints (stdout and stderr together, as a terminal shows them); a line ``...`` stands for any number of
  lines.  A command ends with exit status 0 unless it ends in a comment ``# exit N``.
* ``sh``: commands only, one a line (a trailing ``\\`` continues one); each must exit 0, or N if its comment says
  ``# exit N``.  Their output is not compared.
* ``python``: executed; the lines a block prints must be its ``# -> VALUE`` lines, in order (none: it prints
  nothing); then every top-level ``test_*`` function it defines is called, as pytest would.
* ``toml``: a ``[tool.cute-verify]`` table is written as a ``pyproject.toml`` and a command runs under it; any
  other TOML is a spec file, run by ``cute-verify run`` (every check must get its expected verdict).
* ``yaml``: a GitHub Actions workflow: each ``cute-verify`` line of its ``run:`` steps runs (``${{ ... }}`` is 1).

HTML comments on the lines right before a fence mark the block: ``<!-- not run: REASON -->`` (counted by the tests,
see ``NOT_RUN`` in test_docs.py), ``<!-- cute: REASON -->`` (the block compiles CuTe: its test is marked ``cute``),
``<!-- file: NAME -->`` (the block is the file NAME of the document's working folder, written before any block of
the document runs, for commands of later blocks to use).

Commands run in a fresh working folder per document, in which ``examples/`` and ``proofs/`` are the repository's;
``cute-verify`` and ``python`` are this interpreter (``python -m verifier.cli`` for the former), importing this
checkout's ``verifier``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import ARTEFACT_FOLDERS  # where compiled CuTe lands in the cache
from verifier.run.batch import cache_root

ROOT = Path(__file__).resolve().parents[2]
LINKED = ("examples", "proofs")  # what a document's commands may read from the repository (never write)
KINDS = ("console", "sh", "python", "toml", "yaml")
MARK = re.compile(r"^<!--\s*(not run|cute|file):\s*(.*?)\s*-->$")
EXIT = re.compile(r"#\s*exit (\d+)\b")
PICTURE = re.compile(r"!\[[^\]]*\]\((pictures/[^)\s]+)\)")
TIMEOUT = 300


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass
class Block:
    doc: Path
    line: int  # 1-based line of the opening fence
    lang: str
    lines: list[str]
    marks: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    @property
    def end(self) -> int:  # 0-based index of the closing fence
        return self.line + len(self.lines)


def blocks(doc: Path) -> list[Block]:
    out: list[Block] = []
    text = doc.read_text().splitlines()
    k = 0
    while k < len(text):
        if not text[k].startswith("```"):
            k += 1
            continue
        lang = text[k][3:].strip()
        start = k
        k += 1
        while k < len(text) and not text[k].startswith("```"):
            k += 1
        if k == len(text):
            raise ValueError(f"{doc.relative_to(ROOT)}:{start + 1}: a code block that is never closed")
        marks: dict[str, str] = {}
        j = start - 1
        while j >= 0 and (m := MARK.match(text[j].strip())):
            marks[m.group(1)] = m.group(2)
            j -= 1
        out.append(Block(doc, start + 1, lang, text[start + 1:k], marks))
        k += 1
    return out


def all_blocks() -> list[Block]:
    return [b for doc in documents() for b in blocks(doc)]


# ---------------------------------------------------------------------------------------------------------------
# Running


@dataclass
class Workspace:
    """A document's working folder: the linked repository folders, its `file:` blocks, the two shims."""

    doc: Path
    path: Path
    env: dict[str, str]

    @classmethod
    @contextlib.contextmanager
    def of(cls, doc: Path) -> Iterator[Workspace]:
        tmp = Path(tempfile.mkdtemp(prefix="cute-docs-"))
        try:
            work, shim = tmp / "work", tmp / "bin"
            work.mkdir()
            shim.mkdir()
            for name in LINKED:
                (work / name).symlink_to(ROOT / name)
            (shim / "cute-verify").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m verifier.cli "$@"\n')
            (shim / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
            for f in shim.iterdir():
                f.chmod(0o755)
            for b in blocks(doc):
                if "file" in b.marks:
                    (work / b.marks["file"]).write_text("\n".join(b.lines) + "\n")
            env = dict(os.environ)
            env.update(PATH=f"{shim}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1", NO_COLOR="1",
                       PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])]))
            env.pop("FORCE_COLOR", None)
            # No verdict comes from an earlier run or command: a result cache of our own, emptied before each
            # command.  Compiled CuTe stays where it is (tests/conftest.py watches that folder for compiles).
            cache = tmp / "cache"
            cache.mkdir()
            env["CUTE_VERIFY_CACHE"] = str(cache)
            yield cls(doc, work, env)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def shell(self, command: str, fresh: bool = True) -> tuple[int, str]:
        """Run `command`; `fresh`: with no verdict cached by an earlier command."""
        cache = Path(self.env["CUTE_VERIFY_CACHE"])
        if fresh:
            shutil.rmtree(cache / "results", ignore_errors=True)
        # Compiled CuTe goes where the running test's compiles go (tests/conftest.py watches that folder, another
        # for each test that compiles nothing): linked anew for each command, not once for the document.
        shared = cache_root()
        for name in ARTEFACT_FOLDERS:
            (shared / name).mkdir(parents=True, exist_ok=True)
            link = cache / name
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(shared / name)
        p = subprocess.run(["bash", "-c", command], cwd=self.path, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout


def commands(lines: list[str], transcript: bool) -> list[tuple[str, list[str]]]:
    """(command, shown output) pairs; `transcript`: `$ ` commands with output, else one command a line."""
    out: list[tuple[str, list[str]]] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        if transcript and not line.startswith("$ "):
            if not out:
                raise ValueError(f"output before any `$ ` command: {line!r}")
            out[-1][1].append(line)
            continue
        cmd = line[2:] if transcript else line
        while cmd.endswith("\\") and k < len(lines):
            cmd = cmd[:-1] + "\n" + lines[k]
            k += 1
        if cmd.strip() and not cmd.lstrip().startswith("#"):
            out.append((cmd, []))
    return out


def expected_status(cmd: str) -> int:
    m = EXIT.search(cmd.splitlines()[-1])
    return int(m.group(1)) if m else 0


def matches(shown: list[str], actual: list[str]) -> bool:
    """`shown` with each `...` line standing for any number of lines."""
    parts: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) == 1:
        return shown == actual
    first, *middle, last = parts
    if actual[:len(first)] != first or (last and actual[-len(last):] != last):
        return False
    pos, stop = len(first), len(actual) - len(last)
    if stop < pos:
        return False
    for part in middle:
        at = next((i for i in range(pos, stop - len(part) + 1) if actual[i:i + len(part)] == part), None)
        if at is None:
            return False
        pos = at + len(part)
    return True


def elide(shown: list[str], actual: list[str]) -> list[str]:
    """`actual` shortened as `shown` was: each part between `...` lines is found again by its first line (exactly,
    else by its first two words), with as many lines as before; a part not found is left out."""
    if all(line.strip() != "..." for line in shown):
        return actual
    parts: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    first, *rest = parts
    out = actual[:len(first)]
    pos = len(first)
    for k, part in enumerate(rest):
        last = k == len(rest) - 1
        if not part:
            out.append("...")
            pos = len(actual)
            continue
        if last:
            at: int | None = max(pos, len(actual) - len(part))
        else:
            key = part[0].split()[:2]
            at = next((i for i in range(pos, len(actual)) if actual[i] == part[0]), None)
            if at is None:
                at = next((i for i in range(pos, len(actual)) if actual[i].split()[:2] == key), None)
        if at is None:
            continue
        out.append("...")
        out += actual[at:at + len(part)]
        pos = at + len(part)
    return out


def pictures(doc: Path) -> set[str]:
    return {Path(p).name for p in PICTURE.findall(doc.read_text())}


class Mismatch(AssertionError):
    pass


def _diff(block: Block, cmd: str, shown: list[str], actual: list[str]) -> str:
    import difflib

    diff = difflib.unified_diff(shown, actual, "shown in the document", "printed now", lineterm="")
    return (f"{block.name}: `{cmd}` prints other than the document shows (`...` matches any lines); "
            "after a deliberate change: python -m tests.docs.run_docs --update\n" + "\n".join(diff))


def run_block(block: Block, ws: Workspace, update: bool = False) -> list[str] | None:
    """Run one block; raise Mismatch when it does not do what the document says.  With `update`, return the
    block's lines with the outputs printed now (console blocks) instead of comparing them."""
    lang = block.lang
    if "not run" in block.marks or "file" in block.marks:
        return None
    before = {p: p.stat().st_mtime_ns for p in ws.path.iterdir() if p.is_file()}
    new: list[str] | None = None
    if lang == "console":
        new = []
        for cmd, shown in commands(block.lines, transcript=True):
            rc, out = ws.shell(cmd)
            actual = out.rstrip("\n").splitlines() if out.strip() else []
            if rc != expected_status(cmd):
                raise Mismatch(f"{block.name}: `{cmd}` exits {rc}, the document says {expected_status(cmd)} "
                               f"(write `# exit N` after a command that exits N):\n{out}")
            if update:
                new += ["$ " + cmd.replace("\n", "\\\n")] + elide(shown, actual)
            elif not matches(shown, actual):
                raise Mismatch(_diff(block, cmd, shown, actual))
    elif lang == "sh":
        for cmd, _ in commands(block.lines, transcript=False):
            rc, out = ws.shell(cmd)
            if rc != expected_status(cmd):
                raise Mismatch(f"{block.name}: `{cmd}` exits {rc}, the document says {expected_status(cmd)} "
                               f"(write `# exit N` after a command that exits N):\n{out}")
    elif lang == "python":
        new = _run_python(block, ws, update)
    elif lang == "toml":
        _run_toml(block, ws)
    elif lang == "yaml":
        _run_workflow(block, ws)
    else:
        raise Mismatch(f"{block.name}: a ```{lang} block: the tests run {', '.join(KINDS)} blocks; mark any other "
                       "`<!-- not run: REASON -->` (docs/contributing.md)")
    _check_pictures(block, ws, before, update)
    return new


def _check_pictures(block: Block, ws: Workspace, before: dict[Path, int], update: bool) -> None:
    shown = pictures(block.doc)
    for p in ws.path.iterdir():
        if p.name not in shown or before.get(p) == p.stat().st_mtime_ns:
            continue
        committed = ROOT / "docs" / "pictures" / p.name
        if update:
            shutil.copy(p, committed)
        elif not committed.exists() or committed.read_bytes() != p.read_bytes():
            raise Mismatch(f"{block.name}: docs/pictures/{p.name} is not what the command draws now; "
                           "python -m tests.docs.run_docs --update")


def _run_python(block: Block, ws: Workspace, update: bool) -> list[str] | None:
    """Each top-level statement runs in turn; what it prints must be the `# -> ` lines right after it."""
    import ast

    source = "\n".join(block.lines) + "\n"
    tree = ast.parse(source, block.name)
    namespace: dict[str, object] = {"__name__": "docs_block"}
    spans: list[tuple[int, int, list[str], list[str]]] = []  # (first, last line index, shown, printed)
    here = os.getcwd()
    os.chdir(ws.path)
    try:
        for k, stmt in enumerate(tree.body):
            stop = tree.body[k + 1].lineno - 1 if k + 1 < len(tree.body) else len(block.lines)
            shown = [ln.strip()[len("# -> "):] for ln in block.lines[stmt.end_lineno or stmt.lineno:stop]
                     if ln.strip().startswith("# -> ")]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(ast.Module([stmt], []), block.name, "exec"), namespace)
            spans.append((stmt.lineno - 1, (stmt.end_lineno or stmt.lineno) - 1, shown, out.getvalue().splitlines()))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            for name, fn in list(namespace.items()):
                if name.startswith("test_") and callable(fn) and getattr(fn, "__module__", None) == "docs_block":
                    fn()
        if out.getvalue():
            raise Mismatch(f"{block.name}: its test functions print, where nothing states what:\n{out.getvalue()}")
    finally:
        os.chdir(here)
    if update:
        arrow = [ln.strip().startswith("# -> ") for ln in block.lines]
        new: list[str] = []
        for k, line in enumerate(block.lines):
            if not arrow[k]:
                new.append(line)
            for _, last, _, printed in spans:
                if k == last:
                    new += ["# -> " + p for p in printed]
        return new
    for first, _, shown, printed in spans:
        if printed != shown:
            raise Mismatch(_diff(block, block.lines[first].strip(), shown, printed)
                           + "\n(`# -> VALUE` lines after a statement state what it prints)")
    return None


def _run_toml(block: Block, ws: Workspace) -> None:
    text = "\n".join(block.lines) + "\n"
    if "[tool.cute-verify]" in text:
        folder = Path(tempfile.mkdtemp(dir=ws.path))
        (folder / "pyproject.toml").write_text(text)
        cmd = f'cd "{folder.name}" && cute-verify check injective "(_4,_2):(_2,_1)"'
    else:  # beside the document's `file:` blocks, which it may include
        spec = ws.path / f"block-{block.line}.cute.toml"
        spec.write_text(text)
        cmd = f"cute-verify run --no-cache {spec.name}"
    rc, out = ws.shell(cmd)
    if rc != 0:
        raise Mismatch(f"{block.name}: `{cmd}` exits {rc}:\n{out}")


def _run_workflow(block: Block, ws: Workspace) -> None:
    import yaml

    flow = yaml.safe_load("\n".join(block.lines))
    runs = [step["run"] for job in flow["jobs"].values() for step in job["steps"] if "run" in step]
    lines = [re.sub(r"\$\{\{[^}]*\}\}", "1", ln) for r in runs for ln in r.splitlines()
             if ln.strip().startswith("cute-verify ")]
    if not lines:
        raise Mismatch(f"{block.name}: a workflow without a `cute-verify` command")
    for k, cmd in enumerate(lines):  # the steps of one job share its result cache
        rc, out = ws.shell(cmd, fresh=k == 0)
        if rc != 0:
            raise Mismatch(f"{block.name}: the workflow's `{cmd}` exits {rc}:\n{out}")


def update(doc: Path) -> int:
    """Rerun every block of `doc`, write the outputs printed now into it; the number of blocks rewritten."""
    text = doc.read_text().splitlines()
    changed = 0
    replaced: list[tuple[Block, list[str]]] = []
    with Workspace.of(doc) as ws:
        for block in blocks(doc):
            try:
                new = run_block(block, ws, update=True)
            except Mismatch as e:  # an exit status or a `# -> ` count to fix by hand: the rest is still updated
                print(e, file=sys.stderr)
                continue
            if new is not None and new != block.lines:
                replaced.append((block, new))
    for block, new in reversed(replaced):
        text[block.line:block.end] = new
        changed += 1
    doc.write_text("\n".join(text) + "\n")
    return changed


def main(argv: list[str]) -> int:
    if argv[:1] not in (["--update"], ["--check"]):
        print("usage: python -m tests.docs.run_docs --update|--check [DOC.md...]", file=sys.stderr)
        return 2
    docs = [Path(a).resolve() for a in argv[1:]] or documents()
    status = 0
    for doc in docs:
        if argv[0] == "--update":
            print(f"{doc.relative_to(ROOT)}: {update(doc)} block(s) rewritten")
            continue
        with Workspace.of(doc) as ws:
            for block in blocks(doc):
                try:
                    run_block(block, ws)
                except Mismatch as e:
                    print(e, file=sys.stderr)
                    status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
