"""The pytest plugin (entry point ``cute_verify`` in group ``pytest11``): spec files as tests.

Every ``*.cute.toml`` file pytest meets while collecting becomes a test file, and each of its checks a test item
that passes when the engine's verdict is the expected one.  A malformed spec file is a collection error with the
one-line message (file, line, key).  A failing item shows the verdict, its counterexample and the table around the
failing coordinate.  Verdicts go through the result cache of ``cute-verify run`` unless ``--cute-no-cache``.

The assertion helpers for ordinary tests are in ``verifier.testing``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

SUFFIX = ".cute.toml"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cute-verify", "CuTe layout spec files (*.cute.toml)")
    group.addoption("--cute-no-cache", action="store_true", default=False,
                    help="decide every check of *.cute.toml files afresh, without the result cache")


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX):
        return SpecFile.from_parent(parent, path=file_path)
    return None


class SpecFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from verifier.core.errors import LayoutError
        from verifier.run.spec import load_suite

        try:
            checks = load_suite(self.path)
        except LayoutError as exc:
            raise self.CollectError(str(exc)) from None
        for check in checks:
            item = SpecItem.from_parent(self, name=check.name, check=check)
            if check.cpp is not None:  # it compiles the C++ function against CuTe: -m "not cute" leaves it out
                item.add_marker(pytest.mark.cute)
            yield item


class CheckMismatch(Exception):
    """The verdict of a spec check is not the expected one."""


class SpecItem(pytest.Item):
    def __init__(self, *, check: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check

    def runtest(self) -> None:
        from verifier.present.report import failure_message
        from verifier.run import batch
        from verifier.testing import context_tables

        if self.check.cpp is not None:
            import verifier.oracle.cpp  # noqa: F401  (registers the cpp front end with run/batch.py)
        cache = None if self.config.getoption("cute_no_cache") else batch.ResultCache()
        [r] = batch.run([self.check], cache=cache)
        if not r.matched:
            c = self.check
            args, _ = c.problem()
            head = f"{c.file}:{c.line}: {c.name}: expected {c.expect}, got {r.verdict.verdict}"
            raise CheckMismatch(head + "\n" + failure_message(r.verdict, context_tables(r.verdict, c.op, args,
                                                                                          c.is_property)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CheckMismatch):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, self.check.line - 1, f"{self.check.file}:{self.check.line}: {self.check.name}"
