"""Traces a user's ``@cute.jit`` function with the real DSL (``python -m verifier.dsl._crosscheck FILE FUNCTION
VALUES_JSON OUT``), recording the trace-time form of every layout operation's result with the line of the
user's file that called it; ``tracer.crosscheck`` compares them with the tracer's own forms."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path


def recorded() -> tuple[str, ...]:
    """The DSL functions whose results are recorded: ``make_layout`` and the operations whose declarations say
    ``RECORDED`` (``algebra.declare``)."""
    from verifier.algebra.declare import RECORDED
    from verifier.algebra.registry import REGISTRY

    return ("make_layout", *(n for n, r in REGISTRY.items() if RECORDED in r.dsl))


def main(argv: list[str]) -> int:
    path, name, values, out = Path(argv[1]).resolve(), argv[2], json.loads(argv[3]), argv[4]
    import cutlass.cute as cute

    seen: list[dict[str, object]] = []

    def line() -> int:
        for frame in traceback.extract_stack():
            if Path(frame.filename).resolve() == path:
                return frame.lineno or 0
        return 0

    def wrap(op: str, fn: Callable[..., object]) -> Callable[..., object]:
        @functools.wraps(fn)
        def recorded(*args: object, **kwargs: object) -> object:
            where = line()
            r = fn(*args, **kwargs)
            if where and op != "make_layout":
                shown = getattr(r, "layout", r)
                seen.append({"op": op, "line": where, "trace": str(shown)})
            return r
        return recorded

    for op in recorded():
        setattr(cute, op, wrap(op, getattr(cute, op)))
    spec = importlib.util.spec_from_file_location("_cute_verify_crosscheck", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    error = None
    try:
        getattr(module, name)(*values)
    except Exception as exc:  # noqa: BLE001 - the DSL's refusal is part of what is compared
        error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    with open(out + ".tmp", "w") as f:
        json.dump({"ops": seen, "error": error}, f)
    os.replace(out + ".tmp", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
