"""``verifier/oracle/include/cute_checks.hpp``: the C++ postcondition checks, written once for the host sweep and the
device kernels.

* both generators' translation units carry the header's text, so an edit of it changes the units and with them the
  binary caches' keys (both are keyed by a unit's text);
* no shipped module holds another C++ definition of the header's checks;
* the header stands alone (its own includes, an include guard) and compiles with g++; its saturating arithmetic is
  exact saturation (the host's former ``__int128`` formulation), and the multiset comparison decides alike by
  counting (the host's scratch) and by sorting (the device's);
* where nvcc is installed (no GPU needed), the device sweep kernels compile for the GPU, checks included.

That the host and device sweeps decide every assignment alike is ``tests/gpu/test_cuda_harness.py``'s
``test_device_sweep_decides_as_the_host_sweep``; that the host sweep is right, ``test_cute_sweep.py``."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from cuda_harness import kernels
from cuda_harness.build import _includes, _nvcc, attribute
from cuda_harness.harness import sweep_kernels
from verifier import parse_layout
from verifier.oracle import sweep as sweep_mod
from verifier.oracle.corpora import PARAMETRIC_CORPUS, load, parametric
from verifier.oracle.cute_cpp import compiler, cuda_includes, cute_include
from verifier.oracle.sweep import CHECKS_HEADER, SweepCase, case_code

ROOT = Path(__file__).resolve().parents[2]
HEADER = CHECKS_HEADER.read_text()
CORPUS = {e["id"]: e for e in load(PARAMETRIC_CORPUS)}
# A product (complement, compact, multiset) and an upcast (per-mode contract, same bytes).
IDS = ("prod-flat-bymode", "up2-rowmajor-MK")
# Every kind of check: composition, a divide, products, tile_to_shape, complement, recasts, the inverses (and
# coalesce, below, which the corpus has no case of).
DEVICE_IDS = ("cmp-seed-colmajor-rowmajor", "gemm-zdiv-MN-32x16", "prod-flat-bymode", "prod-raked-dyn-block",
              "tts-smem-atom-8x8", "cpl-rank1-dyn-stride", "up2-rowmajor-MK", "dn2-rowmajor-MK",
              "recast-16-32-seed004", "rinv-static-strides", "linv-overlap")


def _units() -> tuple[str, str]:
    cases = [SweepCase(*parametric(CORPUS[i])) for i in IDS]
    host, _ = sweep_mod._unit([case_code(c) for c in cases], set())
    _, ks, _ = sweep_kernels(cases)
    device, _ = kernels.unit(list(ks.values()))
    return host, device


def test_both_units_carry_the_header_and_follow_its_edits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, device = _units()
    body = HEADER.strip("\n")
    assert body in host and body in device
    assert sweep_mod.CHECKS_INCLUDE not in host and sweep_mod.CHECKS_INCLUDE not in device
    edited = tmp_path / "cute_checks.hpp"
    edited.write_text(HEADER.replace("#endif  // CUTE_LAYOUT_VERIFIER_CUTE_CHECKS_HPP",
                                     "// an edit\n#endif  // CUTE_LAYOUT_VERIFIER_CUTE_CHECKS_HPP"))
    monkeypatch.setattr(sweep_mod, "CHECKS_HEADER", edited)
    host2, device2 = _units()
    assert host2 != host and device2 != device
    assert "// an edit" in host2 and "// an edit" in device2


def test_the_header_is_package_data() -> None:
    from verifier.run.spec import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["verifier"]
    assert any(CHECKS_HEADER in set((ROOT / "verifier").glob(g)) for g in globs), globs


def _defined() -> set[str]:
    """The functions and types the header defines (not the members of its types)."""
    funcs = re.findall(r"^(?:template <[^\n]*>\s*)?CUTE_HOST_DEVICE\s+[\w:]+\s+(\w+)\s*\(", HEADER, flags=re.M)
    types = re.findall(r"^struct (\w+)", HEADER, flags=re.M)
    return {*funcs, *types}


def test_no_other_copy_of_the_checks() -> None:
    names = _defined()
    assert {"mul", "add", "xsize", "xcosize", "same_function", "same_values", "same_multiset", "check_composition",
            "check_coalesce", "check_complement", "check_compact", "check_right_inverse", "check_left_inverse",
            "up_leaf", "check_recast", "Scratch"} <= names, names
    copies = []
    for path in sorted([*(ROOT / "verifier").rglob("*.py"), *(ROOT / "cuda_harness").rglob("*.py")]):
        text = path.read_text()
        for name in names:
            if re.search(rf"(?:\b(?:int|ll|bool|void)\s+|^struct\s+){name}\s*[({{]", text, flags=re.M):
                copies.append(f"{path.relative_to(ROOT)}: {name}")
    assert copies == []


_PROGRAM = r"""
#include <cstdio>
#include <vector>
#include "cute_checks.hpp"
#include "cute_checks.hpp"  // the include guard
struct Counting {  // a scratch that counts, as the host sweep's
  static constexpr bool counting = true;
  std::vector<int> cs;
  int* counts(ll m) { cs.assign(m, 0); return cs.data(); }
};
int main() {
  long long a, b;
  while (scanf("%lld %lld", &a, &b) == 2) printf("%lld %lld\n", mul(a, b), add(a, b));
  return 0;
}
"""

_MULTISET = r"""
int multisets() {
  int n;
  while (scanf("%d", &n) == 1) {
    std::vector<ll> x(n), y(n), x2(n), y2(n);
    for (auto* v : {&x, &y}) for (int i = 0; i < n; ++i) scanf("%lld", &(*v)[i]);
    x2 = x; y2 = y;
    Counting c;
    Scratch s{nullptr, nullptr, 0};
    printf("%d %d\n", (int)same_multiset(c, x.data(), y.data(), n), (int)same_multiset(s, x2.data(), y2.data(), n));
  }
  return 0;
}
"""


def _build(tmp_path: Path, main: str) -> Path:
    src, exe = tmp_path / "checks.cpp", tmp_path / "checks"
    src.write_text(_PROGRAM.replace("int main() {", "int arithmetic() {") + _MULTISET +
                   f"int main() {{ return {main}(); }}\n")
    cmd = [compiler(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror=return-type", f"-I{CHECKS_HEADER.parent}",
           f"-I{cute_include()}", *(f"-I{p}" for p in cuda_includes()), str(src), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ours = [line for line in proc.stderr.splitlines() if "cute_checks.hpp" in line and "warning" in line]
    assert ours == [], ours
    return exe


def _sat(x: int) -> int:
    return max(-(2**63), min(2**63 - 1, x))


@pytest.mark.cute
def test_the_header_stands_alone_and_saturates_exactly(cute, tmp_path: Path) -> None:
    exe = _build(tmp_path, "arithmetic")
    edges = [0, 1, -1, 2, -2, 3, 2**31 - 1, -(2**31), 2**32, 3037000499, 3037000500, -3037000500, 2**62, -(2**62),
             2**63 - 1, -(2**63), 2**63 - 2, -(2**63) + 1]
    rng = random.Random(14)
    pairs = [(a, b) for a in edges for b in edges]
    pairs += [(rng.randint(-(2**63), 2**63 - 1), rng.randint(-(2**40), 2**40)) for _ in range(2000)]
    out = subprocess.run([str(exe)], input="".join(f"{a} {b}\n" for a, b in pairs), capture_output=True, text=True,
                         check=True).stdout.split("\n")
    for (a, b), line in zip(pairs, out, strict=False):
        assert line == f"{_sat(a * b)} {_sat(a + b)}", (a, b, line)
    assert len([x for x in out if x]) == len(pairs)


@pytest.mark.cute
def test_multisets_decide_alike_by_counting_and_by_sorting(cute, tmp_path: Path) -> None:
    exe = _build(tmp_path, "multisets")
    rng = random.Random(14)
    cases: list[tuple[list[int], list[int], bool]] = [([], [], True), ([5], [5], True), ([5], [6], False)]
    for _ in range(300):
        n = rng.randint(1, 60)
        spread = rng.choice([3, 50, 10**6, 2**40])  # small ranges count, wide ones sort
        y = [rng.randint(-spread, spread) for _ in range(n)]
        x = rng.sample(y, n)
        same = rng.random() < 0.5
        if not same:
            k = rng.randrange(n)
            x[k] += rng.choice([1, -1, spread])
            same = sorted(x) == sorted(y)
        cases.append((x, y, same))
    text = "".join(f"{len(y)} {' '.join(map(str, x))} {' '.join(map(str, y))}\n" for x, y, _ in cases)
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.split("\n")
    for (x, y, same), line in zip(cases, out, strict=False):
        assert line == f"{int(same)} {int(same)}", (x, y, line)
    assert len([x for x in out if x]) == len(cases)


@pytest.mark.cute
@pytest.mark.skipif(_nvcc() is None, reason="nvcc is not installed")
def test_device_sweep_kernels_compile_with_nvcc(cute, tmp_path: Path) -> None:
    """nvcc's device pass (``-cubin``, as ``cuda_harness.build`` compiles for a GPU) takes the header's checks: no
    kernel of a case that CuTe accepts is rejected."""
    cases = [SweepCase(*parametric(CORPUS[i])) for i in DEVICE_IDS]
    cases.append(SweepCase("coalesce", (parse_layout("(M,_2):(_1,M)"),)))
    _, ks, _ = sweep_kernels(cases)
    text, spans = kernels.unit(list(ks.values()))
    src, out = tmp_path / "unit.cu", tmp_path / "unit.cubin"
    src.write_text(text)
    nvcc = _nvcc()
    assert nvcc is not None
    cmd = [nvcc, "-std=c++17", "-arch=sm_90", "-cubin", "-w", *(f"-I{p}" for p in _includes()), str(src), "-o",
           str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, (attribute(proc.stderr, spans), proc.stderr[-3000:])
    assert out.stat().st_size > 0
