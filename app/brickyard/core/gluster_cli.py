"""The one place that builds gluster command lines, as argument lists.

Provisioning runs these over SSH (shlex-quoted by the executor), the planner shows them with
``render``. Layout words always carry explicit counts (``disperse 6 redundancy 2``,
``replica 3 arbiter 1``) so gluster never has to choose or ask.
``mode_script=True`` adds ``--mode=script`` (no questions on a terminal-less run: gluster
then answers yes to each, which is why the planner shows them as warnings beforehand).
"""

from __future__ import annotations

import shlex
from operator import attrgetter
from typing import Sequence

from .layout import Resolved, resolve
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


def provision_commands(topo: Topology, volume: Volume, resolved: Resolved | None = None,
                       mode_script: bool = False) -> list[list[str]]:
    """Everything to run on the volume's first node: probe every other node holding one of
    its bricks (in brick order), create, set each option, start."""
    hosts = list(dict.fromkeys(map(_NODE, volume.bricks)))
    commands = [peer_probe_argv(h, mode_script) for h in hosts[1:]]
    commands.append(volume_create_argv(topo, volume, mode_script=mode_script, resolved=resolved))
    commands.extend(volume_set_argv(volume.name, k, v, mode_script) for k, v in volume.options.items())
    commands.append(volume_start_argv(volume.name, mode_script))
    return commands


def render(argv: Sequence[str]) -> str:
    """A command line for display and copy-paste."""
    return shlex.join(list(argv))


def _check_name(name: str) -> None:
    if not name or name.startswith("-"):
        raise ValueError(f"not a volume name for a gluster command: {name!r}")
