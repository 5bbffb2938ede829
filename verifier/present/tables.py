"""Text tables of concrete layouts, character for character as CuTe's ``print_layout`` (util/print_tensor.hpp:45-79).

``print_layout`` takes a rank-2 layout; ``print_1d`` lists ``L(i)`` for every 1-D coordinate, which is what a
rank-1 (or higher rank) layout shows.  Both need concrete values.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.core.errors import LayoutError
from verifier.core.layouts import Layout, cosize, rank, size

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


def print_cells(title: str, cells: Sequence[str], rows: int) -> str:
    """``print_layout``'s grid for values that are not plain integers (coordinates of an identity layout): cell
    ``i`` is row ``i % rows``, column ``i / rows``, each cell as wide as the widest value."""
    cols = len(cells) // rows
    width = max(len(c) for c in cells) + 2
    lines = [title, "    " + "".join(f"  {n:>{width - 2}} " for n in range(cols))]
    rule = "    " + ("+" + "-" * width) * cols + "+"
    for m in range(rows):
        lines.append(rule)
        lines.append(f"{m:>2}  " + "".join(f"| {cells[m + rows * n]:>{width - 2}} " for n in range(cols)) + "|")
    lines.append(rule)
    return "\n".join(lines) + "\n"


def print_1d_cells(cells: Sequence[str]) -> str:
    """``print_1d`` for values printed as text."""
    width = max([len(str(i)) for i in range(len(cells))] + [len(v) for v in cells] + [1])
    coords = " ".join(f"{i:>{width}}" for i in range(len(cells)))
    return f"Coord : {coords}\nIndex : {' '.join(f'{v:>{width}}' for v in cells)}\n"


def print_window(layout: Layout, marks: Sequence[int], radius: int = 3) -> str:
    """The part of ``layout``'s table around the 1-D coordinates ``marks``, each marked ``*``: for a rank-2 layout
    the rows and columns within ``radius`` of a mark (the 1-D coordinate ``i`` is row ``i % size<0>``, column
    ``i / size<0>``), otherwise ``L(i)`` for the coordinates within ``radius``.  Needs concrete values."""
    if not layout.concrete:
        raise LayoutError(f"print_window needs concrete values; {layout} is symbolic")
    n = int(size(layout))
    inside = sorted({i for i in marks if 0 <= i < n})
    if rank(layout) == 2:
        m_size = int(size(layout, 0))
        rows = _span([i % m_size for i in inside], radius, m_size)
        cols = _span([i // m_size for i in inside], radius, n // m_size)
        cells = {(m, c): int(layout(m, c)) for m in rows for c in cols}
        width = max([len(str(v)) for v in cells.values()] + [len(str(c)) for c in cols] + [1]) + 1
        mark = {(i % m_size, i // m_size) for i in inside}

        def show(m: int, c: int) -> str:
            return ("*" if (m, c) in mark else "") + str(cells[m, c])

        rw = max(len(str(m)) for m in rows)
        lines = [" " * (rw + 3) + " ".join(f"{c:>{width}}" for c in cols)]
        lines += [f"{m:>{rw}} | " + " ".join(f"{show(m, c):>{width}}" for c in cols) for m in rows]
        return "\n".join(lines) + "\n"
    coords = _span(inside, radius, n)
    texts = [("*" if i in inside else "") + str(int(layout(i))) for i in coords]
    width = max([len(str(i)) for i in coords] + [len(t) for t in texts] + [1])
    return (f"Coord : {' '.join(f'{i:>{width}}' for i in coords)}\n"
            f"Index : {' '.join(f'{t:>{width}}' for t in texts)}\n")


def _span(points: Sequence[int], radius: int, limit: int) -> range:
    """The indices within ``radius`` of the points (around the first one only if they lie far apart)."""
    if not points:
        return range(0, min(limit, 2 * radius + 1))
    lo, hi = min(points), max(points)
    if hi - lo > 4 * radius:
        lo = hi = points[0]
    return range(max(0, lo - radius), min(limit, hi + radius + 1))
