"""Concrete verdicts of the engine against compiled CuTe on the algebra's conformance corpus.

Every CUTLASS unit-test case (``oracle/data/cutlass_unit_cases.json``), swizzled and scaled-basis operands included,
in its original, all-dynamic and all-static variants: the engine says ``valid`` exactly where compiled CuTe's own result
meets CuTe's documented contract (decided in C++ by ``verifier.oracle.sweep``), with a warning where it meets the
contract but not a stricter clause, and ``invalid`` exactly where it does not, divides by zero, or does not compile.
None of these cases is ``invalid`` where CUTLASS's own unit test asserts the result.
"""

from __future__ import annotations

import json

import pytest

from verifier.core.symbols import Symbols
from verifier.engine.verdicts import INVALID, VALID
from verifier.engine.verify import verify
from verifier.oracle.corpora import CUTLASS_UNIT_CORPUS, operands
from verifier.oracle.sweep import SUPPORTED, SweepCase, sweep

DATA = json.loads(CUTLASS_UNIT_CORPUS.read_text())
CASES = [(c, v) for c in DATA for v in ("original", "dynamic", "static")]


@pytest.fixture(scope="module")
def truth(cute) -> list:
    cases = [SweepCase(c["op"], tuple(operands(c["args"], v))) for c, v in CASES]
    return sweep(cases, [[{}] for _ in cases])


@pytest.mark.cute
def test_verdicts_agree_with_compiled_cute(truth) -> None:
    bad = []
    for (case, variant), t in zip(CASES, truth, strict=True):
        v = verify(case["op"], operands(case["args"], variant), Symbols(), derive=False)
        cute = "rejected" if t.rejected else next(iter(t.status.values()))
        # "warning": CuTe's documented contract holds, a stricter clause (a partial tile, the complement's
        # cosize bound, a true left inverse, the same bytes of a recast) does not: valid, with that warning.
        expected = {"correct": VALID, "warning": VALID, "wrong": INVALID, "ub": INVALID,
                    "rejected": INVALID}.get(cute)
        if cute == "warning" and v.verdict == VALID and not v.warnings:
            bad.append(f"{case['file']}:{case['line']} {case['op']}{tuple(case['args'])} [{variant}]: "
                       "compiled CuTe meets its contract but not a stricter clause; the engine lists no warning")
            continue
        if v.verdict != expected:
            bad.append(f"{case['file']}:{case['line']} {case['op']}{tuple(case['args'])} [{variant}]: "
                       f"engine {v.verdict} ({v.reason}), compiled CuTe {cute}")
    assert not bad, "\n".join(bad[:20]) + f"\n({len(bad)} of {len(CASES)} differ)"


def test_corpus_is_substantial() -> None:
    assert len(CASES) >= 600
    assert all(c["op"] in SUPPORTED for c, _ in CASES), "every case of the conformance corpus is swept"
