"""The test suite's own rules: every test file lives in a group folder that says what it checks, no test module
imports another test module (what tests share lives in ``tests/support``), and the guard of the ``cute`` marker
(``tests/conftest.py``) watches entry points that exist, so that ``-m "not cute"`` stays a suite without g++."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from tests import conftest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
GROUPS = ("unit", "differential", "engine", "frontends", "docs", "project", "gpu", "adversarial", "symbolic", "cpp",
          "library")


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_test_file_is_in_a_group_folder() -> None:
    tests = [p.relative_to(TESTS) for p in TESTS.rglob("test_*.py")]
    assert tests
    loose = sorted(str(p) for p in tests if len(p.parts) != 2 or p.parts[0] not in GROUPS)
    assert loose == [], f"move these into one of tests/{{{','.join(GROUPS)}}}/ (git mv): {loose}"
    for group in (*GROUPS, "support"):
        assert (TESTS / group / "__init__.py").is_file(), group
    assert not list((TESTS / "support").glob("test_*.py"))


def _imported(tree: ast.AST, package: str) -> list[str]:
    """The modules an AST imports, absolute (relative imports resolved against ``package``)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            source = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            out += [source, *(f"{source}.{a.name}" for a in node.names)]
    return out


def _test_modules(names: list[str]) -> list[str]:
    return [m for m in names if m.split(".")[0] == "tests" and m.split(".")[-1].startswith("test_")]


def test_no_test_module_imports_another_test_module() -> None:
    offenders = []
    for path in _python_files():
        package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
        names = _imported(ast.parse(path.read_text(), str(path)), package)
        offenders += [f"{path.relative_to(ROOT)} imports {m}" for m in _test_modules(names)]
    assert offenders == [], "move what the tests share into tests/support: " + "; ".join(offenders)


def test_the_import_check_sees_every_form() -> None:
    for text in ("from .test_a import x", "from . import test_a", "from ..differential import test_a",
                 "from tests.gpu.test_a import y", "import tests.unit.test_a", "from tests.unit import test_a"):
        assert _test_modules(_imported(ast.parse(text), "tests.engine")), text
    assert not _test_modules(_imported(ast.parse("from tests.support.compare import compare"), "tests.engine"))


def test_the_cute_guard_watches_functions_that_exist() -> None:
    for module, names in conftest.ENTRY_POINTS.items():
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, module
        defined = {n.name for n in ast.parse(Path(spec.origin).read_text()).body if isinstance(n, ast.FunctionDef)}
        assert set(names) <= defined, (module, set(names) - defined)


def test_the_readme_documents_the_fast_tier() -> None:
    assert "python -m pytest -m fast" in (ROOT / "README.md").read_text()
