"""cuda_harness: verified layouts run on a real GPU through CuPy, and the same generated code on the CPU.

* ``kernels``: CUDA C++ generated from validated model objects: CuTe kernels (the layout or algebra result built
  and evaluated by CuTe on the device), model kernels (plain CUDA from our model), sweep kernels
  (``verifier.oracle.sweep``'s decision of CuTe's result, one thread per symbol assignment).
* ``build``: NVRTC through CuPy, else nvcc and ``cupy.RawModule(path=...)``; g++ for host mode.
* ``runner``: launches on the GPU or, in host mode, in a loop on the CPU.
* ``harness``: CuTe on the device vs the model on the device vs the host model, index by index, with a guarded
  copy and write counting; the GPU sweep.
* ``probe``: the machine (GPU, driver, CUDA, CuPy) and whether a GPU can be used.
* ``gpu_run``: the full hardware run behind ``docs/hardware.md``; ``cli``: ``cute-verify gpu``.
"""

from importlib import import_module

# Imported on first use, so that ``cute-verify`` (which registers the ``gpu`` command) loads neither numpy nor CuPy.
_WHERE = {"Case": "harness", "Check": "harness", "Report": "harness", "evaluate": "harness", "sweep": "harness",
          "environment": "probe", "gpu_available": "probe"}


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(name)


__all__ = ["Case", "Check", "Report", "environment", "evaluate", "gpu_available", "sweep"]
