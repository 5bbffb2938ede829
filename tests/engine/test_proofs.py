"""The theorem library proofs/: ``cute-verify prove proofs/`` gives every theorem its expected verdict, every
theorem quantifies over a symbol, docs/proofs.md is the report of the current run, and every counterexample of a
refuted theorem is replayed against compiled CuTe (one sweep compile for the operations, one harness compile for
the rest, both cached by source hash)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from verifier.cli.app import main
from verifier.contracts.claims import first_failure
from verifier.core.integers import D
from verifier.core.layouts import Layout
from verifier.notation.cpp import parse, parse_layout
from verifier.oracle.cute_cpp import CppBuilder, Query, run_cases
from verifier.oracle.sweep import SUPPORTED, SweepCase, sweep
from verifier.run.theorems import Call, Theorem, check, load, valid

ROOT = Path(__file__).resolve().parents[2]
PROOFS = ROOT / "proofs"
DOCS = ROOT / "docs" / "proofs.md"
# The columns of docs/proofs.md that must match a fresh run (times, strategies and counterexamples may vary).
COMPARED = ("theorem", "statement", "assumptions", "domain", "expected", "verdict")


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    return rc, out.getvalue()


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> tuple[int, list[dict], str]:
    """One run of the whole library through the command line, with its Markdown report (the default safety net:
    a 20 s one decided theorems by the wall clock on a loaded machine)."""
    docs = tmp_path_factory.mktemp("proofs") / "proofs.md"
    rc, out = _run(["prove", str(PROOFS), "--json", "--write-docs", str(docs)])
    return rc, json.loads(out), docs.read_text()


@pytest.fixture(scope="module")
def theorems() -> dict[str, Theorem]:
    return {t.name: t for t in load([PROOFS])}


def test_every_theorem_has_its_expected_verdict(library) -> None:
    rc, rows, _ = library
    bad = [f"{r['theorem']}: {r['verdict']} (expected {r['expected']}): {r['reason']}" for r in rows if not r["ok"]]
    assert not bad, "\n".join(bad)
    assert rc == 0


def test_strategy_is_the_route_that_decided(library) -> None:
    """Proofs come from Z3 on the whole problem over the theorem's domain; refutations name their route and were
    replayed."""
    _, rows, _ = library
    over = {"positive": "Z3 over unbounded integers", "int32": "Z3 over int32"}
    for r in rows:
        if r["verdict"] == "proved":
            assert r["strategy"] == over[r["domain"]], r
        else:
            assert "replayed" in r["strategy"] or r["strategy"].startswith("algebra"), r


def test_library_is_large_and_covers_the_families(library) -> None:
    _, rows, _ = library
    assert len(rows) >= 60
    families = {r["family"] for r in rows}
    assert {"coordinates", "coalesce", "composition", "complement", "divide_product", "inverse", "recast",
            "refutations"} <= families
    assert sum(r["expected"] == "refuted" for r in rows) >= 15
    assert sum(r["domain"] == "positive" and r["verdict"] == "proved" for r in rows) >= 40


def test_no_theorem_is_an_instance_check(theorems) -> None:
    """Each theorem's operands mention at least one symbol that takes more than one value."""
    lonely = [name for name, t in theorems.items() if not t.quantified()]
    assert not lonely, lonely


def test_docs_are_the_report_of_the_current_run(library) -> None:
    _, _, fresh = library

    def rows(text: str) -> list[tuple[str, ...]]:
        out = []
        head: list[str] | None = None
        for line in text.splitlines():
            if not line.startswith("| "):
                head = None if not line.startswith("|") else head
                continue
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if cells[0] == "theorem":
                head = cells
                continue
            assert head is not None
            out.append(tuple(cells[head.index(c)] for c in COMPARED))
        return out

    assert DOCS.is_file(), "docs/proofs.md is missing: cute-verify prove proofs/ --write-docs docs/proofs.md"
    assert rows(DOCS.read_text()) == rows(fresh), "docs/proofs.md is stale: regenerate it with " \
        "cute-verify prove proofs/ --write-docs docs/proofs.md"


# -- replay of every refutation against compiled CuTe ------------------------------------------------------------


