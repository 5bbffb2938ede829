"""The whole CUTLASS library verified: its configurations, their keys, and the engine that sweeps them
(docs/library.md)."""
