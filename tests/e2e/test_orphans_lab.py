"""On the sandbox (issue 25 point 6): kill -9 of every agent.py process on a client mid-fio (the
agent and its watchdog) leaves fio's job processes writing; the next run's agent on that client
kills them, says so, and the killed run is marked in History."""

from __future__ import annotations

import asyncio
import time

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core.results import RunStatus
from brickyard.remote.loop import Progress
from brickyard.remote.ssh import SshOptions, SshPool
from brickyard.store import HistoryStore
from brickyard.store.sink import HistorySink

TARGET = "/var/tmp/byorphans"


def fio_pids(lab, client: str) -> list[str]:
    ps = lab.exec(client, ["ps", "-ww", "-eo", "pid,comm,args"]).stdout.decode()
    return [line.split()[0] for line in ps.splitlines() if line.split()[1:2] == ["fio"] and TARGET in line
            or (line.split()[1:2] == ["fio"] and "--name=by" in line)]


def test_the_next_run_kills_what_a_killed_agent_left_running_and_marks_its_run(lab, tmp_path):
    client = lab.clients[0]
    lab.ssh(client, ["mkdir", "-p", TARGET])
    store = HistoryStore(f"sqlite:///{tmp_path / 'history.sqlite3'}")
    killed: list[str] = []

    def kill_every_agent_py(fraction, text):
        """Once both fio jobs write: SIGKILL the agent and its watchdog (every agent.py there)."""
        if "live" not in text or killed:
            return
        ps = lab.exec(client, ["ps", "-ww", "-eo", "pid,comm,args"]).stdout.decode()
        if sum(line.split()[1] == "fio" for line in ps.splitlines()) < 4:
            return
        # the agent (python…) and its watchdog (comm by-agent-watch): every agent.py process
        pids = [line.split()[0] for line in ps.splitlines() if "brickyard-agent." in line and "agent.py" in line
                and (line.split()[1].startswith("python") or line.split()[1] == "by-agent-watch")]
        assert len(pids) == 2, ps
        # the watchdog first: killed second, it could read the dead agent's end-of-file between the
        # two signals and clean up itself (CI under load once found nothing left to reproduce)
        watch = {line.split()[0] for line in ps.splitlines() if line.split()[1:2] == ["by-agent-watch"]}
        pids.sort(key=lambda pid: pid not in watch)
        lab.exec(client, ["kill", "-9", *pids])
        killed.extend(pids)

    def bench(workload, params, progress=None):
        async def main():
            pool = SshPool(SshOptions(config_files=[str(lab.ssh_config)]))
            try:
                return await run_benchmark(registry.find(workload), {"repeats": "1", **params},
                                           [(TargetSpec(client, TARGET), pool.executor(client))],
                                           progress=progress, sink=HistorySink(store))
            finally:
                await pool.close()
        return asyncio.run(main())

    try:
        first = bench("fio", {"presets": "seq-write", "size": "1M", "numjobs": "2", "runtime": "60",
                              "options": "thinktime=100000"}, Progress(on_progress=kill_every_agent_py))
        assert killed and first.status in (RunStatus.PARTIAL, RunStatus.FAILED), (first.status, first.error)
        time.sleep(1)
        left = fio_pids(lab, client)
        assert left, "nothing outlived the agent: the case is not reproduced"
        second = bench("dd", {"block_sizes": "64K", "size": "1M", "concurrency": "1", "direction": "write"})
        assert second.status is RunStatus.COMPLETE, second.error
        assert fio_pids(lab, client) == []
        [found] = second.provenance.extra["orphans_killed"][client]
        assert found["runs"] == [first.run_id[:12]] and found["killed"] >= 2
        assert "was killed with its watchdog" in store.load_run(first.run_id).error
        assert f"the agent of run {second.run_id[:12]} killed them" in store.load_run(first.run_id).error
    finally:
        for pid in fio_pids(lab, client):
            lab.exec(client, ["kill", "-9", pid], check=False)
        lab.ssh(client, ["rm", "-rf", "--", TARGET], check=False)
        store.close()
