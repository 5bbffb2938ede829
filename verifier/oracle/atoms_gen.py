"""Regenerate ``verifier/data/atoms.json`` from the CuTe headers themselves: ``python -m verifier.oracle.atoms_gen``.

Every ``struct MMA_Traits<...>`` and ``struct Copy_Traits<...>`` specialisation of ``cute/atom/*.hpp`` is found by
scanning the headers (file and line recorded), instantiated in one host C++ program compiled with g++ against the
installed CuTe 4.2 headers, and CuTe's own ``print`` of its layouts is what the data file holds: nothing is
transcribed by hand.  The program is the plain host compilation of the headers; no architecture macro is defined,
so the traits are exactly those a device compilation sees (the layouts are plain types, independent of
``__CUDA_ARCH__``).  The one macro defined, ``CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED``, is CuTe's opt-in that
declares the extended SM90 GMMA shapes whose traits ``mma_traits_sm90_gmma*_ext.hpp`` define.

Specialisations templated on enumerations are instantiated at representative values (``GMMA::Major::K``,
``GMMA::ScaleIn::One``, ``GMMA::SparseSel::Zero``: none of them changes a layout, only the instruction), those
templated on an element type (``UniversalCopy<S,D>``, ``SM80_CP_ASYNC_*<S,D>``) at each width the instruction
takes.  Specialisations templated on a type list or a TMA descriptor (SM100 UMMA ``a_type, b_type ...``, TMA
``NumBitsPerTMA``) have no fixed layout; they are listed under ``skipped`` with the reason, as is any
instantiation g++ refuses (with its first error).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifier.oracle.cute_cpp import CppCase, TranslationUnit, build, cute_include
from verifier.run.files import write_atomic

DATA_FILE = Path(__file__).parent.parent / "data" / "atoms.json"

HEADERS = (
    "mma_traits.hpp", "mma_traits_sm61.hpp", "mma_traits_sm70.hpp", "mma_traits_sm75.hpp", "mma_traits_sm80.hpp",
    "mma_traits_sm89.hpp", "mma_traits_sm90.hpp", "mma_traits_sm90_gmma.hpp", "mma_traits_sm90_gmma_ext.hpp",
    "mma_traits_sm90_gmma_sparse.hpp", "mma_traits_sm90_gmma_sparse_ext.hpp", "mma_traits_sm100.hpp",
    "mma_traits_sm120.hpp", "mma_traits_sm120_sparse.hpp",
    "copy_traits.hpp", "copy_traits_sm50.hpp", "copy_traits_sm75.hpp", "copy_traits_sm80.hpp",
    "copy_traits_sm90.hpp", "copy_traits_sm90_tma.hpp", "copy_traits_sm90_im2col.hpp", "copy_traits_sm100.hpp",
    "copy_traits_sm100_tma.hpp", "copy_traits_sm100_im2col.hpp",
)

# Representative values of the template parameters that select an instruction variant but not a layout.
ENUM_VALUES = {
    "GMMA::Major": "GMMA::Major::K",
    "GMMA::ScaleIn": "GMMA::ScaleIn::One",
    "GMMA::SparseSel": "GMMA::SparseSel::Zero",
}
# Element types for atoms templated on them, by the widths the instruction accepts.
ELEMENT_TYPES = {
    "UniversalCopy": ("uint8_t", "uint16_t", "uint32_t", "uint64_t", "uint128_t"),
    "SM80_CP_ASYNC": ("uint32_t", "uint64_t", "uint128_t"),
}
# The opt-in of the SM90 extended GMMA shapes (N not a multiple of 16 ...): declarations only, no layout changes.
FLAGS = ("-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED",)
MAX_VEC_BITS = ("8", "16", "32", "64", "128")


@dataclass(frozen=True)
class Decl:
    """One ``struct X_Traits<...>`` specialisation as written in a header."""

    kind: str            # "mma" or "copy"
    header: str          # path under the include folder, e.g. cute/atom/mma_traits_sm80.hpp
    line: int            # 1-based line of the ``struct`` keyword
    args: str            # the text between ``X_Traits<`` and its matching ``>``
    params: tuple[tuple[str, str], ...]  # the template parameters: (kind, name)


@dataclass(frozen=True)
class Instance:
    decl: Decl
    name: str            # a C++ type name of the operation, e.g. SM80_16x8x8_F16F16F16F16_TN
    cpp: str             # the C++ type that instantiates the traits


def _balanced(text: str, start: int) -> int:
    """Index of the ``>`` that closes the ``<`` just before ``start``."""
    depth = 1
    i = start
    while i < len(text):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced template argument list")


_STRUCT = re.compile(r"^[ \t]*struct[ \t]+(MMA_Traits|Copy_Traits)[ \t]*<", re.M)
_TEMPLATE = re.compile(r"template\s*<([^<>]*(?:<[^<>]*>[^<>]*)*)>\s*$", re.S)


def scan(include: Path) -> list[Decl]:
    out: list[Decl] = []
    for h in HEADERS:
        path = include / "cute" / "atom" / h
        if not path.is_file():
            continue
        text = path.read_text()
        for m in _STRUCT.finditer(text):
            end = _balanced(text, m.end())
            args = " ".join(text[m.end():end].split())
            line = text.count("\n", 0, m.start()) + 1
            before = text[max(0, m.start() - 400):m.start()]
            tm = _TEMPLATE.search(before)
            params: list[tuple[str, str]] = []
            if tm is None:
                continue  # the primary template (no "template <...>" right before): not a specialisation
            for p in tm.group(1).split(","):
                p = " ".join(p.split())
                if not p:
                    continue
                kind, _, name = p.rpartition(" ")
                params.append((kind, name))
            if not params and "dependent_false" in text[end:end + 300]:
                continue
            if h == "copy_traits.hpp" and args.startswith("CopyOperation"):
                continue
            out.append(Decl("mma" if m.group(1) == "MMA_Traits" else "copy", f"cute/atom/{h}", line, args,
                            tuple(params)))
    return out


def _substitute(args: str, values: dict[str, str]) -> str:
    for name, v in values.items():
        args = re.sub(rf"\b{re.escape(name)}\b", v, args)
    return args


def instances(decl: Decl) -> tuple[list[Instance], str | None]:
    """The instantiations of a declaration, or the reason it has none."""
    op = decl.args.split("<", 1)[0].strip()
    if not decl.params:
        return [Instance(decl, decl.args, decl.args)], None
    if all(k in ENUM_VALUES for k, _ in decl.params):
        values = {n: ENUM_VALUES[k] for k, n in decl.params}
        cpp = _substitute(decl.args, values)
        return [Instance(decl, cpp, cpp)], None
    kinds = [k for k, _ in decl.params]
    if op == "UniversalFMA":
        cpp = _substitute(decl.args, {n: "float" for _, n in decl.params})
        return [Instance(decl, cpp, cpp)], None
    if kinds == ["class", "class"] and [n for _, n in decl.params] == ["S", "D"]:
        family = next((f for f in ELEMENT_TYPES if op.startswith(f)), None)
        if family is None:
            return [], f"templated on element types S, D of an operation not in {sorted(ELEMENT_TYPES)}"
        out = []
        for t in ELEMENT_TYPES[family]:
            cpp = _substitute(decl.args, {"S": t, "D": t})
            out.append(Instance(decl, cpp, cpp))
        return out, None
    if kinds == ["int"] and decl.params[0][1] == "MaxVecBits":
        out = []
        for b in MAX_VEC_BITS:
            cpp = _substitute(decl.args, {"MaxVecBits": b})
            out.append(Instance(decl, cpp, cpp))
        return out, None
    names = ", ".join(f"{k} {n}" for k, n in decl.params)
    return [], f"templated on <{names}>: no fixed layout without the kernel's choice of those parameters"


_PRELUDE = r"""
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma_sparse.hpp>
#include <cute/atom/copy_traits_sm90_im2col.hpp>
#include <cute/atom/copy_traits_sm100_im2col.hpp>
#include <cstdio>
using namespace cute;

