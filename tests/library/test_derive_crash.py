"""A key whose printing kills the derive program (a signal in CUTLASS's host code, such as SIGFPE) is named: its
derivation says which key of which batch and the signal, the other keys of the batch are derived, and the sweep's
error record for it names the key (docs/library.md, "A key that kills the derive program")."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.library import derive, phases
from verifier.library.distribute import ResultStore, sweep
from verifier.library.verify import verify_key

# Stand-ins for three emitted instances, with the members derive's printer reads; the middle one's smem layout
# divides by zero when it is constructed, at run time, as a builder's host code could.
OK = """
struct {n}_mainloop {{
  using TileShape = cute::Shape<cute::_128, cute::_64, cute::_32>;
  struct DispatchPolicy {{ static constexpr int Stages = 3; }};
}};
struct {n}_epilogue {{}};
struct {n} {{}};
"""
CRASH = """
struct {n}_tile : cute::Layout<cute::Shape<cute::_1>, cute::Stride<cute::_0>> {{
  {n}_tile() {{ volatile int n = 100, zero = 0; volatile int q = n / zero; (void)q; }}
}};
struct {n}_mainloop {{
  using SmemLayoutA = {n}_tile;
  using TileShape = cute::Shape<cute::_128, cute::_64, cute::_32>;
  struct DispatchPolicy {{ static constexpr int Stages = 3; }};
}};
struct {n}_epilogue {{}};
struct {n} {{}};
"""
NAMES = ("fake_first", "fake_crash", "fake_last")


@pytest.mark.cute
def test_the_key_that_kills_the_derive_program_is_named_and_the_others_derived(tmp_path: Path) -> None:
    batch = [[n, (CRASH if n == "fake_crash" else OK).format(n=n)] for n in NAMES]
    keys = ["k-first", "k-crash", "k-last"]
    derived = phases.derive_batch({"keys": keys, "batch": batch, "include": None})["derived"]
    # the keys before and after the one that died are printed in full
    for k, n in (("k-first", "fake_first"), ("k-last", "fake_last")):
        assert derived[k]["KERNEL"] == n and derived[k]["STAGES"] == 3 and "CRASHED" not in derived[k]
    why = derived["k-crash"]["CRASHED"]
    assert "SIGFPE" in why and "while printing fake_crash (case 1 of its batch of 3" in why
    assert "fake_first, fake_crash, fake_last" in why  # the whole batch
    assert set(derived["k-crash"]) == {"CRASHED", "SHOW_ABORTED"}  # it died on its first member

    # verify_key makes it an error of the sweep (not "not derived"): the record names the key and why
    payload = {"key": "k-crash", "representative": "fake_crash", "configs": ["fake_crash"], "tool": "t",
               "cutlass": "c", "include": None, "fields": {"is_3x": True}, "derived": derived["k-crash"],
               "batch": batch, "index": 1}
    with pytest.raises(derive.Crashed, match="key k-crash: the derive program died of signal SIGFPE"):
        verify_key(payload)
    with ResultStore(tmp_path / "s.jsonl", tool="t", cutlass="c") as store:
        out = sweep({"k-crash": payload}, verify_key, store, engine="local", workers=1, retries=0)
    record = out.records["k-crash"]
    assert record.status == "error" and record.error is not None
    assert record.error.startswith("Crashed: key k-crash: the derive program died of signal SIGFPE while printing "
                                   "fake_crash")


@pytest.mark.cute
def test_the_key_alone_is_named_too(tmp_path: Path) -> None:
    """Without a derive phase (verify_key compiling the key alone), the same error."""
    payload = {"key": "k-crash", "representative": "fake_crash", "configs": ["fake_crash"], "tool": "t",
               "cutlass": "c", "include": None, "fields": {"is_3x": True},
               "source": CRASH.format(n="fake_crash")}
    with pytest.raises(derive.Crashed, match=r"key k-crash: .*SIGFPE while printing fake_crash \(case 0 of its "
                                             r"batch of 1: fake_crash\)"):
        verify_key(payload)


MIXED = "cutlass3x_sm90_tensorop_gemm_s8_bf16_f32_bf16_bf16_scl_128x256x64_2x1x1_0_tnn_align16_warpspecialized_" \
        "cooperative_epi_tma"


# can_implement of the kernel with its Arguments left as built (group_size = 0), at a problem whose extents and
# strides are all 16-byte aligned: it prints "@@ACCEPTS 1" or "@@ACCEPTS 0", unless it dies first.
ZERO_GROUP_MAIN = """
int main() {
  using Kernel = key_0::%s;
  typename Kernel::Arguments args{};
  args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  args.problem_shape = typename Kernel::ProblemShape{128, 128, 128, 1};
  const long long a[3] = {128, 1, 16384}, c[3] = {1, 128, 16384};
  set_strides(args.mainloop.dA, a); set_strides(args.mainloop.dB, a);
  set_strides(args.epilogue.dC, c); set_strides(args.epilogue.dD, c);
  printf("@@ACCEPTS %%d\\n", int(Kernel::can_implement(args)));
  return 0;
}
"""


@pytest.mark.cute
def test_mixed_input_can_implement_divides_by_a_zero_group_size() -> None:
    """A SIGFPE among the first 96 SM90 keys: the mixed-input mainloop with scales
    (sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp) computes ``ceil_div(K, args.group_size)`` in
    ``to_underlying_arguments`` (line 424) and in ``can_implement`` (line 481), whose check ``args.group_size != 0``
    comes after the division (line 484): with the default ``group_size = 0``, compiled ``can_implement`` dies of
    SIGFPE instead of returning false.  (The derive program now runs can_implement with group_size = K and does not
    build these kernels' TMA tensors, so it no longer dies on them.)"""
    import signal
    import subprocess

    from verifier.library.configs import enumerate_gemms
    from verifier.oracle import cute_cpp

    e = enumerate_gemms("90a", MIXED)
    source = e.source(MIXED)

    def unit(cases: object, rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
        text = derive.PRELUDE + f"namespace key_0 {{\n{source}\n}}\n" + ZERO_GROUP_MAIN % MIXED
        return text, {0: (1, text.count("\n"))}

    binary = cute_cpp.build([cute_cpp.CppCase(code=source, slots=(), label=MIXED)], unit=unit, flags=derive.FLAGS)
    assert not binary.rejected
    out = subprocess.run([str(binary.path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == -signal.SIGFPE and "@@ACCEPTS" not in out.stdout
    # the derive program's can_implement (group_size = K) answers at the same problem
    program = derive.compile_instances([derive.Instance(MIXED, source)])
    query = "0 128 128 128 1 128 1 16384 128 1 16384 1 128 16384 1 128 16384\n"
    ok = subprocess.run([str(program.binary.path)], input=query, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "@@ACCEPTS 0" in ok.stdout


def test_a_key_whose_printing_died_takes_no_partial_route() -> None:
    """A cp.async key whose derive program died after printing its mainloop (``SHOW_ABORTED``): what it printed is
    partial, so neither the cp.async checks nor the epilogue-alone ones run on it; it is not derived, and the
    sweep lists no problem for it."""
    from verifier.library.sm90_cpasync import POLICY
    from verifier.library.verify import problems_of

    d = {"MAINLOOP": POLICY + "3, ...>", "MAIN_COPY_A_TV": "((_8,_16),_8):((_128,_1),_16)", "SMEM_A": "(_64,_64)",
         "CRASHED": "the derive program died of signal SIGABRT while printing k", "SHOW_ABORTED": "signal SIGABRT"}
    payload = {"key": "k", "representative": "k", "configs": ["k"], "tool": "t", "cutlass": "c", "include": None,
               "fields": {"is_3x": True}, "derived": d, "source": ""}
    assert problems_of(payload, d) == {}
    r = verify_key(payload)
    assert r["status"] == "not derived" and "MainloopSm90CpAsyncGmmaWarpSpecialized" in r["reason"]


def test_a_crash_names_a_large_batch_by_its_first_and_last_keys() -> None:
    # A crashed key's record carries the message: every name of a batch of 256 would be about 25 KB a key.
    names = [f"cutlass3x_sm100_key_{i:03d}" for i in range(phases.DEFAULT_BATCH)]
    named = derive._batch_names(names)
    assert named == f"{names[0]}, ..., {names[-1]}" and len(named) < 100
    assert derive._batch_names(names[:3]) == ", ".join(names[:3])
