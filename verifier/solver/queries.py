"""Quantified queries that the linear encoding of claims cannot state: each builds its Z3 formula here and
returns plain values, so that no other layer touches Z3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from verifier.core.integers import Int
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
