"""TMA box constraints (verifier/tma.py): the box ``make_tma_box`` derives is the one compiled CuTe 4.2's
``construct_tma_gbasis`` derives (copy_traits_sm90_tma.hpp:723-852), and the driver's constraints on it
(cuda.h's cuTensorMapEncodeTiled requirements, CuTe's asserts) are proved or refuted with their sources, symbolic
gmem extents included."""

from __future__ import annotations

import pytest

from verifier.algebra.registry import apply
from verifier.cli.main import main
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


def _v(smem: str, gmem: str, assume: list[str], bits: int = 16):
    symbols = Symbols()
    args = [bits, parse(smem, symbols), parse(gmem, symbols)]
    add(symbols, assume)
    return verify("make_tma_box", args, symbols, timeout=20)


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


def test_unsupported_swizzle_is_a_rejection() -> None:
    v = _v("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "(M,K):(K,_1)", [])
    assert v.verdict == "invalid" and "Expected S = 3 when M == 4" not in v.reason  # M == 3: unsupported
    assert "Unsupported layout swizzle" in v.reason


def test_cli(capsys) -> None:
    rc = main(["make_tma_box", "16", "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_64):(_64,_1)", "(M,K):(K,_1)",
               "--assume", "K % 8 == 0"])
    out = capsys.readouterr().out
    assert rc == 0 and "SWIZZLE_128B" in out and "TMA-GSTRIDE" in out
