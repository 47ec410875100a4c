"""Pre-flight: a checklist per host, before anything is created.

Servers: reachable, authenticated, root or passwordless sudo, gluster installed and glusterd
answering, peer state, each brick path (exists or creatable, empty, not on the root
filesystem, not a mount point, filesystem type, trusted xattrs, free space against the
planned size, no leftover volume-id), clock offset to this workstation. Clients: reachable,
authenticated, root or sudo, FUSE client (mount.glusterfs), fio, python3, tar, clock.
Each check is ok / warn / fail with one sentence. Only read-only commands run, except the
trusted-xattr probe, which sets and removes one test attribute (on a temporary directory
when the brick does not exist yet).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Callable

from ..core.topology import Topology
from ..core.units import format_bytes
from .executor import Executor, ExecutorError
from .hostkeys import HostKeyError, host_key_json
from .mountstate import is_mount_of, mounted_at
from .ssh import AuthenticationFailed, Unreachable
from ..core import gluster_xml
from . import glusterstate

OK, WARN, FAIL = "ok", "warn", "fail"
CLOCK_WARN_SECONDS = 1.0
CLOCK_FAIL_SECONDS = 30.0
SHORT_FAIL_FRACTION = 0.9  # a filesystem below this share of the planned size fails
USED_WARN_FREE = 0.9  # warn when less than this share of a brick's filesystem is free

# Facts about one brick path, as key=value lines. $1 path. Read-only apart from one test xattr.
BRICK_PROBE_SCRIPT = r'''
p="$1"
e="$p"; while [ ! -e "$e" ]; do e="$(dirname -- "$e")"; done
# an earlier probe killed mid-way may have left its empty test directory: only ours, only empty
for d in "$e"/.brickyard-preflight.*; do [ -d "$d" ] && rmdir -- "$d" 2>/dev/null; done
echo "existing=$e"
[ -d "$p" ] && echo "isdir=1" || echo "isdir=0"
[ -e "$p" ] && echo "exists=1" || echo "exists=0"
if [ -d "$p" ]; then echo "entries=$(ls -A -- "$p" | wc -l)"; fi
[ -w "$e" ] && echo "writable=1" || echo "writable=0"
mountpoint -q -- "$p" 2>/dev/null && echo "mountpoint=1" || echo "mountpoint=0"
echo "mount=$(findmnt -n -o TARGET --target "$e" | head -n1)"
echo "fstype=$(findmnt -n -o FSTYPE --target "$e" | head -n1)"
echo "source=$(findmnt -n -o SOURCE --target "$e" | head -n1)"
echo "rootsource=$(findmnt -n -o SOURCE --target / | head -n1)"
echo "avail=$(df -P -B1 -- "$e" | awk 'NR==2 {print $4}')"
echo "size=$(df -P -B1 -- "$e" | awk 'NR==2 {print $2}')"
# free blocks x block size, as glusterd reports sizeFree (root's reserve included)
# (the shell's 64-bit arithmetic: mawk, Debian's awk, prints 4e+09 for a product past 2^31)
# (nothing when stat says nothing: the shell would count empty as 0 and call the brick full)
echo "bfree=$(stat -f -c '%f %S' -- "$e" | { read -r f s && [ -n "$s" ] && echo $((f * s)); })"
if [ -e "$p" ] && [ ! -d "$p" ]; then
  echo "xattr=skipped"
elif command -v setfattr >/dev/null 2>&1 && command -v getfattr >/dev/null 2>&1; then
  if [ -d "$p" ]; then
    getfattr --absolute-names -n trusted.glusterfs.volume-id -e hex -- "$p" >/dev/null 2>&1 && echo "volumeid=1" || echo "volumeid=0"
    t="$p"
  else
    t="$(mktemp -d "$e/.brickyard-preflight.XXXXXX" 2>/dev/null)" || t=""
    [ -n "$t" ] && trap 'rmdir -- "$t" 2>/dev/null' EXIT HUP INT TERM
  fi
  if [ -n "$t" ] && setfattr -n trusted.brickyard-preflight -v 1 -- "$t" 2>/dev/null \
     && getfattr --absolute-names -n trusted.brickyard-preflight -- "$t" >/dev/null 2>&1; then
    echo "xattr=1"
  else
    echo "xattr=0"
  fi
  [ -n "$t" ] && setfattr -x trusted.brickyard-preflight -- "$t" 2>/dev/null
  if [ -n "$t" ] && [ "$t" != "$p" ]; then rmdir -- "$t"; trap - EXIT HUP INT TERM; fi
else
  echo "xattr=missing-tools"
fi
exit 0
'''

# The thin-arbiter host of a replica 2 thin-arbiter 1 volume: gluster's thin-arbiter process
# (glusterfsd --volfile-id ta, as setup-thin-arbiter.sh starts it) and the directory it serves,
# and whether glusterd runs there too (both want port 24007). Read-only.
THIN_ARBITER_PROBE_SCRIPT = r'''
line="$(ps -eo args= | grep -E -- '--volfile-id ta( |$)' | head -n1)"
if [ -n "$line" ]; then
  echo "process=1"
  f="$(printf '%s\n' "$line" | sed -n 's/.* -f \([^ ]*\).*/\1/p')"
  [ -n "$f" ] && [ -r "$f" ] && echo "directory=$(sed -n 's/^ *option directory *//p' "$f" | head -n1)"
else
  echo "process=0"
fi
if ps -eo comm= | grep -qx glusterd; then echo "glusterd=1"; else echo "glusterd=0"; fi
'''

TOOLS_SCRIPT = r'''
PATH="$PATH:/usr/sbin:/sbin"
for t in "$@"; do
  if command -v "$t" >/dev/null 2>&1; then echo "$t=1"; else echo "$t=0"; fi
done
'''


@dataclass
class Check:
    name: str
    status: str
    message: str

    def to_json(self) -> dict:
        return {"check": self.name, "status": self.status, "message": self.message}


@dataclass
class HostChecks:
    host: str
    role: str  # "server" or "client"
    checks: list[Check] = field(default_factory=list)
    host_key_error: HostKeyError | None = None  # an unknown or changed key stopped the checks
    # brick path -> (its filesystem's size, free bytes there now), for the plan's "free now"
    measured: dict[str, tuple[int, int]] = field(default_factory=dict)

    def add(self, name: str, status: str, message: str) -> None:
        self.checks.append(Check(name, status, message))

    @property
    def status(self) -> str:
        states = {c.status for c in self.checks}
        return FAIL if FAIL in states else WARN if WARN in states else OK

    def to_json(self) -> dict:
        doc = {"host": self.host, "role": self.role, "status": self.status,
               "checks": [c.to_json() for c in self.checks]}
        if self.host_key_error is not None:
            doc["host_key"] = host_key_json(self.host_key_error)
        return doc


@dataclass
class PreflightReport:
    hosts: list[HostChecks]
    finished: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    @property
    def ok(self) -> bool:
        return all(h.status != FAIL for h in self.hosts)

    def free_space(self) -> list[tuple[str, str, int]]:
        """(node, brick path, free bytes on its filesystem) for every brick measured."""
        return [(h.host, path, free) for h in self.hosts for path, (_, free) in h.measured.items()]

    def to_json(self) -> dict:
        return {"ok": self.ok, "hosts": [h.to_json() for h in self.hosts], "finished": self.finished,
                "free_space": [{"node": n, "path": path, "free_bytes": free} for n, path, free in self.free_space()]}

    def text(self) -> str:
        lines = []
        for h in self.hosts:
            lines.append(f"{h.host} ({h.role}): {h.status.upper()}")
            for c in h.checks:
                lines.append(f"  [{c.status:4}] {c.name}: {c.message}")
        return "\n".join(lines)


def _kv(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


async def _access(ex: Executor, hc: HostChecks) -> bool:
    """reachable, authenticated, root or sudo; False when nothing more can be checked."""
    try:
        result = await ex.run(["id", "-u"], timeout=30)
    except HostKeyError as exc:
        hc.add("reachable", FAIL, str(exc))
        hc.host_key_error = exc
        return False
    except AuthenticationFailed as exc:
        hc.add("reachable", OK, "the SSH server answers")
        hc.add("authenticated", FAIL, str(exc))
        return False
    except (Unreachable, ExecutorError) as exc:
        hc.add("reachable", FAIL, str(exc))
        return False
    hc.add("reachable", OK, "the SSH server answers")
    hc.add("authenticated", OK, "logged in")
    if result.text.strip() == "0":
        hc.add("root or sudo", OK, "logged in as root")
        return True
    sudo = await ex.run(["sudo", "-n", "true"], timeout=30)
    if sudo.ok:
        hc.add("root or sudo", OK, f"uid {result.text.strip()} with passwordless sudo")
        return True
    if sudo.exit_status == 127:
        why = "sudo is not installed"
    else:
        said = sudo.stderr.decode(errors="replace").strip().splitlines()
        why = f"`sudo -n true` fails: {said[-1][:200] if said else f'exit status {sudo.exit_status}'}"
    hc.add("root or sudo", FAIL, f"logged in as uid {result.text.strip()}, not root, and {why}; gluster and "
                                 "mount need root (allow this user passwordless sudo or log in as root)")
    return False


async def _clock(ex: Executor, hc: HostChecks) -> None:
    before = time.time()
    result = await ex.run(["date", "+%s.%N"], timeout=30)
    after = time.time()
    try:
        remote = float(result.text.strip())
    except ValueError:
        hc.add("clock", WARN, f"cannot read the clock: {result.text.strip()[:60]!r}")
        return
    offset = remote - (before + after) / 2
    slack = (after - before) / 2
    text = f"{offset:+.3f} s from this workstation (±{slack:.3f} s)"
    if abs(offset) > CLOCK_FAIL_SECONDS:
        hc.add("clock", FAIL, text + "; benchmark timings and logs would not line up: fix NTP")
    elif abs(offset) > CLOCK_WARN_SECONDS + slack:
        hc.add("clock", WARN, text + "; run NTP (chrony/systemd-timesyncd) on every host")
    else:
        hc.add("clock", OK, text)


async def _gluster(ex: Executor, hc: HostChecks, planned: set[str]) -> bool:
    """gluster installed, glusterd answering, and the pool it is in; False when glusterd is down.

    ``planned``: every name and address of the topology's other servers."""
    # through sudo like every gluster command: a non-root login's PATH has no /usr/sbin
    version = await ex.run(["gluster", "--version"], sudo=True, timeout=30)
    if not version.ok:
        hc.add("gluster", FAIL, "gluster is not installed (Debian: apt install glusterfs-server)")
        return False
    first = version.text.strip().splitlines()[0] if version.text.strip() else "unknown version"
    hc.add("gluster", OK, first)
    try:
        xml = await glusterstate.gluster_xml_output(ex, "peer", "status")
        peers = gluster_xml.parse_peer_status(xml)
    except (ExecutorError, gluster_xml.GlusterXMLError) as exc:
        hc.add("glusterd", FAIL, f"glusterd does not answer: {exc} (start it: systemctl start glusterd)")
        return False
    hc.add("glusterd", OK, "glusterd answers")
    strangers = [p.hostname for p in peers if not planned.intersection(p.hostnames)]
    members = [p.hostname for p in peers if planned.intersection(p.hostnames)]
    down = [p.hostname for p in peers if not p.connected]
    if down:
        hc.add("peers", WARN, f"peers not connected: {', '.join(down)}")
    elif strangers:
        hc.add("peers", WARN, f"already in a pool with hosts outside this topology ({', '.join(strangers)}); "
                              "provisioning would put the volume into that pool")
    elif members:
        hc.add("peers", OK, f"in a pool with {', '.join(members)}")
    else:
        hc.add("peers", OK, "not in a pool yet (provisioning probes the peers)")
    return True


