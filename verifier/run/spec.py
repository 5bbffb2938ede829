"""Spec files: the layouts of a kernel, the ranges its symbols take and the verdicts expected, in TOML.

```toml
include = ["common.cute.toml"]          # paths relative to this file; their symbols, relations and checks join
rlimit = 40000000                       # default solver budget of each check, in Z3 resource units
timeout = 600                           # wall-clock safety net of each check, in seconds (default: scaled)
strict = true                           # warnings are errors for this file's checks (as --strict)

[symbols]
M   = { min = 1, max = 65536, multiple_of = 8 }
lda = { min = 1, max = 65536 }
N   = {}                                # int32, 1 <= N <= 2**31-1
big = { bits = 64 }                     # int64, 1 <= big <= 2**63-1

assume = ["lda >= M"]                   # relations between the symbols (top level, before any table)

[[check]]
name = "A tiles"                        # unique within the suite
op = "zipped_divide"                    # any algebra operation (or: property = "bijective" ...)
args = ["(M,K):(_1,lda)", "<_128,_32>"] # CuTe notation, as on the command line
assume = ["M % 128 == 0"]               # this check's own extra assumptions
expect = "valid"                        # valid / invalid / unknown (properties: proved / refuted / unknown)
timeout = 5
```

Optional keys of a check: ``params`` (``{M = 128}``, as ``--param``), ``extended`` (``equivalent``), ``bits``
(``no_overflow``), ``ignore`` (obligation IDs or prefixes left out of its verdict, as ``--ignore``),
``description``.  Symbols are strict: a name no file of the suite declares is an error.

Loading validates everything before any check runs, and every problem is a ``SpecError``: one line naming the
file, the line and the key (``gemm.cute.toml:12: check[3].args[1]: ...``).  Assumptions that no value satisfies
(an empty range, no multiple in range, relations that contradict each other) are errors too: a check over an
empty set of values would be vacuously valid.  Parsing (``parse_suite``) never asks the solver: it returns the
checks and the assumptions that must admit a value (``Admission``), which ``load_suite`` then decides through
``engine.problem.decide`` (``admit``).

A loaded ``Check`` is plain, picklable data (texts, not parsed objects), so that worker processes and the result
cache (``batch.py``) can rebuild the exact problem from it.  Each check is decided over only the symbols its
operands use, plus the relations connected to them, so an unrelated symbol does not change its verdict or its
cache key.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from verifier.core.errors import LayoutError, did_you_mean
from verifier.core.semantics import SEMANTICS
from verifier.core.symbols import DeclarationError, Symbol, Symbols, declaration
from verifier.engine.problem import Admits, Operation, Property, decide, register
from verifier.engine.property import Option
from verifier.engine.verdicts import REFUTED, Policy, Verdict
from verifier.notation.cpp import parse_relation
from verifier.run import problems
from verifier.solver import budget
from verifier.solver.budget import UNITS_PER_SECOND

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    import tomli as tomllib

DEFAULT_TIMEOUT = budget.DEFAULT_TIMEOUT
MAX_SPEC_BYTES = 1 << 20
OP_VERDICTS = ("valid", "invalid", "unknown")
PROPERTY_VERDICTS = ("proved", "refuted", "unknown")
_TOP_KEYS = ("include", "rlimit", "timeout", "strict", "semantics", "symbols", "assume", "objects", "check")
_SYMBOL_KEYS = ("min", "max", "multiple_of", "bits")


@functools.cache
def _options() -> tuple[tuple[str, Option], ...]:
    """Each property's options with the property, from their declarations (``engine.property``)."""
    from verifier.engine.checks import PROPERTIES  # noqa: F401 - declares them
    from verifier.engine.property import DECLARED

    return tuple((p.name, o) for p in DECLARED.values() for o in p.options)


@functools.cache
def _check_keys() -> tuple[str, ...]:
    """The keys a check may have."""
    return ("name", "op", "property", "args", "expect", "rlimit", "timeout", "assume", "params",
            *(o.name for _, o in _options()), "ignore", "description", "semantics", "cpp")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class SpecError(LayoutError):
    """A problem in a spec file: ``FILE:LINE: KEY: message`` on one line."""

    def __init__(self, file: str, line: int, key: str, message: str) -> None:
        self.file, self.line, self.key = file, line, key
        super().__init__(f"{file}:{line}: {key}: {message}" if key else f"{file}:{line}: {message}")


