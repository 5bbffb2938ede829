"""Runs DSL cases in its own process (``python -m verifier.dsl._worker IN OUT``), importing the DSL once.

IN is JSON: ``{"cases": [{"body": ..., "nparams": n, "calls": [[values], ...]}, ...]}``.  Each attempt writes a
module with one host-side ``@cute.jit`` function over the pending cases (``harness._batch_source``) and runs it in
a forked child: the child compiles it (the trace-time forms land in ``TRACE``, written to a file before any call),
then calls it once per assignment with C stdio unbuffered, so that ``cute.printf``'s lines survive a crash.

* A child that dies before writing the trace (an abort in the DSL's library while tracing) makes the pending set
  split in halves until the culprit is alone: it is recorded as crashed.
* A child that dies in a call (SIGFPE: a run-time division by zero) names the culprit, the first case that would
  have printed after the last line: it is recorded as crashed at run time and the others run again without it.

OUT receives ``{"results": [{"trace", "error", "values", "crashed"}, ...]}`` in the order of IN."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
import tempfile
from typing import Any

_SIGNALS = {signal.SIGABRT: "SIGABRT", signal.SIGFPE: "SIGFPE", signal.SIGSEGV: "SIGSEGV",
            signal.SIGBUS: "SIGBUS", signal.SIGILL: "SIGILL"}


def _unbuffer_c_stdout() -> None:
    import ctypes

    libc = ctypes.CDLL(None)
    libc.setvbuf(ctypes.c_void_p.in_dll(libc, "stdout"), None, 2, 0)  # _IONBF


def _attempt(tmp: str, n: int, cases: list[dict[str, Any]], pending: list[int]
             ) -> tuple[dict[str, Any] | None, str, str]:
    """Compile and call the pending cases in a forked child: (trace or None, stdout, why it died or "")."""
    from verifier.dsl.harness import batch_source

    items, nparams = [], 0
    for k in pending:
        items.append((k, cases[k]["body"], nparams, cases[k]["nparams"]))
        nparams += cases[k]["nparams"]
    calls = []
    for j in range(max(len(cases[k]["calls"]) for k in pending)):
        row: list[int] = []
        for k in pending:
            c = cases[k]["calls"]
            row += c[min(j, len(c) - 1)]
        calls.append(row)
    path = os.path.join(tmp, f"dsl_batch_{n}.py")
    with open(path, "w") as f:
        f.write(batch_source(items, nparams))
    spec = importlib.util.spec_from_file_location(f"dsl_batch_{n}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # defines the jit function; nothing is traced until the child compiles it
    trace_path, out_path = os.path.join(tmp, f"trace_{n}.json"), os.path.join(tmp, f"stdout_{n}.txt")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            import cutlass.cute as cute

            compiled = cute.compile(mod.batch, *calls[0])
            with open(trace_path + ".tmp", "w") as f:
                json.dump(mod.TRACE, f)
            os.replace(trace_path + ".tmp", trace_path)
            _unbuffer_c_stdout()
            for values in calls:
                compiled(*values)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent through the exit status
            with open(trace_path + ".err", "w") as f:
                f.write(f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}")
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    trace = None
    if os.path.exists(trace_path):
        with open(trace_path) as f:
            trace = json.load(f)
    with open(out_path, errors="replace") as f:
        stdout = f.read()
    why = ""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        why = f"killed by signal {sig} ({_SIGNALS.get(sig, 'signal')})"  # type: ignore[call-overload]
    elif os.WEXITSTATUS(status) != 0:
        why = "the DSL failed outside any case"
        if os.path.exists(trace_path + ".err"):
            with open(trace_path + ".err") as f:
                why = f.read()
    return trace, stdout, why


def _run(tmp: str, cases: list[dict[str, Any]], pending: list[int], out: dict[int, dict[str, Any]],
         counter: list[int]) -> None:
    while pending:
        counter[0] += 1
        trace, stdout, why = _attempt(tmp, counter[0], cases, pending)
        began = "@@call" in stdout
        if trace is None or (why and not began):
            if len(pending) == 1:
                out[pending[0]] = {"trace": None, "error": None, "values": [], "crashed": why or "no result"}
                return
            half = len(pending) // 2
            _run(tmp, cases, pending[:half], out, counter)
            _run(tmp, cases, pending[half:], out, counter)
            return
        printed: dict[int, list[str]] = {k: [] for k in pending}
        last = None
        for line in stdout.splitlines():
            if line.startswith("@@call"):
                last = None
            elif line.startswith("@"):
                key, _, value = line[1:].partition(" ")
                if key.isdigit() and int(key) in printed:
                    printed[int(key)].append(value.strip())
                    last = int(key)
        printing = [k for k in pending if trace.get(str(k), {}).get("error", "x") is None]
        if why:
            after = printing[printing.index(last) + 1:] if last is not None else printing
            if not after:  # nothing names the culprit: split
                if len(pending) == 1:
                    out[pending[0]] = {"trace": None, "error": None, "values": [], "crashed": why}
                    return
                half = len(pending) // 2
                _run(tmp, cases, pending[:half], out, counter)
                _run(tmp, cases, pending[half:], out, counter)
                return
            culprit = after[0]
            out[culprit] = {"trace": trace[str(culprit)]["trace"], "error": None, "values": [],
                            "crashed": f"at run time: {why}"}
            pending = [k for k in pending if k != culprit]
            continue
        for k in pending:
            t = trace.get(str(k), {"trace": None, "error": "the case did not run"})
            n = len(cases[k]["calls"])
            out[k] = {"trace": t["trace"], "error": t["error"],
                      "values": printed[k][:n] if t["error"] is None else [], "crashed": None}
        return


def main(argv: list[str]) -> int:
    with open(argv[1]) as f:
        cases = json.load(f)["cases"]
    import cutlass.cute  # noqa: F401 - imported once; every forked child inherits it

    out: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="cute-dsl-") as tmp:
        _run(tmp, cases, list(range(len(cases))), out, [0])
    with open(argv[2] + ".tmp", "w") as f:
        json.dump({"results": [out[k] for k in range(len(cases))]}, f)
    os.replace(argv[2] + ".tmp", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
