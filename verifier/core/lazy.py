"""Names a package exports without importing their modules until first used (``verifier``, ``verifier.algebra``):
``import verifier`` stays cheap, and a command that needs only the algebra never loads the solver."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping


def lazy_exports(namespace: MutableMapping[str, object], modules: Mapping[str, str]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__`` for ``modules`` (module name -> space-separated names): a name
    is imported from its module when first asked and then kept in ``namespace`` (the package's globals)."""
    where = {name: module for module, names in modules.items() for name in names.split()}

    def get(name: str) -> object:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")

    def listing() -> list[str]:
        return sorted(set(namespace) | set(where))

    return get, listing
