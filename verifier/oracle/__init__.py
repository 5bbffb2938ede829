"""The ground truth: compiled CuTe. Toolchain discovery, the one Expr -> C++ printer, the build cache, the
sweeps against the engine, the one header of C++ checks they and cuda_harness's device kernels share
(``include/cute_checks.hpp``), and the atoms generator.
"""