@dataclass
class PlannedBrick:
    """One brick pre-flight looks at: its path, planned size and the filesystem it shares."""

    path: str
    size: int
    filesystem: str = ""  # bricks of one node with the same value share one filesystem's space


@dataclass
class ServerContext:
    """What every brick check of one server needs besides the path."""

    volume: str | None = None  # the volume being checked, when pre-flight is for one volume
    force: bool | None = None  # that volume's force flag (None: no volume chosen)
    planned: dict[str, str] = field(default_factory=dict)  # brick path on this node -> its planned volume
    live_bricks: dict[str, str] = field(default_factory=dict)  # brick path on this node -> its volume
    fs_need: dict[str, dict[str, int]] = field(default_factory=dict)  # mount -> filesystem key -> size


def _inside(path: str, other: str) -> bool:
    return path != other and path.startswith(other.rstrip("/") + "/")


async def _live_bricks(ex: Executor, names: set[str]) -> dict[str, str]:
    """Brick path -> volume for the bricks glusterd already serves on this node ({} if unknown)."""
    try:
        xml = await glusterstate.gluster_xml_output(ex, "volume", "info", "all")
        infos = gluster_xml.parse_volume_info(xml)
    except (ExecutorError, gluster_xml.GlusterXMLError):
        return {}  # no volumes yet ("No volumes present"), or glusterd down: reported elsewhere
    return {b.ref.path: v.name for v in infos for b in v.bricks if b.ref.node in names}


