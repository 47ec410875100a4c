"""Plan changes to a live 200-server × 24-brick volume and print how long each takes.

The live state is gluster 10.3's XML as the sandbox prints it (``volume info``, ``volume
status detail``, ``peer status``, ``pool list``, ``volume status tasks``), generated for
4,800 bricks of a ``replica 3`` distributed-replicate volume (1,600 sets) and of a
``disperse 8 redundancy 2`` one (600 sets). Timed (best of 5, wall clock): reading the live
state from that XML (``core.livestate.from_outputs``), and ``core.change.plan_change`` for an
expand by 10 servers (240 bricks, peer probes, placement over distinct servers, rebalance
prediction), a shrink by 10 servers, and one brick replaced. Target: each plan < 100 ms
(median of the runs). On a shared, busy machine the wall clock also counts other processes'
turns: each figure is min / median / max over RUNS runs with the CPU time beside it (as every
script here prints, benchmarks/figures.py), and ``plan_volume`` of the same live volume, timed
in the same run, is printed as a reference (a change plan analyses the volume before and after,
so about twice that). Run: .venv/bin/python benchmarks/change_plan.py
"""

from __future__ import annotations

import statistics
import uuid

from brickyard.core import livestate as ls
from brickyard.core.change import plan_change, planning_topology
from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType

from figures import line, load_line, timed   # the same timing and figures as every script here

RUNS = 5
TARGET = 0.100

SERVERS, BRICKS, EXTRA = 200, 24, 10
SIZE = 16 * 10**12


def topology() -> Topology:
    topo = Topology(name="scale", sites=[Site(f"dc{i}") for i in range(3)])
    for n in range(SERVERS + EXTRA):
        node = Node(f"gfs{n:03}", site=f"dc{n % 3}", nic_gbps=25.0)
        node.bricks = [Brick(f"/bricks/d{b:02}/brick", SIZE, filesystem=f"/dev/sd{b}", mount=f"/bricks/d{b:02}",
                             speed_bps=2.5e8) for b in range(BRICKS)]
        topo.nodes.append(node)
    return topo


def live_bricks(set_size: int) -> list[BrickRef]:
    """Set by set, each set on distinct servers (and sites): server-major order per row."""
    per_row = [BrickRef(f"gfs{n:03}", f"/bricks/d{b:02}/brick") for b in range(BRICKS) for n in range(SERVERS)]
    sets = len(per_row) // set_size
    rows = [per_row[r * sets:(r + 1) * sets] for r in range(set_size)]
    return [b for column in zip(*rows) for b in column]


