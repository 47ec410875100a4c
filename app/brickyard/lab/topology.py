"""The lab as a Brickyard topology file, so tests and users can plan and provision against it."""

from __future__ import annotations

from ..core import topofile
from ..core.topology import Brick, Client, Node, Topology
from .state import LabState


def lab_topology(state: LabState, ssh_user: str = "root") -> Topology:
    """Nodes with their bricks (size of each brick's XFS filesystem as df shows it; the loop
    device as the filesystem, its mount point as the mount) and the clients. No volumes.
    ``ssh_user`` is whom every machine is reached as: root, or the lab's admin account
    (then Brickyard runs what needs root through ``sudo -n``)."""
    topo = Topology(name="brickyard-lab",
                    description=f"Brickyard gluster sandbox in {state.directory} ({state.subnet})")
    for m in state.servers:
        topo.nodes.append(Node(
            name=m.name, address=m.address, ssh_user=ssh_user, ssh_port=m.ssh_port,
            bricks=[Brick(path=b.path, size_bytes=b.size_bytes, filesystem=b.loop_device,
                          mount=b.mount, fs_type="xfs", disk_kind="loop")
                    for b in m.bricks],
        ))
    for m in state.clients:
        topo.clients.append(Client(name=m.name, address=m.address, ssh_user=ssh_user, ssh_port=m.ssh_port))
    return topo


def write_topology(state: LabState) -> None:
    topofile.save(lab_topology(state), state.topology_file)
    if state.admin_user and state.admin_topology_file:
        topofile.save(lab_topology(state, state.admin_user), state.admin_topology_file)
