"""The whole CUTLASS library: the 3.x GEMM configurations CUTLASS's own generator emits (``configs``), the key of
what changes their layouts (``keys``), the layouts each builds, derived from CUTLASS's compiled collective builders
(``derive``), their verification as a pure unit of work (``verify``) and the report (``report``).
docs/library.md says what is derived from CUTLASS's code and what by hand."""
