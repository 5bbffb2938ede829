"""Pictures of concrete layouts: the index grid, thread/value layouts, and counterexamples, as SVG, TikZ or PNG.

The picture mirrors CuTe's ``print_latex`` / ``print_latex_tv`` (util/print_latex.hpp:86-186 of CUTLASS 4.2, and
their SVG twins in util/print_svg.hpp):

* a layout is a grid of ``size<0>(L)`` rows by ``size(L) / size<0>(L)`` columns; cell ``(m, n)`` is the 1-D
  coordinate ``m + n * rows``, so a rank-2 layout shows ``L(m, n)`` exactly as ``print_latex`` does, a rank-1
  layout is one row, and a higher-rank layout shows its modes 1.. grouped into the columns (``group<1,R>``, the
  rank-2 view ``print_layout`` would need).  Each cell holds its index and is filled by index with CuTe's
  ``TikzColor_BWx8`` palette (``black!00, black!40, black!20, black!60, black!10, black!50, black!30, black!70``,
  ``idx % 8``); row and column numbers run along the edges.  A flagged ``Sw o smem_ptr[Bb](unset) o L`` is drawn
  as the shared-memory tensor ``make_tensor(make_smem_ptr(p), L)`` places its elements (the swizzle XORs byte
  addresses, pointer_swizzle.hpp:86-87), where ``print_latex`` of the layout itself would swizzle element offsets;
* a thread/value layout ``(thr, val) -> idx`` is drawn over the index grid of a tile ``(M, N)`` (``idx`` at
  ``(idx % M, idx / M)``, CuTe's identity-tensor order): each cell reached is labelled ``T{t}V{v}`` by the first
  ``(t, v)`` that reaches it and filled by thread with ``TikzColor_TV`` (eight pastel colours, ``tid % 8``);
* a counterexample picture is the layout at the counterexample's values, with the failing coordinate(s) framed
  in red, cells whose index another cell also has crossed out in orange, and cells whose index is outside
  ``[0, bound)`` framed with a dashed blue line, and a caption with the values, coordinate, expected and actual.

SVG and TikZ are written here as text; PNG is rasterised with Pillow (the ``draw`` extra) from the same geometry
(``cell_box``).  Everything needs concrete values: a symbolic layout, or one with more than ``MAX_CELLS`` cells,
raises a one-line ``LayoutError``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from verifier.algebra import registry
from verifier.contracts.claims import substitute_operand
from verifier.core.basis import has_basis
from verifier.core.errors import LayoutError, UndefinedBehavior
from verifier.core.int_tuple import IntTuple, format_tuple, leaves, product
from verifier.core.integers import Int, S
from verifier.core.layouts import Layout, size
from verifier.core.swizzle import ComposedLayout, flag_bits, smem_bit_address
from verifier.engine.verdicts import Counterexample, Verdict
from verifier.notation.interop import coerce

MAX_CELLS = 4096
CELL = 44  # pixels per cell in SVG and PNG
MARGIN = CELL  # room for the row and column numbers

#: CuTe's TikzColor_BWx8 (print_latex.hpp:55-62): percentages of black by index % 8.
BW_PERCENT = (0, 40, 20, 60, 10, 50, 30, 70)
#: CuTe's TikzColor_TV / SVGColor_TV (print_latex.hpp:64-77): RGB by thread % 8.
TV_RGB = ((175, 175, 255), (175, 255, 175), (255, 255, 175), (255, 175, 175),
          (210, 210, 255), (210, 255, 210), (255, 255, 210), (255, 210, 210))
WHITE = (255, 255, 255)
FAILING, COLLISION, OUT_OF_BOUNDS = (220, 0, 0), (255, 140, 0), (0, 70, 220)


@dataclass(frozen=True)
class Cell:
    row: int
    col: int
    label: str
    rgb: tuple[int, int, int]
    tikz: str
    index: int | None = None
    failing: bool = False
    collision: bool = False
    out_of_bounds: bool = False


@dataclass(frozen=True)
class Picture:
    """What every renderer draws: a ``rows x cols`` grid of cells, a title and caption lines."""

    title: str
    rows: int
    cols: int
    cells: tuple[Cell, ...]
    caption: tuple[str, ...] = ()


def _bw(idx: int) -> tuple[tuple[int, int, int], str]:
    p = BW_PERCENT[idx % 8]
    g = round(255 * (100 - p) / 100)
    return (g, g, g), f"black!{p:02d}"


def _tv(tid: int) -> tuple[tuple[int, int, int], str]:
    r, g, b = TV_RGB[tid % 8]
    return (r, g, b), f"{{rgb,255:red,{r};green,{g};blue,{b}}}"


def _concrete(layout: object, params: Mapping[str, int] | None, what: str = "the layout",
              coordinates: bool = False) -> Layout | ComposedLayout:
    """``layout`` with ``params`` substituted, checked drawable: concrete, positive extents, at most ``MAX_CELLS``
    cells.  A swizzled or composed layout is drawn through its function; scaled-basis strides (an identity
    layout, whose values are coordinates) only where ``coordinates`` allows them."""
    layout = coerce(layout)
    if not isinstance(layout, Layout | ComposedLayout):
        raise LayoutError(f"can only draw a layout Shape:Stride, not {type(layout).__name__}")
    if params:
        unknown = sorted(set(params) - layout.symbols())
        if unknown:
            raise LayoutError(f"{what} {layout} has no symbol {unknown[0]}")
        try:
            layout = layout.substitute(params)
        except UndefinedBehavior as exc:
            raise LayoutError(f"{what} {layout}: {exc} at these values") from None
    if not layout.concrete:
        names = ", ".join(sorted(layout.symbols()))
        raise LayoutError(f"{what} {layout} is symbolic: give a value for {names} (--param NAME=VALUE) to draw it")
    for leaf in leaves(layout.shape):
        if int(leaf) <= 0:
            raise LayoutError(f"{what} {layout} has the non-positive extent {leaf}")
    if isinstance(layout, Layout) and has_basis(layout.stride) and not coordinates:
        raise LayoutError(f"{what} {layout} has scaled-basis strides (coordinates, not indices); cannot draw it")
    n = int(layout.size())
    if n > MAX_CELLS:
        raise LayoutError(f"{what} {layout} has {n} cells; at most {MAX_CELLS} can be drawn")
    return layout


def _rows(layout: Layout | ComposedLayout) -> int:
    return int(product(layout.shape[0])) if type(layout.shape) is tuple and len(layout.shape) >= 2 else 1


def layout_picture(layout: object, params: Mapping[str, int] | None = None) -> Picture:
    """The index grid of a concrete layout (``params`` substitutes symbols first).  A swizzled or composed layout
    shows its indices; an identity (scaled-basis) layout shows its coordinates, shaded by position."""
    lay = _concrete(layout, params, coordinates=True)
    rows = _rows(lay)
    n = int(lay.size())
    cols = n // rows
    cells = []
    basis = isinstance(lay, Layout) and has_basis(lay.stride)
    bits = flag_bits(lay)
    for i in range(n):
        if bits is not None:
            idx, label = _smem_element(lay, bits, i)
        else:
            value = lay(i)
            idx, label = (i if basis else int(value)), str(value)
        rgb, tikz = _bw(idx)
        cells.append(Cell(i % rows, i // rows, label, rgb, tikz, idx))
    title = str(lay) if bits is None else f"make_tensor(make_smem_ptr<{bits}-bit>(p), {lay}): element offsets"
    return Picture(title, rows, cols, tuple(cells))


def _smem_element(lay: object, bits: int, i: int) -> tuple[int, str]:
    """Element ``i`` of a flagged layout as the shared-memory tensor places it (``swizzle.smem_bit_address``: the
    swizzle acts on byte addresses), in elements from the tensor's start: ``12.5`` where the swizzle moved it off
    an element boundary."""
    a = int(smem_bit_address(lay, bits, S(i)))
    if a % bits == 0:
        return a // bits, str(a // bits)
    return a // bits, f"{a / bits:g}"


def tv_picture(tv: object, tile: IntTuple | None = None, params: Mapping[str, int] | None = None) -> Picture:
    """A thread/value layout ``(thr, val) -> idx`` over the index grid of ``tile`` (default: one row)."""
    lay = _concrete(tv, params, "the TV layout")
    if lay.rank() != 2:  # the method: a swizzled layout's rank is its domain's (rank() of it read 1)
        raise LayoutError(f"a thread/value layout has rank 2 (thr,val); {lay} has rank {lay.rank()}")
    values = lay.values()
    if tile is None:
        m_size, n_size = 1, max(values) + 1 if values else 1
    else:
        modes = tile if type(tile) is tuple else (tile,)
        if len(modes) > 2 or not all(x.value is not None and x.value > 0 for x in leaves(tile)):
            raise LayoutError(f"the tile {format_tuple(tile)} must be a concrete positive shape (M) or (M,N)")
        m_size = int(product(modes[0])) if len(modes) == 2 else 1
        n_size = int(product(modes[-1])) if len(modes) == 2 else int(product(modes[0]))
    if m_size * n_size > MAX_CELLS:
        raise LayoutError(f"the tile has {m_size * n_size} cells; at most {MAX_CELLS} can be drawn")
    threads = int(size(lay.shape, 0))
    filled: dict[tuple[int, int], Cell] = {}
    for k, idx in enumerate(values):
        t, v = k % threads, k // threads
        if not 0 <= idx < m_size * n_size:
            raise LayoutError(f"T{t}V{v} maps to index {idx}, outside the {m_size}x{n_size} tile")
        pos = (idx % m_size, idx // m_size)
        if pos not in filled:  # the first (t, v) to reach a cell labels it, as print_latex_tv does
            rgb, tikz = _tv(t)
            filled[pos] = Cell(pos[0], pos[1], f"T{t}V{v}", rgb, tikz, idx)
    cells = [filled.get((m, n), Cell(m, n, "", WHITE, "white")) for n in range(n_size) for m in range(m_size)]
    return Picture(f"TV {lay}", m_size, n_size, tuple(cells))


def counterexample_picture(layout: object, verdict: Verdict | Counterexample, bound: int | None = None,
                           params: Mapping[str, int] | None = None) -> Picture:
    """``layout`` at the counterexample's values with the failing coordinate(s), collisions and (with ``bound``)
    indices outside ``[0, bound)`` marked.  A tuple coordinate is the claim's witnesses ``(i, j)``, both marked."""
    cex = verdict.counterexample if isinstance(verdict, Verdict) else verdict
    if cex is None:
        what = verdict.verdict if isinstance(verdict, Verdict) else "none"
        raise LayoutError(f"no counterexample to draw (the verdict is {what})")
    values = {**cex.params, **(params or {})}
    lay = coerce(layout)
    if isinstance(lay, Layout):
        values = {k: v for k, v in values.items() if k in lay.symbols()}
    base = layout_picture(lay, values)
    coords = cex.coordinate if isinstance(cex.coordinate, tuple) else (cex.coordinate,)
    failing = {c for c in coords if c is not None}
    counts = Counter(c.index for c in base.cells)
    cells = []
    for k, c in enumerate(base.cells):
        oob = bound is not None and not 0 <= (c.index or 0) < bound
        cells.append(Cell(c.row, c.col, c.label, c.rgb, c.tikz, c.index, failing=k in failing,
                          collision=counts[c.index] > 1, out_of_bounds=oob))
    shown = ", ".join(f"{k}={v}" for k, v in cex.params.items()) or "no symbols"
    caption = [f"counterexample ({cex.obligation}): {shown}"]
    if cex.coordinate is not None:
        text = f"coordinate {cex.coordinate}"
        shown_values = [f"{what} {v}" for what, v in (("expected", cex.expected), ("actual", cex.actual))
                        if v is not None]
        if shown_values:
            text += ": " + ", ".join(shown_values)
        outside = sorted(c for c in failing if not 0 <= c < len(base.cells))
        if outside:
            text += f" (coordinate {outside[0]} is past the drawn domain)"
        caption.append(text)
    if cex.note:
        caption.append(cex.note)
    legend = ["red frame: failing coordinate", "orange cross: index shared with another cell"]
    if bound is not None:
        legend.append(f"blue dashes: index outside [0, {bound})")
    caption.append("; ".join(legend))
    return Picture(base.title, base.rows, base.cols, tuple(cells), tuple(caption))


