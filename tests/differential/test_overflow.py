"""CuTe's integer types (issue 13, point 2): signed overflow in an operation's own arithmetic (OVF-ARITH) and in
evaluating its result (OVF-RESULT) are errors, named by the CuTe computation, and agree with compiled CuTe built
with trapping overflow (verifier/oracle/overflow_sweep.py) near 2^31 and, for 64-bit symbols, near 2^63."""

from __future__ import annotations

import itertools

import pytest

from verifier import parse
from verifier.algebra import registry
from verifier.core.overflow import OVERFLOW, under
from verifier.core.symbols import Symbols
from verifier.engine.guards import derive_guard, overflow_caps
from verifier.engine.verdicts import INVALID, VALID
from verifier.engine.verify import verify
from verifier.notation.cpp import parse_relation

I32 = 2**31 - 1
I64 = 2**63 - 1


def _problem(texts: list[str], assume: list[str] = (), wide: tuple[str, ...] = ()) -> tuple[list[object], Symbols]:
    s = Symbols()
    for name in wide:
        s.declare(name, bits=64)
    args = [int(t) if t.isdigit() else parse(t, s) for t in texts]
    for a in assume:
        s.assume(parse_relation(a, s))
    return args, s


NEAR = ["M >= 2147483640", "M <= 2147483647", "N >= 1", "N <= 2"]
# The cases of the issue: (operation, operands, assumptions, the computation named).
ISSUE = [
    ("composition", ["(M,N):(_1,M)", "_4:_2"], NEAR, "ceil_div(M, _2)"),
    ("composition", ["(M,N):(_1,M)", "_2:_3"], NEAR, "ceil_div(M, _3)"),
    ("composition", ["(M,N):(N,_1)", "(_2,_2):(_2,_1)"], NEAR, "ceil_div(M, _2)"),
    ("composition", ["(_8,M,N):(_1,_8,8*M)", "_2:_16"], NEAR, "ceil_div(M, _2)"),
    ("composition", ["(M,N):(_1,M)", "_2:S"], ["M == 6", "N == 1", "S >= 2147483600"], "ceil_div(M, abs(S))"),
    ("downcast", ["2", "(_2,_2):(_1,S)"], ["S >= 1073741800", "S <= 1073741830"], "downcast(S, _2)"),
]


def _op_args(op: str, texts: list[str], assume: list[str]) -> tuple[list[object], Symbols]:
    return _problem(texts, assume)


@pytest.mark.parametrize("op,texts,assume,named", ISSUE, ids=[f"{c[0]}-{c[1][-1]}" for c in ISSUE])
def test_issue_cases_are_invalid_naming_the_overflow(op: str, texts: list[str], assume: list[str],
                                                     named: str) -> None:
    args, s = _op_args(op, texts, assume)
    v = verify(op, args, s, derive=False)
    assert v.verdict == INVALID
    assert v.reason is not None and "OVF-ARITH fails" in v.reason and named in v.reason
    failing = [d for d in v.obligations if d.id == "OVF-ARITH" and d.status == "refuted"]
    assert failing and all(d.severity == "error" and d.cute_checks == OVERFLOW for d in failing)
    assert any(named in d.description for d in failing)


@pytest.mark.cute
@pytest.mark.parametrize("op,texts,assume,named", ISSUE, ids=[f"{c[0]}-{c[1][-1]}" for c in ISSUE])
def test_issue_counterexamples_overflow_in_compiled_cute(op: str, texts: list[str], assume: list[str],
                                                         named: str, cute: object) -> None:
    """Every OVF-ARITH counterexample replays: compiled CuTe built to trap on signed overflow traps there."""
    from verifier.oracle import overflow_sweep as osw

    args, s = _op_args(op, texts, assume)
    v = verify(op, args, s, derive=False)
    points = [d.counterexample.params for d in v.obligations
              if d.id == "OVF-ARITH" and d.counterexample is not None]
    assert points
    case = _cpp_case(op, args)
    got = osw.run([case], [(0, p) for p in points])
    assert all(o.status in (osw.OP_OVERFLOW, osw.DIV0) for o in got), (points, got)


