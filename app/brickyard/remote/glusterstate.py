"""Asking a live cluster whether a provisioning or teardown step is already done.

Each ``*_check`` returns an async function for ``Step.done_check``: it runs one read-only
command (``gluster --xml ...``, ``findmnt``) and returns a sentence when the step's effect is
already in place, ``None`` when the step still has to run, and raises when the cluster is in
a state the plan must not paper over (a volume of that name with other bricks, another
filesystem mounted on the mount point).

gluster 10 with ``--xml`` exits 0 even when it refuses; ``<opRet>`` says what happened.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from ..core import gluster_xml
from ..core.topology import Volume
from .executor import Executor, ExecutorError
from .mountstate import is_mount_of, mounted_at, read_back_mount
from .steps import run_memo

PEER_IN_CLUSTER = "Peer in Cluster"


@dataclass
class LiveVolume:
    name: str
    status: str  # "Created", "Started", "Stopped"
    type: str
    bricks: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)


async def gluster_xml_output(ex: Executor, *args: str, timeout: float = 60.0) -> bytes:
    """Run ``gluster --mode=script --xml ARGS`` and return its XML (the CLI's own errors raise)."""
    result = await ex.run(["gluster", "--mode=script", "--xml", *args], sudo=True, timeout=timeout)
    if not result.stdout.lstrip().startswith(b"<"):
        tail = (result.stderr + result.stdout).decode(errors="replace").strip().splitlines()
        raise ExecutorError(ex.host, f"`gluster {' '.join(args)}` failed: {tail[-1] if tail else f'exit status {result.exit_status}'}")
    return result.stdout


async def live_volume(ex: Executor, name: str) -> LiveVolume | None:
    """The volume as glusterd on this node knows it, or None when it does not exist."""
    xml = await gluster_xml_output(ex, "volume", "info", name)
    try:
        infos = gluster_xml.parse_volume_info(xml)
    except gluster_xml.GlusterCommandError as exc:
        if "does not exist" in exc.op_errstr:
            return None
        raise ExecutorError(ex.host, f"gluster volume info {name}: {exc.op_errstr or exc}") from exc
    except gluster_xml.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"gluster volume info {name}: {exc}") from exc
    for v in infos:
        if v.name == name:
            return LiveVolume(v.name, v.status, v.type_str, [str(b.ref) for b in v.bricks], dict(v.options))
    return None


async def live_peers(ex: Executor) -> dict[str, tuple[bool, str]]:
    """Every host name a peer answers to -> (connected, state text)."""
    xml = await gluster_xml_output(ex, "peer", "status")
    try:
        peers = gluster_xml.parse_peer_status(xml)
    except gluster_xml.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"gluster peer status: {exc} (is glusterd running?)") from exc
    return {hostname: (p.connected, p.state) for p in peers for hostname in p.hostnames}


async def run_live_volume(ex: Executor, name: str) -> LiveVolume | None:
    """``live_volume``, read once per run of steps until a step changes something
    (``steps.run_memo``): a create, set and start that are all done already ask once."""
    memo = run_memo()
    key = (ex.host, "volume", name)
    if key not in memo:
        memo[key] = await live_volume(ex, name)
    return memo[key]


async def run_live_peers(ex: Executor) -> dict[str, tuple[bool, str]]:
    """``live_peers``, read once per run of steps until a step changes something: every
    probe check of a pool that is there already, and the wait after them, ask once."""
    memo = run_memo()
    key = (ex.host, "peers")
    if key not in memo:
        memo[key] = await live_peers(ex)
    return memo[key]


def peer_in_pool_check(host: str):
    async def check(ex: Executor) -> str | None:
        peers = await run_live_peers(ex)
        connected, state = peers.get(host, (False, ""))
        return "already in the trusted pool" if state == PEER_IN_CLUSTER else None

    return check


def wait_peers_connected(hosts: list[str], seconds: float = 60.0):
    async def action(ex: Executor) -> str:
        deadline = time.monotonic() + seconds
        peers = await run_live_peers(ex)    # what the probe checks read, unless a probe ran since
        while True:
            missing = [h for h in hosts if peers.get(h, (False, ""))[0] is not True or peers[h][1] != PEER_IN_CLUSTER]
            if not missing:
                return f"{len(hosts)} peer(s) connected"
            if time.monotonic() > deadline:
                states = ", ".join(f"{h}: {peers[h][1] or 'unknown'}{'' if peers[h][0] else ', disconnected'}"
                                   if h in peers else f"{h}: not a peer" for h in missing)
                raise ExecutorError(ex.host, f"peers not connected after {seconds:g} s ({states}); is glusterd running there?")
            await asyncio.sleep(0.5)
            peers = await live_peers(ex)

    return action


