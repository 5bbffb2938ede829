"""CuTe's notations over the core values: the C++ ``print`` form (``cpp``) and the CuTe DSL's printed form and
pycute objects (``interop``). Imports only ``core``.
"""
