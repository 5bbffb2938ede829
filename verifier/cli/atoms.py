"""``cute-verify atoms [NAME...] [--check] [--kind mma|copy] [--json]``: the MMA and copy atoms of CuTe 4.2.

Without ``--check`` it lists the atoms (name, the header and line of the traits, the layouts as CuTe prints them);
with ``--check`` it verifies each (``atoms.py``) and prints every finding with its witnesses.  Exit status: 0, or 1
when a checked atom has a finding, 2 for an unknown atom name.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from verifier.algebra.atoms import CopyAtom, MmaAtom, atoms, check, find, skipped
from verifier.core.errors import LayoutError


def _row(a: MmaAtom | CopyAtom) -> dict[str, Any]:
    row: dict[str, Any] = {"name": a.name, "kind": "mma" if isinstance(a, MmaAtom) else "copy", "source": a.source}
    if isinstance(a, MmaAtom):
        row["Shape_MNK"] = "(" + ",".join(f"_{x}" for x in a.shape_mnk) + ")"
    row.update(dict(a.printed))
    if isinstance(a, MmaAtom) and a.bits is not None:
        row["bits"] = dict(zip("ABCD", a.bits))
    if isinstance(a, CopyAtom):
        if a.src_regs is not None:
            row["SRegisters"] = {"bits": a.src_regs[0], "count": a.src_regs[1]}
        if a.dst_regs is not None:
            row["DRegisters"] = {"bits": a.dst_regs[0], "count": a.dst_regs[1]}
    return row


def cmd_atoms(args: argparse.Namespace) -> int:
    try:
        chosen = [find(n) for n in args.names] if args.names else list(atoms())
    except KeyError as exc:
        raise LayoutError(f"atoms: no atom named {exc.args[0]!r} (cute-verify atoms lists them)") from None
    if args.kind:
        chosen = [a for a in chosen if isinstance(a, MmaAtom) == (args.kind == "mma")]
    results = [(a, check(a) if args.check else []) for a in chosen]
    failed = sum(1 for _, f in results if f)
    if args.json:
        out = []
        for a, findings in results:
            row = _row(a)
            if args.check:
                row["findings"] = [{"layout": f.layout, "id": f.id, "message": f.message,
                                    "witnesses": list(f.witnesses)} for f in findings]
            out.append(row)
        doc: dict[str, Any] = {"atoms": out}
        if not args.names:
            doc["skipped"] = skipped()
        print(json.dumps(doc, indent=1))
        return 1 if failed else 0
    for a, findings in results:
        if args.check and not findings and not getattr(args, "verbose", False):
            continue
        layouts = "  ".join(f"{k} {v}" for k, v in a.printed)
        shape = f"  MNK ({','.join(map(str, a.shape_mnk))})" if isinstance(a, MmaAtom) else ""
        print(f"{a.name}  [{a.source}]{shape}  {layouts}")
        for f in findings:
            print(f"  {f.id} {f.layout}: {f.message}")
            for w in f.witnesses:
                print(f"    {w}")
    if args.check:
        n_mma = sum(1 for a, _ in results if isinstance(a, MmaAtom))
        print(f"{len(results)} atoms checked ({n_mma} MMA, {len(results) - n_mma} copy): {failed} with findings, "
              f"{len(results) - failed} meet CuTe's design")
    if not args.names:
        print(f"{len(skipped())} declarations have no fixed layout or were refused by g++ (--json lists them)")
    return 1 if failed else 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("atoms", help="list and check CuTe 4.2's MMA and copy atoms (taken from the headers)")
    p.add_argument("names", nargs="*", help="atoms to show, e.g. SM80_16x8x32_S32S4S4S32_TN (default: all)")
    p.add_argument("--check", action="store_true", help="verify every TV layout against CuTe's design")
    p.add_argument("--kind", choices=("mma", "copy"), help="only MMA or only copy atoms")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_atoms)
