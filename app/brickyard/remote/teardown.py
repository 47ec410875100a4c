"""Tearing a provisioned volume down: unmount, stop, delete, and remove only what Brickyard made.

A brick directory is removed only when the marker ``PARENT/.NAME.brickyard-created`` that
provisioning wrote names exactly that path and this volume; then the directory goes with
everything in it (data, ``.glusterfs``, the ``trusted.glusterfs.volume-id`` and
``trusted.gfid`` xattrs that would block reusing the path), and so do the parent
directories ``mkdir -p`` made, while they are empty. A directory without the marker is left
as it is; the report says how to make it reusable by hand. Peers stay in the pool (other
volumes may use them). Nothing is formatted, nothing outside the brick paths is touched.
"""

from __future__ import annotations

import shlex

from ..core.topology import Topology, Volume
from .clients import ClientsUnreadable, connected_clients, resolve_addresses
from .executor import Executor, ExecutorError
from ..core.mounts import fstab_line, mount_source
from .provision import check_names, fstab_line_check
from .steps import HOST, NOTHING, Step
from . import glusterstate

# Remove one brick directory (or, with $3 = empty, a mount point: only while it is empty and
# nothing is mounted on it) if Brickyard created it for this volume. $1 path, $2 volume.
RMBRICK_SCRIPT = r'''
p="$1"; want="$2"; mode="$3"
m="$(dirname -- "$p")/.$(basename -- "$p").brickyard-created"
if [ ! -f "$m" ]; then
  if [ -e "$p" ]; then echo "kept: not created by Brickyard"; else echo "absent"; fi
  exit 0
fi
tab="$(printf '\t')"
IFS="$tab" read -r tag path top vol < "$m"
if [ "$tag" != brickyard-created ] || [ "$path" != "$p" ]; then echo "marker $m does not name $p; left alone" >&2; exit 3; fi
if [ "$vol" != "$want" ]; then echo "kept: Brickyard created it for volume $vol, not $want"; exit 0; fi
if [ "$mode" = empty ]; then
  if mountpoint -q -- "$p"; then echo "kept: something is mounted on it"; exit 0; fi
  rmdir -- "$p" 2>/dev/null || { echo "kept: not empty"; exit 0; }
else
  rm -rf -- "$p" || exit 4
fi
rm -f -- "$m"
d="$(dirname -- "$p")"
while :; do
  case "$d" in "$top"|"$top"/*) ;; *) break;; esac
  rmdir -- "$d" 2>/dev/null || break
  d="$(dirname -- "$d")"
done
echo "removed"
'''

# Remove one exact line from an fstab ($2, default /etc/fstab) if it is there. $1 the line.
# The new file is written beside the old one with its mode and owner, then moved over it in
# one rename; when grep cannot read the file the fstab is left untouched.
FSTAB_REMOVE_SCRIPT = r'''
line="$1"; f="${2:-/etc/fstab}"
f="$(readlink -f -- "$f")" || { echo "cannot resolve $2" >&2; exit 4; }
grep -qxF -- "$line" "$f"; rc=$?
[ "$rc" -eq 1 ] && { echo "not in $f"; exit 0; }
[ "$rc" -eq 0 ] || { echo "cannot read $f: left untouched" >&2; exit 4; }
tmp="$(mktemp "$(dirname -- "$f")/.fstab.brickyard.XXXXXX")" || exit 4
grep -vxF -- "$line" "$f" > "$tmp"; rc=$?
if [ "$rc" -gt 1 ]; then rm -f -- "$tmp"; echo "cannot rewrite $f: left untouched" >&2; exit 4; fi
if ! { chmod --reference="$f" -- "$tmp" && chown --reference="$f" -- "$tmp"; }; then
  rm -f -- "$tmp"; echo "cannot replace $f: left untouched" >&2; exit 4
fi
if ! mv -f -- "$tmp" "$f" 2>/dev/null; then
  # a bind-mounted fstab (containers, the lab) cannot be renamed over: write the checked text in place
  if ! cat -- "$tmp" > "$f"; then rm -f -- "$tmp"; echo "cannot write $f" >&2; exit 4; fi
  rm -f -- "$tmp"
fi
echo "removed"
'''