def _needs_force(ctx: ServerContext, what: str) -> tuple[str, str]:
    if ctx.force is None:
        return WARN, f"{what}; gluster refuses it without force"
    if ctx.force:
        return WARN, f"{what}; accepted only because volume {ctx.volume} sets force"
    return FAIL, f"{what}; gluster refuses it unless the volume sets force (volume {ctx.volume} does not)"


async def _brick(ex: Executor, hc: HostChecks, brick: PlannedBrick, ctx: ServerContext) -> None:
    path = brick.path
    label = f"brick {path}"
    result = await ex.run(["sh", "-c", BRICK_PROBE_SCRIPT, "sh", path], sudo=True, timeout=60)
    if not result.ok:
        hc.add(label, FAIL, f"cannot inspect the path: {result.stderr.decode(errors='replace').strip()[:200]}")
        return
    f = _kv(result.text)
    problems: list[tuple[str, str]] = []
    serving = ctx.live_bricks.get(path)
    ours = serving is not None and serving == ctx.planned.get(path)  # the topology puts it there
    for live, volume in ctx.live_bricks.items():
        if _inside(path, live):
            problems.append((FAIL, f"lies inside {live}, a brick of volume {volume}"))
        elif _inside(live, path):
            problems.append((FAIL, f"contains {live}, a brick of volume {volume}"))
    if serving is not None and not ours:
        problems.append((FAIL, f"is already a brick of volume {serving}"))
    if f.get("exists") == "1" and f.get("isdir") != "1":
        problems.append((FAIL, "exists and is not a directory"))
    elif f.get("exists") == "1" and not ours:
        entries = int(f.get("entries", "0") or 0)
        if entries:
            problems.append((WARN, f"exists and is not empty ({entries} entr{'y' if entries == 1 else 'ies'}); "
                                   "gluster serves what is there"))
    elif f.get("exists") != "1" and f.get("writable") != "1":
        problems.append((FAIL, f"does not exist and {f.get('existing')} is not writable"))
    if f.get("volumeid") == "1" and serving is None:
        problems.append((FAIL, "carries trusted.glusterfs.volume-id from an earlier volume; gluster refuses it "
                               "('is already part of a volume')"))
    if f.get("mountpoint") == "1":
        problems.append(_needs_force(ctx, "is a mount point (use a directory below it)"))
    if f.get("source") and f.get("source") == f.get("rootsource"):
        problems.append(_needs_force(ctx, "lies on the root filesystem"))
    if f.get("xattr") == "0":
        problems.append((FAIL, f"{f.get('fstype') or 'this filesystem'} does not take trusted.* xattrs; gluster needs them"))
    elif f.get("xattr") == "missing-tools":
        problems.append((WARN, "setfattr/getfattr are not installed (package attr); trusted xattrs not checked"))
    fstype = f.get("fstype", "")
    if fstype and fstype not in ("xfs", "ext4", "btrfs", "zfs"):
        problems.append((WARN, f"filesystem {fstype}; gluster is tested on XFS (mkfs.xfs -i size=512)"))
    avail = int(f.get("avail", "0") or 0)
    total = int(f.get("size", "0") or 0)
    mount = f.get("mount", "")
    if total:
        free = f.get("bfree", "")
        hc.measured[path] = (total, int(free) if free.isdigit() else avail)
    # a brick's capacity is its filesystem's size (what gluster and the client's df count);
    # bricks declared to share a filesystem count it once
    shares = ctx.fs_need.setdefault(mount, {})
    key = brick.filesystem or path
    shares[key] = max(shares.get(key, 0), brick.size)
    wanted = sum(shares.values())
    if brick.size and total and wanted > total * 1.01:
        several = " (this and earlier bricks there, on separate filesystems in the plan)" if len(shares) > 1 else ""
        problems.append((FAIL if total < SHORT_FAIL_FRACTION * wanted else WARN,
                         f"planned {format_bytes(wanted)} on {mount}{several} but that filesystem holds "
                         f"{format_bytes(total)}; the volume will be smaller than planned"))
    elif total and not ours and avail < USED_WARN_FREE * total:
        problems.append((WARN, f"{mount} is already {100 - 100 * avail // total}% used ({format_bytes(avail)} "
                               f"free of {format_bytes(total)}); the volume starts with that much less free space"))
    where = f"on {fstype or '?'} at {mount or '?'}, {format_bytes(avail)} free of {format_bytes(total)}"
    if not problems:
        if ours:
            state = f"already a brick of volume {serving} (provisioning skips it)"
        else:
            state = "exists, empty" if f.get("exists") == "1" else "can be created"
        xattrs = "; trusted xattrs work" if f.get("xattr") == "1" else ""
        hc.add(label, OK, f"{state}; {where}{xattrs}")
        return
    worst = FAIL if any(s == FAIL for s, _ in problems) else WARN
    hc.add(label, worst, "; ".join(m for _, m in problems) + f" ({where})")


