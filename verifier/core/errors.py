"""Errors raised by the verifier.

Every error a user can provoke with bad input is a ``LayoutError`` (or its subclass ``LayoutSyntaxError``) whose
``str()`` is a single line naming the place and the problem; the command line prints that line and exits with
status 2. ``UndefinedBehavior`` is not a user error: it records that CuTe itself would divide by zero, and the
algebra reports it as a failed obligation rather than letting it escape.
"""

from __future__ import annotations

from collections.abc import Iterable


class LayoutError(ValueError):
    """Invalid input: a layout, tuple, symbol or value that CuTe (or this tool) cannot take."""


class LayoutSyntaxError(LayoutError):
    """Malformed CuTe notation. ``position`` is the 0-based character offset of the problem."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.text = text
        self.position = position
        self.problem = message
        super().__init__(f"column {position + 1}: {message}{_context(text, position)}")


def _context(text: str, position: int) -> str:
    if not text:
        return ""
    lo = max(0, position - 12)
    hi = min(len(text), position + 12)
    snippet = text[lo:hi].replace("\n", " ")
    return f" (near '{'...' if lo else ''}{snippet}{'...' if hi < len(text) else ''}')"


class UndefinedBehavior(ArithmeticError):
    """CuTe would perform an operation with undefined behaviour (a division by zero) for these values."""


class CuteRejection(LayoutError):
    """CuTe refuses these operands at compile time (a ``static_assert`` or an operand type it cannot take)."""

    def __init__(self, message: str, source: str) -> None:
        self.assertion = message
        self.source = source
        super().__init__(f"CuTe rejects this at compile time: \"{message}\" ({source})")


def shorten(text: str, limit: int = 40) -> str:
    """``text`` for an error message: one line, at most ``limit`` characters."""
    text = text.replace("\n", " ")
    return text if len(text) <= limit else f"{text[:limit - 3]}..."


def did_you_mean(word: object, known: Iterable[str]) -> str:
    """``" (did you mean 'X'?)"`` for the known name closest to a misspelled ``word`` (as ruff and git suggest), or
    ``""`` when none is close."""
    import difflib

    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    if not close and word.lower() != word:
        close = difflib.get_close_matches(word.lower(), list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
