"""Runs one batch of DSL cases in its own process (``python -m verifier.dsl._worker IN OUT``).

IN is JSON: ``{"source": <Python text of the batch module>, "calls": [[values of p0, p1, ...], ...]}``; the module
defines ``batch`` (a host-side ``@cute.jit`` function of the parameters ``p0 ...``) and ``TRACE``, a dict that the
batch fills at trace time with each case's printed form or its error. Run-time values come from ``cute.printf``
on the process's stdout, one ``@<case> <value>`` line per case and call after an ``@@call`` line. OUT receives
``{"trace": TRACE}`` once the function is compiled. A crash while tracing or compiling (an abort in the DSL's
library) leaves OUT unwritten, and the caller bisects; a crash in a call leaves OUT and the lines printed before it,
which name the culprit."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile


def main(argv: list[str]) -> int:
    with open(argv[1]) as f:
        job = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        # The DSL reads a jit function's source back (inspect.getsource), so the batch must live in a real file.
        path = os.path.join(tmp, "dsl_batch.py")
        with open(path, "w") as f:
            f.write(job["source"])
        spec = importlib.util.spec_from_file_location("dsl_batch", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        import cutlass.cute as cute

        calls = job["calls"]
        compiled = cute.compile(mod.batch, *calls[0])
        # The trace is written before any call: a call that dies (SIGFPE on a run-time division by zero) then
        # leaves the trace and, with C stdio unbuffered, every line printed before the fault.
        with open(argv[2] + ".tmp", "w") as f:
            json.dump({"trace": mod.TRACE}, f)
        os.replace(argv[2] + ".tmp", argv[2])
        sys.stdout.flush()
        _unbuffer_c_stdout()
        for values in calls:
            compiled(*values)
    return 0


def _unbuffer_c_stdout() -> None:
    import ctypes

    libc = ctypes.CDLL(None)
    stdout = ctypes.c_void_p.in_dll(libc, "stdout")
    libc.setvbuf(stdout, None, 2, 0)  # _IONBF


if __name__ == "__main__":
    sys.exit(main(sys.argv))