template <class T, class = void> struct has_regs : cute::false_type {};
template <class T> struct has_regs<T, cute::void_t<typename T::SRegisters, typename T::DRegisters>>
    : cute::true_type {};
template <class T, class = void> struct has_vals : cute::false_type {};
template <class T> struct has_vals<T, cute::void_t<typename T::ValTypeA, typename T::ValTypeB,
                                                   typename T::ValTypeC, typename T::ValTypeD>>
    : cute::true_type {};

template <class Op> void print_copy(int k) {
  using T = Copy_Traits<Op>;
  printf("@@ATOM %d\n", k);
  printf("ThrID "); print(typename T::ThrID{}); printf("\n");
  printf("SrcLayout "); print(typename T::SrcLayout{}); printf("\n");
  printf("DstLayout "); print(typename T::DstLayout{}); printf("\n");
  printf("RefLayout "); print(typename T::RefLayout{}); printf("\n");
  if constexpr (has_regs<Op>::value) {
    using SR = typename Op::SRegisters;
    using DR = typename Op::DRegisters;
    using SE = typename cute::remove_extent<SR>::type;
    using DE = typename cute::remove_extent<DR>::type;
    printf("SRegisters %d %d\n", int(sizeof_bits<SE>::value), int(cute::extent<SR>::value));
    printf("DRegisters %d %d\n", int(sizeof_bits<DE>::value), int(cute::extent<DR>::value));
  }
  printf("@@END\n");
}

