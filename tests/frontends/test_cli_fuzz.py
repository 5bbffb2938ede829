"""Fuzzing the command line (issue 17): whatever the arguments, notation or spec file, ``cute-verify`` answers with
an exit status in {0, 1, 2, 3} and never a traceback, within bounded time and memory.

Inputs are built from real notation (layouts, tilers, coordinates, swizzles, the DSL form, relations) mutated
character by character, with hostile integers (past int64, 4,301 digits, zero, negative) and flag values
(``--timeout inf``).  Most examples call ``main(argv)`` in-process for speed, under an alarm that fails a hang;
a few run the real command in a child process under a memory limit.  Engine budgets are kept short (``--timeout``
well under a second), so the suite's run time stays modest on two cores.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.algebra.registry import OPERATIONS, REGISTRY
from verifier.cli.app import main
from verifier.engine.checks import PROPERTIES
from verifier.run.problems import PROPERTY_ARITY

SIGNATURES = {name: row.operands for name, row in REGISTRY.items()}

ROOT = Path(__file__).resolve().parents[2]
HANG_SECONDS = 120  # far above any example's time: an alarm here means a hang, not a slow machine
MEMORY_LIMIT = 4 << 30

LAYOUTS = ["(_4,_8):(_1,_4)", "(M,N):(_1,M)", "(M,_8):(_1,M)", "(2,3):(1,2)", "((2,3),4):((1,2),6)", "_8:_1",
           "(M,K):(K,_1)", "(_4,_2):(_1@0,_1@1)", "Sw<3,4,3> o (_8,_64):(_64,_1)", "(M+127)/128:_1",
           "(min(M,N),_2):(_1,M)", "(_16):(_0)", "(?,?{div=8}):(1,?)", "(_-1,3):(2,-4)"]
OTHERS = ["<_2,_2>", "<_128,_64>", "<_3:_4,_8:_2>", "<_,_2>", "(_,2)", "(1,_)", "_4", "4", "M", "(_2,_3)", "_",
          "LayoutLeft", "LayoutRight", "(_1,_0)", "2", "0", "-1"]
RELATIONS = ["M % 8 == 0", "M <= 64", "1 <= M <= 64", "lda >= M", "M/(N-1) >= 0", "gcd(M,N) == 1",
             "M == N && N <= 4", "M != 3 || N > 2"]
HOSTILE = ["9" * 25, "9" * 4301, "9223372036854775808", "-9223372036854775809", "0", "-1", "2147483648",
           "4294967296", "1e400", "inf", "nan", "", " ", "\x00", "é", "%s%n", "{}", "((((((((((((((((((", "_" * 50]
ALPHABET = "()_<>,:+-*/%?@{}=oSw0123456789MNK ?."


@st.composite
def mutated(draw: st.DrawFn, pool: list[str]) -> str:
    text = draw(st.sampled_from(pool))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "hostile", "duplicate"]))
        pos = draw(st.integers(0, len(text)))
        if kind == "insert":
            text = text[:pos] + draw(st.sampled_from(ALPHABET)) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 4)):]
        elif kind == "replace" and text:
            text = text[:pos] + draw(st.sampled_from(ALPHABET)) + text[pos + 1:]
        elif kind == "hostile":
            text = text[:pos] + draw(st.sampled_from(HOSTILE)) + text[pos:]
        else:
            text = text[:pos] + text[pos:pos + 8] * 2 + text[pos + 8:]
    return text


def operand() -> st.SearchStrategy[str]:
    """Mostly well-formed operands (so that the engine, the algebra and the renderers are reached), some damaged."""
    return st.integers(0, 9).flatmap(lambda k: st.sampled_from(LAYOUTS + OTHERS) if k < 6 else
                                     mutated(LAYOUTS + OTHERS) if k < 9 else st.sampled_from(HOSTILE))


POOLS = {"L": LAYOUTS, "T": ["<_2,_2>", "<_128,_64>", "<_3:_4,_8:_2>", "<_,_2>", "_4", "(_2,_2)", "_",
                              "(_2,_4):(_4,_1)", "<M,_2>"],
         "S": ["(_2,_3)", "_4", "(M,N)", "(_4,(_2,_2))", "8"], "C": ["(_,2)", "(1,_)", "(_,_)", "(0,1)", "_", "3"],
         "I": ["0", "3", "M", "_5"], "O": ["(_1,_0)", "(_0,_1)", "LayoutLeft", "LayoutRight"]}


def typed_operand(kind: str) -> st.SearchStrategy[str]:
    pool = POOLS[kind.rstrip("?").split("|")[0]]
    return st.integers(0, 19).flatmap(lambda k: st.sampled_from(pool) if k < 15 else mutated(pool) if k < 18
                                      else operand())


def maybe_bad(good: list[str], bad: list[str]) -> st.SearchStrategy[str]:
    return st.integers(0, 9).flatmap(lambda k: st.sampled_from(good) if k < 8 else st.sampled_from(bad))


@st.composite
def flags(draw: st.DrawFn, timeout: bool = True) -> list[str]:
    out: list[str] = []
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        out += ["--assume", draw(st.one_of(st.sampled_from(RELATIONS), mutated(RELATIONS)))]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        name = draw(maybe_bad(["M", "N", "K", "?1"], ["lda", "x", "M M"]))
        value = draw(st.one_of(st.integers(1, 70).map(str), st.integers(-3, 0).map(str), st.sampled_from(HOSTILE)))
        out += ["--param", f"{name}={value}"]
    if timeout:
        out += ["--timeout", draw(maybe_bad(["0.3"], ["0", "-1", "inf", "nan", "1e400", "x"]))]
    if draw(st.booleans()):
        out.append("--json")
    return out


@st.composite
def command_line(draw: st.DrawFn) -> list[str]:
    from verifier.run.problems import PROPERTY_LAYOUTS

    kind = draw(st.sampled_from(["op"] * 5 + ["check"] * 2 + ["eval", "draw", "draw-cx", "gpu", "prove", "junk"]))
    if kind == "op":
        op = draw(st.sampled_from(sorted(OPERATIONS)))
        kinds = SIGNATURES[op]
        if draw(st.integers(0, 9)) < 8:
            args = [draw(typed_operand(k)) for k in kinds if not k.endswith("?") or draw(st.booleans())]
        else:
            args = draw(st.lists(operand(), max_size=4))
        for _ in range({"upcast": 1, "downcast": 1, "recast_layout": 2}.get(op, 0)):
            args = [draw(maybe_bad(["2", "4", "_2", "8", "16"], ["0", "65537", "x", *HOSTILE[:3]]))] + args
        return [op, *args, *draw(flags())]
    args = draw(st.lists(operand(), max_size=4))
    if kind == "check":
        prop = draw(maybe_bad(list(PROPERTIES), ["nope"]))
        n = draw(maybe_bad([PROPERTY_ARITY.get(prop, 1)], [0, 1, 2, 3]))
        layouts = PROPERTY_LAYOUTS.get(prop, ())
        args = [draw(typed_operand("L" if k in layouts else "S")) for k in range(n)]
        extra = draw(st.sampled_from([[], [], [], ["--extended"], ["--bits", "64"], ["--bits", "7"]]))
        return ["check", prop, *args, *extra, *draw(flags())]
    if kind == "eval":
        return ["eval", *args[:2], *[f for f in draw(flags(timeout=False)) if f != "--assume"]]
    if kind == "draw":
        args = [draw(typed_operand("L"))] if draw(st.integers(0, 4)) else args
        extra = draw(st.sampled_from([[], ["--tv"], ["--tv", "--tile", "(_4,_8)"], ["--dsl"], ["--format", "latex"],
                                      ["--tile", "(4"]]))
        return ["draw", *args[:2], "-o", "-", *extra,
                *[f for f in draw(flags(timeout=False)) if f not in ("--json",)]]
    if kind == "draw-cx":
        op = draw(st.sampled_from(["composition", "injective", "check", "zipped_divide", "nope"]))
        return ["draw", "--counterexample", op, *args, "-o", "-", "--format", "svg",
                *[f for f in draw(flags()) if f != "--json"]]
    if kind == "gpu":  # no GPU here: everything but bad input ends in "no GPU" (exit 2) before any compile
        return ["gpu", *args[:1], *draw(st.lists(st.sampled_from(["--sweep", "M=1..4", "M=1..99999999999",
                                                                     "N=3", "M=" + "9" * 30, "--json"]),
                                                     max_size=3))]
    if kind == "prove":
        return ["prove", draw(st.sampled_from(["nope.py", "", "/dev/null", str(ROOT / "README.md")])),
                *draw(flags())[-2:]]
    return draw(st.lists(st.one_of(st.sampled_from(["--version", "--debug", "-q", "--help", "check", "run"]),
                                   operand()), max_size=4))


@contextlib.contextmanager
def alarm(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def call(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with alarm(HANG_SECONDS), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # --help, --version
            rc = int(exc.code or 0)
    return rc, out.getvalue(), err.getvalue()


def assert_answered(argv: list[str], rc: int, err: str) -> None:
    assert rc in (0, 1, 2, 3), (argv, rc, err[-2000:])
    assert "Traceback" not in err, (argv, err[-2000:])
    if rc == 2 and err.startswith("cute-verify: error:"):
        assert err.count("\n") == 1, (argv, err)


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(command_line())
def test_fuzz_command_lines(argv: list[str]) -> None:
    rc, _, err = call(argv)
    assert_answered(argv, rc, err)


SYMBOLS = ["M = { min = 1, max = 64, multiple_of = 8 }", "N = {}", "K = { bits = 64 }", "lda = { max = 4096 }",
           f"M = {{ max = {'9' * 4301} }}", "M = { min = 5, max = 2 }", "M = 3", "M = { multiple_of = 0 }",
           "N = { bits = 16 }", "Q = { min = -9223372036854775809 }"]
GOOD_SYMBOLS = ["M = { min = 1, max = 64 }", "N = { max = 64, multiple_of = 2 }", "K = {}", "lda = { max = 128 }"]
TOP = ['include = ["other.cute.toml"]', 'include = ["/dev/zero"]', 'include = ["a\\u0000b"]',
       'include = ["../x.cute.toml"]', 'include = ["self.cute.toml"]', "timeout = 0.3", "timeout = inf",
       "timeout = nan", "timeout = -1", f"timeout = {'9' * 400}", 'assume = ["lda >= M"]', 'assume = ["M <= N"]',
       'assume = "M % 8 == 0"', "bogus = 1"]


@st.composite
def spec_text(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(TOP), max_size=draw(st.sampled_from([0, 0, 1, 2])), unique=True))
    lines.append("[symbols]")
    bad = draw(st.lists(st.sampled_from(SYMBOLS), max_size=draw(st.sampled_from([0, 0, 1])),
                        unique_by=lambda s: s.split("=")[0]))
    names = {b.split("=")[0].strip() for b in bad}
    lines += bad + [g for g in GOOD_SYMBOLS if g.split("=")[0].strip() not in names]
    for k in range(draw(st.integers(0, 3))):
        lines.append("[[check]]")
        lines.append(f'name = "c{k}"')
        if draw(st.booleans()):
            lines.append(f'op = "{draw(st.sampled_from(sorted(OPERATIONS)))}"')
        else:
            lines.append(f'property = "{draw(st.sampled_from(PROPERTIES))}"')
        op = lines[-1].split('"')[1]
        kinds = SIGNATURES.get(op, ("L",) * PROPERTY_ARITY.get(op, 1))
        args = ([draw(typed_operand(k)) for k in kinds if not k.endswith("?")] if draw(st.integers(0, 3)) else
                draw(st.lists(st.one_of(st.sampled_from(LAYOUTS + OTHERS), mutated(LAYOUTS)), max_size=3)))
        lines.append("args = [" + ", ".join(_toml_string(a) for a in args) + "]")
        lines += draw(st.lists(st.sampled_from(['expect = "invalid"', 'expect = "unknown"', 'expect = "refuted"',
                                                'expect = "bogus"',
                                                "timeout = 0.3", "timeout = 1e309", 'assume = ["M <= 16"]',
                                                "params = { M = 8 }", f"params = {{ M = {'9' * 30} }}",
                                                "extended = true", "bits = 64", "description = 3"]),
                               max_size=draw(st.sampled_from([0, 0, 1, 2])), unique=True))
        if not any(x.startswith("timeout") for x in lines[-3:]):
            lines.append("timeout = 0.3")
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 3)) == 0:  # character-level damage too
        text = draw(mutated([text]))
    return text


def _toml_string(s: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in s) + '"'


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(spec_text(), spec_text())
def test_fuzz_spec_files(tmp_path: Path, text: str, other: str) -> None:
    (tmp_path / "self.cute.toml").write_text(text)
    (tmp_path / "other.cute.toml").write_text(other)
    rc, _, err = call(["run", str(tmp_path / "self.cute.toml"), "--no-cache", "--format",
                       "sarif" if len(text) % 2 else "text"])
    assert_answered([text], rc, err)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


SUBPROCESS_CASES = [
    ["upcast", "4294967296", "(_8):(_1)"],
    ["eval", "(_65536,_65536):(_1,_65536)", "--json"],
    ["composition", "(M,N,K):(_1,M,M*N)", "(_65536,_65536):(_65536,_1)", "--timeout", "0.5"],
    ["check", "bijective", "(_4096,_4096):(_1,_4096)", "--timeout", "0.5"],
    ["draw", "(_4096,_4096):(_1,_4096)", "-o", "-"],
    ["eval", "(_" + "9" * 4301 + "):(_1)"],
    ["blocked_product", "(1,_2):(_5,_1)", "(M,_2):(_1,M)", "--assume", "M >= 1", "--assume", "M <= 4",
     "--timeout", "1"],
]


@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=[" ".join(a)[:50] for a in SUBPROCESS_CASES])
def test_fuzz_subprocess_bounded_memory(argv: list[str], tmp_path: Path) -> None:
    """The real command under a 4 GiB address-space limit and a hang alarm: an answer, not a crash."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "verifier.cli.app", *argv], capture_output=True, text=True, env=env,
                       cwd=tmp_path, timeout=HANG_SECONDS, preexec_fn=_limited)
    assert_answered(argv, p.returncode, p.stderr)
