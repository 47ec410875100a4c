"""The page flow: a long table goes on over pages under its header, a heading never ends a
page, a command wider than the page continues with a shell '\\', text wraps inside its
width; and every example topology makes a planner's report with no bitmap in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from brickyard.core import topofile
from brickyard.report import content_from_plan, export_report
from brickyard.report.blocks import Cell, Code, Col, Heading, Paragraph, Table
from brickyard.report.pdf import PageMeta, content_box, paginate, write_pdf

from . import pdfcheck

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def test_a_long_table_goes_on_over_pages_under_its_header(tmp_path):
    rows = [[Cell(f"row-{i:03d}"), Cell(f"value {i * 7}")] for i in range(300)]
    blocks = [Heading("1  Numbers", 1), Table([Col("name", wrap=False), Col("measured value")], rows)]
    out = tmp_path / "long.pdf"
    pages = write_pdf(lambda ts, w: blocks, out, "a4", PageMeta("Long table", "test", "footer"))
    assert pages == pdfcheck.pages(out) >= 4
    seen = []
    for n in range(1, pages + 1):
        text = pdfcheck.text(out, n, n, layout=False)
        assert "measured value" in " ".join(text.split())                    # the header on every page of the table
        seen += [w for w in text.split() if w.startswith("row-")]
    assert seen == [f"row-{i:03d}" for i in range(300)]      # every row once, in order


def test_a_heading_never_ends_a_page(ts):
    width, height = content_box("a4")
    blocks = []
    for i in range(40):
        blocks.append(Heading(f"Section {i}", 1 + i % 3))
        blocks.append(Paragraph.of(("words " * 60 * (1 + i % 4)).strip()))
    pages = paginate(blocks, ts, width, height)
    assert len(pages) > 3
    for page in pages:
        assert not page[-1][0].keep_with_next
        bottom = max(top + b.height(ts, width) for b, top in page)
        assert bottom <= height + 0.5


def test_a_command_wider_than_the_page_continues_with_a_backslash(ts):
    bricks = " ".join(f"node{i}:/srv/gluster/bricks/brick{i}" for i in range(1, 13))
    line = f"gluster volume create gv0 disperse 12 redundancy 4 transport tcp {bricks}"
    code = Code([line])
    rows = code._rows(ts, 300.0)
    assert len(rows) > 2 and all(r.endswith(" \\") for r in rows[:-1])
    assert all(ts.advance(r, "mono") <= 300.0 - 2 * Code.PAD for r in rows)
    assert " ".join(r.removesuffix(" \\").strip() for r in rows) == line


def test_text_wraps_inside_its_width_even_a_word_longer_than_a_line(ts):
    lines = ts.wrap([("see /srv/" + "very-long-path-" * 12 + " and then more words to wrap", "body")], 120.0)
    assert len(lines) > 3 and all(ln.width <= 120.01 for ln in lines)
    assert "".join(p.text for ln in lines for p in ln.pieces).replace(" ", "") == \
        ("see /srv/" + "very-long-path-" * 12 + " and then more words to wrap").replace(" ", "")


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.brickyard.json")), ids=lambda p: p.name)
def test_every_example_topology_makes_a_plan_report_without_bitmaps(path, tmp_path):
    topo = topofile.load(path)
    out = tmp_path / "plan.pdf"
    result = export_report(content_from_plan(topo, topo.volumes[0]), out)
    assert result.pages >= 1
    assert pdfcheck.images(out) == []
    assert all(f["emb"] == "yes" for f in pdfcheck.fonts(out))
    text = " ".join(pdfcheck.text(out, layout=False).split())
    assert f"Volume plan: {topo.volumes[0].name}" in text and "The commands" in text


def test_a_layout_gluster_refuses_is_reported_in_its_words_without_figures(tmp_path):
    from brickyard.core.topology import Layout, VolumeType

    topo = topofile.load(EXAMPLES / "eight-node-raid5.brickyard.json")
    vol = topo.volumes[0]
    vol.layout = Layout(VolumeType.REPLICATE, replica=3)          # 8 bricks are no multiple of 3
    out = tmp_path / "refused.pdf"
    export_report(content_from_plan(topo, vol), out)
    text = " ".join(pdfcheck.text(out, layout=False).split())
    assert "gluster would refuse this layout" in text and "(refused)" in text
    assert "Brickyard offers no commands while the plan has an error" in text


def test_a_group_title_row_never_ends_a_table_part_and_a_detail_row_stays_with_its_row(ts):
    """A table split at a page break keeps each group's title row (``heads``) with the rows it
    names; a detail row across the columns (the appendix's note under each step) is no title
    and splits as any row does, so it is never pushed away from the row above it."""
    cols = [Col("figure", wrap=False), Col("value", align="r", wrap=False)]
    titled, detailed = [], []
    for g in range(6):
        titled.append([Cell(f"group {g}", span=2, heads=True)])
        titled += [[Cell(f"g{g}-row{i}"), Cell(str(i))] for i in range(5)]
        detailed += [[Cell(f"step {g}"), Cell(str(g))], [Cell(f"note of step {g}", span=2)]]
    width, _ = content_box("a4")
    for rows in (titled, detailed):
        table = Table(cols, rows)
        row_h = table.height(ts, width) / (len(rows) + 1)
        for avail in [row_h * k + 0.5 for k in range(2, len(rows))]:
            first, rest = table.split(ts, width, avail)
            if first is None:
                continue
            last = first.rows[first._end - 1]
            assert not last[0].text.startswith("group "), (avail, last[0].text)
            if rows is detailed:                       # as many rows as fit: nothing held back
                assert first._end == round((avail - 0.5) / row_h) - 1, (avail, last[0].text)
            assert first._end == rest._start
