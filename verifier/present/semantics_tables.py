"""The tables of ``docs/semantics.md`` that the declarations state: one row per documented form of each operation
(``Operation.docs``, ``algebra.declare``) and one per property of ``cute-verify check`` (``engine.property``).

``python -m verifier.present.semantics_tables`` rewrites them in place between their markers; ``--check`` exits 1
when the file differs from what the declarations give (``tests/project/test_registry.py`` runs it), so a table
edited by hand, or a declaration changed without regenerating, fails the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "semantics.md"
BEGIN = "<!-- generated from the declarations (python -m verifier.present.semantics_tables): {} -->"
END = "<!-- end of the generated {} -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def operations() -> list[str]:
    from verifier.algebra.registry import REGISTRY

    out = ["| operation | postcondition | obligations recorded now |", "|---|---|---|"]
    for row in REGISTRY.values():
        out += ["| " + " | ".join(_cell(c) for c in cells) + " |" for cells in row.docs]
    return out


def properties() -> list[str]:
    from verifier.engine.checks import PROPERTIES
    from verifier.engine.property import DECLARED

    out = ["| property | operands | what it states | obligations (severity) | options |", "|---|---|---|---|---|"]
    for name in PROPERTIES:
        p = DECLARED[name]
        ids = ", ".join(f"{i} ({s})" for i, s in p.severities.items())
        options = "; ".join(f"`{o.name}` ({o.help.split(': ', 1)[-1]})" for o in p.options) or "none"
        out.append(f"| `{name}` | {' '.join(p.operands)} | {_cell(p.checks)} | {ids} | {_cell(options)} |")
    return out


TABLES = {"operations table": operations, "properties table": properties}


def render(text: str) -> str:
    """``text`` with each generated table replaced by what the declarations give (a missing marker: an error)."""
    for name, table in TABLES.items():
        begin, end = BEGIN.format(name), END.format(name)
        if text.count(begin) != 1 or text.count(end) != 1:
            raise ValueError(f"docs/semantics.md needs one {begin!r} and one {end!r}")
        head, rest = text.split(begin)
        _, tail = rest.split(end)
        text = "\n".join([head + begin, *table(), end + tail])
    return text


def main(argv: list[str]) -> int:
    text = DOCS.read_text()
    new = render(text)
    if "--check" in argv:
        if new != text:
            print("docs/semantics.md: the generated tables differ from the declarations; run "
                  "python -m verifier.present.semantics_tables", file=sys.stderr)
            return 1
        return 0
    if new != text:
        DOCS.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