def wait_pool_connected(at_least: int, seconds: float = 60.0):
    """On one host: wait until it sees at least ``at_least`` peers and every peer it knows
    is connected and in the cluster. ``volume create`` is staged on every peer, and each
    refuses ("Host node4 not connected") until it sees the brick hosts itself: probing
    from the first node is not enough. Counted without names, because a probed node may
    know the prober by its address rather than the name the topology uses."""

    async def action(ex: Executor) -> str:
        deadline = time.monotonic() + seconds
        while True:
            xml = await gluster_xml_output(ex, "peer", "status")
            try:
                peers = gluster_xml.parse_peer_status(xml)
            except gluster_xml.GlusterXMLError as exc:
                raise ExecutorError(ex.host, f"gluster peer status: {exc} (is glusterd running?)") from exc
            down = [p.hostnames[0] if p.hostnames else "?" for p in peers
                    if not p.connected or p.state != PEER_IN_CLUSTER]
            if len(peers) >= at_least and not down:
                return f"sees {len(peers)} connected peer(s)"
            if time.monotonic() > deadline:
                raise ExecutorError(ex.host, f"after {seconds:g} s it sees {len(peers)} peer(s), needs {at_least}"
                                             f"{'; not connected: ' + ', '.join(down) if down else ''}; "
                                             "is glusterd running on every node, and can the nodes reach each other?")
            await asyncio.sleep(0.5)

    return action


def volume_exists_check(volume: Volume):
    wanted = [str(b) for b in volume.bricks]

    async def check(ex: Executor) -> str | None:
        live = await run_live_volume(ex, volume.name)
        if live is None:
            return None
        if live.bricks != wanted:
            raise ExecutorError(
                ex.host,
                f"a volume named {volume.name} exists already with other bricks ({', '.join(live.bricks)}); "
                "Brickyard leaves it alone — choose another name or tear that one down first",
            )
        return f"exists already with the same {len(wanted)} bricks ({live.status})"

    return check


def options_set_check(name: str, options: dict[str, str]):
    """Done when every one of ``options`` has its value on the live volume already."""
    async def check(ex: Executor) -> str | None:
        live = await run_live_volume(ex, name)
        if live is not None and all(live.options.get(k) == str(v) for k, v in options.items()):
            return f"{', '.join(options)} {'is' if len(options) == 1 else 'are'} set already"
        return None

    return check


def volume_started_check(name: str):
    async def check(ex: Executor) -> str | None:
        live = await run_live_volume(ex, name)
        return "started already" if live is not None and live.status == "Started" else None

    return check


def volume_stopped_check(name: str):
    async def check(ex: Executor) -> str | None:
        live = await run_live_volume(ex, name)
        if live is None:
            return "the volume does not exist"
        return f"not running ({live.status})" if live.status != "Started" else None

    return check


def volume_absent_check(name: str):
    async def check(ex: Executor) -> str | None:
        return "the volume does not exist" if await run_live_volume(ex, name) is None else None

    return check


def mounted_check(source: str, path: str):
    volume = source.partition(":/")[2]

    async def check(ex: Executor) -> str | None:
        found = await mounted_at(ex, path)
        if found is None:
            return None
        if is_mount_of(found, volume, path):
            return f"mounted already ({found.source})"
        raise ExecutorError(ex.host, f"{path} has {found.source} ({found.fstype}) mounted; "
                                     "Brickyard will not mount over it")

    return check


def unmounted_check(source: str, path: str):
    volume = source.partition(":/")[2]

    async def check(ex: Executor) -> str | None:
        found = await mounted_at(ex, path)
        if found is None:
            return "not mounted"
        if is_mount_of(found, volume, path):
            return None
        return f"{path} has {found.source} ({found.fstype}) mounted, not this volume: left alone"

    return check


def mount_action(argv: list[str], source: str, path: str, timeout: float = 120.0):
    """A mount step: run ``argv``, then read the mount back (``mountstate.read_back_mount``):
    done only when the host shows ``source`` mounted on ``path`` as fuse.glusterfs."""
    async def action(ex: Executor) -> str:
        await ex.run(argv, sudo=True, check=True, timeout=timeout)
        return await read_back_mount(ex, source, path)

    return action


def unmount_action(argv: list[str], source: str, path: str, timeout: float = 120.0):
    """An unmount step: run ``argv``, then read back that the volume is no longer on ``path``."""
    volume = source.partition(":/")[2]

    async def action(ex: Executor) -> str:
        await ex.run(argv, sudo=True, check=True, timeout=timeout)
        found = await mounted_at(ex, path)
        if is_mount_of(found, volume, path):
            raise ExecutorError(ex.host, f"umount exited 0 but {found.describe()} is still mounted")
        return "read back: not mounted"

    return action
