"""Ctrl-C in a command that runs steps over SSH: exit 130, and the step report is still
printed (JSON with --json), saying which step was interrupted, what was done and what is left."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal

import pytest

from brickyard.clicmd.remote_common import report_outcome, run_with_pool
from brickyard.remote.local import LocalExecutor
from brickyard.remote.loop import Progress
from brickyard.remote.ssh import SshPool
from brickyard.remote.steps import DONE, FAILED, PENDING, Step, run_steps


@pytest.fixture(autouse=True)
def _ctrl_c_reaches_python():
    """asyncio turns SIGINT into cancelling the run only when Python's own handler is installed;
    a test runner started in the background may have inherited SIGINT ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _args() -> argparse.Namespace:
    return argparse.Namespace(ssh_config=None, accept_host_key=[], ask_password=False, json=True)


def _steps() -> list[Step]:
    return [Step("quick", "do something quick", "here", [["true"]], sudo=False),
            Step("slow", "wait a long time", "here", [["sleep", "30"]], sudo=False),
            Step("after", "never reached", "here", [["true"]], sudo=False)]


def _ctrl_c_in(seconds: float) -> None:
    asyncio.get_running_loop().call_later(seconds, os.kill, os.getpid(), signal.SIGINT)


def test_ctrl_c_during_a_step_prints_the_report_and_exits_130(capsys):
    async def body(pool):
        _ctrl_c_in(0.5)
        return await run_steps("provision", "vx", _steps(), LocalExecutor, Progress())

    report = run_with_pool(_args(), body)
    assert [o.status for o in report.outcomes] == [DONE, FAILED, PENDING] and report.interrupted
    assert report_outcome(report).show(True) == 130
    doc = json.loads(capsys.readouterr().out)
    assert doc["interrupted"] and doc["exit"] == 130 and doc["failed_step"] == "slow"
    assert report_outcome(report).show(False) == 130
    text = capsys.readouterr().out
    assert "INTERRUPTED at step 'wait a long time' on here" in text
    assert "done (1): here: do something quick" in text and "left (2)" in text


def test_ctrl_c_after_the_last_step_keeps_the_finished_report(capsys, monkeypatch):
    async def slow_close(self):
        _ctrl_c_in(0.2)
        await asyncio.sleep(10)

    monkeypatch.setattr(SshPool, "close", slow_close)
    steps = _steps()[:1]

    async def body(pool):
        return await run_steps("provision", "vx", steps, LocalExecutor, Progress())

    report = run_with_pool(_args(), body)  # Ctrl-C while the connections close
    assert report.ok and report.interrupted and [o.status for o in report.outcomes] == [DONE]
    assert report_outcome(report).show(True) == 130
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["steps"][0]["status"] == "done" and doc["exit"] == 130
