"""``cute-verify gmma_atom``, ``gmma_canonical``, ``umma_atom`` and ``umma_canonical``: GMMA's and UMMA's smem atoms
and the canonical-layout checks of ``make_gmma_desc`` / ``make_umma_desc``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from verifier.algebra.gmma import KINDS, MAJORS, UMMA_KINDS, Canonical, atom, umma_atom
from verifier.notation.cpp import parse


def _print_atom(args: argparse.Namespace, layout: object) -> int:
    if args.json:
        print(json.dumps({"major": args.major, "kind": args.kind,
                          "element_bits": args.element_bits, "layout": str(layout)}))
    else:
        print(layout)
    return 0


def cmd_atom(args: argparse.Namespace) -> int:
    return _print_atom(args, atom(args.major, args.kind, args.element_bits))


def cmd_umma_atom(args: argparse.Namespace) -> int:
    return _print_atom(args, umma_atom(args.major, args.kind, args.element_bits))


def cmd_canonical(args: argparse.Namespace) -> int:
    from verifier.engine.problem import GmmaCanonical, decide

    v = decide(GmmaCanonical(parse(args.smem), args.element_bits, args.major, args.k_block, args.umma))
    c = v.detail
    assert isinstance(c, Canonical)  # the check's outcome, with the descriptor's fields
    if args.json:
        print(json.dumps({"smem": args.smem, "major": args.major, "element_bits": args.element_bits,
                          "accepted": c.accepted, "reason": c.reason, "layout_type": c.layout_type,
                          "stride_byte_offset": c.stride_byte_offset, "leading_byte_offset": c.leading_byte_offset,
                          "canonical": c.canonical}))
    elif c.accepted:
        print(f"canonical: {c.reason}; descriptor layout_type={c.layout_type} SBO={c.stride_byte_offset} "
              f"LBO={c.leading_byte_offset} (16-byte units); canonical form {c.canonical}")
    else:
        print(f"not canonical: {c.reason}")
    return 0 if c.accepted else 1


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _atom_parser(sub, "gmma_atom", "print GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>", KINDS,
                 "8, 16, 32, 64", cmd_atom)
    _canonical_parser(sub, "gmma_canonical", "make_gmma_desc<Major>",
                      "Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_16):(_16,_1)", umma=False)
    _atom_parser(sub, "umma_atom", "print UMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> and "
                 "Layout_MN_SW128_32B_Atom<T>", UMMA_KINDS, "8, 16, 32", cmd_umma_atom)
    _canonical_parser(sub, "umma_canonical", "UMMA::make_umma_desc<Major>",
                      "Sw<2,5,2> o smem_ptr[16b](unset) o (_64,_4):(_1,_64)", umma=True)


def _atom_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, description: str,
                 kinds: tuple[str, ...], bits: str, func: Callable[[argparse.Namespace], int]) -> None:
    a = sub.add_parser(name, help=description)
    a.add_argument("major", choices=MAJORS)
    a.add_argument("kind", choices=kinds)
    a.add_argument("element_bits", type=int, help=f"sizeof_bits<T>: {bits}")
    a.add_argument("--json", action="store_true", help="print one JSON object")
    a.set_defaults(func=func)


def _canonical_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, function: str,
                      example: str, umma: bool) -> None:
    c = sub.add_parser(name, help=f"is an smem layout canonical for {function}?")
    c.add_argument("smem", help=f"the (MN,K) smem layout, e.g. '{example}'")
    c.add_argument("--element-bits", type=int, required=True, metavar="B")
    c.add_argument("--major", choices=MAJORS, required=True)
    c.add_argument("--k-block", type=int, default=None, metavar="K",
                   help="the MMA's K in elements (default 256/B, a dense MMA)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_canonical, umma=umma)
