"""Stored runs and a stored campaign for report tests, made without a cluster: the campaign
runner with its remote work replaced by runs of ``store.synthetic`` (dd sweeps whose figures
behave like real ones) carrying the provenance of the layout each cell measured."""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
from dataclasses import replace
from pathlib import Path

from brickyard.bench.hostlock import HostLocks
from brickyard.campaign.runner import CampaignRunner
from brickyard.campaign.spec import from_data
from brickyard.core.results import RunResult
from brickyard.core.topology import Brick, Client, Node, Topology
from brickyard.store.synthetic import synthetic_run

from ..tmpfs import fill, tmpfs

MIB = 2**20
SEED004 = [{"name": "dt8", "type": "distribute"},
           {"name": "dp8rd2", "type": "disperse", "disperse": 8, "redundancy": 2, "force": True},
           {"name": "dt2dp4rd1", "type": "distributed-disperse", "disperse": 4, "redundancy": 1},
           {"name": "dt4rp2", "type": "distributed-replicate", "replica": 2}]
SPEED = {"dt8": 2.2, "dp8rd2": 1.3, "dt2dp4rd1": 1.6, "dt4rp2": 1.1}


def lab_topology() -> Topology:
    topo = Topology(name="lab")
    for i in range(1, 5):
        topo.nodes.append(Node(f"node{i}", nic_gbps=10, bricks=[
            Brick(f"/srv/brick{j}/brick", 2**30, filesystem=f"/dev/loop{j}", mount=f"/srv/brick{j}") for j in (1, 2)]))
    topo.clients.append(Client("client1"))
    return topo


def layout_dict(volume) -> dict:
    lay = volume.layout
    return {"name": volume.name, "type": lay.type.value, "replica": lay.replica, "arbiter": lay.arbiter,
            "disperse": lay.disperse, "redundancy": lay.redundancy, "bricks": [str(b) for b in volume.bricks]}


def volume_run(rng: random.Random, volume, *, started_at: float, speedup: float = 1.0,
               block_sizes=(1 * MIB, 4 * MIB, 16 * MIB), concurrencies=(1, 8), repeats: int = 3,
               gluster: str = "glusterfs 10.3", options: dict | None = None) -> RunResult:
    """A dd sweep 'measured' on ``volume`` (a topology Volume), its provenance that of a run
    on the lab's client."""
    run = synthetic_run(rng, layout="replica", block_sizes=block_sizes, concurrencies=concurrencies,
                        repeats=repeats, speedup=speedup, started_at=started_at)
    hosts = {f"node{i}": {"gluster": gluster, "kernel": "6.1.0-26-amd64", "os": "Debian GNU/Linux 12"}
             for i in range(1, 5)}
    hosts["client1"] = {"gluster": gluster, "kernel": "6.1.0-26-amd64", "os": "Debian GNU/Linux 12"}
    prov = replace(run.provenance, volume_name=volume.name, layout=layout_dict(volume), hosts=hosts,
                   target=f"client1:/mnt/brickyard-{volume.name}",
                   volume_options=dict(options if options is not None else volume.options))
    return replace(run, provenance=prov)


def baseline_run(rng: random.Random, *, started_at: float) -> RunResult:
    run = synthetic_run(rng, layout="distribute", block_sizes=(1 * MIB, 4 * MIB, 16 * MIB), concurrencies=(1, 8),
                        started_at=started_at, speedup=3.0)
    prov = replace(run.provenance, volume_name="", layout={}, volume_options={}, target="client1:/var/tmp",
                   target_kind="local", hosts={"client1": {"kernel": "6.1.0-26-amd64", "os": "Debian GNU/Linux 12"}})
    return replace(run, provenance=prov)


def seed004_spec(layouts=SEED004):
    doc = {"format_version": 1, "name": "seed004-sandbox",
           "options": {"performance.write-behind": "off", "performance.read-ahead": "off"},
           "layouts": list(layouts),
           "workloads": [{"workload": "dd", "params": {"block_sizes": "1M,4M,16M", "concurrency": "1,8",
                                                       "size": "16M", "direction": "write"}}],
           "repeats": 3, "baselines": [{"target": "client1:/var/tmp", "label": "client1's local disk"}],
           "on_failure": "skip"}
    return from_data(doc, source="/tmp/seed004-sandbox.campaign.json", topology=lab_topology())


class FakeCampaign(CampaignRunner):
    """The runner's remote work faked; each cell stores a synthetic run of its layout."""

    rng = random.Random(4)
    clock = 1_760_000_000.0

    async def _preflight(self, step):
        return True, ""

    async def _provision(self, step):
        if step.layout not in self.state.provisioned:
            self._claim(step.layout)
        return True, ""

    async def _cell(self, step):
        FakeCampaign.clock += 600
        if step.layout in SPEED:
            run = volume_run(self.rng, self.spec.layout(step.layout), started_at=self.clock,
                             speedup=SPEED[step.layout])
        else:
            run = baseline_run(self.rng, started_at=self.clock)
        self.store.add_run(run)
        self.store.campaigns.tag_run(run.run_id, self.state.campaign_id, step.key)
        st = self.state.step(step.key)
        st.run_ids.append(run.run_id)
        st.run_id = run.run_id
        self._save()
        return True, f"run {run.run_id[:12]}"

    async def _remove(self, layout, progress):
        self._release(layout)
        return True, "torn down"


def stored_campaign(store, tmp_path, layouts=SEED004) -> str:
    """A completed seed004-like campaign in ``store``; returns its id."""
    runner = FakeCampaign.start(seed004_spec(layouts), store, lambda h: None, locks=HostLocks(tmp_path / "locks"))
    state = asyncio.run(runner.run())
    assert state.status == "complete", state.message
    return state.campaign_id


@contextlib.contextmanager
def small_tmpfs(where: Path, full: bool = True):
    """A 64 KiB tmpfs at ``where`` (root only): ``full`` fills it but for a few bytes and
    leaves one file in it; otherwise it is mounted read-only. Unmounted on the way out."""
    with tmpfs(where, "size=64k,mode=0777"):
        (where / "last-week.pdf").write_bytes(b"%PDF-1.4 the report from last week")
        if full:
            fill(where / "filler")
        else:
            subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        yield where
