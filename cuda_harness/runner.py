"""Launching the generated kernels on the GPU (CuPy) or on the CPU (host mode, the g++ build of the same text).

``runner(kernels, host=...)`` builds the unit (``build.py``) and returns a ``Runner`` whose ``launch`` takes numpy
arrays and returns numpy arrays, whichever side ran the threads.  On the GPU a launch is ``ceil(nthreads/256)``
blocks of 256 threads; in host mode the threads run in a loop and a thread that faults (SIGFPE) is reported in
``faults`` (the GPU does not trap integer division by zero: there ``faults`` is None).
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from cuda_harness.build import Built, gpu_module, host_library
from cuda_harness.kernels import Kernel
from cuda_harness.probe import gpu_available

BLOCK = 256


@dataclass
class Launch:
    out: np.ndarray
    aux: np.ndarray
    faults: np.ndarray | None
    seconds: float  # the kernel's own time (GPU: between events around the launch; host: wall clock)


class Runner:
    """Kernels built in one or more units (``builts``), launched by name."""

    def __init__(self, builts: Sequence[Built], names: Sequence[Sequence[str]], host: bool) -> None:
        self.builts = list(builts)
        self.host = host
        self._where = {n: b for b, ns in zip(self.builts, names) for n in ns}
        self.rejected: dict[str, str] = {k: v for b in self.builts for k, v in b.rejected.items()}

    @property
    def method(self) -> str:
        return ", ".join(sorted({b.method for b in self.builts}))

    @property
    def tried(self) -> list[str]:
        return sorted({t for b in self.builts for t in b.tried})

    def launch(self, name: str, p: np.ndarray, stride: int, n: int, out: np.ndarray, aux: np.ndarray | int,
               cap: int, nthreads: int) -> Launch:
        """Run ``nthreads`` threads of kernel ``name``. ``aux`` is an array (copied in and back) or, for scratch
        memory nobody reads back, a number of uninitialised elements (then ``Launch.aux`` is empty)."""
        if name in self.rejected:
            raise KeyError(f"kernel {name} was rejected by the compiler: {self.rejected[name]}")
        p = np.ascontiguousarray(p, dtype=np.int64)
        if p.size == 0:
            p = np.zeros(1, dtype=np.int64)
        if self.host:
            return self._host(name, p, stride, n, out, aux, cap, nthreads)
        return self._gpu(name, p, stride, n, out, aux, cap, nthreads)

    def _host(self, name, p, stride, n, out, aux, cap, nthreads) -> Launch:
        fn = getattr(self._where[name].handle, name)
        fn.restype = ctypes.c_longlong
        out = np.ascontiguousarray(out, dtype=np.int64)
        scratch = isinstance(aux, int)
        aux = np.empty(max(aux, 1), dtype=np.int64) if isinstance(aux, int) else np.ascontiguousarray(aux, np.int64)
        faults = np.zeros(max(nthreads, 1), dtype=np.int64)
        ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
        ll = ctypes.c_longlong
        t0 = time.perf_counter()
        fn(ptr(p), ll(stride), ll(n), ptr(out), ptr(aux), ll(cap), ll(nthreads), ptr(faults))
        seconds = time.perf_counter() - t0
        return Launch(out, np.zeros(0, np.int64) if scratch else aux, faults[:nthreads], seconds)

    def _gpu(self, name, p, stride, n, out, aux, cap, nthreads) -> Launch:
        import cupy

        fn = self._where[name].handle.get_function(name)  # type: ignore[attr-defined]
        dp, dout = cupy.asarray(p), cupy.asarray(out, dtype=cupy.int64)
        scratch = isinstance(aux, int)
        daux = cupy.empty(max(aux, 1), dtype=cupy.int64) if isinstance(aux, int) else cupy.asarray(aux, cupy.int64)
        grid = max(1, (nthreads + BLOCK - 1) // BLOCK)
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn((grid,), (BLOCK,), (dp, np.int64(stride), np.int64(n), dout, daux, np.int64(cap), np.int64(nthreads)))
        stop.record()
        stop.synchronize()
        seconds = cupy.cuda.get_elapsed_time(start, stop) / 1000.0
        return Launch(cupy.asnumpy(dout), np.zeros(0, np.int64) if scratch else cupy.asnumpy(daux), None, seconds)


def runner(kernels: Sequence[Kernel], host: bool, chunk: int = 48, jobs: int | None = None) -> Runner:
    """Build ``kernels`` for the GPU (``host=False``; CuPy and a GPU are required) or the CPU, ``chunk`` kernels
    per unit, the units in parallel."""
    if not host:
        why = gpu_available()
        if why is not None:
            raise RuntimeError(f"no GPU: {why}")
    parts = [list(kernels[i:i + chunk]) for i in range(0, len(kernels), chunk)] or [[]]
    build = host_library if host else gpu_module
    jobs = jobs or max(1, min(len(parts), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        builts = list(pool.map(build, parts))
    return Runner(builts, [[k.name for k in part] for part in parts], host=host)
