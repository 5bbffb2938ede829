"""On concrete cases, our postcondition verdicts agree with what compiled CuTe's own values show, and every case
where CuTe silently returns a wrong result has at least one failing obligation.

The truth is computed from CuTe's values: composition is right when CuTe's R(i) equals A(B(i)); a right inverse
when L(R(i)) == i; a complement when its values are increasing and miss L's values."""

from __future__ import annotations

import itertools
import re

import pycute
import pytest

from tests.support.algebra_cases import CUTLASS_CASES, RANDOM_CASES
from verifier import Layout, parse_layout
from verifier.algebra.registry import apply
from verifier.contracts.claims import evaluate
from verifier.core.basis import has_basis
from verifier.core.int_tuple import leaves
from verifier.oracle.corpora import operands
from verifier.oracle.cute_cpp import Query, call_case, run_cases

OPS = ("composition", "right_inverse", "complement", "left_inverse")


def _statuses(op: str, args: tuple) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """What our model says on concrete operands, as (id, status): the obligations the algebra recorded, and the
    claims of the operation's contract evaluated on the values."""
    out = apply(op, *args)
    return [(o.id, o.status) for o in out.obligations], [(c.id, st) for c, st in evaluate(op, args)]


def _post(statuses: tuple[list[tuple[str, str]], list[tuple[str, str]]], ids: set[str]) -> list[str]:
    """The statuses of a postcondition: the algebra's enumeration where it still records one, else the claims'."""
    recorded, claimed = statuses
    return [st for id, st in recorded if id in ids] or [st for id, st in claimed if id in ids]


def _plain_ints(case: dict) -> bool:
    """Swizzled and scaled-basis operands evaluate to coordinates, not indices: their postconditions live in
    test_swizzle.py."""
    return not any(re.search(r"Sw<|@", a) for a in case["args"])


def _corpus() -> list[tuple[str, tuple]]:
    out = [(c["op"], tuple(operands(c["args"], v))) for c, v in CUTLASS_CASES if c["op"] in OPS and _plain_ints(c)]
    out += [(op, args) for op, args, t in RANDOM_CASES if op in OPS and not t]
    return [(op, args) for op, args in out if all(not isinstance(a, Layout) or a.concrete for a in args)]


CORPUS = _corpus()


@pytest.fixture(scope="module")
def answers(cute):
    cases = [call_case(op, *args) for op, args in CORPUS]
    return run_cases(cases, [Query(k) for k in range(len(cases))])


def _cute_says_correct(op: str, args: tuple, values: tuple[int, ...]) -> bool | None:
    a = args[0]
    if op == "composition" and isinstance(args[1], Layout) and not has_basis(args[1].stride):  # B(i) an integer
        b = args[1]
        return list(values) == [int(a(int(b(i)))) for i in range(int(b.size()))]
    if op == "right_inverse":
        return all(int(a(v)) == i for i, v in enumerate(values))
    if op == "complement":
        lv = set(a.values())
        return all(x < y for x, y in zip(values, values[1:])) and not any(v in lv for v in values[1:])
    return None


@pytest.mark.cute
def test_postcondition_verdicts_agree_with_cute_values(answers) -> None:
    checked = wrong = 0
    for (op, args), r in zip(CORPUS, answers, strict=True):
        if not r.ok or r.values is None:
            continue
        truth = _cute_says_correct(op, args, r.values)
        if truth is None:
            continue
        statuses = _statuses(op, args)
        post = {"composition": "CMP-POST", "right_inverse": "RI-POST", "complement": "CPL-POST"}[op]
        verdicts = _post(statuses, {post})
        assert verdicts, (op, [str(a) for a in args])
        if op == "complement":
            # CuTe's contract has more clauses than the two read off the values: a failing clause we cannot see
            # in the values is allowed, a value-visible failure must be reported.
            assert truth or verdicts == ["fails"], (op, [str(a) for a in args])
        else:
            assert (verdicts == ["holds"]) == truth, (op, [str(a) for a in args], r.values)
        if not truth:
            wrong += 1
            assert any(st == "fails" for _, st in statuses[0] + statuses[1])
        checked += 1
    assert checked >= 500 and wrong >= 5, (checked, wrong)


