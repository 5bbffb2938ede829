"""The ``cute-verify`` command: one module per command. ``app`` dispatches; ``gpu`` is registered only when the
``cuda_harness`` package imports.
"""

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """The ``cute-verify`` console script (``verifier.cli:main``, also the entry point of installs made before the
    command line became a package); the dispatcher lives in ``verifier.cli.app``, imported on the call so that
    importing one command module does not load them all."""
    from verifier.cli.app import main as dispatch

    return dispatch(argv)
