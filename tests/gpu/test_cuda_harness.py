"""cuda_harness in host mode: the generated CUDA (CuTe kernels, model kernels, sweep kernels) compiled by g++ and
run on the CPU, so CI runs the generators and the comparisons without a GPU (``test_cuda_harness_gpu.py`` runs the
same on the device).

* CuTe's result, the model's plain-CUDA kernel and the host model agree index by index on conformance cases in all
  three variants (swizzled and scaled-basis ones included), and on symbolic layouts over assignments;
* the guarded copy reports what the layout does: out-of-bounds writes land in the guards, repeated indices are
  counted, bijections are recognised; a wrong model is caught;
* the device sweep (``verifier.oracle.sweep``'s checks on the device helpers) decides every assignment as the host
  sweep does, and the engine's counterexamples are device mismatches;
* a kernel the compiler rejects is isolated; no user text reaches the generated code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cuda_harness import harness
from cuda_harness.build import attribute
from cuda_harness.harness import Case, evaluate, sweep
from cuda_harness.kernels import cute_kernel, model_kernel, symbol_slots, unit
from cuda_harness.runner import runner
from tests.support.harness_cases import CORPUS, SWEEP_IDS, conformance, small_grid
from verifier import Layout, LayoutError, parse_layout
from verifier.algebra.registry import apply
from verifier.core.basis import has_basis
from verifier.oracle.corpora import operands, parametric, parametric_assignments
from verifier.oracle.cute_cpp import call_case, layout_case
from verifier.oracle.sweep import SweepCase, key
from verifier.oracle.sweep import sweep as host_sweep

DATA = Path(__file__).parents[1] / "data"
@pytest.fixture(scope="module")
def conf(cute):
    return conformance(host=True)


@pytest.mark.cute
def test_conformance_cases_agree_index_by_index(conf) -> None:
    cases, rep = conf
    assert len(rep.checks) == len(cases) >= 60
    bad = [f"{c.label}: {c.detail}" for c in rep.checks if c.status not in ("agree", "rejected", "ub")]
    assert not bad, "\n".join(bad)
    counts = rep.counts()
    assert counts["agree"] >= 50 and counts.get("rejected", 0) >= 1
    # Rejections are exactly the model's (then nothing is built), UB exactly where the model divides by zero.
    for case, check in zip(cases, rep.checks, strict=True):
        outcome = apply(case.op, *case.operands)
        assert (check.status == "rejected") == (outcome.rejection is not None), case.label
        assert (check.status == "ub") == (outcome.undefined is not None), case.label
    assert sum(c.indices for c in rep.checks) > 500


@pytest.mark.cute
def test_the_model_kernel_ran_wherever_values_are_indices(conf) -> None:
    cases, rep = conf
    for case, check in zip(cases, rep.checks, strict=True):
        if check.status != "agree":
            continue
        result = apply(case.op, *case.operands).result
        coordinates = isinstance(result, Layout) and has_basis(result.stride)
        assert check.model_on_device != coordinates, case.label
    assert any(c.model_on_device for c in rep.checks)


@pytest.mark.cute
def test_symbolic_layout_over_assignments() -> None:
    lay = parse_layout("(M,(N,_2)):(_1,(M,M*N))")
    envs = tuple({"M": m, "N": n} for m in (1, 3, 7) for n in (1, 2, 5))
    rep = evaluate([Case("L", None, (lay,), envs=envs)], host=True)
    for check, env in zip(rep.checks, envs, strict=True):
        assert check.status == "agree", check.detail
        vals = lay.substitute(env).values()
        assert check.indices == len(vals)
        assert check.injective == (len(set(vals)) == len(vals))
        assert check.bijective == (sorted(vals) == list(range(len(vals))))
        assert check.in_bounds is True


@pytest.mark.cute
@pytest.mark.parametrize("text, injective, in_bounds, bijective", [
    ("(_4,_2):(_2,_1)", True, True, True),
    ("(4,2):(1,0)", False, True, False),
    ("(4):(-1)", True, False, False),        # indices 0,-1,-2,-3: three writes land in the lower guard
    ("(3,2):(2,_7)", True, True, False),     # in bounds (cosize 12) but with holes
])
def test_guarded_copy_reports_what_the_layout_does(text, injective, in_bounds, bijective) -> None:
    (check,) = evaluate([Case(text, None, (parse_layout(text),))], host=True).checks
    assert check.status == "agree", check.detail
    assert (check.injective, check.in_bounds, check.bijective) == (injective, in_bounds, bijective)


@pytest.mark.cute
def test_a_wrong_model_is_caught(monkeypatch) -> None:
    lay = parse_layout("(4,3):(3,1)")
    real = harness._outcome

    def wrong(case, ops):
        out = real(case, ops)
        if not any(x.symbols() for x in ops if hasattr(x, "symbols")) and out.result is not None:
            return type(out)(parse_layout("(4,3):(3,2)"), ())
        return out

    monkeypatch.setattr(harness, "_outcome", wrong)
    (check,) = evaluate([Case("L", None, (lay,))], host=True).checks
    assert check.status == "mismatch"
    assert "indices differ" in check.detail and "writes per element" in check.detail


@pytest.mark.cute
def test_the_seed_bugs_run_as_cute_computes_them() -> None:
    # upcast<2> of a run-time (16):(1) is (16):(0) in CuTe 4.2; composition((2,3):(1,2), (2,3):(3,1)) has size 4.
    up = Case("upcast", "upcast", (parse_layout("(16):(1)"),), (2,))
    cmp = Case("composition", "composition", (parse_layout("(2,3):(1,2)"), parse_layout("(2,3):(3,1)")))
    rep = evaluate([up, cmp], host=True)
    assert [c.status for c in rep.checks] == ["agree", "agree"], [c.detail for c in rep.checks]
    assert rep.checks[0].injective is False and rep.checks[1].indices == 4


# -- the sweep ------------------------------------------------------------------------------------------------------

@pytest.mark.cute
def test_device_sweep_decides_as_the_host_sweep(cute) -> None:
    entries = [CORPUS[i] for i in SWEEP_IDS]
    cases = [SweepCase(*parametric(e)) for e in entries]
    envs = [small_grid(e) for e in entries]
    dev, method = sweep(cases, envs, host=True)
    ref = host_sweep(cases, envs)
    assert method == "g++ (host mode)"
    seen = set()
    for e, d, h in zip(entries, dev, ref, strict=True):
        assert d.rejected is None and h.rejected is None
        for k, s in h.status.items():
            seen.add(s)
            # A division by zero in CuTe's operation is UB; in host mode the device code traps the same way.
            assert d.status[k] == s, (e["id"], dict(k), d.status[k], s)
    assert {"correct", "wrong", "ub"} <= seen


@pytest.mark.cute
def test_small_scratch_defers_to_the_next_pass(cute) -> None:
    e = CORPUS["prod-flat-bymode"]  # multiset checks: the sizes exceed a 16-element scratch
    case = SweepCase(*parametric(e))
    envs = small_grid(e, 5)
    (dev,), _ = sweep([case], [envs], host=True, caps=(16, 1 << 16))
    (ref,) = host_sweep([case], [envs])
    assert dev.status == ref.status
    (only_small,), _ = sweep([case], [envs], host=True, caps=(16,))
    assert "too_large" in only_small.status.values()


@pytest.mark.cute
def test_refutations_are_device_mismatches_at_the_counterexample() -> None:
    import sys

    from verifier.engine.verdicts import Policy
    from verifier.engine.verify import verify

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.bench_engine import problem

    # A partial tile is a warning (issue 13): refuted under --strict, where the device says "warning".
    for cid, strict, status in (("cmp-seed-colmajor-rowmajor", False, "wrong"), ("gemm-zdiv-MN-32x16", True, "warning"),
                                ("up2-rowmajor-MK", False, "wrong")):
        e = CORPUS[cid]
        op, args, sy = problem(e)
        v = verify(op, args, sy, timeout=60, derive=False,  # generous: the CI machine may be loaded
                   policy=Policy(strict=strict))
        assert v.verdict == "invalid" and v.counterexample is not None, (cid, v.reason)
        cx = dict(v.counterexample.params)
        (dev,), _ = sweep([SweepCase(*parametric(e))], [[cx]], host=True)
        assert dev.status[key(cx)] == status, (cid, cx)


@pytest.mark.cute
def test_parametric_points_agree_at_the_counterexample_and_samples() -> None:
    e = CORPUS["cmp-seed-colmajor-rowmajor"]
    op, ops, tpl = parametric(e)
    envs = tuple(parametric_assignments(e)[::611])
    rep = evaluate([Case(e["id"], op, ops, tpl, envs)], host=True)
    assert len(rep.checks) == len(envs) >= 5
    assert all(c.status == "agree" and c.model_on_device for c in rep.checks), [c.detail for c in rep.checks]


# -- building and safety ---------------------------------------------------------------------------------------------


@pytest.mark.cute
def test_a_rejected_kernel_is_isolated(cute) -> None:
    good = cute_kernel("good", layout_case(parse_layout("(_4,_2):(_1,_4)")))
    # CuTe static_asserts on a static tiler with more modes than the layout (layout.hpp "Too many modes").
    ops = (parse_layout("_8:_1"), *operands(["<_2,_2>"], "original"))
    assert apply("logical_divide", *ops).rejection is not None
    bad = cute_kernel("bad", call_case("logical_divide", *ops))
    run = runner([bad, good], host=True)
    assert set(run.rejected) == {"bad"}
    aux = np.zeros(2 + 3 * 600 + 9, dtype=np.int64)
    res = run.launch("good", np.zeros(1, np.int64), 0, 8, np.zeros(8, np.int64), aux, 520, 8)
    assert res.out.tolist() == [0, 1, 2, 3, 4, 5, 6, 7] and res.aux[0] == 8


def test_diagnostics_are_attributed_to_kernels() -> None:
    spans = {"a": (10, 20), "b": (21, 30)}
    nvrtc = 'x/layout.hpp(12): error: static assertion failed with "Too many modes"\n  detected during:\n' \
            '  instantiation of "f" at line 25 of unit.cu\n'
    gxx = "/tmp/d/unit.cpp:15:3: required from here\n/x/layout.hpp:9:5: error: static assertion failed: boom\n"
    assert attribute(nvrtc, spans) == {"b": "Too many modes"}
    assert list(attribute(gxx, spans)) == ["a"]
    # Warnings (and the instantiation lines under them) blame nothing.
    warned = 'unit.cu(12): warning #177-D: variable "x" was declared but never referenced\n' \
             '  detected during instantiation of "g" at line 14 of unit.cu\n' + nvrtc
    assert attribute(warned, spans) == {"b": "Too many modes"}


HOSTILE = ['(M);system("rm -rf /"):1', "(M):(1)}); int x = (1", "(M/*c*/):1", "(M\n#include <x>):1",
           "(__global__):1", "(M):(asm)"]


@pytest.mark.parametrize("text", HOSTILE[:4])
def test_hostile_layout_text_never_parses(text: str) -> None:
    with pytest.raises(LayoutError):
        parse_layout(text)


@pytest.mark.cute
def test_symbol_names_never_reach_the_generated_cuda() -> None:
    lay = parse_layout("(system,(popen,asm)):(_1,(system,popen*asm))")
    cpp = layout_case(lay)
    text, _ = unit([cute_kernel("k0", cpp), model_kernel("k1", lay, symbol_slots(cpp))])
    body = text.split("using namespace cute;", 1)[1]
    for name in ("system", "popen", "asm"):
        assert name not in body.replace("asm volatile", "")
    rep = evaluate([Case("L", None, (lay,), envs=({"system": 3, "popen": 2, "asm": 2},))], host=True)
    assert rep.checks[0].status == "agree"


# -- the command line ------------------------------------------------------------------------------------------------


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    from verifier.cli.app import main

    code = main(["gpu", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.cute
def test_cli_layout_agrees_in_host_mode(capsys) -> None:
    code, out, _ = _cli(capsys, "(M,(N,_2)):(_1,(M,M*N))", "--sweep", "M=1..3", "--sweep", "N=2", "--host")
    assert code == 0 and out.startswith("agree: (M,(N,_2)):(_1,(M,M*N)) on the CPU")
    assert "injective at 3 of 3" in out and "bijective at 3 of 3" in out


@pytest.mark.cute
def test_cli_case_id_confirms_the_engine(capsys) -> None:
    code, out, _ = _cli(capsys, "cmp-seed-colmajor-rowmajor", "--sweep", "M=1..6", "--sweep", "N=1..6", "--host",
                        "--timeout", "60")
    assert code == 1 and out.startswith("invalid: composition((M,N):(1,M), (M,N):(N,1))")
    assert "engine: invalid, counterexample" in out and "(host: wrong)" in out and "DISAGREES" not in out
    code, out, _ = _cli(capsys, "gemm-zdiv-MN-128x64", "--sweep", "M=128..256", "--sweep", "N=64", "--host",
                        "--timeout", "60", "--json")
    got = json.loads(out)
    assert code == 0 and got["verdict"] == "valid" and got["engine"] == "valid" and got["assignments"] == 2


UNBOUNDED_SPEC = """[symbols]
M = {}
N = {}
K = {}

