"""The history view follows the store while it is open: runs saved by another process appear,
a finished run stops showing "running", F5, a filter change and reopening refresh; the
automatic refresh reads the database off the GUI thread."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading

import pytest
from PySide6.QtCore import Qt

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from brickyard.ui.history import HistoryView

from .test_history_charts import shot


def _other_process(url: str, code: str) -> str:
    script = textwrap.dedent(f"""
        import random, sys
        from brickyard.core.results import RunStatus
        from brickyard.store import HistoryStore
        from brickyard.store.synthetic import synthetic_run
        store = HistoryStore({url!r})
    """) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], check=True, timeout=120, capture_output=True,
                          text=True).stdout.strip()


def begin(seed: int = 7) -> str:
    """Code for another process: start a run (status running) with its first step."""
    return f"""
        run = synthetic_run(random.Random({seed}), repeats=1, block_sizes=(4096, 1 << 20), concurrencies=(1,),
                            status=RunStatus.RUNNING, started_at=1.79e9)
        steps, run.steps = run.steps, []
        store.begin_run(run)
        store.add_steps(run.run_id, steps[:1])
        print(run.run_id)
    """


@pytest.fixture
def url(tmp_path):
    url = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    with HistoryStore(url) as s:
        s.add_run(synthetic_run(random.Random(1), repeats=1, block_sizes=(4096,), concurrencies=(1,)))
    return url


def _view(qtbot, url, follow=True):
    store = HistoryStore(url)
    view = HistoryView(store)
    qtbot.addWidget(view)
    view.resize(1400, 800)
    view.show()
    qtbot.waitExposed(view)
    if not follow:
        view.set_live(False)
    return view


def _focus(qtbot, view):
    view.activateWindow()
    view.table.setFocus()
    qtbot.waitUntil(view.table.hasFocus, timeout=5000)


def _status(view, run_id):
    return next((r.status for r in view.model.rows if r.run_id == run_id), None)


def test_a_run_saved_by_another_process_appears_and_stops_running_when_it_finishes(qtbot, url, tmp_path):
    view = _view(qtbot, url)
    assert view.refresher.running and view.model.rowCount() == 1
    view.hide()
    qtbot.waitUntil(lambda: not view.refresher._thread.is_alive(), timeout=5000)   # hidden: not followed
    view.show()
    assert view.refresher.running
    view.select_runs([view.model.rows[0].run_id])
    kept = view.selected_run_ids()
    run_id = _other_process(url, begin())
    qtbot.waitUntil(lambda: _status(view, run_id) is RunStatus.RUNNING, timeout=15_000)
    assert view.count_label.text() == "2 of 2 runs" and view.selected_run_ids() == kept   # selection kept
    view.show_runs([run_id])
    assert view.compare.runs[0].status is RunStatus.RUNNING and len(view.compare.runs[0].steps) == 1
    shot(view, tmp_path, "history-live-running")
    _other_process(url, f"""
        run = synthetic_run(random.Random(7), repeats=1, block_sizes=(4096, 1 << 20), concurrencies=(1,))
        store.add_steps({run_id!r}, run.steps[1:])
        store.finish_run({run_id!r}, "complete")
    """)
    qtbot.waitUntil(lambda: _status(view, run_id) is RunStatus.COMPLETE, timeout=15_000)
    qtbot.waitUntil(lambda: view.compare.runs[0].status is RunStatus.COMPLETE, timeout=15_000)
    assert len(view.compare.runs[0].steps) == 2            # the compared run was read again
    shot(view, tmp_path, "history-live-finished")


def test_the_automatic_refresh_reads_the_database_off_the_gui_thread(qtbot, url, monkeypatch):
    view = _view(qtbot, url)
    threads: list[str] = []
    original = view.store.list_runs

    def spy(filters=None):
        threads.append(threading.current_thread().name)
        return original(filters)

    monkeypatch.setattr(view.store, "list_runs", spy)
    run_id = _other_process(url, begin())
    qtbot.waitUntil(lambda: _status(view, run_id) is not None, timeout=15_000)
    assert threads and set(threads) == {"brickyard-history-watch"}


def test_f5_a_filter_change_and_reopening_each_refresh(qtbot, url):
    view = _view(qtbot, url, follow=False)
    first = _other_process(url, begin(11))
    qtbot.wait(200)
    assert _status(view, first) is None                     # not followed: only an explicit refresh
    _focus(qtbot, view)
    qtbot.keyClick(view.table, Qt.Key.Key_F5)
    assert _status(view, first) is not None
    second = _other_process(url, begin(12))
    view.filter_bar.set_value("layout", "replica")
    assert _status(view, second) is not None
    third = _other_process(url, begin(13))
    view.hide()
    view.show()                                              # View ▸ History again / back to its tab
    assert _status(view, third) is not None


def test_a_run_whose_writer_died_is_marked_interrupted_while_the_view_is_open(qtbot, url):
    view = _view(qtbot, url, follow=False)
    run_id = _other_process(url, begin())          # that process exits without finishing its run
    _focus(qtbot, view)
    qtbot.keyClick(view.table, Qt.Key.Key_F5)
    assert _status(view, run_id) is RunStatus.INTERRUPTED


def test_the_watching_thread_never_keeps_the_view_alive(qtbot, url):
    """The thread reads the view's filters through a weak reference: a view dropped while it is
    followed is freed (on the GUI thread, by the test's collector), and the thread then ends."""
    import gc
    import weakref

    store = HistoryStore(url)
    view = HistoryView(store)
    view.show()
    qtbot.waitExposed(view)
    refresher = view.refresher
    assert refresher.running and refresher.snapshot() is not None
    gone = weakref.ref(view)
    view.close()
    view.deleteLater()
    del view
    qtbot.waitUntil(lambda: (gc.collect(), gone() is None)[1], timeout=5000)
    assert refresher.snapshot() is None
    qtbot.waitUntil(lambda: not refresher._thread.is_alive(), timeout=10_000)
