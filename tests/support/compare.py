"""Comparison of our algebra's outcome with what compiled CuTe did."""

from __future__ import annotations

import dataclasses

from verifier.algebra.ops import OffsetLayout
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout


def compare(outcome, r) -> str | None:
    """None when our outcome is CuTe's, else a description of the difference."""
    if r.rejected is not None:
        if outcome.rejection is None:
            return f"CuTe rejects ({r.rejected}); we computed {outcome.result}"
        # A static_assert message must match; other compile errors (an operand type CuTe cannot take) only need
        # to be rejections on both sides.
        checked = r.rejected != "static assertion failed" and not r.rejected.startswith("compile error:")
        if checked and r.rejected not in str(outcome.rejection):
            return f"rejection messages differ: CuTe {r.rejected!r}, ours {outcome.rejection}"
        return None
    if r.ub:
        return None if outcome.undefined else f"CuTe hit UB; we computed {outcome.result}"
    if outcome.rejection is not None or outcome.undefined:
        return f"CuTe computed {r.result}; we said {outcome.rejection or outcome.undefined}"
    res = outcome.result
    if str(res) != r.result:
        return f"printed {res} vs CuTe {r.result}"
    # A composed layout has a size when its innermost function is a layout (CuTe printed one).
    if isinstance(res, Layout) or (isinstance(res, ComposedLayout) and r.size is not None):
        if (str(res.size()), str(res.cosize())) != (r.size, r.cosize):
            return f"size/cosize {res.size()}/{res.cosize()} vs CuTe {r.size}/{r.cosize}"
        if r.values is not None and tuple(res.values()) != r.values:
            return f"values differ: {res.values()[:16]} vs {r.values[:16]}"
    return None


def compare_view(outcome, r, tensor: bool = True) -> str | None:
    """None when our (layout, offset) is what CuTe computed. ``slice_and_offset`` prints its offset, static flag
    included, so the text must match; a tensor's offset is a counting iterator's position, only a value."""
    res = outcome.result
    if not isinstance(res, OffsetLayout):
        return compare(outcome, r)
    diff = compare(dataclasses.replace(outcome, result=res.layout), r)
    if diff:
        return diff
    if r.offset is None:
        return f"CuTe printed no offset; ours {res.offset}"
    same = int(res.offset) == int(r.offset) if tensor else str(res.offset) == r.offset
    return None if same else f"offset {res.offset} vs CuTe {r.offset}"
