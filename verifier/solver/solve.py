"""The one way the package runs Z3: ``solve`` (a fresh solver per seed of a small portfolio, within a ``Budget``
of resource units and the wall-clock safety net) and ``check_sat`` (one solver, with Ctrl-C handled as ours).

The engine, the guard search, the property checks, the domain check and the spec loader all come through here;
they hold Z3 terms only as the opaque values the encoder (``solver.encoding``) returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

from verifier.solver.budget import UNITS_PER_SECOND, Budget
from verifier.solver.interrupt import interrupted

if TYPE_CHECKING:
    import z3

    Formula: TypeAlias = z3.BoolRef
    Model: TypeAlias = z3.ModelRef
    Context: TypeAlias = z3.Context


# Under this many units a query is one run; above, it is the seed portfolio of ``solve``.
PORTFOLIO_MIN = UNITS_PER_SECOND


# Z3's strategies read the process's whole Z3 allocation (the "memory" probe: QF_BV's skips its bit-level
# simplification past 300 MB, QF_NRA's picks a solver by it), so an answer could depend on what the process did
# before (a verdict flipped from proved to unknown in a long test process).  Most of that allocation is dead
# contexts held by Python reference cycles: once it has grown this many megabytes past what the last collection
# left, they are collected before a check, so the probe reads about what a fresh process's would.  (Measured from
# what is left, not from zero: a process that keeps Z3 objects alive would otherwise collect before every check.)
MEMORY_MB = 64
_left = [0.0]  # Z3's allocation, in megabytes, right after the last collection


def settle_memory(ctx: z3.Context) -> None:
    """Collects dead Z3 contexts when the process's Z3 allocation has grown ``MEMORY_MB`` since the last
    collection, before a solver check."""
    import gc

    import z3

    probe = z3.Probe("memory", ctx)
    if probe(z3.Goal(ctx=ctx)) > _left[0] + MEMORY_MB:
        gc.collect()
        _left[0] = probe(z3.Goal(ctx=ctx))


def check_sat(s: z3.Solver, seconds: float, rlimit: int | None = None) -> z3.CheckSatResult:
    """``s.check()`` within ``rlimit`` Z3 resource units (if given) and the wall-clock safety net of ``seconds``.
    Z3 would catch Ctrl-C itself and answer unknown, which turned an interrupt into an ``unknown`` verdict and let
    the run go on (``new_context`` turns that off); an interrupted call raises ``KeyboardInterrupt``."""
    import z3

    s.set("timeout", max(1, int(seconds * 1000)))
    if rlimit is not None:
        s.set("rlimit", max(1, int(rlimit)))
    settle_memory(s.ctx)
    r = s.check()
    if r == z3.unknown and (interrupted() or s.reason_unknown() == "interrupted from keyboard"):
        raise KeyboardInterrupt
    return r


def rlimit_count(s: z3.Solver) -> int:
    st = s.statistics()
    return int(st.get_key_value("rlimit count")) if "rlimit count" in st.keys() else 0


def solve(constraints: Sequence[z3.BoolRef], budget: Budget) -> tuple[str, z3.ModelRef | None, str]:
    """Z3 on ``constraints`` within ``budget``'s resource units (and its wall-clock safety net).  On nonlinear
    problems Z3's work varies by orders of magnitude with its random seed (0.04 s to 6 s on one of proofs/'
    theorems), so a budget of a nominal second or more is spent as two short runs under other seeds, then one long
    run.

    Z3's search also depends on the history of the context it runs in: the identifiers of the terms created there
    before, and how many references each term has (its rewriter caches only shared terms), which a process's earlier
    work changes (``tests/engine/test_load.py`` found a guard that changed with the verdicts decided before it).  So
    each query is solved in a new context of its own, into which the constraints are translated: there the terms
    are numbered by the query alone, and the answer is a function of the query.  The model comes back in the
    constraints' context."""
    import z3

    units = budget.left()
    if units < 1000:
        return "unknown", None, budget.why_stopped()
    origin = constraints[0].ctx if constraints else None
    ctx = new_context()
    constraints = [c.translate(ctx) for c in constraints]
    slices = [(0, units)] if units < PORTFOLIO_MIN else [(0, 0.15 * units), (1, 0.15 * units), (2, 0.7 * units)]
    why = ""
    for seed, share in slices:
        # Z3's SMT core itself, not the default strategic solver: for these quantifier-free nonlinear queries that
        # one runs the qfnia tactic, whose first SMT attempt is cut after 2 s of wall clock (try_for) before it
        # falls back to nlsat, so its answer depended on the machine's load; and on the queries of
        # tests/engine/test_load.py it was both slower and, run after run, not even repeatable.
        s = z3.SimpleSolver(ctx=ctx)  # a fresh search: the seed takes effect
        s.add(*constraints)
        s.set("random_seed", seed)
        before = rlimit_count(s)
        r = check_sat(s, budget.net_seconds(), rlimit=int(share))
        budget.spend(max(0, rlimit_count(s) - before))
        if r == z3.sat:
            return "sat", s.model().translate(origin) if origin is not None else s.model(), ""
        if r == z3.unsat:
            return "unsat", None, ""
        why = s.reason_unknown()
        if budget.net_fired():
            return "unknown", None, budget.why_stopped()
    if why in ("timeout", "canceled", "max. resource limit exceeded"):
        return "unknown", None, f"the solver gave up: it spent its {units:,} resource units"
    return "unknown", None, f"the solver gave up: {why}"


_CTRL_C_OFF = False


def new_context() -> Context:
    """A Z3 context of its own, for one encoder's terms (``solve``).  Every context is made after Z3's own Ctrl-C
    handling is turned off (SIGINT is ours, interrupt.py), so that all of them run with the same parameters."""
    import z3

    global _CTRL_C_OFF
    if not _CTRL_C_OFF:
        z3.set_param("ctrl_c", False)
        keep_freed_memory()
        _CTRL_C_OFF = True
    return z3.Context()


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def keep_freed_memory() -> bool:
    """Let the C allocator keep what a deleted Z3 context frees, for the next context.  A context allocates about
    16 MB and frees it when deleted; glibc gives that back to the system where it lies at the top of the heap (or
    in a block of its own), and the next context, a query later, faults it in again page by page: 739,000 page
    faults and a second of system time for the 180 contexts of ``cute-verify local_tile (M,N):(_1,M) <_128,_64>
    (1,1)``, 0.5 s -> 1.6 s once the Python side allocated less (issue 28).  Memory only: no answer depends on it
    (Z3's memory probe counts its own allocations, solve.settle_memory).  False where the C library is not glibc."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    # up to 256 MB kept at the top of the heap; blocks up to 32 MB (glibc's most) from the heap, not mmap
    return bool(mallopt(_M_TRIM_THRESHOLD, 256 << 20)) and bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20))


def negate(f: Formula) -> Formula:
    import z3

    return z3.Not(f)
