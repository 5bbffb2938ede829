"""Realistic problem sizes, for tests about something other than integer overflow.

With no bound, a run-time extent ranges up to ``2^31 - 1``, where CuTe's own arithmetic overflows ``int``
(``ceil_div(M, _128)`` computes ``M + 127``): an error of its own (OVF-ARITH / OVF-RESULT), which
``tests/differential/test_overflow.py`` covers.  Tests about tiling, partitioning or swizzles bound every problem
size so that their verdicts speak of what they test: ``2^14`` per extent keeps a 2-D tile's offsets
(``m*128*M``, ``k*32*K``) inside ``int``.
"""

from __future__ import annotations

from verifier.core.symbols import Symbols
from verifier.run.problems import assume as _assume

LIMIT = 1 << 14


def bounded(names: list[str] | tuple[str, ...], limit: int = LIMIT) -> tuple[str, ...]:
    """``X <= limit`` for each name, as assumption texts."""
    return tuple(f"{n} <= {limit}" for n in names)


def bound_all(symbols: Symbols, limit: int = LIMIT) -> None:
    """Assume ``X <= limit`` for every named symbol of the table whose range reaches past it."""
    _assume(symbols, [f"{s.name} <= {limit}" for s in symbols
                      if not s.name.startswith("?") and (s.hi is None or s.hi > limit)])
