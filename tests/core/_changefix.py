"""Live states recorded on the sandbox (tests/fixtures/gluster/lab-change-*) and a topology to
plan changes against them: four nodes, two 960 MiB brick filesystems each (/srv/brick1,
/srv/brick2), as `brickyard lab up 4` makes them."""

from __future__ import annotations

import re
from pathlib import Path

from brickyard.core import livestate as ls
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Site, Topology, Volume, VolumeType

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gluster"
FS = 1006632960   # each lab brick filesystem


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def live(volume: str, *, without_peer: str | None = None, **extra: str) -> ls.LiveState:
    """The recorded state of ``volume`` (xd, xr, xe, xa, xdr); ``extra`` replaces or adds
    outputs by key (``ls.HEAL`` …) with fixture file names; ``without_peer`` drops that peer
    from the peer status, as if it had never been probed."""
    out = {ls.INFO: fixture(f"lab-change-{volume}-info.xml"), ls.DETAIL: fixture(f"lab-change-{volume}-detail.xml"),
           ls.PEERS: fixture("lab-change-peer-status.xml"), ls.POOL: fixture("lab-change-pool-list.xml"),
           ls.TASKS: fixture(f"lab-change-{volume}-tasks.xml")}
    for key, name in extra.items():
        out[key.replace("_", "-")] = fixture(name)
    if without_peer:
        out[ls.PEERS] = re.sub(rf"<peer>(?:(?!</peer>).)*<hostname>{without_peer}</hostname>.*?</peer>", "",
                               out[ls.PEERS], flags=re.S)
    return ls.from_outputs(out, volume, "2026-11-27T11:00:00Z")


def lab_topology(sites: bool = False) -> Topology:
    topo = Topology("lab")
    if sites:
        topo.sites = [Site("east"), Site("west")]
    for i in range(1, 6):
        site = ("east" if i % 2 else "west") if sites else ""
        topo.nodes.append(Node(f"node{i}", site=site, bricks=[
            Brick(f"/srv/brick{j}/{v}", FS, filesystem=f"/srv/brick{j}", mount=f"/srv/brick{j}")
            for j in (1, 2) for v in ("xd", "xd2", "xr", "xe", "xa", "xdr", "xdr2", "new")]))
    return topo


def with_volume(topo: Topology, name: str, layout: Layout, bricks: list[str]) -> Topology:
    refs = [BrickRef.parse(b) for b in bricks]
    topo.volumes.append(Volume(name, layout, refs))
    return topo


DIST = Layout(VolumeType.DISTRIBUTE)
REP2 = Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2)
REP3 = Layout(VolumeType.REPLICATE, replica=3)
ARB = Layout(VolumeType.REPLICATE, replica=3, arbiter=1)
DISP = Layout(VolumeType.DISPERSE, disperse=3, redundancy=1)