def test_exact_composition_rules_of_the_spec_revalidated() -> None:
    """Spec §4.3: CMP-4 (per leaf) and CMP-5 (no carry between leaves) together predict the postcondition."""
    agree = 0
    for op, args in CORPUS:
        if op != "composition" or not isinstance(args[1], Layout):
            continue
        out = apply(op, *args)
        st = {o.id: o.status for o in out.obligations}
        if "CMP-POST" not in st or "CMP-4" not in st:
            continue
        predicted = st["CMP-4"] == "holds" and st.get("CMP-5", "holds") == "holds"
        correct = st["CMP-POST"] == "holds"
        if predicted:
            assert correct, [str(a) for a in args]  # the rules are sufficient, always
        if all(int(d) != 0 for d in leaves(args[0].stride)):
            assert predicted == correct, [str(a) for a in args]  # and exact when A has no zero stride
            agree += 1
    assert agree >= 300


# -- divides, products, recasts, tile_to_shape, nullspace, max_common_vector -----------------------------------
# The truth is computed from CuTe's printed values with pycute (the Python reference, independent of our algebra)
# for the complement and the operand layouts: DIV-POST, PRD-POST, UP/DN-POST, TTS-POST, NUL-POST, MCV-POST.

DIVIDES = ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide")
PRODUCTS = ("logical_product", "zipped_product", "tiled_product", "flat_product")
MORE_OPS = (*DIVIDES, *PRODUCTS, "blocked_product", "raked_product", "upcast", "downcast", "tile_to_shape",
            "nullspace", "max_common_vector")
POST_ID = {**dict.fromkeys(DIVIDES, "DIV-POST"), **dict.fromkeys(PRODUCTS, "PRD-POST"),
           "blocked_product": "PRD-POST", "raked_product": "PRD-POST", "upcast": "UP-POST", "downcast": "DN-POST",
           "tile_to_shape": "TTS-POST", "nullspace": "NUL-POST", "max_common_vector": "MCV-POST"}


def _tile_to_shape_corpus() -> list[tuple[str, tuple, tuple]]:
    """Static blocks over static and dynamic targets (dividing and not), three orders of magnitude of sizes."""
    import random

    from verifier.core.integers import D, S

    rng = random.Random(1774)
    out = []
    blocks = ["(_2,_3):(_1,_2)", "(_2,_3):(_3,_1)", "_4:_1", "(_4,_2):(_2,_1)", "(_2,(_2,_2)):(_1,(_4,_2))",
              "(_2,_2):(_1,_4)", "(_3,_2):(_2,_1)"]
    for b in blocks:
        block = parse_layout(b)
        for _ in range(8):
            r = max(2, block.rank())
            mult = [rng.randint(1, 4) for _ in range(r)]
            bs = [int(x.size()) for x in block_modes(block)] + [1] * (r - block.rank())
            target = tuple((S if rng.random() < 0.5 else D)(m * k + (rng.random() < 0.25)) for m, k in zip(bs, mult))
            out.append(("tile_to_shape", (block, target), ()))
    return out


def block_modes(block: Layout) -> list:
    from verifier.algebra import sublayout

    return [sublayout(block, i) for i in range(block.rank())] if type(block.shape) is tuple else [block]


# The silent results of spec §10, §11 and §15, the examples of the docs.
SPEC_CASES = [
    ("max_common_vector", ("4:_1", "_16:_1"), ()), ("max_common_vector", ("(_4,2):(_1,_4)", "(_4,_8):(_1,_4)"), ()),
    ("max_common_vector", ("(_4,_8):(_1,_4)", "(_4,_8):(_1,_4)"), ()), ("max_common_vector", ("16:1", "16:1"), ()),
    ("nullspace", ("(2,3,4):(0,1,0)",), ()), ("nullspace", ("(2,3,4):(_0,1,_0)",), ()),
    ("upcast", ("16:1",), (2,)), ("upcast", ("16:3",), (2,)), ("upcast", ("(_8,6):(_1,6)",), (4,)),
    ("upcast", ("15:_1",), (2,)), ("upcast", ("(_16,4):(_1,16)",), (4,)), ("downcast", ("(_4,6):(_1,1)",), (2,)),
    ("logical_divide", ("(3,4):(1,3)", "_2:_1"), ()), ("logical_divide", ("(_3,_4):(_1,_10)", "_2:_1"), ()),
    ("logical_divide", ("12:1", "_5:_1"), ()),
]


