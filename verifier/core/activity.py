"""What the engine is deciding now, for a status line (``run.status``): display only, never read by a decision."""

from __future__ import annotations

_now = ""


def doing(text: str) -> None:
    global _now
    _now = text


def now() -> str:
    return _now
