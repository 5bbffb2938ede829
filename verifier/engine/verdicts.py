"""Verdicts and counterexamples: the engine's answers, as plain immutable data.

An operation is ``valid`` (its result is correct and free of division by zero for every value the assumptions
allow), ``invalid`` (with a counterexample that was replayed concretely) or ``unknown`` (with the reason).  A check
(``injective``, ``bijective`` ...) is ``proved``, ``refuted`` or ``unknown`` in the same way.  Each obligation has
its own status.  ``report.py`` is the one place that renders these for people and for machines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verifier.core.errors import LayoutError
from verifier.core.obligations import ERROR, KNOWN, WARNING, severity

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
VALID, INVALID = "valid", "invalid"


@dataclass(frozen=True)
class Counterexample:
    """Values of the symbols (and the coordinate) at which a claim fails, confirmed by concrete evaluation."""

    params: Mapping[str, int]
    obligation: str
    coordinate: int | tuple[int, ...] | None = None
    expected: int | None = None
    actual: int | None = None
    note: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"params": dict(self.params), "coordinate": self.coordinate, "expected": self.expected,
                "actual": self.actual, "obligation": self.obligation, "note": self.note}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Counterexample:
        coord = obj.get("coordinate")
        return Counterexample(dict(obj["params"]), obj["obligation"],
                              tuple(coord) if isinstance(coord, list) else coord,
                              obj.get("expected"), obj.get("actual"), obj.get("note"))


@dataclass(frozen=True)
class ObligationVerdict:
    """One obligation or claim and what the engine decided about it."""

    id: str
    description: str
    source: str
    cute_checks: str
    condition: str
    status: str
    deciding: bool
    counterexample: Counterexample | None = None
    reason: str | None = None
    route: str | None = None  # the engine's route that decided it (engine.FULL / engine.BOUNDED), if one did
    severity: str = ERROR  # obligations.ERROR / WARNING; "ignored" when --select / --ignore leave it out

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "severity": self.severity, "source": self.source, "description": self.description,
                "cute_checks": self.cute_checks, "status": self.status, "condition": self.condition,
                "deciding": self.deciding,
                "counterexample": self.counterexample.to_json() if self.counterexample else None,
                "reason": self.reason}

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> ObligationVerdict:
        cex = obj.get("counterexample")
        return ObligationVerdict(obj["id"], obj["description"], obj["source"], obj["cute_checks"],
                                 obj["condition"], obj["status"], obj["deciding"],
                                 Counterexample.from_json(cex) if cex else None, obj.get("reason"),
                                 None, str(obj.get("severity", ERROR)))


@dataclass(frozen=True)
class Guard:
    """A validity condition over the symbols, and whether it is also necessary."""

    condition: str
    necessary: str  # proved / refuted / unknown
    cpp: str
    python: str
    necessity_witness: Mapping[str, int] | None = None
    covers: tuple[str, ...] = ()  # the failing obligations (errors and warnings) under which it was proved


@dataclass(frozen=True)
class Verdict:
    """The answer to one operation or check."""

    op: str
    inputs: tuple[str, ...]
    verdict: str
    result: str | None = None
    obligations: tuple[ObligationVerdict, ...] = ()
    counterexample: Counterexample | None = None
    reason: str | None = None
    guard: Guard | None = None
    assumptions: tuple[str, ...] = field(default=())
    guard_note: str | None = None  # why no guard is shown (the search did not finish, or found none)
    # What a front end shows beyond the verdict, from the decision itself (``bank_conflicts``' phases, a
    # canonical-layout check's descriptor fields); not part of the verdict's value nor of its JSON (the cache's).
    detail: object = field(default=None, compare=False, repr=False)

    @property
    def exit_code(self) -> int:
        return {VALID: 0, PROVED: 0, INVALID: 1, REFUTED: 1}.get(self.verdict, 3)

    @property
    def warnings(self) -> tuple[ObligationVerdict, ...]:
        """The warnings that fail (with their counterexamples); a ``valid`` verdict may have some."""
        return tuple(o for o in self.obligations if o.severity == WARNING and o.status == REFUTED and o.deciding)

    def to_json(self) -> dict[str, object]:
        return {
            "op": self.op, "inputs": list(self.inputs), "assumptions": list(self.assumptions),
            "result": self.result, "verdict": self.verdict, "reason": self.reason,
            "obligations": [o.to_json() for o in self.obligations],
            "counterexample": self.counterexample.to_json() if self.counterexample else None,
            "condition": self.guard.condition if self.guard else None,
            "condition_is_necessary": self.guard.necessary if self.guard else None,
            "guard_cpp": self.guard.cpp if self.guard else None,
            "guard_python": self.guard.python if self.guard else None,
            "necessity_witness": dict(self.guard.necessity_witness) if self.guard and self.guard.necessity_witness
            else None,
            "condition_covers": list(self.guard.covers) if self.guard else None,
            "guard_note": self.guard_note,
            "warnings": [o.id for o in self.warnings],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Verdict:
        """The inverse of ``to_json`` (the result cache stores verdicts as JSON)."""
        cex = obj.get("counterexample")
        guard = None
        if obj.get("condition") is not None:
            witness = obj.get("necessity_witness")
            guard = Guard(obj["condition"], obj["condition_is_necessary"], obj["guard_cpp"],
                          obj["guard_python"], dict(witness) if witness else None,
                          tuple(obj.get("condition_covers") or ()))
        return Verdict(obj["op"], tuple(obj["inputs"]), obj["verdict"], obj.get("result"),
                       tuple(ObligationVerdict.from_json(o) for o in obj["obligations"]),
                       Counterexample.from_json(cex) if cex else None, obj.get("reason"), guard,
                       tuple(obj.get("assumptions", ())), obj.get("guard_note"))


@dataclass(frozen=True)
class Policy:
    """Which obligations count, as ruff selects rules: ``select`` (default: all) less ``ignore``, by ID or by an
    ID's prefix up to a dash (``CPL-POST`` selects ``CPL-POST-BOUND``); ``strict`` makes warnings errors."""

    strict: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for rule in (*self.select, *self.ignore):
            if not any(_matches(k, rule) for k in KNOWN):
                raise LayoutError(f"unknown obligation {rule!r} in --select / --ignore; the IDs are listed in "
                                  "docs/semantics.md, Severities")

    def counts(self, id: str) -> bool:
        chosen = not self.select or any(_matches(id, r) for r in self.select)
        return chosen and not any(_matches(id, r) for r in self.ignore)

    def settles(self, id: str) -> bool:
        """A failure of ``id`` makes the verdict ``invalid`` / ``refuted``."""
        return self.counts(id) and (self.strict or severity(id) == ERROR)

    def severity(self, id: str) -> str:
        return severity(id) if self.counts(id) else "ignored"

    @staticmethod
    def parse(strict: bool = False, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> Policy:
        """From the command line's comma-separated lists."""
        return Policy(strict, _split(select), _split(ignore))


def _split(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(r.strip() for x in items for r in x.split(",") if r.strip())


def _matches(id: str, rule: str) -> bool:
    return id == rule or id.startswith(rule + "-")


DEFAULT_POLICY = Policy()
