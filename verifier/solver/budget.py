"""What a verdict may spend: Z3 resource units, and a wall-clock safety net.

A verdict must not depend on the machine's load, so the solver's budget is counted in Z3's resource units
(``rlimit``: a deterministic count of the solver's elementary steps), never in seconds: the same problem gets the
same verdict on an idle and on an oversubscribed machine.  The wall clock is only a safety net (``--timeout``) for
a run that would otherwise hang; when it fires, the reason says so, and that verdict (``unknown``) did depend on
the load.  Unless the user sets it, the net is a hang guard scaled to the budget (``hang_guard``): the time the
budget would take at a hundredth of the rate this project's queries run at, so that it never decides what the
budget would have decided, even on a machine loaded many times over (tests/engine/test_load.py runs at 8x).

A ``Budget`` is shared by everything one verdict decides: ``part`` hands a bounded share to a sub-task (a guard
search, one obligation), and what the share spends is spent from its parent too.
"""

from __future__ import annotations

import time

NET = "wall-clock safety net"
# Z3 resource units per nominal second: the order of the rate measured on this project's corpora on a 2-core EPYC
# (0.3e6 to 2e6 units/s across the queries of oracle/data/parametric_cases.json and proofs/, median about 1e6).  It
# converts the former budgets in seconds into units; no verdict depends on it being accurate.
UNITS_PER_SECOND = 1_000_000
# One verdict's default budget, the former default of 10 s.  The most any query of the corpora and proofs/ needs to
# be decided is 2.9e6 units (docs/benchmarks.md), so every one keeps its verdict.
DEFAULT_RLIMIT = 10 * UNITS_PER_SECOND
# The rate, in units per second, below which the hang guard fires: a hundredth of the nominal rate and a thirtieth of
# the slowest rate measured on an idle core (0.3e6 units/s), so the default budget's guard is 1,000 s.  The wall
# clock counts the work outside the solver too (replays, enumerations), which the budget bounds only loosely: the
# margin covers it.
NET_RATE = UNITS_PER_SECOND // 100
# The shortest hang guard, for small budgets: a run that needs more than this is not a small problem.
MIN_NET = 600.0
# The wall-clock safety net when none is given: the hang guard of the budget (None means "scaled", hang_guard).
DEFAULT_TIMEOUT: float | None = None
# The largest --timeout / spec timeout accepted, in seconds (input validation: a finite, sane safety net).
MAX_TIMEOUT = 1e6


def hang_guard(rlimit: int) -> float:
    """The wall-clock safety net of a budget of ``rlimit`` units when the user sets none, in seconds."""
    return max(MIN_NET, rlimit / NET_RATE)


class Budget:
    """Resource units still to spend, and the wall-clock deadline of the safety net (``timeout`` seconds; None:
    ``hang_guard`` of the units)."""

    def __init__(self, rlimit: int | None = None, timeout: float | None = DEFAULT_TIMEOUT,
                 parent: Budget | None = None) -> None:
        self.rlimit = DEFAULT_RLIMIT if rlimit is None else max(0, int(rlimit))
        timeout = hang_guard(self.rlimit) if timeout is None else timeout
        self.timeout = timeout
        self.spent = 0
        self.parent = parent
        self.deadline: float = parent.deadline if parent is not None else time.monotonic() + timeout
        self.root_timeout: float = parent.root_timeout if parent is not None else timeout

    def part(self, units: float) -> Budget:
        """A share of at most ``units`` of what is left; spending it spends this budget too."""
        return Budget(min(self.left(), max(0, int(units))), self.timeout, parent=self)

    def left(self) -> int:
        """Units still to spend (0 once the safety net fired)."""
        if self.net_fired():
            return 0
        own = self.rlimit - self.spent
        return max(0, min(own, self.parent.left()) if self.parent is not None else own)

    def spend(self, units: int) -> None:
        self.spent += units
        if self.parent is not None:
            self.parent.spend(units)

    def net_fired(self) -> bool:
        return time.monotonic() >= self.deadline

    def net_seconds(self) -> float:
        """The safety net to give one solver call: the whole net, a constant.  Z3's search depends on the value of
        its ``timeout`` parameter (its combined solver picks a strategy by it), so the time left, which varies with
        the load, would make the answer vary too; a call that outlives the deadline ends the verdict after it."""
        return self.root_timeout

    def why_stopped(self) -> str:
        """Why work stopped for want of budget: the safety net, or the resource units."""
        if self.net_fired():
            return (f"the {NET} fired after {self.root_timeout:g} s (--timeout): the wall clock, not the resource "
                    "budget, stopped this verdict, which depends on the machine's load")
        return f"the solver's resource budget is spent ({self.rlimit:,} Z3 resource units; raise it with --rlimit)"


def net_fired(verdict: object) -> bool:
    """The safety net stopped some of this verdict's work: it depended on the machine's load."""
    reasons = [getattr(verdict, "reason", None)] + [o.reason for o in getattr(verdict, "obligations", ())]
    return any(r is not None and NET in r for r in reasons)
