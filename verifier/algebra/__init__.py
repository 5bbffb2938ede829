"""CuTe's layout algorithms exactly as CuTe 4.2 computes them, in CuTe's own integer types, recording CuTe's
own checks as obligations; the MMA/copy atoms, TiledMMA/TiledCopy and predication built on them, and the one
operation registry (``registry``). Imports ``core`` and ``notation``.
"""
