"""Layouts and algebra results run on the device, compared index by index with the model.

``evaluate(cases, host=...)``: for every case (a layout, or a CuTe operation on model operands) and every
assignment of its symbols, three evaluations of the result at every 1-D coordinate:

* **CuTe on the device**: a kernel that builds the operands with CuTe (same static/dynamic structure, dynamic values
  and symbols read from a parameter array at run time), calls the operation on the device and evaluates the result;
* **the model on the device**: plain CUDA generated from the model's (symbolic) result, no CuTe;
* **the host model**: ``verifier.algebra`` on the substituted operands, in Python.

They must agree on the size and on every index.  The CuTe kernel also copies through the result on guarded device
memory: the writes per element (counted with atomics) must be what the model predicts, the guards untouched unless
the model says an index leaves the range, and the gathered values those at the model's indices; from the counts it
reads whether the result is injective, in bounds (no write outside ``[0, cosize)``) and bijective onto
``[0, size)``.

A case the model says CuTe rejects at compile time is not built (and must be rejected if built); an assignment where
the model says CuTe divides by zero is run but not compared (the GPU does not trap integer division by zero).

``sweep(cases, assignments, host=...)``: the GPU sweep (``verifier.oracle.sweep``'s decision of each result, run on
the device, one thread per assignment), see ``sweep_device``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from cuda_harness.kernels import (
    GUARD,
    SENTINEL,
    Kernel,
    Unsupported,
    cute_kernel,
    model_kernel,
    sweep_kernel,
    symbol_slots,
)
from cuda_harness.runner import Runner, runner
from verifier.algebra.registry import apply
from verifier.core.basis import has_basis
from verifier.core.errors import LayoutError
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout
from verifier.oracle.cute_cpp import CppCase, call_case, layout_case, recast_case
from verifier.oracle.sweep import DEFAULT_CAP, SweepCase, case_code, key

MAX_VALUES = 1 << 24
PYTHON_VALUES = 4096


@dataclass(frozen=True)
class Case:
    """A layout (``op`` None, one operand) or CuTe's ``op<template...>(operands...)``, over ``envs``."""

    label: str
    op: str | None
    operands: tuple[object, ...]
    template: tuple[int, ...] = ()
    envs: tuple[Mapping[str, int], ...] = ({},)


@dataclass
class Check:
    """The outcome of one (case, assignment)."""

    label: str
    env: dict[str, int]
    status: str                      # agree | mismatch | rejected | ub | unsupported
    detail: str = ""
    indices: int = 0                 # indices compared
    model_on_device: bool = False    # the model kernel ran and was compared
    injective: bool | None = None
    in_bounds: bool | None = None
    bijective: bool | None = None


@dataclass
class Report:
    method: str
    checks: list[Check] = field(default_factory=list)
    seconds: float = 0.0
    tried: list[str] = field(default_factory=list)  # compile methods that failed first, with why

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.checks:
            out[c.status] = out.get(c.status, 0) + 1
        return out


def _cpp(case: Case) -> CppCase:
    if case.op is None:
        (layout,) = case.operands
        assert isinstance(layout, Layout)
        return layout_case(layout, case.label)
    if case.op == "recast_layout":
        return recast_case(case.template[0], case.template[1], case.operands[0], case.label)  # type: ignore[arg-type]
    return call_case(case.op, *case.operands, template=case.template, label=case.label)


def _outcome(case: Case, operands: Sequence[object]):
    if case.op is None:
        from verifier.algebra.registry import Outcome

        return Outcome(operands[0], ())  # type: ignore[arg-type]
    return apply(case.op, *case.template, *operands)


def _substituted(x: object, env: Mapping[str, int]) -> object:
    from verifier.oracle.sweep import substitute

    return substitute(SweepCase("composition", (x,)), env).operands[0] if env else x


def _flat(v: object) -> list[int]:
    if isinstance(v, tuple):
        return [y for x in v for y in _flat(x)]
    return [int(v)]  # type: ignore[call-overload]