@dataclass(frozen=True)
class Check:
    """One named check of a spec file, with everything needed to rebuild its problem."""

    name: str
    op: str
    is_property: bool
    args: tuple[str, ...]
    expect: str
    timeout: float | None
    file: str
    line: int
    assume: tuple[str, ...] = ()
    params: tuple[tuple[str, int], ...] = ()
    options: tuple[tuple[str, object], ...] = ()
    description: str | None = None
    symbols: tuple[Symbol, ...] = ()
    relations: tuple[str, ...] = field(default=())
    semantics: str = "cpp"  # which CuTe computes the operation: the C++ headers or the CuTe DSL (semantics.py)
    rlimit: int | None = None  # the solver's budget in Z3 resource units (None: the engine's default)
    strict: bool = False  # the file's ``strict = true``: warnings are errors
    ignore: tuple[str, ...] = ()  # obligations left out of the verdict (``ignore = ["DIV-EXACT"]``)
    cpp: str | None = None  # ``cpp = "kernel.cu::layouts"``: a C++ function (oracle/cpp.py runs it), args: ranges

    @property
    def policy(self) -> Policy:
        return Policy(self.strict, (), self.ignore)

    @property
    def id(self) -> str:
        return f"{self.file}::{self.name}"

    @property
    def kind(self) -> str:
        """How ``engine.problem.decide`` decides it: a C++ function (``oracle/cpp.py`` registers ``cpp``) or an
        operation / property of the engine (``spec``, registered below)."""
        return "cpp" if self.cpp is not None else "spec"

    def problem(self) -> tuple[list[object], Symbols]:
        """The parsed operands over a table of the symbols they use, with the relations that concern them (which
        asks the solver whether a relation linking them to other symbols narrows them: ``relevant_relations``)."""
        return self._parsed(narrow=True)

    def engine_problem(self) -> Operation | Property:
        """What the engine decides for this check (an operation or a property), with the check's limits and
        policy."""
        args, symbols = self.problem()
        if self.is_property:
            return Property(self.op, tuple(args), symbols, self.options, self.policy, self.timeout, self.rlimit)
        return Operation(self.op, tuple(args), symbols, self.policy, self.timeout, self.rlimit,
                         semantics=self.semantics)

    def _parsed(self, narrow: bool) -> tuple[list[object], Symbols]:
        """The operands over their symbols; ``narrow``: with the relations that concern them, else (parsing,
        which never asks the solver) with the relations over those symbols alone."""
        table = _Scoped(strict=True, declared={s.name: s for s in self.symbols})
        args = problems.operands(self.op, self.args, table)
        used = set(table.table) | {n for text in self.assume for n in _relation_names(text, self.symbols)}
        chosen = (relevant_relations(self.symbols, self.relations, frozenset(used)) if narrow
                  else tuple(t for t in self.relations if _relation_names(t, self.symbols) <= used))
        for text in chosen:
            used |= _relation_names(text, self.symbols)
        for name in sorted(used):
            table.lookup(name)
        problems.assume(table, chosen, "assume")
        problems.assume(table, self.assume, "assume")
        args = problems.substitute(args, table, dict(self.params))
        if self.is_property:
            problems.check_property_operands(self.op, args)
        return args, table


@dataclass
class _Scoped(Symbols):
    """A strict table that takes a declared symbol in when the input first names it."""

    declared: dict[str, Symbol] = field(default_factory=dict)

    def lookup(self, name: str) -> Symbol | None:
        if name not in self.table and name in self.declared:
            self.table[name] = self.declared[name]
        return super().lookup(name)


def _relation_names(text: str, symbols: Sequence[Symbol]) -> set[str]:
    table = _Scoped(strict=True, declared={s.name: s for s in symbols})
    return set(parse_relation(text, table).expr.symbols())


@functools.lru_cache(maxsize=4096)
def relevant_relations(symbols: tuple[Symbol, ...], relations: tuple[str, ...], used: frozenset[str]
                       ) -> tuple[str, ...]:
    """The relations a problem over the symbols ``used`` must assume: those over ``used`` alone, and each group of
    relations linking ``used`` to other symbols unless the engine proves the group does not narrow ``used``.

    ``ldA >= M`` with ``1 <= ldA <= 65536`` allows every ``M`` in ``1..65536``, so a check of ``M`` alone drops it
    (and ``ldA``); with ``ldA <= 1024`` it does narrow ``M`` and is kept.  Dropping only what provably leaves the
    allowed values of ``used`` unchanged keeps every verdict the same.
    """
    names = {t: _relation_names(t, symbols) for t in relations}
    inside = set(used)
    while True:
        chosen = [t for t in relations if names[t] <= inside]
        for group in _groups([t for t in relations if t not in chosen], names, inside):
            if any(names[t] & inside for t in group) and not _harmless(symbols, chosen, group, inside, names):
                inside |= set().union(*(names[t] for t in group))
                break
        else:
            return tuple(chosen)


