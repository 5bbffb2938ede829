"""The solver queries of the symbolic back end (``oracle/symbolic.py``, ``oracle/selfcheck.py``): which decisions
of a path can flip, and whether two results are the same integer function on a path.

Both are one ``solve`` on conditions over the symbols, under the table's assumptions and with every divisor of
the conditions nonzero: a path of compiled CuTe that divides by zero has already broken an obligation, and Z3's
value of ``x/0`` is arbitrary, so no answer may rest on it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

from verifier.core.integers import Bool, not_
from verifier.core.symbols import Symbols
from verifier.solver.budget import Budget
from verifier.solver.encoding import Encoder, Unencodable
from verifier.solver.solve import solve

# The definite answers of ``satisfy`` (sat with its values, or unsat) by query, with the units each spent, least
# recently used first.  ``solve`` answers a query in a Z3 context of its own, so its answer is a function of the
# query (the symbols' declarations and relations, the conditions, ``defined``) and of the units it may spend; the
# symbolic back end asks the same queries again and again (every CUTLASS kernel's can_implement takes the same
# alignment decisions: issue 30's sweep asks each of them once per key).  An unknown is never kept: it may be the
# wall-clock safety net's.
_ANSWERS: OrderedDict[Hashable, tuple[str, dict[str, int] | None, int]] = OrderedDict()
ANSWERS_MAX = 8192


def _query(symbols: Symbols, conditions: Sequence[Bool], units: int, defined: bool) -> Hashable:
    return (tuple(symbols.table.items()), tuple((r.expr, r.static) for r in symbols.relations), symbols.strict,
            tuple((c.expr, c.static) for c in conditions), units, defined)


def satisfy(symbols: Symbols, conditions: Sequence[Bool], budget: Budget,
            defined: bool = True) -> tuple[str, dict[str, int] | None, str]:
    """Values of every symbol of ``symbols`` that its assumptions and all ``conditions`` admit: ``("sat", values,
    "")``, ``("unsat", None, "")`` or ``("unknown", None, why)``.  ``defined``: the divisors of the conditions
    are nonzero.  A query asked before (``_ANSWERS``) is answered as it was, spending the units it spent then."""
    query = _query(symbols, conditions, budget.left(), defined)
    kept = _ANSWERS.get(query)
    if kept is not None:
        _ANSWERS.move_to_end(query)
        budget.spend(kept[2])
        return kept[0], None if kept[1] is None else dict(kept[1]), ""
    spent = budget.spent
    status, values, why = _satisfy(symbols, conditions, budget, defined)
    if status in ("sat", "unsat"):
        _ANSWERS[query] = (status, None if values is None else dict(values), budget.spent - spent)
        if len(_ANSWERS) > ANSWERS_MAX:
            _ANSWERS.popitem(last=False)
    return status, values, why


def _satisfy(symbols: Symbols, conditions: Sequence[Bool], budget: Budget,
             defined: bool) -> tuple[str, dict[str, int] | None, str]:
    enc = Encoder(symbols)
    try:
        formulas = [enc.boolean(c) for c in conditions]
        if defined:
            formulas += [enc.nonzero(d) for d in enc.divisors]
    except Unencodable as exc:
        return "unknown", None, f"not encodable: {exc}"
    status, model, why = solve([*enc.assumptions(), *formulas], budget)  # a context of its own (solve)
    if status != "sat" or model is None:
        return status, None, why
    return "sat", enc.model_values(model, [s.name for s in symbols]), ""


def prove(symbols: Symbols, hypotheses: Sequence[Bool], goal: Bool,
          budget: Budget) -> tuple[str, dict[str, int] | None, str]:
    """``goal`` under the assumptions and ``hypotheses`` (their divisors and the goal's nonzero): ``("proved",
    None, "")``, ``("refuted", candidate values, "")`` (a candidate: the caller replays it) or ``("unknown",
    None, why)``."""
    status, values, why = satisfy(symbols, [*hypotheses, not_(goal)], budget)
    if status == "unsat":
        return "proved", None, ""
    if status == "sat":
        return "refuted", values, ""
    return "unknown", None, why