def counterexample_layout(op: str, operands: Sequence[object], verdict: Verdict) -> tuple[Layout, int | None]:
    """The layout a counterexample of ``op(*operands)`` is best drawn on, at its values, and the index bound:
    the result of an operation (recomputed as CuTe computes it), or a check's first layout (``in_bounds``: its
    extent, ``bijective``: its size)."""
    from verifier.engine.checks import PROPERTIES

    cex = verdict.counterexample
    if cex is None:
        raise LayoutError(f"no counterexample to draw: {op} is {verdict.verdict}")
    try:
        concrete = [substitute_operand(coerce(a), cex.params) for a in operands]
    except UndefinedBehavior as exc:
        raise LayoutError(f"{op} at {dict(cex.params)}: {exc} in the operands; nothing to draw") from None
    if op in PROPERTIES:
        first = concrete[0]
        if not isinstance(first, Layout):
            raise LayoutError(f"check {op}: nothing to draw, its first argument is not a layout")
        bound = None
        if op == "in_bounds":
            extent = concrete[1]  # a shape or an extent (problems.build checked it)
            bound = int(product(extent)) if isinstance(extent, (Int, tuple)) else None
        elif op == "bijective":
            bound = int(size(first))
        return first, bound
    out = registry.apply(op, *concrete)
    if not isinstance(out.result, Layout):
        why = out.rejection or out.undefined or f"the result is not a layout: {out.result}"
        raise LayoutError(f"{op} at {cex.params}: nothing to draw ({why})")
    return out.result, None


