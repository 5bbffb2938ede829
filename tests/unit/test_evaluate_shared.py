"""``Expr.evaluate`` evaluates each distinct subexpression once per call (issue 28), by the memo walk and, once an
expression has been evaluated ``COMPILE_AFTER`` times, by the expression compiled to a Python function: both must
give what evaluating the tree node by node gives, the same value or the same first error, with ``and``/``or``/``ite``
as lazy (a division by zero in a branch not taken is no error).  Checked on random expressions that share
subterms."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

import pytest

from verifier.core.errors import UndefinedBehavior
from verifier.core.integers import _WALK, COMPILE_AFTER, OPS, Const, Expr, Op, Sym, _compiled


def _tree(e: Expr, env: Mapping[str, int]) -> int:
    """The evaluation node by node, as ``Op.evaluate`` did before it shared subexpressions."""
    if not isinstance(e, Op):
        return e.evaluate(env)
    fn = OPS[e.op]
    if e.op == "and":
        return all(_tree(a, env) for a in e.args)
    if e.op == "or":
        return any(_tree(a, env) for a in e.args)
    if e.op == "ite":
        c, t, f = e.args
        return _tree(t, env) if _tree(c, env) else _tree(f, env)
    return fn(*(_tree(a, env) for a in e.args))


def _outcome(f: Callable[[Expr, Mapping[str, int]], int], e: Expr, env: Mapping[str, int]) -> tuple[str, object]:
    try:
        return ("value", f(e, env))
    except (UndefinedBehavior, KeyError) as exc:
        return (type(exc).__name__, str(exc))


def _random(rng: random.Random, depth: int, pool: list[Expr]) -> Expr:
    if pool and rng.random() < 0.35:
        return rng.choice(pool)  # a shared subterm
    if depth == 0 or rng.random() < 0.2:
        leaf: Expr = Sym(rng.choice("MNK")) if rng.random() < 0.6 else Const(rng.randint(-3, 9))
        return leaf
    kind = rng.choice(["+", "-", "*", "/", "%", "min", "max", "ite", "cmp", "and", "or", "not", "seq"])
    sub = [_random(rng, depth - 1, pool) for _ in range(3)]
    if kind == "ite":
        cond = Op(rng.choice(["==", "<", ">="]), (sub[0], sub[1]))
        e: Expr = Op("ite", (cond, sub[1], sub[2]))
    elif kind == "cmp":
        e = Op(rng.choice(["==", "!=", "<", "<=", ">", ">="]), (sub[0], sub[1]))
    elif kind in ("and", "or"):
        e = Op(kind, tuple(Op("<", (s, Const(rng.randint(0, 5)))) for s in sub))
    elif kind == "not":
        e = Op("not", (Op("==", (sub[0], sub[1])),))
    elif kind == "seq":
        e = Op("seq", (sub[0], sub[1]))
    else:
        e = Op(kind, (sub[0], sub[1]))
    pool.append(e)
    return e


@pytest.mark.parametrize("seed", range(4))
def test_shared_evaluation_is_the_trees(seed: int) -> None:
    rng = random.Random(seed)
    errors = values = 0
    for _ in range(400):
        e = _random(rng, 5, [])
        env = {n: rng.randint(-2, 4) for n in "MNK" if rng.random() < 0.95}  # sometimes a name is missing
        mine, theirs = _outcome(lambda e, env: e.evaluate(env), e, env), _outcome(_tree, e, env)
        assert mine == theirs, (str(e), env)
        errors += mine[0] != "value"
        values += mine[0] == "value"
    assert errors > 0 and values > 0


def test_a_branch_not_taken_does_not_fault_even_when_shared() -> None:
    m = Sym("M")
    bad = Op("/", (Const(1), m))  # faults at M = 0
    e = Op("+", (Op("ite", (Op("==", (m, Const(0))), Const(7), bad)), Op("ite", (Op("!=", (m, Const(0))), bad,
                                                                                   Const(5)))))
    assert e.evaluate({"M": 0}) == 12
    assert e.evaluate({"M": 1}) == 2
    with pytest.raises(UndefinedBehavior):
        Op("+", (bad, bad)).evaluate({"M": 0})


def _compiled_value(e: Expr, env: Mapping[str, int]) -> int:
    assert isinstance(e, Op)
    fn = _compiled(e)
    assert fn is not _WALK
    return fn(env)  # type: ignore[operator, no-any-return]


@pytest.mark.parametrize("seed", range(4))
def test_compiled_evaluation_is_the_trees(seed: int) -> None:
    """The compiled function against the tree, at several points of each expression (a shared subterm first met
    in a branch not taken is computed where it is met again), and ``evaluate`` once it compiles."""
    rng = random.Random(100 + seed)
    outcomes: set[str] = set()
    for _ in range(200):
        e = _random(rng, 5, [])
        if not isinstance(e, Op):
            continue
        for k in range(COMPILE_AFTER + 4):
            env = {n: rng.randint(-2, 4) for n in "MNK" if rng.random() < 0.95}
            theirs = _outcome(_tree, e, env)
            assert _outcome(_compiled_value, e, env) == theirs, (str(e), env)
            assert _outcome(lambda e, env: e.evaluate(env), e, env) == theirs, (str(e), env, k)
            outcomes.add(theirs[0])
    assert outcomes == {"value", "UndefinedBehavior", "KeyError"}


def test_compiled_lazy_branches_share_their_subterms() -> None:
    """A subterm computed in one branch of an ``ite`` or past the first operand of an ``and`` is computed again
    where it is used after them when that branch did not run."""
    m, n = Sym("M"), Sym("N")
    q = Op("/", (Const(12), m))
    e = Op("+", (Op("ite", (Op("==", (n, Const(0))), q, Const(1))), Op("*", (q, Const(2)))))
    f = Op("or", (Op("==", (m, Const(0))), Op("<", (q, Const(3))), Op(">", (q, Const(100)))))
    for env in ({"M": 3, "N": 0}, {"M": 3, "N": 1}, {"M": 0, "N": 1}, {"M": 5, "N": 0}):
        assert _outcome(_compiled_value, e, env) == _outcome(_tree, e, env)
        assert _outcome(_compiled_value, f, env) == _outcome(_tree, f, env)
    assert _compiled_value(f, {"M": 0}) is True and _compiled_value(f, {"M": 6}) is True


def test_deep_expressions_are_walked() -> None:
    e: Expr = Sym("M")
    for k in range(200):
        e = Op("+", (e, Const(k)))
    assert _compiled(e) is _WALK  # type: ignore[arg-type]
    for _ in range(COMPILE_AFTER + 2):
        assert e.evaluate({"M": 1}) == 1 + sum(range(200))


def test_the_compiled_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.core import integers

    monkeypatch.setattr(integers, "COMPILED_KEPT", 2)
    monkeypatch.setattr(integers, "_COMPILED", {})
    exprs = [Op("+", (Op("*", (Sym("M"), Const(k))), Const(1))) for k in range(5)]
    for _ in range(COMPILE_AFTER + 3):
        for k, e in enumerate(exprs):
            assert e.evaluate({"M": 3}) == 3 * k + 1
    assert len(integers._COMPILED) <= 2
