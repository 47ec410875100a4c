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

import re
import shlex
from dataclasses import dataclass
from operator import attrgetter
from typing import Sequence

from .layout import Resolved, resolve
from .mounts import fstab_line, mount_argv, mount_problem
from .topology import Topology, Volume

GLUSTER = "gluster"
_NODE = attrgetter("node")


# Create one brick directory and say who made it. $1 brick path, $2 volume. Writes nothing
# when the directory exists already (it is then not Brickyard's); the marker file beside it
# (PARENT/.NAME.brickyard-created) lets teardown remove only what Brickyard made.
BRICK_MKDIR_SCRIPT = r'''
p="$1"; v="$2"
[ -d "$p" ] && { echo "exists already"; exit 0; }
[ -e "$p" ] && { echo "$p exists and is not a directory" >&2; exit 3; }
top="$p"
while [ ! -e "$(dirname -- "$top")" ]; do top="$(dirname -- "$top")"; done
mkdir -p -- "$p" || exit 4
printf 'brickyard-created\t%s\t%s\t%s\n' "$p" "$top" "$v" > "$(dirname -- "$p")/.$(basename -- "$p").brickyard-created"
'''


def brick_mkdir_argv(path: str, volume: str) -> list[str]:
    """Create brick directory ``path`` for ``volume`` (on the brick's node, as root)."""
    return ["sh", "-c", BRICK_MKDIR_SCRIPT, "sh", path, volume]


def _gluster(mode_script: bool) -> list[str]:
    return [GLUSTER, "--mode=script"] if mode_script else [GLUSTER]


def peer_probe_argv(host: str, mode_script: bool = False, xml: bool = False) -> list[str]:
    if not host or host.startswith("-"):
        raise ValueError(f"not a host name for gluster peer probe: {host!r}")
    return [*_gluster(mode_script), *(["--xml"] if xml else []), "peer", "probe", host]


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


def volume_set_many_argv(name: str, options: dict[str, str], mode_script: bool = False) -> list[str]:
    """``gluster volume set NAME KEY VALUE [KEY VALUE]...``: one transaction for every option
    (gluster's CLI takes the pairs in one command; only ``group``, which the planner refuses
    as an option, it takes alone)."""
    argv = volume_set_argv(name, *next(iter(options.items())), mode_script=mode_script)
    for key, value in list(options.items())[1:]:
        argv += volume_set_argv(name, key, value, mode_script)[-2:]
    return argv


def volume_start_argv(name: str, mode_script: bool = False) -> list[str]:
    _check_name(name)
    return [*_gluster(mode_script), "volume", "start", name]


