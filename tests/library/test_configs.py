"""The library's configurations are the generator's own, and keys merge only what shares its layouts."""

from __future__ import annotations

import contextlib
import io
import logging

import pytest

from verifier.core.errors import LayoutError
from verifier.library.configs import Config, enumerate_gemms
from verifier.library.keys import group, key_of

FILTER = "cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x*"


def _generator_count(arch: str, kernels: str) -> int:
    """The count of GEMM configuration names the generator's manifest holds, read as its own code reads it."""
    from cutlass_library.generator import GenerateSM90, define_parser
    from cutlass_library.library import OperationKind
    from cutlass_library.manifest import Manifest

    args = define_parser().parse_args(["--architectures", arch, "--kernels", kernels, "--cuda-version", "12.9.0"])
    logging.disable(logging.CRITICAL)
    with contextlib.redirect_stdout(io.StringIO()):
        manifest = Manifest(args)
        GenerateSM90(manifest, args.cuda_version)
    logging.disable(logging.NOTSET)
    return sum(len(by_name) for by_name in manifest.operations.get(OperationKind.Gemm, {}).values())


def test_the_enumeration_is_the_generators() -> None:
    e = enumerate_gemms("90a", FILTER)
    assert len(e.configs) == _generator_count("90a", FILTER) > 10
    assert len({c.name for c in e.configs}) == len(e.configs)
    c = e.configs[0]
    assert c.tile[0] == 128 and c.element_a == "f16" and c.element_accumulator == "f32" and c.is_3x
    assert f"{c.tile[0]}x{c.tile[1]}x{c.tile[2]}" in c.name
    assert "CollectiveBuilder" in e.source(c.name) and c.name in e.source(c.name)


def test_keys_merge_configurations_that_differ_only_in_name_and_scheduler() -> None:
    e = enumerate_gemms("90a", FILTER)
    groups = group(e.configs, "tool", "4.2.0")
    assert sum(len(g.configs) for g in groups) == len(e.configs)
    assert len(groups) < len(e.configs)  # stream-K and persistent variants share their layouts
    by_name = {c.name: c for c in e.configs}
    for g in groups:
        fields = {k: v for k, v in vars(by_name[g.representative]).items() if k not in ("name", "tile_scheduler")}
        for n in g.configs:
            assert {k: v for k, v in vars(by_name[n]).items() if k not in ("name", "tile_scheduler")} == fields
    # Different keys differ in a field that can change the layouts; versions are part of the key.
    assert len({tuple(sorted(g.fields.items())) for g in groups}) == len(groups)
    c = e.configs[0]
    assert key_of(c, "tool", "4.2.0") != key_of(c, "tool2", "4.2.0") != key_of(c, "tool", "4.3.0")


def test_an_unknown_architecture_is_bad_input() -> None:
    with pytest.raises(LayoutError, match="--arch"):
        enumerate_gemms("80", "all")


def _config(name: str, scheduler: str = "Default", tile: tuple[int, int, int] = (128, 128, 64)) -> Config:

    return Config(name=name, arch="90a", gemm_kind="Universal3x", is_3x=True, tile=tile, cluster=(1, 2, 1), stages=0,
                  instruction=(64, 128, 16), element_a="f16", element_b="f16", element_c="f16", element_d="f16",
                  element_accumulator="f32", element_epilogue="f32", layout_a="RowMajor", layout_b="ColumnMajor",
                  layout_c="ColumnMajor", layout_d="ColumnMajor", align_a=8, align_b=8, align_c=8, align_d=8,
                  kernel_schedule="TmaWarpSpecializedCooperative", epilogue_schedule="TmaWarpSpecializedCooperative",
                  tile_scheduler=scheduler, epilogue_functor="LinearCombination", mixed_input="None")


def test_keys_of_hand_built_configurations() -> None:
    groups = group([_config("a"), _config("b", "StreamK"), _config("c", tile=(64, 128, 64))], "tool", "4.2.0")
    assert [g.configs for g in groups] == [("a", "b"), ("c",)]
    assert groups[0].representative == "a" and "tile_scheduler" not in groups[0].fields


def test_can_implement_acceptance_reads_the_unit_stride_mode() -> None:
    from verifier.library.parts import acceptance, stride

    k_major = "cute::tuple<long int, cute::C<1>, long int>"
    m_major = "cute::tuple<cute::C<1>, long int, long int>"
    assert stride(k_major, ("ldA", "ldA", "bsA")) == ("(ldA,_1,bsA)", ["ldA", 1, "bsA"])
    fields = {"element_a": "f16", "element_b": "e4m3", "element_c": "void", "element_d": "f32"}
    cond = acceptance(fields, {"A": k_major, "B": m_major, "C": m_major, "D": m_major})
    # A: K % (128/16); B (N-major, 8-bit): N % 16; C is void: no condition; D: M % (128/32).
    assert cond == ["K % 8 == 0", "M % 4 == 0", "N % 16 == 0"]
