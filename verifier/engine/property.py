"""The declaration of a property of ``cute-verify check``, written beside the function that states it:
``@declare_property(...)`` on its claim builder (``engine.checks``).  ``checks.check``, the command line (the
``check`` command, its options and its help), the spec loader (a check's option keys and their validation), the
operand check of ``run.problems`` and the table of ``docs/semantics.md`` read these declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])


@dataclass(frozen=True)
class Option:
    """An option of a property: the keyword of ``checks.check``, the key of a spec file's check and the command
    line's ``--name`` (``_`` as ``-``).  ``kind``: ``bool`` (a flag), ``int`` or ``str``; ``choices``: the values
    allowed (none: any of the kind); ``default``: the command line's default; ``required``: the property needs it;
    ``metavar``: its value on the command line; ``form``: how a spec file writes it in an error message."""

    name: str
    kind: type
    help: str
    choices: tuple[object, ...] = ()
    default: object = None
    required: bool = False
    metavar: str | None = None
    form: str = "N"

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def admits(self, value: object) -> bool:
        """A spec file's value for it is of its kind (and among its choices)."""
        ok = (isinstance(value, bool) if self.kind is bool
              else isinstance(value, self.kind) and not isinstance(value, bool))
        return ok and (not self.choices or value in self.choices)


@dataclass(frozen=True)
class Property:
    """One property.  ``fn``: its claim builder (``fn(*operands, **options) -> list[Claim]``), or the procedure
    that decides it where no single list of claims states it (``surjective``); ``operands``: the kinds of its
    operands (``algebra.declare``'s letters), whose ``L`` positions must be layouts; ``checks``: what it states
    (the docs' table and ``check --help``); ``ids``: the obligation ids it decides (their severities are the
    catalogue's, ``core.obligations``); ``options``: its options; ``builds_claims``: ``fn`` builds claims (else
    it is a procedure of its own, ``checks._decide``); ``cpp``: the kinds of the arguments of the C++ front end's
    ``cute_verify::expect_NAME(...)`` (``oracle/include/cute_verify.hpp``), those past the operands being the
    property's first options in order (None: it has no ``expect_NAME``)."""

    name: str
    fn: Callable[..., object]
    operands: tuple[str, ...]
    checks: str
    ids: tuple[str, ...]
    options: tuple[Option, ...] = ()
    builds_claims: bool = True
    cpp: tuple[str, ...] | None = None

    @property
    def layouts(self) -> tuple[int, ...]:
        return tuple(k for k, kind in enumerate(self.operands) if kind == "L")

    @property
    def severities(self) -> dict[str, str]:
        from verifier.core.obligations import severity

        return {i: severity(i) for i in self.ids}


# Every property, in declaration order (``engine.checks`` declares them).
DECLARED: dict[str, Property] = {}


def declare_property(name: str, operands: tuple[str, ...], checks: str, ids: tuple[str, ...],
                     options: tuple[Option, ...] = (), builds_claims: bool = True,
                     cpp: tuple[str, ...] | None = None) -> Callable[[F], F]:
    """Declare the decorated function as property ``name`` (``Property``); the function itself is unchanged."""
    def register(fn: F) -> F:
        if name in DECLARED and DECLARED[name].fn is not fn:
            raise ValueError(f"property {name!r} is declared twice")
        DECLARED[name] = Property(name, fn, operands, checks, ids, options, builds_claims, cpp)
        return fn

    return register


__all__ = ["DECLARED", "Option", "Property", "declare_property"]
