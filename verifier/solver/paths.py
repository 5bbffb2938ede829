"""The solver queries of the symbolic back end (``oracle/symbolic.py``, ``oracle/selfcheck.py``): which decisions
of a path can flip, and whether two results are the same integer function on a path.

Both are one ``solve`` on conditions over the symbols, under the table's assumptions and with every divisor of
the conditions nonzero: a path of compiled CuTe that divides by zero has already broken an obligation, and Z3's
value of ``x/0`` is arbitrary, so no answer may rest on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.core.integers import Bool, not_
from verifier.core.symbols import Symbols
from verifier.solver.budget import Budget
from verifier.solver.encoding import Encoder, Unencodable
from verifier.solver.solve import new_context, solve


def satisfy(symbols: Symbols, conditions: Sequence[Bool], budget: Budget,
            defined: bool = True) -> tuple[str, dict[str, int] | None, str]:
    """Values of every symbol of ``symbols`` that its assumptions and all ``conditions`` admit: ``("sat", values,
    "")``, ``("unsat", None, "")`` or ``("unknown", None, why)``.  ``defined``: the divisors of the conditions
    are nonzero."""
    enc = Encoder(symbols)
    try:
        formulas = [enc.boolean(c) for c in conditions]
        if defined:
            formulas += [enc.nonzero(d) for d in enc.divisors]
    except Unencodable as exc:
        return "unknown", None, f"not encodable: {exc}"
    status, model, why = solve([*enc.assumptions(), *formulas], budget, new_context())
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