def _script_action(argv: list[str]):
    async def action(ex: Executor) -> str:
        result = await ex.run(argv, sudo=True, check=True, timeout=600)
        lines = result.text.strip().splitlines()
        return lines[-1] if lines else ""

    return action


def teardown_plan(topo: Topology, volume_name: str) -> list[Step]:
    volume = topo.require_volume(volume_name)
    check_names(topo, volume)
    if not volume.bricks:
        return []
    first = volume.bricks[0].node
    source, _ = mount_source(volume)
    steps: list[Step] = [Step(
        "volume-check", f"check that {volume.name} on the cluster has exactly the planned bricks", first,
        [["gluster", "--mode=script", "--xml", "volume", "info", volume.name]],
        action=_same_bricks(volume), changes=NOTHING,
    ), Step(
        "clients-check", f"check that every client mounting {volume.name} is one teardown unmounts", first,
        [["gluster", "--mode=script", "--xml", "volume", "status", volume.name, "clients"]],
        action=_known_clients(topo, volume), changes=NOTHING,
    )]
    for mount in volume.mounts:
        steps.append(Step(
            f"umount:{mount.client}:{mount.path}", f"unmount {mount.path}", mount.client,
            [["umount", mount.path]], undo=shlex.join(["mount", "-t", "glusterfs", source, mount.path]),
            done_check=glusterstate.unmounted_check(source, mount.path), together="clients",
            action=glusterstate.unmount_action(["umount", mount.path], source, mount.path), changes=HOST,
        ))
        line = fstab_line(volume, mount.path, mount.options)
        fstab_argv = ["sh", "-c", FSTAB_REMOVE_SCRIPT, "sh", line]
        steps.append(Step(
            f"fstab-remove:{mount.client}:{mount.path}", f"remove {mount.path} from /etc/fstab", mount.client,
            [fstab_argv], done_check=fstab_line_check(line, absent="not in /etc/fstab"),
            action=_script_action(fstab_argv), together="clients", changes=HOST,
        ))
        rmdir_argv = ["sh", "-c", RMBRICK_SCRIPT, "sh", mount.path, volume.name, "empty"]
        steps.append(Step(
            f"rmdir-mount:{mount.client}:{mount.path}", f"remove mount point {mount.path} if Brickyard created it",
            mount.client, [rmdir_argv], action=_script_action(rmdir_argv), together="clients", changes=HOST,
        ))
    steps.append(Step(
        "volume-stop", f"stop volume {volume.name}", first,
        [["gluster", "--mode=script", "volume", "stop", volume.name]],
        undo=shlex.join(["gluster", "volume", "start", volume.name]),
        done_check=glusterstate.volume_stopped_check(volume.name),
    ))
    steps.append(Step(
        "volume-delete", f"delete volume {volume.name}", first,
        [["gluster", "--mode=script", "volume", "delete", volume.name]],
        undo="none: the volume definition is gone (the data is still in the bricks until they are removed)",
        done_check=glusterstate.volume_absent_check(volume.name),
        fresh_after=("volume-stop",),           # a volume stopped a moment ago still exists
    ))
    for ref in volume.bricks:
        argv = ["sh", "-c", RMBRICK_SCRIPT, "sh", ref.path, volume.name]
        steps.append(Step(
            f"rmbrick:{ref}", f"remove brick directory {ref.path} if Brickyard created it", ref.node,
            [argv], action=_script_action(argv), together="bricks", changes=HOST,
        ))
    return steps


def reuse_hint(path: str) -> str:
    """The commands that make a kept brick directory usable for a new volume (each word quoted)."""
    return "; ".join(shlex.join(argv) for argv in (
        ["setfattr", "-x", "trusted.glusterfs.volume-id", path], ["setfattr", "-x", "trusted.gfid", path],
        ["rm", "-rf", "--", f"{path}/.glusterfs"]))


