"""Quantified queries that the linear encoding of claims cannot state: each builds its Z3 formula here and
returns plain values, so that no other layer touches Z3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from verifier.core.integers import Bool, Int
from verifier.core.symbols import Symbols
from verifier.solver.budget import Budget
from verifier.solver.solve import check_sat, new_context, rlimit_count

if TYPE_CHECKING:
    from verifier.solver.encoding import Encoder
    from verifier.solver.solve import Formula


def missed_index(enc: Encoder, value: Int, size: Int, target: Int, budget: Budget
                 ) -> tuple[str, dict[str, int] | None, int | None, str]:
    """Is some ``k < target`` never reached by ``value`` (a term over ``#i``) for ``0 <= #i < size``?  ``("unsat",
    ...)`` when every index is reached; ``("sat", symbol values, k, "")`` with the missed index; ``("unknown", None,
    None, why)``.  The query is quantified over ``#i``, so it is decided by one solver run within ``budget``."""
    import z3

    k, i = z3.Int("#k", enc.ctx), enc.var("#i")
    missed = z3.ForAll([i], z3.Implies(z3.And(i >= 0, i < enc.term(size)), enc.term(value) != k))
    # Solved in a context of its own (as in solve): the encoder's context holds the terms of every other item.
    ctx = new_context()
    s = z3.Solver(ctx=ctx)
    s.add(*(c.translate(ctx) for c in [*enc.assumptions(), k >= 0, k < enc.term(target), missed]))
    before = rlimit_count(s)
    r = check_sat(s, budget.net_seconds(), rlimit=budget.left())
    budget.spend(max(0, rlimit_count(s) - before))
    if r == z3.unsat:
        return "unsat", None, None, ""
    if r == z3.sat:
        m = s.model().translate(enc.ctx)
        values = enc.model_values(m, {sym.name for sym in enc.symbols})
        return "sat", values, m.eval(k, model_completion=True).as_long(), ""
    return "unknown", None, None, s.reason_unknown()


def extends_at_a_corner(symbols: Symbols, inside: set[str], outside: set[str], theirs: Sequence[Bool]) -> bool:
    """A sufficient condition for ``extends_everywhere``, without the solver: one corner of the ``outside``
    symbols' ranges (each at its least or greatest admitted value) satisfies ``theirs`` for every value of the
    ``inside`` symbols' ranges, which the simplifier proves from their intervals and divisibilities (``ldA >= K``
    with ``ldA <= 8192`` at ``ldA = 8192``, for ``K <= 8192``: issue 28, the relations of a kernel's spec file).
    Each statement must be defined everywhere (no divisor that may be 0): the solver's query counts a relation
    that divides by zero as false.  False says nothing."""
    from itertools import product

    from verifier.core.integers import substitute_expr
    from verifier.core.symbols import Symbols as Table
    from verifier.solver.encoding import Encoder

    corners = []
    for name in sorted(outside):
        sym = symbols.table.get(name)
        if sym is None:
            return False
        low = -(-sym.lo // sym.multiple_of) * sym.multiple_of
        high = None if sym.hi is None else sym.hi // sym.multiple_of * sym.multiple_of
        if high is not None and high < low:
            return False
        corners.append([low] if high is None or high == low else [low, high])
    if len(corners) > 3:
        return False
    own = Table(strict=True)
    own.table = {n: symbols.table[n] for n in inside if n in symbols.table}
    for corner in product(*corners):
        values = dict(zip(sorted(outside), corner))
        enc = Encoder(own, {})
        try:
            if all(enc.simplifies_to_true(substitute_expr(b.expr, values)) for b in theirs) and not enc.divisors:
                return True
        except (ArithmeticError, KeyError):
            continue
    return False


def extends_everywhere(enc: Encoder, inside: set[str], mine: Sequence[Formula], outside: set[str],
                       theirs: Sequence[Formula], seconds: float, rlimit: int) -> bool:
    """Proved: every value of the ``inside`` symbols that their assumptions and ``mine`` allow extends to values of
    the ``outside`` symbols that satisfy their assumptions and ``theirs``."""
    import z3
    from z3.z3util import get_vars

    s = z3.Solver(ctx=enc.ctx)
    s.add(*enc.assumptions(inside), *mine,
          # A symbol assumed a multiple of m is encoded as m * q (Encoder.var): quantify over q.
          z3.ForAll([c for n in sorted(outside) for c in get_vars(enc.var(n))],
                    z3.Not(z3.And(*enc.assumptions(outside), *theirs, enc.ctx))))
    return bool(check_sat(s, seconds, rlimit=rlimit) == z3.unsat)
