"""The machine a run happens on: GPU, driver, CUDA runtime, NVRTC and CuPy versions, and which compiler path
(NVRTC through ``cupy.RawModule``, or nvcc with ``cupy.RawModule(path=...)``) builds a kernel that includes the CuTe
headers.  Used to record runs in ``docs/hardware.json`` and to choose the compiler path."""

from __future__ import annotations

import shutil
import subprocess


def gpu_available() -> str | None:
    """None when a CUDA GPU can be used through CuPy, else the reason it cannot."""
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - depends on the machine
        return f"CuPy is not installed ({exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - CuPy raises several error types for a missing driver
        return f"no CUDA device ({type(exc).__name__}: {exc})"
    return None if n > 0 else "no CUDA device"


def environment() -> dict[str, object]:
    """What the run's numbers depend on; fields that cannot be read are left out."""
    env: dict[str, object] = {}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=False)
        if out.returncode == 0 and out.stdout.strip():
            name, driver, mem = (x.strip() for x in out.stdout.strip().splitlines()[0].split(","))
            env.update(gpu=name, driver=driver, gpu_memory=mem)
    except (OSError, subprocess.TimeoutExpired):
        pass
    try:
        import cupy

        rt = cupy.cuda.runtime
        env["cupy"] = cupy.__version__
        env["cuda_runtime"] = _version(rt.runtimeGetVersion())
        env["cuda_driver_api"] = _version(rt.driverGetVersion())
        env["nvrtc"] = ".".join(map(str, cupy.cuda.nvrtc.getVersion()))
        props = rt.getDeviceProperties(0)
        env.setdefault("gpu", props["name"].decode())
        env["compute_capability"] = f"{props['major']}.{props['minor']}"
        env["multiprocessors"] = props["multiProcessorCount"]
    except Exception:  # noqa: BLE001 - no CuPy or no device: the fields stay out
        pass
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if shutil.which("/usr/local/cuda/bin/nvcc") else None)
    if nvcc:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False)
        env["nvcc"] = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "?"
    return env


def _version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"