# -- renderers --------------------------------------------------------------------------------------------------


def cell_box(row: int, col: int) -> tuple[int, int, int, int]:
    """Pixel box ``(x0, y0, x1, y1)`` of a cell in SVG and PNG pictures."""
    x0, y0 = MARGIN + col * CELL, MARGIN + row * CELL
    return x0, y0, x0 + CELL, y0 + CELL


def canvas_size(p: Picture) -> tuple[int, int]:
    caption = max((len(line) for line in p.caption), default=0) * 8 + 8  # monospace at 13px: under 8px a char
    return max(MARGIN + p.cols * CELL + 8, caption), MARGIN + p.rows * CELL + 8 + 18 * len(p.caption)


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def svg(p: Picture) -> str:
    w, h = canvas_size(p)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
           f"<title>{escape(p.title)}</title>",
           f'<rect class="background" x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>']
    font = 'font-family="monospace" text-anchor="middle" dominant-baseline="central"'
    for r in range(p.rows):
        x0, y0, _, y1 = cell_box(r, 0)
        out.append(f'<text class="row-number" x="{x0 - CELL // 2}" y="{(y0 + y1) // 2}" {font} '
                   f'font-size="14">{r}</text>')
    for c in range(p.cols):
        x0, y0, x1, _ = cell_box(0, c)
        out.append(f'<text class="col-number" x="{(x0 + x1) // 2}" y="{y0 - CELL // 2}" {font} '
                   f'font-size="14">{c}</text>')
    marks = []
    for cell in p.cells:
        x0, y0, x1, y1 = cell_box(cell.row, cell.col)
        index = "" if cell.index is None else f' data-index="{cell.index}"'
        out.append(f'<rect class="cell" data-row="{cell.row}" data-col="{cell.col}"{index} x="{x0}" y="{y0}" '
                   f'width="{CELL}" height="{CELL}" fill="{_hex(cell.rgb)}" stroke="#000000"/>')
        if cell.label:
            out.append(f'<text class="label" data-row="{cell.row}" data-col="{cell.col}" x="{(x0 + x1) // 2}" '
                       f'y="{y0 + 10}" {font} font-size="{11 if len(cell.label) > 4 else 13}">'
                       f"{escape(cell.label)}</text>")
        where = f'data-row="{cell.row}" data-col="{cell.col}"'
        if cell.collision:
            marks.append(f'<path class="collision" {where} d="M{x0 + 4},{y0 + 4} L{x1 - 4},{y1 - 4} M{x1 - 4},'
                         f'{y0 + 4} L{x0 + 4},{y1 - 4}" stroke="{_hex(COLLISION)}" stroke-width="3" fill="none"/>')
        if cell.out_of_bounds:
            marks.append(f'<rect class="out-of-bounds" {where} x="{x0 + 7}" y="{y0 + 7}" width="{CELL - 14}" '
                         f'height="{CELL - 14}" fill="none" stroke="{_hex(OUT_OF_BOUNDS)}" stroke-width="3" '
                         'stroke-dasharray="5,3"/>')
        if cell.failing:
            marks.append(f'<rect class="failing" {where} x="{x0}" y="{y0}" width="{CELL}" height="{CELL}" '
                         f'fill="none" stroke="{_hex(FAILING)}" stroke-width="5"/>')
    out += marks
    _, y = canvas_size(Picture("", p.rows, p.cols, ()))
    for k, line in enumerate(p.caption):
        out.append(f'<text class="caption" x="4" y="{y + 18 * k + 9}" font-family="monospace" font-size="13" '
                   f'dominant-baseline="central">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _tex(text: str) -> str:
    return "".join("\\" + ch if ch in "#$%&_{}" else ch for ch in text)


def tikz(p: Picture) -> str:
    """A standalone LaTeX document with the TikZ picture, laid out as CuTe's ``print_latex`` emits it."""
    header = f"% Layout TV: {p.title[3:]}" if p.title.startswith("TV ") else f"% Layout: {p.title}"
    out = [header,
           "\\documentclass[convert]{standalone}", "\\usepackage{tikz}", "", "\\begin{document}",
           "\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm, "
           "outer sep=0pt}]", ""]
    for cell in p.cells:
        label = cell.label
        if label.startswith("T") and "V" in label:  # print_latex_tv's two-line thread/value label
            t, v = label[1:].split("V")
            label = f"\\shortstack{{T{t} \\\\ V{v}}}"
        out.append(f"\\node[fill={cell.tikz}] at ({cell.row},{cell.col}) {{{label}}};")
    out.append(f"\\draw[color=black,thick,shift={{(-0.5,-0.5)}}] (0,0) grid ({p.rows},{p.cols});")
    out.append("")
    for cell in p.cells:
        box = f"({cell.row},{cell.col}) rectangle ({cell.row + 1},{cell.col + 1})"
        if cell.collision:
            out.append(f"\\draw[color=orange,very thick,shift={{(-0.5,-0.5)}}] ({cell.row},{cell.col}) -- "
                       f"({cell.row + 1},{cell.col + 1}) ({cell.row + 1},{cell.col}) -- ({cell.row},{cell.col + 1});"
                       f"  % collision")
        if cell.out_of_bounds:
            out.append(f"\\draw[color=blue,very thick,dashed,shift={{(-0.45,-0.45)}}] ({cell.row},{cell.col}) "
                       f"rectangle ({cell.row + 0.9},{cell.col + 0.9});  % out of bounds")
        if cell.failing:
            out.append(f"\\draw[color=red,line width=2.5pt,shift={{(-0.5,-0.5)}}] {box};  % failing coordinate")
    for m in range(p.rows):
        out.append(f"\\node at ({m},-1) {{\\Large{{\\texttt{{{m}}}}}}};")
    for n in range(p.cols):
        out.append(f"\\node at (-1,{n}) {{\\Large{{\\texttt{{{n}}}}}}};")
    for k, line in enumerate(p.caption):
        out.append(f"\\node[anchor=west] at ({p.rows + 0.5 + 0.6 * k},-0.5) {{\\texttt{{{_tex(line)}}}}};")
    out += ["\\end{tikzpicture}", "\\end{document}"]
    return "\n".join(out) + "\n"


def png(p: Picture) -> bytes:
    """The picture rasterised with Pillow (the ``draw`` extra): the same cells, colours and marks as ``svg``."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise LayoutError("PNG output needs Pillow: pip install 'cute-layout-verifier[draw]'") from None
    import io

    w, h = canvas_size(p)
    img = Image.new("RGB", (w, h), WHITE)
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    for r in range(p.rows):
        x0, y0, _, y1 = cell_box(r, 0)
        d.text((x0 - CELL // 2, (y0 + y1) // 2), str(r), fill=(0, 0, 0), font=font, anchor="mm")
    for c in range(p.cols):
        x0, y0, x1, _ = cell_box(0, c)
        d.text(((x0 + x1) // 2, y0 - CELL // 2), str(c), fill=(0, 0, 0), font=font, anchor="mm")
    for cell in p.cells:
        x0, y0, x1, y1 = cell_box(cell.row, cell.col)
        d.rectangle((x0, y0, x1, y1), fill=cell.rgb, outline=(0, 0, 0))
        if cell.label:
            d.text(((x0 + x1) // 2, y0 + 10), cell.label, fill=(0, 0, 0), font=font, anchor="mm")
    for cell in p.cells:
        x0, y0, x1, y1 = cell_box(cell.row, cell.col)
        if cell.collision:
            d.line((x0 + 4, y0 + 4, x1 - 4, y1 - 4), fill=COLLISION, width=3)
            d.line((x1 - 4, y0 + 4, x0 + 4, y1 - 4), fill=COLLISION, width=3)
        if cell.out_of_bounds:
            d.rectangle((x0 + 7, y0 + 7, x1 - 7, y1 - 7), outline=OUT_OF_BOUNDS, width=3)
        if cell.failing:
            d.rectangle((x0, y0, x1, y1), outline=FAILING, width=5)
    _, y = canvas_size(Picture("", p.rows, p.cols, ()))
    for k, line in enumerate(p.caption):
        d.text((4, y + 18 * k + 9), line, fill=(0, 0, 0), font=font, anchor="lm")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _picture(layout: object, params: Mapping[str, int] | None, tv: bool, tile: IntTuple | None,
             verdict: Verdict | Counterexample | None, bound: int | None) -> Picture:
    if verdict is not None:
        if tv:
            raise LayoutError("a counterexample picture draws a layout, not a thread/value layout")
        return counterexample_picture(layout, verdict, bound, params)
    if tv:
        return tv_picture(layout, tile, params)
    return layout_picture(layout, params)


def to_svg(layout: object, params: Mapping[str, int] | None = None, *, tv: bool = False,
           tile: IntTuple | None = None, verdict: Verdict | Counterexample | None = None,
           bound: int | None = None) -> str:
    """SVG text of ``layout`` (at ``params``); ``tv``: a thread/value layout over ``tile``; ``verdict``: the
    counterexample picture (its values substituted; ``bound`` marks indices outside ``[0, bound)``)."""
    return svg(_picture(layout, params, tv, tile, verdict, bound))


def to_tikz(layout: object, params: Mapping[str, int] | None = None, *, tv: bool = False,
            tile: IntTuple | None = None, verdict: Verdict | Counterexample | None = None,
            bound: int | None = None) -> str:
    """A standalone LaTeX/TikZ document of the same picture as ``to_svg``."""
    return tikz(_picture(layout, params, tv, tile, verdict, bound))


def to_png(layout: object, params: Mapping[str, int] | None = None, *, tv: bool = False,
           tile: IntTuple | None = None, verdict: Verdict | Counterexample | None = None,
           bound: int | None = None) -> bytes:
    """PNG bytes of the same picture as ``to_svg`` (needs Pillow)."""
    return png(_picture(layout, params, tv, tile, verdict, bound))


__all__ = ["MAX_CELLS", "Picture", "cell_box", "counterexample_layout", "counterexample_picture",
           "layout_picture", "to_png", "to_svg", "to_tikz", "tv_picture"]