def _tdiv(a: np.ndarray, b: int) -> np.ndarray:
    q = np.abs(a) // abs(b)
    return np.where((a >= 0) == (b > 0), q, -q)


def np_eval(layout: Layout, c: np.ndarray) -> np.ndarray:
    """The model's concrete layout at every 1-D index of ``c``, vectorised by the rule of ``int_tuple.crd2idx``."""
    from verifier.core.int_tuple import product

    def go(c: np.ndarray, shape, stride) -> np.ndarray:
        if type(shape) is tuple:
            if not shape:
                return np.zeros_like(c)
            if len(shape) == 1:
                return go(c, shape[0], stride[0])
            n = int(product(shape[0]))
            q = _tdiv(c, n)
            return go(c - q * n, shape[0], stride[0]) + go(q, shape[1:], stride[1:])
        return c * int(stride)

    return go(c, layout.shape, layout.stride)


def _host_values(result: object) -> np.ndarray:
    """The host model's values as an (n, w) array: one leaf per index, more for a coordinate (scaled bases).

    Up to ``PYTHON_VALUES`` indices the model evaluates every index itself; beyond, the model's layout is
    evaluated with numpy (``np_eval``), checked against the model's own evaluation at spread-out indices."""
    if isinstance(result, Layout):
        n = int(result.size())
        if n > MAX_VALUES:
            raise LayoutError(f"size {n} is too large to enumerate on the device (limit {MAX_VALUES})")
        if n <= PYTHON_VALUES or has_basis(result.stride):
            rows = [_flat(result(i)) for i in range(n)]
            return np.asarray(rows, dtype=np.int64).reshape(n, len(rows[0]) if rows else 1)
        vals = np_eval(result, np.arange(n, dtype=np.int64))
        for i in np.linspace(0, n - 1, 257).astype(np.int64):
            if int(vals[i]) != int(result(int(i))):
                raise AssertionError(f"numpy evaluation of {result} differs from the model at {i}")
        return vals.reshape(n, 1)
    if isinstance(result, ComposedLayout):
        vals = result.values(MAX_VALUES)
        return np.asarray(vals, dtype=np.int64).reshape(len(vals), 1)
    raise Unsupported(f"the result is {type(result).__name__}, not a layout")


def evaluate(cases: Sequence[Case], host: bool, run: Runner | None = None) -> Report:
    """Run every case on the device (or, ``host=True``, the same code on the CPU) and compare (module docstring)."""
    t0 = time.perf_counter()
    plans = []
    kernels: dict[str, Kernel] = {}
    names: dict[str, str] = {}
    for case in cases:
        sym = _outcome(case, case.operands)
        if sym.rejection is not None:
            plans.append((case, None, None, None, f"CuTe rejects it: {sym.rejection}"))
            continue
        cpp = _cpp(case)
        width = 1
        try:
            first = _outcome(case, [_substituted(x, case.envs[0]) for x in case.operands])
            if first.result is not None:
                width = _host_values(first.result).shape[1]
        except (Unsupported, LayoutError):
            pass
        cname = names.setdefault(f"{cpp.code}#{width}", f"cute_{len(names)}")
        kernels.setdefault(cname, cute_kernel(cname, cpp, width))
        mname = None
        if sym.result is not None and not (isinstance(sym.result, Layout) and has_basis(sym.result.stride)):
            try:
                mk = model_kernel("m", sym.result, symbol_slots(cpp))
                mname = names.setdefault("model#" + mk.body, f"model_{len(names)}")
                kernels.setdefault(mname, model_kernel(mname, sym.result, symbol_slots(cpp)))
            except Unsupported:
                mname = None
        plans.append((case, cpp, cname, mname, None))
    run = run or runner(list(kernels.values()), host=host)
    report = Report(run.method, tried=run.tried)
    for case, cpp, cname, mname, why in plans:
        for env in case.envs:
            if cpp is None:
                report.checks.append(Check(case.label, dict(env), "rejected", why or ""))
                continue
            report.checks.append(_check(run, case, cpp, cname, mname, dict(env)))
    report.seconds = time.perf_counter() - t0
    return report


