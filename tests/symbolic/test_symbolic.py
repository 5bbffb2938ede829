"""The symbolic back end: CuTe's unmodified headers run on ``cute_symbolic::Int`` (oracle/include/cute_symbolic.hpp),
its paths explored (oracle/symbolic.py), and the model proved equal to it (oracle/selfcheck.py)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from verifier.algebra.registry import apply
from verifier.core.integers import add
from verifier.core.operands import map_leaves
from verifier.core.overflow import under
from verifier.core.symbols import Symbols
from verifier.notation.cpp import parse, parse_tile
from verifier.oracle import cute_cpp, selfcheck, selfcheck_tiled, symbolic

# One case over what the acceptance names beyond the layout algebra: a tensor on a counting iterator, an MMA atom in
# make_tiled_mma and a copy atom in make_tiled_copy, each partitioned by a symbolic thread, and a swizzled layout.
PROGRAM = """[&] {
  auto M = cute_symbolic::var<int>("p0", p[0]);
  auto N = cute_symbolic::var<int>("p1", p[1]);
  auto t = cute_symbolic::var<int>("p2", p[2]);
  auto C = make_tensor(counting_iterator<cute_symbolic::Int<long long>>(cute_symbolic::lit<long long>(0)),
                       make_layout(make_shape(M, N), make_stride(Int<1>{}, M)));
  auto mma = make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{}, Layout<Shape<_2,_2,_1>>{});
  auto copy = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_16,_8>,Stride<_8,_1>>{},
                              Layout<Shape<_1,_8>>{});
  auto tC = mma.get_slice(t).partition_C(local_tile(C, make_tile(_64{}, _32{}), make_coord(0, 0)));
  auto tS = copy.get_slice(t).partition_S(local_tile(C, make_tile(_128{}, _64{}), make_coord(1, 0)));
  auto sw = composition(Swizzle<3,3,3>{}, make_layout(make_shape(_64{}, N), make_stride(_1{}, _64{})));
  return make_tuple(tC.layout(), tS.layout(), sw, *tC.data(), *tS.data());
}()"""


@pytest.mark.cute
def test_header_compiles_with_cute_unmodified_and_partitions_symbolically(cute) -> None:
    before = cute_cpp.headers_digest.__wrapped__(cute_cpp.cute_include())  # type: ignore[attr-defined]
    case = cute_cpp.CppCase(PROGRAM, (cute_cpp.Slot(symbol="M"), cute_cpp.Slot(symbol="N"), cute_cpp.Slot(symbol="t")))
    binary = symbolic.build([case], atoms=True)
    assert not binary.rejected
    env = {"M": 256, "N": 128, "t": 37}
    (run,) = symbolic.run(binary, [case], [(0, env)])
    assert run.unencodable is None and run.result is not None
    # The leaves are expressions of M, N, t; at the values above they are what CuTe computes with those ints.
    text = symbolic.NODE_REF.sub(lambda m: str(run.leaves[int(m.group(1))].evaluate(env)), run.result)
    # thread 37 of the 2x2 warps of 16x8 MMAs: lane 5 of warp 1; of the 16x8 copy threads: row 4, column 5
    mma_offset = (5 % 4) * 2 * 256 + (5 // 4) + 16
    copy_offset = 128 + (37 % 8) * 8 * 256 + 37 // 8
    assert text == (f"(((_2,_2),_2,_2):((256,_8),_32,4096),((_8,_1),_8,_1):((256,_0),_16,_0),"
                    f"Sw<3,3,3> o _0 o (_64,128):(_1,_64),{mma_offset},{copy_offset})")
    assert cute_cpp.headers_digest.__wrapped__(cute_cpp.cute_include()) == before  # type: ignore[attr-defined]


def _cases() -> list[tuple[str, tuple[object, ...], Symbols]]:
    sy = Symbols()
    for n in ("M", "N", "K", "m"):
        sy.declare(n, hi=4096)
    return [
        ("composition", (parse("(M,N):(_1,M)"), parse("(_4,_2):(_2,_1)")), sy),
        ("composition", (parse("(M,N):(_1,M)"), parse("(K,_2):(_1,K)")), sy),
        ("zipped_divide", (parse("(M,N):(_1,M)"), parse_tile("<_128,_64>")), sy),
        ("complement", (parse("(_4,M):(_1,_4)"),), sy),
        ("local_tile", (parse("(M,N):(_1,M)"), parse_tile("<_16,_8>"), parse("(m,1)")), sy),
    ]


@pytest.mark.cute
def test_concrete_substitutions_print_as_compiled_cute_with_ints(cute) -> None:
    cases = _cases()
    sym = [cute_cpp.operation_case(op, *args, builder=symbolic.SymbolicBuilder) for op, args, _ in cases]
    plain = [cute_cpp.operation_case(op, *args) for op, args, _ in cases]
    binary, explorations = symbolic.explore(sym, [sy for _, _, sy in cases])
    envs = [{"M": 300, "N": 70, "K": 3, "m": 2}, {"M": 128, "N": 64, "K": 128, "m": 0},
            {"M": 1, "N": 1, "K": 1, "m": 1}]
    queries = [cute_cpp.Query(k, env) for env in envs for k in range(len(cases))]
    compiled = cute_cpp.run_cases(plain, queries)
    for q, want in zip(queries, compiled, strict=True):
        ex = explorations[q.case]
        assert ex.unknown is None and ex.paths
        (path,) = [p for p in ex.paths if all(c.expr.evaluate(q.env) for c in p.condition)]
        env = dict(q.env)

        def value(m: re.Match[str], run: symbolic.Run = path.run, env: dict[str, int] = env) -> str:  # noqa: B006
            return str(run.leaves[int(m.group(1))].evaluate(env))

        got = symbolic.NODE_REF.sub(value, path.run.result or "")
        assert got == want.result, (cases[q.case][0], q.env)
        if want.offset is not None:
            assert symbolic.NODE_REF.sub(value, path.run.offset or "") == want.offset


@pytest.mark.cute
def test_exploration_takes_both_sides_of_a_cute_decision(cute) -> None:
    # CuTe's layout algebra compares run-time values rarely (min/max are nodes); elem_less (int_tuple.hpp:885),
    # which predicated copies use, is `a < b && ...` on the run-time values: each conversion to bool a decision.
    sy = Symbols()
    for n in ("M", "N", "i", "j"):
        sy.declare(n, lo=0, hi=64)
    b = symbolic.SymbolicBuilder()
    code = f"int(elem_less({b.coord(parse('(i,j)'))}, {b.int_tuple(parse('(M,N)'))}))"
    _binary, (ex,) = symbolic.explore([b.case(code)], [sy])
    assert ex.unknown is None
    conditions = sorted(" && ".join(map(str, p.condition)) for p in ex.paths)
    assert conditions == ["!(i < M)", "i < M && !(j < N)", "i < M && j < N"]
    # The paths cover the values: each takes exactly one, and CuTe's answer there is the path's.
    grid = range(3)
    for env in ({"M": m, "N": n, "i": i, "j": j} for m in grid for n in grid for i in grid for j in grid):
        (path,) = [p for p in ex.paths if all(c.expr.evaluate(env) for c in p.condition)]
        assert path.run.result == ("1" if env["i"] < env["M"] and env["j"] < env["N"] else "0")


@pytest.mark.cute
def test_a_value_read_as_a_builtin_is_explored_at_every_value(cute) -> None:
    # Reading a run-time value as a builtin int fixes it (a decision `M == v`); flipping that once excludes only v,
    # so the run that reads the next value must flip again with both excluded (a missed path is an unsound proof).
    sy = Symbols()
    sy.declare("M", lo=1, hi=4)
    b = symbolic.SymbolicBuilder()
    code = f"int(static_cast<int>({b.int_tuple(parse('M'))}) * 3)"
    _binary, (ex,) = symbolic.explore([b.case(code)], [sy])
    assert ex.unknown is None
    assert sorted(p.run.result for p in ex.paths) == ["12", "3", "6", "9"]


@pytest.mark.cute
def test_a_value_assigned_to_a_64_bit_unsigned_is_read_as_a_builtin(cute) -> None:
    # CuTe's TMA descriptor code assigns strides into uint64_t (copy_traits_sm90_tma.hpp:873): the one implicit
    # conversion, read as the explicit one (a decision `M == v`, every value explored), wrapping as C++ does.
    sy = Symbols()
    sy.declare("M", lo=-2, hi=1)
    b = symbolic.SymbolicBuilder()
    code = f"[&] {{ uint64_t u = {b.int_tuple(parse('M'))}; return int(u >> 62); }}()"
    _binary, (ex,) = symbolic.explore([b.case(code)], [sy])
    assert ex.unknown is None
    assert sorted(p.run.result for p in ex.paths) == ["0", "0", "3", "3"]
    assert all(" == " in str(p.condition[-1]) for p in ex.paths)


@pytest.mark.cute
def test_the_bound_is_unknown_naming_cutes_line(cute) -> None:
    sy = Symbols()
    for n in ("M", "N", "i", "j"):
        sy.declare(n, lo=0, hi=64)
    b = symbolic.SymbolicBuilder()
    code = f"int(elem_less({b.coord(parse('(i,j)'))}, {b.int_tuple(parse('(M,N)'))}))"
    _binary, (ex,) = symbolic.explore([b.case(code)], [sy], max_paths=2)
    assert ex.unknown is not None and "more than 2 paths" in ex.unknown
    assert re.search(r"a decision at cute/int_tuple\.hpp:\d+", ex.unknown), ex.unknown


@pytest.mark.cute
def test_print_form_is_the_tools_expression_language(cute) -> None:
    # CuTe's print of the result with each dynamic leaf's expression: what notation/cpp.py parses, and the same
    # integer function as the DAG's leaves.
    sy = Symbols()
    for n in ("M", "N"):
        sy.declare(n, hi=4096)
    case = cute_cpp.operation_case("zipped_divide", parse("(M,N):(_1,M)"), parse_tile("<_128,_64>"),
                                   builder=symbolic.SymbolicBuilder)
    _binary, (ex,) = symbolic.explore([case], [sy])
    (path,) = ex.paths
    assert path.run.printed == "((_128,_64),(((M+128)-1)/128,((N+64)-1)/64)):((_1,1*M),(_128,64*M))"
    layout = parse(path.run.printed)
    for env in ({"M": 1, "N": 1}, {"M": 300, "N": 65}, {"M": 4096, "N": 4096}):
        assert str(layout.substitute(env)) == symbolic.NODE_REF.sub(
            lambda m, env=env: str(path.run.leaves[int(m.group(1))].evaluate(env)), path.run.result or "")


@pytest.mark.cute
def test_selfcheck_proves_operations(cute) -> None:
    findings, _ = selfcheck.selfcheck(["zipped_divide", "composition", "make_ordered_layout"])
    assert findings
    assert all(f.status == "proved" for f in findings), [f.detail for f in findings if f.status != "proved"]


@pytest.mark.cute
def test_selfcheck_reports_a_broken_model_with_a_replayed_witness(cute, monkeypatch) -> None:
    real = selfcheck.apply

    def broken(op: str, *args: object, **kw: object):  # noqa: ANN202
        out = real(op, *args, **kw)
        if op != "zipped_divide" or out.result is None:
            return out
        done = [False]

        def leaf(x):  # noqa: ANN001, ANN202 - the first dynamic leaf off by one
            if x.static or done[0]:
                return x
            done[0] = True
            return add(x, 1)

        return dataclasses.replace(out, result=map_leaves(out.result, leaf))

    monkeypatch.setattr(selfcheck, "apply", broken)
    findings, _ = selfcheck.selfcheck(["zipped_divide"])
    bad = [f for f in findings if f.status == "disagrees"]
    assert len(bad) == len(findings)
    assert all(f.witness is not None and "compiled CuTe prints" in f.detail for f in bad)


def test_compact_major_computes_cutes_dropped_product() -> None:
    # CuTe's compact (stride.hpp:305) returns (current, current * shape) for a leaf, and compact_order's last mode
    # computes that product even though it is dropped: M*N*4 overflows int where M*N does not.
    sy = Symbols()
    sy.declare("M")
    sy.declare("N")
    with under(sy):
        out = apply("make_ordered_layout", parse("(M,N,_4)"), parse("(_1,_0,_2)"))
    env = {"M": 32768, "N": 32768}
    assert M_N_fits(env)
    failing = [o for o in out.obligations if o.id == "OVF-ARITH" and not o.condition.expr.evaluate(env)]
    assert failing


def M_N_fits(env: dict[str, int]) -> bool:  # noqa: N802
    return env["M"] * env["N"] < 2**31 <= env["M"] * env["N"] * 4


def test_selfcheck_command_refuses_bad_input(capsys) -> None:
    from verifier.cli import main

    assert main(["selfcheck", "no_such_op"]) == 2
    assert main(["selfcheck", "--cutlass", "/nonexistent/include"]) == 2
    err = capsys.readouterr().err
    assert "unknown operation 'no_such_op'" in err and "no cute/layout.hpp there" in err
    assert "Traceback" not in err


@pytest.mark.cute
def test_selfcheck_command_reports_the_proved_fraction(cute, capsys) -> None:
    import json

    from verifier.cli import main

    assert main(["selfcheck", "coalesce", "--drawn", "2", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["summary"]
    assert summary["proved"] == summary["entries"] > 2 and summary["proved_fraction"] == 1.0
    assert any(f["source"] == "drawn by verifier.strategies" for f in out["findings"])


@pytest.mark.cute
def test_tiled_builders_proved_equal_to_cute_with_a_symbolic_thread(cute) -> None:
    """TiledMMA / TiledCopy (make_tiled_mma with and without a permutation, make_tiled_copy, make_tiled_copy_A/B/C):
    every TV layout and every thread partition of a tensor with symbolic extents and strides, by a symbolic thread
    index, proved equal to CuTe's headers on every path; and the TMA box against CuTe's construct_tma_gbasis."""
    entries, _ = selfcheck.corpus([selfcheck.TILED, "make_tma_box"])
    labels = {e.op for e in entries}
    assert sum(e.op == "make_tma_box" and not e.unchecked for e in entries) == len(selfcheck_tiled.TMA_BOXES)
    assert {f"TiledMMA.partition_{q}" for q in "ABC"} | {f"TiledCopy.partition_{q}" for q in "SD"} <= labels
    assert any("make_tiled_copy_A(" in e.args[0] for e in entries)
    findings, _ = selfcheck.selfcheck(entries=entries)
    assert [(f.entry.op, f.entry.args, f.detail) for f in findings if f.status != "proved"] == []
    assert all(f.entry.tiled is not None for f in findings)


@pytest.mark.cute
def test_a_wrong_tiled_model_is_refuted_with_a_replayed_witness(cute) -> None:
    """A partition whose offset is off for threads past 63 is caught, and the witness replays on compiled CuTe."""
    from verifier.algebra.ops import OffsetLayout
    from verifier.core.integers import S, div, symbol

    entry = next(e for e in selfcheck.corpus([selfcheck.TILED])[0] if e.op == "TiledMMA.partition_C")
    assert entry.tiled is not None
    right = entry.tiled.model

    def wrong() -> object:
        r = right()
        assert isinstance(r, OffsetLayout)
        return OffsetLayout(r.layout, add(r.offset, div(symbol("t"), S(64))))

    bad = dataclasses.replace(entry, tiled=dataclasses.replace(entry.tiled, model=wrong))
    good_f, bad_f = selfcheck.selfcheck(entries=[entry, bad])[0]
    assert good_f.status == "proved"
    assert bad_f.status == "disagrees" and bad_f.witness is not None and bad_f.witness["t"] >= 64
    assert "compiled CuTe prints" in bad_f.detail


def test_atoms_compare_as_cute_printed_them() -> None:
    """The model's atoms printed as CuTe prints their traits: equal to the prints atoms.json recorded, except the two
    whose ALayout CuTe itself cannot evaluate (unknown); a changed member, an atom missing from either side, is a
    disagreement naming it."""
    import json

    from verifier.oracle import selfcheck_atoms

    printed = json.loads(selfcheck_atoms_data().read_text())["atoms"]
    got = selfcheck_atoms.compare(printed)
    assert len(got) == len(printed) >= 2000
    assert {(n, s) for n, _, s, _ in got if s != "proved"} == {
        ("SM80_16x8x128_S32U1U1S32_TN_XORPOPC", "unknown"), ("SM80_16x8x128_S32U1U1S32_TN_ANDPOPC", "unknown")}
    changed = [dict(d) for d in printed]
    k = next(i for i, d in enumerate(changed) if d["name"] == "SM80_16x8x16_F32F16F16F32_TN")
    changed[k]["BLayout"] = "((_4,_8),(_2,_2)):((_16,_1),(_64,_8))"  # the last two strides swapped
    removed = changed.pop(0)
    bad = {n: d for n, _, s, d in selfcheck_atoms.compare(changed) if s == "disagrees"}
    assert set(bad) == {"SM80_16x8x16_F32F16F16F32_TN", removed["name"]}
    assert bad["SM80_16x8x16_F32F16F16F32_TN"].startswith("BLayout: CuTe prints ((_4,_8),(_2,_2)):((_16,_1),(_64,_8))")


def selfcheck_atoms_data() -> object:
    from verifier.algebra.atoms import DATA_FILE

    return DATA_FILE


@pytest.mark.cute
def test_atoms_compiled_afresh_equal_the_models(cute) -> None:
    """A sample of atoms' traits compiled now (as the selfcheck compiles all of them) print what the model holds."""
    from verifier.oracle import atoms_gen, selfcheck_atoms

    names = {"SM80_16x8x16_F32F16F16F32_TN", "SM75_U32x4_LDSM_N", "SM80_CP_ASYNC_CACHEALWAYS<uint128_t,uint128_t>",
             "SM90_64x128x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K, GMMA::ScaleIn::One, GMMA::ScaleIn::One>"}
    fresh = atoms_gen.generate(keep=names.__contains__)["atoms"]
    assert isinstance(fresh, list)
    assert {d["name"] for d in fresh} == names
    got = selfcheck_atoms.compare(fresh)
    assert [(n, s) for n, _, s, _ in got if n in names] == [(n, "proved") for n in (d["name"] for d in fresh)]


def test_registry_rows_without_a_cpp_call_are_unknown_entries_with_the_reason() -> None:
    entries, _ = selfcheck.corpus(["make_tma_box", "predicated_copy", "vectorized_copy"])
    unchecked = {e.op: e.unchecked for e in entries if e.unchecked}
    assert set(unchecked) <= {"make_tma_box", "predicated_copy", "vectorized_copy"}
    for op, why in unchecked.items():
        assert why.startswith("no CuTe call to run: ") and "copy.hpp" in why or "tma" in why, (op, why)
    findings, _ = selfcheck.selfcheck(entries=[e for e in entries if e.unchecked], atoms=False)
    assert [f.status for f in findings] == ["unknown"] * len(unchecked)
