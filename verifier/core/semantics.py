"""Which CuTe the algebra reproduces: ``cpp`` (the C++ headers of CUTLASS 4.2, the default) or ``dsl`` (the CuTe
Python DSL, ``nvidia-cutlass-dsl`` 4.8.1).  The two share every algorithm; where the DSL's differs, the algebra
function has a named branch (``if dsl():``) citing the DSL's source or the observed behaviour that shows it
(``tests/differential/test_dsl_semantics.py``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from verifier.core.errors import CuteRejection, LayoutError

SEMANTICS = ("cpp", "dsl")
_current: ContextVar[str] = ContextVar("cute_semantics", default="cpp")
# ``using`` blocks entered and not yet left, in every thread: while there is none the semantics is the default
# and the context variable need not be read (the algebra asks several times per operation).
_open = 0
_open_lock = threading.Lock()


def current() -> str:
    return _current.get() if _open else "cpp"


def dsl() -> bool:
    """True while the algebra computes what the CuTe DSL computes."""
    return _open != 0 and _current.get() == "dsl"


def check(name: str) -> str:
    if name not in SEMANTICS:
        raise LayoutError(f"unknown semantics {name!r}: expected 'cpp' (the C++ headers) or 'dsl' (the CuTe DSL)")
    return name


@contextmanager
def using(name: str) -> Iterator[None]:
    """Run the enclosed algebra with the semantics ``name``."""
    global _open
    with _open_lock:
        _open += 1
    token = _current.set(check(name))
    try:
        yield
    finally:
        _current.reset(token)
        with _open_lock:
            _open -= 1


class DslRefusal(CuteRejection):
    """The CuTe DSL refuses the operands while tracing (an ``MLIRError`` from its ``cute`` dialect) where the C++
    headers compute something; ``source`` names the DSL function and the observation that shows it."""

    def __init__(self, message: str, source: str) -> None:
        self.assertion = message
        self.source = source
        LayoutError.__init__(self, f"the CuTe DSL refuses this while tracing: \"{message}\" ({source})")


class DslInvalidLayout(DslRefusal):
    """The CuTe DSL returns a layout it cannot use: printed ``x:x`` at trace time, an ``MLIRError`` when used."""

    def __init__(self, source: str) -> None:
        self.assertion = "an invalid layout, printed x:x"
        self.source = source
        LayoutError.__init__(self, "the CuTe DSL returns an invalid layout (printed \"x:x\"); any use of it raises "
                                   f"MLIRError ({source})")
