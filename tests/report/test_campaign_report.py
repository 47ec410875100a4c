"""A campaign's report read back as a reader gets it: every decision-table cell in the PDF is
the number in the history (medians worked out here from the stored steps, not by the
decision module), every font is embedded, nothing is a bitmap, both paper sizes, and the
HTML variant carries the same cells."""

from __future__ import annotations

import re
import statistics

import pytest

from brickyard.core.plan import plan_volume
from brickyard.core.units import describe_size, format_block_size, format_rate
from brickyard.report import content_from_campaign, export_report
from brickyard.campaign.results import stored_campaign as campaign_record

from . import pdfcheck

MIB = 2**20
KEY_SIZES = (4 * MIB, 16 * MIB)      # the sweep was 1M, 4M, 16M: the table keeps those of 2M and more


def expected_cells(store, cid) -> tuple[list[str], dict[str, list[str]]]:
    """(layout/baseline names in table order, {figure title: cell text per layout}) from the
    stored runs and the campaign's planned layouts, computed without core.decision."""
    _, spec, _ = campaign_record(store, cid)
    done = {r.cell: r.run_id for r in store.campaigns.runs(cid) if r.status == "complete"}
    names, runs, plans = [], [], []
    for vol in spec.layouts:
        names.append(vol.name)
        runs.append(store.load_run(done[f"cell:{vol.name}:dd"]))
        plans.append(plan_volume(spec.topology_for(vol.name), vol))
    for b in spec.baselines:
        names.append(b.label)
        runs.append(store.load_run(done[f"baseline:{b.id}:dd"]))
        plans.append(None)

    def values(run, n, bs):
        return [s.metric("throughput").value for s in run.steps
                if s.valid and s.params["concurrency"] == n and s.params["block_size"] == bs
                and s.params["direction"] == "write"]

    def rate(vs):
        med = statistics.median(vs)
        text = format_rate(med)
        return text + (f" ±{(max(vs) - min(vs)) / med * 50:.0f} %" if len(vs) > 1 else "")

    cells: dict[str, list[str]] = {}
    cells["usable"] = [describe_size(p.capacity.usable_bytes) if p else "—" for p in plans]
    cells["raw"] = [describe_size(p.capacity.raw_bytes) if p else "—" for p in plans]
    cells["node failures survived"] = [str(p.tolerance.nodes_worst) if p else "—" for p in plans]
    cells["node failures survived (best case)"] = [str(p.tolerance.nodes_best) if p else "—" for p in plans]
    for n in (1, 8):
        for bs in KEY_SIZES:
            title = f"write {format_block_size(bs)} × {'1 file' if n == 1 else f'{n} files'}"
            cells[title] = [rate(values(r, n, bs)) for r in runs]
    for bs in KEY_SIZES:
        ratios = [statistics.median(values(r, 8, bs)) / (8 * statistics.median(values(r, 1, bs))) for r in runs]
        cells[f"scaling write {format_block_size(bs)} × 8 files"] = [f"{x * 100:.0f} %" for x in ratios]
    return names, cells


def pdf_cells(layout_text: str, titles: list[str]) -> dict[str, list[str]]:
    found = pdfcheck.table_rows(layout_text, titles)
    return {t: [cell for line in lines for cell in line] for t, lines in found.items()}


@pytest.mark.parametrize("paper, size", [("a4", (595.0, 842.0)), ("letter", (612.0, 792.0))])
def test_every_decision_cell_in_the_campaign_pdf_is_the_stored_number(campaign, tmp_path, paper, size):
    store, cid = campaign
    out = tmp_path / f"campaign-{paper}.pdf"
    result = export_report(content_from_campaign(store, cid, author="Ana Admin"), out, paper)
    assert result.pages == pdfcheck.pages(out) >= 5
    w, h = pdfcheck.page_size(out)
    assert (round(w), round(h)) == (round(size[0]), round(size[1]))

    names, expected = expected_cells(store, cid)
    page1 = pdfcheck.text(out, 1, 1)
    got = pdf_cells(page1, list(expected))
    for title, cells in expected.items():
        assert got[title] == cells, (title, got[title], cells)
    # the decision, on page 1: every layout, the sentence per layout, the title block
    plain = " ".join(pdfcheck.text(out, 1, 1, layout=False).split())
    for name in names:
        assert name in plain
    assert "GlusterFS layout decision: seed004-sandbox" in page1 and "Ana Admin" in page1
    assert "Fastest of the layouts that survive a server failure: dt2dp4rd1" in plain
    assert "client1's local disk (a baseline, not gluster): writes" in plain      # the last sentence too
    assert "dt8 (distribute 8): 8.59 GB (8.00 GiB) usable (100% of raw); survives no server failure" in plain
    # no site rows (the lab has no sites): said instead of a row of n/a
    assert "site failures survived" not in page1 and "site failures: n/a" in page1


