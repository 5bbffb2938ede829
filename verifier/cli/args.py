"""Argument values shared by every ``cute-verify`` command: one parser per kind of value, so that ``--timeout``,
``--param`` and the integers in them mean the same thing and are refused with the same one-line message on every
command.

Integers are CuTe's: anything beyond int64 is bad input (a 4,301-digit literal is refused before Python converts
it).  A timeout is a finite, positive number of seconds, at most ``MAX_TIMEOUT`` (Z3 takes an unsigned 32-bit
number of milliseconds).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Sequence

from verifier.core.errors import LayoutError, shorten
from verifier.solver.budget import MAX_TIMEOUT

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_INTEGER = re.compile(r"-?[0-9]+")
_PARAM = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)=(.*)$")
_DSL_PARAM = re.compile(r"^([A-Za-z][A-Za-z0-9_]*|\?[0-9]+)=(.*)$")


class UsageError(LayoutError):
    """A malformed command line (exit status 2)."""


def int64(text: str, what: str) -> int:
    """The int64 written as ``text`` (decimal, optional ``-``), or a ``UsageError`` naming ``what``."""
    t = text.strip()
    if not _INTEGER.fullmatch(t):
        raise UsageError(f"{what}: expected an integer, got {shorten(text)!r}")
    if len(t.lstrip("-").lstrip("0")) > 19 or not INT64_MIN <= int(t) <= INT64_MAX:
        raise UsageError(f"{what}: {shorten(t)} does not fit in int64 (CuTe's widest integer)")
    return int(t)


def timeout_value(value: object, what: str = "--timeout") -> float:
    """A time budget: a finite, positive number of seconds, at most ``MAX_TIMEOUT``."""
    try:
        if not isinstance(value, (str, int, float)):
            raise TypeError(type(value).__name__)
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"{what}: expected a number of seconds, got {shorten(str(value))!r}") from None
    if isinstance(value, bool) or not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        raise UsageError(f"{what} must be a positive, finite number of seconds (at most {MAX_TIMEOUT:g}), "
                         f"got {shorten(str(value))}")
    return seconds


def timeout_arg(text: str) -> float:
    """argparse ``type=`` for ``--timeout``."""
    try:
        return timeout_value(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--timeout").lstrip(": ")) from None


def params(items: Sequence[str], anonymous: bool = False) -> dict[str, int]:
    """``--param NAME=VALUE`` (with ``anonymous``, also ``?K=VALUE`` for the K-th ``?`` of a DSL layout)."""
    pattern = _DSL_PARAM if anonymous else _PARAM
    out: dict[str, int] = {}
    for item in items:
        m = pattern.match(item.strip())
        if not m or not _INTEGER.fullmatch(m.group(2).strip()):
            example = "NAME=INTEGER or ?K=INTEGER (the K-th '?'), e.g. ?1=128" if anonymous else \
                "NAME=INTEGER, e.g. --param M=128"
            raise UsageError(f"--param {shorten(item)!r}: expected {example}")
        name = m.group(1)
        if name in out:
            raise UsageError(f"--param {name} is given twice")
        out[name] = int64(m.group(2), f"--param {name}")
    return out