[[check]]
name = "div"
op = "logical_divide"
args = ["(M,N,K):(_1,M,M*N)", "<_4,_8>"]
timeout = 2
"""


def test_cli_spec_refuses_a_sweep_too_large_to_run(capsys, tmp_path) -> None:
    # Issue 29 (12): the sweep bounds its own work; ranges the user gives are swept whole or refused at once.
    spec = tmp_path / "a.cute.toml"
    spec.write_text(UNBOUNDED_SPEC.replace("K = {}", "K = { max = 1 }"))
    code, out, err = _cli(capsys, str(spec), "--host", "--sweep", "M=1..1024", "--sweep", "N=1..1024",
                          "--sweep", "K=1")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "div (line 6)" in err and "give smaller ranges with --sweep" in err
    code, out, err = _cli(capsys, "(M,N):(_1,M)", "--host", "--sweep", "M=1..4096", "--sweep", "N=4096")
    assert code == 2 and err.count("\n") == 1 and "give smaller ranges with --sweep" in err, err


@pytest.mark.cute
def test_cli_spec_with_unbounded_symbols_sweeps_the_smallest_within_budget(capsys, tmp_path, monkeypatch) -> None:
    # Without --sweep the command picks the values: the smallest assignments that fit the budget (a smaller one
    # here, to keep the test quick), and says so; it used not to finish.
    from cuda_harness import cli

    monkeypatch.setitem(cli.WORK_BUDGET, True, 1 << 22)
    spec = tmp_path / "a.cute.toml"
    spec.write_text(UNBOUNDED_SPEC)
    code, out, err = _cli(capsys, str(spec), "--host", "--json", "--timeout", "5")
    got = json.loads(out)
    (row,) = got["checks"]
    assert row["bounded"] is not None and "smallest of" in row["bounded"], row
    assert row["device"] == "valid" and not row["disagrees"], row
    envs = row["assignments"]
    assert 100 < envs < 54872


@pytest.mark.parametrize("argv, message", [
    (["(M):(1)", "--host"], "symbol M needs values"),
    (["(M):(1)", "--sweep", "M=5..1", "--host"], "empty range"),
    (["(M):(1)", "--sweep", "M=1..2", "--sweep", "Q=1", "--host"], "no symbol Q"),
    (["no-such-case", "--host"], "not a case of the parametric corpus"),
    (["missing.cute.toml", "--host"], "missing.cute.toml"),
    *[([text, "--host"], "") for text in HOSTILE],
])
def test_cli_bad_input_is_one_line(capsys, argv: list[str], message: str) -> None:
    code, out, err = _cli(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_cli_without_a_gpu_says_so(capsys) -> None:
    from cuda_harness.probe import gpu_available

    if gpu_available() is None:
        pytest.skip("a GPU is present: the no-GPU message cannot be shown here")
    code, _, err = _cli(capsys, "(4):(1)")
    assert code == 2 and "no GPU" in err and "--host" in err


SPEC = """
[symbols]
M = { min = 1, max = 4096 }
N = { min = 1, max = 4096 }

