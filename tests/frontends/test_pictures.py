"""Pictures are checked by their content: the SVG's cells, labels, colours and marks (parsed with xml.etree), the
TikZ nodes, and the PNG's size and pixel colours at cell centres; and `cute-verify draw` end to end."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from verifier import LayoutError, Symbols, parse, parse_layout, parse_relation
from verifier.cli.app import main
from verifier.engine.checks import check
from verifier.engine.verdicts import REFUTED
from verifier.engine.verify import verify
from verifier.present import pictures as pic

NS = {"s": "http://www.w3.org/2000/svg"}


def _svg(text: str) -> ET.Element:
    return ET.fromstring(text)


def _cells(root: ET.Element) -> dict[tuple[int, int], ET.Element]:
    return {(int(r.get("data-row")), int(r.get("data-col"))): r for r in root.iterfind(".//s:rect[@class='cell']", NS)}


def _labels(root: ET.Element) -> dict[tuple[int, int], str]:
    return {(int(t.get("data-row")), int(t.get("data-col"))): t.text
            for t in root.iterfind(".//s:text[@class='label']", NS)}


def _marked(root: ET.Element, kind: str) -> set[tuple[int, int]]:
    return {(int(e.get("data-row")), int(e.get("data-col"))) for e in root.iterfind(f".//*[@class='{kind}']")}


def _bw_hex(idx: int) -> str:
    g = round(255 * (100 - pic.BW_PERCENT[idx % 8]) / 100)
    return f"#{g:02x}{g:02x}{g:02x}"


@pytest.mark.parametrize("text, rows", [
    ("(_4,_8):(_8,_1)", 4),                       # rank 2: rows x cols as print_latex
    ("(_6):(_2)", 1),                             # rank 1: one row
    ("(_2,(_2,_3),_2):(_12,(_1,_2),_6)", 2),      # rank 3: modes 1.. grouped into the columns
])
def test_layout_svg_has_every_cell_with_its_index_and_colour(text: str, rows: int) -> None:
    layout = parse_layout(text)
    root = _svg(pic.to_svg(layout))
    cells, labels = _cells(root), _labels(root)
    n = int(layout.size())
    assert len(cells) == n and len(labels) == n
    cols = n // rows
    assert len(root.findall(".//s:text[@class='row-number']", NS)) == rows
    assert len(root.findall(".//s:text[@class='col-number']", NS)) == cols
    for m in range(rows):
        for c in range(cols):
            idx = int(layout(m + c * rows))
            assert labels[(m, c)] == str(idx)
            assert cells[(m, c)].get("fill") == _bw_hex(idx)
            assert cells[(m, c)].get("data-index") == str(idx)
    assert root.find("s:title", NS).text == str(layout)
    assert not _marked(root, "failing") and not _marked(root, "collision")


def test_rank2_cell_is_layout_at_row_and_column() -> None:
    layout = parse_layout("(_3,_4):(_4,_1)")  # row-major: L(m, n) = 4m + n
    labels = _labels(_svg(pic.to_svg(layout)))
    assert all(labels[(m, n)] == str(4 * m + n) for m in range(3) for n in range(4))


def test_symbolic_layouts_take_params_and_refuse_without() -> None:
    layout = parse_layout("(M,_2):(_1,M)")
    with pytest.raises(LayoutError, match="symbolic: give a value for M") as info:
        pic.to_svg(layout)
    assert "\n" not in str(info.value)
    labels = _labels(_svg(pic.to_svg(layout, {"M": 3})))
    assert labels[(2, 1)] == "5"
    with pytest.raises(LayoutError, match="at most 4096"):
        pic.to_svg(parse_layout("(_128,_64):(_1,_128)"))


def test_tv_layout_is_coloured_by_thread_and_labelled_t_v() -> None:
    tv = parse_layout("(_4,_2):(_2,_1)")  # thread t owns indices 2t, 2t+1
    root = _svg(pic.to_svg(tv, tv=True, tile=parse("(_2,_4)")))
    cells, labels = _cells(root), _labels(root)
    assert len(cells) == 8
    for t in range(4):
        for v in range(2):
            idx = 2 * t + v
            pos = (idx % 2, idx // 2)
            assert labels[pos] == f"T{t}V{v}"
            assert cells[pos].get("fill") == "#{:02x}{:02x}{:02x}".format(*pic.TV_RGB[t % 8])
    # Cells no thread reaches stay white and unlabelled; the first (t, v) to reach a cell labels it.
    root = _svg(pic.to_svg(parse_layout("(_2,_2):(_0,_1)"), tv=True, tile=parse("(_4)")))
    cells, labels = _cells(root), _labels(root)
    assert labels == {(0, 0): "T0V0", (0, 1): "T0V1"}
    assert cells[(0, 2)].get("fill") == "#ffffff"
    with pytest.raises(LayoutError, match="outside the 2x2 tile"):
        pic.to_svg(tv, tv=True, tile=parse("(_2,_2)"))


def test_a_swizzled_tv_layout_has_its_domain_s_rank() -> None:
    # Sw<1,0,1> maps x to x ^ ((x & 2) >> 1): thread 1's indices 2, 3 become 3, 2.  The swizzled layout once read
    # as rank 1 ("a thread/value layout has rank 2") through the free function rank().
    tv = parse("Sw<1,0,1> o _0 o (_4,_2):(_2,_1)")
    labels = _labels(_svg(pic.to_svg(tv, tv=True, tile=parse("(_2,_4)"))))
    swizzled = {0: 0, 1: 1, 2: 3, 3: 2, 4: 4, 5: 5, 6: 7, 7: 6}
    for t in range(4):
        for v in range(2):
            idx = swizzled[2 * t + v]
            assert labels[(idx % 2, idx // 2)] == f"T{t}V{v}"


def _injective_verdict() -> tuple[object, object]:
    table = Symbols()
    layout = parse_layout("(M,_4):(_1,_2)", table)
    table.assume(parse_relation("M <= 6", table))
    v = check("injective", [layout], table)
    assert v.verdict == REFUTED
    return layout, v


def test_counterexample_svg_marks_failing_cells_and_collisions() -> None:
    layout, v = _injective_verdict()
    cex = v.counterexample
    m = cex.params["M"]
    root = _svg(pic.to_svg(layout, verdict=v))
    cells, labels = _cells(root), _labels(root)
    assert len(cells) == 4 * m
    i, j = cex.coordinate
    failing = _marked(root, "failing")
    assert failing == {(i % m, i // m), (j % m, j // m)}
    assert labels[(i % m, i // m)] == labels[(j % m, j // m)]  # the two witnesses collide
    counts = Counter(labels.values())
    assert _marked(root, "collision") == {pos for pos, lab in labels.items() if counts[lab] > 1}
    captions = [t.text for t in root.iterfind(".//s:text[@class='caption']", NS)]
    assert captions[0] == f"counterexample (INJECTIVE): M={m}" and captions[1] == f"coordinate {cex.coordinate}"


def test_counterexample_of_in_bounds_marks_cells_outside() -> None:
    table = Symbols()
    layout = parse_layout("(M,_4):(_1,M)", table)
    table.assume(parse_relation("M <= 6", table))
    v = check("in_bounds", [layout, parse("16", table)], table)
    drawn, bound = pic.counterexample_layout("in_bounds", [layout, parse("16", table)], v)
    assert bound == 16
    root = _svg(pic.to_svg(drawn, verdict=v, bound=bound))
    labels = _labels(root)
    assert _marked(root, "out-of-bounds") == {pos for pos, lab in labels.items() if int(lab) >= 16}
    assert _marked(root, "out-of-bounds")
    (pos,) = _marked(root, "failing")
    assert int(labels[pos]) >= 16


def test_counterexample_of_an_operation_draws_the_result() -> None:
    # CuTe 4.2 with run-time ints: composition((2,3):(1,2), (2,3):(3,1)) is ((1,2),(2,1)):((3,4),(1,2)).
    ops = [parse_layout("(2,3):(1,2)"), parse_layout("(2,3):(3,1)")]
    v = verify("composition", ops, Symbols(), derive=False)
    layout, bound = pic.counterexample_layout("composition", ops, v)
    assert str(layout) == "((1,2),(2,1)):((3,4),(1,2))" and bound is None
    root = _svg(pic.to_svg(layout, verdict=v))
    c = v.counterexample.coordinate  # a 1-D coordinate of the result; its mode 0 has size 2
    assert _marked(root, "failing") == {(c % 2, c // 2)}
    assert _labels(root)[(c % 2, c // 2)] == str(v.counterexample.actual) == str(int(layout(c)))


def test_tikz_has_the_nodes_of_print_latex() -> None:
    text = pic.to_tikz(parse_layout("(_2,_3):(_3,_1)"))
    assert text.startswith("% Layout: (_2,_3):(_3,_1)\n\\documentclass[convert]{standalone}")
    nodes = [line for line in text.splitlines() if line.startswith("\\node[fill=")]
    assert len(nodes) == 6
    assert "\\node[fill=black!40] at (0,1) {1};" in nodes  # L(0,1) = 1, black!40 as TikzColor_BWx8(1)
    assert "\\node[fill=black!60] at (1,0) {3};" in nodes
    assert "\\draw[color=black,thick,shift={(-0.5,-0.5)}] (0,0) grid (2,3);" in text
    tv = pic.to_tikz(parse_layout("(_2,_2):(_2,_1)"), tv=True, tile=parse("(_4)"))
    assert "\\node[fill={rgb,255:red,175;green,255;blue,175}] at (0,2) {\\shortstack{T1 \\\\ V0}};" in tv
    assert tv.startswith("% Layout TV: (_2,_2):(_2,_1)\n")  # print_latex_tv's header
    layout, v = _injective_verdict()
    marked = pic.to_tikz(layout, verdict=v)
    assert marked.count("% failing coordinate") == 2 and "% collision" in marked


def test_png_shows_the_same_grid() -> None:
    layout = parse_layout("(_4,_2):(_1,_4)")
    picture = pic.layout_picture(layout)
    img = Image.open(io.BytesIO(pic.to_png(layout))).convert("RGB")
    assert img.size == pic.canvas_size(picture)
    centre = {}
    for cell in picture.cells:
        x0, y0, x1, y1 = pic.cell_box(cell.row, cell.col)
        centre[cell.index] = img.getpixel(((x0 + x1) // 2, (y0 + y1) // 2 + 6))
        assert centre[cell.index] == cell.rgb
    for a in centre:
        for b in centre:
            if a % 8 != b % 8:
                assert centre[a] != centre[b]
    # Counterexample marks are painted too: red frame on the failing cells, orange cross on collisions.
    sym, v = _injective_verdict()
    marked = pic.counterexample_picture(sym, v)
    img = Image.open(io.BytesIO(pic.png(marked))).convert("RGB")
    for cell in marked.cells:
        x0, y0, x1, y1 = pic.cell_box(cell.row, cell.col)
        edge = img.getpixel((x0 + 2, (y0 + y1) // 2))
        assert (edge == pic.FAILING) == cell.failing
        if cell.collision:
            assert img.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)) == pic.COLLISION


# -- the command line --------------------------------------------------------------------------------------------


def test_cli_draw_writes_svg_png_and_latex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "l.svg"
    assert main(["draw", "(M,_8):(_1,M)", "--param", "M=4", "-o", str(out)]) == 0
    assert len(_cells(_svg(out.read_text()))) == 32
    png = tmp_path / "l.png"
    assert main(["draw", "(M,_8):(_1,M)", "--param", "M=4", "-o", str(png)]) == 0
    assert Image.open(png).size == pic.canvas_size(pic.layout_picture(parse_layout("(4,_8):(_1,4)")))
    capsys.readouterr()
    assert main(["draw", "(_2,_2):(_1,_2)", "--format", "latex", "-o", "-"]) == 0
    assert capsys.readouterr().out.count("\\node[fill=") == 4
    assert main(["draw", "(?,4):(1,?{div=8})", "--dsl", "--param", "?1=2", "--param", "?2=8", "-o", str(out)]) == 0
    assert _labels(_svg(out.read_text()))[(1, 3)] == "25"  # L(1,3) = 1 + 3*8


def test_cli_draw_counterexample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.svg"
    rc = main(["draw", "--counterexample", "check", "injective", "(M,_4):(_1,_2)", "--assume", "M <= 6",
               "-o", str(out)])
    assert rc == 1
    assert capsys.readouterr().out.startswith("refuted: injective((M,_4):(_1,_2))")
    root = _svg(out.read_text())
    assert len(_marked(root, "failing")) == 2 and _marked(root, "collision")
    rc = main(["draw", "--counterexample", "composition", "(2,3):(1,2)", "(2,3):(3,1)", "-o", str(out)])
    assert rc == 1 and len(_cells(_svg(out.read_text()))) == 4


@pytest.mark.parametrize("argv, message", [
    (["draw", "(M,_8):(_1,M)", "-o", "X.svg"], "is symbolic: give a value for M"),
    (["draw", "(_128,_64):(_1,_128)", "-o", "X.svg"], "at most 4096 can be drawn"),
    (["draw", "(_4,_2):(_1,_4)", "-o", "X.txt"], "cannot tell the format"),
    (["draw", "(_4,_2", "-o", "X.svg"], "missing ')'"),
    (["draw", "<_2,_2>", "-o", "X.svg"], "is not a layout"),
    (["draw", "(_4,_2):(_1,_4)", "--tile", "(_2,_4)", "-o", "X.svg"], "--tile goes with --tv"),
    (["draw", "--counterexample", "check", "injective", "(M,_4):(_1,M)", "-o", "X.svg"], "no counterexample"),
    (["draw", "--counterexample", "frobnicate", "(_4):(_1)", "-o", "X.svg"], "unknown operation or property"),
    (["draw", "(?,4):(1,?)", "--dsl", "--param", "M=3", "-o", "X.svg"], "no symbol named M"),
])
def test_cli_draw_bad_input_is_one_line_and_writes_nothing(argv: list[str], message: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cute-verify: error:") and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_counterexample_of_bijective_bounds_by_size() -> None:
    table = Symbols()
    layout = parse_layout("(M,_2):(_1,M+1)", table)  # a gap between the columns: not onto [0, 2M)
    table.assume(parse_relation("M <= 5", table))
    v = check("bijective", [layout], table)
    assert v.verdict == REFUTED
    drawn, bound = pic.counterexample_layout("bijective", [layout], v)
    assert bound == int(drawn.size())
    picture = pic.counterexample_picture(drawn, v, bound)
    outside = {(c.row, c.col) for c in picture.cells if c.out_of_bounds}
    assert outside == {(c.row, c.col) for c in picture.cells if c.index >= bound} != set()