async def _client_tools(ex: Executor, hc: HostChecks) -> None:
    result = await ex.run(["sh", "-c", TOOLS_SCRIPT, "sh", "mount.glusterfs", "fio", "python3", "tar"], timeout=30)
    have = _kv(result.text)
    if have.get("mount.glusterfs") == "1":
        hc.add("FUSE client", OK, "mount.glusterfs is installed")
    else:
        hc.add("FUSE client", FAIL, "mount.glusterfs is missing (Debian: apt install glusterfs-client)")
    for tool, why in (("fio", "block benchmarks"), ("python3", "the benchmark agent"), ("tar", "unpacking workloads")):
        if have.get(tool) == "1":
            hc.add(tool, OK, f"{tool} is installed")
        else:
            hc.add(tool, WARN, f"{tool} is missing; needed for {why}")


async def check_server(ex: Executor, name: str, bricks: list[PlannedBrick], peers: set[str],
                       ctx: ServerContext | None = None, names: set[str] | None = None) -> HostChecks:
    """``peers``: the names and addresses of the topology's other servers; ``names``: this node's."""
    hc = HostChecks(name, "server")
    ctx = ctx or ServerContext()
    if await _access(ex, hc):
        if await _gluster(ex, hc, set(peers) - (names or {name})):
            ctx.live_bricks = await _live_bricks(ex, names or {name})
        for brick in bricks:
            await _brick(ex, hc, brick, ctx)
        await _clock(ex, hc)
    return hc