template <class Op> void print_mma(int k) {
  using T = MMA_Traits<Op>;
  printf("@@ATOM %d\n", k);
  printf("Shape_MNK "); print(typename T::Shape_MNK{}); printf("\n");
  printf("ThrID "); print(typename T::ThrID{}); printf("\n");
  printf("ALayout "); print(typename T::ALayout{}); printf("\n");
  printf("BLayout "); print(typename T::BLayout{}); printf("\n");
  printf("CLayout "); print(typename T::CLayout{}); printf("\n");
  if constexpr (has_vals<T>::value) {
    printf("ValBits %d %d %d %d\n", int(sizeof_bits<typename T::ValTypeA>::value),
           int(sizeof_bits<typename T::ValTypeB>::value), int(sizeof_bits<typename T::ValTypeC>::value),
           int(sizeof_bits<typename T::ValTypeD>::value));
  }
  printf("@@END\n");
}
"""


def _unit(kinds: Sequence[str]) -> TranslationUnit:
    def unit(cases: Sequence[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
        lines = _PRELUDE.strip("\n").split("\n")
        spans: dict[int, tuple[int, int]] = {}
        for k, case in enumerate(cases):
            start = len(lines) + 1
            if k in rejected:
                lines.append(f"static void atom_{k}() {{}}")
            else:
                fn = "print_mma" if kinds[k] == "mma" else "print_copy"
                lines.append(f"static void atom_{k}() {{ {fn}<{case.code}>({k}); }}")
            spans[k] = (start, len(lines))
        lines.append("int main() {")
        lines.extend(f"  atom_{k}();" for k in range(len(cases)))
        lines.append("  return 0;")
        lines.append("}")
        return "\n".join(lines) + "\n", spans
    return unit


_ATOM_INCLUDES = [line for line in _PRELUDE.strip("\n").split("\n") if line.startswith("#include")]


def traits_unit(cases: Sequence[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    """``cute_cpp``'s printing harness with the atom headers included, so that a case may name a traits member
    (``typename MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>::BLayout{}``) and is evaluated by compiled CuTe."""
    from verifier.oracle.cute_cpp import _translation_unit

    text, spans = _translation_unit(cases, rejected)
    extra = len(_ATOM_INCLUDES)
    return "\n".join(_ATOM_INCLUDES) + "\n" + text, {k: (a + extra, b + extra) for k, (a, b) in spans.items()}


def member_case(kind: str, name: str, member: str) -> CppCase:
    """A ``cute_cpp`` case evaluating one layout of an atom's traits, for ``run_cases``-style queries."""
    traits = "MMA_Traits" if kind == "mma" else "Copy_Traits"
    return CppCase(f"typename {traits}<{name}>::{member}{{}}", ())


