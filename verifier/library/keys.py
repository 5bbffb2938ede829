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
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from verifier.library.configs import Config, Enumeration

# The fields of ``Config`` that do not enter the key (the module's docstring says why).
NOT_IN_KEY = frozenset({"name", "tile_scheduler"})


def key_fields(config: Config) -> dict[str, Any]:
    return {k: v for k, v in asdict(config).items() if k not in NOT_IN_KEY}


# The order a sweep derives its keys in (``phases.batches``): the CTA tile and cluster first, then the mainloop's
# inputs (A and B, the schedule, the stages, the MMA), then the epilogue's, so that the keys of one batch share most
# of the template instantiations g++ makes for them (the collective, ``make_tma_copy`` of A and B at the sample
# problem, the TiledMma, the epilogue's tiles and copies): a template instantiated for one key of a translation
# unit is reused by the next ones.  Measured in docs/library.md ("What a derive batch costs"): keys neighbouring in
# this order cost g++ a fraction of what keys drawn apart cost.  It changes no key's derivation: each key's
# instance is printed by its own functions, whatever its neighbours (tests/library/test_derive_batching.py).
DERIVE_ORDER = ("arch", "tile", "cluster", "element_a", "element_b", "layout_a", "layout_b", "align_a", "align_b",
                "kernel_schedule", "stages", "gemm_kind", "mixed_input", "element_accumulator", "instruction",
                "epilogue_schedule", "element_c", "layout_c", "align_c", "element_d", "layout_d", "align_d",
                "element_epilogue", "epilogue_functor")


def derive_order(key: str, fields: Mapping[str, Any]) -> tuple[str, ...]:
    """A key's place in ``DERIVE_ORDER`` (its id last: the order is a function of the key set alone).  A field's
    ``str`` is enough to keep equal values together (they are strings, integers and lists of integers)."""
    return (*(str(fields.get(f)) for f in DERIVE_ORDER), key)


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
