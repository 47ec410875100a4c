"""The one place that builds gluster command lines, as argument lists.

``volume_commands`` is the one list of a volume's gluster commands and the node each runs on:
provisioning runs it over SSH (shlex-quoted by the executor), the Commands panel, ``brickyard
plan`` and ``provision --dry-run`` print it (``command_lines``). Every command runs on the
pool's origin, the topology's first node: it probes every other node holding a brick of the
volume (the first brick's node included) into one trusted pool, then creates, configures and
starts the volume. Layout words always carry explicit counts (``disperse 6 redundancy 2``,
``replica 3 arbiter 1``) so gluster never has to choose or ask.
``mode_script=True`` adds ``--mode=script`` (no questions on a terminal-less run: gluster
then answers yes to each, which is why the planner shows them as warnings beforehand).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from operator import attrgetter
from typing import Sequence

from .layout import Resolved, resolve
from .mounts import fstab_line, mount_argv, mount_problem
from .topology import Topology, Volume

GLUSTER = "gluster"
_NODE = attrgetter("node")


def _gluster(mode_script: bool) -> list[str]:
    return [GLUSTER, "--mode=script"] if mode_script else [GLUSTER]


def peer_probe_argv(host: str, mode_script: bool = False) -> list[str]:
    if not host or host.startswith("-"):
        raise ValueError(f"not a host name for gluster peer probe: {host!r}")
    return [*_gluster(mode_script), "peer", "probe", host]


def volume_create_argv(topo: Topology, volume: Volume, force: bool | None = None,
                       mode_script: bool = False, resolved: Resolved | None = None) -> list[str]:
    """``gluster volume create NAME [replica N [arbiter 1]] [disperse N redundancy R]
    transport tcp host:/path … [force]``; ``force=None`` takes ``volume.force``."""
    _check_name(volume.name)
    if resolved is None:
        resolved, _ = resolve(volume.layout, len(volume.bricks))
    argv = [*_gluster(mode_script), "volume", "create", volume.name, *resolved.create_words(),
            "transport", volume.transport]
    argv.extend([f"{b.node}:{b.path}" for b in volume.bricks])  # str(BrickRef), inlined
    if resolved.thin_arbiter and volume.thin_arbiter_brick is not None:
        argv.append(str(volume.thin_arbiter_brick))  # the thin-arbiter brick comes last
    if volume.force if force is None else force:
        argv.append("force")
    return argv


def volume_set_argv(name: str, key: str, value: str, mode_script: bool = False) -> list[str]:
    _check_name(name)
    if not key or key.startswith("-"):
        raise ValueError(f"not a volume option: {key!r}")
    return [*_gluster(mode_script), "volume", "set", name, key, str(value)]


def volume_start_argv(name: str, mode_script: bool = False) -> list[str]:
    _check_name(name)
    return [*_gluster(mode_script), "volume", "start", name]


@dataclass(frozen=True)
class HostCommand:
    """One gluster command and the node it runs on. ``key`` names the step:
    ``peer-probe:HOST``, ``volume-create``, ``volume-set:OPTION`` or ``volume-start``."""

    key: str
    host: str
    argv: tuple[str, ...]


def pool_origin(topo: Topology, volume: Volume) -> str:
    """The node a volume's gluster commands run on: the topology's first node, so every
    volume of one topology lands in one trusted pool (the volume's first brick's node when
    the topology lists no nodes)."""
    return topo.pool_origin(volume)


def probe_hosts(topo: Topology, volume: Volume) -> list[str]:
    """Every node holding a brick of ``volume`` (in brick order, the first brick's node
    included) other than the origin: the nodes ``peer probe`` must add to the pool."""
    origin = pool_origin(topo, volume)
    return [h for h in dict.fromkeys(map(_NODE, volume.bricks)) if h != origin]


def volume_commands(topo: Topology, volume: Volume, resolved: Resolved | None = None,
                    mode_script: bool = False) -> tuple[HostCommand, ...]:
    """Every gluster command of a volume, in order, each with the node it runs on: probe the
    volume's nodes from the origin, create, set each option, start."""
    origin = pool_origin(topo, volume)
    out = [HostCommand(f"peer-probe:{h}", origin, tuple(peer_probe_argv(h, mode_script)))
           for h in probe_hosts(topo, volume)]
    out.append(HostCommand("volume-create", origin, tuple(
        volume_create_argv(topo, volume, mode_script=mode_script, resolved=resolved))))
    out.extend(HostCommand(f"volume-set:{k}", origin, tuple(volume_set_argv(volume.name, k, v, mode_script)))
               for k, v in volume.options.items())
    out.append(HostCommand("volume-start", origin, tuple(volume_start_argv(volume.name, mode_script))))
    return tuple(out)


def mount_commands(topo: Topology, volume: Volume) -> tuple[HostCommand, ...]:
    """How each client the topology says mounts ``volume`` mounts it once it is started, as
    provisioning does: create the mount point, mount, and (``fstab``) add the boot-time line.
    A mount provisioning would refuse (``mounts.mount_problem``) is left out."""
    if not volume.bricks:
        return ()
    out: list[HostCommand] = []
    for m in volume.mounts:
        if mount_problem(topo, m):
            continue
        key = f"mount:{m.client}:{m.path}"
        out.append(HostCommand(f"mkdir:{m.client}:{m.path}", m.client, ("mkdir", "-p", m.path)))
        out.append(HostCommand(key, m.client, tuple(mount_argv(volume, m.path, m.options))))
        if m.fstab:
            line = fstab_line(volume, m.path, m.options)
            out.append(HostCommand(f"fstab:{m.client}:{m.path}", m.client,
                                   ("sh", "-c", 'echo "$1" >> /etc/fstab', "sh", line)))
    return tuple(out)


def provision_commands(topo: Topology, volume: Volume, resolved: Resolved | None = None,
                       mode_script: bool = False) -> list[list[str]]:
    """The argument lists of ``volume_commands``."""
    return [list(c.argv) for c in volume_commands(topo, volume, resolved, mode_script)]


def command_lines(commands: Sequence[HostCommand]) -> list[str]:
    """The commands as a block to read and paste: a comment naming the node they run on,
    then one rendered command per line (a new comment wherever the node changes)."""
    lines: list[str] = []
    host = None
    for c in commands:
        if c.host != host:
            host = c.host
            lines.append(f"# run on {host}" + (" (it probes the other nodes into its trusted pool)"
                                                 if c.key.startswith("peer-probe:") else
                                                 " (a client: mount the started volume)"
                                                 if c.key.startswith(("mkdir:", "mount:", "fstab:")) else ""))
        lines.append(render(c.argv))
    return lines


def render(argv: Sequence[str]) -> str:
    """A command line for display and copy-paste."""
    return shlex.join(list(argv))


def _check_name(name: str) -> None:
    if not name or name.startswith("-"):
        raise ValueError(f"not a volume name for a gluster command: {name!r}")
