"""TMA box constraints (verifier/algebra/tma.py): the box ``make_tma_box`` derives is the one compiled CuTe 4.2's
``construct_tma_gbasis`` derives (copy_traits_sm90_tma.hpp:723-845), and the driver's constraints on it
(cuda.h's cuTensorMapEncodeTiled requirements, CuTe's asserts) are proved or refuted with their sources, symbolic
gmem extents included."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier.algebra.registry import apply
from verifier.cli.app import main
from verifier.core.int_tuple import format_tuple
from verifier.core.symbols import Symbols
from verifier.engine.verify import verify
from verifier.notation.cpp import parse
from verifier.oracle import cute_cpp
from verifier.oracle.cute_cpp import CppBuilder, CppCase, Query
from verifier.run.problems import assume as add

_HEADER = """#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
template <class S, class G> auto tma_box_of(S const& s, G const& g) {
  auto gt = cute::make_tensor(cute::make_gmem_ptr((cute::half_t*)nullptr), g);
  auto sl = cute::get_nonswizzle_portion(s);
  auto v = cute::make_identity_layout(cute::product_each(cute::shape(sl)));
  return cute::shape(cute::detail::construct_tma_gbasis<cute::half_t>(gt, sl, v));
}"""


def _unit(cases, rejected):
    text, spans = cute_cpp._translation_unit(cases, rejected)
    n = _HEADER.count("\n") + 1
    return _HEADER + "\n" + text, {k: (a + n, b + n) for k, (a, b) in spans.items()}


BOXES = [  # (smem, gmem): half_t elements
    ("Sw<3,4,3> o _0 o (_64,_64):(_64,_1)", "(1024,512):(512,_1)"),
    ("Sw<3,4,3> o _0 o ((_64,_2),_64):((_64,_4096),_1)", "(1024,512):(512,_1)"),
    ("Sw<2,4,3> o _0 o (_128,_32):(_32,_1)", "(1024,512):(512,_1)"),
    ("Sw<3,4,3> o _0 o (_64,_64):(_1,_64)", "(1024,512):(_1,1024)"),
    ("(_64,_4):(_4,_1)", "(1024,512):(512,_1)"),
    ("(_8,_512):(_512,_1)", "(1024,512):(512,_1)"),
    ("(_64,_64):(_64,_1)", "(1024,512,8):(512,_1,524288)"),
    ("((_8,_16),(_8,_4)):((_8,_64),(_1,_1024))", "(1024,512):(512,_1)"),
    ("(_256,_2):(_1,_256)", "(1024,512):(_1,1024)"),
    # more than 5 box modes: the fifth on are grouped (copy_traits_sm90_tma.hpp:834)
    ("(_64,_64):(_64,_1)", "(1024,512,2,3,4,5):(512,_1,524288,1048576,3145728,12582912)"),
    ("(_8,_8):(_8,_1)", "(8,8,2,3,4,5,6):(8,_1,64,128,384,1536,7680)"),
    # two gmem modes coalesced into one box mode (coalesce_256), and a size-1 gmem mode skipped
    ("(_32,_8):(_1,_32)", "(_32,_8,100,_1):(_1,_32,256,7)"),
    ("(_8,_2,_2,_2,_2,_2):(_1,_8,_16,_32,_64,_128)", "(8,2,2,2,2,2):(_1,16,64,256,1024,4096)"),
]


@pytest.fixture(scope="module")
def cute_boxes(cute):
    cases: list[CppCase] = []
    for s, g in BOXES:
        b = CppBuilder()
        cases.append(b.case(f"tma_box_of({b.operand(parse(s))}, {b.operand(parse(g))})"))
    binary = cute_cpp.build(cases, unit=_unit)
    return cute_cpp.run_binary(binary, cases, [Query(k) for k in range(len(cases))])


@pytest.mark.cute
def test_boxes_are_what_compiled_cute_derives(cute_boxes) -> None:
    for (s, g), r in zip(BOXES, cute_boxes, strict=True):
        out = apply("make_tma_box", 16, parse(s), parse(g))
        assert out.rejection is None and r.rejected is None, (s, g, out.rejection, r.rejected)
        assert format_tuple(out.result.box.shape) == r.result, (s, g, str(out.result.box), r.result)


# -- make_tma_copy itself, compiled and run on the host: CuTe's static_asserts and run-time asserts ------------------
#
# With g++ (no __CUDACC_VER_MAJOR__) make_tma_copy_desc runs every assert of copy_traits_sm90_tma.hpp:949-1007 and
# skips the driver call (:1041), so each assert that fires names its line.  The swizzle's static_asserts sit inside
# that skipped block (:1038-1039), so they are compiled on their own below.  The driver's own rules (TMA-INNER,
# TMA-SWIZZLE: cuda.h:23302, 23322-23326) are not CuTe checks: there the host run succeeds while the tool refutes.

_COPY_HEADER = """#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <unistd.h>
using namespace cute;
static sigjmp_buf g_jump;
static void on_abort(int) { siglongjmp(g_jump, 1); }
template <class T, class S, class G> void tma_copy_of(S const& s, G const& g) {
  auto t = make_tma_copy(SM90_TMA_LOAD{}, make_tensor(make_gmem_ptr((T*)nullptr), g), s);
  (void)t;
}"""

_COPY_MAIN = r"""
int main(int argc, char** argv) {
  dup2(1, 2);
  signal(SIGABRT, on_abort);
  long long cid, n;
  if (scanf("%lld %lld", &cid, &n) != 2) return 3;
  std::vector<long long> p(n > 0 ? n : 1);
  for (long long k = 0; k < n; ++k) { if (scanf("%lld", &p[k]) != 1) return 3; }
  if (sigsetjmp(g_jump, 1) == 0) { kTable[cid](p.data()); printf("\n@@OK\n"); }
  else { printf("\n@@ABORT\n"); }
  fflush(stdout);
  return 0;
}
"""


def _copy_unit(cases, rejected):
    lines = (_COPY_HEADER + "\n#include <vector>").split("\n")
    spans = {}
    for k, case in enumerate(cases):
        start = len(lines) + 1
        body = "" if k in rejected else f"  {case.code};"
        lines += [f"static void case_{k}(const long long* p) {{", body, "}"]
        spans[k] = (start, len(lines))
    table = ", ".join(f"case_{k}" for k in range(len(cases)))
    lines.append(f"static void (*kTable[])(const long long*) = {{{table}}};")
    return "\n".join(lines) + _COPY_MAIN, spans


_TYPES = {8: "uint8_t", 16: "cute::half_t", 32: "float"}
# CuTe's asserts in the order make_tma_copy_desc runs them, by line, with the obligation each one is.
_ASSERTS = [(range(951, 961), "TMA-GDIM"), (range(963, 964), "TMA-MAJOR"), (range(971, 979), "TMA-GSTRIDE"),
            (range(998, 1008), "TMA-BOX")]
_CUTE_CHECKED = [i for _, i in _ASSERTS]

COPIES = [  # (smem, gmem, bits): concrete gmem, so that the tool's verdict is a concrete one
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(1024,512):(512,_1)", 16),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(1024,500):(500,_1)", 16),
    ("(_64,_64):(_1,_64)", "(1024,512):(512,_1)", 16),
    ("(_8,_512):(_512,_1)", "(1024,512):(512,_1)", 16),
    ("(_64,_64):(_64,_1)", "(1024,512,3):(512,_1,524290)", 16),
    ("(_64,_64):(_64,_1)", "(1024,512,2,3,4,5):(512,_1,524288,1048576,3145728,12582912)", 16),
    ("(_64,_4):(_4,_1)", "(1024,512):(512,_1)", 16),
    ("Sw<3,4,3> o _0 o (_64,_128):(_128,_1)", "(1024,512):(512,_1)", 16),
    ("Sw<2,4,3> o _0 o (_64,_64):(_64,_1)", "(1024,512):(512,_1)", 8),
    ("Sw<1,4,3> o _0 o (_64,_64):(_64,_1)", "(1024,512):(512,_1)", 8),
    ("Sw<2,5,2> o _0 o (_64,_64):(_64,_1)", "(1024,512):(512,_1)", 16),
    ("(_64,_64):(_2,_128)", "(1024,512):(512,_1)", 16),
    ("(_32,_8):(_1,_32)", "(_32,_8,100,_1):(_1,_32,256,7)", 32),
    ("(_32,_8):(_1,_32)", "(_32,_8,100,_1):(_1,_32,250,7)", 32),
    # six box modes: the last two grouped, read as one progression of stride gcd 1024 (0,1024,2048,3072) where the
    # tile has 0,1024,4096,5120; CuTe runs without an assert (TMA-RANK refuted)
    ("(_8,_2,_2,_2,_2,_2):(_1,_8,_16,_32,_64,_128)", "(8,2,2,2,2,2):(_1,16,64,256,1024,4096)", 16),
    ("(_8,_2,_2,_2,_2,_2):(_1,_8,_16,_32,_64,_128)", "(8,2,2,2,2,2):(_1,16,64,256,1024,2048)", 16),
]


@pytest.fixture(scope="module")
def cute_copies(cute):
    import subprocess

    cases: list[CppCase] = []
    for s, g, bits in COPIES:
        b = CppBuilder()
        cases.append(b.case(f"tma_copy_of<{_TYPES[bits]}>({b.operand(parse(s))}, {b.operand(parse(g))})"))
    binary = cute_cpp.build(cases, unit=_copy_unit)
    out = []
    for k, case in enumerate(cases):
        if k in binary.rejected:
            out.append(("rejected", binary.rejected[k]))
            continue
        params = case.params()
        run = subprocess.run([str(binary.path)], input=f"{k} {len(params)} {' '.join(map(str, params))}\n",
                             capture_output=True, text=True, timeout=60, check=False)
        if "@@OK" in run.stdout:
            out.append(("ok", ""))
            continue
        assert "@@ABORT" in run.stdout, run.stdout + run.stderr
        line = re.search(r"copy_traits_sm90_tma\.hpp:(\d+)", run.stdout)
        assert line is not None, run.stdout
        out.append(("assert", line.group(1)))
    return out


@pytest.mark.cute
def test_make_tma_copy_asserts_are_the_refuted_obligations(cute_copies) -> None:
    """Each case as compiled CuTe runs it: a static_assert is the tool's rejection; a run-time assert at a line is
    the first refuted obligation among CuTe's checked ones, in CuTe's order; a host run that passes leaves only the
    driver's rules (TMA-INNER, TMA-SWIZZLE) or TMA-RANK refuted."""
    seen = set()
    for (s, g, bits), (kind, what) in zip(COPIES, cute_copies, strict=True):
        v = _v(s, g, [], bits)
        refuted = [d.id for d in v.obligations if d.status == "refuted"]
        if kind == "rejected":
            assert v.verdict == "invalid" and not v.obligations, (s, g, v.reason)
            assert "swizzle" in v.reason.lower() or "vectorization" in v.reason, (s, g, v.reason, what)
        elif kind == "assert":
            want = next(i for lines, i in _ASSERTS if int(what) in lines)
            first = next((i for i in _CUTE_CHECKED if i in refuted), None)
            assert v.verdict == "invalid" and first == want, (s, g, what, refuted)
        else:
            assert not set(refuted) & set(_CUTE_CHECKED), (s, g, refuted)
            assert v.verdict == ("valid" if not refuted else "invalid"), (s, g, v.verdict, v.reason)
        seen.add(kind if kind != "assert" else what)
    assert {"rejected", "ok"} <= seen and len(seen) >= 6, seen  # every kind of outcome is exercised


