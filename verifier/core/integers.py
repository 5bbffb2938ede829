"""CuTe integers: static (``_8``) or dynamic (``8``, ``M``, ``?``, ``(M+127)/128``).

Model
-----
An ``Int`` is a pair (expression, static flag).  A static ``Int`` is a compile-time ``cute::C<v>``; its expression
is always a constant.  A dynamic ``Int`` is a run-time integer: a concrete value, a named symbol, an anonymous
symbol (printed ``?``), or an expression over symbols.  CuTe chooses its code paths from the flag alone, never
from the value (a dynamic 1 is not ``_1``), so every operation here computes the flag exactly as
``numeric/integral_constant.hpp`` does:

* static op static is static (``:216-248``); anything with a dynamic operand is dynamic;
* the exceptions ``_0*x``, ``x*_0``, ``_0/x``, ``_0%x``, ``x%_1``, ``x%_m1`` are static ``_0`` (``:258-344``).  C++
  computes ``x`` first, so a division in ``x`` still runs: where ``x`` divides, the static ``_0`` keeps it as
  ``seq(x, 0)`` (C++'s comma: evaluate ``x``, then yield 0), whose evaluation faults where ``x``'s does;
* ``min``, ``max``, ``abs``, ``signum``, ``gcd``, ``lcm`` are static only when every argument is (``:350-384``).

Guarantees
----------
* Arithmetic is C++ arithmetic: ``/`` truncates toward zero and ``%`` takes the sign of the dividend.
* Expressions whose operands are all constants are folded at once, so a layout built from concrete values holds
  plain numbers.  A constant division by zero is never folded: it raises ``UndefinedBehavior``.
* ``Int`` and ``Bool`` are immutable and hashable; ``==`` on them is structural.  Value comparisons that CuTe
  performs (``a == b`` on integers) are the functions ``eq``, ``lt`` ... which return a ``Bool``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any, TypeVar, Union, cast

from verifier.core.errors import UndefinedBehavior

# --------------------------------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------------------------------


class Expr:
    """An integer or boolean expression tree over named symbols. Immutable."""

    __slots__ = ()

    def evaluate(self, env: Mapping[str, int]) -> int:
        raise NotImplementedError

    def symbols(self) -> Iterator[str]:
        raise NotImplementedError


class Const(Expr):
    __slots__ = ("value",)
    value: int  # a bool for a boolean constant

    def __init__(self, value: int) -> None:
        object.__setattr__(self, "value", value)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("immutable")

    def evaluate(self, env: Mapping[str, int]) -> int:
        return self.value

    def symbols(self) -> Iterator[str]:
        return iter(())

    def __eq__(self, other: object) -> bool:
        return type(other) is Const and other.value == self.value and type(other.value) is type(self.value)

    def __hash__(self) -> int:
        return hash(("c", self.value))

    def __repr__(self) -> str:
        return f"Const({self.value!r})"


class Sym(Expr):
    """A named run-time integer. Names starting with ``?`` are anonymous and print as ``?``."""

    __slots__ = ("name",)
    name: str

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "name", name)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("immutable")

    def evaluate(self, env: Mapping[str, int]) -> int:
        try:
            return env[self.name]
        except KeyError:
            raise KeyError(self.name) from None

    def symbols(self) -> Iterator[str]:
        yield self.name

    @property
    def anonymous(self) -> bool:
        return self.name.startswith("?")

    def __eq__(self, other: object) -> bool:
        return type(other) is Sym and other.name == self.name

    def __hash__(self) -> int:
        return hash(("s", self.name))

    def __repr__(self) -> str:
        return f"Sym({self.name!r})"


class Op(Expr):
    """``op`` applied to ``args``; ``op`` is one of the keys of ``OPS``."""

    __slots__ = ("op", "args", "_hash", "_runs")
    op: str
    args: tuple[Expr, ...]
    _hash: int
    # How often it was evaluated by the walk, then (``COMPILE_AFTER``) its compiled function, or ``_WALK``.
    _runs: int | Callable[[Mapping[str, int]], int] | object

    def __init__(self, op: str, args: tuple[Expr, ...]) -> None:
        object.__setattr__(self, "op", op)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "_hash", hash((op, args)))
        object.__setattr__(self, "_runs", 0)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("immutable")

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value at ``env``: by the memo walk (``_evaluate``) the first ``COMPILE_AFTER`` times, then by the
        expression compiled to a Python function (``_compiled``), which computes the same value or raises the
        same first error; a statement decided at every value of a small range (``solver.finite``), a claim
        evaluated at every witness, a guard's candidates at every point are evaluated hundreds of times."""
        runs = self._runs
        if type(runs) is int:
            if runs < COMPILE_AFTER:
                _set_runs(self, runs + 1)
                return _evaluate(self, env, {})
            runs = _COMPILED.get(self)
            if runs is None:
                runs = _compiled(self)
                if len(_COMPILED) >= COMPILED_KEPT:
                    _forget_oldest(_COMPILED)
                _COMPILED[self] = runs
            _set_runs(self, runs)
        if runs is _WALK:
            return _evaluate(self, env, {})
        return runs(env)  # type: ignore[operator, no-any-return]

    def symbols(self) -> Iterator[str]:
        for a in self.args:
            yield from a.symbols()

    def __eq__(self, other: object) -> bool:
        return type(other) is Op and other._hash == self._hash and other.op == self.op and other.args == self.args

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Op({self.op!r}, {self.args!r})"