def _cpp_case(op: str, args: list[object], wide: frozenset[str] = frozenset()):  # noqa: ANN202
    from verifier.oracle import overflow_sweep as osw

    if op in ("upcast", "downcast"):
        return osw.case(op, args[1], template=(int(args[0]),), wide=wide)  # type: ignore[arg-type]
    return osw.case(op, *args, wide=wide)


def test_sigfpe_case_names_the_overflow_first() -> None:
    """composition((M,N):(_1,M), _2:S) at M=6 near S=2^31: CuTe's ceil_div(M, S) wraps and it then divides by
    zero; the overflowing computation is the finding."""
    args, s = _problem(["(M,N):(_1,M)", "_2:S"], ["M == 6", "N == 1", "S >= 2147483600"])
    v = verify("composition", args, s, derive=False)
    assert v.reason is not None and v.reason.startswith("OVF-ARITH")


def test_static_and_concrete_operands_record_nothing_when_in_range() -> None:
    args, s = _problem(["(_8,_16):(_1,_8)", "_4:_2"])
    with under(s):
        out = registry.apply("composition", *args)
    assert not [o for o in out.obligations if o.id.startswith("OVF")]


def test_concrete_overflow_is_a_failing_obligation() -> None:
    args, s = _problem([f"({I32},2):(_1,{I32})", "_4:_2"])
    with under(s):
        out = registry.apply("composition", *args)
    ovf = [o for o in out.obligations if o.id == "OVF-ARITH"]
    assert ovf and all(o.status == "fails" for o in ovf)
    v = verify("composition", args, s, derive=False)
    assert v.verdict == INVALID and "OVF-ARITH" in (v.reason or "")


def test_64bit_symbols_are_int64() -> None:
    """A 64-bit M makes M+_2 an int64: no overflow near 2^31, an overflow near 2^63."""
    args, s = _problem(["(M,N):(_1,M)", "_4:_2"], ["M >= 2147483640", "M <= 2147483647", "N <= 2"], wide=("M",))
    v = verify("composition", args, s, derive=False)
    assert not [d for d in v.obligations if d.id.startswith("OVF") and d.status == "refuted"]
    args, s = _problem(["(M,N):(_1,M)", "_4:_2"], [f"M >= {I64 - 7}", "N <= 2"], wide=("M",))
    v = verify("composition", args, s, derive=False)
    assert v.verdict == INVALID and "int64" in (v.reason or "")


def test_bounded_symbols_keep_the_verdict() -> None:
    """With realistic bounds the interval arithmetic proves the intermediates in range (no OVF-ARITH is recorded)
    and the result's evaluation is proved in range."""
    args, s = _problem(["(M,N):(_1,M)", "<_128,_64>"], ["M <= 65536", "N <= 16384", "M % 128 == 0",
                                                         "N % 64 == 0"])
    v = verify("logical_divide", args, s, derive=False)
    assert v.verdict == VALID
    assert not [d for d in v.obligations if d.id == "OVF-ARITH"]
    assert all(d.status == "proved" for d in v.obligations if d.id == "OVF-RESULT")


def test_result_overflow_where_the_operands_do_not() -> None:
    """logical_product of a 2x2 block by (M,N):(_1,M): the result's cosize is 4*M*N, past int32 where M*N fits."""
    args, s = _problem(["(_2,_2):(_1,_2)", "(M,N):(_1,M)"], ["M <= 32768", "N <= 32768"])
    v = verify("logical_product", args, s, derive=False)
    assert v.verdict == INVALID
    res = [d for d in v.obligations if d.id == "OVF-RESULT"]
    assert res and res[0].status == "refuted"
    p = res[0].counterexample.params
    assert p["M"] * p["N"] <= I32 < 4 * p["M"] * p["N"]


def test_guard_bounds_the_symbols() -> None:
    args, s = _problem(["(M,N):(_1,M)", "_4:_2"])
    caps = overflow_caps("composition", args, s)
    assert [t for _, _, t in caps] == ["M <= 2147483645"]
    guard, note = derive_guard("composition", args, s)
    assert guard is not None and "M <= " in guard.condition and note is None


