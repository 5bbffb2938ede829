"""What every ``cute-verify`` command shares, as ruff's and pytest's command lines do.

* ``-q/--quiet`` (verdict lines only) and ``-v/--verbose`` (every detail), ``--color auto|always|never``: colour on
  a terminal, never when ``NO_COLOR`` is set (https://no-color.org) unless ``--color always``.
* Defaults from ``[tool.cute-verify]`` in the nearest ``pyproject.toml`` (this folder or a parent), e.g.
  ``timeout = 5``, ``jobs = 2``, ``format = "sarif"``, ``color = "never"``, ``include-root = ["../common"]``; the
  command line overrides them.  A key no command takes, or a value of the wrong type, is an error (exit 2).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from verifier.core.errors import LayoutError, did_you_mean

COLORS = {"valid": "32", "proved": "32", "ok": "32", "agree": "32", "invalid": "31", "refuted": "31",
          "FAIL": "1;31", "mismatch": "31", "disagree": "1;31", "unknown": "33", "warning": "33", "error": "1;31"}
_LEADING = re.compile(r"^(\s*)(valid|proved|ok|agree|invalid|refuted|FAIL|mismatch|disagree|unknown|warning)\b", re.M)


def add_common(p: argparse.ArgumentParser) -> None:
    """The options every command takes."""
    g = p.add_argument_group("output")
    g.add_argument("-q", "--quiet", action="store_true", help="print the verdict lines only")
    g.add_argument("-v", "--verbose", action="store_true", help="print every detail")
    g.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the verdicts: auto (on a terminal, unless NO_COLOR is set), always, never")
    if not any(o in p._option_string_actions for o in ("-o", "--output")):
        # A command that writes no file of its own: its report goes to F (app.main captures standard output).
        g.add_argument("-o", "--output", dest="report_file", metavar="F",
                       help="write the report to F (atomically, whole or not at all) instead of standard output")


def use_color(choice: str, stream: object = None) -> bool:
    stream = stream if stream is not None else sys.stdout
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, enabled: bool) -> str:
    """``text`` with each line's leading verdict word coloured (ANSI), when ``enabled``."""
    if not enabled:
        return text
    return _LEADING.sub(lambda m: f"{m.group(1)}\x1b[{COLORS[m.group(2)]}m{m.group(2)}\x1b[0m", text)


# -- [tool.cute-verify] ---------------------------------------------------------------------------------------


def find_pyproject(start: Path | None = None) -> Path | None:
    d = (start or Path.cwd()).resolve()
    for folder in (d, *d.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_defaults(path: Path | None) -> dict[str, object]:
    """The ``[tool.cute-verify]`` table of ``path`` (empty without one); keys use ``-`` or ``_``."""
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"{path}: cannot read [tool.cute-verify]: {exc}") from None
    if not _may_configure(text):
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, published as tomli
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except ValueError as exc:
        raise LayoutError(f"{path}: cannot read [tool.cute-verify]: {exc}") from None
    table = data.get("tool", {}).get("cute-verify", {})
    if not isinstance(table, dict):
        raise LayoutError(f"{path}: [tool.cute-verify] must be a table")
    return {k.replace("-", "_"): v for k, v in table.items()}


def _may_configure(text: str) -> bool:
    """Whether ``text`` may define ``[tool.cute-verify]``: ``False`` only when every mention of ``cute-verify`` is
    in a comment or is a key holding a string (a console script, ``cute-verify = "verifier.cli:main"``) below a
    header of a table other than ``[tool]`` and ``[tool.*]``.  A string is never the table; so a misread header
    (a line of a multi-line value that looks like one) could at worst hide a ``[tool] cute-verify = "..."`` that
    would be reported as not a table.  It spares the TOML parser, a tenth of a command's start-up (issue 16), to
    the projects that do not configure us."""
    if "cute-verify" not in text:
        return False
    table = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            table = re.sub(r"[\s\"']", "", stripped.lstrip("[").split("]")[0])
        if "cute-verify" not in stripped or stripped.startswith("#"):
            continue
        if table is None or table == "tool" or table.startswith("tool.") or not _STRING_KEY.match(stripped):
            return True
    return False


_STRING_KEY = re.compile(r"""["']?cute-verify["']?\s*=\s*("[^"]*"|'[^']*')\s*(#.*)?$""")


def apply_defaults(parsers: Mapping[str, argparse.ArgumentParser], defaults: Mapping[str, object],
                   where: Path | None) -> None:
    """Set each default on every command that has that option (checked by the option's own type).  An option
    with choices (``format``: text, json, sarif, junit for ``run``, svg, png, latex for ``draw``) is set on the
    commands whose choices include the value; it is an error only when no command takes that value."""
    from verifier.cli.args import timeout_value

    known: set[str] = set()
    choices: dict[str, list[str]] = {}  # key -> every choice some command offers (for the message)
    taken: set[str] = set()  # keys whose value some command accepts
    for parser in parsers.values():
        actions = {a.dest: a for a in parser._actions}
        for key, value in defaults.items():
            action = actions.get(key)
            if action is None or key in ("args", "files", "paths", "layout", "target", "func"):
                continue
            known.add(key)
            if key == "timeout":
                value = timeout_value(value, f"{where}: [tool.cute-verify] timeout")
            elif action.choices is not None:
                offered = choices.setdefault(key, [])
                offered += [str(c) for c in action.choices if str(c) not in offered]
                if value not in action.choices:
                    continue
                taken.add(key)
            elif isinstance(action.default, list):
                if isinstance(value, str):
                    value = [value]
                if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
                    raise LayoutError(f"{where}: [tool.cute-verify] {key} must be a list of strings")
            elif isinstance(action.default, bool) and not isinstance(value, bool):
                raise LayoutError(f"{where}: [tool.cute-verify] {key} must be true or false")
            elif action.type is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise LayoutError(f"{where}: [tool.cute-verify] {key} must be an integer")
            parser.set_defaults(**{key: value})
    refused = sorted(set(choices) - taken)
    if refused:
        key = refused[0]
        raise LayoutError(f"{where}: [tool.cute-verify] {key.replace('_', '-')} must be one of "
                          f"{', '.join(choices[key])}, got {defaults[key]!r}")
    unknown = sorted(set(defaults) - known)
    if unknown:
        hint = did_you_mean(unknown[0], known).replace("_", "-")
        raise LayoutError(f"{where}: [tool.cute-verify] has an option no command takes: "
                          f"{unknown[0].replace('_', '-')}{hint}")
