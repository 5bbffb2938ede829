"""The operation registry's conformance: every registered operation has its contract, its C++ check, its row in
docs/semantics.md, its command and its spec-file entry, or an explicit "not modelled" marker in its row; the check
itself fails when one of them is missing (a synthetic row shows it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from verifier.algebra import composed
from verifier.algebra.registry import REGISTRY, Operation
from verifier.cli.app import build_parser
from verifier.contracts.claims import BUILDERS, result_of
from verifier.contracts.claims import build as claims_of
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


# -- one declaration per operation and per property (issue 27) ---------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
# The modules that declare operations and properties (beside their algorithms), and the one that declares how.
DECLARING = {"verifier/algebra/ops.py", "verifier/algebra/predication.py", "verifier/algebra/tma.py",
             "verifier/algebra/declare.py", "verifier/engine/checks.py", "verifier/engine/property.py"}
# Collections of operation or property names that are not tables of them: the dispatch of an independent oracle
# or a special case on its own semantics (each states why).
ALLOWED = {
    ("verifier/algebra/composed.py", ("downcast", "upcast")): "dispatch of the composed recast's algorithm",
    ("verifier/cli/selfcheck.py", ("blocked_product", "coalesce", "complement", "composition", "filter",
                                   "left_inverse", "logical_divide", "logical_product", "max_common_vector",
                                   "right_inverse", "tiled_divide", "zipped_divide")):
        "a choice of corpus: the operations the selfcheck draws random cases for, and the second operand drawn",
    ("verifier/cli/selfcheck.py", ("complement", "left_inverse", "right_inverse")):
        "dispatch: the selfcheck's generator draws injective layouts for these",
    ("verifier/dsl/harness.py", ("local_partition", "local_tile")): "dispatch: the DSL's partition calls",
    ("verifier/dsl/harness.py", ("coalesce", "filter")): "dispatch: the DSL's profile argument",
    ("verifier/oracle/adversarial/swizzle.py", ("bijective", "in_bounds", "injective")):
        "dispatch of an adversarial generator",
    ("verifier/oracle/sweep.py", ("downcast", "upcast")): "dispatch of the sweep's independent oracle",
    ("verifier/oracle/sweep.py", ("coalesce", "left_inverse", "right_inverse")): "dispatch of the sweep's oracle",
    ("verifier/oracle/sweep.py", ("blocked_product", "raked_product")): "dispatch of the sweep's oracle",
    ("verifier/oracle/sweep.py", ("downcast", "recast_layout", "upcast")): "dispatch of the sweep's oracle",
    ("verifier/run/theorems.py", ("bijective", "compatible", "equivalent", "in_bounds", "injective")):
        "the theorem language's shorthand functions of those names (its __all__)",
    ("verifier/theorems.py", ("bijective", "compatible", "equivalent", "in_bounds", "injective")):
        "the theorem language's shorthand functions of those names (its __all__)",
}


def tables(root: Path, names: set[str]) -> set[tuple[str, tuple[str, ...]]]:
    """Every collection literal (tuple, list, set, dict keys, or a string of words) of two or more of ``names`` in
    the package's modules outside the declaring ones: where a table of operations or properties would be."""
    import ast

    found = set()
    for path in sorted((root / "verifier").rglob("*.py")):
        where = str(path.relative_to(root))
        if where in DECLARING:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            words: list[object] = []
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                words = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            elif isinstance(node, ast.Dict):
                words = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"[\w ]+", node.value):
                words = list(node.value.split())
            hits = tuple(sorted({w for w in words if isinstance(w, str) and w in names}))
            if len(hits) >= 2:
                found.add((where, hits))
    return found


def _names() -> set[str]:
    from verifier.engine.checks import PROPERTIES

    return set(REGISTRY) | set(PROPERTIES)


def test_no_table_of_operations_or_properties_outside_the_declarations() -> None:
    found = tables(ROOT, _names())
    assert sorted(found - set(ALLOWED)) == [], "a new table of operations or properties: derive it from the " \
                                               "declarations (algebra.declare, engine.property)"
    assert sorted(set(ALLOWED) - found) == [], "an allowed table is gone: remove it from ALLOWED"


