"""Issue 22: History shows its list first. The filter choices and the sweep pickers (a scan of
every stored run's hosts, options and steps) are filled once the view is painted, or as soon
as a filter is set before that; F5 (reload) still reads everything at once."""

from __future__ import annotations

import random

import pytest

from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.history import HistoryView, HistoryWindow
from brickyard.ui.history.filter_bar import ANY


@pytest.fixture
def store(tmp_path):
    s = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
    rng = random.Random(7)
    s.add_run(synthetic_run(rng, gluster="6.0", started_at=1.76e9, repeats=1, layout="replica"))
    s.add_run(synthetic_run(rng, gluster="10.3", started_at=1.76e9 + 3600, repeats=1, layout="disperse"))
    yield s
    s.close()


def _values(view: HistoryView, key: str) -> list[str]:
    combo = view.filter_bar.combos[key]
    return [combo.itemText(i) for i in range(combo.count())]


def test_the_list_comes_first_and_the_filter_choices_once_it_is_painted(qtbot, store, monkeypatch):
    asked = []
    choices = store.filter_choices
    monkeypatch.setattr(store, "filter_choices", lambda: asked.append(1) or choices())
    window = HistoryWindow(store)
    qtbot.addWidget(window)
    view = window.view
    assert view.model.rowCount() == 2                     # the list is there
    assert asked == [] and _values(view, "gluster_version") == [ANY]
    assert view.compare.block_combo.count() == 0
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert _values(view, "gluster_version") == [ANY, "6.0", "10.3"]
    assert view.compare.block_combo.count() > 0
    qtbot.wait(50)
    assert len(asked) == 1                                # once, not on every paint


def test_a_filter_set_before_the_first_paint_finds_its_choices(qtbot, store):
    view = HistoryView(store)
    qtbot.addWidget(view)
    view.filter_bar.set_value("workload", "dd")           # a stored value: found, though not painted yet
    assert {r.workload for r in view.model.rows} == {"dd"}
    assert "dd" in _values(view, "workload")


def test_reload_reads_the_choices_at_once(qtbot, store):
    view = HistoryView(store)
    qtbot.addWidget(view)
    view.reload()
    assert _values(view, "gluster_version") == [ANY, "6.0", "10.3"]