_MISSING = object()
_WALK = object()  # Op._runs: not compiled (too deep or too large), evaluated by the walk
_set_runs = Op.__dict__["_runs"].__set__
# An expression is compiled on its evaluation after this many (most are evaluated once or twice: compiling costs
# about ten walks of a small one).
COMPILE_AFTER = 16
# Compiled only up to this depth (the walk and Python's parser nest as deeply) and this many distinct nodes.
COMPILE_DEPTH = 40
COMPILE_NODES = 2000
COMPILE_TEXT = 1 << 17  # characters of code at most (a node shared across lazy branches is written at each)
# The functions compiled lately, by expression (structural equality): a guard's candidates and the concrete replays
# build equal statements anew.  A cache of a pure function: no value depends on it.
COMPILED_KEPT = 1 << 10
_COMPILED: dict[Expr, Callable[[Mapping[str, int]], int] | object] = {}
_INFIX = {"+": "+", "-": "-", "*": "*", "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class _TooLarge(Exception):
    pass


def _forget_oldest(cache: dict[Expr, Any]) -> None:
    """Drop a bounded cache's oldest entry; another thread may be doing the same (no error reaches the caller, whose
    KeyError would read as a missing symbol)."""
    try:
        cache.pop(next(iter(cache)), None)
    except (StopIteration, RuntimeError):
        pass


def _compiled(e: Op) -> Callable[[Mapping[str, int]], int] | object:
    """``e`` as a Python function of the environment, or ``_WALK``.  Each distinct subexpression (by structural
    equality, as the walk's memo) that occurs more than once is kept in a local once computed; the operands are
    computed in the walk's order, ``and``/``or``/``ite`` as lazily (Python's own short circuit), with the same
    functions (``OPS``), so the value, or the first error, is the walk's."""
    uses: dict[Expr, int] = {}
    depth: dict[Expr, int] = {}
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:  # post-order without recursion: every node's depth after its operands'
        x, done = stack.pop()
        if done:
            depth[x] = 1 + max((depth[a] for a in x.args), default=0)  # type: ignore[attr-defined]
            continue
        uses[x] = uses.get(x, 0) + 1
        if uses[x] > 1:
            continue
        if type(x) is not Op:
            depth[x] = 0
            continue
        if x.op not in OPS:
            return _WALK
        stack.append((x, True))
        stack.extend((a, False) for a in x.args)
    if depth[e] > COMPILE_DEPTH or len(uses) > COMPILE_NODES:
        return _WALK
    names: dict[Expr, str] = {}
    consts: dict[str, object] = {"_M": _MISSING}
    sure: set[Expr] = set()  # the shared nodes computed wherever the code being written runs
    size = [0]

    def lazy(xs: Sequence[Expr]) -> list[str]:
        """Code for operands that may not run: what they compute is not sure after them."""
        before = set(sure)
        out = [code(a) for a in xs]
        sure.intersection_update(before)
        return out

    def code(x: Expr) -> str:
        if type(x) is Const:
            v = x.value
            if type(v) in (int, bool):
                return f"({v!r})"
            name = f"_k{len(consts)}"
            consts[name] = v
            return name
        if x in sure:
            return names[x]
        shared = uses[x] >= 2
        again = shared and x in names  # written before, on a path that may not have run: computed if it did not
        before = set(sure) if again else sure
        if type(x) is Sym:
            text = f"env[{x.name!r}]"
        else:
            assert type(x) is Op
            op = x.op
            if op in ("and", "or"):
                args = [code(x.args[0]), *lazy(x.args[1:])] if x.args else []
                if not args:
                    text = "True" if op == "and" else "False"
                else:
                    text = f"(True if {f' {op} '.join(args)} else False)"
            elif op == "ite":
                c = code(x.args[0])
                t, = lazy(x.args[1:2])
                f, = lazy(x.args[2:3])
                text = f"({t} if {c} else {f})"
            else:
                args = [code(a) for a in x.args]
                if op in _INFIX and len(args) == 2:
                    text = f"({args[0]} {_INFIX[op]} {args[1]})"
                elif op == "neg" and len(args) == 1:
                    text = f"(-{args[0]})"
                elif op == "not" and len(args) == 1:
                    text = f"(not {args[0]})"
                else:
                    fn = f"_f{len(consts)}"
                    consts[fn] = OPS[op]
                    text = f"{fn}({', '.join(args)})"
        size[0] += len(text)
        if size[0] > COMPILE_TEXT:
            raise _TooLarge
        if not shared:
            return text
        if not again:  # its first occurrence: nothing computed it before
            name = names[x] = f"_v{len(names)}"
            sure.add(x)
            return f"({name} := {text})"
        name = names[x]
        sure.intersection_update(before)  # what its code computes runs only where no earlier occurrence did
        sure.add(x)
        return f"({name} if {name} is not _M else ({name} := {text}))"

    try:
        body = code(e)
    except _TooLarge:
        return _WALK
    local = ", ".join(names.values())
    source = (f"def _make({', '.join(consts)}):\n def f(env):\n"
              + (f"  {' = '.join(names.values())} = _M\n" if local else "")
              + f"  return {body}\n return f\n")
    namespace: dict[str, Any] = {}
    try:
        exec(compile(source, "<expression>", "exec"), namespace)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return _WALK
    return cast(Callable[[Mapping[str, int]], int], namespace["_make"](*consts.values()))


def _evaluate(e: Expr, env: Mapping[str, int], memo: dict[Expr, int]) -> int:
    """``e`` at ``env``, each distinct subexpression once: the algebra's expressions share their subterms (a
    tiling's ``(M+31)/32`` in every product), and a condition of 110 distinct nodes can be a tree of 1,144 (issue
    28).  The operands are evaluated in the same order, ``and``/``or``/``ite`` as lazily, so the same value or the
    same first error comes out; a subexpression is remembered only once it has a value, and only for this call."""
    if type(e) is not Op:
        return e.evaluate(env)
    got = memo.get(e, _MISSING)
    if got is not _MISSING:
        return got  # type: ignore[return-value]
    op = e.op
    fn = OPS[op]
    if op == "and":
        v: int = all(_evaluate(a, env, memo) for a in e.args)
    elif op == "or":
        v = any(_evaluate(a, env, memo) for a in e.args)
    elif op == "ite":
        c, t, f = e.args
        v = _evaluate(t, env, memo) if _evaluate(c, env, memo) else _evaluate(f, env, memo)
    else:
        v = fn(*[_evaluate(a, env, memo) for a in e.args])
    memo[e] = v
    return v


def tdiv(a: int, b: int) -> int:
    """C++ ``a / b``: truncating division. Division by zero is undefined behaviour."""
    if b == 0:
        raise UndefinedBehavior(f"division by zero ({a} / 0)")
    if a >= 0 and b > 0:  # the common case: floor and truncation agree
        return a // b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def tmod(a: int, b: int) -> int:
    """C++ ``a % b``: the remainder takes the sign of the dividend."""
    if b == 0:
        raise UndefinedBehavior(f"division by zero ({a} % 0)")
    return a - b * tdiv(a, b)


def _signum(a: int) -> int:
    return (a > 0) - (a < 0)


def _gcd(t: int, u: int) -> int:
    """CuTe's ``gcd`` (numeric/math.hpp:102-109), with C++ ``%``: the sign follows the operands."""
    while True:
        if t == 0:
            return u
        u = tmod(u, t)
        if u == 0:
            return t
        t = tmod(t, u)


def _lcm(t: int, u: int) -> int:
    """CuTe's ``lcm`` (numeric/math.hpp:117-119): ``(t / gcd(t,u)) * u``; ``lcm(0,0)`` divides by zero."""
    return tdiv(t, _gcd(t, u)) * u


OPS: dict[str, Callable[..., int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": tdiv,
    "%": tmod,
    "neg": lambda a: -a,
    "min": min,
    "max": max,
    "abs": abs,
    "signum": _signum,
    "gcd": _gcd,
    "lcm": _lcm,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "and": lambda *a: all(a),
    "or": lambda *a: any(a),
    "not": lambda a: not a,
    "ite": lambda c, t, e: t if c else e,
    # ``seq(x..., v)``: every operand evaluated (for its divisions), the value the last; a static integer whose
    # value is known while the run-time computation it came from may still fault (the shortcuts of mul/div/mod).
    "seq": lambda *a: a[-1],
}

#: Functions that may appear by name in CuTe notation, with their arity.
FUNCTIONS: dict[str, int] = {"min": 2, "max": 2, "abs": 1, "signum": 1, "gcd": 2, "lcm": 2}

_BINARY_PREC = {"or": 1, "and": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5,
                "*": 6, "/": 6, "%": 6}


# The texts of expressions formatted lately (structural equality): an item's condition is written into the verdict
# of every guard candidate that decides it again, over new objects of the same statement (issue 28).  A cache of a
# pure function: no text depends on it.
FORMATTED_KEPT = 1 << 12
_FORMATTED: dict[Expr, str] = {}


def format_expr(e: Expr, parent_prec: int = 0, right: bool = False) -> str:
    """C-like text of an expression, parenthesised only where needed; anonymous symbols print as ``?``."""
    if type(e) is Op and parent_prec == 0:
        text = _FORMATTED.get(e)
        if text is None:
            text = _format(e, 0, right)
            if len(_FORMATTED) >= FORMATTED_KEPT:
                _forget_oldest(_FORMATTED)
            _FORMATTED[e] = text
        return text
    return _format(e, parent_prec, right)


def _format(e: Expr, parent_prec: int, right: bool) -> str:
    if type(e) is Const:
        v = e.value
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    if type(e) is Sym:
        return "?" if e.anonymous else e.name
    assert isinstance(e, Op)
    if e.op in _BINARY_PREC:
        prec = _BINARY_PREC[e.op]
        sep = {"and": " && ", "or": " || "}.get(e.op, e.op)
        if e.op in ("==", "!=", "<", "<=", ">", ">="):
            sep = f" {e.op} "
        parts = [format_expr(a, prec, right=i > 0) for i, a in enumerate(e.args)]
        text = sep.join(parts)
        # Left-associative: a right operand of equal precedence needs parentheses (a-(b-c), a/(b*c)).
        if prec < parent_prec or (prec == parent_prec and right):
            return f"({text})"
        return text
    if e.op == "neg":
        inner = format_expr(e.args[0], 7)
        return f"-{inner}"
    if e.op == "not":
        return f"!{format_expr(e.args[0], 7)}"
    return f"{e.op}({','.join(format_expr(a) for a in e.args)})"


# --------------------------------------------------------------------------------------------------------------
# Int
# --------------------------------------------------------------------------------------------------------------

IntLike = Union["Int", int]


class Int:
    """A CuTe integer: an expression and whether it is static (a ``C<v>`` type) or dynamic (a run-time value)."""

    __slots__ = ("expr", "static", "value", "_hash")

    expr: Expr
    static: bool
    #: The concrete value, or ``None`` when the integer is symbolic (the constant of ``expr``, kept at hand).
    value: int | None
    _hash: int | None

    def __init__(self, expr: Expr, static: bool) -> None:
        if static and type(expr) is not Const and not _is_seq(expr):
            raise ValueError("a static integer must have a constant value")
        object.__setattr__(self, "expr", expr)
        object.__setattr__(self, "static", static)
        object.__setattr__(self, "value", expr.value if type(expr) is Const else None)
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("Int is immutable")

    # -- inspection ------------------------------------------------------------------------------------------
    @property
    def concrete(self) -> bool:
        return type(self.expr) is Const

    @property
    def dynamic(self) -> bool:
        return not self.static

    def is_constant(self, n: int) -> bool:
        """CuTe's ``is_constant<n, T>``: true only for a *static* integer equal to ``n``."""
        if not self.static:
            return False
        v = self.value
        return (v if v is not None else static_value(self)) == n

    def evaluate(self, env: Mapping[str, int] | None = None) -> int:
        return self.expr.evaluate(env or {})

    def symbols(self) -> set[str]:
        return set(self.expr.symbols())

    def __int__(self) -> int:
        v = self.value
        if v is None and self.static:  # seq(x, v): the type's value (a compile-time use evaluates nothing)
            return static_value(self)
        if v is None:
            raise TypeError(f"{self} is symbolic; substitute values first")
        return v

    def __index__(self) -> int:
        return int(self)

    def __bool__(self) -> bool:
        raise TypeError("the truth of a CuTe integer is ambiguous; use is_constant or eq")

    def __eq__(self, other: object) -> bool:
        return type(other) is Int and other.static == self.static and other.expr == self.expr

    def __hash__(self) -> int:
        h = self._hash
        if h is None:  # computed once: layouts are hashed as the algebra's memo keys (algebra.pure)
            h = hash((self.static, self.expr))
            object.__setattr__(self, "_hash", h)
        return h

    def __str__(self) -> str:
        if self.static:
            return f"_{static_value(self)}"
        return format_expr(self.expr)

    def __repr__(self) -> str:
        return f"Int({self})"

    # -- arithmetic (C++ operators on C<t> / int) ----------------------------------------------------------------
    def __add__(self, o: IntLike) -> Int:
        return add(self, o)

    def __radd__(self, o: IntLike) -> Int:
        return add(o, self)

    def __sub__(self, o: IntLike) -> Int:
        return sub(self, o)

    def __rsub__(self, o: IntLike) -> Int:
        return sub(o, self)

    def __mul__(self, o: IntLike) -> Int:
        return mul(self, o)

    def __rmul__(self, o: IntLike) -> Int:
        return mul(o, self)

    def __truediv__(self, o: IntLike) -> Int:
        return div(self, o)

    def __rtruediv__(self, o: IntLike) -> Int:
        return div(o, self)

    def __mod__(self, o: IntLike) -> Int:
        return mod(self, o)

    def __rmod__(self, o: IntLike) -> Int:
        return mod(o, self)

    def __neg__(self) -> Int:
        return neg(self)


def _is_seq(e: Expr) -> bool:
    return type(e) is Op and e.op == "seq" and type(e.args[-1]) is Const


def static_value(x: Int) -> int:
    """The value of a static integer: its constant, also where it keeps a computation that may fault (``seq``)."""
    v = x.value
    if v is not None:
        return v
    assert x.static and _is_seq(x.expr), f"{x!r} is not static"
    last = x.expr.args[-1]  # type: ignore[attr-defined]  # _is_seq: an Op ending in a Const
    return int(last.value)


def _effects(e: Expr) -> tuple[Expr, ...]:
    """The computations a static integer keeps for their divisions (``seq``), none for a constant."""
    return e.args[:-1] if type(e) is Op and e.op == "seq" else ()


def _static_zero(dropped: Int) -> Int:
    """CuTe's static ``_0`` of a shortcut that drops the run-time operand ``dropped`` (integral_constant.hpp:258-297):
    C++ computed ``dropped`` first, so a division in it still runs and may fault; it is kept (``seq``)."""
    if not _divides(dropped.expr):
        return _ZERO
    return Int(Op("seq", (dropped.expr, Const(0))), True)


# Concrete integers are interned: concrete algebra builds the same few constants over and over, and an interned
# one costs a dictionary lookup instead of two objects.  One table per flag, keyed by the value alone.
_STATIC_INTS: dict[int, Int] = {}
_DYNAMIC_INTS: dict[int, Int] = {}
_INTERN_LIMIT = 1 << 20
_new = object.__new__
_set_expr = Int.__dict__["expr"].__set__  # slot setters: immutability is kept for users
_set_static = Int.__dict__["static"].__set__
_set_hash = Int.__dict__["_hash"].__set__
_set_value = Int.__dict__["value"].__set__


def _const(v: int, static: bool) -> Int:
    """The concrete integer ``v`` (an ``int``, not a ``bool``), static or dynamic."""
    table = _STATIC_INTS if static else _DYNAMIC_INTS
    x = table.get(v)
    if x is None:
        x = _new(Int)
        e = Const(v)
        _set_expr(x, e)
        _set_static(x, static)
        _set_value(x, v)
        _set_hash(x, hash((static, e)))
        if -_INTERN_LIMIT < v < _INTERN_LIMIT:
            table[v] = x
    return x


def S(v: int) -> Int:
    """A static integer ``_v``."""
    return _const(int(v), True)


def D(v: int) -> Int:
    """A concrete dynamic (run-time) integer ``v``."""
    return _const(int(v), False)


def symbol(name: str) -> Int:
    """A dynamic integer named ``name`` (its assumptions live in a ``Symbols`` table)."""
    return Int(Sym(name), False)


def as_int(x: IntLike) -> Int:
    """An ``Int`` from an ``Int`` or a Python ``int``; a Python ``int`` is dynamic, as a C++ ``int`` is."""
    if type(x) is Int:
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"not an integer: {x!r}")
    return D(x)


_ZERO = S(0)

# -- signed overflow in CuTe's own arithmetic ------------------------------------------------------------------
#
# While an algebra operation runs (``algebra.apply``), ``overflow.py`` watches every operation below whose result
# can leave the leaf type (``+ - * / neg abs lcm``): the watch records an obligation that the result fits, named by
# the innermost CuTe computation in progress (``site``).  Arithmetic that only states a condition or a
# postcondition, which CuTe never executes, runs ``unwatched``.

_OVERFLOWING = frozenset({"+", "-", "*", "/", "neg", "abs", "lcm"})
_WATCH: ContextVar[Callable[[str, tuple[Int, ...], Int], None] | None] = ContextVar("overflow_watch", default=None)
_SITE: ContextVar[tuple[str, str, tuple[Int, ...]] | None] = ContextVar("overflow_site", default=None)


class _Idle:
    """The block of a site or an unwatched computation while no watch is open: nothing to do.  ``"".format`` takes
    any arguments and returns ``""`` (false, so an exception in the block propagates): entering and leaving cost
    two C calls where ``contextlib.nullcontext`` costs two Python calls, and the concrete algebra enters one at
    every site it passes."""

    __slots__ = ()
    __enter__ = "".format
    __exit__ = "".format


# The block of a site while no watch is open: a caller in a hot loop writes ``site(...) if integers._watched else
# IDLE``, which spares the call to ``site`` (issue 16: about a third of a site's cost).
IDLE = cast(AbstractContextManager[None], _Idle())
# Watches open in any thread: while none is, concrete arithmetic takes its fast paths without reading _WATCH.
_watched = 0
_watched_lock = threading.Lock()


def watch_opened() -> None:
    global _watched
    with _watched_lock:
        _watched += 1


def watch_closed() -> None:
    global _watched
    with _watched_lock:
        _watched -= 1


class _Site:
    __slots__ = ("value", "token")

    def __init__(self, value: tuple[str, str, tuple[Int, ...]] | None) -> None:
        self.value = value

    def __enter__(self) -> None:
        self.token = _SITE.set(self.value)

    def __exit__(self, *exc: object) -> None:
        _SITE.reset(self.token)


def site(name: str, source: str, *operands: Int) -> AbstractContextManager[None]:
    """The CuTe computation in progress (``ceil_div`` at ``int_tuple.hpp:344`` on ``M, _4``), for the overflow
    obligations its arithmetic records; nothing at all while no operation is watched."""
    if not _watched or _WATCH.get() is None:
        return IDLE
    return _Site((name, source, operands))


_T = TypeVar("_T")


def at(name: str, source: str, fn: Callable[[Any, Any], _T], a: Any, b: Any) -> _T:
    """``fn(a, b)`` as the CuTe computation ``name`` at ``source`` performs it: ``with site(name, source, a, b):
    fn(a, b)`` for a site of one binary operation, the form of the algebra's hot loops, where a ``with`` block
    costs half the arithmetic it labels (issue 16)."""
    if not _watched or _WATCH.get() is None:
        return fn(a, b)
    with _Site((name, source, (a, b))):
        return fn(a, b)


class _Unwatched:
    __slots__ = ("token",)

    def __enter__(self) -> None:
        self.token = _WATCH.set(None)

    def __exit__(self, *exc: object) -> None:
        _WATCH.reset(self.token)


def unwatched() -> AbstractContextManager[None]:
    """Arithmetic CuTe does not execute (a condition, a postcondition): no overflow obligation."""
    if not _watched or _WATCH.get() is None:
        return IDLE
    return _Unwatched()


def _apply(op: str, args: tuple[Int, ...]) -> Int:
    """Apply ``op``: static iff every operand is static; fold constants; keep symbolic expressions small."""
    watch = _WATCH.get() if _watched else None
    if watch is not None and op in _OVERFLOWING:
        r = _compute(op, args)
        watch(op, args, r)
        return r
    return _compute(op, args)


def _compute(op: str, args: tuple[Int, ...]) -> Int:
    if len(args) == 2:  # the common case, spelled out: concrete algebra spends most of its time here
        a, b = args
        ea, eb = a.expr, b.expr
        if type(ea) is Const and type(eb) is Const:
            return _const(OPS[op](ea.value, eb.value), a.static and b.static)
    static = all(a.static for a in args)
    exprs = tuple(a.expr for a in args)
    if all(type(e) is Const for e in exprs):
        return _const(OPS[op](*(e.value for e in exprs)), static)  # type: ignore[attr-defined]  # all Const
    if static:  # a static operand keeps a computation that may fault (seq): the result keeps it too
        v = _const(OPS[op](*(static_value(a) for a in args)), True)
        return Int(Op("seq", (*(x for e in exprs for x in _effects(e)), v.expr)), True)
    return Int(_simplify(op, exprs), False)


def _divides(e: Expr) -> bool:
    """Whether evaluating ``e`` performs a division (which could be by zero)."""
    return type(e) is Op and (e.op in ("/", "%", "lcm") or any(_divides(x) for x in e.args))


def _simplify(op: str, a: tuple[Expr, ...]) -> Expr:
    """Value-preserving identities on dynamic expressions (never drops a division that could be by zero)."""
    if len(a) == 2 and not any(_divides(x) for x in a):
        x, y = a
        cx = x.value if type(x) is Const else None
        cy = y.value if type(y) is Const else None
        if op == "+":
            if cx == 0:
                return y
            if cy == 0:
                return x
        elif op == "-":
            if cy == 0:
                return x
            if x == y:
                return Const(0)
        elif op == "*":
            if cx == 1:
                return y
            if cy == 1:
                return x
            if cx == 0 or cy == 0:
                return Const(0)
        elif op == "/":
            if cy == 1:
                return x
        elif op == "%":
            if cy in (1, -1):
                return Const(0)
        elif op in ("min", "max") and x == y:
            return x
    elif op == "neg" and type(a[0]) is Op and a[0].op == "neg":
        return a[0].args[0]
    return Op(op, a)


def add(a: IntLike, b: IntLike) -> Int:
    if not _watched and type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        # concrete: no expression node; the interned result looked up here, without _const's call
        v, st = a.value + b.value, a.static and b.static
        x = (_STATIC_INTS if st else _DYNAMIC_INTS).get(v)
        return x if x is not None else _const(v, st)
    return _apply("+", (as_int(a), as_int(b)))


def sub(a: IntLike, b: IntLike) -> Int:
    if not _watched and type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        v, st = a.value - b.value, a.static and b.static
        x = (_STATIC_INTS if st else _DYNAMIC_INTS).get(v)
        return x if x is not None else _const(v, st)
    return _apply("-", (as_int(a), as_int(b)))


def mul(a: IntLike, b: IntLike) -> Int:
    if not _watched and type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        if a.static == b.static or (a.value != 0 if a.static else b.value != 0):
            v, st = a.value * b.value, a.static and b.static
            x = (_STATIC_INTS if st else _DYNAMIC_INTS).get(v)
            return x if x is not None else _const(v, st)
    a, b = as_int(a), as_int(b)
    # integral_constant.hpp:258-270: C<0> * U and U * C<0> with a run-time U; two statics simply multiply.
    if a.is_constant(0) and b.dynamic:
        return _static_zero(b)
    if b.is_constant(0) and a.dynamic:
        return _static_zero(a)
    return _apply("*", (a, b))


def div(a: IntLike, b: IntLike) -> Int:
    """C++ ``a / b`` on CuTe integers (truncating). ``_0 / x`` is static ``_0`` and performs no division."""
    if not _watched and type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        if a.static and not b.static and a.value == 0:
            return _ZERO
        av, bv = a.value, b.value
        v, st = av // bv if av >= 0 and bv > 0 else tdiv(av, bv), a.static and b.static  # floor = truncation
        x = (_STATIC_INTS if st else _DYNAMIC_INTS).get(v)
        return x if x is not None else _const(v, st)
    a, b = as_int(a), as_int(b)
    if a.is_constant(0) and b.dynamic:  # integral_constant.hpp:275-281: C<0> / U with a run-time U
        return _static_zero(b)
    return _apply("/", (a, b))


def mod(a: IntLike, b: IntLike) -> Int:
    """C++ ``a % b``. ``_0 % x``, ``x % _1`` and ``x % _-1`` are static ``_0``."""
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        if a.static != b.static and (a.value == 0 if a.static else b.value in (1, -1)):
            return _ZERO
        av, bv = a.value, b.value
        v, st = av % bv if av >= 0 and bv > 0 else tmod(av, bv), a.static and b.static
        x = (_STATIC_INTS if st else _DYNAMIC_INTS).get(v)
        return x if x is not None else _const(v, st)
    a, b = as_int(a), as_int(b)
    # integral_constant.hpp:283-297: U % C<1>, U % C<-1> and C<0> % U, each with a run-time U.
    if a.is_constant(0) and b.dynamic:
        return _static_zero(b)
    if (b.is_constant(1) or b.is_constant(-1)) and a.dynamic:
        return _static_zero(a)
    return _apply("%", (a, b))


def neg(a: IntLike) -> Int:
    if not _watched and type(a) is Int and a.value is not None:
        return _const(-a.value, a.static)
    return _apply("neg", (as_int(a),))


def min_(a: IntLike, b: IntLike) -> Int:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        if a.static == b.static:  # the smaller operand is the result (the first of equal ones, as min takes)
            return a if a.value <= b.value else b
        return _const(min(a.value, b.value), False)
    return _apply("min", (as_int(a), as_int(b)))


def max_(a: IntLike, b: IntLike) -> Int:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        if a.static == b.static:  # the larger operand is the result (the first of equal ones, as max takes)
            return a if a.value >= b.value else b
        return _const(max(a.value, b.value), False)
    return _apply("max", (as_int(a), as_int(b)))


def abs_(a: IntLike) -> Int:
    if not _watched and type(a) is Int and a.value is not None:
        v = a.value
        return a if v >= 0 else _const(-v, a.static)
    return _apply("abs", (as_int(a),))


def signum(a: IntLike) -> Int:
    if type(a) is Int and a.value is not None:
        v = a.value
        return _const((v > 0) - (v < 0), a.static)
    return _apply("signum", (as_int(a),))


def gcd(a: IntLike, b: IntLike) -> Int:
    return _apply("gcd", (as_int(a), as_int(b)))


def lcm(a: IntLike, b: IntLike) -> Int:
    return _apply("lcm", (as_int(a), as_int(b)))


# The forward operators are these functions themselves, not methods calling them: one Python call fewer for each
# integer operation of the algebra (the methods above stay for the type checker and readers).
Int.__add__ = add  # type: ignore[method-assign]
Int.__sub__ = sub  # type: ignore[method-assign]
Int.__mul__ = mul  # type: ignore[method-assign]
Int.__truediv__ = div  # type: ignore[method-assign]
Int.__mod__ = mod  # type: ignore[method-assign]
Int.__neg__ = neg  # type: ignore[method-assign]


def safe_div(a: IntLike, b: IntLike) -> Int:
    """CuTe's ``safe_div`` (integral_constant.hpp:393-415): static/static must divide exactly; otherwise ``/``."""
    from verifier.core.errors import CuteRejection

    a, b = as_int(a), as_int(b)
    if a.static and b.static:
        if b.value == 0 or int(a) % int(b) != 0:
            raise CuteRejection("Static safe_div requires t % u == 0", "integral_constant.hpp:397")
    return div(a, b)


def ceil_div_int(a: IntLike, b: IntLike) -> Int:
    """``(a + b - 1) / b`` with CuTe's flags (int_tuple.hpp:344)."""
    if not _watched and type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        # the three operations folded: (a + b - _1) is static iff a and b are, so div's static _0 case (a static
        # _0 over a run-time divisor) never applies
        n, bv = a.value + b.value - 1, b.value
        v, st = n // bv if n >= 0 and bv > 0 else tdiv(n, bv), a.static and b.static  # floor = truncation
        x = (_STATIC_INTS if st else _DYNAMIC_INTS).get(v)
        return x if x is not None else _const(v, st)
    a, b = as_int(a), as_int(b)
    with site("ceil_div", "int_tuple.hpp:344", a, b):
        return (a + b - S(1)) / b


# --------------------------------------------------------------------------------------------------------------
# Bool
# --------------------------------------------------------------------------------------------------------------


class Bool:
    """A CuTe boolean: static (``true_type``/``false_type``) or a run-time ``bool`` expression."""

    __slots__ = ("expr", "static")
    expr: Expr
    static: bool

    def __init__(self, expr: Expr, static: bool) -> None:
        object.__setattr__(self, "expr", expr)
        object.__setattr__(self, "static", static)

    def __setattr__(self, *_: object) -> None:
        raise AttributeError("Bool is immutable")

    @property
    def value(self) -> bool | None:
        return bool(self.expr.value) if type(self.expr) is Const else None

    def is_constant(self, v: bool) -> bool:
        """``is_constant<v, decltype(...)>``: a static boolean with value ``v``."""
        return self.static and bool(self.expr.value) == v  # type: ignore[attr-defined]  # static: a Const

    def evaluate(self, env: Mapping[str, int] | None = None) -> bool:
        return bool(self.expr.evaluate(env or {}))

    def __bool__(self) -> bool:
        raise TypeError("the truth of a CuTe boolean is ambiguous; use .value or is_constant")

    def __eq__(self, other: object) -> bool:
        return type(other) is Bool and other.static == self.static and other.expr == self.expr

    def __hash__(self) -> int:
        return hash(("b", self.static, self.expr))

    def __str__(self) -> str:
        if type(self.expr) is Const:
            # CuTe prints bool_constant<b> as _1/_0 and a run-time bool as 1/0.
            return f"{'_' if self.static else ''}{int(bool(self.expr.value))}"
        return format_expr(self.expr)

    def __repr__(self) -> str:
        return f"Bool({self})"

    def __and__(self, o: Bool) -> Bool:
        return and_(self, o)

    def __or__(self, o: Bool) -> Bool:
        return or_(self, o)

    def __invert__(self) -> Bool:
        return not_(self)


TRUE = Bool(Const(True), True)
FALSE = Bool(Const(False), True)


_BOOLS = {(v, st): Bool(Const(v), st) for v in (False, True) for st in (False, True)}


def _cmp(op: str, a: IntLike, b: IntLike) -> Bool:
    if type(a) is not Int or type(b) is not Int:
        a, b = as_int(a), as_int(b)
    ea, eb = a.expr, b.expr
    if type(ea) is Const and type(eb) is Const:
        return _BOOLS[bool(OPS[op](ea.value, eb.value)), a.static and b.static]
    if a.static and b.static:  # a type computation on two static integers (one keeps a seq): nothing runs
        return _BOOLS[bool(OPS[op](static_value(a), static_value(b))), True]
    return Bool(Op(op, (ea, eb)), False)


def eq(a: IntLike, b: IntLike) -> Bool:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        return _BOOLS[a.value == b.value, a.static and b.static]
    return _cmp("==", a, b)


def static_product_eq(a: Int, b: Int, c: Int) -> bool:
    """``is_constant<true, decltype(a * b == c)>``: a type computation, so nothing is multiplied at run time and
    no overflow is watched.  With ``a``, ``b`` and ``c`` static (the product is static) it is decided on their
    values, without building the product or the ``Bool``."""
    if a.static and b.static and c.static:
        return a.value * b.value == c.value  # type: ignore[operator]  # static: constant
    with unwatched():
        return eq(mul(a, b), c).is_constant(True)


def ne(a: IntLike, b: IntLike) -> Bool:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        return _BOOLS[a.value != b.value, a.static and b.static]
    return _cmp("!=", a, b)


def lt(a: IntLike, b: IntLike) -> Bool:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        return _BOOLS[a.value < b.value, a.static and b.static]
    return _cmp("<", a, b)


def le(a: IntLike, b: IntLike) -> Bool:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        return _BOOLS[a.value <= b.value, a.static and b.static]
    return _cmp("<=", a, b)


def gt(a: IntLike, b: IntLike) -> Bool:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        return _BOOLS[a.value > b.value, a.static and b.static]
    return _cmp(">", a, b)


def ge(a: IntLike, b: IntLike) -> Bool:
    if type(a) is Int and type(b) is Int and a.value is not None and b.value is not None:
        return _BOOLS[a.value >= b.value, a.static and b.static]
    return _cmp(">=", a, b)


def and_(*bs: Bool) -> Bool:
    """Conjunction; ``false_type && x`` and ``x && false_type`` are static false (integral_constant.hpp:314-328)."""
    for b in bs:  # either operand order
        if b.is_constant(False):
            return FALSE
    parts: list[Expr] = []
    static = True
    for b in bs:
        if type(b.expr) is Const:
            if not b.expr.value:
                return _BOOLS[False, False]
            static = static and b.static
            continue
        static = False
        parts.append(b.expr)
    if not parts:
        return _BOOLS[True, static]
    return Bool(parts[0] if len(parts) == 1 else Op("and", tuple(parts)), False)


def or_(*bs: Bool) -> Bool:
    """Disjunction; ``true_type || x`` and ``x || true_type`` are static true (integral_constant.hpp:330-344)."""
    if len(bs) == 2 and type(bs[0].expr) is Const and type(bs[1].expr) is Const:
        # two constants (a static assertion of the concrete algebra): the same cases, without the loops
        x, y = bs
        vx, vy = x.expr.value, y.expr.value  # type: ignore[attr-defined]  # Const
        if (x.static and vx) or (y.static and vy):
            return TRUE
        if vx or vy:
            return _BOOLS[True, False]
        return _BOOLS[False, x.static and y.static]
    for b in bs:  # either operand order
        if b.is_constant(True):
            return TRUE
    parts: list[Expr] = []
    static = True
    for b in bs:
        if type(b.expr) is Const:
            if b.expr.value:
                return _BOOLS[True, False]
            static = static and b.static
            continue
        static = False
        parts.append(b.expr)
    if not parts:
        return _BOOLS[False, static]
    return Bool(parts[0] if len(parts) == 1 else Op("or", tuple(parts)), False)


def not_(b: Bool) -> Bool:
    if type(b.expr) is Const:
        return Bool(Const(not b.expr.value), b.static)
    return Bool(Op("not", (b.expr,)), False)


def substitute_expr(e: Expr, values: Mapping[str, int]) -> Expr:
    """Replace symbols by constants and fold. Raises ``UndefinedBehavior`` on a constant division by zero."""
    if type(e) is Const:
        return e
    if type(e) is Sym:
        return Const(values[e.name]) if e.name in values else e
    assert isinstance(e, Op)
    args = tuple(substitute_expr(a, values) for a in e.args)
    if all(type(a) is Const for a in args):
        return Const(Op(e.op, args).evaluate({}))
    return _simplify(e.op, args)


def substitute(x: Int, values: Mapping[str, int]) -> Int:
    """``x`` with the given symbols replaced by concrete run-time values (the flag is unchanged)."""
    if type(x.expr) is Const:
        return x
    if x.static:  # seq(x, v): the computation it keeps runs (and may fault) at these values
        e = substitute_expr(x.expr, values)
        return _const(e.value, True) if type(e) is Const else Int(e, True)
    return Int(substitute_expr(x.expr, values), False)
