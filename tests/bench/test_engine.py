"""The run engine end to end on this machine: results stream to the sink as measured, and
cancel, a dying host and a stalled worker each end the run in their named state."""

import asyncio
import os
import signal
import threading

import pytest

from brickyard.bench import registry
from brickyard.bench.api import Measurement, Param, ParamError, Workload
from brickyard.bench.engine import TargetSpec, parse_target, run_benchmark, TargetError
from brickyard.core.results import RunStatus, WorkerTiming
from brickyard.remote.local import LocalExecutor
from brickyard.remote.loop import Progress


class Recorder:
    def __init__(self):
        self.events = []

    def run_started(self, run):
        self.events.append(("started", run.status))

    def step_finished(self, run, step):
        self.events.append(("step", step.index))

    def run_finished(self, run):
        self.events.append(("finished", run.status))


class Sleeper(Workload):
    """Each step: one worker sleeping ``seconds`` (no I/O at all)."""

    name = "sleeper"
    params = (Param("seconds", "float", 0.2, "sleep per step", minimum=0, maximum=60),
              Param("steps", "int", 3, "steps", minimum=1, maximum=100))

    def step_count(self, values):
        return values["steps"]

    async def run(self, ctx):
        for i in range(ctx.values["steps"]):
            runs = await ctx.run_workers([(t, ctx.exec_worker(["sleep", str(ctx.values["seconds"])]))
                                          for t in ctx.targets])
            ctx.record(Measurement({"i": i}, [r.timing for r in runs]))


def local(tmp_path):
    return [(TargetSpec("local", str(tmp_path)), LocalExecutor("local"))]


def test_dd_run_streams_valid_steps_to_the_sink_and_cleans_up(tmp_path):
    sink = Recorder()
    dd = registry.find("dd", tmp_path / "no-user-plugins")
    run = asyncio.run(run_benchmark(dd, {"block_sizes": "64K,1M", "concurrency": "1,2", "size": "2M",
                                         "repeats": "1", "direction": "both"}, local(tmp_path), sink=sink))
    assert run.status is RunStatus.COMPLETE, run.error
    assert len(run.steps) == 8 and all(s.valid for s in run.steps)
    assert sink.events[0][0] == "started" and sink.events[-1] == ("finished", RunStatus.COMPLETE)
    assert [e for e in sink.events if e[0] == "step"] == [("step", i) for i in range(8)]
    step = run.steps[2]
    assert step.params["concurrency"] == 2 and step.params["direction"] == "write"
    assert sum(w.bytes for w in step.workers) == 2 * 2 * 1024 * 1024
    assert step.metric("scaling_efficiency") is not None
    assert {"p50", "p99", "max"} <= set(step.start_skew)
    assert run.provenance.parameters["block_sizes"] == "64K,1M"
    assert run.provenance.hosts["local"]["kernel"]
    assert os.listdir(tmp_path) == []          # the run directory is gone


def test_bad_parameters_fail_before_anything_runs(tmp_path):
    dd = registry.find("dd", tmp_path)
    from brickyard.bench.api import ParamError
    with pytest.raises(ParamError, match="block_sizes"):
        asyncio.run(run_benchmark(dd, {"block_sizes": "1G"}, local(tmp_path)))


def test_cancel_ends_the_run_cancelled_with_measured_steps_kept(tmp_path):
    progress = Progress()
    sink = Recorder()
    seen = threading.Event()

    class CancelAfterFirst(Recorder):
        def step_finished(self, run, step):
            super().step_finished(run, step)
            progress.cancel()

    run = asyncio.run(run_benchmark(Sleeper(), {"steps": "5", "repeats": "1", "seconds": "0.3"}, local(tmp_path),
                                    progress=progress, sink=CancelAfterFirst()))
    assert run.status is RunStatus.CANCELLED and run.error.startswith("cancelled by the user")
    assert len(run.steps) == 1
    assert os.listdir(tmp_path) == []
    del sink, seen


