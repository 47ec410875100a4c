"""Provisioning and teardown plans, run against a fake cluster that answers with recorded gluster XML."""

import asyncio
import json

import pytest

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import Brick, BrickRef, Client, Layout, Mount, Node, Topology, Volume, VolumeType
from brickyard.remote.loop import Progress
from brickyard.remote.provision import MKDIR_SCRIPT, ProvisionError, provision_plan, run_provision
from brickyard.remote.steps import DONE, FAILED, PENDING, SKIPPED
from brickyard.remote.teardown import run_teardown

from .fakes import FakeCluster, executors

GIB = 1 << 30


def lab_like(volume: str = "vrep", nodes: int = 4) -> Topology:
    topo = Topology(name="t")
    for i in range(1, nodes + 1):
        topo.nodes.append(Node(f"node{i}", address=f"10.77.0.{10 + i}", bricks=[
            Brick(f"/srv/brick1/{volume}", GIB, filesystem=f"loop{i}a", mount="/srv/brick1"),
            Brick(f"/srv/brick2/{volume}", GIB, filesystem=f"loop{i}b", mount="/srv/brick2"),
        ]))
    topo.clients.append(Client("client1", address="10.77.0.101"))
    return topo


def vrep_topology(**volume_fields) -> Topology:
    topo = lab_like()
    fields = dict(layout=Layout(VolumeType.REPLICATE, replica=3),
                  bricks=[BrickRef(f"node{i}", "/srv/brick1/vrep") for i in (1, 2, 3)],
                  options={"performance.write-behind": "off"},
                  mounts=[Mount("client1", "/mnt/vrep")])
    fields.update(volume_fields)
    topo.volumes.append(Volume("vrep", **fields))
    return topo


def _provision(topo, cluster, name="vrep"):
    plan = provision_plan(topo, name)
    progress = Progress()
    report = asyncio.run(run_provision(plan, executors(cluster), progress))
    return report, progress


MUTATING = ("probe", "create", "set", "start", "stop", "delete", "umount")


def _mutations(cluster):
    out = []
    for host, argv in cluster.calls:
        if argv[0] == "gluster" and any(w in argv for w in MUTATING):
            out.append((host, argv))
        elif argv[0] in ("umount",) or (argv[:2] == ("sh", "-c") and "findmnt" not in argv[2]):
            out.append((host, argv))
    return out


def test_plan_lists_the_steps_with_exact_argument_lists():
    plan = provision_plan(vrep_topology(), "vrep")
    keys = [s.key for s in plan.steps]
    assert keys == [
        "peer-probe:node2", "peer-probe:node3", "peers-connected",
        # every brick host must see the whole pool itself: volume create is staged on each
        "peers-connected:node2", "peers-connected:node3",
        "mkdir:node1:/srv/brick1/vrep", "mkdir:node2:/srv/brick1/vrep", "mkdir:node3:/srv/brick1/vrep",
        "volume-create", "volume-set", "volume-start", "mount:client1:/mnt/vrep",
    ]
    create = next(s for s in plan.steps if s.key == "volume-create")
    assert create.host == "node1"
    assert create.commands == [["gluster", "--mode=script", "volume", "create", "vrep", "replica", "3",
                                "transport", "tcp", "node1:/srv/brick1/vrep", "node2:/srv/brick1/vrep",
                                "node3:/srv/brick1/vrep"]]
    mount = plan.steps[-1]
    assert mount.host == "client1" and mount.commands[0][4:] == [
        "node1:/vrep", "/mnt/vrep", "backup-volfile-servers=node2:node3"]


def test_provision_runs_every_step_then_a_rerun_changes_nothing():
    cluster = FakeCluster()
    report, progress = _provision(vrep_topology(), cluster)
    assert report.ok, report.summary()
    assert [o.status for o in report.outcomes] == [DONE] * len(report.outcomes)
    assert cluster.volumes["vrep"]["status"] == "Started"
    assert cluster.volumes["vrep"]["options"] == {"performance.write-behind": "off"}
    assert cluster.mounts == {("client1", "/mnt/vrep"): "node1:/vrep"}
    assert set(cluster.markers) == {(f"node{i}", "/srv/brick1/vrep") for i in (1, 2, 3)}
    assert any("create volume vrep: done" in line for line in progress.lines)

    before = len(_mutations(cluster))
    again, _ = _provision(vrep_topology(), cluster)
    assert again.ok
    statuses = {o.step.key: o.status for o in again.outcomes}
    for key in ("peers-connected", "peers-connected:node2", "peers-connected:node3"):
        assert statuses.pop(key) == DONE  # read-only waits, always run
    assert set(statuses.values()) == {SKIPPED}
    # nothing was changed the second time: the brick-directory script ran (its own check, one
    # round trip) and found each directory there
    assert {argv[2] for _, argv in _mutations(cluster)[before:]} == {MKDIR_SCRIPT}
    assert set(cluster.markers) == {(f"node{i}", "/srv/brick1/vrep") for i in (1, 2, 3)}


