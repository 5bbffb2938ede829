"""Every code block of README.md and docs/*.md runs as written and prints what the document shows.

The conventions (block kinds, `# exit N`, `...`, `# -> VALUE`, the `<!-- not run / cute / file -->` marks) are in
docs/contributing.md and tests/docs/run_docs.py.  A mismatch fails with a diff; after a deliberate change of the
output, `python -m tests.docs.run_docs --update` regenerates every shown output and picture."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs import run_docs
from tests.docs.run_docs import ROOT, Block, Workspace

BLOCKS = run_docs.all_blocks()

# Every block that is not run, by document and reason: a new one must be declared here, so none hides.
NOT_RUN: dict[tuple[str, str], int] = {
    ("README.md", "pip install (the worked example below runs the same command on a spec file)"): 1,
    ("README.md", "the whole test suite; .ci/run runs it in CI"): 1,
    ("docs/adversarial.md", "the long run (tests/adversarial runs each family with a fixed seed and a small count)"): 2,
    ("docs/contributing.md", "it rewrites the documents"): 1,
    ("docs/contributing.md", "minutes of benchmarks, and pip install"): 1,
    ("docs/contributing.md", "the test suite itself"): 1,
    ("docs/contributing.md", "records the durations by running the tests (minutes)"): 1,
    ("docs/gpu.md", "needs a CUDA GPU and CuPy (docs/hardware.md records these commands on an H100)"): 1,
    ("docs/hardware.md", "a record of the H100 run (a CUDA GPU is needed)"): 1,
    ("docs/hardware.md", "needs a CUDA GPU"): 4,
    ("docs/library.md", "starts a Dask scheduler and worker that run until stopped"): 1,
    ("docs/library.md", "downloads wheels from PyPI (no network in the tests)"): 1,
    ("docs/library.md", "minutes of benchmarks (docs/library.md gives the figures)"): 1,
    ("docs/library.md", "minutes of compiling and verifying CUTLASS kernels"): 3,
}


def _param(b: Block) -> object:
    marks = [pytest.mark.cute] if "cute" in b.marks else []
    return pytest.param(b, id=f"{b.name}-{b.lang}", marks=marks)


@pytest.fixture(scope="module")
def workspaces() -> Iterator[dict[Path, Workspace]]:
    """One working folder per document, shared by its blocks (a `file:` block is there for every block)."""
    opened: dict[Path, Workspace] = {}
    stacks = []
    try:
        for doc in run_docs.documents():
            cm = Workspace.of(doc)
            opened[doc] = cm.__enter__()
            stacks.append(cm)
        yield opened
    finally:
        for cm in reversed(stacks):
            cm.__exit__(None, None, None)


RUN = [b for b in BLOCKS if "not run" not in b.marks and "file" not in b.marks]


@pytest.mark.parametrize("block", [_param(b) for b in RUN])
def test_block_runs_as_written(block: Block, workspaces: dict[Path, Workspace]) -> None:
    run_docs.run_block(block, workspaces[block.doc])


def test_not_run_blocks_are_declared() -> None:
    found = Counter((str(b.doc.relative_to(ROOT)), b.marks["not run"]) for b in BLOCKS if "not run" in b.marks)
    assert all(reason for _, reason in found), "a `<!-- not run: REASON -->` without its reason"
    assert dict(found) == NOT_RUN


def test_every_file_block_is_used() -> None:
    for b in BLOCKS:
        if "file" in b.marks:
            text = b.doc.read_text()
            name = b.marks["file"]
            uses = [c for c in BLOCKS if c.doc == b.doc and c is not b and any(name in ln for ln in c.lines)]
            assert uses, f"{b.name}: the file {name} is used by no block of {b.doc.name}"
            assert text.count(f"<!-- file: {name} -->") == 1, f"two blocks are the file {name}"


def test_the_docs_have_blocks_of_every_kind() -> None:
    kinds = Counter(b.lang for b in RUN)
    assert set(kinds) == set(run_docs.KINDS), kinds


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def test_every_relative_link_resolves() -> None:
    """Links of the README's task index and of docs/ name a file that exists and, after `#`, one of its headings."""
    for doc in run_docs.documents():
        prose = re.sub(r"```.*?```|`[^`\n]*`", "", doc.read_text(), flags=re.S)  # links, not code
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            assert file.exists(), f"{doc.name}: a link to {target}, which does not exist"
            if anchor and file.suffix == ".md":
                slugs = {_slug(h) for h in re.findall(r"^#+ (.*)$", file.read_text(), re.M)}
                assert anchor in slugs, f"{doc.name}: a link to {target}: no such heading in {file.name}"


def test_the_readme_is_a_short_manual() -> None:
    """Issue 28: under 250 lines, the two set-up commands first, then a task index into docs/."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 250
    readme = [b for b in BLOCKS if b.doc.name == "README.md"]
    assert [b.lines for b in readme[:2]] == [["pip install -e . && cute-verify run examples/gemm.cute.toml"],
                                             ['pip install -e ".[test]" && python -m pytest -q']]
    index = text[text.index("## Where to find what"):]
    pages = set(re.findall(r"\]\(docs/([a-z_-]+\.md)", index))
    assert pages >= {"notation.md", "commands.md", "spec-files.md", "kernels.md", "dsl.md", "python.md",
                     "pictures.md", "ci.md", "engine.md", "semantics.md", "contributing.md"}