def test_a_host_dying_mid_run_is_partial_with_the_host_named(tmp_path):
    class KillAgentAfterFirst(Recorder):
        def step_finished(self, run, step):
            super().step_finished(run, step)
            # the agent is the only python child running agent.py in its own process group
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    try:
                        cmd = open(f"/proc/{pid}/cmdline", "rb").read()
                    except OSError:
                        continue
                    if b"brickyard-agent." in cmd and cmd.endswith(b"agent.py\0") and int(pid) in agent_pids:
                        os.kill(int(pid), signal.SIGKILL)

    agent_pids = set()
    import brickyard.bench.agentclient as ac
    original = ac.AgentSession.open

    async def spy(self):
        await original(self)
        agent_pids.add(self._proc.pid)
    ac.AgentSession.open = spy
    try:
        run = asyncio.run(run_benchmark(Sleeper(), {"steps": "4", "repeats": "1"}, local(tmp_path),
                                        sink=KillAgentAfterFirst()))
    finally:
        ac.AgentSession.open = original
    assert run.status is RunStatus.PARTIAL
    assert run.failed_host == "local" and "connection to the benchmark agent lost" in run.error
    assert len(run.steps) == 1
    clauses = run.error.split("; ")
    assert len(clauses) == len(set(clauses)), run.error       # each said once (it said each twice)


def test_a_partial_runs_error_says_each_thing_once(tmp_path, monkeypatch):
    """The host died and the result sink failed: two things, each said once (each was said
    twice: the run's error was joined with the cleanup notes again after they were in it)."""
    import brickyard.bench.agentclient as ac

    agent_pids = set()
    original = ac.AgentSession.open

    async def spy(self):
        await original(self)
        agent_pids.add(self._proc.pid)

    class FailingSinkKillingItsAgent(Recorder):
        def step_finished(self, run, step):
            super().step_finished(run, step)
            for pid in agent_pids:
                os.kill(pid, signal.SIGKILL)
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(ac.AgentSession, "open", spy)
    run = asyncio.run(run_benchmark(Sleeper(), {"steps": "4", "repeats": "1"}, local(tmp_path),
                                    sink=FailingSinkKillingItsAgent()))
    assert run.status is RunStatus.PARTIAL
    clauses = run.error.split("; ")
    assert clauses[0].startswith("local: connection to the benchmark agent lost")
    assert any(c.startswith("the result sink failed (OSError") for c in clauses), run.error
    assert len(clauses) == len(set(clauses)), run.error


def test_a_stalled_worker_is_reported_as_a_stall_not_a_crash(tmp_path):
    run = asyncio.run(run_benchmark(Sleeper(), {"steps": "2", "repeats": "1", "seconds": "20", "stall_seconds": "1"},
                                    local(tmp_path)))
    assert run.status is RunStatus.FAILED          # nothing measured before the stall
    assert "I/O stalled" in run.error and run.failed_host == "local"
    assert run.steps and "stall" in run.steps[-1].flags and not run.steps[-1].valid


def test_targets_must_name_host_and_absolute_path():
    assert parse_target("client1:/mnt/gv0/") == TargetSpec("client1", "/mnt/gv0")
    for bad in ("client1", "client1:mnt", ":/x", "a b:/x", "-oProxyCommand=x:/y", "a$(b):/x"):
        with pytest.raises(TargetError):
            parse_target(bad)
    assert parse_target("client1:/mnt/a$(b)`c`;d|e f${IFS}") == TargetSpec("client1", "/mnt/a$(b)`c`;d|e f${IFS}")


@pytest.mark.parametrize("char", ["\n", "\r", "\t", "\x00", "\x1b", "\x7f"])
def test_a_target_path_with_a_control_character_is_refused_before_anything_runs(tmp_path, char):
    with pytest.raises(TargetError, match="control character"):
        parse_target(f"client1:/mnt/x{char}exec_prerun=touch /tmp/y")
    dd = registry.find("dd", tmp_path / "no-user-plugins")
    with pytest.raises(ParamError, match="control character"):
        asyncio.run(run_benchmark(dd, {}, [(TargetSpec("local", f"{tmp_path}/x{char}y"), LocalExecutor("local"))]))
    assert list(tmp_path.iterdir()) == []