def _same_bricks(volume: Volume):
    """Teardown's first step: the live volume of that name must be the planned one, brick for
    brick in order, or nothing is touched (a same-name volume Brickyard did not create)."""
    wanted = [str(b) for b in volume.bricks]

    async def action(ex: Executor) -> str:
        live = await glusterstate.run_live_volume(ex, volume.name)   # kept for the stop's check
        if live is None:
            return "the volume does not exist"
        if live.bricks == wanted:
            return f"the same {len(wanted)} bricks as planned ({live.status})"
        if sorted(live.bricks) == sorted(wanted):
            differs = "the same bricks in another order"
        else:
            extra = [b for b in live.bricks if b not in wanted]
            missing = [b for b in wanted if b not in live.bricks]
            differs = "; ".join(part for part in (
                f"on the cluster, not in the plan: {', '.join(extra)}" if extra else "",
                f"in the plan, not on the cluster: {', '.join(missing)}" if missing else "") if part)
        raise ExecutorError(ex.host, (
            f"volume {volume.name} on the cluster is not the one planned ({differs}; the cluster has "
            f"{', '.join(live.bricks) or 'no bricks'}). Brickyard did not create it this way and leaves it "
            "alone: nothing was stopped or deleted"))

    return action


def _known_clients(topo: Topology, volume: Volume):
    """Teardown's second step: every client the servers see connected to the volume must be
    one of its mounts in the topology, which teardown unmounts; otherwise it says plainly
    that it cannot unmount that client and changes nothing."""
    async def action(ex: Executor) -> str:
        servers = [n.name for n in topo.nodes] + [n.address for n in topo.nodes if n.address]
        try:
            seen = (await connected_clients(ex, volume.name, servers)).get(volume.name, [])
        except ClientsUnreadable as exc:
            # gluster 10.3 fails this when no client is connected (a client rebooted, unmounted
            # by hand, a mount that failed): no client is known connected; the admin confirmed
            # the volume's name, so teardown goes on (and unmounts the topology's mounts anyway)
            why = str(exc).removeprefix(f"{ex.host}: ")
            return (f"no client is known to be connected: the servers could not list them ({why}); "
                    "going on")
        if not seen:
            return "no client mounts it"
        planned = {volume_client for m in volume.mounts for volume_client in _names_of(topo, m.client)}
        resolved = await resolve_addresses(ex, planned)
        ours = set(planned) | {a for name in planned for a in resolved.get(name, [])}
        unknown = [c for c in seen if c.address not in ours and c.name not in ours]
        if not unknown:
            return f"mounted by {', '.join(c.name for c in seen)}: each is a mount teardown unmounts"
        who = ", ".join(c.name if c.name == c.address else f"{c.name} ({c.address})" for c in unknown)
        raise ExecutorError(ex.host, (
            f"volume {volume.name} is mounted by {who}, which the topology has no mount for: Brickyard cannot "
            f"unmount it there. Unmount it on that client (umount MOUNTPOINT), or add the mount to the topology "
            f"(brickyard import finds it), then tear down again. Nothing was stopped or deleted"))

    return action


def _names_of(topo: Topology, client_name: str) -> list[str]:
    client = topo.client(client_name)
    return [client_name] + ([client.address] if client is not None and client.address else [])


async def run_teardown(topo: Topology, volume_name: str, executor_for, progress=None, on_step=None):
    """Run the teardown steps; notes say how to reuse brick directories Brickyard kept.

    ``on_step(index, outcome)``: see ``steps.run_steps``."""
    from .steps import DONE, run_steps

    steps = teardown_plan(topo, volume_name)
    report = await run_steps("teardown", volume_name, steps, executor_for, progress, on_step)
    for outcome in report.outcomes:
        if outcome.status == DONE and outcome.step.key.startswith("rmbrick:") and outcome.message.startswith("kept"):
            path = outcome.step.commands[0][4]
            report.notes.append(f"{outcome.step.host}:{path} was kept ({outcome.message}); to reuse it for a new "
                                f"volume: {reuse_hint(path)}")
    return report