[[check]]
name = "tiles"
op = "zipped_divide"
args = ["(M,N):(_1,M)", "<_64,_32>"]
assume = ["M % 64 == 0", "N % 32 == 0"]
expect = "valid"

[[check]]
name = "seed 003"
op = "composition"
args = ["(2,3):(1,2)", "(2,3):(3,1)"]
expect = "invalid"

[[check]]
name = "a bijection"
property = "bijective"
args = ["(M,N):(_1,M)"]
expect = "proved"

[[check]]
name = "coalesce"
op = "coalesce"
args = ["(M,_2):(_1,M)"]
"""


@pytest.mark.cute
def test_cli_spec_file_is_swept_and_checked_against_the_engine(capsys, tmp_path) -> None:
    f = tmp_path / "k.cute.toml"
    f.write_text(SPEC)
    code, out, _ = _cli(capsys, str(f), "--host", "--timeout", "60")
    assert code == 0 and out.startswith(f"agree: {f} on the CPU"), out
    assert "swept in host mode (g++ on the CPU)" in out and "on the device" not in out  # host mode is no device
    assert "[ok] tiles (line 6): host valid" in out
    assert "[ok] seed 003 (line 13): host invalid (wrong at 1 of 1" in out
    assert "[not run] a bijection (line 19): a property" in out
    # The generated code of a coalesce check used to call an undeclared check_coalesce: a false DISAGREE.
    assert "[ok] coalesce (line 25): host valid (correct at all" in out


@pytest.mark.cute
def test_injection_through_spec_files(capsys, tmp_path, monkeypatch) -> None:
    bad = tmp_path / "bad.cute.toml"
    bad.write_text(SPEC.replace('"(2,3):(1,2)"', '"(2,3):(1,2)); system(\\"id\\"); (1"'))
    code, out, err = _cli(capsys, str(bad), "--host")
    assert code == 2 and out == "" and err.count("\n") == 1 and "bad.cute.toml:" in err
    # Hostile names and symbol names parse, but neither reaches the generated code.
    hostile = SPEC.replace("M", "popen").replace('name = "tiles"', 'name = "x\\"); system(\\"id\\"); //"')
    f = tmp_path / "names.cute.toml"
    f.write_text(hostile)
    import cuda_harness.build as build

    texts = []
    real = build.unit

    def spy(kernels):
        text, spans = real(kernels)
        texts.append(text)
        return text, spans

    monkeypatch.setattr(build, "unit", spy)
    code, out, _ = _cli(capsys, str(f), "--host", "--timeout", "60")
    assert code == 0, out
    generated = "".join(t.split("using namespace cute;", 1)[1] for t in texts)
    assert texts and "popen" not in generated and "system" not in generated