def _groups(rest: list[str], names: Mapping[str, set[str]], inside: set[str]) -> list[list[str]]:
    """The relations in ``rest`` grouped by the symbols outside ``inside`` that they share."""
    groups: list[tuple[set[str], list[str]]] = []
    for t in rest:
        outside, members = names[t] - inside, [t]
        for g in [g for g in groups if g[0] & outside]:
            groups.remove(g)
            outside |= g[0]
            members = g[1] + members
        groups.append((outside, members))
    return [sorted(g[1], key=rest.index) for g in groups]


def _harmless(symbols: tuple[Symbol, ...], chosen: list[str], group: list[str], inside: set[str],
              names: Mapping[str, set[str]]) -> bool:
    """The engine proves: every value of ``inside`` that its own assumptions allow extends to values of the group's
    other symbols that satisfy the group (undecided within a second: not harmless)."""
    from verifier.solver.encoding import Encoder, Unencodable
    from verifier.solver.queries import extends_at_a_corner, extends_everywhere

    outside = set().union(*(names[t] for t in group)) - inside
    table = _Scoped(strict=True, declared={s.name: s for s in symbols})
    for n in sorted(inside | outside):
        table.lookup(n)
    if extends_at_a_corner(table, inside, outside, [parse_relation(t, table) for t in group]):
        return True  # no solver, no context (issue 28: 77 ms a query, 15 of them loading sgemm_sm80)
    enc = Encoder(table, {})
    try:
        mine = [enc.boolean(parse_relation(t, table)) for t in chosen]
        theirs = [enc.boolean(parse_relation(t, table)) for t in group]
    except Unencodable:
        return False
    return extends_everywhere(enc, inside, mine, outside, theirs, budget.hang_guard(UNITS_PER_SECOND), UNITS_PER_SECOND)


# -- where keys are -------------------------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", text)
    return tuple(p[1:-1] if p[0] in "\"'" else p for p in parts)


def key_lines(text: str) -> dict[tuple[object, ...], int]:
    """The line of every key and table header: ``("check", 2, "args") -> 17`` (tomllib does not say where)."""
    lines: dict[tuple[object, ...], int] = {}
    table: tuple[object, ...] = ()
    counts: dict[tuple[object, ...], int] = {}
    depth, multiline = 0, None
    for n, raw in enumerate(text.splitlines(), start=1):
        if multiline is not None:
            if raw.count(multiline) % 2 == 1:
                multiline = None
            continue
        if depth == 0:
            m = _HEADER.match(raw)
            if m:
                path = _split_key(m.group(2))
                if m.group(1) == "[[":
                    counts[path] = counts.get(path, -1) + 1
                    table = (*path, counts[path])
                else:
                    table = path
                lines.setdefault(table, n)
                continue
            m = _KEY.match(raw)
            if m:
                lines.setdefault((*table, *_split_key(m.group(1))), n)
        depth, multiline = _scan(raw, depth)
    return lines


def _scan(raw: str, depth: int) -> tuple[int, str | None]:
    """Bracket depth after ``raw`` (outside strings and comments), and an open multi-line string's quote."""
    k = 0
    while k < len(raw):
        c = raw[k]
        if c == "#":
            break
        if raw.startswith('"""', k) or raw.startswith("'''", k):
            q = raw[k:k + 3]
            end = raw.find(q, k + 3)
            if end < 0:
                return depth, q
            k = end + 3
            continue
        if c in "\"'":
            end = k + 1
            while end < len(raw) and raw[end] != c:
                end += 2 if c == '"' and raw[end] == "\\" else 1
            k = end + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(0, depth - 1)
        k += 1
    return depth, None