def test_campaign_pdf_embeds_every_font_and_holds_no_bitmap(campaign, tmp_path):
    store, cid = campaign
    out = tmp_path / "campaign.pdf"
    export_report(content_from_campaign(store, cid), out)
    fonts = pdfcheck.fonts(out)
    assert fonts, "no fonts listed"
    assert all(f["emb"] == "yes" for f in fonts), [f["line"] for f in fonts]
    assert {f["name"].split("+")[-1] for f in fonts} >= {"DejaVuSans", "DejaVuSans-Bold", "DejaVuSansMono"}
    assert pdfcheck.images(out) == []          # charts, drawings, hatching: all vector


def test_campaign_report_has_every_section_in_order_with_page_numbers_and_header(campaign, tmp_path):
    store, cid = campaign
    out = tmp_path / "campaign.pdf"
    content = content_from_campaign(store, cid)
    result = export_report(content, out)
    text = " ".join(pdfcheck.text(out, layout=False).split())
    order = ["1 The decision", "2 Model check: predicted vs measured", "3 The topology and each layout",
             "3.1 dt8: Distribute 8", "3.2 dp8rd2: Disperse 1 x (6 + 2) = 8", "4 Charts",
             "dd write: throughput vs block size", "write, 16M blocks: the layouts side by side",
             "5 History comparison", "6 Run hygiene", "7 Environment", "Appendix: every step's raw numbers"]
    at = [text.find(s) for s in order]
    assert all(i >= 0 for i in at), [s for s, i in zip(order, at) if i < 0]
    assert at == sorted(at)
    for n in range(1, result.pages + 1):
        page = pdfcheck.text(out, n, n, raw=True)          # in the order drawn: the header comes first
        assert f"page {n} of {result.pages}" in page
        if n > 1:
            assert page.lstrip().startswith(content.title)      # the running header
    # each layout's exact commands, as the planner builds them
    assert "gluster volume create dp8rd2 disperse 8 redundancy 2 transport tcp node1:/srv/brick1/brick" in text
    # every step of every run in the appendix: 18 steps × 5 runs
    appendix = text[text.index("Appendix: every step's raw numbers"):]
    assert len(re.findall(r"write bs (?:1M|4M|16M) ×[18]\b", appendix)) == 5 * 18


def test_campaign_html_has_the_same_cells_inline_svg_and_nothing_fetched(campaign, tmp_path):
    store, cid = campaign
    out = tmp_path / "campaign.html"
    result = export_report(content_from_campaign(store, cid), out)
    assert result.format == "html" and result.pages is None
    doc = out.read_text(encoding="utf-8")
    _, expected = expected_cells(store, cid)
    for title, cells in expected.items():
        row = re.search(r"<tr><td class=\"l\"><b>" + re.escape(title) + r"</b></td>(.*?)</tr>", doc)
        assert row, title
        got = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))]
        assert [c.replace("&amp;", "&") for c in got] == cells, title
    assert doc.count("<svg") == 4 + 2 + 1      # 4 topology drawings, sweep charts (layouts, baseline), the bars
    assert "<img" not in doc and "<script" not in doc
    assert not re.search(r"(?:src|href)=\"https?://", doc)


def test_a_campaign_set_up_in_the_window_is_named_as_such_not_as_a_file(store, tmp_path, monkeypatch):
    """issue 21 item 12: the report said "file: <campaign from the window>"."""
    import dataclasses

    from . import helpers

    real = helpers.seed004_spec
    monkeypatch.setattr(helpers, "seed004_spec",
                        lambda layouts: dataclasses.replace(real(layouts), source="<campaign from the window>"))
    cid = helpers.stored_campaign(store, tmp_path)
    facts = dict(content_from_campaign(store, cid).facts)
    assert "file" not in facts and "<campaign" not in " ".join(facts.values())
    assert facts["set up"] == "in the Campaign tab of the window (not saved as a campaign file)"
