"""The history browser on a real SQLite history: filters, compare (provenance diff before
numbers, significance), trend, export/import. Recorded sandbox runs in
tests/fixtures/runs/*.json (history exports) are loaded too when present."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.history import HistoryView, HistoryWindow

from .test_history_charts import shot

RUN_EXPORTS = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "runs").glob("*.json"))


@pytest.fixture
def store(tmp_path):
    s = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
    rng = random.Random(50)
    day = 86400.0
    runs = [synthetic_run(rng, gluster="3.12.15", started_at=1.76e9, repeats=3),
            synthetic_run(rng, gluster="6.0", started_at=1.76e9 + day, repeats=3, speedup=1.3),
            synthetic_run(rng, gluster="6.0", started_at=1.76e9 + 2 * day, repeats=3, layout="disperse",
                          options={"performance.write-behind": "off"}),
            synthetic_run(rng, gluster="10.3", started_at=1.76e9 + 3 * day, repeats=2, layout="arbiter")]
    for r in runs:
        s.add_run(r)
    for export in RUN_EXPORTS:
        s.import_json(export)
    s.synthetic = runs
    yield s
    s.close()


def _view(qtbot, store) -> HistoryView:
    window = HistoryWindow(store)
    qtbot.addWidget(window)
    window.resize(1500, 900)
    window.show()
    qtbot.waitExposed(window)
    return window.view


def test_filters_narrow_the_list(qtbot, store):
    view = _view(qtbot, store)
    total = len(store.synthetic) + sum(1 for _ in RUN_EXPORTS)
    assert view.model.rowCount() >= total - 1
    view.filter_bar.set_value("gluster_version", "6.0")
    assert {r.gluster_versions for r in view.model.rows} == {"6.0"} and view.model.rowCount() == 2
    view.filter_bar.set_value("option", "performance.write-behind=off")
    assert [r.run_id for r in view.model.rows] == [store.synthetic[2].run_id]
    assert view.count_label.text().startswith("1 of ")
    view.filter_bar.set_value("option", "(any)")
    view.filter_bar.set_value("gluster_version", "(any)")
    view.filter_bar.set_value("layout", "replica 3 arbiter 1 (3 bricks)")
    assert [r.run_id for r in view.model.rows] == [store.synthetic[3].run_id]


def test_compare_shows_the_provenance_diff_first_then_significant_changes(qtbot, store, tmp_path):
    view = _view(qtbot, store)
    old, new = store.synthetic[0], store.synthetic[1]
    view.select_runs([new.run_id, old.run_id])
    assert view.selected_run_ids() == [old.run_id, new.run_id]        # oldest is the baseline
    view.compare_button.click()
    panel = view.compare
    diff = panel.diff_table
    assert diff.item(0, 0).text() == "gluster on gfs1"
    assert (diff.item(0, 1).text(), diff.item(0, 2).text()) == ("3.12.15", "6.0")
    assert panel.labels == ["glusterfs 3.12.15", "glusterfs 6.0"]
    rows = panel.metrics_table.rowCount()
    assert rows == 14                                               # 7 block sizes × 2 concurrencies
    sentences = [panel.metrics_table.item(r, panel.COL_WORDS).text() for r in range(rows)]
    sure = [panel.metrics_table.item(r, panel.COL_SURE).text() for r in range(rows)]
    big = next(r for r in range(rows) if panel.metrics_table.item(r, 0).text() == "write bs 16M ×1")
    assert sentences[big].startswith("glusterfs 6.0 is") and "faster than glusterfs 3.12.15" in sentences[big]
    assert sure[big].startswith(("likely real", "very likely real"))
    assert "glusterfs 6.0 vs glusterfs 3.12.15" in panel.verdict.text()
    # geometry: the diff sits above the numbers
    assert panel.diff_box.mapTo(panel, panel.diff_box.rect().topLeft()).y() < \
        panel.tabs.mapTo(panel, panel.tabs.rect().topLeft()).y()
    shot(view.window(), tmp_path, "history-browser-compare")
    panel.tabs.setCurrentWidget(panel.throughput_chart)
    assert len(panel.throughput_chart.curves) == 4
    shot(view.window(), tmp_path, "history-browser-throughput")
    panel.tabs.setCurrentWidget(panel.layout_chart)
    shot(view.window(), tmp_path, "history-browser-side-by-side")


def test_identical_provenance_says_so_and_one_repeat_is_not_judged(qtbot, store):
    rng = random.Random(51)
    a = synthetic_run(rng, started_at=1.77e9, repeats=1, block_sizes=(4096,), concurrencies=(1,))
    b = synthetic_run(rng, started_at=1.77e9 + 60, repeats=1, block_sizes=(4096,), concurrencies=(1,))
    store.add_run(a)
    store.add_run(b)
    view = _view(qtbot, store)
    view.select_runs([a.run_id, b.run_id])
    view.compare_selected()
    assert "Nothing recorded differs" in view.compare.diff_note.text()
    assert view.compare.metrics_table.item(0, view.compare.COL_SURE).text().startswith("not judged")


def test_trend_follows_the_filter_and_chosen_point(qtbot, store, tmp_path):
    view = _view(qtbot, store)
    view.select_runs([r.run_id for r in store.synthetic])
    view.compare_selected()
    view.right.setCurrentWidget(view.trend_chart)
    xs, _ = view.trend_chart.curve.getData()
    assert len(xs) >= 4
    view.filter_bar.set_value("gluster_version", "6.0")
    xs, ys = view.trend_chart.curve.getData()
    assert len(xs) == 2
    shot(view.window(), tmp_path, "history-browser-trend")


def test_export_selected_and_import_into_another_history(qtbot, store, tmp_path):
    view = _view(qtbot, store)
    view.select_runs([store.synthetic[0].run_id, store.synthetic[3].run_id])
    path = tmp_path / "picked.json"
    assert view.export_selected(str(path), "json") == 2
    assert view.export_selected(str(tmp_path / "picked.csv"), "csv") == 2
    view.table.clearSelection()
    view.filter_bar.set_value("gluster_version", "6.0")
    assert view.export_selected(str(tmp_path / "shown.json"), "json") == 2     # nothing picked: what is shown
    other = HistoryStore(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    other_view = HistoryView(other)
    qtbot.addWidget(other_view)
    messages = []
    other_view.sig_status.connect(messages.append)
    assert other_view.import_file(str(path)).added == [store.synthetic[0].run_id, store.synthetic[3].run_id]
    assert other_view.model.rowCount() == 2
    assert other_view.import_file(str(path)).added == []
    assert messages[-1] == "imported 0 runs; 2 were already here"
    assert other_view.model.rowCount() == 2
    other.close()


@pytest.mark.skipif(not RUN_EXPORTS, reason="no recorded runs in tests/fixtures/runs")
def test_recorded_real_runs_chart_in_the_browser(qtbot, store, tmp_path):
    from brickyard.core.series import sweep_by_block_size
    from brickyard.store.exchange import read_export

    recorded = [r for export in RUN_EXPORTS for r in read_export(export)]
    view = _view(qtbot, store)
    view.select_runs([r.run_id for r in recorded])
    view.compare_selected()
    panel = view.compare
    panel.tabs.setCurrentWidget(panel.throughput_chart)
    first = recorded[0]
    sweep = sweep_by_block_size(first)
    assert sweep, "a recorded run with a block-size sweep"
    label = panel.labels[0]
    curve = panel.throughput_chart.curves[f"{label} · single"]
    _, ys = curve.getData()
    assert list(ys) == [p.median / panel.throughput_chart.divisor for p in sweep[1]]
    if "read" in [panel.direction_combo.itemText(i) for i in range(panel.direction_combo.count())]:
        panel.direction_combo.setCurrentText("read")          # the other half of a "both" run
        _, ys = panel.throughput_chart.curves[f"{label} · single"].getData()
        read = sweep_by_block_size(first, direction="read")[1]
        assert list(ys) == [p.median / panel.throughput_chart.divisor for p in read]
    shot(view.window(), tmp_path, "history-browser-recorded-run")


def test_the_list_fetches_pages_as_it_scrolls(qtbot, tmp_path, monkeypatch):
    from brickyard.ui.history.runs_model import RunTableModel

    monkeypatch.setattr(RunTableModel, "FIRST_PAGE", 5)
    monkeypatch.setattr(RunTableModel, "PAGE", 4)
    s = HistoryStore(f"sqlite:///{tmp_path / 'paged.sqlite3'}")
    rng = random.Random(52)
    for i in range(12):
        s.add_run(synthetic_run(rng, started_at=1.7e9 + i, repeats=1, block_sizes=(4096,), concurrencies=(1,),
                                gluster="6.0" if i % 3 else "3.12.15"))
    view = _view(qtbot, s)
    assert view.model.rowCount() == 5 and view.model.canFetchMore()
    assert view.count_label.text() == "12 of 12 runs"
    view.table.scrollToBottom()
    qtbot.waitUntil(lambda: view.model.rowCount() > 5, timeout=10_000)   # Qt asks for more itself
    view.load_all_rows()
    assert [r.run_id for r in view.model.rows] == [r.run_id for r in s.list_runs()]
    view.filter_bar.set_value("gluster_version", "3.12.15")
    assert view.count_label.text() == "4 of 12 runs" and view.model.rowCount() == 4
    assert not view.model.canFetchMore()
    s.close()


def test_an_empty_history_opens_and_says_so(qtbot, tmp_path):
    s = HistoryStore(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    view = _view(qtbot, s)
    messages = []
    view.sig_status.connect(messages.append)
    assert view.model.rowCount() == 0 and view.count_label.text() == "0 of 0 runs"
    view.compare_selected()
    assert messages == ["select runs to compare"]
    view.right.setCurrentWidget(view.trend_chart)
    assert view.trend_chart.curve is not None and len(view.trend_chart.curve.getData()[0] or []) == 0
    assert view.export_selected(str(tmp_path / "none.json"), "json") == 0
    s.close()


def test_show_runs_overlays_a_finished_run_on_earlier_runs_of_its_volume(qtbot, store):
    import dataclasses

    rng = random.Random(53)
    other_volume = synthetic_run(rng, started_at=1.76e9 + 3.5 * 86400, repeats=1, block_sizes=(4096,))
    other_volume.provenance = dataclasses.replace(other_volume.provenance, volume_name="gv9")
    baseline = synthetic_run(rng, started_at=1.76e9 + 3.6 * 86400, repeats=1, block_sizes=(4096,))
    baseline.provenance = dataclasses.replace(baseline.provenance, target="local:/var/tmp/base", target_kind="local",
                                              volume_name="", layout={}, volume_options={})
    fresh = synthetic_run(rng, started_at=1.76e9 + 4 * 86400, repeats=3)
    for r in (other_volume, baseline, fresh):
        store.add_run(r)
    view = _view(qtbot, store)
    shown = view.show_runs([fresh.run_id], overlay_same_volume=True, earlier=3)
    # the three newest earlier gv0 dd runs, oldest first, then the new run; not gv9, not the baseline
    assert shown == [r.run_id for r in store.synthetic[1:4]] + [fresh.run_id]
    assert [r.run_id for r in view.compare.runs] == shown
    assert view.right.currentWidget() is view.compare
    assert set(view.selected_run_ids()) == set(shown)
    assert view.compare.diff_table.rowCount() > 0          # what differs is listed
    assert view.show_runs([baseline.run_id], overlay_same_volume=True) == [baseline.run_id]
    assert view.show_runs([fresh.run_id]) == [fresh.run_id]
    from brickyard.store import StoreError
    with pytest.raises(StoreError):
        view.show_runs(["nope"], overlay_same_volume=True)


SANDBOX = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "sandbox"


def test_sandbox_runs_are_labelled_by_what_differs_and_every_compared_run_is_named(qtbot, store, tmp_path):
    from brickyard.store.exchange import read_export

    for export in SANDBOX.glob("*.json"):
        store.import_json(export)
    by_prefix = {r.run_id[:8]: r.run_id for f in SANDBOX.glob("*.json") for r in read_export(f)}
    view = _view(qtbot, store)
    view.show_runs([by_prefix["6404392a"], by_prefix["78bae256"]])
    assert view.compare.labels == ["gluster hdisp", "local /var/tmp/hist-base"]
    row = next(r for r in view.model.rows if r.run_id == by_prefix["78bae256"])
    assert row.gluster_versions == ""                              # a baseline is no gluster run
    col = view.model.data(view.model.index(view.model.rows.index(row), 4))
    assert col == "local /var/tmp/hist-base"
    view.show_runs([by_prefix["270e9d90"], by_prefix["9d580e2c"], by_prefix["23d4f163"]])
    panel = view.compare
    t = panel.metrics_table
    assert t.horizontalHeaderItem(panel.COL_BASE).text() == "performance.write-behind=off (baseline)"
    named = {t.item(r, panel.COL_RUN).text() for r in range(t.rowCount())}
    assert named == {"performance.write-behind=on", "performance.write-behind=on (gluster default)"}
    points = {t.item(r, panel.COL_POINT).text() for r in range(t.rowCount())}
    assert "write bs 64K ×1 count=64 file_size=4M" in points
    values = {t.item(r, panel.COL_VALUE).text() for r in range(t.rowCount())}
    assert all(v.endswith(" MB/s") for v in values)
    shot(view.window(), tmp_path, "history-three-runs-named")


def test_typed_filters_find_sandbox_runs(qtbot, store):
    for export in SANDBOX.glob("*.json"):
        store.import_json(export)
    view = _view(qtbot, store)
    view.filter_bar.set_value("layout", "Disperse")
    assert {r.volume for r in view.model.rows} == {"hdisp", "gv0"}           # the synthetic disperse run too
    assert all(r.layout.startswith("disperse") for r in view.model.rows)
    view.filter_bar.set_value("layout", "")
    view.filter_bar.set_value("gluster_version", "10.3")
    assert {r.volume for r in view.model.rows} >= {"hdisp", "hrep"} and all(r.volume for r in view.model.rows)
    combo = view.filter_bar.combos["gluster_version"]
    combo.setEditText("")
    qtbot.keyClicks(combo.lineEdit(), "10")                       # typed as a user types it
    qtbot.waitUntil(lambda: view.filter_bar.filters().gluster_version == "10" and
                    view.count_label.text().startswith(f"{len(view.model.rows)} of"), timeout=5000)
    assert {r.gluster_versions for r in view.model.rows} == {"10.3"}


def test_rates_in_binary_units_are_chosen_in_the_view_and_saved(qtbot, store):
    import json

    from brickyard.core import units
    from brickyard.core.settings import settings_path

    view = _view(qtbot, store)
    view.show_runs([store.synthetic[0].run_id, store.synthetic[1].run_id])
    panel = view.compare
    assert panel.metrics_table.item(0, panel.COL_VALUE).text().endswith(" MB/s")
    try:
        view.units_combo.setCurrentIndex(view.units_combo.findData("binary"))
        assert units.binary_rates()
        assert json.loads(settings_path().read_text())["units"] == "binary"
        assert panel.metrics_table.item(0, panel.COL_VALUE).text().endswith(" MiB/s")
        assert panel.throughput_chart.unit_label == "MiB/s"
    finally:
        view.units_combo.setCurrentIndex(view.units_combo.findData("decimal"))
    assert not units.binary_rates() and json.loads(settings_path().read_text())["units"] == "decimal"
