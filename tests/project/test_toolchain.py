"""CI must fail, not skip, when the tools the differential tests need are missing."""

import os
import subprocess
import sys

import pytest

from verifier.oracle import cute_cpp


@pytest.mark.cute
def test_gxx_and_headers_present() -> None:
    assert cute_cpp.compiler()
    assert (cute_cpp.cute_include() / "cute" / "layout.hpp").is_file()
    assert any((p / "cuda_runtime_api.h").is_file() for p in cute_cpp.cuda_includes())


def test_missing_compiler_is_a_loud_error() -> None:
    code = ("import verifier.oracle.cute_cpp as c\n"
            "try:\n    c.compiler()\nexcept c.ToolMissing as e:\n    print('MISSING', e)\n")
    env = dict(os.environ, CXX="no-such-compiler-xyz")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith("MISSING") and "g++" in out.stdout


def test_missing_headers_is_a_loud_error(tmp_path) -> None:
    code = ("import sys, verifier.oracle.cute_cpp as c\n"
            "sys.modules['cutlass_library'] = None\n"
            "try:\n    c.cute_include()\nexcept c.ToolMissing as e:\n    print('MISSING', e)\n")
    env = dict(os.environ, CUTE_INCLUDE=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.startswith("MISSING") and "nvidia-cutlass" in out.stdout