def test_the_cpp_front_ends_properties_are_the_declared_ones() -> None:
    """Each ``cute_verify::expect_NAME`` of oracle/include/cute_verify.hpp that records a property is decided as the
    declared property of that name, its arguments' kinds read from the declaration's ``cpp``, the arguments past the
    operands as its first options: no second list of the properties in oracle/cpp.py."""
    from verifier.engine.checks import PROPERTIES
    from verifier.engine.property import DECLARED

    header = (ROOT / "verifier" / "oracle" / "include" / "cute_verify.hpp").read_text()
    recorded = set(re.findall(r'record\("(\w+)"', header))
    declared = {n for n, p in DECLARED.items() if p.cpp is not None}
    assert declared and declared <= set(PROPERTIES) and declared == recorded - {"tma_box"}
    for name in declared:
        prop = DECLARED[name]
        assert prop.cpp is not None and len(prop.cpp) <= len(prop.operands) + len(prop.options), name
        body = re.search(rf"void expect_{name}\(([^)]*)\)", header)
        assert body is not None and body.group(1).count(",") - 1 == len(prop.cpp), name  # less file and line


def test_the_table_scan_finds_a_new_table(tmp_path: Path) -> None:
    (tmp_path / "verifier").mkdir()
    (tmp_path / "verifier" / "new.py").write_text('SUPPORTED = ("coalesce", "composition")\nX = "upcast downcast"\n'
                                                  'ONE = ("coalesce",)\n')
    assert tables(tmp_path, _names()) == {("verifier/new.py", ("coalesce", "composition")),
                                          ("verifier/new.py", ("downcast", "upcast"))}


def test_the_docs_tables_are_the_declarations() -> None:
    from verifier.present.semantics_tables import main, render

    text = DOCS.read_text()
    assert render(text) == text, "docs/semantics.md: run python -m verifier.present.semantics_tables"
    assert main(["--check"]) == 0
    edited = text.replace("| `nullspace(L)` | **NUL-POST**", "| `nullspace(L)` | **NUL-POST** (edited)", 1)
    assert edited != text and render(edited) != edited  # a hand edit of a generated row is undone, so --check fails


def test_every_declaration_reads_its_severities_from_the_catalogue() -> None:
    from verifier.core.obligations import KNOWN, severity
    from verifier.engine.property import DECLARED

    for name, row in REGISTRY.items():
        assert row.records and row.obligations, name
        assert all(severity(i) == s for i, s in row.obligations.items())
        args = _example_operands(row)
        assert {c.id for c in claims_of(name, args, result_of(name, args))} <= set(row.obligations), name
    for name, prop in DECLARED.items():
        assert set(prop.ids) <= KNOWN, name


# The addition of an operation and of a property, done on a copy of the tree: what each touches.

