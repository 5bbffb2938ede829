"""Ctrl-C that always stops a command, promptly, with exit status 130.

Two things would lose it: Z3 installs its own SIGINT handler while it solves and answers ``unknown`` (a run would
go on and exit 0), and a ``KeyboardInterrupt`` raised inside a ``__del__`` (Z3's objects free themselves there) is
printed and dropped by Python.  So Z3's handler is turned off (``solver.solve.check_sat``), SIGINT sets a flag
(and raises ``KeyboardInterrupt``, as Python's own handler does), a watcher thread woken through the signal wake-up
file descriptor interrupts a running Z3 call at once, and the command line checks the flag when a command returns.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_interrupted = threading.Event()


def interrupted() -> bool:
    """Whether Ctrl-C was pressed while ``handling()`` was active."""
    return _interrupted.is_set()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _interrupted.set()
    f = frame
    while f is not None:
        if f.f_code.co_name == "__del__":  # Python would print and drop it: raise it again a moment later
            _retry()
            return
        f = f.f_back
    raise KeyboardInterrupt


def _retry() -> None:
    import _thread

    timer = threading.Timer(0.02, _thread.interrupt_main, args=(signal.SIGINT,))
    timer.daemon = True
    timer.start()


def _watch(reader: int) -> None:
    """Interrupt Z3 for each SIGINT written to the wake-up pipe; the pipe's end (its writer closed) ends the
    thread, which owns and closes the reader, so that no other thread can close it under a pending read."""
    try:
        while True:
            try:
                data = os.read(reader, 64)
            except OSError:
                return
            if not data:
                return
            if signal.SIGINT in data:
                _stop_z3()
    finally:
        os.close(reader)


def _stop_z3() -> None:
    import sys

    z3 = sys.modules.get("z3")
    if z3 is not None:
        with contextlib.suppress(Exception):
            z3.main_ctx().interrupt()


def _unraisable(hook_args: object) -> None:
    """A ``KeyboardInterrupt`` raised in a ``__del__`` cannot propagate: raise it again in the main flow instead
    of printing it (anything else goes to Python's own hook)."""
    import sys

    if isinstance(getattr(hook_args, "exc_value", None), KeyboardInterrupt):
        _retry()
        return
    sys.__unraisablehook__(hook_args)  # type: ignore[arg-type]


@contextlib.contextmanager
def handling() -> Iterator[None]:
    """Install the handler for the duration of one command (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _interrupted.clear()
    # A pipe, not a socket pair: importing socket costs every command several milliseconds of start-up (issue 16).
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    import sys

    old_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable
    old_handler = signal.signal(signal.SIGINT, _on_sigint)
    old_fd = signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
    watcher = threading.Thread(target=_watch, args=(reader,), daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(old_fd)
        signal.signal(signal.SIGINT, old_handler)
        sys.unraisablehook = old_hook
        os.close(writer)  # the watcher reads the end of the pipe, closes the reader and ends


__all__ = ["handling", "interrupted"]
