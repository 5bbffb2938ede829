"""Building a generated unit: for the GPU through NVRTC (CuPy) or nvcc, and for the CPU through g++ (host mode).

GPU: ``gpu_module(kernels)`` tries, in order, (1) ``cupy.RawModule(code=..., backend="nvrtc")``, (2) NVRTC called
directly through ``cupy.cuda.nvrtc`` with only our include paths (CuPy's own RawModule adds its bundled CCCL headers
in front of the toolkit's, which the CuTe headers do not compile against) and the cubin loaded with
``cupy.RawModule(path=...)``, (3) ``nvcc -cubin`` and ``cupy.RawModule(path=...)``.  The first that compiles is
used and named in the result, with why the earlier ones failed.

Host: ``host_library(kernels)`` compiles the same text with g++ into a shared library (cached by a hash of the text
and the compiler) and loads it with ctypes; every kernel runs its threads in a loop.

A kernel the compiler rejects (a ``static_assert`` of CuTe, say) is isolated: its diagnostics are attributed to
its line span and the unit is rebuilt without it; the rejection is reported for that kernel only.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cuda_harness.kernels import Kernel, unit
from verifier.oracle.cute_cpp import cache_dir, compiler, cuda_includes, cute_include
from verifier.run.files import write_atomic

HOST_FLAGS = ("-std=c++17", "-O1", "-fwrapv", "-fnon-call-exceptions", "-fno-delete-dead-exceptions", "-shared",
              "-fPIC", "-w")
# Part of every cache key: bump it when the generated text's meaning changes without the text changing.
VERSION = "1"


class BuildError(RuntimeError):
    """No compiler could build the unit, for a reason outside any one kernel."""


@dataclass
class Built:
    """A built unit: how (``method``), the kernels it rejected with the first error of each, and the handle."""

    method: str
    rejected: dict[str, str]
    handle: object
    tried: list[str] = field(default_factory=list)


def _includes() -> list[str]:
    return [str(cute_include()), *(str(p) for p in cuda_includes())]


# Diagnostics name a line of our file as "unit.cu(12): error", "unit.cpp:12:3: error", or, in a template
# instantiation chain of NVRTC/nvcc, "at line 12 of unit.cu" / "required from here" lines of g++.
_REF = re.compile(r"(?:(?P<f1>[\w./-]*unit\.(?:cu|cpp))(?:\((?P<l1>\d+)\)|:(?P<l2>\d+):)|"
                  r"at line (?P<l3>\d+) of (?P<f3>[\w./-]*unit\.(?:cu|cpp)))")


def attribute(stderr: str, spans: dict[str, tuple[int, int]]) -> dict[str, str]:
    """Kernels named by the diagnostics, each with the first error message that mentions it."""
    def kernel_at(line: int) -> str | None:
        for name, (a, b) in spans.items():
            if a <= line <= b:
                return name
        return None

    found: dict[str, str] = {}
    message = ""
    in_warning = False
    for raw in stderr.splitlines():
        # A warning and the instantiation lines under it blame nothing (NVRTC prints them even when it fails).
        if "warning" in raw and "error" not in raw:
            in_warning = True
            continue
        if "error" in raw and ("error:" in raw or "error " in raw):
            in_warning = False
            msg = raw.split("error", 1)[1].lstrip(": ").strip()
            sa = re.search(r"static assert(?:ion)? failed(?: with)?:?\s*(.*)", msg)
            message = (sa.group(1).strip().strip('"') or "static assertion failed") if sa else f"compile error: {msg}"
        if in_warning:
            continue
        for m in _REF.finditer(raw):
            line = int(m.group("l1") or m.group("l2") or m.group("l3"))
            k = kernel_at(line)
            if k is not None and k not in found:
                found[k] = message or "compile error"
    return found


def _isolating(kernels: Sequence[Kernel], compile_once,
               max_rejected: int | None = None) -> tuple[object, dict[str, str]]:
    """Compile, dropping the kernels the diagnostics blame, until the rest compiles (or more than ``max_rejected``
    are blamed: then the compiler, not the kernels, is the problem)."""
    rejected: dict[str, str] = {}
    for _ in range(len(kernels) + 1):
        if max_rejected is not None and len(rejected) > max_rejected:
            raise BuildError(f"the compiler rejects {len(rejected)} kernels, e.g. {next(iter(rejected.values()))}")
        live = [k for k in kernels if k.name not in rejected]
        text, spans = unit(live)
        ok, handle, log = compile_once(text)
        if ok:
            return handle, rejected
        blamed = attribute(log, spans)
        if not blamed:
            raise BuildError("the unit failed to compile outside any kernel:\n" + log[-3000:])
        rejected.update(blamed)
    raise BuildError("could not isolate the kernels the compiler rejects")  # pragma: no cover


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join((VERSION, *parts)).encode()).hexdigest()[:32]


def _out_dir() -> Path:
    d = cache_dir().parent / "cuda"
    d.mkdir(parents=True, exist_ok=True)
    return d


# -- host mode ---------------------------------------------------------------------------------------------------


def host_library(kernels: Sequence[Kernel]) -> Built:
    """The unit compiled by g++ as a shared library (cached), loaded with ctypes."""
    if not kernels:
        return Built("g++ (host mode)", {}, None)
    cxx = compiler()
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False).stdout.split("\n")[0]
    text0, _ = unit(kernels)
    key = _key("host", text0, version, *HOST_FLAGS, *_includes())
    lib, meta = _out_dir() / f"{key}.so", _out_dir() / f"{key}.json"
    if not (lib.is_file() and meta.is_file()):
        def once(text: str) -> tuple[bool, object, str]:
            with tempfile.TemporaryDirectory(prefix="cuda-harness-") as tmp:
                src, out = Path(tmp) / "unit.cpp", Path(tmp) / "unit.so"
                src.write_text(text)
                cmd = [cxx, *HOST_FLAGS, *(f"-I{p}" for p in _includes()), str(src), "-o", str(out)]
                proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
                if proc.returncode == 0:
                    write_atomic(lib, out.read_bytes())
                return proc.returncode == 0, None, proc.stderr

        _, rejected = _isolating(kernels, once)
        write_atomic(meta, json.dumps({"rejected": rejected}).encode())
    rejected = json.loads(meta.read_text())["rejected"]
    return Built("g++ (host mode)", rejected, ctypes.CDLL(str(lib)))


# -- GPU ---------------------------------------------------------------------------------------------------------


def _arch() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return f"{props['major']}{props['minor']}"


def _first_error(log: str) -> str:
    for line in log.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return log.strip().splitlines()[-1][:300] if log.strip() else "failed"


def _via_rawmodule(text: str, first: str) -> tuple[bool, object, str]:
    import cupy

    try:
        mod = cupy.RawModule(code=text, options=("-std=c++17", "-default-device", "-w",
                                                 *(f"-I{p}" for p in _includes())), backend="nvrtc")
        mod.get_function(first)
        return True, mod, ""
    except Exception as exc:  # noqa: BLE001 - CuPy reports compile errors as several exception types
        return False, None, str(exc)


def _via_nvrtc(text: str, arch: str, cubin: Path) -> tuple[bool, object, str]:
    import cupy
    from cupy.cuda import nvrtc

    prog = nvrtc.createProgram(text, "unit.cu", (), ())
    try:
        # -default-device: CuTe's unannotated constexpr helpers (int_tuple.hpp, tuple.hpp) become device functions.
        opts = ("-std=c++17", "-default-device", "-w", f"--gpu-architecture=sm_{arch}",
                *(f"--include-path={p}" for p in _includes()))
        try:
            nvrtc.compileProgram(prog, opts)
        except Exception:  # noqa: BLE001 - the log says why
            return False, None, nvrtc.getProgramLog(prog)
        write_atomic(cubin, nvrtc.getCUBIN(prog))
    finally:
        nvrtc.destroyProgram(prog)
    return True, cupy.RawModule(path=str(cubin)), ""


def _nvcc() -> str | None:
    return shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if os.path.exists(p)), None)


def _via_nvcc(text: str, arch: str, cubin: Path) -> tuple[bool, object, str]:
    import cupy

    nvcc = _nvcc()
    if nvcc is None:
        return False, None, "nvcc was not found"
    with tempfile.TemporaryDirectory(prefix="cuda-harness-") as tmp:
        src, out = Path(tmp) / "unit.cu", Path(tmp) / "unit.cubin"
        src.write_text(text)
        cmd = [nvcc, "-std=c++17", f"-arch=sm_{arch}", "-cubin", "-w", *(f"-I{p}" for p in _includes()),
               str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            return False, None, proc.stderr
        write_atomic(cubin, out.read_bytes())
    return True, cupy.RawModule(path=str(cubin)), ""


# A kernel every method that can compile CuTe at all compiles: a static 4x2 column-major layout.
PROBE = Kernel("probe", "cute", "  auto r = make_layout(make_shape(Int<4>{}, Int<2>{}));\n"
                                "  if (t < n) out[t] = r(int(t));")

METHODS = ("nvrtc (cupy.RawModule)", "nvrtc (direct, cubin via cupy.RawModule(path=...))",
           "nvcc -cubin + cupy.RawModule(path=...)")


def gpu_module(kernels: Sequence[Kernel], methods: Sequence[str] = METHODS) -> Built:
    """The unit compiled for the current GPU by the first method that compiles it (see the module docstring)."""
    if not kernels:
        raise BuildError("no kernels to build")
    arch = _arch()
    text0, _ = unit(kernels)
    tried: list[str] = []
    for method in methods:
        key = _key(method, arch, text0, *_includes())
        cubin = _out_dir() / f"{key}.cubin"
        meta = _out_dir() / f"{key}.gpu.json"
        if method != METHODS[0] and cubin.is_file() and meta.is_file():
            import cupy

            return Built(method, json.loads(meta.read_text())["rejected"], cupy.RawModule(path=str(cubin)), tried)

        def once(text: str, method: str = method, cubin: Path = cubin) -> tuple[bool, object, str]:
            if method == METHODS[0]:
                live = re.findall(r'extern "C" __global__ void (\w+)\(', text)
                return _via_rawmodule(text, live[0])
            if method == METHODS[1]:
                return _via_nvrtc(text, arch, cubin)
            return _via_nvcc(text, arch, cubin)

        # Decide whether the method can take the CuTe headers at all on a kernel CuTe certainly accepts, so that a
        # method that cannot is not blamed on every kernel in turn.
        try:
            ok, _, log = once(unit([PROBE])[0])
        except Exception as exc:  # noqa: BLE001 - a method missing from this CuPy/CUDA is a method that failed
            ok, log = False, f"{type(exc).__name__}: {exc}"
        if not ok:
            tried.append(f"{method}: {_first_error(log)}")
            continue
        try:
            # The model already leaves out what CuTe rejects: a compiler that rejects more is not taking CuTe.
            handle, rejected = _isolating(kernels, once, max_rejected=3)
        except BuildError as exc:
            tried.append(f"{method}: {_first_error(str(exc))}")
            continue
        if method != METHODS[0]:
            write_atomic(meta, json.dumps({"rejected": rejected}).encode())
        return Built(method, rejected, handle, tried)
    raise BuildError("no GPU compiler could build the CuTe kernels: " + "; ".join(tried))
