"""The library's configurations are the generator's own, and keys merge only what shares its layouts."""

from __future__ import annotations

import contextlib
import io
import logging

import pytest

from verifier.core.errors import LayoutError
from verifier.library.configs import enumerate_gemms
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