def _more_corpus() -> list[tuple[str, tuple, tuple]]:
    out = [(op, tuple(parse_layout(a) for a in args), t) for op, args, t in SPEC_CASES]
    out += [(c["op"], tuple(operands(c["args"], v)), ()) for c, v in CUTLASS_CASES
            if c["op"] in MORE_OPS and _plain_ints(c)]
    out += [(op, args, t) for op, args, t in RANDOM_CASES if op in MORE_OPS]
    out += _tile_to_shape_corpus()
    # Appended last so that the earlier translation units (chunks of 64 cases) keep their cache keys.
    out += [(op, tuple(parse_layout(a) for a in args), t) for op, args, t in [
        ("downcast", ("(_4,6):(_1,8)",), (2,)), ("downcast", ("(_8,3):(_1,_8)",), (4,)),
        ("downcast", ("(3,_4):(16,_1)",), (2,)), ("downcast", ("(_4,2):(_-1,4)",), (2,)),
        ("downcast", ("(_4,5):(_1,6)",), (2,)),
        ("raked_product", ("(_2,_2):(_1,_2)", "(_3,_2):(_1,_3)"), ()),
        ("raked_product", ("(_2,2):(_1,_2)", "(3,_2):(_1,3)"), ()),
        ("flat_product", ("(_4,2):(_1,4)", "(_2,_2):(_1,_2)"), ()),
        ("flat_product", ("(4,2):(_1,4)", "3:1"), ())]]
    return [(op, args, t) for op, args, t in out if all(not isinstance(a, Layout) or a.concrete for a in args)]


MORE = _more_corpus()


@pytest.fixture(scope="module")
def more_answers(cute):
    cases = [call_case(op, *args, template=t) for op, args, t in MORE]
    return run_cases(cases, [Query(k) for k in range(len(cases))])


def _plain(t):
    if type(t) is tuple:
        return tuple(_plain(x) for x in t)
    return int(t)


def _py(layout: Layout):

    return pycute.Layout(_plain(layout.shape), _plain(layout.stride))


def _py_values(layout) -> list[int]:

    return [layout(i) for i in range(pycute.size(layout))]


def _py_complement(t, n: int):
    """pycute's complement(T, n), or None when it is not a complement (CuTe's contract, complement.cpp:46-66)."""

    try:
        c = pycute.complement(t, n)
    except AssertionError:
        return None
    tv, cv = set(_py_values(t)), _py_values(c)
    ok = (all(x < y for x, y in zip(cv, cv[1:])) and not any(v in tv for v in cv[1:])
          and pycute.cosize(pycute.make_layout(t, c)) >= n)
    return c if ok else None


def _tiler_layout(t: object):
    """A layout tiler element as pycute, None for ``_``, False for a nested tiler (not checked here)."""
    from verifier.core.layouts import Tile, Underscore

    if isinstance(t, Underscore):
        return None
    if isinstance(t, Tile) or type(t) is tuple:
        return False
    if isinstance(t, Layout):
        return _py(t)

    return pycute.Layout(_plain(t), 1)


def _divide_truth(a, t, values: list[int]) -> bool:
    c = _py_complement(t, pycute.size(a))
    if c is None:
        return False
    z = pycute.make_layout(t, c)
    return len(values) == pycute.size(z) and all(v == a(z(i)) for i, v in enumerate(values))