def _v(smem: str, gmem: str, assume: list[str], bits: int = 16):
    symbols = Symbols()
    args = [bits, parse(smem, symbols), parse(gmem, symbols)]
    add(symbols, assume)
    return verify("make_tma_box", args, symbols)


@pytest.mark.parametrize(("smem", "gmem", "assume", "bits", "failing"), [
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)", ["K % 8 == 0"], 16, None),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)", [], 16, "TMA-GSTRIDE"),
    ("Sw<3,4,3> o _0 o (_64,_64):(_1,_64)", "(M,K,L):(_1,M,M*K)", ["M % 8 == 0", "M <= 65536", "K <= 65536"], 16, None),
    ("Sw<3,4,3> o _0 o (_64,_128):(_128,_1)", "(M,K):(K,_1)", ["K % 8 == 0"], 16, "TMA-SWIZZLE"),
    ("Sw<2,4,3> o _0 o (_64,_64):(_64,_1)", "(M,K):(K,_1)", ["K % 16 == 0"], 8, None),
    ("Sw<1,4,3> o _0 o (_64,_64):(_64,_1)", "(M,K):(K,_1)", ["K % 16 == 0"], 8, "TMA-SWIZZLE"),
    ("(_64,_4):(_4,_1)", "(M,K):(K,_1)", ["K % 8 == 0"], 16, "TMA-INNER"),
    ("(_8,_512):(_512,_1)", "(M,K):(K,_1)", ["K % 8 == 0"], 16, "TMA-BOX"),
    ("(_64,_64):(_1,_64)", "(M,K):(K,_1)", ["K % 8 == 0"], 16, "TMA-MAJOR"),
    ("(_64,_64):(_64,_1)", "(M,K):(K,_1)", ["K % 8 == 0", "M <= 8589934592"], 16, None),
])
def test_driver_constraints(smem: str, gmem: str, assume: list[str], bits: int, failing: str | None) -> None:
    v = _v(smem, gmem, assume, bits)
    assert v.verdict == ("valid" if failing is None else "invalid"), (v.verdict, v.reason)
    refuted = {d.id for d in v.obligations if d.status == "refuted"}
    assert refuted == (set() if failing is None else {failing}) or failing in refuted, refuted
    if failing is not None:
        d = next(d for d in v.obligations if d.id == failing)
        assert d.counterexample is not None and ":" in d.source