async def check_client(ex: Executor, name: str) -> HostChecks:
    hc = HostChecks(name, "client")
    if await _access(ex, hc):
        await _client_tools(ex, hc)
        await _clock(ex, hc)
    return hc


def _thin_arbiters(topo: Topology, volume_name: str | None) -> dict[str, set[str]]:
    """Thin-arbiter host -> the thin-arbiter paths it must serve (one volume's, or every one's)."""
    volumes = [topo.require_volume(volume_name)] if volume_name else topo.volumes
    out: dict[str, set[str]] = {}
    for v in volumes:
        if v.thin_arbiter_brick is not None and v.layout.thin_arbiter:
            out.setdefault(v.thin_arbiter_brick.node, set()).add(v.thin_arbiter_brick.path)
    return out


def preflight_hosts(topo: Topology, volume_name: str | None = None) -> list[tuple[str, str]]:
    """(host, role) in the order pre-flight reports them: servers, thin-arbiter hosts, clients.
    A node that holds only thin-arbiter bricks is no server: it must not run glusterd."""
    thin = _thin_arbiters(topo, volume_name)
    if volume_name:
        volume = topo.require_volume(volume_name)
        servers = list(dict.fromkeys(r.node for r in volume.bricks))
        clients = list(dict.fromkeys(m.client for m in volume.mounts))
    else:
        data = {r.node for v in topo.volumes for r in v.bricks}
        servers = [n.name for n in topo.nodes if n.name in data or n.name not in thin]
        clients = [c.name for c in topo.clients]
    return ([(s, "server") for s in servers] + [(t, "thin-arbiter") for t in thin if t not in servers]
            + [(c, "client") for c in clients])