def test_existing_volume_with_other_bricks_is_left_alone_and_the_run_stops():
    cluster = FakeCluster(volumes={"vrep": {"status": "Started", "options": {}}})
    topo = vrep_topology(bricks=[BrickRef(f"node{i}", "/srv/brick1/vrep") for i in (2, 3, 4)])
    report, _ = _provision(topo, cluster)
    assert not report.ok and report.failed.step.key == "volume-create"
    assert "exists already with other bricks" in report.failed.message
    assert not any("create" in argv for _, argv in _mutations(cluster))


def test_glusterd_dying_mid_run_names_host_and_step_and_says_what_was_done():
    class DiesAtCreate(FakeCluster):
        def answer(self, host, argv):
            if "create" in argv:
                self.glusterd_down.add(host)
            return super().answer(host, argv)

    cluster = DiesAtCreate()
    report, progress = _provision(vrep_topology(), cluster)
    failed = report.failed
    assert failed.step.key == "volume-create" and failed.step.host == "node1"
    assert "Connection failed" in failed.message
    summary = "\n".join(report.summary())
    assert "FAILED at step 'create volume vrep' on node1" in summary
    assert "done (8)" in summary and "left (4)" in summary
    assert "gluster peer detach node2" in summary  # how to undo what was done
    assert [o.status for o in report.outcomes].count(PENDING) == 3
    assert any("FAILED" in line for line in progress.lines)
    assert report.to_json()["failed_step"] == "volume-create"


@pytest.mark.parametrize("change, message", [
    (dict(layout=Layout(VolumeType.REPLICATE, replica=3),
          bricks=[BrickRef(f"node{i}", "/srv/brick1/vrep") for i in (1, 2, 3, 4)]), "gluster would refuse"),
    (dict(bricks=[BrickRef("node1", "/srv/brick1/vrep"), BrickRef("node1", "/srv/brick2/vrep"),
                  BrickRef("node2", "/srv/brick1/vrep")]), "without force"),
])
def test_layouts_gluster_refuses_are_not_provisioned(change, message):
    with pytest.raises(ProvisionError, match=message):
        provision_plan(vrep_topology(**change), "vrep")


def test_brick_paths_and_names_with_metacharacters_are_rejected():
    topo = vrep_topology()
    topo.nodes[0].bricks.append(Brick("/srv/brick1/x;touch${IFS}canary", GIB))
    topo.volumes[0].bricks[0] = BrickRef("node1", "/srv/brick1/x;touch${IFS}canary")
    # a path with ';' or '$' is legal for gluster and for the shell-quoting executor (a space is
    # not: gluster serves the path cut at it); '..' is not normalised
    plan = provision_plan(topo, "vrep")
    mkdir = next(s for s in plan.steps if s.key.startswith("mkdir:"))
    assert ["sh", "-c"] == mkdir.commands[0][:2] and mkdir.commands[0][4] == "/srv/brick1/x;touch${IFS}canary"
    bad = vrep_topology()
    bad.nodes[0].bricks.append(Brick("/srv/brick1/../etc", GIB))
    bad.volumes[0].bricks[0] = BrickRef("node1", "/srv/brick1/../etc")
    with pytest.raises(ProvisionError, match="normalised"):
        provision_plan(bad, "vrep")
    named = vrep_topology()
    named.volumes[0].name = "v$(id)"
    with pytest.raises(ProvisionError, match="volume name"):
        provision_plan(named, "v$(id)")


def test_teardown_removes_what_provisioning_made_and_keeps_the_rest():
    topo = vrep_topology()
    cluster = FakeCluster(dirs={("node3", "/srv/brick1/vrep")})  # node3's brick existed before
    report, _ = _provision(topo, cluster)
    assert report.ok
    down = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert down.ok, down.summary()
    assert cluster.volumes == {} and cluster.mounts == {}
    assert cluster.dirs == {("node3", "/srv/brick1/vrep")} and cluster.markers == {}
    assert any("node3:/srv/brick1/vrep was kept" in n and "setfattr -x trusted.glusterfs.volume-id" in n
               for n in down.notes)
    again = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert again.outcomes[0].step.key == "volume-check" and again.outcomes[0].message == "the volume does not exist"
    undone = ("umount", "fstab-remove", "volume-stop", "volume-delete")
    assert again.ok and {o.status for o in again.outcomes if o.step.key.split(":")[0] in undone} == {SKIPPED}