_SWIZZLE_HEADER = """#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
template <class Sw> int tma_swizzle_code(Sw const& sw) {
  return 10 * int(cute::detail::get_tma_swizzle_bits(sw)) + int(cute::detail::get_tma_swizzle_base(sw));
}"""


def _swizzle_unit(cases, rejected):
    text, spans = cute_cpp._translation_unit(cases, rejected)
    n = _SWIZZLE_HEADER.count("\n") + 1
    return _SWIZZLE_HEADER + "\n" + text, {k: (a + n, b + n) for k, (a, b) in spans.items()}


# SmemSwizzleBits (copy_sm90_desc.hpp:134-139) * 10 + SmemSwizzleBase (:141-147) of each descriptor swizzle
_CODES = {"SWIZZLE_NONE": 0, "SWIZZLE_32B": 10, "SWIZZLE_64B": 20, "SWIZZLE_128B": 30,
          "SWIZZLE_128B_ATOM_32B": 31, "SWIZZLE_128B_ATOM_64B": 33}


@pytest.mark.cute
def test_descriptor_swizzles_are_what_compiled_cute_maps(cute) -> None:
    """get_tma_swizzle_bits / get_tma_swizzle_base (copy_traits_sm90_tma_swizzle.hpp:45-100) on every Sw<B,M,S>
    with B <= 3, 3 <= M <= 7, B <= S <= 4: the descriptor swizzle, or the static_assert, as compiled CuTe has it."""
    from verifier.algebra.tma import tma_swizzle
    from verifier.core.errors import CuteRejection
    from verifier.core.swizzle import Swizzle

    triples = [(b, m, s) for b in range(4) for m in range(3, 8) for s in range(max(b, 1), 5)]
    cases = [CppCase(f"tma_swizzle_code(cute::Swizzle<{b},{m},{s}>{{}})", ()) for b, m, s in triples]
    binary = cute_cpp.build(cases, unit=_swizzle_unit)
    results = cute_cpp.run_binary(binary, cases, [Query(k) for k in range(len(cases))])
    rejected = 0
    for (b, m, s), r in zip(triples, results, strict=True):
        try:
            kind, _ = tma_swizzle(Swizzle(b, m, s))
        except CuteRejection as exc:
            assert r.rejected is not None, ((b, m, s), r.result)
            assert exc.assertion.split(".")[0] in r.rejected, ((b, m, s), exc.assertion, r.rejected)
            rejected += 1
            continue
        assert r.rejected is None and r.result == str(_CODES[kind]), ((b, m, s), kind, r)
    assert 0 < rejected < len(triples)


