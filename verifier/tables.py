"""Text tables of concrete layouts, character for character as CuTe's ``print_layout`` (util/print_tensor.hpp:45-79).

``print_layout`` takes a rank-2 layout; ``print_1d`` lists ``L(i)`` for every 1-D coordinate, which is what a
rank-1 (or higher rank) layout shows.  Both need concrete values.
"""

from __future__ import annotations

from .errors import LayoutError
from .layouts import Layout, cosize, rank, size

_DELIM = "+-----------------------"


def num_digits(x: int) -> int:
    """CuTe's ``num_digits`` (util/print.hpp:46-58): at most 10."""
    for digits, bound in enumerate((10, 100, 1000, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9), start=1):
        if x < bound:
            return digits
    return 10


def print_layout(layout: Layout) -> str:
    """The text CuTe's ``print_layout(layout)`` writes, including the first line with the layout itself."""
    if rank(layout) != 2:
        raise LayoutError(f"print_layout needs a rank-2 layout; {layout} has rank {rank(layout)}")
    if not layout.concrete:
        raise LayoutError(f"print_layout needs concrete values; {layout} is symbolic")
    m_size, n_size = int(size(layout, 0)), int(size(layout, 1))
    width = num_digits(int(cosize(layout))) + 2
    lines = [str(layout)]
    lines.append("    " + "".join(f"  {n:>{width - 2}} " for n in range(n_size)))
    rule = "    " + _DELIM[: width + 1] * n_size + "+"
    for m in range(m_size):
        lines.append(rule)
        cells = "".join(f"| {int(layout(m, n)):>{width - 2}} " for n in range(n_size))
        lines.append(f"{m:>2}  {cells}|")
    lines.append(rule)
    return "\n".join(lines) + "\n"


def print_1d(layout: Layout) -> str:
    """``L(i)`` for every 1-D coordinate, one line: coordinates, then indices."""
    n = int(size(layout))
    values = [int(layout(i)) for i in range(n)]
    width = max([len(str(i)) for i in range(n)] + [len(str(v)) for v in values] + [1])
    coords = " ".join(f"{i:>{width}}" for i in range(n))
    idx = " ".join(f"{v:>{width}}" for v in values)
    return f"Coord : {coords}\nIndex : {idx}\n"