def test_guard_of_a_product_bounds_both() -> None:
    args, s = _problem(["(_2,_2):(_1,_2)", "(M,N):(_1,M)"])
    texts = [t for _, _, t in overflow_caps("logical_product", args, s)]
    assert texts and all(t.startswith(("M <= ", "N <= ")) for t in texts) and len(texts) == 2


def test_zero_extent_stays_free_of_false_overflow() -> None:
    args, s = _problem(["(M/4,_4):(_4,_1)"], ["M >= 1", "M <= 12"])
    v = verify("coalesce", args, s, derive=False)
    assert not [d for d in v.obligations if d.id.startswith("OVF") and d.status == "refuted"]
    assert not [d for d in v.obligations if d.id == "DIV0" and d.status == "refuted"]


# -- the corpus: operations swept near 2^31 (and 2^63 for 64-bit symbols) against trapping compiled CuTe -------

NEAR31 = [1, 2, 6, 46340, 46341, 65536, 2**30 - 1, 2**30, 2**30 + 1, I32 - 127, I32 - 3, I32 - 2, I32 - 1, I32]
NEAR63 = [1, 3, 2**31, 2**32 + 1, 3037000499, 3037000500, 2**62, I64 - 127, I64 - 1, I64]
CORPUS = [
    ("composition", ["(M,N):(_1,M)", "_4:_2"], ()),
    ("composition", ["(M,N):(_1,M)", "_2:_3"], ()),
    ("composition", ["(M,N):(N,_1)", "(_2,_2):(_2,_1)"], ()),
    ("composition", ["(_8,M,N):(_1,_8,8*M)", "_2:_16"], ()),
    ("composition", ["(M,N):(_1,M)", "_2:N"], ()),
    ("composition", ["(M,N):(_1,M)", "(_2,_2):(_1,M)"], ()),
    ("logical_divide", ["(M,N):(_1,M)", "<_128,_64>"], ()),
    ("logical_divide", ["M:_1", "_32:_1"], ()),
    ("zipped_divide", ["(M,N):(_1,M)", "<_4,_2>"], ()),
    ("logical_product", ["(_2,_2):(_1,_2)", "(M,N):(_1,M)"], ()),
    ("blocked_product", ["(_4,_2):(_1,_4)", "(M,N):(_1,M)"], ()),
    ("complement", ["_4:M", "N"], ()),
    ("upcast", ["2", "(M,N):(_1,M)"], ()),
    ("downcast", ["2", "(_2,_2):(_1,M)"], ()),
    ("downcast", ["4", "(M,N):(_1,M)"], ()),
    ("coalesce", ["(M,N):(_1,M)"], ()),
    ("right_inverse", ["(M,_4):(_4,_1)"], ()),
    ("composition", ["(M,N):(_1,M)", "_4:_2"], ("M",)),
    ("logical_product", ["(_2,_2):(_1,_2)", "(M,N):(_1,M)"], ("M", "N")),
    ("downcast", ["2", "(_2,_2):(_1,M)"], ("M",)),
    ("logical_divide", ["(M,N):(_1,M)", "<_128,_64>"], ("M", "N")),
]


def _model(op: str, args: list[object], s: Symbols) -> tuple[list[object], object]:
    with under(s):
        out = registry.apply(op, *args)
    from verifier.core.overflow import result_condition

    res = result_condition(tuple(args), out.result, s) if out.result is not None else None
    return [o.condition for o in out.obligations if o.id == "OVF-ARITH"], res


def _operands_fit(texts: list[str], wide: tuple[str, ...], p: dict[str, int]) -> bool:
    from verifier.core.layouts import Layout
    from verifier.core.overflow import _width, evaluation_fits

    args, s = _problem(texts, wide=wide)
    return all(evaluation_fits(a, _width(a, s) or 32).evaluate(p) for a in args if isinstance(a, Layout))