def _parse(stdout: str) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {}
    cur: dict[str, str] | None = None
    for line in stdout.splitlines():
        if line.startswith("@@ATOM "):
            cur = out.setdefault(int(line.split()[1]), {})
        elif line.startswith("@@END"):
            cur = None
        elif cur is not None and " " in line:
            key, _, rest = line.partition(" ")
            cur[key] = rest.strip()
    return out


def generate(chunk: int = 400, keep: Callable[[str], bool] | None = None) -> dict[str, object]:
    """Every atom of the headers as compiled CuTe prints it (``keep``: only the instances whose C++ type it
    accepts; the declarations skipped are listed either way)."""
    import subprocess

    include = cute_include()
    decls = scan(include)
    todo: list[Instance] = []
    skipped: list[dict[str, object]] = []
    for d in decls:
        inst, why = instances(d)
        if why is not None:
            skipped.append({"kind": d.kind, "declaration": d.args, "header": d.header, "line": d.line,
                            "reason": why})
        todo.extend(i for i in inst if keep is None or keep(i.cpp))
    atoms: list[dict[str, object]] = []
    for lo in range(0, len(todo), chunk):
        part = todo[lo:lo + chunk]
        kinds = [i.decl.kind for i in part]
        binary = build([CppCase(i.cpp, ()) for i in part], unit=_unit(kinds), flags=FLAGS)
        proc = subprocess.run([str(binary.path)], capture_output=True, text=True, check=True, timeout=600)
        printed = _parse(proc.stdout)
        for k, one in enumerate(part):
            where = {"header": one.decl.header, "line": one.decl.line}
            if k in binary.rejected or k not in printed:
                skipped.append({"kind": one.decl.kind, "declaration": one.cpp, **where,
                                "reason": f"g++: {binary.rejected.get(k, 'no output')}"})
                continue
            atoms.append({"kind": one.decl.kind, "name": one.name, **where, **printed[k]})
    return {
        "generator": "python -m verifier.oracle.atoms_gen",
        "cute": _cutlass_version(),
        "atoms": atoms,
        "skipped": skipped,
    }


def _cutlass_version() -> str:
    try:
        from importlib.metadata import version

        return f"nvidia-cutlass {version('nvidia-cutlass')}"
    except Exception:  # pragma: no cover - the wheel is how the headers are found
        return "unknown"


def dumps(data: dict[str, object]) -> str:
    """JSON with one atom (or skipped declaration) per line, so that a regeneration diffs line by line."""
    head = {k: v for k, v in data.items() if k not in ("atoms", "skipped")}
    parts = [json.dumps(head)[:-1]]
    for key in ("atoms", "skipped"):
        rows = data[key]
        assert isinstance(rows, list)
        body = ",\n".join("  " + json.dumps(r, sort_keys=False) for r in rows)
        parts.append(f', "{key}": [\n{body}\n ]')
    return "".join(parts) + "}\n"


def main(argv: Sequence[str] | None = None) -> int:
    data = generate()
    DATA_FILE.parent.mkdir(exist_ok=True)
    write_atomic(DATA_FILE, dumps(data))
    DATA_FILE.chmod(0o644)
    atoms = data["atoms"]
    assert isinstance(atoms, list)
    skipped = data["skipped"]
    assert isinstance(skipped, list)
    print(f"{DATA_FILE}: {len(atoms)} atoms, {len(skipped)} declarations skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