def test_teardown_unmounts_the_clients_of_the_topology_and_refuses_one_it_cannot_unmount():
    topo = vrep_topology()
    cluster = FakeCluster()
    assert _provision(topo, cluster)[0].ok
    # a second machine mounts the volume too, and the topology does not know it
    cluster.volume_clients["vrep"] = ["10.77.0.102"]
    down = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert not down.ok and down.failed.step.key == "clients-check"
    assert "mounted by client2 (10.77.0.102), which the topology has no mount for: Brickyard cannot unmount" \
        in down.failed.message
    assert cluster.volumes["vrep"]["status"] == "Started" and cluster.mounts   # nothing changed
    # the client the topology mounts it on is one teardown unmounts: on its way
    cluster.volume_clients.clear()
    down = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert down.ok and down.outcomes[1].message.startswith("mounted by client1")
    assert cluster.mounts == {} and cluster.volumes == {}


def test_cli_dry_run_prints_commands_per_host_and_runs_nothing(tmp_path, capsys):
    path = tmp_path / "t.brickyard.json"
    topofile.save(vrep_topology(), path)
    assert main(["provision", str(path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "ssh node1 gluster --mode=script volume create vrep replica 3 transport tcp" in out
    assert "ssh node2 MKDIR_BRICK p=/srv/brick1/vrep v=vrep" in out
    assert "# MKDIR_BRICK p v: " in out
    assert main(["provision", str(path), "--dry-run", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dry_run"] and {s["status"] for s in doc["steps"]} == {"planned"}


def test_cli_provision_asks_before_accepting_gluster_warnings(tmp_path, capsys):
    topo = lab_like()
    topo.volumes.append(Volume("vdistrep", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2),
                               [BrickRef(f"node{i}", "/srv/brick1/vrep") for i in (1, 2, 3, 4)]))
    path = tmp_path / "t.brickyard.json"
    topofile.save(topo, path)
    assert main(["provision", str(path), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert not doc["ok"] and any("split" in q.lower() for q in doc["questions"])


def test_cli_teardown_needs_the_typed_confirmation(tmp_path, capsys):
    path = tmp_path / "t.brickyard.json"
    topofile.save(vrep_topology(), path)
    assert main(["teardown", str(path), "--confirm", "vre"]) == 2
    assert "--confirm vrep" in capsys.readouterr().err
    assert main(["teardown", str(path)]) == 2


def test_fstab_line_is_added_once_and_removed_by_teardown():
    topo = vrep_topology()
    cluster = FakeCluster()
    plan = provision_plan(topo, "vrep", fstab=True)
    for _ in range(2):
        assert asyncio.run(run_provision(plan, executors(cluster), Progress())).ok
    line = "node1:/vrep /mnt/vrep glusterfs defaults,_netdev,backup-volfile-servers=node2:node3 0 0"
    assert cluster.fstab == {"client1": [line]}
    assert asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress())).ok
    assert cluster.fstab == {"client1": []}


def test_a_mount_that_asks_for_fstab_gets_its_line_without_the_global_flag():
    topo = vrep_topology(mounts=[Mount("client1", "/mnt/vrep", "noatime", fstab=True), Mount("client1", "/mnt/other")])
    steps = [s.key for s in provision_plan(topo, "vrep").steps]
    assert "fstab:client1:/mnt/vrep" in steps and "fstab:client1:/mnt/other" not in steps
    cluster = FakeCluster()
    assert asyncio.run(run_provision(provision_plan(topo, "vrep"), executors(cluster), Progress())).ok
    assert cluster.fstab["client1"] == [
        "node1:/vrep /mnt/vrep glusterfs defaults,_netdev,noatime,backup-volfile-servers=node2:node3 0 0"]


def test_mount_options_mount_glusterfs_would_refuse_stop_the_plan_before_anything_runs():
    topo = vrep_topology(mounts=[Mount("client1", "/mnt/vrep", "noatime=1")])
    with pytest.raises(ProvisionError, match="Invalid option: noatime"):
        provision_plan(topo, "vrep")


def test_cancel_from_another_thread_stops_the_running_step_and_reports_it():
    import threading

    from brickyard.remote.local import LocalExecutor
    from brickyard.remote.loop import AsyncLoopThread
    from brickyard.remote.steps import Step, run_steps

    steps = [Step("slow", "wait a long time", "here", [["sleep", "30"]], sudo=False),
             Step("after", "never reached", "here", [["true"]], sudo=False)]
    progress = Progress()
    with AsyncLoopThread() as lt:
        fut = lt.submit(run_steps("test", "x", steps, lambda host: LocalExecutor(host), progress))
        threading.Timer(0.5, progress.cancel).start()
        report = fut.result(20)
    assert [o.status for o in report.outcomes] == [FAILED, PENDING]
    assert report.outcomes[0].message == "cancelled by the user while it ran"
    assert report.outcomes[0].seconds < 10
    assert report.interrupted and report.to_json()["interrupted"]
    summary = report.summary()
    assert summary[0].startswith("INTERRUPTED at step 'wait a long time' on here")
    assert "left (2): here: wait a long time; here: never reached" in summary


def test_a_non_root_login_provisions_and_tears_down_with_every_root_command_through_sudo():
    topo = vrep_topology()
    cluster = FakeCluster(non_root=True)
    plan = provision_plan(topo, "vrep", fstab=True)
    report = asyncio.run(run_provision(plan, executors(cluster), Progress()))
    assert report.ok, report.summary()
    assert cluster.volumes["vrep"]["status"] == "Started" and cluster.mounts and cluster.fstab["client1"]
    down = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert down.ok, down.summary()
    assert cluster.volumes == {} and cluster.mounts == {} and cluster.dirs == set() and cluster.fstab["client1"] == []


def test_undo_and_reuse_hints_quote_every_word():
    import shlex

    from brickyard.remote.teardown import reuse_hint, teardown_plan

    path = "/srv/brick1/x;touch /tmp/pwned"
    hint = reuse_hint(path)
    assert [shlex.split(cmd) for cmd in hint.split("; ")] == [
        ["setfattr", "-x", "trusted.glusterfs.volume-id", path], ["setfattr", "-x", "trusted.gfid", path],
        ["rm", "-rf", "--", f"{path}/.glusterfs"]]
    topo = vrep_topology(mounts=[Mount("client1", "/mnt/v;touch /tmp/pwned")])
    plan = provision_plan(topo, "vrep", fstab=True)
    undo = {s.key.partition(":")[0]: s.undo for s in plan.steps}
    assert shlex.split(undo["mount"]) == ["umount", "/mnt/v;touch /tmp/pwned"]
    assert "'" in undo["fstab"] and "/mnt/v;touch /tmp/pwned" in shlex.split(undo["fstab"])[3]
    down = {s.key.partition(":")[0]: s.undo for s in teardown_plan(topo, "vrep")}
    assert shlex.split(down["umount"])[-1] == "/mnt/v;touch /tmp/pwned"


def test_teardown_leaves_a_same_name_volume_with_other_bricks_alone_and_says_what_differs():
    cluster = FakeCluster(volumes={"vrep": {"status": "Started", "options": {}}},  # node1..3:/srv/brick1/vrep
                          mounts={("client1", "/mnt/vrep"): "node1:/vrep"})
    topo = vrep_topology(bricks=[BrickRef(f"node{i}", "/srv/brick1/vrep") for i in (2, 3, 4)])
    report = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert not report.ok and report.failed.step.key == "volume-check" and report.outcomes.index(report.failed) == 0
    assert "on the cluster, not in the plan: node1:/srv/brick1/vrep" in report.failed.message
    assert "in the plan, not on the cluster: node4:/srv/brick1/vrep" in report.failed.message
    assert _mutations(cluster) == [] and cluster.volumes["vrep"]["status"] == "Started" and cluster.mounts
    reordered = vrep_topology(bricks=[BrickRef(f"node{i}", "/srv/brick1/vrep") for i in (2, 1, 3)])
    report = asyncio.run(run_teardown(reordered, "vrep", executors(cluster), Progress()))
    assert "the same bricks in another order" in report.failed.message and _mutations(cluster) == []


class _Unreachable(FakeCluster):
    def __init__(self, host, error):
        super().__init__()
        self.down_host, self.error = host, error

    def answer(self, host, argv):
        if host == self.down_host:
            self.calls.append((host, tuple(argv)))
            raise self.error
        return super().answer(host, argv)


def test_an_unknown_client_key_stops_provisioning_before_anything_is_changed(tmp_path):
    import asyncssh

    from brickyard.remote.hostkeys import UnknownHostKey

    key = asyncssh.generate_private_key("ssh-ed25519")
    cluster = _Unreachable("client1", UnknownHostKey("client1", "10.77.0.101", key, tmp_path / "kh"))
    with pytest.raises(UnknownHostKey):
        asyncio.run(run_provision(provision_plan(vrep_topology(), "vrep"), executors(cluster), Progress()))
    assert _mutations(cluster) == [] and cluster.volumes == {}
    # every host was reached once, before any step ran
    assert sorted(h for h, argv in cluster.calls) == ["client1", "node1", "node2", "node3"]


def test_an_unreachable_host_stops_the_run_before_anything_is_changed():
    from brickyard.remote.executor import ExecutorError

    cluster = _Unreachable("node3", ExecutorError("node3", "cannot connect to 10.77.0.13:22: Connection refused"))
    for run in (lambda: run_provision(provision_plan(vrep_topology(), "vrep"), executors(cluster), Progress()),
                lambda: run_teardown(vrep_topology(), "vrep", executors(cluster), Progress())):
        report = asyncio.run(run())
        assert not report.ok and {o.status for o in report.outcomes} == {PENDING}
        assert report.error == ("cannot reach every host, so nothing was changed: "
                                "node3: cannot connect to 10.77.0.13:22: Connection refused")
        assert report.summary()[0].startswith("FAILED: cannot reach every host") and not report.notes
        assert _mutations(cluster) == []


def _fstab_remove(fstab, line):
    from brickyard.remote.local import LocalExecutor
    from brickyard.remote.teardown import FSTAB_REMOVE_SCRIPT

    return asyncio.run(LocalExecutor("here").run(["sh", "-c", FSTAB_REMOVE_SCRIPT, "sh", line, str(fstab)]))


def test_fstab_remove_replaces_the_file_in_one_rename_and_keeps_its_mode(tmp_path):
    import os

    line = "node1:/vrep /mnt/vrep glusterfs defaults,_netdev 0 0"
    fstab = tmp_path / "fstab"
    fstab.write_text(f"# static\nUUID=1 / ext4 defaults 0 1\n{line}\n")
    fstab.chmod(0o640)
    inode = fstab.stat().st_ino
    result = _fstab_remove(fstab, line)
    assert result.ok and result.text.strip() == "removed", result.stderr
    assert fstab.read_text() == "# static\nUUID=1 / ext4 defaults 0 1\n"
    assert fstab.stat().st_mode & 0o777 == 0o640 and fstab.stat().st_ino != inode  # a new file, renamed
    assert os.listdir(tmp_path) == ["fstab"]  # no temp file left
    again = _fstab_remove(fstab, line)
    assert again.ok and again.text.startswith("not in ")
    only = tmp_path / "only"
    only.write_text(line + "\n")  # grep -v selects nothing (exit 1): the result is an empty file
    assert _fstab_remove(only, line).ok and only.read_text() == ""


def test_fstab_remove_leaves_the_file_alone_when_grep_fails(tmp_path):
    import os

    line = "node1:/vrep /mnt/vrep glusterfs defaults 0 0"
    not_a_file = tmp_path / "fstab"
    not_a_file.mkdir()  # grep exits 2 on a directory
    result = _fstab_remove(not_a_file, line)
    assert result.exit_status == 4 and b"left untouched" in result.stderr
    assert not_a_file.is_dir() and os.listdir(tmp_path) == ["fstab"]


def test_fstab_remove_writes_a_bind_mounted_fstab_in_place(tmp_path):
    """In containers and the lab /etc/fstab is a bind mount: a rename over it fails (EBUSY)."""
    import os
    import shutil
    import subprocess

    from brickyard.remote.teardown import FSTAB_REMOVE_SCRIPT

    if os.geteuid() != 0 or not shutil.which("unshare"):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("needs root and unshare (CI runs as root)")
        pytest.skip("needs root for a private mount namespace")
    line = "node1:/vrep /mnt/vrep glusterfs defaults,_netdev 0 0"
    real = tmp_path / "real-fstab"
    real.write_text(f"# static\n{line}\n")
    target = tmp_path / "etc" / "fstab"
    target.parent.mkdir()
    target.write_text("")
    inner = f'mount --bind "$1" "$2" && sh -c "$3" sh "$4" "$2"'
    run = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", inner, "sh",
                          str(real), str(target), FSTAB_REMOVE_SCRIPT, line], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "removed", run.stderr
    assert real.read_text() == "# static\n"  # written through the bind mount
    assert os.listdir(target.parent) == ["fstab"]  # no temp file left beside it


class _Locked:
    """gluster answers 'Another transaction is in progress' to the first ``busy`` tries."""

    def __init__(self, busy, xml=False):
        self.host, self.busy, self.xml, self.tries = "node1", busy, xml, 0

    async def run(self, argv, **kw):
        from brickyard.remote.executor import CommandResult

        self.tries += 1
        if self.tries <= self.busy:
            text = b"volume delete: vrep: failed: Another transaction is in progress for vrep. Please try again after some time.\n"
            status, out, err = (0, b"<cliOutput><opRet>-1</opRet><opErrstr>" + text + b"</opErrstr></cliOutput>", b"") \
                if self.xml else (1, b"", text)
        else:
            status, out, err = 0, b"volume delete: vrep: success\n", b""
        return CommandResult(self.host, tuple(argv), status, out, err, 0.0, 0.0)


@pytest.mark.parametrize("xml", [False, True])
def test_gluster_busy_with_another_transaction_is_tried_again(xml):
    from brickyard.remote.executor import CommandFailed
    from brickyard.remote.steps import RetryTransient

    argv = ["gluster", "--mode=script", "volume", "delete", "vrep"]
    locked = _Locked(busy=3, xml=xml)
    result = asyncio.run(RetryTransient(locked, delays=[0] * 5).run(argv, check=True))
    assert result.ok and locked.tries == 4
    stuck = _Locked(busy=99, xml=xml)
    if xml:
        assert b"Another transaction" in asyncio.run(RetryTransient(stuck, delays=[0] * 5).run(argv)).stdout
    else:
        with pytest.raises(CommandFailed, match="Another transaction is in progress"):
            asyncio.run(RetryTransient(stuck, delays=[0] * 5).run(argv, check=True))
    assert stuck.tries == 6  # bounded
    other = _Locked(busy=1)
    assert not asyncio.run(RetryTransient(other, delays=[0] * 5).run(["umount", "/mnt/vrep"])).ok
    assert other.tries == 1  # only gluster's lock message is retried


def test_a_mount_point_brickyard_created_is_removed_only_while_empty(tmp_path):
    from brickyard.remote.local import LocalExecutor
    from brickyard.remote.teardown import RMBRICK_SCRIPT

    def remove(path):
        argv = ["sh", "-c", RMBRICK_SCRIPT, "sh", str(path), "vrep", "empty"]
        return asyncio.run(LocalExecutor("here").run(argv, check=True)).text.strip()

    made = tmp_path / "mnt" / "vrep"
    made.mkdir(parents=True)
    marker = tmp_path / "mnt" / ".vrep.brickyard-created"
    marker.write_text(f"brickyard-created\t{made}\t{tmp_path / 'mnt'}\tvrep\n")  # as MOUNT_VOLUME writes it
    (made / "data").write_text("x")
    assert remove(made) == "kept: not empty" and made.is_dir() and marker.exists()
    (made / "data").unlink()
    assert remove(made) == "removed" and not (tmp_path / "mnt").exists()  # and the parent mkdir -p made
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    assert remove(theirs) == "kept: not created by Brickyard" and theirs.is_dir()


def test_a_rerun_finds_the_fstab_line_and_skips_the_step():
    cluster = FakeCluster()
    plan = provision_plan(vrep_topology(), "vrep", fstab=True)
    assert asyncio.run(run_provision(plan, executors(cluster), Progress())).ok
    again = asyncio.run(run_provision(plan, executors(cluster), Progress()))
    fstab = next(o for o in again.outcomes if o.step.key.startswith("fstab:"))
    assert fstab.status == SKIPPED and fstab.message == "in /etc/fstab already"


def test_a_second_volume_on_other_nodes_joins_the_topologys_pool():
    # the audit provisioned one volume on node1/node2 and one on node3/node4: two pools resulted
    topo = lab_like("vb")
    topo.volumes.append(Volume("vb", Layout(VolumeType.REPLICATE, replica=2),
                               [BrickRef("node3", "/srv/brick1/vb"), BrickRef("node4", "/srv/brick1/vb")]))
    plan = provision_plan(topo, "vb")
    probes = [(s.host, s.key) for s in plan.steps if s.key.startswith("peer-probe:")]
    assert probes == [("node1", "peer-probe:node3"), ("node1", "peer-probe:node4")]
    create = next(s for s in plan.steps if s.key == "volume-create")
    assert create.host == "node1"  # every gluster command runs on the pool's origin
    waits = [s.host for s in plan.steps if s.key.startswith("peers-connected")]
    assert waits == ["node1", "node3", "node4"]


def test_a_volumes_options_are_set_in_one_gluster_transaction():
    options = {"performance.write-behind": "off", "performance.read-ahead": "off"}
    plan = provision_plan(vrep_topology(options=options), "vrep")
    (sets,) = [s for s in plan.steps if s.key.startswith("volume-set")]
    assert sets.commands == [["gluster", "--mode=script", "volume", "set", "vrep", "performance.write-behind", "off",
                              "performance.read-ahead", "off"]]
    cluster = FakeCluster()
    report, _ = _provision(vrep_topology(options=options), cluster)
    assert report.ok, report.summary()
    assert cluster.volumes["vrep"]["options"] == options
    assert sum(1 for _, argv in cluster.calls if argv[:4] == ("gluster", "--mode=script", "volume", "set")) == 1
    again, _ = _provision(vrep_topology(options=options), cluster)
    assert {o.step.key: o.status for o in again.outcomes}["volume-set"] == SKIPPED


def test_every_nodes_brick_directories_and_every_clients_mount_are_made_at_once():
    """Consecutive steps marked ``together`` run on their hosts at the same time (each host's in
    order): on hosts that each take 0.2 s a step, four nodes' eight brick directories take
    about two steps' time, not eight."""
    from brickyard.remote.steps import Step, run_steps

    running, most = set(), []

    def slow(ex):
        async def action(_):
            assert ex not in running, "one host's steps run in order"
            running.add(ex)
            most.append(len(running))
            await asyncio.sleep(0.2)
            running.discard(ex)
            return ""
        return action

    steps = [Step(f"mkdir:node{n}:{b}", "make", f"node{n}", [["true"]], action=slow(f"node{n}"), together="bricks")
             for b in (1, 2) for n in (1, 2, 3, 4)] + [Step("after", "after", "node1", [["true"]])]
    cluster = FakeCluster()
    report = asyncio.run(run_steps("provision", "v", steps, executors(cluster)))
    assert report.ok and [o.status for o in report.outcomes] == [DONE] * 9
    assert max(most) == 4       # all four hosts at once, whatever the machine's load (no wall-clock bound)


def test_a_failure_among_steps_run_together_stops_the_run_after_them():
    from brickyard.remote.steps import Step, run_steps

    async def fails(_):
        raise ValueError("no space")

    async def fine(_):
        await asyncio.sleep(0.05)
        return ""

    steps = [Step("a", "a", "node1", [["true"]], action=fails, together="g"),
             Step("b", "b", "node2", [["true"]], action=fine, together="g"),
             Step("c", "c", "node1", [["true"]], action=fine, together="g"),
             Step("d", "d", "node3", [["true"]], action=fine)]
    report = asyncio.run(run_steps("provision", "v", steps, executors(FakeCluster())))
    assert [o.status for o in report.outcomes] == [FAILED, DONE, PENDING, PENDING]
    assert "FAILED at step 'a' on node1: no space" in report.summary()[0]


def test_a_mount_mount_glusterfs_calls_done_is_done_only_when_findmnt_shows_it(monkeypatch):
    """mount.glusterfs exits 0 when glusterfs fails on fuse-mountopts=bogus (recorded on the lab):
    the step fails, saying nothing is mounted and what glusterfs logged (issue 25 point 4)."""
    from brickyard.remote import mountstate

    monkeypatch.setattr(mountstate, "READ_BACK_WAIT", 0.3)
    cluster = FakeCluster(mounts_that_fail={("client1", "/mnt/vrep")})
    report, _ = _provision(vrep_topology(), cluster)
    assert not report.ok and report.failed.step.key == "mount:client1:/mnt/vrep"
    assert report.failed.message == (
        "mount.glusterfs exited 0 but nothing is mounted on /mnt/vrep (findmnt -J); glusterfs logged: mount of "
        "node1:/gvm to /mnt/gvm (default_permissions,bogus,allow_other,max_read=131072) failed")
    assert ("client1", ("findmnt", "-J", "-o", "SOURCE,FSTYPE,TARGET", "--mountpoint", "/mnt/vrep")) in cluster.calls
    # mounted for real: done, and the read-back says what it saw
    cluster.mounts_that_fail.clear()
    report, _ = _provision(vrep_topology(), cluster)
    assert report.ok and report.outcomes[-1].message == "read back: node1:/vrep (fuse.glusterfs) on /mnt/vrep"


def test_teardown_goes_on_when_gluster_cannot_list_the_clients_and_says_so():
    """gluster 10.3's `volume status VOL clients` fails ("Commit failed on node2") when no client
    is connected (recorded on the lab): no client is known connected, teardown goes on."""
    topo = vrep_topology()
    cluster = FakeCluster()
    assert _provision(topo, cluster)[0].ok
    cluster.mounts.clear()                   # the client went away (reboot, umount by hand)
    cluster.clients_unreadable.add("vrep")
    down = asyncio.run(run_teardown(topo, "vrep", executors(cluster), Progress()))
    assert down.ok, down.summary()
    assert down.outcomes[1].message.startswith("no client is known to be connected: the servers could not list "
                                               "them (gluster volume status vrep clients: Commit failed on node2.")
    assert cluster.volumes == {}


def _gluster_reads(cluster, host="node1"):
    """How often each read-only gluster query ran on ``host``: {"peer status": n, "volume info": n}."""
    out: dict[str, int] = {}
    for argv in cluster.commands_on(host):
        words = [w for w in argv if w not in ("gluster", "--mode=script", "--xml")]
        if argv[0] == "gluster" and words[:2] in (["peer", "status"], ["volume", "info"]):
            out[" ".join(words[:2])] = out.get(" ".join(words[:2]), 0) + 1
    return out


def test_a_new_volume_on_a_pool_that_is_there_asks_gluster_once_for_the_pool_and_once_for_the_volume():
    # each gluster query is a CLI process and a glusterd round trip (0.2-1 s on a loaded
    # cluster): the probe checks and the wait after them share one peer status, and a volume
    # created a moment ago is known to have neither the options nor a start yet
    cluster = FakeCluster(peers={"node2", "node3"})
    report, progress = _provision(vrep_topology(), cluster)
    assert report.ok, report.summary()
    assert _gluster_reads(cluster) == {"peer status": 1, "volume info": 1}
    statuses = {o.step.key: o.status for o in report.outcomes}
    assert statuses["peer-probe:node2"] == statuses["peer-probe:node3"] == SKIPPED
    assert statuses["volume-set"] == statuses["volume-start"] == DONE
    assert cluster.volumes["vrep"] == {**cluster.volumes["vrep"], "status": "Started",
                                       "options": {"performance.write-behind": "off"}}
    # one round trip per brick directory: the script says when it is there already
    assert [argv[:3] for argv in cluster.commands_on("node2") if argv[0] != "gluster"] == [
        ("true",), ("sh", "-c", MKDIR_SCRIPT)]


def test_a_probe_that_ran_makes_the_next_probe_check_read_the_pool_again():
    cluster = FakeCluster()
    report, _ = _provision(vrep_topology(), cluster)
    assert report.ok and cluster.peers == {"node2", "node3"}
    # node2's check, node3's check after node2 was probed, the wait after node3 was probed
    assert _gluster_reads(cluster)["peer status"] == 3


def test_a_rerun_over_a_volume_that_is_up_reads_it_once_for_create_set_and_start():
    cluster = FakeCluster()
    assert _provision(vrep_topology(), cluster)[0].ok
    cluster.calls.clear()
    again, _ = _provision(vrep_topology(), cluster)
    statuses = {o.step.key: o.status for o in again.outcomes}
    assert statuses["volume-create"] == statuses["volume-set"] == statuses["volume-start"] == SKIPPED
    assert _gluster_reads(cluster) == {"peer status": 1, "volume info": 1}


def test_a_started_volume_whose_options_changed_is_read_again_before_its_start_check():
    # set ran on a volume that existed (not created by this run): the start's check reads again
    cluster = FakeCluster(peers={"node2", "node3"})
    assert _provision(vrep_topology(), cluster)[0].ok
    cluster.volumes["vrep"]["options"]["performance.write-behind"] = "on"
    cluster.calls.clear()
    again, _ = _provision(vrep_topology(), cluster)
    statuses = {o.step.key: o.status for o in again.outcomes}
    assert (statuses["volume-create"], statuses["volume-set"], statuses["volume-start"]) == (SKIPPED, DONE, SKIPPED)
    assert _gluster_reads(cluster)["volume info"] == 2


def test_teardown_reads_the_volume_once_for_its_check_the_stop_and_the_delete():
    cluster = FakeCluster(peers={"node2", "node3"})
    assert _provision(vrep_topology(), cluster)[0].ok
    cluster.calls.clear()
    report = asyncio.run(run_teardown(vrep_topology(), "vrep", executors(cluster), Progress()))
    assert report.ok, report.summary()
    assert "vrep" not in cluster.volumes and not cluster.mounts and not cluster.markers
    assert _gluster_reads(cluster) == {"volume info": 1}
    statuses = {o.step.key: o.status for o in report.outcomes}
    assert statuses["volume-stop"] == statuses["volume-delete"] == DONE


def test_a_stopped_volume_is_not_stopped_again_by_a_teardown_run_twice():
    cluster = FakeCluster(peers={"node2", "node3"})
    assert _provision(vrep_topology(), cluster)[0].ok
    cluster.volumes["vrep"]["status"] = "Stopped"
    cluster.mounts.clear()
    report = asyncio.run(run_teardown(vrep_topology(), "vrep", executors(cluster), Progress()))
    assert report.ok, report.summary()
    statuses = {o.step.key: o.status for o in report.outcomes}
    assert statuses["volume-stop"] == SKIPPED and statuses["volume-delete"] == DONE
    assert not any("stop" in argv for _, argv in _mutations(cluster))