def test_grouped_modes_that_are_no_progression_are_refuted() -> None:
    v = _v("(_8,_2,_2,_2,_2,_2):(_1,_8,_16,_32,_64,_128)", "(8,2,2,2,2,A):(_1,16,64,256,1024,B)",
           ["A >= 1", "A <= 4", "B % 1024 == 0", "B <= 65536"])
    assert v.verdict == "invalid" and {d.id for d in v.obligations if d.status == "refuted"} == {"TMA-RANK"}
    d = next(d for d in v.obligations if d.id == "TMA-RANK")
    assert d.counterexample is not None and d.counterexample.params["B"] != 2048
    ok = _v("(_8,_2,_2,_2,_2,_2):(_1,_8,_16,_32,_64,_128)", "(8,2,2,2,2,A):(_1,16,64,256,1024,2048)",
            ["A >= 1", "A <= 4"])
    assert ok.verdict == "valid", ok.reason
    assert any(d.id == "TMA-POST" and d.status == "proved" for d in ok.obligations)


# -- the driver's own rules, as cuTensorMapEncodeTiled answered on an H100 (tests/data/tma_driver.json) -----------

_DRIVER = Path(__file__).resolve().parents[1] / "data" / "tma_driver.json"
_SWIZZLES = {"NONE": "", "32B": "Sw<1,4,3> o _0 o ", "64B": "Sw<2,4,3> o _0 o ", "128B": "Sw<3,4,3> o _0 o "}


