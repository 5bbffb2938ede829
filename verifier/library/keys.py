"""The key of what changes a configuration's layouts: configurations sharing a key are verified once.

A key holds every input of CUTLASS's collective builders that the generator varies (tile, cluster, stages,
instruction shape, the element types, layouts and alignments of A, B, C and D, the accumulator and epilogue
types, the kernel and epilogue schedules, the epilogue fusion, the mixed-input mode, the GEMM kind), plus the
tool's version and the CUTLASS version.  Left out: the kernel's name and its tile scheduler (persistent or
stream-K: the scheduler is the kernel's fourth template argument and does not enter the mainloop's or the
epilogue's builder, so neither their layouts nor the stage count the carveout leaves).  Element types are kept
exactly, not by width: the builders select atoms by type (``ss_op_selector``, ``is_use_rmem_A``), and a key must
never merge two configurations whose layouts could differ.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from verifier.library.configs import Config, Enumeration

# The fields of ``Config`` that do not enter the key (the module's docstring says why).
NOT_IN_KEY = frozenset({"name", "tile_scheduler"})


def key_fields(config: Config) -> dict[str, Any]:
    return {k: v for k, v in asdict(config).items() if k not in NOT_IN_KEY}


def key_of(config: Config, tool: str, cutlass: str) -> str:
    """The key's id: a digest of its fields, the tool's version and the CUTLASS version."""
    text = json.dumps({"fields": key_fields(config), "tool": tool, "cutlass": cutlass}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class KeyGroup:
    key: str
    fields: dict[str, Any]
    representative: str  # the first configuration of the key, in the generator's order: the one derived
    configs: tuple[str, ...]


def group(configs: Iterable[Config], tool: str, cutlass: str) -> list[KeyGroup]:
    """The distinct keys of ``configs``, each with the configurations that share it, in first-seen order."""
    found: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for c in configs:
        k = key_of(c, tool, cutlass)
        if k not in found:
            found[k] = (key_fields(c), [])
        found[k][1].append(c.name)
    return [KeyGroup(k, f, names[0], tuple(names)) for k, (f, names) in found.items()]


def payload(g: KeyGroup, e: Enumeration, tool: str, cutlass: str, include: str | None = None) -> dict[str, Any]:
    """A key's unit of work (``verify.verify_key``, ``phases``): plain data, with its representative's C++ as
    CUTLASS's emitter writes it (3.x kernels only) and the CuTe headers' folder to compile it with (``include``:
    None for the wheel's)."""
    return {"key": g.key, "fields": g.fields, "representative": g.representative, "configs": list(g.configs),
            "tool": tool, "cutlass": cutlass, "include": include,
            "source": e.source(g.representative) if g.fields["is_3x"] else ""}
