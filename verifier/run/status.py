"""A status line on standard error, only on a terminal (never in a pipe or a log): what a long command is doing,
redrawn by a thread so that it shows it is alive, and erased while the command prints and when it ends.

``cute-verify run`` shows ``[3/9] 12.4 s deciding FILE:LINE NAME`` from the start; a single command shows what the
engine is deciding (``core.activity``) once it has run for a second.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


class StatusLine:
    """``with StatusLine(text): ...`` draws ``text()`` every ``every`` seconds after ``delay`` seconds."""

    def __init__(self, text: Callable[[], str], enabled: bool = True, delay: float = 0.0, every: float = 1.0) -> None:
        self.text = text
        self.enabled = enabled and sys.stderr.isatty()
        self.delay, self.every = delay, every
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = delay <= 0

    def __enter__(self) -> StatusLine:
        if self.enabled:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Erase the line for good (idempotent)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._erase()

    def _tick(self) -> None:
        if not self._shown and self._stop.wait(self.delay):
            return
        self._shown = True
        self.draw()
        while not self._stop.wait(self.every):
            self.draw()

    def draw(self) -> None:
        if not (self.enabled and self._shown) or self._stop.is_set():
            return
        with self._lock:
            sys.stderr.write("\r\x1b[K" + self.text()[:200])
            sys.stderr.flush()

    def _erase(self) -> None:
        if self.enabled and self._shown:
            with self._lock:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()

    @contextlib.contextmanager
    def until_output(self) -> Iterator[None]:
        """The line stays until the command writes to standard output: the first write erases it for good."""
        line, out = self, sys.stdout

        class _Erasing:
            def write(self, text: str) -> int:
                line.stop()
                return out.write(text)

            def __getattr__(self, name: str) -> object:
                return getattr(out, name)

        with contextlib.redirect_stdout(_Erasing()):  # type: ignore[type-var]
            yield

    @contextlib.contextmanager
    def hidden(self) -> Iterator[None]:
        """The line erased, and not redrawn, while the caller prints."""
        with self._lock:
            self._erase()
            yield


def progress(items: Iterable[T], total: int, enabled: bool, what: Callable[[T], str] = str) -> Iterator[T]:
    """``items``, with ``[done/total] elapsed s: deciding ITEM`` on a terminal while each is worked on."""
    start = time.monotonic()
    done, current = 0, ""
    line = StatusLine(lambda: f"[{done}/{total}] {time.monotonic() - start:.1f} s: deciding {current}",
                      enabled=enabled and total > 1)
    with line:
        for item in items:
            current = what(item)
            line.draw()
            yield item
            done += 1
