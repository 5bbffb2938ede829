"""cuda_harness: the generated CUDA in host mode (g++) and on a GPU (CuPy), skipped with the reason without one."""