def test_the_driver_accepts_exactly_the_boxes_the_tool_proves_encodable() -> None:
    """Each recorded call is the descriptor make_tma_copy would encode for a K-major (rows, K) tile of a K-major
    gmem tensor: the driver refused it (TMA-INNER, TMA-SWIZZLE, TMA-BOX, TMA-GSTRIDE) exactly where the tool
    refutes one of the constraints."""
    record = json.loads(_DRIVER.read_text())
    refused = 0
    for c in record["cases"]:
        (g0, g1), (b0, b1), bits = c["global_dim"], c["box"], 8 * c["element_bytes"]
        smem = f"{_SWIZZLES[c['swizzle']]}(_{b1},_{b0}):(_{b0},_1)"
        gmem = f"({g1},{g0}):({c['global_stride_bytes'] // c['element_bytes']},_1)"
        box = apply("make_tma_box", bits, parse(smem), parse(gmem))
        assert box.rejection is None and format_tuple(box.result.box.shape) == f"(_{b0},_{b1})", (c, box)
        v = _v(smem, gmem, [], bits)
        assert v.verdict == ("valid" if c["result"] == 0 else "invalid"), (c["name"], v.verdict, v.reason)
        refused += c["result"] != 0
    assert 0 < refused < len(record["cases"])


def test_unsupported_swizzle_is_a_rejection() -> None:
    v = _v("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "(M,K):(K,_1)", [])
    assert v.verdict == "invalid" and "Expected S = 3 when M == 4" not in v.reason  # M == 3: unsupported
    assert "Unsupported layout swizzle" in v.reason


def test_cli(capsys) -> None:
    rc = main(["make_tma_box", "16", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)",
               "--assume", "K % 8 == 0", "-v"])  # -v lists the obligations (the default output does not)
    out = capsys.readouterr().out
    assert rc == 0 and "SWIZZLE_128B" in out and "TMA-GSTRIDE" in out


