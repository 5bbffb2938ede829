"""The names of ``tiled.py``'s notation (``make_tiled_mma(...)``, ``get_layoutC_TV(...)``, ``partition_C(...)``,
...) and the test that a text calls one, in a module of their own: the operand parser (``run.problems``) asks the
test of every operand, and only a text that passes it pays for ``tiled.py`` and the atom tables."""

from __future__ import annotations

BUILDERS = ("make_tiled_mma", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
            "make_tiled_copy_C_atom", "make_tiled_copy")
QUERIES = ("get_layoutA_TV", "get_layoutB_TV", "get_layoutC_TV", "get_layoutS_TV", "get_layoutD_TV")
# A thread's view of a tensor: (TILED, TENSOR, THREAD); the fragments and retiles give a register layout alone.
PARTITIONS = ("partition_fragment_A", "partition_fragment_B", "partition_fragment_C", "partition_A", "partition_B",
              "partition_C", "partition_S", "partition_D")
RETILES = ("retile_S", "retile_D")
# Every function of the notation (the operand parser and "did you mean" read it).
NAMES = BUILDERS + QUERIES + PARTITIONS + RETILES
_CALLS = tuple(n + "(" for n in NAMES)


def is_tiled_text(text: str) -> bool:
    """``text`` calls a function of the notation (spaces anywhere, as ``tiled.parse_tiled`` reads it)."""
    return "".join(text.split()).startswith(_CALLS)


__all__ = ["BUILDERS", "NAMES", "PARTITIONS", "QUERIES", "RETILES", "is_tiled_text"]
