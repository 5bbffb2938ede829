"""The selfcheck's atoms: every MMA and copy atom of the model (``algebra/atoms.py``, read from
``data/atoms.json``) against what CuTe's headers print for its traits, compiled afresh (``atoms_gen.generate``:
every ``MMA_Traits`` / ``Copy_Traits`` specialisation of the include folder in force, ``--cutlass PATH`` included).

The atoms are all static, so there is nothing to prove about run-time values: an atom is ``proved`` when the
model's layouts (``ThrID``, ``A/B/CLayout`` or ``Src/Dst/RefLayout``), printed as CuTe prints them, its
``Shape_MNK``, value widths and register counts are exactly CuTe's; ``disagrees`` names the first member that
differs (or an atom that one side has and the other lacks); ``unknown`` is an atom whose printed layout CuTe
itself cannot evaluate (shape and stride not congruent: the model keeps no layout for it, only the text)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from verifier.algebra.atoms import Atom, MmaAtom, atoms
from verifier.core.layouts import Layout


def _shape(mnk: Sequence[int]) -> str:
    return f"({','.join(f'_{n}' for n in mnk)})"


def model_members(atom: Atom) -> dict[str, str | None]:
    """The model's atom as CuTe's traits print it (``atoms_gen``'s keys); None: no layout the model can hold."""
    def text(x: Layout | None) -> str | None:
        return None if x is None else str(x)

    if isinstance(atom, MmaAtom):
        out: dict[str, str | None] = {"Shape_MNK": _shape(atom.shape_mnk), "ThrID": text(atom.thr_id),
                                      "ALayout": text(atom.a), "BLayout": text(atom.b), "CLayout": text(atom.c)}
        if atom.bits is not None:
            out["ValBits"] = " ".join(map(str, atom.bits))
        return out
    out = {"ThrID": text(atom.thr_id), "SrcLayout": text(atom.src), "DstLayout": text(atom.dst),
           "RefLayout": text(atom.ref)}
    for key, regs in (("SRegisters", atom.src_regs), ("DRegisters", atom.dst_regs)):
        if regs is not None:
            out[key] = f"{regs[0]} {regs[1]}"
    return out


def compare(fresh: Sequence[Mapping[str, object]]) -> list[tuple[str, str, str, str]]:
    """Each atom as (name, source, status, detail): the model's against ``fresh`` (``atoms_gen.generate()``'s
    ``atoms``: CuTe's print of each compiled traits specialisation)."""
    model = {a.name: a for a in atoms()}
    out: list[tuple[str, str, str, str]] = []
    seen: set[str] = set()
    for d in fresh:
        name = str(d["name"])
        seen.add(name)
        where = f"{d['header']}:{d['line']}"
        atom = model.get(name)
        if atom is None:
            out.append((name, where, "disagrees", "CuTe's headers define this atom; the model has none"))
            continue
        mine = model_members(atom)
        keys = [k for k in d if k not in ("kind", "name", "header", "line")]
        status, detail = "proved", f"{len(keys)} members printed alike"
        for k in keys:
            if k not in mine:
                status, detail = "disagrees", f"{k}: CuTe prints {d[k]}, the model has none"
                break
            if mine[k] is None:
                status, detail = "unknown", (f"{k}: CuTe prints {d[k]}, whose shape and stride are not congruent "
                                             "(CuTe cannot evaluate it; the model keeps no layout)")
                continue
            if mine[k] != str(d[k]):
                status, detail = "disagrees", f"{k}: CuTe prints {d[k]}, the model {mine[k]}"
                break
        else:
            extra = sorted(set(mine) - set(keys))
            if extra and status == "proved":
                status, detail = "disagrees", f"the model has {', '.join(extra)}; CuTe's traits print none"
        out.append((name, where, status, detail))
    for name, atom in model.items():
        if name not in seen:
            out.append((name, atom.source, "disagrees", "the model has this atom; CuTe's headers define none"))
    return out