# -- issue 29: negative and wrapping gmem strides (class 5), and the guard in elements (class 8) ---------------------

@pytest.mark.cute
def test_a_negative_gmem_stride_is_what_make_tma_copy_asserts(cute) -> None:
    """make_tma_box 16 '(_64,_8):(_1,_64)' '(M,K):(_1,-64)' at M=64, K=8 was valid; make_tma_copy stores the stride
    as the uint64_t 2^64-64 elements, 2^61-128 bytes after its uint64_t scaling, and the 2^40 assert fires
    (copy_traits_sm90_tma.hpp:971).  A stride whose byte stride wraps to 0 passes CuTe's asserts with a descriptor
    that is not the layout's: invalid too."""
    from verifier.oracle.adversarial import tma as fam

    cases = [fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,-64)", (("K", 8), ("M", 64))),
             fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,s)", (("K", 8), ("M", 64), ("s", 2**60)), frozenset("s")),
             fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,s)", (("K", 8), ("M", 64), ("s", 0))),
             fam.Case(16, "(_64,_8):(_1,_64)", "(M,K):(_1,s)", (("K", 8), ("M", 64), ("s", 64)))]
    runs = fam.host_runs(cases)
    assert runs[0].line == 971 and runs[0].desc[1] == (8, 2**61 - 128)
    assert runs[1].line is None and runs[1].desc[1] == (8, 0)
    assert runs[2].line is None and runs[3].line is None
    verdicts = []
    for c, r in zip(cases, runs, strict=True):
        a = fam.decide(c)
        assert fam.judge(c, a, r) is None, (c, a, r)
        verdicts.append(a.verdict)
    assert verdicts == ["invalid", "invalid", "valid", "valid"]
    rc = main(["make_tma_box", "16", "(_64,_8):(_1,_64)", "(M,K):(_1,-64)", "--param", "M=64", "--param", "K=8"])
    assert rc == 1


@pytest.mark.cute
@pytest.mark.parametrize(("bits", "smem", "guard", "good", "bad"), [
    (16, "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", "K % 8 == 0", 8, 4),  # 16 bytes of halves
    (32, "Sw<3,4,3> o _0 o (_8,_32):(_32,_1)", "K % 4 == 0", 4, 2),  # of tf32
])
def test_the_tma_guard_is_16_bytes_in_elements(cute, bits: int, smem: str, guard: str, good: int, bad: int) -> None:
    """The guard is the weakest K % t (it was K % 16 and K % 32), necessary, and make_tma_copy's host run accepts
    its least value and asserts (:971-978) below it."""
    from verifier.oracle.adversarial import tma as fam

    symbols = Symbols()
    v = verify("make_tma_box", [bits, parse(smem, symbols), parse("(M,K):(K,_1)", symbols)], symbols)
    assert v.guard is not None and v.guard.condition == guard and v.guard.necessary == "proved", v.guard
    cases = [fam.Case(bits, smem, "(M,K):(K,_1)", (("K", k), ("M", 256))) for k in (good, bad)]
    ok, refused = fam.host_runs(cases)
    assert ok.line is None and refused.checked == "TMA-GSTRIDE", (ok, refused)
