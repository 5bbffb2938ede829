"""The CuTe Python DSL (``nvidia-cutlass-dsl`` 4.8.1): its semantics as a second ground truth, and verifying
the layouts of a user's host-side ``@cute.jit`` function.

* ``harness``: runs cases in the real DSL on the CPU (trace-time form, run-time values), cached per case;
* ``model``: our algebra with ``dsl`` semantics in the harness's terms, and the comparison of the two;
* ``trace``: the DSL's printed forms (``?``, ``?{div=8}``);
* ``tracer``: ``cute-verify dsl FILE.py::FUNCTION`` (``verify_function`` here, ``assert_layouts_valid`` for
  pytest).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.dsl.tracer import Finding, Trace, TraceError, crosscheck, trace, verify_trace

_TRACER = ("Finding", "Trace", "TraceError", "crosscheck", "trace", "verify_trace")


def __getattr__(name: str) -> object:
    """The tracer loads on first use (it loads the algebra): ``cute-verify``'s parser imports ``dsl.cli``."""
    if name in _TRACER:
        from verifier.dsl import tracer

        return getattr(tracer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def verify_function(target: str, args: Mapping[str, tuple[int, int]] | None = None, assume: Sequence[str] = (),
                    timeout: float | None = None) -> tuple[Trace, list[Finding]]:
    """Trace ``FILE.py::FUNCTION`` and verify each layout operation it performs (``args``: parameter ranges,
    ``assume``: relations such as ``"bm*128 < M"``)."""
    from verifier.dsl.tracer import trace, verify_trace

    t = trace(target, args, assume)
    return t, verify_trace(t, timeout=timeout)


def assert_layouts_valid(target: str, args: Mapping[str, tuple[int, int]] | None = None,
                         assume: Sequence[str] = (), timeout: float | None = None) -> None:
    """For a pytest test: fail with the report unless every layout operation of the function is valid."""
    from verifier.dsl.report import exit_code, render_text

    t, findings = verify_function(target, args, assume, timeout)
    if exit_code(findings) != 0:
        raise AssertionError(render_text(t, findings))


__all__ = ["Finding", "Trace", "TraceError", "assert_layouts_valid", "crosscheck", "trace", "verify_function",
           "verify_trace"]