def _show_key(path: Sequence[object]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


# -- loading --------------------------------------------------------------------------------------------------


@dataclass
class _File:
    path: Path
    shown: str
    lines: dict[tuple[object, ...], int]
    semantics: str = "cpp"

    def line(self, path: Sequence[object]) -> int:
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return 1

    def error(self, path: Sequence[object], message: str) -> SpecError:
        return SpecError(self.shown, self.line(path), _show_key(path), message)


# A file's (timeout, rlimit), the defaults of its checks; None: the command's defaults (budget.py).
_Limits = tuple[float | None, int | None]


@dataclass
class _Suite:
    symbols: dict[str, tuple[Symbol, _File, tuple[object, ...]]] = field(default_factory=dict)
    relations: list[tuple[str, _File, tuple[object, ...]]] = field(default_factory=list)
    checks: list[tuple[dict[str, object], _File, tuple[object, ...], _Limits, bool]] = field(default_factory=list)
    # [objects]: a TiledMMA / TiledCopy (or any operand) built once and named in checks' args as $name
    objects: dict[str, str] = field(default_factory=dict)
    loaded: set[Path] = field(default_factory=set)
    roots: tuple[Path, ...] = ()


def shown_path(path: Path) -> str:
    """A path as reports show it: relative to the working directory when it is below it."""
    try:
        return Path(os.path.relpath(path)).as_posix() if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:
        return str(path)


def load(paths: Sequence[str | os.PathLike[str]], include_roots: Sequence[str | os.PathLike[str]] = ()
         ) -> list[Check]:
    """Every check of the given spec files, in order; each file (with its includes) is its own suite.  An include
    must be a regular file below the including file's folder or below one of ``include_roots``."""
    out: list[Check] = []
    for p in paths:
        out += load_suite(p, include_roots)
    return out


def load_suite(path: str | os.PathLike[str], include_roots: Sequence[str | os.PathLike[str]] = ()) -> list[Check]:
    """The checks of one suite (``parse_suite``), once every assumption it states is shown to admit a value."""
    checks, admissions = parse_suite(path, include_roots)
    admit(admissions)
    return checks


@dataclass(frozen=True)
class CheckAssumptions:
    """A check's own assumptions together with the symbols' and the relations that concern its operands: do they
    admit a value?  (Which relations concern them is itself asked of the solver, so this is decided, not parsed.)"""

    check: Check
    kind: ClassVar[str] = "spec_assumptions"


@dataclass(frozen=True)
class Admission:
    """Assumptions a spec file states that must admit a value (a check over an empty set of values would be
    vacuously valid), and the error that says where when they do not."""

    problem: Admits | CheckAssumptions
    error: SpecError


def parse_suite(path: str | os.PathLike[str], include_roots: Sequence[str | os.PathLike[str]] = ()
                ) -> tuple[list[Check], list[Admission]]:
    """The checks of the file at ``path`` with its includes, in order, and the assumptions that must admit a
    value: parsing and validating only, never the solver (``admit`` decides the admissions)."""
    suite = _Suite(roots=tuple(_resolve(Path(r)) or Path(r).absolute() for r in include_roots))
    _load_file(Path(path), suite, (), None)
    symbols = tuple(s for s, _, _ in suite.symbols.values())
    relations, admissions = _check_relations(suite, symbols)
    seen: dict[str, tuple[_File, tuple[object, ...]]] = {}
    out = []
    for raw, f, key, limits, strict in suite.checks:
        raw = _with_objects(raw, f, key, suite.objects)
        check, admission = _check(raw, f, key, limits, symbols, relations)
        check = replace(check, strict=strict, semantics=_semantics(f, key, raw, f.semantics))
        if check.name in seen:
            f0, k0 = seen[check.name]
            raise f.error((*key, "name"), f"check name {check.name!r} is already used at {f0.shown}:{f0.line(k0)}")
        seen[check.name] = (f, key)
        out.append(check)
        admissions += [admission] if admission is not None else []
    return out, admissions


def admit(admissions: Sequence[Admission]) -> None:
    """Raise the ``SpecError`` of the first admission whose assumptions the solver proves empty (undecided counts
    as admitted here: the check is then ``unknown`` when it runs, ``domain.check_domain``)."""
    for a in admissions:
        if decide(a.problem).verdict == REFUTED:
            raise a.error


def _resolve(path: Path) -> Path | None:
    """``path`` with every symbolic link resolved, or None when it cannot be (a loop, a NUL, too long a name)."""
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        return None


def _read_spec(path: Path, shown: str) -> str:
    """The text of a regular file of at most ``MAX_SPEC_BYTES``, read without blocking on a FIFO or a device and
    without following it past the limit (``/dev/zero``); any problem is a one-line ``SpecError``."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise SpecError(shown, 1, "", "no such file") from None
    except (OSError, ValueError) as exc:
        raise SpecError(shown, 1, "", f"cannot read: {getattr(exc, 'strerror', None) or 'bad file name'}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SpecError(shown, 1, "", "not a regular file (a spec file cannot be a device, a FIFO or a folder)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise SpecError(shown, 1, "", f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(shown, 1, "", f"larger than the limit of {MAX_SPEC_BYTES} bytes for a spec file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(shown, 1, "", f"not UTF-8 text (byte {exc.start})") from None


def _load_file(path: Path, suite: _Suite, stack: tuple[Path, ...], origin: tuple[_File, tuple[object, ...]] | None
               ) -> None:
    shown = shown_path(path)
    resolved = _resolve(path)
    if resolved is None:
        if origin is not None:
            raise origin[0].error(origin[1], "cannot resolve the included path (a symbolic-link loop or a bad name)")
        raise SpecError(shown, 1, "", "cannot resolve the path (a symbolic-link loop or a bad name)")
    if origin is not None:
        parent = _resolve(origin[0].path.parent)
        roots = ([parent] if parent is not None else []) + list(suite.roots)
        if not any(resolved.is_relative_to(r) for r in roots):
            raise origin[0].error(origin[1], f"{shown} is outside {shown_path(origin[0].path.parent) or '.'} "
                                             "(includes stay below the including file's folder; --include-root DIR "
                                             "allows another tree)")
    if resolved in stack:
        assert origin is not None
        raise origin[0].error(origin[1], f"include cycle: {' -> '.join(shown_path(p) for p in (*stack, resolved))}")
    if resolved in suite.loaded:
        return
    suite.loaded.add(resolved)
    try:
        text = _read_spec(path, shown)
    except SpecError as exc:
        if origin is not None and str(exc).endswith(": no such file"):
            raise origin[0].error(origin[1], f"no such file: {shown}") from None
        raise
    f = _File(path, shown, key_lines(text))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # An included file's text is not echoed (the include may name a file that is not a spec file).
        raise _syntax_error(f, text, exc, echo=origin is None) from None
    except ValueError:  # tomllib converts integer literals with int(): more than 4300 digits is a ValueError
        raise SpecError(shown, 1, "", "an integer literal is far too long (CuTe's integers are at most int64)") \
            from None
    for key in data:
        if key not in _TOP_KEYS:
            what = f"unknown key {key!r}" if origin is None else "an unknown key"
            hint = did_you_mean(key, _TOP_KEYS)
            raise f.error((key,) if origin is None else (), f"{what}{hint}; a spec file has {', '.join(_TOP_KEYS)}")
    timeout = DEFAULT_TIMEOUT
    if "timeout" in data:
        timeout = _timeout(f, ("timeout",), data["timeout"])
    rlimit = _rlimit(f, ("rlimit",), data["rlimit"]) if "rlimit" in data else None
    strict = data.get("strict", False)
    if not isinstance(strict, bool):
        raise f.error(("strict",), "must be true or false")
    for k, inc in enumerate(_strings(f, ("include",), data.get("include", []))):
        if "\0" in inc:
            raise f.error(("include", k), "a file name cannot hold a NUL character")
        _load_file(path.parent / inc, suite, (*stack, resolved), (f, ("include", k)))
    symbols = data.get("symbols", {})
    if not isinstance(symbols, dict):
        raise f.error(("symbols",), "must be a table of symbol declarations, e.g. M = { min = 1, max = 65536 }")
    for name, decl in symbols.items():
        _declare(f, suite, name, decl)
    for k, text in enumerate(_strings(f, ("assume",), data.get("assume", []))):
        suite.relations.append((text, f, ("assume", k)))
    objects = data.get("objects", {})
    if not isinstance(objects, dict) or not all(isinstance(v, str) for v in objects.values()):
        raise f.error(("objects",), "must be a table of named operands, e.g. mma = \"make_tiled_mma(...)\"")
    for name, text in objects.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or name in suite.objects:
            raise f.error(("objects", name), f"object {name!r}: a name may be defined once, letters, digits, _")
        suite.objects[name] = _expand(text, suite.objects)
    checks = data.get("check", [])
    if not isinstance(checks, list) or not all(isinstance(c, dict) for c in checks):
        raise f.error(("check",), "must be an array of tables: [[check]]")
    if "semantics" in data:
        f.semantics = _semantics(f, (), data, "cpp")
    for k, raw in enumerate(checks):
        suite.checks.append((raw, f, ("check", k), (timeout, rlimit), strict))


_REF = re.compile(r"\$([A-Za-z][A-Za-z0-9_]*)")


def _expand(text: str, objects: Mapping[str, str]) -> str:
    """``$name`` replaced by the object's text (objects may use the ones defined before them)."""
    def one(m: re.Match[str]) -> str:
        if m.group(1) not in objects:
            raise LayoutError(f"unknown object ${m.group(1)} (define it under [objects])")
        return objects[m.group(1)]
    return _REF.sub(one, text)


def _with_objects(raw: dict[str, object], f: _File, key: tuple[object, ...], objects: Mapping[str, str]
                  ) -> dict[str, object]:
    args = raw.get("args")
    if not isinstance(args, list) or not any(isinstance(a, str) and "$" in a for a in args):
        return raw
    out = []
    for k, a in enumerate(args):
        try:
            out.append(_expand(a, objects) if isinstance(a, str) else a)
        except LayoutError as exc:
            raise f.error((*key, "args", k), str(exc)) from None
    return {**raw, "args": out}


def _semantics(f: _File, key: tuple[object, ...], raw: Mapping[str, object], default: str) -> str:
    """``semantics = "cpp" | "dsl"`` of a check (or of the file, the default of its checks)."""
    if "semantics" not in raw:
        return default
    value = raw["semantics"]
    if value not in SEMANTICS:
        raise f.error((*key, "semantics"), f"must be one of {', '.join(SEMANTICS)} (the C++ headers or the CuTe "
                                           f"DSL), got {value!r}")
    return str(value)


def _syntax_error(f: _File, text: str, exc: Exception, echo: bool = True) -> SpecError:
    msg = str(exc)
    m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
    if not m:  # "(at end of document)"
        problem = re.sub(r"\s*[(]at end of document[)]", "", msg)
        return SpecError(f.shown, max(1, len(text.splitlines())), "", f"TOML syntax at the end: {problem}")
    line, col = int(m.group(1)), int(m.group(2))
    problem = msg[: m.start()].strip()
    if not echo:
        return SpecError(f.shown, line, "", f"TOML syntax, column {col} (an included file)")
    source = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
    km = _KEY.match(source)
    key = ".".join(_split_key(km.group(1))) if km else ""
    return SpecError(f.shown, line, key, f"TOML syntax, column {col}: {problem[:1].lower()}{problem[1:]}")


def _strings(f: _File, key: tuple[object, ...], value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise f.error(key, "must be a string or an array of strings")
    return value


def _timeout(f: _File, key: tuple[object, ...], value: object) -> float:
    from verifier.solver.budget import MAX_TIMEOUT

    if (isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TIMEOUT
            or value != value):
        raise f.error(key, f"must be a positive, finite number of seconds (at most {MAX_TIMEOUT:g}), got {value!r}")
    return float(value)


def _rlimit(f: _File, key: tuple[object, ...], value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not value > 0:
        raise f.error(key, f"must be a positive number of Z3 resource units, got {value!r}")
    return value


def _integer(f: _File, key: tuple[object, ...], value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise f.error(key, f"must be an integer, got {value!r}")
    return value


def _declare(f: _File, suite: _Suite, name: str, decl: object) -> None:
    key = ("symbols", name)
    if not _NAME.fullmatch(name):
        raise f.error(key, f"{name!r} is not a symbol name (a letter, then letters, digits or _)")
    if not isinstance(decl, dict):
        hint = (f" (a key after [symbols] belongs to that table: put {name} = ... before [symbols])"
                if name in _TOP_KEYS else "")
        raise f.error(key, f"must be a table of assumptions, e.g. {{ min = 1, max = 65536, multiple_of = 8 }}{hint}")
    for k in decl:
        if k not in _SYMBOL_KEYS:
            raise f.error((*key, k), f"unknown assumption {k!r}{did_you_mean(k, _SYMBOL_KEYS)}; a symbol has "
                                          f"{', '.join(_SYMBOL_KEYS)}")
    values = {k: _integer(f, (*key, k), decl[k]) for k in ("min", "max", "multiple_of", "bits") if k in decl}
    try:
        sym = declaration(name, values.get("min"), values.get("max"), values.get("multiple_of", 1),
                          values.get("bits", 32))
    except DeclarationError as exc:
        raise f.error((*key, exc.field), str(exc)) from None
    if name in suite.symbols:
        old, f0, k0 = suite.symbols[name]
        if old != sym:
            raise f.error(key, f"symbol {name} is already declared at {f0.shown}:{f0.line(k0)} with other "
                               f"assumptions ({old.describe()})")
        return
    suite.symbols[name] = (sym, f, key)


def _check_relations(suite: _Suite, symbols: tuple[Symbol, ...]) -> tuple[tuple[str, ...], list[Admission]]:
    """The suite's relations, parsed, and for each the admission of the relations up to it (so that the first
    one that leaves no value is named)."""
    texts: list[str] = []
    admissions = []
    for text, f, key in suite.relations:
        texts.append(text)
        try:
            table = _suite_table(symbols, texts)
        except LayoutError as exc:
            raise f.error(key, f"{text!r}: {exc}") from None
        admissions.append(Admission(Admits(table), f.error(key, f"{text!r} contradicts the assumptions before "
                                                                "it: no value satisfies them all")))
    return tuple(texts), admissions


def _suite_table(symbols: tuple[Symbol, ...], relations: Sequence[str]) -> Symbols:
    table = _Scoped(strict=True, declared={s.name: s for s in symbols})
    for s in symbols:
        table.lookup(s.name)
    for text in relations:
        table.assume(parse_relation(text, table))
    return table


def _check(raw: Mapping[str, object], f: _File, key: tuple[object, ...], defaults: _Limits,
           symbols: tuple[Symbol, ...], relations: tuple[str, ...]) -> tuple[Check, Admission | None]:
    """A check of the file, validated key by key without the solver, and the admission of its own assumptions."""
    for k in raw:
        if k not in _check_keys():
            raise f.error((*key, k), f"unknown key {k!r}{did_you_mean(k, _check_keys())}; a check has "
                                          f"{', '.join(_check_keys())}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise f.error((*key, "name") if "name" in raw else key, "every check needs a name (a non-empty string)")
    if "cpp" in raw:
        return _cpp_check(raw, f, key, name, defaults), None
    op, is_property = _what(raw, f, key, name)
    args = raw.get("args")
    if not isinstance(args, list) or not args or not all(isinstance(a, str | int) and not isinstance(a, bool)
                                                         for a in args):
        raise f.error((*key, "args") if "args" in raw else key,
                      f"check {name!r} needs args: an array of operands in CuTe notation")
    expect = _expect(raw, f, key, PROPERTY_VERDICTS if is_property else OP_VERDICTS)
    timeout = _timeout(f, (*key, "timeout"), raw["timeout"]) if "timeout" in raw else defaults[0]
    rlimit = _rlimit(f, (*key, "rlimit"), raw["rlimit"]) if "rlimit" in raw else defaults[1]
    assume = _strings(f, (*key, "assume"), raw.get("assume", []))
    params = _params(raw, f, key)
    options = _property_options(raw, f, key, op, is_property)
    description = _description(raw, f, key)
    ignore = tuple(_strings(f, (*key, "ignore"), raw.get("ignore", [])))
    try:
        Policy(False, (), ignore)
    except LayoutError as exc:
        raise f.error((*key, "ignore"), str(exc)) from None
    check = Check(name, op, is_property, tuple(str(a) for a in args), expect, timeout, f.shown, f.line(key),
                  tuple(assume), params, options, description, symbols, relations, rlimit=rlimit, ignore=ignore)
    try:
        check._parsed(narrow=False)
    except LayoutError as exc:
        raise f.error(_blame(key, raw, str(exc)), str(exc)) from None
    if not assume:
        return check, None
    return check, Admission(CheckAssumptions(check), f.error((*key, "assume"), "the check's assumptions contradict "
                                                             "the symbols' assumptions: no value satisfies them all"))


def _what(raw: Mapping[str, object], f: _File, key: tuple[object, ...], name: str) -> tuple[str, bool]:
    """The operation or the property the check names (exactly one), and whether it is a property."""
    from verifier.algebra.registry import OPERATIONS
    from verifier.engine.checks import PROPERTIES

    if ("op" in raw) == ("property" in raw):
        raise f.error(key, f"check {name!r} needs exactly one of op (an operation), property or cpp")
    is_property = "property" in raw
    kind = "property" if is_property else "op"
    op = raw[kind]
    known = PROPERTIES if is_property else tuple(sorted(OPERATIONS))
    if not isinstance(op, str) or op not in known:
        raise f.error((*key, kind), f"unknown {'property' if is_property else 'operation'} {op!r}"
                                    f"{did_you_mean(op, known)}; known: {', '.join(known)}")
    return op, is_property


def _expect(raw: Mapping[str, object], f: _File, key: tuple[object, ...], verdicts: tuple[str, ...]) -> str:
    expect = raw.get("expect", verdicts[0])
    if expect not in verdicts:
        raise f.error((*key, "expect"), f"must be one of {', '.join(verdicts)}, got {expect!r}")
    return str(expect)


def _params(raw: Mapping[str, object], f: _File, key: tuple[object, ...]) -> tuple[tuple[str, int], ...]:
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise f.error((*key, "params"), "must be a table of symbol values, e.g. { M = 128 }")
    return tuple((p, _integer(f, (*key, "params", p), v)) for p, v in params.items())


def _property_options(raw: Mapping[str, object], f: _File, key: tuple[object, ...], op: str, is_property: bool
                      ) -> tuple[tuple[str, object], ...]:
    """The property's options the check gives (``bits``, ``element_bits`` ...), as its declaration states them
    (``engine.property``); an option of another property is an error."""
    from verifier.engine.property import DECLARED

    options: list[tuple[str, object]] = []
    for owner, o in _options():
        if o.name in raw:
            if op != owner or not o.admits(raw[o.name]):
                raise f.error((*key, o.name), f'{o.name} = {o.form} belongs to property = "{owner}" only')
            options.append((o.name, raw[o.name]))
    needed = [o.name for o in DECLARED[op].options if o.required] if is_property else []
    if needed and not set(needed) <= set(raw):
        raise f.error(key, f'property = "{op}" needs {" and ".join(needed)}')
    return tuple(options)


def _description(raw: Mapping[str, object], f: _File, key: tuple[object, ...]) -> str | None:
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise f.error((*key, "description"), "must be a string")
    return description


def _cpp_check(raw: Mapping[str, object], f: _File, key: tuple[object, ...], name: str,
               defaults: _Limits) -> Check:
    """``cpp = "kernel.cu::layouts"`` (relative to the spec file) with ``args = ["M=1..4096", ...]`` (the
    function's parameter ranges, as ``cute-verify cpp --arg``) and ``assume``: the whole function verified
    (``oracle/cpp.py``); its verdict is valid only when every finding is."""
    from verifier.run import cpp

    for k in ("op", "property", "params", *(o.name for _, o in _options()), "semantics"):
        if k in raw:
            raise f.error((*key, k), f"{k} does not belong to a cpp check (its function states what it checks)")
    target = raw["cpp"]
    if not isinstance(target, str) or "::" not in target:
        raise f.error((*key, "cpp"), 'expected "FILE.cpp::FUNCTION" (the file relative to this spec file)')
    file, _, fn = target.rpartition("::")
    path = Path(file) if Path(file).is_absolute() else Path(f.path).parent / file
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise f.error((*key, "args"), 'a cpp check\'s args are its parameters\' ranges, e.g. ["M=1..4096"]')
    assume = _strings(f, (*key, "assume"), raw.get("assume", []))
    expect = _expect(raw, f, key, OP_VERDICTS)
    timeout = _timeout(f, (*key, "timeout"), raw["timeout"]) if "timeout" in raw else defaults[0]
    try:
        found, function = cpp.parse_target(f"{path}::{fn}")
        cpp.declare(cpp.find_function(found, function), cpp.parse_ranges(args), assume)
    except LayoutError as exc:
        raise f.error((*key, "cpp"), str(exc)) from None
    return Check(name, "cpp", False, tuple(args), expect, timeout, f.shown, f.line(key), tuple(assume),
                 description=_description(raw, f, key), cpp=f"{found}::{function}")


def _blame(key: tuple[object, ...], raw: Mapping[str, object], message: str) -> tuple[object, ...]:
    """The key an error of ``Check.problem`` comes from, read off its message."""
    m = re.match(r"argument (\d+) ", message)
    if m:
        return (*key, "args", int(m.group(1)) - 1)
    if message.startswith("assume ") and "assume" in raw:
        return (*key, "assume")
    if message.startswith(("--param", "values ", "with ")) and "params" in raw:
        return (*key, "params")
    return (*key, "args")


# -- deciding: a check is a problem of its own kind (engine/problem.py) -----------------------------------------


def _decide_check(check: Check) -> Verdict:
    return decide(check.engine_problem())


def _decide_assumptions(problem: CheckAssumptions) -> Verdict:
    return decide(Admits(problem.check.problem()[1]))


register("spec", _decide_check)
register("spec_assumptions", _decide_assumptions)