_TV = '''def _make_layout_tv_claims(r: tuple[IntTuple, Layout], thr: Layout, val: Layout) -> list[Claim]:
    """RI-POST of the raked product: the result's TV layout is a right inverse, mn(tv(i)) == i for
    i < size(thr)*size(val)."""
    from verifier.core.claim import _claim

    mn = raked_product(thr, val)
    tv = r[1]
    i = _integers.symbol("#i")
    return [_claim("RI-POST", "layout_mn(layout_tv(i)) == i", "copy_atom.hpp:499-503", size(tv), i, mn(tv(i)))]


@declare(("L", "L"), "copy_atom.hpp:499-506", _make_layout_tv_claims, result=PAIR, records=("RI",),
         not_compiled="CuTe 4.2's C++ has no make_layout_tv: it is the body of make_tiled_copy (copy_atom.hpp:499-506)",
         example=("(_4,_8):(_8,_1)", "(_1,M):(_1,_1)", "--assume", "M <= 1024"),
         docs=(("`make_layout_tv(thr, val)`", "`(tiler_mn, layout_tv)`: `layout_mn(layout_tv(i)) == i`", "RI-POST"),))
def make_layout_tv(thr: Layout, val: Layout) -> tuple[IntTuple, Layout]:
    """The CuTe DSL's ``make_layout_tv``: the tiler and the TV layout of raked_product(thr, val)."""
    mn = raked_product(thr, val)
    return product_each(mn.shape), composition(right_inverse(mn), make_layout((size(thr), size(val))))


'''
_TV_TEST = '''from verifier.algebra import make_layout_tv
from verifier.notation.cpp import parse


def test_make_layout_tv() -> None:
    tiler, tv = make_layout_tv(parse("(_4,_8):(_8,_1)"), parse("(_1,_4):(_1,_1)"))
    assert str(tv) == "((_8,_4),_4):((_16,_1),_4)"
'''
_CONTIGUOUS = '''@declare_property("contiguous", ("L",), "L(i) == L(0) + stride * i for every i < size(L)", ("EQUIV",),
                  (Option("stride", int, "contiguous: the distance of consecutive elements", default=1),))
def _contiguous(layout: Layout, stride: int = 1) -> list[Claim]:
    return [Claim("EQUIV", f"L(i) == L(0) + {stride}*i", "layout.hpp", _range(_size(layout)),
                  eq(layout(_I), layout(D(0)) + D(stride) * _I))]


'''
_CONTIGUOUS_TEST = '''from verifier.core.symbols import Symbols
from verifier.engine.checks import check
from verifier.notation.cpp import parse


def test_contiguous() -> None:
    assert check("contiguous", [parse("(_4,_2):(_2,_8)")], Symbols(), stride=2).verdict == "proved"
'''


def _copy(tmp_path: Path) -> Path:
    import shutil

    tree = tmp_path / "tree"
    for part in ("verifier", "docs"):
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "tests" / "project").mkdir(parents=True)
    shutil.copy(Path(__file__), tree / "tests" / "project" / "test_registry.py")
    return tree


def _touched(tree: Path) -> set[str]:
    """The files of ``tree`` that differ from this tree's (or are new), the copied test itself aside."""
    out = set()
    for path in tree.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".md"):
            rel = path.relative_to(tree)
            if str(rel) == "tests/project/test_registry.py":
                continue
            original = ROOT / rel
            if not original.exists() or original.read_bytes() != path.read_bytes():
                out.add(str(rel))
    return out


def _run(tree: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, *argv], cwd=tree, env=env, capture_output=True, text=True, timeout=300)


def _insert(path: Path, before: str, text: str) -> None:
    old = path.read_text()
    assert before in old, before
    path.write_text(old.replace(before, text + before, 1))


def test_adding_a_pair_valued_operation_touches_three_files(tmp_path: Path) -> None:
    """docs/architecture.md's walk-through, done on a copy: ``make_layout_tv`` (a tiler and a TV layout) written in
    ops.py with its declaration and its contract, a test, and the docs regenerated, is all it takes for the
    command, the spec loader, the exports, the docs and the conformance tests to have it."""
    tree = _copy(tmp_path)
    ops = tree / "verifier" / "algebra" / "ops.py"
    _insert(ops, "    RECAST,\n", "    PAIR,\n")
    _insert(ops, "from verifier.core.basis import", "from verifier.core.claim import Claim\n")
    _insert(ops, "@declare((\"C\", \"L\")", _TV)
    (tree / "tests" / "project" / "test_make_layout_tv.py").write_text(_TV_TEST)
    assert _run(tree, "-m", "verifier.present.semantics_tables").returncode == 0
    assert _touched(tree) == {"verifier/algebra/ops.py", "docs/semantics.md", "tests/project/test_make_layout_tv.py"}
    cli = _run(tree, "-m", "verifier.cli", "make_layout_tv", "(_4,_8):(_8,_1)", "(_1,M):(_1,_1)", "--assume",
               "M <= 1024")
    assert cli.returncode == 0 and cli.stdout.startswith("valid: make_layout_tv("), cli.stdout + cli.stderr
    assert "result : ((_4,M*8), ((_8,_4),M):((M*4,_1),_4))" in cli.stdout
    spec = tmp_path / "tv.cute.toml"
    spec.write_text('[symbols]\nM = { min = 1, max = 1024 }\n\n[[check]]\nname = "tv"\nop = "make_layout_tv"\n'
                    'args = ["(_4,_8):(_8,_1)", "(_1,M):(_1,_1)"]\nexpect = "valid"\n')
    run = _run(tree, "-m", "verifier.cli", "run", str(spec), "-j", "1", "--no-cache")
    assert run.returncode == 0, run.stdout + run.stderr
    tests = _run(tree, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:cute_verify",
                 "tests/project/test_make_layout_tv.py",
                 "tests/project/test_registry.py::test_every_operation_is_complete",
                 "tests/project/test_registry.py::test_the_docs_tables_are_the_declarations",
                 "tests/project/test_registry.py::test_no_table_of_operations_or_properties_outside_the_declarations")
    assert tests.returncode == 0, tests.stdout[-3000:]


