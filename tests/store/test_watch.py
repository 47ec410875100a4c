"""The history notices another process's writes cheaply: SQLite data_version, PostgreSQL
LISTEN/NOTIFY (with a light poll behind it)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import time

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run


def _other_process(url: str, code: str) -> None:
    """Run ``code`` with ``store`` open on ``url`` in a separate Python process."""
    script = textwrap.dedent(f"""
        import random
        from brickyard.core.results import RunStatus
        from brickyard.store import HistoryStore
        from brickyard.store.synthetic import synthetic_run
        store = HistoryStore({url!r})
    """) + textwrap.dedent(code)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def test_a_run_saved_and_finished_by_another_process_is_noticed(db_url):
    store = HistoryStore(db_url)
    watcher = store.watcher(poll_interval=30.0)       # PostgreSQL must be woken by NOTIFY, not the poll
    try:
        assert watcher.wait(0.3) is False
        _other_process(db_url, """
            run = synthetic_run(random.Random(1), repeats=1, block_sizes=(4096,), concurrencies=(1,),
                                status=RunStatus.RUNNING)
            store.begin_run(run)
        """)
        t0 = time.monotonic()
        assert watcher.wait(10.0) is True
        assert time.monotonic() - t0 < 5.0
        assert watcher.wait(0.3) is False               # told once per change
        run_id = store.list_runs()[0].run_id
        _other_process(db_url, f"store.finish_run({run_id!r}, 'complete')")
        assert watcher.wait(10.0) is True
        assert store.list_runs()[0].status is RunStatus.COMPLETE
    finally:
        watcher.close()
        store.close()


def test_a_heartbeat_alone_does_not_wake_a_postgresql_viewer(postgres_server):
    url = postgres_server.create_database()
    store = HistoryStore(url)
    run = synthetic_run(random.Random(2), repeats=1, block_sizes=(4096,), concurrencies=(1,),
                        status=RunStatus.RUNNING)
    store.begin_run(run)
    watcher = store.watcher(poll_interval=30.0)
    try:
        store.heartbeat(run.run_id)
        assert watcher.wait(0.5) is False
        store.finish_run(run.run_id, "complete")
        assert watcher.wait(5.0) is True
    finally:
        watcher.close()
        store.close()


def test_the_poll_token_moves_with_every_visible_change(sqlite_url):
    store = HistoryStore(sqlite_url)
    watcher = store.watcher()
    try:
        tokens = [watcher._poll_token()]
        run = synthetic_run(random.Random(3), repeats=1, block_sizes=(4096,), concurrencies=(1,),
                            status=RunStatus.RUNNING)
        store.begin_run(run)
        tokens.append(watcher._poll_token())
        store.add_step(run.run_id, run.steps[0].__class__(**{**run.steps[0].__dict__, "index": 5}))
        tokens.append(watcher._poll_token())
        store.finish_run(run.run_id, "complete")
        tokens.append(watcher._poll_token())
        store.delete_run(run.run_id)
        tokens.append(watcher._poll_token())
        assert all(a != b for a, b in zip(tokens, tokens[1:]))    # each change moves it
    finally:
        watcher.close()
        store.close()
