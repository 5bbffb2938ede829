"""What a library sweep covers: every configuration of the asked architectures, grouped into keys, cached on disk.

Enumerating with CUTLASS's generator and keying every configuration costs about 20 s of one core for SM90 ``all`` +
SM100 ``all`` (149,076 configurations, 80,484 keys), and emitting each key's C++ another 30 s: a re-run of a
completed sweep would pay that before finding every key in the store.  ``load_plan`` therefore keeps the keys (their
fields, representative and configurations, never the C++) in a file of the result cache named by a digest of
everything they are a function of: the tool's version (a hash of its sources), the CUTLASS version, a digest of the
generator's own Python sources, and the generator's arguments (architectures, ``--kernels``,
``--instantiation-level``, the CUDA version).  The C++ of a key is emitted only when a key is derived
(``Plan.source``), enumerating its architecture then, once.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from verifier.library import configs as cfg
from verifier.library.keys import NOT_IN_KEY, group

FORMAT = "cute-verify-library-plan/1"
# The fields of a key, in ``Config``'s order: a key's fields are stored as a list in this order.
KEY_FIELDS = tuple(f.name for f in fields(cfg.Config) if f.name not in NOT_IN_KEY)
# Plans kept in the cache folder (the newest): each is a few tens of MB, and a changed tool makes a new one.
KEEP = 4


@dataclass
class Plan:
    """The keys of one enumeration (in the generator's order, architecture by architecture) and how to reach the
    generator again for a key's C++."""

    archs: tuple[str, ...]
    kernels: str
    level: str
    cutlass: str | None            # --cutlass PATH, or None for the installed wheel
    tool: str
    version: str                   # CUTLASS's
    counts: dict[str, int]         # configurations per architecture
    keys: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]]  # key -> (fields, representative, configurations)
    cached: bool = False           # read from the cache rather than enumerated
    _enumerations: dict[str, cfg.Enumeration] = field(default_factory=dict, repr=False)

    def payload(self, key: str, include: str | None) -> dict[str, Any]:
        """A key's unit of work without its C++ (``source``, added by ``phases.run`` for the keys it derives)."""
        fields_, rep, configs = self.keys[key]
        return {"key": key, "fields": fields_, "representative": rep, "configs": list(configs), "tool": self.tool,
                "cutlass": self.version, "include": include}

    def source(self, key: str) -> str:
        """The C++ instance of the key's representative as CUTLASS's emitter writes it ("" for a 2.x kernel)."""
        fields_, rep, _ = self.keys[key]
        if not fields_["is_3x"]:
            return ""
        arch = fields_["arch"]
        if arch not in self._enumerations:
            self._enumerations[arch] = cfg.enumerate_gemms(arch, self.kernels, self.level, self.cutlass)
        return self._enumerations[arch].source(rep)

    def configurations(self) -> dict[str, tuple[str, str]]:
        """Every configuration by name: (its key, its architecture)."""
        return {n: (k, f["arch"]) for k, (f, _, names) in self.keys.items() for n in names}


def generator_digest(cutlass: str | None) -> str:
    """A digest of the generator's Python sources (the folder of the ``cutlass_library`` in use)."""
    cfg._library(cutlass)
    import cutlass_library

    h = hashlib.sha256()
    folder = Path(cutlass_library.__file__).parent
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def plan_digest(archs: Sequence[str], kernels: str, level: str, cutlass: str | None, tool: str,
                version: str) -> str:
    text = json.dumps({"format": FORMAT, "archs": list(archs), "kernels": kernels, "level": level,
                       "cuda": cfg.CUDA_VERSION, "tool": tool, "cutlass": version,
                       "generator": generator_digest(cutlass),
                       "path": str(Path(cutlass).resolve()) if cutlass else None},
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def enumerate_plan(archs: Sequence[str], kernels: str, level: str, cutlass: str | None, tool: str,
                   version: str) -> Plan:
    """Enumerate and key every configuration (the generator's whole run, no C++ emitted)."""
    plan = Plan(tuple(archs), kernels, level, cutlass, tool, version, {}, {})
    for arch in archs:
        e = cfg.enumerate_gemms(arch, kernels, level, cutlass)
        plan._enumerations[arch] = e
        plan.counts[arch] = len(e.configs)
        for g in group(e.configs, tool, version):
            plan.keys[g.key] = (g.fields, g.representative, g.configs)
    return plan


def load_plan(archs: Sequence[str], kernels: str, level: str, cutlass: str | None, tool: str, version: str,
              folder: Path | None) -> Plan:
    """The plan of these arguments: read from ``folder`` (the cache) when it holds it, else enumerated and saved
    there (atomically; a cache that cannot be written is only not used)."""
    if folder is None:
        return enumerate_plan(archs, kernels, level, cutlass, tool, version)
    path = folder / f"{plan_digest(archs, kernels, level, cutlass, tool, version)}.json"
    loaded = _read(path, archs, kernels, level, cutlass, tool, version)
    if loaded is not None:
        return loaded
    plan = enumerate_plan(archs, kernels, level, cutlass, tool, version)
    _write(path, plan)
    return plan


def _read(path: Path, archs: Sequence[str], kernels: str, level: str, cutlass: str | None, tool: str,
          version: str) -> Plan | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("fields") != list(KEY_FIELDS):
        return None
    keys: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]] = {}
    for key, values, names in data["keys"]:
        f = dict(zip(KEY_FIELDS, values))
        for name in ("tile", "cluster", "instruction"):  # tuples in Config, lists in JSON
            f[name] = tuple(f[name])
        keys[key] = (f, names[0], tuple(names))
    return Plan(tuple(archs), kernels, level, cutlass, tool, version, dict(data["counts"]), keys, cached=True)


def _write(path: Path, plan: Plan) -> None:
    data = {"format": FORMAT, "fields": list(KEY_FIELDS), "counts": plan.counts,
            "keys": [[k, [f[n] for n in KEY_FIELDS], list(names)] for k, (f, _, names) in plan.keys.items()]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(json.dumps(data, separators=(",", ":")))  # dumps: C's encoder (dump is Python's)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        for old in sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        return