def test_headline_and_sum_of_rates_are_both_recorded_and_labelled(tmp_path):
    class Staggered(Workload):
        name = "staggered"

        def step_count(self, values):
            return 1

        async def run(self, ctx):
            t = ctx.targets[0]
            runs = await ctx.run_workers([(t, {"kind": "sleep", "seconds": 0.3, "delay": 0.1 * i}) for i in range(3)])
            ctx.record(Measurement({}, [WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                                     bytes=10**8) for r in runs]))

    run = asyncio.run(run_benchmark(Staggered(), {"repeats": "1"}, local(tmp_path)))
    step = run.steps[0]
    assert step.metric("sum_of_rates").value > 1.4 * step.metric("throughput").value
    assert step.start_skew["max"] > 0.19


def test_progress_events_carry_step_counts_and_live_throughput(tmp_path):
    events = []

    class Live(Recorder):
        def progress(self, run, event):
            events.append(event)

    run = asyncio.run(run_benchmark(Sleeper(), {"steps": "2", "repeats": "1", "seconds": "1.2"}, local(tmp_path),
                                    sink=Live()))
    assert run.status is RunStatus.COMPLETE
    assert {e.step_total for e in events} == {2}
    live = [e for e in events if e.live_bps is not None]
    assert live and all("·" not in e.label for e in events)     # live figures never pile up in the label
    assert events[-1].fraction == 1.0


def test_a_workload_bug_ends_its_run_as_failed_not_the_app(tmp_path):
    class Buggy(Sleeper):
        name = "buggy"

        async def run(self, ctx):
            await super().run(ctx)
            raise KeyError("oops")

    sink = Recorder()
    run = asyncio.run(run_benchmark(Buggy(), {"steps": "1", "repeats": "1", "seconds": "0"}, local(tmp_path), sink=sink))
    assert run.status is RunStatus.PARTIAL and "workload buggy failed: KeyError" in run.error
    assert sink.events[-1] == ("finished", RunStatus.PARTIAL)
    assert os.listdir(tmp_path) == []


def test_physics_check_flags_a_step_faster_than_the_link_allows(tmp_path):
    dd = registry.find("dd", tmp_path / "none")
    run = asyncio.run(run_benchmark(dd, {"block_sizes": "1M", "concurrency": "1", "size": "8M", "direction": "write",
                                         "repeats": "1"}, local(tmp_path), link_bps=1000.0))
    (step,) = run.steps
    assert "cache-effect-suspected" in step.flags and "the link allows" in step.note


def test_a_long_pause_without_io_marks_the_step_invalid_even_when_it_resumes(tmp_path):
    run = asyncio.run(run_benchmark(Sleeper(), {"steps": "1", "repeats": "1", "seconds": "1.8", "stall_seconds": "3"},
                                    local(tmp_path)))
    assert run.status is RunStatus.COMPLETE
    (step,) = run.steps
    assert "io-pause" in step.flags and not step.valid and "no I/O progress on local" in step.note


def test_a_run_on_many_targets_of_two_kinds_names_each_kind_once_and_exports_back(tmp_path):
    # a probe on a 4-node lab has nine targets (eight brick filesystems and the client's /tmp):
    # every target's kind joined made 53 characters, which a stored run's kind (32) cannot hold,
    # so the run could not be exported and read back
    import shutil
    from pathlib import Path

    from brickyard.store.codec import run_from_dict, run_to_dict

    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    dirs = [tmp_path / f"d{i}" for i in range(8)]
    for d in dirs:
        d.mkdir()
    other = Path(shm / f"brickyard-test-{os.getpid()}")
    other.mkdir()
    try:
        targets = [(TargetSpec("local", str(d)), LocalExecutor("local")) for d in [*dirs, other]]
        run = asyncio.run(run_benchmark(Sleeper(), {"seconds": 0.0, "steps": 1}, targets))
    finally:
        shutil.rmtree(other, ignore_errors=True)
    assert run.provenance.target_kind == "local,tmpfs"
    assert run_from_dict(run_to_dict(run)).provenance.target_kind == "local,tmpfs"
