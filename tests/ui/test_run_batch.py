"""The Run tab's batch runner alone, without the view: requests run one after another, in
order, and Cancel stops the running one and drops the rest. Real engine runs with real agents
on this workstation, through the same stand-ins as tests/ui/test_run_view.py."""

from __future__ import annotations

from brickyard.bench.engine import TargetSpec
from brickyard.bench.hostlock import HostLocks
from brickyard.bench.request import BenchRequest
from brickyard.core.results import RunStatus
from brickyard.ui.frame.bridge import RemoteBridge
from brickyard.ui.run.batch import BatchRunner

from .test_run_view import LocalServices, Sleeper, topology


def make_runner(qtbot, tmp_path):
    bridge = RemoteBridge(make_services=lambda options: LocalServices())
    runner = BatchRunner(bridge, lambda name: Sleeper(), locks=HostLocks(tmp_path / "locks"))
    events: list[tuple] = []
    runner.sig_run_started.connect(lambda request: events.append(("started", request.label)))
    runner.sig_run_done.connect(lambda request, run, unsaved: events.append(("done", request.label, run.status)))
    runner.sig_run_failed.connect(lambda request, exc: events.append(("failed", request.label, exc)))
    runner.sig_problem.connect(lambda text: events.append(("problem", text)))
    return bridge, runner, events


def request(directory, label: str, seconds: str) -> BenchRequest:
    directory.mkdir()
    return BenchRequest("sleeper", {"seconds": seconds, "steps": "2", "repeats": "1"},
                        (TargetSpec("local", str(directory)),), label=label)


def test_a_batch_of_two_runs_them_one_after_the_other_in_order(qtbot, tmp_path):
    bridge, runner, events = make_runner(qtbot, tmp_path)
    batch = [request(tmp_path / "a", "first", "0.05"), request(tmp_path / "b", "second", "0.05")]
    try:
        with qtbot.waitSignal(runner.sig_batch_done, timeout=60_000) as done:
            assert runner.start(batch, topology(tmp_path / "mnt"), save=False)
            assert runner.running and runner.request is batch[0] and runner.queue == [batch[1]]
            now = runner.now()
            assert (now.request, now.run_no, now.runs) == (batch[0], 1, 2)
        assert events == [("started", "first"), ("done", "first", RunStatus.COMPLETE),
                          ("started", "second"), ("done", "second", RunStatus.COMPLETE)]
        runs = done.args[0]
        assert [r.status for r in runs] == [RunStatus.COMPLETE] * 2 and [len(r.steps) for r in runs] == [2, 2]
        assert not runner.running and runner.request is None and runner.now() is None
        assert not runner.start([], topology(tmp_path / "mnt"), save=False), "an empty batch starts nothing"
    finally:
        bridge.close()


def test_cancel_stops_the_running_request_and_the_second_never_starts(qtbot, tmp_path):
    bridge, runner, events = make_runner(qtbot, tmp_path)
    batch = [request(tmp_path / "a", "first", "30"), request(tmp_path / "b", "second", "0.05")]
    try:
        assert not runner.cancel(), "nothing runs: nothing to cancel"
        with qtbot.waitSignal(runner.sig_batch_done, timeout=30_000) as done:
            assert runner.start(batch, topology(tmp_path / "mnt"), save=False)
            qtbot.waitUntil(lambda: any(p.name.startswith("brickyard-") for p in (tmp_path / "a").iterdir()),
                            timeout=20_000)
            assert runner.cancel() and runner.cancelled and runner.queue == []
        [run] = done.args[0]
        assert run.status is RunStatus.CANCELLED and run.error.startswith("cancelled by the user")
        assert events == [("started", "first"), ("done", "first", RunStatus.CANCELLED)]
        assert not list((tmp_path / "a").iterdir()) and not list((tmp_path / "b").iterdir())
        assert not runner.running
    finally:
        bridge.close()


def test_an_unknown_host_key_is_a_question_and_retry_runs_the_request_again(qtbot, tmp_path):
    import asyncssh

    from brickyard.remote.hostkeys import UnknownHostKey

    from .test_run_view import MountStandIn

    key = asyncssh.generate_private_key("ssh-ed25519")
    refused_once: list[str] = []

    class UnknownOnce(LocalServices):
        def hosts(self, topo):
            def get(name):
                ex = MountStandIn(name, topo)
                if not refused_once:
                    async def unknown(argv, **kw):
                        refused_once.append(name)
                        raise UnknownHostKey(name, name, key, tmp_path / "known_hosts")
                    ex.run = unknown
                return ex
            return get

    bridge = RemoteBridge(make_services=lambda options: UnknownOnce())
    runner = BatchRunner(bridge, lambda name: Sleeper(), locks=HostLocks(tmp_path / "locks"))
    asked: list = []
    runner.sig_host_key.connect(lambda request, err: (asked.append((request.label, err.host)), runner.retry(request)))
    (tmp_path / "a").mkdir()
    first = BenchRequest("sleeper", {"seconds": "0.05", "steps": "1", "repeats": "1"},
                         (TargetSpec("c1", str(tmp_path / "a")),), label="on c1")
    try:
        with qtbot.waitSignal(runner.sig_batch_done, timeout=30_000) as done:
            assert runner.start([first], topology(tmp_path / "mnt"), save=False)
        assert asked == [("on c1", "c1")]
        assert [r.status for r in done.args[0]] == [RunStatus.COMPLETE], "run again once the key is trusted"
    finally:
        bridge.close()
