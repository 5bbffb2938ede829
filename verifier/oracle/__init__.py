"""The ground truth: compiled CuTe. Toolchain discovery, the one Expr -> C++ printer, the build cache, the
sweeps against the engine, and the atoms generator.
"""