def _product_truth(a, b, values: list[int], as_set: bool = False) -> bool:

    sa, sb = pycute.size(a), pycute.size(b)
    c = _py_complement(a, sa * pycute.cosize(b))
    if c is None:
        return False
    if not all(0 <= b(j) < pycute.size(c) for j in range(sb)):
        return False
    want = [a(i % sa) + c(b(i // sa)) for i in range(sa * sb)]
    return sorted(values) == sorted(want) if as_set else list(values) == want


def _by_mode_truth(op: str, args: tuple, r) -> bool | None:
    """Per-mode truth of a logical divide/product by a tuple tiler, read from CuTe's printed result."""
    from verifier.core.layouts import Tile

    a, tiler = args
    elems = list(tiler.elements) if isinstance(tiler, Tile) else list(tiler)
    result = _parsed(r.result)
    if result is None:
        return False
    truth: bool | None = None
    for i, e in enumerate(elems):
        t = _tiler_layout(e)
        if t is False:
            return None
        if t is None:
            continue
        am, rm = _py(sublayout_of(a, i)), _py(sublayout_of(result, i))
        if op == "logical_divide":
            ok = _divide_truth(am, t, _py_values(rm))
        else:
            # mode i of the product is (A_i, C_i o B_i): the same 1-D order as the whole-layout product
            ok = _product_truth(am, t, _py_values(rm))
        truth = ok if truth is None else truth and ok
    return truth  # None when no mode has a layout tiler


def _parsed(printed: str) -> Layout | None:
    """CuTe's printed result, or None when it is no layout at all (CuTe can print a negative extent)."""
    from verifier import LayoutError

    try:
        return parse_layout(printed)
    except LayoutError:
        return None


def sublayout_of(layout: Layout, i: int) -> Layout:
    from verifier.algebra import sublayout

    return sublayout(layout, i) if type(layout.shape) is tuple else layout


def _more_truth(op: str, args: tuple, t: tuple, r) -> bool | None:

    values = list(r.values)
    if op in DIVIDES or op in PRODUCTS:
        tiler = args[1]
        if not isinstance(tiler, Layout) and _tiler_layout(tiler) is False:
            return _by_mode_truth(op, args, r) if op in ("logical_divide", "logical_product") else None
        tl = _tiler_layout(tiler)
        if tl is None:
            return None
        if op in DIVIDES:
            return _divide_truth(_py(args[0]), tl, values)
        return _product_truth(_py(args[0]), tl, values)
    if op in ("blocked_product", "raked_product"):
        return _product_truth(_py(args[0]), _py(args[1]), values, as_set=True)
    if op in ("upcast", "downcast"):
        n, src = t[0], _py_values(_py(args[0]))
        wide, narrow = (values, src) if op == "upcast" else (src, values)
        return len(wide) * n == len(narrow) and sorted(n * w + k for w in wide for k in range(n)) == sorted(narrow)
    if op == "tile_to_shape":
        res = _parsed(r.result)
        if res is None:
            return False
        block, target = _py(args[0]), args[1]
        modes = [sublayout_of(res, i) for i in range(res.rank())]
        if [int(m.size()) for m in modes] != [int(x) for x in target]:
            return False
        py = _py(res)
        bshape = [pycute.size(m.shape[0]) for m in (_py(x) for x in modes)]
        pshape = [pycute.size(m.shape[1]) for m in (_py(x) for x in modes)]
        for y in itertools.product(*(range(p) for p in pshape)):
            origin = py(tuple((0, k) for k in y))
            for x in itertools.product(*(range(b) for b in bshape)):
                bx = x if isinstance(block.shape, tuple) else x[0]
                if py(tuple(zip(x, y))) != block(bx) + origin:
                    return False
        return True
    if op == "nullspace":
        lay = _py(args[0])
        zero = 1
        for s, d in zip(pycute.flatten(lay.shape), pycute.flatten(lay.stride)):
            zero *= s if d == 0 else 1
        return len(values) == zero and all(lay(v) == 0 for v in values)
    return None


def _mcv_truth(args: tuple, printed: str) -> bool:
    a, b = _py(args[0]), _py(args[1])
    n = int(printed.lstrip("_"))
    first: dict[int, int] = {}
    for j in range(pycute.size(b)):
        first.setdefault(b(j), j)
    return all(k in first and first[k] < pycute.size(a) and a(first[k]) == k for k in range(n))


@pytest.mark.cute
def test_more_postcondition_verdicts_agree_with_cute_values(more_answers) -> None:
    import collections

    checked: collections.Counter = collections.Counter()
    wrong: collections.Counter = collections.Counter()
    bad = []
    for (op, args, t), r in zip(MORE, more_answers, strict=True):
        if not r.ok:
            continue
        if op == "max_common_vector":
            truth = _mcv_truth(args, r.result)
        elif r.values is None:
            continue
        else:
            truth = _more_truth(op, args, t, r)
        if truth is None:
            continue
        statuses = _statuses(op, (*t, *args))
        # nullspace's contract is the claims NUL-POST-SIZE and NUL-POST
        verdicts = _post(statuses, {POST_ID[op], "NUL-POST-SIZE"} if op == "nullspace" else {POST_ID[op]})
        if not verdicts:
            bad.append(f"{op}{t} {[str(a) for a in args]}: no {POST_ID[op]} recorded")
            continue
        ours = all(v == "holds" for v in verdicts)
        if ours != truth:
            bad.append(f"{op}{t} {[str(a) for a in args]}: ours {verdicts}, CuTe's values say {truth}: {r.result}")
        if not truth:
            wrong[op] += 1
            if not any(st == "fails" for _, st in statuses[0] + statuses[1]):
                bad.append(f"{op}{t} {[str(a) for a in args]}: silently wrong, no failing obligation")
        checked[op] += 1
    assert not bad, "\n".join(bad[:60]) + f"\n({len(bad)} bad)"
    assert sum(checked.values()) >= 800, checked
    assert set(checked) == set(MORE_OPS), set(MORE_OPS) - set(checked)
    for op in ("logical_divide", "logical_product", "upcast", "tile_to_shape", "nullspace", "max_common_vector"):
        assert wrong[op] >= 1, (op, wrong)
