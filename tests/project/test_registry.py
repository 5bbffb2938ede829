"""The operation registry's conformance: every registered operation has its contract, its C++ check, its row in
docs/semantics.md, its command and its spec-file entry, or an explicit "not modelled" marker in its row; the check
itself fails when one of them is missing (a synthetic row shows it)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from verifier.algebra import composed
from verifier.algebra.registry import REGISTRY, Operation
from verifier.cli.app import build_parser
from verifier.contracts.claims import BUILDERS
from verifier.core.symbols import Symbols
from verifier.oracle.cute_cpp import operation_case
from verifier.run.problems import build

DOCS = Path(__file__).resolve().parents[2] / "docs" / "semantics.md"
KINDS = re.compile(r"^(L|T|S|C|I|O)(\|(L|T|S|C|I|O))*\??$")
SOURCE = re.compile(r"^[\w/]+\.hpp:\d+(-\d+)?$")


def _documented_names(text: str) -> set[str]:
    """The operation names of the first column of docs/semantics.md's tables: ``zipped/tiled/flat_divide`` counts
    for all three, ``composition(A, B)`` for composition."""
    names: set[str] = set()
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        for code in re.findall(r"`([^`]*)`", cell):
            head = re.match(r"[\w/]+", code)
            if head is None:
                continue
            word = head.group(0)
            if "/" in word and "_" in word.split("/")[-1]:
                suffix = word.split("/")[-1].split("_", 1)[1]
                names |= {f"{p.split('_')[0]}_{suffix}" for p in word.split("/")}
            names.add(word.split("/")[0])
    return names


def _example_operands(row: Operation) -> list[object]:
    argv = list(row.example)
    options = ("--assume", "--symbol")
    operands = [a for i, a in enumerate(argv) if not a.startswith("--") and not (i and argv[i - 1] in options)]
    return build(row.name, operands, Symbols(), [], {})


def missing(rows: Mapping[str, Operation], builders: Iterable[str], docs: set[str], commands: set[str]
            ) -> list[str]:
    """What a registered operation lacks, one line per gap."""
    gaps = []
    builders = set(builders)
    for name, row in rows.items():
        if not callable(row.fn):
            gaps.append(f"{name}: no function")
        if not all(KINDS.match(k) for k in row.operands):
            gaps.append(f"{name}: operand kinds {row.operands}")
        if not all(SOURCE.match(s.strip()) for s in row.source.split(",")):
            gaps.append(f"{name}: source {row.source!r} is not a CuTe header line")
        if name not in builders:
            gaps.append(f"{name}: no contract (contracts.claims.BUILDERS)")
        if row.cpp is None and not row.not_compiled:
            gaps.append(f"{name}: no C++ check and no reason why")
        elif row.cpp is not None:
            try:
                operation_case(name, *_example_operands(row))
            except Exception as exc:  # noqa: BLE001 - any failure to generate the C++ call is the gap reported
                gaps.append(f"{name}: no C++ check ({type(exc).__name__}: {exc})")
        if name not in docs:
            gaps.append(f"{name}: no row in docs/semantics.md")
        if name not in commands:
            gaps.append(f"{name}: no cute-verify command")
        if not row.example:
            gaps.append(f"{name}: no example in its row (run by tests/frontends/test_cli_operations.py)")
    return gaps


def _commands() -> set[str]:
    return set(build_parser().commands)  # type: ignore[attr-defined]


def test_every_operation_is_complete() -> None:
    assert missing(REGISTRY, BUILDERS, _documented_names(DOCS.read_text()), _commands()) == []


@pytest.mark.parametrize("lack", ["contract", "cpp", "docs", "command"])
def test_a_missing_piece_is_reported(lack: str) -> None:
    base = REGISTRY["composition"]
    row = replace(base, name="composition2") if lack != "cpp" else replace(base, cpp=None)
    name = row.name
    builders = set(BUILDERS) | ({name} if lack != "contract" else set()) - ({name} if lack == "contract" else set())
    docs = _documented_names(DOCS.read_text()) | ({name} if lack != "docs" else set())
    commands = _commands() | ({name} if lack != "command" else set())
    if lack == "cpp":
        builders, docs, commands = set(BUILDERS), _documented_names(DOCS.read_text()), _commands()
    gaps = missing({name: row}, builders, docs, commands)
    expected = {"contract": "no contract", "cpp": "no C++ check and no reason why", "docs": "no row in docs",
                "command": "no cute-verify command"}[lack]
    assert any(expected in g for g in gaps), gaps


def test_the_forwarded_and_overloaded_operations_are_registered() -> None:
    assert composed.OPERATIONS <= set(REGISTRY)
    assert {n for n, r in REGISTRY.items() if r.swizzled} == {"composition", "right_inverse", "left_inverse",
                                                               "make_tma_box"}


def test_the_docs_parser_reads_grouped_rows() -> None:
    names = _documented_names("| `zipped/tiled/flat_divide` | x |\n| `composition(A, B)` | y |\n")
    assert {"zipped_divide", "tiled_divide", "flat_divide", "composition"} <= names


# -- the obligation catalogue (docs/semantics.md, Severities; verifier/core/obligations.py) ----------------------

ID = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")


def _literals() -> dict[str, set[str]]:
    """Every string literal of the shipped code that has the form of an obligation id, with where it is."""
    import ast

    found: dict[str, set[str]] = {}
    root = Path(__file__).resolve().parents[2] / "verifier"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ID.fullmatch(node.value):
                found.setdefault(node.value, set()).add(str(path.relative_to(root)))
    return found


# Literals of that form that are prefixes the code completes (f"{prefix}-SIZE"), not ids of their own.
PREFIXES = {"DN-RC"}


def test_every_obligation_id_in_the_code_is_catalogued() -> None:
    from verifier.core.obligations import KNOWN

    unknown = {k: v for k, v in _literals().items() if k not in KNOWN and k not in PREFIXES}
    assert unknown == {}


def test_the_catalogue_has_no_id_the_code_never_uses() -> None:
    from verifier.core.obligations import KNOWN

    root = Path(__file__).resolve().parents[2] / "verifier"
    text = "\n".join(p.read_text() for p in root.rglob("*.py") if p.name != "obligations.py")
    unused = sorted(k for k in KNOWN if f'"{k}"' not in text and f'"{k.rsplit("-", 1)[0]}"' not in text)
    assert unused == []


def test_the_docs_point_at_the_catalogue_in_the_repository() -> None:
    text = DOCS.read_text()
    assert "../shared" not in text and "## Severities" in text


def test_the_walk_through_of_adding_an_operation_is_what_it_takes(tmp_path: Path) -> None:
    """docs/architecture.md's walk-through, done on a copy: an algorithm, its contract, its registry row and its docs
    row are all it takes for the command, the spec entry, the operand check and this conformance test to work."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "verifier", tmp_path / "verifier", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "docs", tmp_path / "docs")
    (tmp_path / "tests" / "project").mkdir(parents=True)
    shutil.copy(Path(__file__), tmp_path / "tests" / "project" / "test_registry.py")

    def edit(path: str, before: str, after: str) -> None:
        p = tmp_path / path
        text = p.read_text()
        assert before in text, before
        p.write_text(text.replace(before, after + before, 1))

    edit("verifier/algebra/ops.py", "def filter_zeros(",
         'def walk_coalesce(layout: Layout) -> Layout:\n    """coalesce again (layout.hpp:864-890)."""\n'
         "    return coalesce(layout)\n\n\n")
    edit("verifier/contracts/claims.py", '    "filter_zeros": _filter_zeros,\n', '    "walk_coalesce": _coalesce,\n')
    edit("verifier/algebra/registry.py", '    Operation("filter_zeros",',
         '    Operation("walk_coalesce", ops.walk_coalesce, ("L",), "layout.hpp:864-890", cpp=None,\n'
         '              not_compiled="a walk-through", example=("((M,N),K):((_1,M),M*N)",)),\n')
    edit("docs/semantics.md", "| `filter_zeros(L)` |", "| `walk_coalesce(L)` | as coalesce | as coalesce |\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    cli = subprocess.run([sys.executable, "-m", "verifier.cli", "walk_coalesce", "((M,N),K):((_1,M),M*N)"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0 and cli.stdout.startswith("valid: walk_coalesce("), cli.stdout + cli.stderr
    conformance = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                  "no:cute_verify", "tests/project/test_registry.py::test_every_operation_is_complete"],
                                 cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert conformance.returncode == 0, conformance.stdout[-2000:]