def _check(run: Runner, case: Case, cpp: CppCase, cname: str, mname: str | None, env: dict[str, int]) -> Check:
    label = case.label
    if cname in run.rejected:
        return Check(label, env, "mismatch", f"the device compiler rejects the CuTe kernel ({run.rejected[cname]}) "
                                             "but the model computes a result")
    outcome = _outcome(case, [_substituted(x, env) for x in case.operands])
    if outcome.rejection is not None:
        return Check(label, env, "rejected", f"CuTe rejects it: {outcome.rejection}")
    p = np.asarray(cpp.params(env), dtype=np.int64)
    if outcome.undefined is not None:
        # Run it anyway (it must not bring the device down), compare nothing.
        _launch_cute(run, cname, p, 0, 1, 1)
        return Check(label, env, "ub", f"the model says CuTe divides by zero ({outcome.undefined}); not compared")
    try:
        values = _host_values(outcome.result)
    except Unsupported as exc:
        return Check(label, env, "unsupported", str(exc))
    n, width = values.shape
    # CuTe's size may be negative (a static shape _-1, inverse_left.cpp:160): there are no indices to compare.
    model_size = int(outcome.result.size()) if n == 0 else n  # type: ignore[union-attr]
    flat_vals = values[:, 0] if width == 1 else np.zeros(0, dtype=np.int64)
    extent = int(flat_vals.max()) + 1 if flat_vals.size else 1
    cap = max(extent, 1) + 2 * GUARD
    launch = _launch_cute(run, cname, p, n, width, cap)
    if launch.faults is not None and launch.faults.any():
        return Check(label, env, "mismatch", "the CuTe kernel faulted in host mode where the model computes a result")
    size, cosize = int(launch.aux[0]), int(launch.aux[1])
    got = launch.out[: n * width].reshape(n, width)
    problems = []
    if size != model_size:
        problems.append(f"size: CuTe {size}, model {model_size}")
    m = max(0, min(n, size))
    bad = np.nonzero((got[:m] != values[:m]).any(axis=1))[0]
    if bad.size:
        i = int(bad[0])
        problems.append(f"{bad.size} indices differ, first at {i}: CuTe {got[i].tolist()}, model {values[i].tolist()}")
    model_ran = False
    if mname is not None and mname not in run.rejected and width == 1:
        mv = run.launch(mname, p, 0, n, np.zeros(max(n, 1), dtype=np.int64), np.zeros(1, dtype=np.int64), 0, n).out
        model_ran = True
        mbad = np.nonzero(mv[:n] != flat_vals)[0]
        if mbad.size:
            i = int(mbad[0])
            problems.append(f"the model on the device differs at {mbad.size} indices, first {i}: {int(mv[i])} vs "
                            f"{int(flat_vals[i])}")
    inj = inb = bij = None
    if width == 1 and size == n and n > 0:
        counts = launch.aux[2: 2 + cap + 1]
        dst = launch.aux[2 + cap + 1: 2 + 2 * cap + 1]
        gathered = launch.aux[2 + 3 * cap + 1: 2 + 3 * cap + 1 + n]
        j = GUARD + flat_vals
        inside = (j >= 0) & (j < cap)
        expect = np.zeros(cap + 1, dtype=np.int64)
        np.add.at(expect, np.where(inside, j, cap), 1)
        if not np.array_equal(counts, expect):
            problems.append("writes per element differ from the model's")
        if (counts[:cap][dst != 0] == 0).any():
            problems.append("an element nobody should write was written (guard or hole)")
        if not np.array_equal(gathered, np.where(inside, 3 * j + 1, -1)):
            problems.append("gathered values differ from the model's")
        inj = bool(counts.max(initial=0) <= 1)
        inb = bool(counts[cap] == 0 and counts[:GUARD].sum() == 0 and counts[GUARD + max(cosize, 0): cap].sum() == 0)
        bij = bool(inj and inb and counts[GUARD: GUARD + n].sum() == n and cosize == n)
    status = "mismatch" if problems else "agree"
    return Check(label, env, status, "; ".join(problems), indices=m, model_on_device=model_ran,
                 injective=inj, in_bounds=inb, bijective=bij)


