"""Shared fixtures, and the guard of the ``cute`` marker.

The compiled-CuTe harness is required: a missing g++ or CuTe header fails loudly.

Every test that compiles CuTe carries ``@pytest.mark.cute``, so that ``python -m pytest -m "not cute"`` is a fast
suite that needs no g++.  Compiling CuTe means reaching one of ``ENTRY_POINTS``: g++ against the CuTe headers
(``verifier.oracle.cute_cpp.build``, through which ``oracle.sweep``, ``oracle.atoms_gen`` and ``run_cases`` compile,
and ``cute_cpp.compiler``, which finds g++ for whoever is about to run it), cuda_harness's host and device builds,
or the CuTe DSL's JIT (``verifier.dsl.harness``, the tracer's cross-check).  A binary found in the cache
(~/.cache/cute-layout-verifier) still counts: the guard watches the call into the oracle, not the g++ process.
A test not marked ``cute`` fails when

* it (or a fixture it uses, whatever its scope) calls an entry point in this process;
* it requests the ``cute`` fixture (the toolchain check);
* a subprocess it starts leaves a compiled artefact in the cache: while it runs, ``CUTE_VERIFY_CACHE`` points at a
  scratch folder of the session, where a compile cannot hit the shared cache and leaves its binary behind.
  (A subprocess given an environment without ``CUTE_VERIFY_CACHE`` escapes this check.)

``tests/project/test_suite_layout.py`` checks that the entry points still exist, so a rename cannot disarm this.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from functools import wraps
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

from tests.support import tiers
from verifier.oracle import cute_cpp

# Hypothesis's default deadline (200 ms an example) is wall-clock time: on a loaded machine a correct example fails
# it (issue 29, class 9: the test command must pass on a busy machine).  The suite's examples are bounded by their
# counts (a hanging solver call by the tool's own hang guard, verifier/solver/budget.py), so no example is timed.
settings.register_profile("cute-verify", deadline=None)
settings.load_profile("cute-verify")

# The functions through which the suite compiles (or loads a compiled) CuTe; each module is patched when imported.
# ``compiler`` finds g++: whatever asks for it is about to run it (bench_compile's -fsyntax-only, the tool check).
ENTRY_POINTS: dict[str, tuple[str, ...]] = {
    "verifier.oracle.cute_cpp": ("build", "compiler"),
    "verifier.dsl.harness": ("run",),
    "verifier.dsl.tracer": ("crosscheck",),
    "cuda_harness.build": ("host_library", "gpu_module"),
}
# What a compile leaves in the cache folder (``results/`` holds verdicts, which any test may write).
ARTEFACT_FOLDERS = ("cpp", "cuda", "dsl")

_current: pytest.Item | None = None
_violations: dict[str, list[str]] = {}


class CompilesCute(AssertionError):
    """A test not marked ``cute`` reached an entry point that compiles CuTe."""


def _unmarked(item: pytest.Item | None) -> bool:
    return item is not None and item.get_closest_marker("cute") is None


def _guarded(where: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(fn)
    def guard(*args: Any, **kwargs: Any) -> Any:
        if _current is None:
            raise CompilesCute(f"CuTe compiled outside any test ({where}): at import or collection time, which "
                               "-m 'not cute' cannot deselect")
        if _unmarked(_current):
            msg = (f"{_current.nodeid} compiles CuTe ({where}) but is not marked @pytest.mark.cute "
                   "(tests/conftest.py: the fast suite -m 'not cute' must need no g++)")
            _violations.setdefault(_current.nodeid, []).append(msg)
            raise CompilesCute(msg)
        return fn(*args, **kwargs)

    guard.__cute_guard__ = fn  # type: ignore[attr-defined]
    return guard


def _patch(module: ModuleType) -> None:
    for name in ENTRY_POINTS[module.__name__]:
        fn = getattr(module, name)
        if getattr(fn, "__cute_guard__", None) is not None:
            continue
        guard = _guarded(f"{module.__name__}.{name}", fn)
        # Modules that imported the function by name before it was patched hold the original: rebind them too.
        for other in list(sys.modules.values()):
            for attr, value in list(getattr(other, "__dict__", {}).items()):
                if value is fn:
                    setattr(other, attr, guard)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches an entry point's module right after it executes, before anyone can import the function by name."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if name not in ENTRY_POINTS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


@pytest.hookimpl(tryfirst=True)  # before -m reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the fast tier (``-m fast``, tests/support/tiers.py).  The ``long`` variants run only when asked for by
    name (``-m long``, or a -m expression that names it): the default run, the one the README gives, stays bounded."""
    durations = tiers.recorded()
    for item in items:
        if tiers.is_fast(item, durations):
            item.add_marker(pytest.mark.fast)
    if "long" in (config.getoption("markexpr") or ""):
        return
    kept = [item for item in items if item.get_closest_marker("long") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("long") is not None])
        items[:] = kept


def pytest_configure(config: pytest.Config) -> None:
    sys.meta_path.insert(0, _PatchOnImport())
    for name in ENTRY_POINTS:
        if name in sys.modules:
            _patch(sys.modules[name])


def _artefacts(root: Path) -> set[Path]:
    return {p for f in ARTEFACT_FOLDERS if (root / f).is_dir() for p in (root / f).rglob("*") if p.is_file()}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    global _current
    _current = item
    # Every test starts and ends in the folder the suite started in: a test (or a library it drives) that leaves the
    # process in a temporary folder, which is then deleted, made every later in-process command fail on getcwd.
    cwd = item.config.invocation_params.dir
    saved = os.environ.get("CUTE_VERIFY_CACHE")
    scratch = None
    if _unmarked(item):
        scratch = item.config._cute_guard_cache  # type: ignore[attr-defined]
        os.environ["CUTE_VERIFY_CACHE"] = str(scratch)
    try:
        yield
    finally:
        _current = None
        os.chdir(cwd)
        if saved is None:
            os.environ.pop("CUTE_VERIFY_CACHE", None)
        else:
            os.environ["CUTE_VERIFY_CACHE"] = saved


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    session.config._cute_guard_cache = Path(tempfile.mkdtemp(prefix="cute-guard-cache-"))  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    shutil.rmtree(session.config._cute_guard_cache, ignore_errors=True)  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not _unmarked(item):
        return
    problems = list(_violations.pop(item.nodeid, []))
    if "cute" in getattr(item, "fixturenames", ()):
        problems.append(f"{item.nodeid} requests the `cute` fixture (g++ and the CuTe headers) but is not marked "
                        "@pytest.mark.cute")
    scratch: Path = item.config._cute_guard_cache  # type: ignore[attr-defined]
    left = _artefacts(scratch)
    if left:
        problems.append(f"{item.nodeid} compiled CuTe in a subprocess (left {sorted(p.name for p in left)[:3]} in "
                        "CUTE_VERIFY_CACHE) but is not marked @pytest.mark.cute")
        for p in left:
            p.unlink()
    if problems and report.passed:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
    elif problems:  # it failed anyway (perhaps because the guard's exception was caught): say why too
        report.sections.append(("cute marker guard", "\n".join(problems)))


@pytest.fixture(scope="session")
def cute() -> object:
    """The harness module, after checking that g++, the CuTe headers and the CUDA headers are present."""
    cute_cpp.compiler()
    cute_cpp.cute_include()
    cute_cpp.cuda_includes()
    return cute_cpp