@dataclass(frozen=True)
class HostCommand:
    """One gluster command and the node it runs on. ``key`` names the step:
    ``peer-probe:HOST``, ``volume-create``, ``volume-set`` (every option at once) or
    ``volume-start``."""

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
    volume's nodes from the origin, create, set the options (one command for all of them:
    one cluster transaction, not one per option), start."""
    origin = pool_origin(topo, volume)
    out = [HostCommand(f"peer-probe:{h}", origin, tuple(peer_probe_argv(h, mode_script)))
           for h in probe_hosts(topo, volume)]
    out.append(HostCommand("volume-create", origin, tuple(
        volume_create_argv(topo, volume, mode_script=mode_script, resolved=resolved))))
    if volume.options:
        out.append(HostCommand("volume-set", origin,
                               tuple(volume_set_many_argv(volume.name, volume.options, mode_script))))
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


_UNSAFE = re.compile(r"[^\w@%+=:,./-]", re.ASCII)   # shlex.quote's: a word with any other character is quoted


def render(argv: Sequence[str]) -> str:
    """A command line for display and copy-paste (``shlex.join``). A command whose words need
    no quotes, as a volume create's 24,000 bricks usually do not, is told so by one search
    over all of them instead of one per word."""
    words = list(argv)
    if all(words) and _UNSAFE.search("".join(words)) is None:
        return " ".join(words)
    return shlex.join(words)


def _check_name(name: str) -> None:
    if not name or name.startswith("-"):
        raise ValueError(f"not a volume name for a gluster command: {name!r}")


# ---- changing a live volume (core.change plans these; remote.change runs them) ---------------
# Every change command carries --mode=script (no question waits for a terminal) and --xml:
# gluster 10 exits 0 even when it refuses, and only <opRet> says so; the runner reads it.
CHANGE = (GLUSTER, "--mode=script", "--xml")


def _bricks(bricks: Sequence[object]) -> list[str]:
    out = [str(b) for b in bricks]
    for text in out:
        if text.startswith("-") or ":/" not in text:
            raise ValueError(f"not a brick host:/path for a gluster command: {text!r}")
    return out


def add_brick_argv(name: str, bricks: Sequence[object], replica: int | None = None, arbiter: int = 0,
                   force: bool = False) -> list[str]:
    """``volume add-brick NAME [replica N [arbiter 1]] BRICK… [force]``: whole new sets, or with
    ``replica`` one more brick for every set (raising the replica count)."""
    _check_name(name)
    words = ["replica", str(replica)] + (["arbiter", str(arbiter)] if arbiter else []) if replica else []
    return [*CHANGE, "volume", "add-brick", name, *words, *_bricks(bricks), *(["force"] if force else [])]


def remove_brick_argv(name: str, bricks: Sequence[object], action: str) -> list[str]:
    """``volume remove-brick NAME BRICK… start|status|stop|commit`` (never ``force``: that
    drops the data on the bricks without migrating it)."""
    _check_name(name)
    if action not in ("start", "status", "stop", "commit"):
        raise ValueError(f"not a remove-brick action: {action!r}")
    return [*CHANGE, "volume", "remove-brick", name, *_bricks(bricks), action]


def rebalance_argv(name: str, action: str, fix_layout: bool = False) -> list[str]:
    """``volume rebalance NAME [fix-layout] start``, ``… status``, ``… stop``."""
    _check_name(name)
    if action not in ("start", "status", "stop"):
        raise ValueError(f"not a rebalance action: {action!r}")
    return [*CHANGE, "volume", "rebalance", name, *(["fix-layout"] if fix_layout and action == "start" else []), action]


def replace_brick_argv(name: str, old: object, new: object) -> list[str]:
    """``volume replace-brick NAME OLD NEW commit force`` (the only form gluster 10 has)."""
    _check_name(name)
    return [*CHANGE, "volume", "replace-brick", name, *_bricks([old, new]), "commit", "force"]


def change_set_argv(name: str, options: dict[str, str]) -> list[str]:
    """``volume set NAME KEY VALUE [KEY VALUE]… --xml``: the options in one transaction."""
    _check_name(name)
    argv = [*CHANGE, "volume", "set", name]
    for key, value in options.items():
        if not key or key.startswith("-"):
            raise ValueError(f"not a volume option: {key!r}")
        argv += [key, str(value)]
    return argv


def volume_reset_argv(name: str, key: str) -> list[str]:
    """``volume reset NAME KEY --xml``: the option back to gluster's default (unset, as
    ``volume info`` shows a volume that never had it set)."""
    _check_name(name)
    if not key or key.startswith("-"):
        raise ValueError(f"not a volume option: {key!r}")
    return [*CHANGE, "volume", "reset", name, key]


def volume_get_argv(name: str, key: str) -> list[str]:
    """``volume get NAME KEY --xml``: the value in effect (gluster's default when unset)."""
    _check_name(name)
    if not key or key.startswith("-"):
        raise ValueError(f"not a volume option: {key!r}")
    return [*CHANGE, "volume", "get", name, key]


def heal_summary_argv(name: str) -> list[str]:
    _check_name(name)
    return [*CHANGE, "volume", "heal", name, "info", "summary"]


def heal_launch_argv(name: str) -> list[str]:
    """``volume heal NAME``: start an index heal now rather than at the self-heal daemon's next
    crawl (no XML in gluster 10.3: "Launching heal operation … has been successful")."""
    _check_name(name)
    return [GLUSTER, "--mode=script", "volume", "heal", name]


def heal_count_argv(name: str) -> list[str]:
    """No XML in gluster 10.3 for this one (core.gluster_progress.parse_heal_count reads it)."""
    _check_name(name)
    return [GLUSTER, "--mode=script", "volume", "heal", name, "statistics", "heal-count"]


def volume_status_argv(name: str, what: str) -> list[str]:
    """``volume status NAME detail|tasks --xml``."""
    _check_name(name)
    if what not in ("detail", "tasks"):
        raise ValueError(f"not a volume status view: {what!r}")
    return [*CHANGE, "volume", "status", name, what]


def volume_info_argv(name: str) -> list[str]:
    _check_name(name)
    return [*CHANGE, "volume", "info", name]
