"""A run cancelled with Ctrl-C is "cancelled" in the CLI's output and in its history, as the Run
tab says (issue 21 item 7: History and the CLI said partial)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest
import sqlalchemy as sa

from brickyard.cli import main

from ..bench.localbench import local_bench

PLUGIN = '''
from brickyard.bench.api import Measurement, Param, Workload


class Napper(Workload):
    name = "napper"
    title = "Nap"
    description = "Each step sleeps."
    params = (Param("seconds", "float", 30.0, "sleep per step", minimum=0, maximum=600),)

    def step_count(self, values):
        return 3

    async def run(self, ctx):
        for i in range(3):
            runs = await ctx.run_workers([(t, ctx.exec_worker(["sleep", str(ctx.values["seconds"])]))
                                          for t in ctx.targets])
            ctx.record(Measurement({"i": i}, [r.timing for r in runs]))


WORKLOAD = Napper()
'''


@pytest.fixture(autouse=True)
def _ctrl_c_reaches_python():
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _ctrl_c_once_running(db_path) -> threading.Thread:
    """Press Ctrl-C (SIGINT to this process) as soon as the run is stored as running."""
    def watch() -> None:
        deadline = time.monotonic() + 60
        engine = sa.create_engine(f"sqlite:///{db_path}")
        try:
            while time.monotonic() < deadline:
                try:
                    with engine.connect() as conn:
                        if conn.execute(sa.text("SELECT count(*) FROM runs WHERE status = 'running'")).scalar():
                            break
                except sa.exc.OperationalError:
                    pass                               # no table yet
                time.sleep(0.1)
        finally:
            engine.dispose()
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_ctrl_c_in_bench_ends_cancelled_in_the_output_and_in_history(tmp_path, capsys, monkeypatch):
    work, db_path, db = local_bench(tmp_path, monkeypatch, "napper", PLUGIN)
    watcher = _ctrl_c_once_running(db_path)
    code = main(["bench", "--target", f"local:{work}", "--workload", "napper", "--param", "repeats=1",
                 "--save", "--db", db, "--json"])
    watcher.join(5)
    out = json.loads(capsys.readouterr().out)
    assert code == 130 and out["status"] == "cancelled" and out["error"].startswith("cancelled by the user")
    assert out["history"]["saved"] and out["history"]["stored_as"] == "cancelled"
    assert main(["history", "list", "--db", db, "--status", "cancelled", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["run_id"] == out["run_id"] and listed["status"] == "cancelled"
    assert main(["history", "list", "--db", db]) == 0
    assert " cancelled " in capsys.readouterr().out
    assert list(work.iterdir()) == []
