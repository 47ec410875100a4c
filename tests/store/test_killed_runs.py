"""A run whose agent was killed with its watchdog is marked in History when the next run's
agent on that host kills the workers it left running (issue 25 point 6)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from brickyard.core.results import RunStatus
from brickyard.store import HistoryStore, StoreError
from brickyard.store.sink import HistorySink
from brickyard.store.synthetic import synthetic_run


def test_the_killed_run_says_its_workers_outlived_it_and_who_killed_them(sqlite_url):
    store = HistoryStore(sqlite_url)
    killed = dataclasses.replace(synthetic_run(random.Random(1), repeats=1, block_sizes=(4096,)),
                                 status=RunStatus.FAILED, error="client1: connection to the benchmark agent lost")
    other = synthetic_run(random.Random(2), repeats=1, block_sizes=(4096,))
    store.add_run(killed)
    store.add_run(other)
    nxt = synthetic_run(random.Random(3), repeats=1, block_sizes=(4096,))
    sink = HistorySink(store)
    found = [{"agent_pid": 4242, "killed": 3, "runs": [killed.run_id[:12]], "dirs": ["/mnt/gv0/brickyard-x"]}]
    sink.orphans_killed(nxt, "client1", found)
    sink.orphans_killed(nxt, "client1", found)           # said once
    error = store.load_run(killed.run_id).error
    assert error == ("client1: connection to the benchmark agent lost; its benchmark agent on client1 was killed "
                     "with its watchdog and 3 worker process(es) went on running after the run ended; the agent "
                     f"of run {nxt.run_id[:12]} killed them")
    assert store.load_run(other.run_id).error == other.error
    with pytest.raises(StoreError):
        store.note_run("%", "x")                          # only a run directory's 12 hex digits