async def check_thin_arbiter(ex: Executor, name: str, paths: set[str]) -> HostChecks:
    """The thin-arbiter process runs and serves the volume's thin-arbiter path; no glusterd."""
    hc = HostChecks(name, "thin-arbiter")
    if not await _access(ex, hc):
        return hc
    f = _kv((await ex.run(["sh", "-c", THIN_ARBITER_PROBE_SCRIPT], sudo=True, timeout=30)).text)
    setup = ("run /usr/share/glusterfs/scripts/setup-thin-arbiter.sh -s there and give it the path "
             f"{' or '.join(sorted(paths))} (it starts gluster-ta-volume.service)")
    if f.get("glusterd") == "1":
        hc.add("thin-arbiter", FAIL, "glusterd runs here and holds port 24007, which the thin-arbiter process needs: "
                                     "clients would never reach a thin-arbiter here; use a host outside the pool")
    elif f.get("process") != "1":
        hc.add("thin-arbiter", FAIL, f"no thin-arbiter process runs here: {setup}")
    elif f.get("directory") and f["directory"] not in paths:
        hc.add("thin-arbiter", FAIL, f"the thin-arbiter process serves {f['directory']}, not "
                                     f"{' or '.join(sorted(paths))}: the volume's thin-arbiter brick must name "
                                     "the path it serves (one per host)")
    else:
        served = f.get("directory") or "its directory"
        hc.add("thin-arbiter", OK, f"the thin-arbiter process runs and serves {served}")
    await _clock(ex, hc)
    return hc


async def preflight(topo: Topology, executor_for: Callable[[str], Executor], volume_name: str | None = None,
                    on_host: Callable[[HostChecks], None] | None = None) -> PreflightReport:
    """Check every node and client (or only those a volume uses), all hosts at once.

    ``on_host`` is called (on the loop thread) with each host's checks as soon as they are done,
    so a view can fill in row by row; the report keeps the order of ``preflight_hosts``.
    """
    force: bool | None = None
    if volume_name:
        volume = topo.require_volume(volume_name)
        force = volume.force
        servers = list(dict.fromkeys(r.node for r in volume.bricks))
        bricks = {n: [_planned(topo, r) for r in volume.bricks if r.node == n] for n in servers}
        clients = list(dict.fromkeys(m.client for m in volume.mounts))
    else:
        servers = [h for h, role in preflight_hosts(topo) if role == "server"]
        bricks = {n.name: [PlannedBrick(b.path, b.size_bytes, b.filesystem) for b in n.bricks] for n in topo.nodes}
        clients = [c.name for c in topo.clients]
    thin = {h: paths for h, paths in _thin_arbiters(topo, volume_name).items() if h not in servers}

    def names(node: str) -> set[str]:
        found = topo.node(node)
        return {node, found.address} - {""} if found else {node}

    every_server = set().union(*(names(n.name) for n in topo.nodes)) if topo.nodes else set()

    async def safe(make, name: str, role: str) -> HostChecks:
        try:
            hc = await make()
        except ExecutorError as exc:  # a host that fails half-way still gets its line
            hc = HostChecks(name, role)
            hc.add("reachable", FAIL, str(exc))
        if on_host is not None:
            on_host(hc)
        return hc

    def context(node: str) -> ServerContext:
        planned = {r.path: v.name for v in topo.volumes for r in v.bricks if r.node == node}
        return ServerContext(volume_name, force, planned)

    jobs = [safe(lambda n=n: check_server(executor_for(n), n, bricks.get(n, []), every_server,
                                          context(n), names(n)), n, "server")
            for n in servers]
    jobs += [safe(lambda t=t: check_thin_arbiter(executor_for(t), t, thin[t]), t, "thin-arbiter") for t in thin]
    jobs += [safe(lambda c=c: check_client(executor_for(c), c), c, "client") for c in clients]
    return PreflightReport(list(await asyncio.gather(*jobs)))


