"""The function ``cute-verify cpp FILE.cpp::FUNCTION`` verifies, read from the user's file: the target, the
function's definition and integer parameters (``find_function``), and their ranges and relations as symbols
(``declare``).  Spec files (``run/spec.py``) check a ``cpp`` check's target and arguments with these when they are
loaded; running the function on CuTe's headers is the C++ front end's (``oracle/cpp.py``), a layer above, which
registers itself with ``run/batch.py`` to run such checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from verifier.core.errors import LayoutError
from verifier.core.symbols import INT32_MAX, INT64_MAX, Symbols

# The integer parameter types the tool makes symbolic: the C++ type -> (the Int<T> spelling, bits, signed).
INT_TYPES: dict[str, tuple[str, int, bool]] = {
    "int": ("int", 32, True), "int32_t": ("int32_t", 32, True), "std::int32_t": ("int32_t", 32, True),
    "int64_t": ("int64_t", 64, True), "std::int64_t": ("int64_t", 64, True), "long": ("long", 64, True),
    "long long": ("long long", 64, True), "unsigned": ("unsigned", 32, False),
    "unsigned int": ("unsigned", 32, False), "uint32_t": ("uint32_t", 32, False),
    "std::uint32_t": ("uint32_t", 32, False), "uint64_t": ("uint64_t", 64, False),
    "std::uint64_t": ("uint64_t", 64, False), "size_t": ("size_t", 64, False), "std::size_t": ("size_t", 64, False),
}
_RANGE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(-?\d+)(?:\.\.(-?\d+))?$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CppInputError(LayoutError):
    """Bad input (exit 2): a bad FILE::FUNCTION, a parameter the tool cannot model, a file that does not compile."""


# -- the function under test -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str          # as written, e.g. "int" or "int64_t"
    symbolic: str | None  # the T of cute_symbolic::Int<T>, or None for a parameter passed a default value
    bits: int = 32
    signed: bool = True
    start: int = 0      # the offsets of its type in the source (rewritten in the driver's copy)
    end: int = 0


@dataclass(frozen=True)
class Function:
    path: Path
    name: str
    params: tuple[Param, ...]
    first_line: int     # 1-based: the line holding the name
    last_line: int      # 1-based: the line holding the closing brace
    text: str


def parse_target(target: str) -> tuple[Path, str]:
    file, sep, name = target.rpartition("::")
    if not sep or not file or not _IDENT.match(name):
        raise CppInputError(f"{target!r}: expected FILE.cpp::FUNCTION")
    path = Path(file)
    if path.suffix not in (".cpp", ".cc", ".cxx", ".cu", ".hpp", ".h", ".cuh"):
        raise CppInputError(f"{file}: expected a C++ or CUDA source (.cpp, .cc, .cu, ...)")
    if not path.is_file():
        raise CppInputError(f"{file}: no such file")
    return path.resolve(), name


def blank_comments(text: str) -> str:
    """``text`` with comments and string literals blanked (same length, newlines kept), for finding the function."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out[i + 1:j] = " " * (j - i - 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _match(text: str, i: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return -1


def _split_params(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, depth, a = [], 0, start
    for j in range(start, end):
        c = text[j]
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((a, j))
            a = j + 1
    if text[a:end].strip():
        spans.append((a, end))
    return spans


def definitions(code: str, name: str) -> list[tuple[re.Match[str], int, int, int]]:
    """Each definition of a function ``name`` in ``code``: (the name's match, its ``)``, ``{`` and ``}``)."""
    out = []
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", code):
        before = code[:m.start()].rstrip()
        if before.endswith((".", "->", "::")) and not before.endswith("::"):
            continue
        close = _match(code, m.end() - 1, "(", ")")
        if close < 0:
            continue
        after = re.match(r"[\s\w:&*<>,-]*?\{", code[close + 1:])
        if after is None or re.search(r"[;=]", code[close + 1:close + 1 + after.end()]):
            continue
        body = close + after.end()
        end = _match(code, body, "{", "}")
        if end < 0:
            continue
        out.append((m, close, body, end))
    return out


def body_span(code: str, name: str) -> tuple[int, int] | None:
    found = definitions(code, name)
    return (found[0][2], found[0][3]) if found else None


def find_function(path: Path, name: str) -> Function:
    text = path.read_text(errors="replace")
    code = blank_comments(text)
    for m, close, _body_start, end in definitions(code, name):
        params = tuple(_param(code, a, b, path, name) for a, b in _split_params(code, m.end(), close))
        return Function(path, name, params, code.count("\n", 0, m.start()) + 1, code.count("\n", 0, end) + 1, text)
    raise CppInputError(f"{path}: no definition of a function {name}(...) {{ ... }}")


def _param(code: str, a: int, b: int, path: Path, fn: str) -> Param:
    decl = code[a:b]
    default = decl.find("=")
    core = decl[:default] if default >= 0 else decl
    m = re.match(r"^\s*(?:const\s+)?(?P<type>[A-Za-z_][\w:\s]*?)\s+(?:const\s+)?(?P<name>[A-Za-z_]\w*)\s*$", core)
    if m is None:
        if default >= 0:
            return Param(core.strip() or "?", "", None)
        raise CppInputError(f"{path}: {fn}: cannot read the parameter {decl.strip()!r}")
    ctype = " ".join(m.group("type").split())
    if ctype in INT_TYPES:
        t, bits, signed = INT_TYPES[ctype]
        return Param(m.group("name"), ctype, t, bits, signed, a + m.start("type"), a + m.end("type"))
    if default >= 0:
        return Param(m.group("name"), ctype, None)
    if "<" not in decl and ctype.split("::")[-1][:1].isupper() and len(ctype.split()) == 1:
        # a template parameter of the function (``Int m``): instantiated with the symbolic int
        return Param(m.group("name"), ctype, "int", 32, True)
    raise CppInputError(f"{path}: {fn}: parameter {m.group('name')} has type {ctype!r}: only integer parameters "
                        f"({', '.join(sorted(set(k for k in INT_TYPES if '::' not in k)))}) are modelled")


def declare(fn: Function, ranges: Mapping[str, tuple[int, int]], assume: Sequence[str]) -> Symbols:
    from verifier.run.problems import assume as add_relations

    ranges = dict(ranges)
    symbols = Symbols()
    for p in fn.params:
        if p.symbolic is None:
            continue
        top = (INT64_MAX if p.bits == 64 else INT32_MAX) if p.signed else (
            INT64_MAX if p.bits == 64 else 2 * INT32_MAX + 1)
        lo, hi = ranges.pop(p.name, (1, top))
        symbols.declare(p.name, lo=lo, hi=hi, bits=64 if p.bits == 64 else 32)
    if ranges:
        names = ", ".join(p.name for p in fn.params if p.symbolic is not None) or "none"
        raise CppInputError(f"--arg {sorted(ranges)[0]}: {fn.name} has no integer parameter of that name "
                            f"(its parameters: {names})")
    add_relations(symbols, assume)
    return symbols


def parse_ranges(items: Sequence[str]) -> dict[str, tuple[int, int]]:
    out = {}
    for item in items:
        m = _RANGE.match(item.replace(" ", ""))
        if m is None:
            raise CppInputError(f"--arg {item!r}: expected NAME=LO..HI or NAME=VALUE")
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) is not None else lo
        if lo > hi:
            raise CppInputError(f"--arg {item!r}: empty range")
        out[m.group(1)] = (lo, hi)
    return out


__all__ = ["CppInputError", "Function", "Param", "declare", "find_function", "parse_ranges", "parse_target"]
