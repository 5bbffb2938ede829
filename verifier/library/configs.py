"""The GEMM configurations of CUTLASS's library, enumerated by CUTLASS's own generator.

``cutlass_library.generator`` is run as its ``__main__`` runs it (a ``Manifest`` built from the generator's own
argument parser, then ``GenerateSM90`` / ``GenerateSM100``), stopping before ``emit``: nothing is written and
nothing compiled.  Each operation the manifest keeps is one configuration; its C++ instance (the text the
library's emitter, ``EmitGemmUniversal3xInstance``, would write into the generated ``.cu`` file) is produced on
demand for the configurations that are derived (``source``).
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from verifier.core.errors import LayoutError

ARCHS = ("90a", "100a")
# The CUDA version the generator is told: it gates families of kernels (SM90's need 12.0, some SM100 ones 12.8).
# It is an input of the enumeration, recorded in the report; 12.9 enumerates what a current toolkit builds.
CUDA_VERSION = "12.9.0"


@dataclass(frozen=True)
class Config:
    """One generated GEMM configuration: its kernel name and every field of the generator's ``GemmOperation``
    that can change the layouts its kernel builds (names as the generator's enums spell them)."""

    name: str
    arch: str  # "90a", "100a": the --architectures it was enumerated for
    gemm_kind: str  # Universal3x, GroupedUniversal3x, SparseUniversal3x, ... (Universal: a CUTLASS 2.x kernel)
    is_3x: bool
    tile: tuple[int, int, int]  # the CTA tile (BLK_M, BLK_N, BLK_K)
    cluster: tuple[int, int, int]  # 0 entries: a run-time (preferred) cluster shape
    stages: int  # 0: StageCountAutoCarveout, computed by the builder
    instruction: tuple[int, int, int]
    element_a: str
    element_b: str
    element_c: str
    element_d: str
    element_accumulator: str
    element_epilogue: str
    layout_a: str
    layout_b: str
    layout_c: str
    layout_d: str
    align_a: int
    align_b: int
    align_c: int
    align_d: int
    kernel_schedule: str
    epilogue_schedule: str
    tile_scheduler: str
    epilogue_functor: str
    mixed_input: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _library(cutlass: str | None) -> tuple[ModuleType, ModuleType, ModuleType]:
    """CUTLASS's ``cutlass_library`` (generator, manifest, library): the installed wheel's, or, with ``cutlass``, the
    one of that checkout (``python/cutlass_library``) or install (a folder holding ``cutlass_library``)."""
    if cutlass is not None:
        root = Path(cutlass)
        for where in (root / "python", root):
            if (where / "cutlass_library" / "generator.py").is_file():
                loaded = sys.modules.get("cutlass_library")
                if loaded is not None and Path(loaded.__file__ or "").parent.parent != where:
                    raise LayoutError(f"--cutlass {cutlass}: another cutlass_library is already loaded "
                                      f"({loaded.__file__}); run the command in a fresh process")
                sys.path.insert(0, str(where))
                break
        else:
            raise LayoutError(f"--cutlass {cutlass}: no cutlass_library/generator.py under it or its python/")
    try:
        from cutlass_library import generator, library, manifest
    except ImportError as exc:
        raise LayoutError(f"CUTLASS's generator is not installed ({exc}): pip install nvidia-cutlass==4.2.0.0, "
                          "or name a checkout with --cutlass") from None
    return generator, manifest, library


def _name(x: object) -> str:
    return str(getattr(x, "name", x))


def _config(op: Any, arch: str) -> Config:
    td = op.tile_description
    mi = td.math_instruction
    return Config(
        name=op.procedural_name(), arch=arch, gemm_kind=_name(op.gemm_kind), is_3x=bool(op.is_3x),
        tile=tuple(int(x) for x in td.tile_shape),  # type: ignore[arg-type]
        cluster=tuple(int(x) for x in td.cluster_shape),  # type: ignore[arg-type]
        stages=int(td.stages), instruction=tuple(int(x) for x in mi.instruction_shape),  # type: ignore[arg-type]
        element_a=_name(op.A.element), element_b=_name(op.B.element), element_c=_name(op.C.element),
        element_d=_name(op.D.element), element_accumulator=_name(mi.element_accumulator),
        element_epilogue=_name(op.element_epilogue),
        layout_a=_name(op.A.layout), layout_b=_name(op.B.layout), layout_c=_name(op.C.layout),
        layout_d=_name(op.D.layout),
        align_a=int(op.A.alignment), align_b=int(op.B.alignment), align_c=int(op.C.alignment),
        align_d=int(op.D.alignment),
        kernel_schedule=_name(op.kernel_schedule), epilogue_schedule=_name(op.epilogue_schedule),
        tile_scheduler=_name(op.tile_scheduler), epilogue_functor=_name(op.epilogue_functor),
        mixed_input=_name(getattr(op, "mixed_input_mode", None)) + ("+shuffle" if getattr(
            op, "mixed_input_shuffle", False) else ""),
    )


@dataclass(frozen=True)
class Enumeration:
    """The configurations of one architecture, with the generator's own operation objects (to emit their C++)."""

    arch: str
    kernels: str
    level: str
    configs: tuple[Config, ...]
    operations: dict[str, Any]  # name -> the generator's GemmOperation

    def source(self, name: str) -> str:
        """The C++ instance of ``name`` as CUTLASS's library emitter writes it."""
        from cutlass_library.gemm_operation import EmitGemmUniversal3xInstance

        return str(EmitGemmUniversal3xInstance().emit(self.operations[name]))


def enumerate_gemms(arch: str, kernels: str = "all", level: str = "", cutlass: str | None = None,
                    cuda_version: str = CUDA_VERSION) -> Enumeration:
    """Every GEMM configuration the generator emits for ``arch`` with ``--kernels kernels`` and
    ``--instantiation-level level`` (in the generator's order)."""
    if arch not in ARCHS:
        raise LayoutError(f"--arch: expected one of {', '.join(ARCHS)}, got {arch!r}")
    generator, manifest_mod, library = _library(cutlass)
    argv = ["--architectures", arch, "--kernels", kernels, "--cuda-version", cuda_version]
    if level:
        argv += ["--instantiation-level", level]
    args = generator.define_parser().parse_args(argv)
    with _quiet():
        manifest = manifest_mod.Manifest(args)
        (generator.GenerateSM90 if arch.startswith("90") else generator.GenerateSM100)(manifest, args.cuda_version)
    configs: list[Config] = []
    operations: dict[str, Any] = {}
    for by_name in manifest.operations.get(library.OperationKind.Gemm, {}).values():
        for ops in by_name.values():
            for op in ops:
                c = _config(op, arch)
                configs.append(c)
                operations[c.name] = op
    return Enumeration(arch, kernels, level, tuple(configs), operations)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The generator logs and prints as it goes; a report is the command's only output."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        logging.disable(previous)


def cutlass_version(cutlass: str | None = None) -> str:
    """The CUTLASS release of the generator in use (its headers' ``CUTLASS_MAJOR/MINOR/PATCH``)."""
    _library(cutlass)
    import cutlass_library

    include = Path(cutlass_library.__file__).parent / "source" / "include"
    if cutlass is not None and (Path(cutlass) / "include").is_dir():
        include = Path(cutlass) / "include"
    text = (include / "cutlass" / "version.h").read_text() if (include / "cutlass" / "version.h").is_file() else ""
    parts = []
    for field in ("MAJOR", "MINOR", "PATCH"):
        for line in text.splitlines():
            if line.startswith(f"#define CUTLASS_{field} "):
                parts.append(line.split()[-1])
    return ".".join(parts) if len(parts) == 3 else "unknown"


def include_dir(cutlass: str | None = None) -> Path:
    """The CUTLASS headers matching the generator: the checkout's ``include/``, else the wheel's."""
    if cutlass is not None and (Path(cutlass) / "include" / "cutlass").is_dir():
        return Path(cutlass) / "include"
    _library(cutlass)
    import cutlass_library

    return Path(cutlass_library.__file__).parent / "source" / "include"


def names(configs: Sequence[Config]) -> list[str]:
    return [c.name for c in configs]
