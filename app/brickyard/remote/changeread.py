"""Reading a live volume over SSH for a change: every read-only gluster command a plan starts
from, and the ones a running change polls (rebalance, remove-brick, heal).

``read_live_state(ex, volume)`` runs, on one node of the pool, ``volume info``, ``volume status
VOL detail`` and ``tasks``, ``peer status``, ``pool list``, the rebalance and remove-brick
status when gluster lists such a task, and ``heal info summary`` on replicated and dispersed
volumes; it returns ``core.livestate.LiveState`` with every text it read. Nothing here
changes the cluster.
"""

from __future__ import annotations

import time
from typing import Sequence

from ..core import gluster_cli as cli
from ..core import gluster_progress as gp
from ..core import gluster_xml as gx
from ..core import livestate as ls
from ..core import rebalancelog
from ..core.topology import BrickRef
from .executor import CommandResult, Executor, ExecutorError
from .steps import RetryTransient

# A data file left on a retiring brick: a regular file outside .glusterfs that is not a DHT
# link file (mode ---------T, 0 bytes). $1 the brick path. Prints at most 50 paths.
LEFTOVER_SCRIPT = r'''
b="$1"
[ -d "$b" ] || { echo "no brick directory $b" >&2; exit 3; }
find "$b" -path "$b/.glusterfs" -prune -o -type f ! \( -size 0 -perm 1000 \) -print 2>/dev/null | head -n 50
'''

# Entries a brick's self-heal index holds (what `heal info` walks, and `heal-count` counts for
# replicated volumes): the xattrop and dirty indices and the granular entry-heal directories,
# each without its base file (xattrop-UUID, dirty-UUID, entry-changes-UUID: the index xlator
# links entries to it; entry-changes gets one too, seen on gluster 10.3, and a heal wait that
# counted it waited for ever). Read-only. $1 the brick path; prints one number.
INDEX_COUNT_SCRIPT = r'''
b="$1"
i="$b/.glusterfs/indices"
[ -d "$b" ] || { echo "no brick directory $b" >&2; exit 3; }
n=0
for d in xattrop dirty entry-changes; do
  [ -d "$i/$d" ] && n=$((n + $(find "$i/$d" -mindepth 1 -maxdepth 1 ! -name "$d-*" | wc -l)))
done
echo "$n"
'''

# The E, C and W lines of the last run in a rebalance log: each rebalance process appends to
# the same file and begins with glusterfsd's "Started running version" line. $1 the log's
# path. Read-only; prints at most 40 lines.
REBALANCE_LOG_SCRIPT = r'''
f="$1"
[ -r "$f" ] || { echo "no log $f" >&2; exit 3; }
start=$(grep -n 'Started running' "$f" | tail -n 1 | cut -d: -f1)
tail -n +"${start:-1}" "$f" | grep -E '^\[[^]]*\] [ECW] ' | tail -n 40
exit 0
'''


async def gluster(ex: Executor, argv: Sequence[str], timeout: float = 120.0) -> CommandResult:
    """Run a gluster command (as root); its output, whatever it says (the caller reads opRet).
    While gluster answers that another transaction holds the lock (another volume's add-brick,
    a second admin) it is asked again, as the provisioning steps do."""
    if not isinstance(ex, RetryTransient):
        ex = RetryTransient(ex)
    result = await ex.run(list(argv), sudo=True, timeout=timeout)
    if not result.stdout.lstrip().startswith(b"<") and "--xml" in argv:
        tail = (result.stderr + result.stdout).decode(errors="replace").strip().splitlines()
        raise ExecutorError(ex.host, f"`{cli.render(argv[3:])}` gave no XML: "
                                     f"{tail[-1] if tail else f'exit status {result.exit_status}'}")
    return result


async def read_live_state(ex: Executor, volume: str) -> ls.LiveState:
    """The live state of ``volume`` as the node behind ``ex`` sees it (ExecutorError when the
    volume does not exist or glusterd does not answer)."""
    out: dict[str, str] = {}
    measured = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out[ls.INFO] = (await gluster(ex, cli.volume_info_argv(volume))).text
    try:
        infos = [i for i in gx.parse_volume_info(out[ls.INFO]) if i.name == volume]
    except gx.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"gluster volume info {volume}: {getattr(exc, 'op_errstr', '') or exc}") from exc
    if not infos:
        raise ExecutorError(ex.host, f"gluster knows no volume {volume}")
    info = infos[0]
    out[ls.PEERS] = (await gluster(ex, [*cli.CHANGE, "peer", "status"])).text
    out[ls.POOL] = (await gluster(ex, [*cli.CHANGE, "pool", "list"])).text
    if info.status == "Started":
        out[ls.DETAIL] = (await gluster(ex, cli.volume_status_argv(volume, "detail"))).text
        out[ls.TASKS] = (await gluster(ex, cli.volume_status_argv(volume, "tasks"))).text
        tasks = gp.parse_volume_tasks(out[ls.TASKS]).get(volume, [])
        if any(t.is_rebalance for t in tasks):
            out[ls.REBALANCE] = (await gluster(ex, cli.rebalance_argv(volume, "status"))).text
        removing = next((t for t in tasks if t.is_remove_brick and t.bricks), None)
        if removing is not None:
            out[ls.REMOVE_BRICK] = (await gluster(ex, cli.remove_brick_argv(volume, removing.bricks, "status"))).text
        if info.type.is_replicated or info.type.is_dispersed:
            out[ls.HEAL] = (await gluster(ex, cli.heal_summary_argv(volume), timeout=600)).text
    try:
        return ls.from_outputs(out, volume, measured)
    except gx.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"reading {volume}: {exc}") from exc


