"""The asyncio loop thread and the progress/cancel object."""

import asyncio
import concurrent.futures
import threading

import pytest

from brickyard.remote.local import LocalExecutor
from brickyard.remote.loop import AsyncLoopThread, Cancelled, Progress, run_cancellable


def test_submit_runs_on_the_loop_thread_not_the_caller():
    with AsyncLoopThread() as lt:
        async def where():
            return threading.current_thread().name

        assert lt.run(where(), timeout=5) == "brickyard-asyncio"


def test_cancelling_the_future_cancels_the_task():
    started = threading.Event()
    with AsyncLoopThread() as lt:
        async def forever():
            started.set()
            await asyncio.sleep(60)

        fut = lt.submit(forever())
        started.wait(5)
        fut.cancel()
        with pytest.raises(concurrent.futures.CancelledError):
            fut.result(5)


def test_progress_reports_clamped_fraction_and_keeps_the_log():
    seen, logged = [], []
    p = Progress(on_progress=lambda f, t: seen.append((f, t)), on_log=logged.append)
    p.set_progress(1.5, "done")
    p.log("step 1 ok")
    assert seen == [(1.0, "done")] and logged == ["step 1 ok"] and p.lines == ["step 1 ok"]


def test_progress_cancel_from_another_thread_stops_a_running_command():
    p = Progress()
    with AsyncLoopThread() as lt:
        fut = lt.submit(run_cancellable(p, LocalExecutor().run(["sleep", "30"], timeout=None)))
        threading.Timer(0.3, p.cancel).start()
        with pytest.raises(Cancelled):
            fut.result(10)
    assert p.is_cancelled()
    with pytest.raises(Cancelled):
        p.check()


def test_cancel_hook_added_after_cancel_runs_at_once():
    p = Progress()
    p.cancel()
    calls = []
    p.on_cancel(lambda: calls.append(1))
    p.cancel()
    assert calls == [1]


def test_submit_after_stop_is_refused():
    lt = AsyncLoopThread()
    lt.stop()

    async def nothing():
        return 1

    with pytest.raises(RuntimeError, match="stopped"):
        lt.submit(nothing())
