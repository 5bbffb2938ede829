"""Ground truth for OVF-ARITH / OVF-RESULT: compiled CuTe with trapping signed overflow.

Each case is one CuTe call on model operands (dynamic leaves read as ``int``, or ``int64_t`` for the symbols named
64-bit), compiled with ``-fsanitize=signed-integer-overflow -fsanitize-undefined-trap-on-error``: a signed
overflow anywhere executes a trap instruction (SIGILL) instead of wrapping.  The program runs the operation, prints
a marker, then the usual harness prints the result's size and cosize (and its values when few): so a trap before
the marker is an overflow in the operation's own arithmetic, a trap after it one in evaluating the result.  A
SIGFPE is CuTe's division by zero.  The other sweeps keep ``-fwrapv`` (cute_sweep.py).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verifier.oracle.cute_cpp import CppBuilder, CppCase, _translation_unit, build

FLAGS = ("-fsanitize=signed-integer-overflow", "-fsanitize-undefined-trap-on-error")
# Values printed per result at most (sizes near 2^31 are never enumerated).
LIMIT = 1 << 10

OP_OVERFLOW, EVAL_OVERFLOW, DIV0, OK, REJECTED = "op_overflow", "eval_overflow", "div0", "ok", "rejected"


def case(fn: str, *operands: object, template: Sequence[int] = (), wide: frozenset[str] = frozenset()) -> CppCase:
    """``fn(operands...)`` (``fn<template>`` for upcast / downcast) with the symbols in ``wide`` as ``int64_t``."""
    b = CppBuilder(wide=wide)
    args = [b.operand(x) for x in operands]
    return b.case(b.call(fn, *args, template=template))


def _unit(cases: Sequence[CppCase], rejected: set[int]) -> tuple[str, dict[int, tuple[int, int]]]:
    text, spans = _translation_unit(cases, rejected)
    text = text.replace("static void on_signal(int) { siglongjmp(g_jump, 1); }",
                        "static volatile int g_sig = 0;\n"
                        "static void on_signal(int s) { g_sig = s; siglongjmp(g_jump, 1); }")
    text = text.replace("  signal(SIGSEGV, on_signal);", "  signal(SIGSEGV, on_signal);\n  signal(SIGILL, on_signal);")
    text = text.replace('      printf("\\n@@UB signal\\n");', '      printf("\\n@@SIGNAL %d\\n", (int)g_sig);')
    text = text.replace("  auto r = ", "  auto r = (").replace(";\n  emit(r, limit);",
                                                            ");\n  printf(\"@@OPOK\\n\");\n  emit(r, limit);")
    return text, spans


@dataclass(frozen=True)
class Outcome:
    status: str
    result: str | None = None


def run(cases: Sequence[CppCase], queries: Sequence[tuple[int, Mapping[str, int]]]) -> list[Outcome]:
    """Compile ``cases`` trapping overflow (cached by source hash) and run each (case, symbol values)."""
    binary = build(list(cases), unit=_unit, flags=FLAGS)
    lines = []
    for n, (k, env) in enumerate(queries):
        params = cases[k].params(env)
        lines.append(f"{n} {k} {LIMIT} {len(params)} {' '.join(map(str, params))}")
    proc = subprocess.run([str(binary.path)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=600, check=False)
    blocks: dict[int, list[str]] = {}
    current: int | None = None
    for line in proc.stdout.split("\n"):
        if line.startswith("@@BEGIN "):
            current = int(line.split()[1])
            blocks[current] = []
        elif line.startswith("@@END"):
            current = None
        elif current is not None and line.startswith("@@"):
            blocks[current].append(line[2:])
    out = []
    for qid, (k, _) in enumerate(queries):
        if k in binary.rejected:
            out.append(Outcome(REJECTED))
            continue
        tags = blocks.get(qid)
        if tags is None:
            raise RuntimeError(f"no answer for query {qid} (exit {proc.returncode}): {proc.stderr[-1000:]}")
        result = next((t.split(" ", 1)[1] for t in tags if t.startswith("RESULT ")), None)
        signal = next((int(t.split()[1]) for t in tags if t.startswith("SIGNAL ")), None)
        done = any(t == "OPOK" for t in tags)
        if signal is None:
            out.append(Outcome(OK, result))
        elif signal == 8:  # SIGFPE
            out.append(Outcome(DIV0, result))
        else:
            out.append(Outcome(EVAL_OVERFLOW if done else OP_OVERFLOW, result))
    return out