def _launch_cute(run: Runner, cname: str, p: np.ndarray, n: int, width: int, cap: int):
    aux = np.zeros(2 + (cap + 1) + 2 * cap + max(n, 1), dtype=np.int64)
    src = aux[2 + cap + 1 + cap: 2 + cap + 1 + 2 * cap]
    src[:] = 3 * np.arange(cap, dtype=np.int64) + 1
    out = np.full(max(n, 1) * width, SENTINEL, dtype=np.int64)
    return run.launch(cname, p, 0, n, out, aux, cap, max(n, 1))


# -- the GPU sweep -------------------------------------------------------------------------------------------------

_STATUS = {0: "correct", 1: "wrong", 2: "ub", 3: "too_large", 4: "wrong", 5: "warning"}
# Caps of the successive passes: an assignment too large for one pass is run again with the next.
CAPS = (1 << 12, 1 << 15, 1 << 18, DEFAULT_CAP)
# Scratch memory of one launch (2*cap integers per thread): on the GPU, and in host mode.
SCRATCH_BYTES = 1 << 31
HOST_SCRATCH_BYTES = 1 << 27


@dataclass
class SweepRun:
    """Device statuses per assignment (keyed as ``cute_sweep.key``), the kernel time and the compile method."""

    status: dict[tuple, str]
    rejected: str | None
    seconds: float


def sweep_kernels(cases: Sequence[SweepCase]) -> tuple[list[CppCase], dict[str, Kernel], list[str]]:
    codes = [case_code(c) for c in cases]
    names: dict[str, str] = {}
    kernels: dict[str, Kernel] = {}
    per_case = []
    for cpp in codes:
        name = names.setdefault(cpp.code, f"sweep_{len(names)}")
        kernels.setdefault(name, sweep_kernel(name, cpp))
        per_case.append(name)
    return codes, kernels, per_case


def sweep(cases: Sequence[SweepCase], assignments: Sequence[Sequence[Mapping[str, int]]], host: bool,
          run: Runner | None = None, caps: Sequence[int] = CAPS) -> tuple[list[SweepRun], str]:
    """Each case over its assignments, one device thread per assignment; returns the runs and the compile method."""
    codes, kernels, per_case = sweep_kernels(cases)
    run = run or runner(list(kernels.values()), host=host)
    out = []
    for cpp, name, envs in zip(codes, per_case, assignments):
        if name in run.rejected:
            out.append(SweepRun({}, run.rejected[name], 0.0))
            continue
        out.append(sweep_device(run, name, cpp, envs, caps))
    return out, run.method


def sweep_device(run: Runner, name: str, cpp: CppCase, envs: Sequence[Mapping[str, int]],
                 caps: Sequence[int] = CAPS) -> SweepRun:
    rows = np.asarray([cpp.params(e) for e in envs], dtype=np.int64).reshape(len(envs), -1)
    stride = rows.shape[1]
    status = np.full(len(envs), 3, dtype=np.int64)
    todo = np.arange(len(envs))
    seconds = 0.0
    for cap in caps:
        if todo.size == 0:
            break
        per_thread = 2 * cap * 8
        budget = HOST_SCRATCH_BYTES if run.host else SCRATCH_BYTES
        batch = max(1, min(todo.size, budget // per_thread, 1 << 20))
        for b in range(0, todo.size, batch):
            idx = todo[b: b + batch]
            res = run.launch(name, rows[idx].reshape(-1) if stride else np.zeros(1, np.int64), stride, idx.size,
                             np.full(idx.size, -1, dtype=np.int64), idx.size * 2 * cap, cap, idx.size)
            seconds += res.seconds
            st = res.out.copy()
            if res.faults is not None:
                st[res.faults.astype(bool)] = 2
            status[idx] = st
        todo = np.nonzero(status == 3)[0]
    return SweepRun({key(e): _STATUS.get(int(s), "?") for e, s in zip(envs, status)}, None, seconds)
