"""Shared fixtures. The compiled-CuTe harness is required: a missing g++ or CuTe header fails loudly."""

from __future__ import annotations

import pytest

from verifier.oracle import cute_cpp


@pytest.fixture(scope="session")
def cute() -> object:
    """The harness module, after checking that g++, the CuTe headers and the CUDA headers are present."""
    cute_cpp.compiler()
    cute_cpp.cute_include()
    cute_cpp.cuda_includes()
    return cute_cpp