def _planned(topo: Topology, ref) -> PlannedBrick:
    brick = topo.brick(ref)
    return PlannedBrick(ref.path, brick.size_bytes, brick.filesystem) if brick else PlannedBrick(ref.path, 0)


# The free bytes under each brick path ($@, in order), one number a line, as the brick probe
# measures them (free blocks x block size of the filesystem the path is, or will be, on).
FREE_SCRIPT = r'''
for p in "$@"; do
  e="$p"; while [ ! -e "$e" ]; do e="$(dirname -- "$e")"; done
  stat -f -c '%f %S' -- "$e" | { read -r f s && [ -n "$s" ] && echo $((f * s)) || echo '?'; }
done
'''
#: a re-check fails a brick whose filesystem has less than this share of the free space the
#: full pre-flight measured (something else filled it since)
RECHECK_FREE_SHARE = 0.5


async def recheck(topo: Topology, executor_for: Callable[[str], Executor], volume_name: str,
                  free_before: dict[tuple[str, str], int]) -> PreflightReport:
    """What can change in the minutes after a full pre-flight passed on the same hosts and
    bricks (a campaign's next layout): each host still answers, each brick's filesystem kept
    at least half the free space measured then (``free_before``: (node, path) -> bytes), and
    nothing else is mounted on the volume's mount points. One command per server and per
    mount, every host at once; read-only."""
    volume = topo.require_volume(volume_name)
    servers = list(dict.fromkeys(r.node for r in volume.bricks))
    clients = list(dict.fromkeys(m.client for m in volume.mounts))

    async def reach(hc: HostChecks, make) -> None:
        try:
            await make()
        except HostKeyError as exc:
            hc.add("reachable", FAIL, str(exc))
            hc.host_key_error = exc
        except (ExecutorError, OSError) as exc:
            hc.add("reachable", FAIL, str(exc))

    async def server(node: str) -> HostChecks:
        hc = HostChecks(node, "server")
        paths = [r.path for r in volume.bricks if r.node == node]

        async def run() -> None:
            result = await executor_for(node).run(["sh", "-c", FREE_SCRIPT, "sh", *paths], sudo=True, timeout=60)
            hc.add("reachable", OK, "answers")
            numbers = result.text.split()
            if not result.ok or len(numbers) != len(paths) or not all(n.isdigit() for n in numbers):
                hc.add("free space", FAIL, f"cannot read the free space under {', '.join(paths)}: "
                                           f"{(result.stderr or result.stdout).decode(errors='replace').strip()[:200]}")
                return
            for path, free in zip(paths, map(int, numbers)):
                hc.measured[path] = (0, free)
                before = free_before.get((node, path))
                text = f"{format_bytes(free)} free under {path}"
                if before and free < RECHECK_FREE_SHARE * before:
                    hc.add(f"brick {path}", FAIL, f"{text}, {format_bytes(before)} at the pre-flight: something "
                                                  "else is filling that filesystem")
                else:
                    hc.add(f"brick {path}", OK, text + (f" ({format_bytes(before)} at the pre-flight)" if before else ""))

        await reach(hc, run)
        return hc

    async def client(name: str) -> HostChecks:
        hc = HostChecks(name, "client")

        async def run() -> None:
            ex = executor_for(name)
            answered = False
            for mount in (m for m in volume.mounts if m.client == name):
                found = await mounted_at(ex, mount.path)
                if not answered:
                    hc.add("reachable", OK, "answers")
                    answered = True
                if found is None:
                    hc.add(f"mount point {mount.path}", OK, "nothing mounted there")
                elif is_mount_of(found, volume.name, mount.path):
                    hc.add(f"mount point {mount.path}", OK, f"{volume.name} is mounted there already")
                else:
                    hc.add(f"mount point {mount.path}", FAIL, f"{found.describe()} is mounted there")

        await reach(hc, run)
        return hc

    return PreflightReport(list(await asyncio.gather(*(server(n) for n in servers), *(client(c) for c in clients))))
