"""One benchmark at a time per host: refused with the reason, or queued until free; the lock
holds across processes and dies with its process."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from brickyard.bench.hostlock import HostBusy, HostLocks


def test_a_second_run_on_a_busy_host_is_refused_naming_host_and_holder(tmp_path):
    locks = HostLocks(tmp_path)
    lease = locks.try_acquire(["client1", "node1"], "campaign demo cell dt8 × dd")
    with pytest.raises(HostBusy) as err:
        locks.try_acquire(["CLIENT1"], "Run view: dd on client1:/mnt/gv0")
    assert err.value.host == "client1"
    assert "campaign demo cell dt8 × dd" in str(err.value) and "this process" in str(err.value)
    assert locks.holder("node1").startswith("campaign demo")
    lease.release()
    assert locks.holder("client1") == ""
    locks.try_acquire(["client1"], "Run view").release()


def test_all_or_nothing_a_refusal_leaves_no_host_locked(tmp_path):
    locks = HostLocks(tmp_path)
    held = locks.try_acquire(["node3"], "other")
    with pytest.raises(HostBusy):
        locks.try_acquire(["client1", "node1", "node3"], "campaign")
    assert locks.holder("client1") == "" and locks.holder("node1") == ""
    held.release()


def test_queued_run_starts_when_the_host_frees_and_hears_why_it_waits(tmp_path):
    locks = HostLocks(tmp_path)
    first = locks.try_acquire(["client1"], "first run")
    heard = []

    async def main():
        loop = asyncio.get_running_loop()
        loop.call_later(0.3, first.release)
        t0 = time.monotonic()
        lease = await locks.acquire(["client1"], "second run", on_wait=heard.append, poll=0.05)
        return lease, time.monotonic() - t0

    lease, waited = asyncio.run(main())
    assert lease.held and waited >= 0.25
    assert len(heard) == 1 and "first run" in str(heard[0])
    lease.release()


def test_a_cancelled_wait_gives_up_with_the_reason(tmp_path):
    locks = HostLocks(tmp_path)
    held = locks.try_acquire(["client1"], "long campaign")
    with pytest.raises(HostBusy, match="long campaign"):
        asyncio.run(locks.acquire(["client1"], "run", is_cancelled=lambda: True, poll=0.01))
    with pytest.raises(HostBusy):
        asyncio.run(locks.acquire(["client1"], "run", timeout=0.1, poll=0.02))
    held.release()


def test_the_lock_holds_across_processes_and_dies_with_a_killed_holder(tmp_path):
    code = ("import sys, time; from brickyard.bench.hostlock import HostLocks; "
            f"l = HostLocks({str(tmp_path)!r}).try_acquire(['client1'], 'headless campaign'); "
            "print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        locks = HostLocks(tmp_path)
        with pytest.raises(HostBusy, match=rf"headless campaign \(pid {proc.pid}\)"):
            locks.try_acquire(["client1"], "Run view")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        locks.try_acquire(["client1"], "Run view").release()   # the kernel dropped it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_brickyard_bench_no_wait_refuses_a_busy_host_before_anything_runs(tmp_path, monkeypatch, capsys):
    import json

    from brickyard.cli import main

    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))
    target = tmp_path / "t"
    target.mkdir()
    held = HostLocks(tmp_path / "locks").try_acquire(["local"], "campaign demo")
    code = main(["bench", "--target", f"local:{target}", "--workload", "dd", "--no-wait", "--json",
                 "--param", "block_sizes=4K", "--param", "size=4K", "--param", "repeats=1"])
    held.release()
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["busy_host"] == "local" and "campaign demo" in doc["error"]
    assert list(target.iterdir()) == []     # nothing ran


def test_two_clusters_node1_are_two_machines_and_do_not_block_each_other(tmp_path):
    locks = HostLocks(tmp_path)
    lab_a = {"node1": "ssh-host-key SHA256:AAAAcluster-a-node1"}
    lab_b = {"node1": "ssh-host-key SHA256:BBBBcluster-b-node1"}
    first = locks.try_acquire(["node1"], "campaign on cluster A", lab_a)
    second = locks.try_acquire(["node1"], "Run view on cluster B", lab_b)     # another machine: not busy
    assert first.held and second.held
    assert locks.holder("node1", lab_a).startswith("campaign on cluster A")
    assert locks.holder("node1", lab_b).startswith("Run view on cluster B")
    # the same machine of cluster A is still refused, named as the runner calls it
    with pytest.raises(HostBusy) as err:
        locks.try_acquire(["node1"], "second run on cluster A", lab_a)
    assert err.value.host == "node1" and "campaign on cluster A" in str(err.value)
    first.release(), second.release()


def test_one_machine_under_two_names_is_one_lock(tmp_path):
    locks = HostLocks(tmp_path)
    key = "ssh-host-key SHA256:same-machine"
    held = locks.try_acquire(["client1"], "campaign", {"client1": key})
    with pytest.raises(HostBusy) as err:
        locks.try_acquire(["10.0.0.101"], "Run view", {"10.0.0.101": key})
    assert err.value.host == "10.0.0.101" and "campaign" in str(err.value)
    held.release()
    # a host whose machine is unknown is locked by its name, as before
    held = locks.try_acquire(["client1"], "by name")
    with pytest.raises(HostBusy):
        locks.try_acquire(["Client1"], "by name again", {})
    held.release()


def test_machine_keys_asks_each_executor_and_leaves_hosts_that_cannot_say_to_their_names():
    from brickyard.bench.hostlock import machine_keys
    from brickyard.remote.executor import ExecutorError

    class Fake:
        def __init__(self, host):
            self.host = host

        async def machine_key(self):
            if self.host == "down":
                raise ExecutorError(self.host, "unreachable")
            return "" if self.host == "mute" else f"ssh-host-key SHA256:{self.host}"

    keys = asyncio.run(machine_keys(["node1", "down", "mute", "node1", " "], Fake))
    assert keys == {"node1": "ssh-host-key SHA256:node1"}