def test_adding_a_property_touches_three_files(tmp_path: Path) -> None:
    """A property ``contiguous`` with an option, declared beside its claims in engine/checks.py, a test, and the
    docs regenerated: the check command (its option and help), the spec loader (its key and the key's check) and
    the docs have it."""
    tree = _copy(tmp_path)
    _insert(tree / "verifier" / "engine" / "checks.py", "def _items(", _CONTIGUOUS)
    (tree / "tests" / "project" / "test_contiguous.py").write_text(_CONTIGUOUS_TEST)
    assert _run(tree, "-m", "verifier.present.semantics_tables").returncode == 0
    assert _touched(tree) == {"verifier/engine/checks.py", "docs/semantics.md", "tests/project/test_contiguous.py"}
    assert "| `contiguous` | L |" in (tree / "docs" / "semantics.md").read_text()
    cli = _run(tree, "-m", "verifier.cli", "check", "contiguous", "(_4,M):(_2,_8)", "--stride", "2")
    assert cli.returncode == 0 and cli.stdout.startswith("proved: contiguous("), cli.stdout + cli.stderr
    wrong = _run(tree, "-m", "verifier.cli", "check", "contiguous", "(_4,M):(_2,_8)")
    assert wrong.returncode == 1 and wrong.stdout.startswith("refuted: contiguous("), wrong.stdout + wrong.stderr
    assert "--stride" in _run(tree, "-m", "verifier.cli", "check", "--help").stdout
    spec = tmp_path / "c.cute.toml"
    spec.write_text('[symbols]\nM = { min = 1, max = 1024 }\n\n[[check]]\nname = "c"\nproperty = "contiguous"\n'
                    'args = ["(_4,M):(_2,_8)"]\nstride = 2\nexpect = "proved"\n')
    run = _run(tree, "-m", "verifier.cli", "run", str(spec), "-j", "1", "--no-cache")
    assert run.returncode == 0, run.stdout + run.stderr
    spec.write_text(spec.read_text().replace('property = "contiguous"', 'property = "injective"'))
    bad = _run(tree, "-m", "verifier.cli", "run", str(spec), "-j", "1", "--no-cache")
    assert bad.returncode == 2 and 'stride = N belongs to property = "contiguous" only' in bad.stdout + bad.stderr
    tests = _run(tree, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:cute_verify",
                 "tests/project/test_contiguous.py",
                 "tests/project/test_registry.py::test_the_docs_tables_are_the_declarations",
                 "tests/project/test_registry.py::test_no_table_of_operations_or_properties_outside_the_declarations")
    assert tests.returncode == 0, tests.stdout[-3000:]


def test_the_sweeps_families_follow_the_declarations() -> None:
    """The sweep's divides and products are read from what each declaration states (DIV-POST, PRD-POST), so renaming
    a contract's builder keeps them (a family read from builder names once lost three divides)."""
    from verifier.oracle.sweep import DIVIDES, PRODUCTS, SUPPORTED

    assert set(DIVIDES) == {n for n in SUPPORTED if n.endswith("_divide")} and len(DIVIDES) == 4
    assert set(PRODUCTS) == {n for n in SUPPORTED if n.endswith("_product")} and len(PRODUCTS) == 6
