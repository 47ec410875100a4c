"""Provisioning a planned volume: the steps, each with a check so a re-run skips what is done.

``provision_plan(topo, volume_name)`` returns the planner's result and the steps:

1. ``peer probe`` each of the volume's nodes from the topology's first node, so all volumes of
   one topology share one trusted pool (skipped when already in the pool),
2. create each brick directory that does not exist yet, leaving a marker file next to it
   (``PARENT/.NAME.brickyard-created``) so teardown removes only what Brickyard made,
3. ``gluster --mode=script volume create`` (the caller runs it only after the user saw and
   accepted the planner's warnings; ``force`` only when the volume asks for it),
4. ``volume set`` each option, 5. ``volume start``; steps 1 and 3-5 are the planner's own
   ``gluster_cli.volume_commands`` (same hosts, same argv as the Commands panel shows),
6. mount on each client named in the volume's mounts, done only when ``findmnt -J`` on the
   client shows it (``mountstate.read_back_mount``: mount.glusterfs exits 0 on some mounts that
   failed), and an /etc/fstab line for each mount that asks for one (``Mount.fstab``, or every
   mount with ``fstab=True``).

Nothing here formats a disk; brick paths and names are validated before any command exists.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from ..core import gluster_cli
from ..core.names import volname_cli_problem
from ..core.mounts import fstab_line, mount_options, mount_options_problem, mount_source
from ..core.plan import PlanResult, plan_volume
from ..core.topology import Topology, Volume
from .executor import Executor, ExecutorError
from .steps import DONE, HOST, NOTHING, AlreadyDone, Step
from . import glusterstate

MARKER_SUFFIX = ".brickyard-created"
_NAME_RE = re.compile(r"^(?!-)[A-Za-z0-9_.\-]{1,253}$")
_OPTION_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")

# Create one brick directory and say who made it (core.gluster_cli: a change plan makes its
# new bricks the same way).
MKDIR_SCRIPT = gluster_cli.BRICK_MKDIR_SCRIPT

# Mount the volume unless it is mounted there already. $1 server:/volume, $2 mount point, $3 options.
# A mount point it has to create gets the same marker as a brick directory, so teardown can
# remove it again (only while it is empty).
MOUNT_SCRIPT = r'''
src="$1"; dst="$2"; opts="$3"
if [ ! -e "$dst" ]; then
  top="$dst"
  while [ ! -e "$(dirname -- "$top")" ]; do top="$(dirname -- "$top")"; done
  mkdir -p -- "$dst" || exit 4
  printf 'brickyard-created\t%s\t%s\t%s\n' "$dst" "$top" "${src#*:/}" > "$(dirname -- "$dst")/.$(basename -- "$dst").brickyard-created"
fi
if [ -n "$opts" ]; then exec mount -t glusterfs -o "$opts" "$src" "$dst"; fi
exec mount -t glusterfs "$src" "$dst"
'''

# Add one exact line to /etc/fstab unless it is there. $1 the line.
FSTAB_ADD_SCRIPT = r'''
line="$1"
grep -qxF -- "$line" /etc/fstab 2>/dev/null && exit 0
printf '%s\n' "$line" >> /etc/fstab
'''


class ProvisionError(ValueError):
    """The topology or plan cannot be provisioned as it stands; the message says why."""


def check_brick_path(path: str) -> None:
    if not path.startswith("/") or path == "/" or "\n" in path or "\0" in path:
        raise ProvisionError(f"brick path {path!r} must be an absolute directory path other than /")
    parts = path.split("/")
    if any(p in (".", "..") for p in parts) or "//" in path or path.endswith("/"):
        raise ProvisionError(f"brick path {path!r} must be normalised (no '.', '..', '//' or trailing '/')")


def check_names(topo: Topology, volume: Volume) -> None:
    problem = volname_cli_problem(volume.name)  # letters, digits, '-' and '_', no leading '-'
    if problem:
        raise ProvisionError(f"volume name {volume.name!r}: {problem}")
    for ref in volume.bricks:
        if not _NAME_RE.match(ref.node):
            raise ProvisionError(f"node name {ref.node!r} is not a host name gluster can use")
        check_brick_path(ref.path)
    for key in volume.options:
        if not _OPTION_RE.match(key):
            raise ProvisionError(f"volume option {key!r} is not an option name")
    for mount in volume.mounts:
        if topo.client(mount.client) is None:
            raise ProvisionError(f"mount names client {mount.client!r}, which is not in the topology")
        check_brick_path(mount.path)
        problem = mount_options_problem(mount.options)
        if problem:
            raise ProvisionError(f"mount of {volume.name} on {mount.client}:{mount.path}: {problem}")


@dataclass
class ProvisionPlan:
    volume: Volume
    plan: PlanResult
    steps: list[Step]
    origin: str  # the node every gluster command runs on (the topology's first node)

    @property
    def questions(self) -> list[str]:
        """What gluster would ask or refuse without ``force``: the user must accept these."""
        return [f"{f.severity}: {f.message}" for f in (*self.plan.forced, *self.plan.warnings)]


def provision_plan(topo: Topology, volume_name: str, *, fstab: bool = False) -> ProvisionPlan:
    volume = topo.require_volume(volume_name)
    if not volume.bricks:
        raise ProvisionError(f"volume {volume.name!r} has no bricks")
    check_names(topo, volume)
    result = plan_volume(topo, volume)
    if result.errors:
        raise ProvisionError(
            f"gluster would refuse volume {volume.name!r}: " + "; ".join(f.message for f in result.errors))
    if result.needs_force and not volume.force:
        raise ProvisionError(
            f"gluster refuses volume {volume.name!r} without force: "
            + "; ".join(f.message for f in result.forced) + " (set force on the volume to create it anyway)")
    volume = result.volume
    # the planner's own command list (gluster_cli.volume_commands): the same hosts and argv
    # the Commands panel and `brickyard plan` show. One topology is one trusted pool: every
    # volume's nodes are probed from the topology's first node, so a second volume on other
    # nodes joins the pool instead of starting its own.
    commands = {c.key: c for c in gluster_cli.volume_commands(topo, volume, mode_script=True)}
    origin = gluster_cli.pool_origin(topo, volume)
    probed = gluster_cli.probe_hosts(topo, volume)
    steps: list[Step] = []
    for host in probed:
        probe = commands[f"peer-probe:{host}"]
        steps.append(Step(
            probe.key, f"probe {host} into the trusted pool", probe.host, [list(probe.argv)],
            undo=shlex.join(["gluster", "peer", "detach", host]) + " (only if no other volume uses it)",
            done_check=glusterstate.peer_in_pool_check(host),
        ))
    if probed:
        # the origin and each probed node wait at the same time (all read-only), and each node
        # goes on to its brick directories when its own wait is over (steps together="hosts")
        steps.append(Step(
            "peers-connected", "wait until every probed peer is connected", origin,
            [["gluster", "--mode=script", "--xml", "peer", "status"]],
            action=glusterstate.wait_peers_connected(probed), done_check=None, sudo=True, together="hosts",
            changes=NOTHING,
        ))
        for host in probed:
            steps.append(Step(
                f"peers-connected:{host}", f"wait until {host} sees every peer connected", host,
                [["gluster", "--mode=script", "--xml", "peer", "status"]],
                action=glusterstate.wait_pool_connected(len(probed)), done_check=None, sudo=True,
                together="hosts", changes=NOTHING,
            ))
    for ref in volume.bricks:
        argv = gluster_cli.brick_mkdir_argv(ref.path, volume.name)
        steps.append(Step(
            f"mkdir:{ref}", f"create brick directory {ref.path}", ref.node, [argv],
            undo=f"teardown removes {shlex.quote(ref.path)} if Brickyard created it",
            action=_mkdir_action(argv), together="hosts", changes=HOST,
        ))
    create = commands["volume-create"]
    steps.append(Step(
        create.key, f"create volume {volume.name}", create.host, [list(create.argv)],
        undo=shlex.join(["gluster", "volume", "delete", volume.name]),
        done_check=glusterstate.volume_exists_check(volume),
    ))
    if volume.options:      # every option in one cluster transaction
        option = commands["volume-set"]
        words = ", ".join(f"{k}={v}" for k, v in volume.options.items())
        steps.append(Step(
            option.key, f"set {words} on {volume.name}", option.host, [list(option.argv)],
            undo="; ".join(shlex.join(["gluster", "volume", "reset", volume.name, k]) for k in volume.options),
            done_check=glusterstate.options_set_check(volume.name, dict(volume.options)),
            fresh_after=("volume-create",),     # a volume created a moment ago has gluster's defaults
        ))
    start = commands["volume-start"]
    steps.append(Step(
        start.key, f"start volume {volume.name}", start.host, [list(start.argv)],
        undo=shlex.join(["gluster", "volume", "stop", volume.name]),
        done_check=glusterstate.volume_started_check(volume.name),
        fresh_after=("volume-create",),         # a volume created a moment ago is not started
    ))
    source, _ = mount_source(volume)
    for mount in volume.mounts:
        opts = mount_options(volume, mount.options)
        mount_argv = ["sh", "-c", MOUNT_SCRIPT, "sh", source, mount.path, opts]
        steps.append(Step(
            f"mount:{mount.client}:{mount.path}", f"mount {source} on {mount.path}", mount.client,
            [mount_argv], undo=shlex.join(["umount", mount.path]),
            done_check=glusterstate.mounted_check(source, mount.path), together="mounts",
            # done when findmnt shows it: mount.glusterfs exits 0 on some mounts that failed
            action=glusterstate.mount_action(mount_argv, source, mount.path),
        ))
        if fstab or mount.fstab:
            line = fstab_line(volume, mount.path, mount.options)
            steps.append(Step(
                f"fstab:{mount.client}:{mount.path}", f"add {mount.path} to /etc/fstab", mount.client,
                [["sh", "-c", FSTAB_ADD_SCRIPT, "sh", line]],
                undo=f"remove the line {shlex.quote(line)} from /etc/fstab",
                done_check=fstab_line_check(line, present="in /etc/fstab already"), together="mounts",
                changes=HOST,
            ))
    return ProvisionPlan(volume, result, steps, origin)


def _mkdir_action(argv: list[str]):
    """Create a brick directory in one round trip: the script itself says when the directory
    is there already (then the step counts as already done, as a separate check would)."""
    async def action(ex: Executor) -> str:
        result = await ex.run(argv, sudo=True, check=True, timeout=120)
        if result.text.strip().endswith("exists already"):
            raise AlreadyDone("exists already")
        return ""

    return action


def fstab_line_check(line: str, *, present: str | None = None, absent: str | None = None):
    """A done-check from whether /etc/fstab has exactly ``line``: the sentence for that case."""
    async def check(ex: Executor) -> str | None:
        result = await ex.run(["grep", "-qxF", "--", line, "/etc/fstab"], sudo=True, timeout=30)
        if result.exit_status not in (0, 1):
            raise ExecutorError(ex.host, f"cannot read /etc/fstab: exit status {result.exit_status}")
        return present if result.exit_status == 0 else absent

    return check


def brick_dir_check(path: str):
    """A done-check: the directory ``path`` exists already (a brick's, on its node)."""
    return _dir_exists(path)


def _dir_exists(path: str):
    async def check(ex: Executor) -> str | None:
        result = await ex.run(["test", "-d", path], sudo=True, timeout=30)
        if result.exit_status == 0:
            return "exists already"
        if result.exit_status == 1:
            return None
        raise ExecutorError(ex.host, f"cannot check {path}: exit status {result.exit_status}")

    return check


async def run_provision(plan: ProvisionPlan, executor_for, progress=None, on_step=None,
                        topology_file: str | None = None):
    """Run the plan's steps (each skipped when already done); returns the RunReport.

    ``on_step(index, outcome)``: see ``steps.run_steps``. ``topology_file`` goes into the
    teardown hint of a failed run; without one (an untitled topology in the window) the hint
    says to tear down from the window or to save a file first, never a placeholder."""
    from .steps import run_steps

    report = await run_steps("provision", plan.volume.name, plan.steps, executor_for, progress, on_step)
    if not report.ok and any(o.status == DONE for o in report.outcomes):
        report.notes.append(teardown_hint(plan.volume.name, topology_file))
    return report


def teardown_hint(name: str, topology_file: str | None) -> str:
    """How to undo everything Brickyard did for volume ``name``: the exact command when the
    topology has a file, else the window's Tear down (or the command after saving)."""
    if topology_file:
        return (f"to undo everything Brickyard did for {name}: "
                + shlex.join(["brickyard", "teardown", str(topology_file), "--volume", name, "--confirm", name]))
    return (f"to undo everything Brickyard did for {name}: Tear down… in the Provision tab, or save the "
            f"topology to a file and run: brickyard teardown THAT-FILE --volume {name} --confirm {name}")
