"""What a view needs from a provisioning run: each step's start and end as it happens, the
exception that failed a step (an unknown host key is trusted, not just printed), and the dry
run's text shared with the CLI."""

from __future__ import annotations

import asyncio

import asyncssh

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.remote.commandline import dry_run_lines
from brickyard.remote.hostkeys import UnknownHostKey
from brickyard.remote.loop import Progress
from brickyard.remote.provision import provision_plan, run_provision
from brickyard.remote.steps import DONE, FAILED, PENDING, RUNNING, SKIPPED, dry_run
from brickyard.remote.teardown import run_teardown

from .fakes import FakeCluster, executors
from .test_provision import vrep_topology


def _events(run) -> tuple[list[tuple[int, str]], object]:
    seen: list[tuple[int, str]] = []
    report = asyncio.run(run(lambda index, outcome: seen.append((index, outcome.status))))
    return seen, report


def test_each_step_is_reported_when_it_starts_and_when_it_ends_and_a_rerun_reports_skips():
    topo, cluster = vrep_topology(), FakeCluster()
    plan = provision_plan(topo, "vrep")
    seen, report = _events(lambda on_step: run_provision(plan, executors(cluster), Progress(), on_step))
    n = len(plan.steps)
    # steps run together (every node's brick directories) may end in any order: each is still
    # announced once when it starts and once when it ends, in that order
    assert sorted(seen) == sorted(e for i in range(n) for e in ((i, RUNNING), (i, DONE)))
    assert all(seen.index((i, RUNNING)) < seen.index((i, DONE)) for i in range(n))
    assert RUNNING not in {o.status for o in report.outcomes}  # only the snapshots say running

    seen, again = _events(lambda on_step: run_provision(plan, executors(cluster), Progress(), on_step))
    ends = dict(e for e in seen if e[1] != RUNNING)
    assert ends == {i: o.status for i, o in enumerate(again.outcomes)} and SKIPPED in ends.values()

    seen, down = _events(lambda on_step: run_teardown(topo, "vrep", executors(cluster), Progress(), on_step))
    assert down.ok and sorted(i for i, s in seen if s != RUNNING) == list(range(len(down.outcomes)))


def test_a_failed_step_keeps_its_exception_and_later_steps_are_never_announced():
    topo, cluster = vrep_topology(), FakeCluster()
    plan = provision_plan(topo, "vrep")
    key = asyncssh.generate_private_key("ssh-ed25519")
    refusal = UnknownHostKey("node3", "10.77.0.13", key, None)
    inner = executors(cluster)

    class Refuses:
        def __init__(self, ex):
            self.ex, self.host = ex, ex.host

        async def run(self, argv, **kw):
            if argv == ["true"]:  # the login before the first step worked; a later connection is refused
                return await self.ex.run(argv, **kw)
            raise refusal

    def executor_for(host):
        return Refuses(inner(host)) if host == "node3" else inner(host)

    seen, report = _events(lambda on_step: run_provision(plan, executor_for, Progress(), on_step))
    failed = report.failed
    assert failed.step.host == "node3" and failed.error is refusal
    index = report.outcomes.index(failed)
    assert seen.index((index, RUNNING)) < seen.index((index, FAILED))
    # only the steps running with it (the other nodes' waits) may still end after it
    later = {i for i, _ in seen if i > index}
    assert all(plan.steps[i].together and plan.steps[i].together == failed.step.together for i in later)
    assert all(o.status == PENDING for i, o in enumerate(report.outcomes) if i > index and i not in later)
    assert "unknown host key" in failed.message and report.to_json()["failed_step"] == failed.step.key


def test_an_unknown_host_key_met_before_the_first_step_is_raised_and_no_step_is_announced():
    topo, cluster = vrep_topology(), FakeCluster()
    refusal = UnknownHostKey("client1", "10.77.0.101", asyncssh.generate_private_key("ssh-ed25519"), None)
    inner = executors(cluster)

    class Refuses:
        host = "client1"

        async def run(self, argv, **kw):
            raise refusal

    seen: list = []
    for run in (lambda: run_provision(provision_plan(topo, "vrep"), executor_for, Progress(), on_step),
                lambda: run_teardown(topo, "vrep", executor_for, Progress(), on_step)):
        executor_for = lambda host: Refuses() if host == "client1" else inner(host)  # noqa: E731
        on_step = lambda index, outcome: seen.append(index)  # noqa: E731
        try:
            asyncio.run(run())
        except UnknownHostKey as exc:
            assert exc is refusal
        else:
            raise AssertionError("the unknown key was not raised")
    assert seen == [] and cluster.volumes == {}


def test_the_dry_run_text_is_what_the_cli_prints(tmp_path, capsys):
    topo = vrep_topology()
    path = tmp_path / "t.brickyard.json"
    topofile.save(topo, path)
    assert main(["provision", str(path), "--dry-run"]) == 0
    plan = provision_plan(topo, "vrep")
    lines = dry_run_lines(dry_run("provision", "vrep", plan.steps))
    assert capsys.readouterr().out.splitlines() == lines
    assert sum(line.startswith("# MKDIR_BRICK p v: ") for line in lines) == 1
    assert "ssh client1 MOUNT_VOLUME src=node1:/vrep dst=/mnt/vrep opts=backup-volfile-servers=node2:node3" in lines


def test_every_unknown_key_met_before_the_first_step_travels_with_the_first():
    from brickyard.remote.hostkeys import HostKeyChanged
    from brickyard.remote.steps import reach_hosts

    keys = {h: asyncssh.generate_private_key("ssh-ed25519") for h in ("node2", "client1")}

    class Refuses:
        def __init__(self, error):
            self.error = error

        async def run(self, argv, **kw):
            raise self.error

    errors = {h: UnknownHostKey(h, h, k, None) for h, k in keys.items()}
    inner = executors(FakeCluster())
    executor_for = lambda host: Refuses(errors[host]) if host in errors else inner(host)  # noqa: E731
    try:
        asyncio.run(reach_hosts(["node1", "node2", "node3", "client1"], executor_for))
    except UnknownHostKey as exc:
        assert exc is errors["node2"] and exc.others == [errors["client1"]]
    else:
        raise AssertionError("the unknown keys were not raised")
    # a changed key anywhere comes first: it must be seen, and is never offered for trust
    changed = HostKeyChanged("node3", "node3", keys["node2"], [("/k", "SHA256:x")])
    errors["node3"] = changed
    try:
        asyncio.run(reach_hosts(["node1", "node2", "node3", "client1"], executor_for))
    except HostKeyChanged as exc:
        assert exc is changed
    else:
        raise AssertionError("the changed key was not raised")
