"""Can the engine solve in one Z3 context per verdict instead of one per query, with each query's budget kept?
(issue 27 point 3, issue 28 point 1; docs/benchmarks.md section 8 gives the answer measured here.)

    python bench/shared_context.py [N]      # the first N cases of the parametric corpus (default all)

Every query the engine sends to ``solve`` while deciding the parametric corpus (``verify`` with its defaults, guard
search included) is answered as the engine does (a fresh context per query) and then twice more, in one context
created for the verdict: (A) a fresh solver per query there, (B) one solver for the verdict with push/pop.  Each
gets the same seeds and the same per-check ``rlimit``, which Z3 counts from the solver's count at the check, so a
query's limit is its own whatever ran before it in the context.  Printed: how many queries spend the same units and
how many get another answer; an answer that differs changes a verdict, a counterexample or a guard.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv: list[str]) -> int:
    import z3

    import verifier.engine.decide as decide_module
    import verifier.engine.guards as guards_module
    import verifier.solver.solve as solve_module
    from verifier.engine.verify import verify
    from verifier.oracle.corpora import PARAMETRIC_CORPUS, problem
    from verifier.solver.budget import Budget

    corpus = json.loads(PARAMETRIC_CORPUS.read_text())
    if argv:
        corpus = corpus[:int(argv[0])]
    fresh = solve_module.solve
    state: dict[str, Any] = {}
    rows: list[tuple[Any, ...]] = []

    def measured(constraints: Sequence[z3.BoolRef], budget: Budget) -> tuple[str, z3.ModelRef | None, str]:
        left, before = budget.left(), budget.spent
        answer = fresh(constraints, budget)
        spent = budget.spent - before
        if left < 1000 or not constraints:
            return answer
        ctx = state["ctx"]
        cs = [c.translate(ctx) for c in constraints]
        slices = ([(0, left)] if left < solve_module.PORTFOLIO_MIN
                  else [(0, 0.15 * left), (1, 0.15 * left), (2, 0.7 * left)])

        def run(make: Callable[[], tuple[z3.Solver, Callable[[z3.Solver], None]]]) -> tuple[str, int]:
            used = 0
            for seed, share in slices:
                s, done = make()
                s.add(*cs)
                s.set("random_seed", seed)
                start = solve_module.rlimit_count(s)
                r = solve_module.check_sat(s, 600, rlimit=int(share))
                used += max(0, solve_module.rlimit_count(s) - start)
                done(s)
                if r == z3.sat:
                    return "sat", used
                if r == z3.unsat:
                    return "unsat", used
            return "unknown", used

        def pushed() -> tuple[z3.Solver, Callable[[z3.Solver], None]]:
            s = state["solver"]
            s.push()
            return s, lambda s: s.pop()

        a = run(lambda: (z3.SimpleSolver(ctx=ctx), lambda s: None))
        b = run(pushed)
        rows.append((state["id"], answer[0], spent, *a, *b))
        return answer

    for module in (solve_module, decide_module, guards_module):
        module.solve = measured  # type: ignore[attr-defined]
    for e in corpus:
        state["id"], state["ctx"] = e["id"], solve_module.new_context()
        state["solver"] = z3.SimpleSolver(ctx=state["ctx"])
        op, args, sy = problem(e)
        verify(op, args, sy)
    print(f"{len(rows)} queries of {len(corpus)} verdicts")
    for label, answer_at, units_at in (("A (a solver per query)", 3, 4), ("B (push/pop)", 5, 6)):
        same = sum(1 for r in rows if r[units_at] == r[2])
        near = sum(1 for r in rows if r[2] > 0 and abs(r[units_at] - r[2]) <= 0.1 * r[2])
        ratios = [r[units_at] / r[2] for r in rows if r[2] > 0]
        differ = [r for r in rows if r[answer_at] != r[1]]
        print(f"{label}: units equal in {same}, within 10% in {near}; units ratio median "
              f"{statistics.median(ratios):.2f}, {min(ratios):.2f} to {max(ratios):.2f}; answers differ in "
              f"{len(differ)} queries of {len({r[0] for r in differ})} verdicts")
        for r in differ:
            print(f"    {r[0]}: {r[1]} in {r[2]:,} units fresh, {r[answer_at]} in {r[units_at]:,} units shared")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
