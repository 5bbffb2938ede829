"""The package's architecture, checked: layers import only downwards, no import cycle, z3 only in the solver, and no
shipped module reaches into ``tests/`` or ``bench/`` (docs/architecture.md states the rules)."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("verifier", "cuda_harness")

# Each layer may import the layers before it, never those after it.
LAYERS = ("core", "solver", "notation", "algebra", "contracts", "engine", "run", "present", "oracle")
# Integrations and the command line sit above every layer.
TOP = ("dsl", "strategies", "pytest_plugin", "testing", "theorems", "pycute", "pictures", "library", "cli")


def _modules() -> dict[str, Path]:
    found = {}
    for package in SHIPPED:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import a module can execute, at any depth, except those only a type checker sees."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (i for n in node.orelse for i in _imports(n))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    base = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    source = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
    named = {f"{source}.{a.name}" for a in node.names}
    submodules = named & modules.keys()
    return submodules if len(submodules) == len(named) else {source} | submodules


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path))):
            edges |= _targets(name, path, node, modules)
        graph[name] = edges
    return graph


def _internal(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A module's ancestors are imported with it by Python, whatever it names; they are not edges of the design.
    return {m: {t for t in ts if t in graph and t != m and not m.startswith(t + ".")} for m, ts in graph.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "verifier" or len(parts) < 2:
        return None
    if parts[1] in LAYERS:
        return LAYERS.index(parts[1])
    return len(LAYERS) + (1 if parts[1] == "cli" else 0) if parts[1] in TOP else None


def test_the_graph_sees_the_modules() -> None:
    graph = _internal(_graph())
    assert "verifier.algebra.ops" in graph and "verifier.core.layouts" in graph
    assert "verifier.core.layouts" in graph["verifier.algebra.ops"]


def test_no_import_cycle() -> None:
    cycle = _cycle(_internal(_graph()))
    assert cycle is None, " -> ".join(cycle or [])


def test_a_cycle_is_found_when_there_is_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_layers_import_only_downwards() -> None:
    upward = [
        f"{m} -> {t}" for m, ts in _internal(_graph()).items() for t in ts
        if (lm := _layer(m)) is not None and (lt := _layer(t)) is not None and lt > lm
    ]
    assert sorted(set(upward)) == []


def test_every_shipped_module_is_in_a_layer() -> None:
    loose = [m for m in _modules() if m.startswith("verifier.") and _layer(m) is None]
    assert loose == []


def test_z3_only_in_the_solver() -> None:
    users = sorted(m for m, ts in _graph().items() if any(t == "z3" or t.startswith("z3.") for t in ts))
    assert users and all(m.startswith("verifier.solver.") for m in users), users


@pytest.mark.parametrize("package", ["tests", "bench"])
def test_shipped_code_does_not_import_the_checkout(package: str) -> None:
    reaching = sorted(m for m, ts in _graph().items() if any(t.split(".")[0] == package for t in ts))
    assert reaching == []
    mentions = sorted(str(p.relative_to(ROOT)) for p in _modules().values()
                      if "sys.path.insert" in p.read_text() and f'"{package}"' in p.read_text())
    assert mentions == []


@pytest.mark.cute
def test_gpu_command_runs_from_an_installed_copy_outside_the_checkout(tmp_path: Path) -> None:
    """``cute-verify gpu CASE-ID`` needs only what an installed package holds: the shipped packages' modules and
    the package data pyproject.toml declares (the corpus, the C++ checks), not the checkout."""
    import shutil
    import subprocess
    import sys

    from verifier.run.spec import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    site = tmp_path / "site"
    for package in SHIPPED:
        files = {*(ROOT / package).rglob("*.py"), *(f for g in data.get(package, []) for f in (ROOT / package).glob(g))}
        for f in files:
            rel = f.relative_to(ROOT / package)
            (site / package / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, site / package / rel)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run([sys.executable, "-m", "verifier.cli", "gpu", "gemm-zdiv-MN-128x64", "--host"],
                         cwd=elsewhere, env={**os.environ, "PYTHONPATH": str(site)},
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("valid: zipped_divide((M,N):(_1,M), <_128,_64>)")
    assert "engine: valid" in run.stdout