def _points(names: list[str], wide: tuple[str, ...]) -> list[dict[str, int]]:
    values = {n: NEAR63 if n in wide else NEAR31 for n in names}
    return [dict(zip(names, p)) for p in itertools.product(*(values[n] for n in names))]


@pytest.mark.cute
def test_corpus_agrees_with_trapping_cute(cute: object) -> None:
    """At every point: OVF-ARITH fails exactly where compiled CuTe traps (or divides by zero after a wrap) in the
    operation; where it computes, OVF-RESULT fails exactly where the result's size or cosize traps (the
    operands' own evaluation in range), but for a cosize whose last index is the type's maximum (CuTe adds 1)."""
    from verifier.oracle import overflow_sweep as osw

    cases, queries, expect = [], [], []
    for k, (op, texts, wide) in enumerate(CORPUS):
        args, s = _problem(texts, wide=wide)
        arith, res = _model(op, args, s)
        cases.append(_cpp_case(op, args, frozenset(wide)))
        names = sorted(x.name for x in s)
        for p in _points(names, wide):
            fails = any(not c.evaluate(p) for c in arith)
            queries.append((k, p))
            expect.append((op, texts, wide, p, fails, None if res is None else not res.evaluate(p)))
    got = osw.run(cases, queries)
    bad = []
    for (op, texts, wide, p, fails, res_fails), o in zip(expect, got):
        if fails != (o.status in (osw.OP_OVERFLOW, osw.DIV0)):
            bad.append((op, texts, wide, p, "arith", fails, o.status))
        elif o.status == osw.OK and res_fails:
            bad.append((op, texts, wide, p, "result", res_fails, o.status))
        elif o.status == osw.EVAL_OVERFLOW and res_fails is False and _operands_fit(texts, wide, p):
            bad.append((op, texts, wide, p, "result", res_fails, o.status))
    assert not bad, bad[:10]
    assert sum(1 for e in expect if e[4]) > 20  # the corpus does overflow


# -- issue 13, point 2: a product's complement must leave no gap ---------------------------------------------------


@pytest.mark.cute
def test_blocked_product_with_a_dynamic_unit_mode_is_invalid_where_cute_leaves_a_gap(cute: object) -> None:
    """blocked_product((1,_2):(_5,_1), (M,_2):(_1,M)): the run-time extent 1 is not filtered, so CuTe's complement
    places the tiles at 0,2,5,7 at M=2 (its result maps 4 to 5); at M=1 the result is the compact one."""
    from verifier.oracle.cute_cpp import Query, call_case, run_cases

    args, s = _problem(["(1,_2):(_5,_1)", "(M,_2):(_1,M)"], ["M <= 2"])
    v = verify("blocked_product", args, s, derive=False)
    assert v.verdict == INVALID and v.counterexample.obligation == "PRD-POST-COMPACT"
    assert v.counterexample.params == {"M": 2}
    case = call_case("blocked_product", *args)
    at2, at1 = run_cases([case], [Query(0, {"M": 2}), Query(0, {"M": 1})])
    assert at2.values is not None and sorted(at2.values) == [0, 1, 2, 3, 5, 6, 7, 8]
    assert at2.values[4] == 5
    assert at1.values is not None and sorted(at1.values) == [0, 1, 2, 3]
    args, s = _problem(["(1,_2):(_5,_1)", "(M,_2):(_1,M)"], ["M == 1"])
    assert verify("blocked_product", args, s, derive=False).verdict == VALID


def test_a_one_operation_site_names_its_line() -> None:
    """The algebra's hot loops label an operation with ``integers.at`` instead of a ``with site`` block (issue 16):
    the overflow it can cause is still named with its CuTe computation and line (complement's layout.hpp:1217,
    ``new_stride = stride * shape`` of its largest mode)."""
    args, s = _problem(["(M,N):(_1,_1048576)"], ["M <= 1048576"])
    v = verify("complement", args, s, derive=False)
    assert v.verdict == INVALID
    named = [d for d in v.obligations
             if d.id == "OVF-ARITH" and d.status == "refuted" and d.source == "layout.hpp:1217"]
    assert named and "complement(_1048576, N) in complement" in named[0].description, v.obligations