def _cpp(b: CppBuilder, arg: object, theorem: Theorem) -> str:
    """The C++ expression of an operand: nested calls of CuTe's functions on the written operands."""
    if isinstance(arg, Call):
        ints = [a for a in arg.args if isinstance(a, int)]
        rest = [_cpp(b, a, theorem) for a in arg.args if not isinstance(a, int)]
        return b.call("make_layout" if arg.op == "concat" else arg.op, *rest, template=ints)
    from verifier.run.theorems import evaluate

    return b.operand(evaluate(arg, theorem.table()))


def _case(theorem: Theorem, arg: object):
    b = CppBuilder()
    return b.case(_cpp(b, arg, theorem))


def _values(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    layout = parse_layout(text)
    from verifier.core.int_tuple import leaves

    return tuple(int(x) for x in leaves(layout.shape)), tuple(int(x) for x in leaves(layout.stride))


def _forall_cases(theorem: Theorem, p: dict[str, int], coord: object) -> tuple[list, object]:
    """The C++ replays of the custom claims of refutations.py, and the check that CuTe's answer breaks the claim."""
    sy = theorem.table()
    from verifier.run.theorems import evaluate

    if theorem.name == "shape-div-dynamic":
        b = CppBuilder()
        case = b.case(b.call("shape_div", b.int(D(p["M"])), "Int<4>{}"))
        return [case], lambda rs: int(rs[0].result) * 4 != p["M"]
    if theorem.name == "idx2crd-not-compact":
        layout = evaluate(theorem.statement.args[0], sy, p)
        assert isinstance(layout, Layout)
        b = CppBuilder()
        shape, stride = b.int_tuple(layout.shape), b.int_tuple(layout.stride, "make_stride")
        c = b.coord((D(coord[0]), D(coord[1])))
        case = b.case(f"idx2crd(crd2idx({c}, {shape}, {stride}), {shape}, {stride})")
        return [case], lambda rs: rs[0].result.replace("_", "") != f"({coord[0]},{coord[1]})"
    # Otherwise the claim's CuTe functions are its operands: compute them in CuTe, rebuild the claim on CuTe's own
    # printed results and look for a failing witness by enumeration.
    cases = [_case(theorem, a) for a in theorem.statement.args]

    def fails(rs: list) -> bool:
        objs = [parse(r.result) for r in rs]
        assert theorem.statement.build is not None
        return any(first_failure(c) is not None for c in theorem.statement.build(*objs))

    return cases, fails


@pytest.mark.cute
def test_every_counterexample_fails_in_compiled_cute(library, theorems, cute) -> None:
    _, rows, _ = library
    refuted = [r for r in rows if r["verdict"] == "refuted"]
    assert refuted
    sweeps: list[tuple[str, SweepCase, dict[str, int], bool]] = []
    harness: list[tuple[str, list, object]] = []  # (theorem, cases, fails(results) -> bool)
    for r in refuted:
        t, cex = theorems[r["theorem"]], r["counterexample"]
        assert cex is not None, r["theorem"]
        p = cex["params"]
        st = t.statement
        if st.kind == "valid":
            assert st.name in SUPPORTED, f"{t.name}: {st.name} cannot be swept in compiled CuTe"
            ints = tuple(a for a in st.args if isinstance(a, int))
            ops = tuple(o for o in st.operands(t.table()) if not isinstance(o, int))
            sweeps.append((t.name, SweepCase(st.name, ops, ints), p, bool(st.options.get("strict"))))
        elif st.kind == "check" and st.name == "compatible":
            b = CppBuilder()
            args = [b.operand(o) for o in st.operands(t.table(), p)]
            harness.append((t.name, [b.case(b.call("compatible", *args))],
                            lambda rs: rs[0].result in ("0", "_0", "false")))
        elif st.kind in ("check", "equal"):
            cases = [_case(t, a) for a in st.args]
            if st.kind == "equal":
                fails = lambda rs: _values(rs[0].result) != _values(rs[1].result)  # noqa: E731
            elif st.name == "injective":
                fails = lambda rs: len(set(rs[0].values)) < len(rs[0].values)  # noqa: E731
            elif st.name == "equivalent":
                fails = lambda rs: rs[0].values != rs[1].values  # noqa: E731
            else:
                raise AssertionError(f"{t.name}: no compiled-CuTe replay for check {st.name}")
            harness.append((t.name, cases, fails))
        else:
            cases, fails = _forall_cases(t, p, cex["coordinate"])
            harness.append((t.name, cases, fails))
    bad = []
    if sweeps:
        results = sweep([c for _, c, _, _ in sweeps], [[p] for _, _, p, _ in sweeps])
        for (name, _, p, strict), res in zip(sweeps, results, strict=True):
            status = res.rejected or res.of(p)
            # A strict theorem (valid(..., strict=True)) fails where a stricter clause does: compiled CuTe's warning.
            if not res.rejected and status not in ("wrong", "ub", *(("warning",) if strict else ())):
                bad.append(f"{name}: compiled CuTe is {status} at {p}")
    flat = [c for _, cases, _ in harness for c in cases]
    queries = []
    for name, cases, _ in harness:
        p = next(r["counterexample"]["params"] for r in refuted if r["theorem"] == name)
        for _ in cases:
            queries.append(Query(len(queries), p))
    answers = run_cases(flat, queries) if flat else []
    k = 0
    for name, cases, fails in harness:
        got = answers[k:k + len(cases)]
        k += len(cases)
        if any(a.rejected for a in got):
            bad.append(f"{name}: compiled CuTe rejects the replay: {[a.rejected for a in got]}")
            continue
        if any(a.ub for a in got):
            continue  # CuTe faults at the counterexample: the statement fails there too
        if not fails(got):
            bad.append(f"{name}: compiled CuTe does not break the statement: {[a.result for a in got]}")
    assert not bad, "\n".join(bad)
    assert len(sweeps) + len(harness) == len(refuted)


# -- the statement API and the command line -----------------------------------------------------------------------


def test_the_domain_is_part_of_the_statement() -> None:
    """The same claim holds for every int32 value and fails for some larger positive integer."""
    st = check("no_overflow", "(M):(_1)", bits=32)
    assert Theorem("x", st, "M", domain="int32").run(10).verdict == "proved"
    r = Theorem("x", st, "M", domain="positive").run(10)
    assert r.verdict == "refuted" and r.counterexample.params["M"] > 2**31 - 1


def test_an_unexpected_verdict_fails_the_run(tmp_path) -> None:
    f = tmp_path / "wrong.py"
    f.write_text('from verifier.theorems import Theorem, valid\n'
                 'THEOREMS = [Theorem("gemm", valid("zipped_divide", "(M,N):(_1,M)", "<_128,_64>", strict=True), '
                 '"M N")]\n')
    rc, out = _run(["prove", str(f)])
    assert rc == 1 and "expected proved" in out
    assert valid("zipped_divide", "(M,N):(_1,M)", "<_128,_64>").kind == "valid"


@pytest.mark.parametrize(("text", "message"), [
    ("THEOREMS = 3\n", "no THEOREMS list"),
    ("from verifier.theorems import Theorem, valid\n"
     "THEOREMS = [Theorem('t', valid('coalesce', '(M,Q):(_1,M)'), 'M')]\n", "Q"),
    ("import nosuchmodule\n", "ModuleNotFoundError"),
])
def test_bad_theorem_files_are_one_line_errors(tmp_path, capsys, text: str, message: str) -> None:
    f = tmp_path / "bad.py"
    f.write_text(text)
    assert main(["prove", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cute-verify: error:") and message in err and err.count("\n") == 1


def test_missing_path_is_a_one_line_error(capsys) -> None:
    assert main(["prove", "no/such/proofs"]) == 2
    assert "no/such/proofs" in capsys.readouterr().err


def test_a_statement_over_results_that_fault_is_refuted() -> None:
    """x == x, but computing x divides by a run-time zero stride (CMP-6): not a theorem."""
    from verifier.run.theorems import equivalent, ops

    x = ops.composition("(M,N):(_1,M)", "(_4):(S)")
    r = Theorem("x", equivalent(x, x), {"M": {}, "N": {}, "S": {"lo": 0, "hi": 0}}, domain="int32").run(10)
    assert r.verdict == "refuted" and r.counterexample.params["S"] == 0 and r.counterexample.note