def outputs(name: str, lay: Layout, bricks: list[BrickRef]) -> dict[str, str]:
    uuids = {f"gfs{n:03}": str(uuid.UUID(int=n + 1)) for n in range(SERVERS)}
    kind = 7 if lay.type.is_replicated else 9
    counts = (f"<replicaCount>{lay.replica or 1}</replicaCount><arbiterCount>0</arbiterCount>"
              f"<disperseCount>{lay.disperse or 0}</disperseCount><redundancyCount>{lay.redundancy or 0}</redundancyCount>")
    info = ("<?xml version='1.0'?><cliOutput><opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volInfo><volumes>"
            f"<volume><name>{name}</name><id>{uuid.UUID(int=9)}</id><status>1</status><statusStr>Started</statusStr>"
            f"<type>{kind}</type><typeStr>x</typeStr><brickCount>{len(bricks)}</brickCount>{counts}<bricks>"
            + "".join(f"<brick uuid='{uuids[b.node]}'>{b}<name>{b}</name><hostUuid>{uuids[b.node]}</hostUuid>"
                      "<isArbiter>0</isArbiter></brick>" for b in bricks)
            + "</bricks><options/></volume><count>1</count></volumes></volInfo></cliOutput>")
    detail = ("<?xml version='1.0'?><cliOutput><opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes>"
              f"<volume><volName>{name}</volName><nodeCount>{len(bricks)}</nodeCount>"
              + "".join(f"<node><hostname>{b.node}</hostname><path>{b.path}</path><peerid>{uuids[b.node]}</peerid>"
                        f"<status>1</status><port>49152</port><pid>1</pid><sizeTotal>{SIZE}</sizeTotal>"
                        f"<sizeFree>{SIZE // 2}</sizeFree><device>/dev/sd{b.path[10:12]}</device><blockSize>4096"
                        "</blockSize><mntOptions>rw</mntOptions><fsName>xfs</fsName><inodeSize>xfs</inodeSize>"
                        "<inodesTotal>100000000</inodesTotal><inodesFree>60000000</inodesFree></node>" for b in bricks)
              + "</volume></volumes></volStatus></cliOutput>")
    peers = ("<?xml version='1.0'?><cliOutput><opRet>0</opRet><opErrno>0</opErrno><opErrstr/><peerStatus>"
             + "".join(f"<peer><uuid>{u}</uuid><hostname>{h}</hostname><hostnames><hostname>{h}</hostname></hostnames>"
                       "<connected>1</connected><state>3</state><stateStr>Peer in Cluster</stateStr></peer>"
                       for h, u in uuids.items() if h != "gfs000")
             + "</peerStatus></cliOutput>")
    pool = ("<?xml version='1.0'?><cliOutput><opRet>0</opRet><opErrno>0</opErrno><opErrstr/><peerStatus>"
            f"<peer><uuid>{uuids['gfs000']}</uuid><hostname>localhost</hostname><connected>1</connected></peer>"
            "</peerStatus></cliOutput>")
    tasks = ("<?xml version='1.0'?><cliOutput><opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus><volumes>"
             f"<volume><volName>{name}</volName><tasks/></volume></volumes></volStatus></cliOutput>")
    return {ls.INFO: info, ls.DETAIL: detail, ls.PEERS: peers, ls.POOL: pool, ls.TASKS: tasks}


def main() -> None:
    topo = topology()
    new = [BrickRef(f"gfs{n:03}", f"/bricks/d{b:02}/brick") for n in range(SERVERS, SERVERS + EXTRA)
           for b in range(BRICKS)]
    print(f"{SERVERS} servers x {BRICKS} bricks = {SERVERS * BRICKS} bricks; {RUNS} runs each; {load_line()}")
    for label, lay in (("replica 3", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3)),
                       ("disperse 8 redundancy 2", Layout(VolumeType.DISTRIBUTED_DISPERSE, disperse=8, redundancy=2))):
        size = lay.replica or lay.disperse
        bricks = live_bricks(size)
        out = outputs("big", lay, bricks)
        print(f"\n{label}: {len(bricks) // size} sets")
        walls, cpus, live = timed(lambda: ls.from_outputs(out, "big"), RUNS)
        print("  " + line("read live state from XML", walls, cpu=cpus))
        ptopo, current = planning_topology(topo, live), live.info.to_volume()
        walls, ref_cpus, _ = timed(lambda: plan_volume(ptopo, current), RUNS)
        print("  " + line("reference: plan_volume of the live volume", walls, cpu=ref_cpus))
        retire = {f"gfs{n:03}" for n in range(SERVERS - EXTRA, SERVERS)}
        kept_sets = [bricks[i:i + size] for i in range(0, len(bricks), size)]
        keep = [b for s in kept_sets if not any(x.node in retire for x in s) for b in s]
        replaced = list(bricks)
        replaced[0] = BrickRef(f"gfs{SERVERS:03}", "/bricks/d00/brick")
        cases = (("expand by 10 servers (240 bricks)", bricks + new), ("shrink by the sets on 10 servers", keep),
                 ("replace one brick", replaced))
        for what, drawn in cases:
            topo.volumes = [Volume("big", lay, drawn)]
            walls, cpus, plan = timed(lambda: plan_change(topo, "big", live), RUNS)
            state = "refused: " + plan.refusals[0].message[:60] if plan.refusals else f"{len(plan.steps)} steps"
            ratio = statistics.median(cpus) / statistics.median(ref_cpus)
            print("  " + line(f"plan {what}", walls, TARGET, cpu=cpus)
                  + f"  CPU {ratio:.1f}x plan_volume's ({state})")


if __name__ == "__main__":
    main()