async def migration_status(ex: Executor, volume: str, kind: str, bricks: Sequence[BrickRef] = (),
                           names: dict[str, str] | None = None) -> gp.MigrationStatus | None:
    """The rebalance (kind REBALANCE) or remove-brick of ``bricks`` now; None when none runs."""
    argv = cli.rebalance_argv(volume, "status") if kind == gp.REBALANCE else cli.remove_brick_argv(volume, bricks,
                                                                                                  "status")
    result = await gluster(ex, argv)
    try:
        status = gp.parse_migration_status(result.stdout, kind)
    except gx.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"{kind} status of {volume}: {getattr(exc, 'op_errstr', '') or exc}") from exc
    return status.named(names) if status is not None and names else status


async def heal_summary(ex: Executor, volume: str) -> list[gp.HealBrick]:
    result = await gluster(ex, cli.heal_summary_argv(volume), timeout=900)
    try:
        return gp.parse_heal_summary(result.stdout)
    except gx.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"heal info summary of {volume}: {getattr(exc, 'op_errstr', '') or exc}") from exc


async def index_pending(ex: Executor, brick: BrickRef) -> int:
    """Entries waiting in ``brick``'s self-heal index (run on its own node). Cheap where
    ``heal info`` is not: on a disperse volume under load one ``heal info summary`` took minutes
    while two entries were being healed (seen on the sandbox)."""
    result = await ex.run(["sh", "-c", INDEX_COUNT_SCRIPT, "sh", brick.path], sudo=True, timeout=120)
    text = result.text.strip()
    if result.exit_status != 0 or not text.isdigit():
        tail = (result.stderr or result.stdout).decode(errors="replace").strip().splitlines()
        raise ExecutorError(ex.host, f"cannot count the heal index of {brick}: {tail[-1] if tail else result.exit_status}")
    return int(text)


async def heal_count(ex: Executor, volume: str) -> dict[BrickRef, int | None] | None:
    """Entries to heal per brick from the cheap index count (replicated volumes); None when
    gluster cannot count them this way (a disperse volume)."""
    result = await ex.run(cli.heal_count_argv(volume), sudo=True, timeout=120)
    try:
        return gp.parse_heal_count(result.stdout + result.stderr)
    except gx.GlusterXMLError:
        return None


async def volume_info(ex: Executor, volume: str) -> gx.VolumeInfo:
    result = await gluster(ex, cli.volume_info_argv(volume))
    try:
        infos = [i for i in gx.parse_volume_info(result.stdout) if i.name == volume]
    except gx.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"volume info {volume}: {getattr(exc, 'op_errstr', '') or exc}") from exc
    if not infos:
        raise ExecutorError(ex.host, f"gluster knows no volume {volume}")
    return infos[0]


async def leftover_files(ex: Executor, brick: BrickRef) -> list[str]:
    """Data files still on ``brick`` (on its own node): what a commit would drop."""
    result = await ex.run(["sh", "-c", LEFTOVER_SCRIPT, "sh", brick.path], sudo=True, timeout=600)
    if result.exit_status not in (0, 141):   # 141: head closed the pipe
        tail = (result.stderr or result.stdout).decode(errors="replace").strip().splitlines()
        raise ExecutorError(ex.host, f"cannot look for files left on {brick}: {tail[-1] if tail else result.exit_status}")
    return [line for line in result.text.splitlines() if line.strip()]


def rebalance_log_path(volume: str) -> str:
    cli.volume_info_argv(volume)          # a valid volume name, or ValueError
    return f"/var/log/glusterfs/{volume}-rebalance.log"


async def rebalance_log_cause(ex: Executor, volume: str) -> list[str]:
    """Why the last rebalance of ``volume`` on the node behind ``ex`` failed: the error lines
    of its rebalance log (``core.rebalancelog.cause``); ExecutorError when it cannot be read."""
    path = rebalance_log_path(volume)
    result = await ex.run(["sh", "-c", REBALANCE_LOG_SCRIPT, "sh", path], sudo=True, timeout=60)
    if result.exit_status != 0:
        tail = (result.stderr or result.stdout).decode(errors="replace").strip().splitlines()
        raise ExecutorError(ex.host, f"cannot read {path}: {tail[-1] if tail else result.exit_status}")
    return rebalancelog.cause(result.text)


async def offline_bricks(ex: Executor, volume: str) -> list[BrickRef]:
    """The bricks of ``volume`` that ``volume status`` does not show online (with a port a
    client can connect to), in the volume's order."""
    info = await volume_info(ex, volume)
    result = await gluster(ex, cli.volume_status_argv(volume, "detail"))
    try:
        status = gx.parse_volume_status(result.stdout).get(volume, [])
    except gx.GlusterXMLError as exc:
        raise ExecutorError(ex.host, f"volume status {volume}: {getattr(exc, 'op_errstr', '') or exc}") from exc
    online = {b.ref for b in status if b.online}
    return [b.ref for b in info.bricks if b.ref not in online]
