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
from .hostkeys import HostKeyError
from .ssh import AuthenticationFailed, Unreachable
from . import glusterstate

OK, WARN, FAIL = "ok", "warn", "fail"
CLOCK_WARN_SECONDS = 1.0
CLOCK_FAIL_SECONDS = 30.0
SHORT_FAIL_FRACTION = 0.9  # free space below this share of the planned size fails

# Facts about one brick path, as key=value lines. $1 path. Read-only apart from one test xattr.
BRICK_PROBE_SCRIPT = r'''
p="$1"
e="$p"; while [ ! -e "$e" ]; do e="$(dirname -- "$e")"; done
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
if command -v setfattr >/dev/null 2>&1 && command -v getfattr >/dev/null 2>&1; then
  if [ -d "$p" ]; then
    getfattr --absolute-names -n trusted.glusterfs.volume-id -e hex -- "$p" >/dev/null 2>&1 && echo "volumeid=1" || echo "volumeid=0"
    t="$p"
  else
    t="$(mktemp -d "$e/.brickyard-preflight.XXXXXX" 2>/dev/null)" || t=""
  fi
  if [ -n "$t" ] && setfattr -n trusted.brickyard-preflight -v 1 -- "$t" 2>/dev/null \
     && getfattr --absolute-names -n trusted.brickyard-preflight -- "$t" >/dev/null 2>&1; then
    echo "xattr=1"
  else
    echo "xattr=0"
  fi
  [ -n "$t" ] && setfattr -x trusted.brickyard-preflight -- "$t" 2>/dev/null
  if [ -n "$t" ] && [ "$t" != "$p" ]; then rmdir -- "$t"; fi
else
  echo "xattr=missing-tools"
fi
exit 0
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

    def add(self, name: str, status: str, message: str) -> None:
        self.checks.append(Check(name, status, message))

    @property
    def status(self) -> str:
        states = {c.status for c in self.checks}
        return FAIL if FAIL in states else WARN if WARN in states else OK

    def to_json(self) -> dict:
        return {"host": self.host, "role": self.role, "status": self.status,
                "checks": [c.to_json() for c in self.checks]}


@dataclass
class PreflightReport:
    hosts: list[HostChecks]

    @property
    def ok(self) -> bool:
        return all(h.status != FAIL for h in self.hosts)

    def to_json(self) -> dict:
        return {"ok": self.ok, "hosts": [h.to_json() for h in self.hosts]}

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


async def _gluster(ex: Executor, hc: HostChecks, planned_peers: list[str]) -> None:
    # through sudo like every gluster command: a non-root login's PATH has no /usr/sbin
    version = await ex.run(["gluster", "--version"], sudo=True, timeout=30)
    if not version.ok:
        hc.add("gluster", FAIL, "gluster is not installed (Debian: apt install glusterfs-server)")
        return
    first = version.text.strip().splitlines()[0] if version.text.strip() else "unknown version"
    hc.add("gluster", OK, first)
    try:
        peers = await glusterstate.live_peers(ex)
    except ExecutorError as exc:
        hc.add("glusterd", FAIL, f"glusterd does not answer: {exc} (start it: systemctl start glusterd)")
        return
    hc.add("glusterd", OK, "glusterd answers")
    known = sorted(peers)
    strangers = [n for n in known if n not in planned_peers]
    in_pool = [n for n in planned_peers if peers.get(n, (False, ""))[1] == glusterstate.PEER_IN_CLUSTER]
    down = [n for n in known if not peers[n][0]]
    if down:
        hc.add("peers", WARN, f"peers not connected: {', '.join(down)}")
    elif strangers:
        hc.add("peers", WARN, f"already in a pool with hosts outside this topology ({', '.join(strangers)}); "
                              "gluster will refuse to probe a node that belongs to another pool")
    elif known:
        hc.add("peers", OK, f"in a pool with {', '.join(in_pool) or ', '.join(known)}")
    else:
        hc.add("peers", OK, "not in a pool yet (provisioning probes the peers)")


async def _brick(ex: Executor, hc: HostChecks, path: str, need: int, fs_need: dict[str, int]) -> None:
    label = f"brick {path}"
    result = await ex.run(["sh", "-c", BRICK_PROBE_SCRIPT, "sh", path], sudo=True, timeout=60)
    if not result.ok:
        hc.add(label, FAIL, f"cannot inspect the path: {result.stderr.decode(errors='replace').strip()[:200]}")
        return
    f = _kv(result.text)
    problems: list[tuple[str, str]] = []
    if f.get("exists") == "1" and f.get("isdir") != "1":
        problems.append((FAIL, "exists and is not a directory"))
    elif f.get("exists") == "1":
        entries = int(f.get("entries", "0") or 0)
        if entries:
            problems.append((WARN, f"exists and is not empty ({entries} entries); gluster serves what is there"))
    elif f.get("writable") != "1":
        problems.append((FAIL, f"does not exist and {f.get('existing')} is not writable"))
    if f.get("volumeid") == "1":
        problems.append((FAIL, "carries trusted.glusterfs.volume-id from an earlier volume; gluster refuses it "
                               "('is already part of a volume')"))
    if f.get("mountpoint") == "1":
        problems.append((WARN, "is a mount point; gluster refuses it without force — use a directory below it"))
    if f.get("source") and f.get("source") == f.get("rootsource"):
        problems.append((WARN, "lies on the root filesystem; gluster refuses it without force"))
    if f.get("xattr") == "0":
        problems.append((FAIL, f"{f.get('fstype') or 'this filesystem'} does not take trusted.* xattrs; gluster needs them"))
    elif f.get("xattr") == "missing-tools":
        problems.append((WARN, "setfattr/getfattr are not installed (package attr); trusted xattrs not checked"))
    fstype = f.get("fstype", "")
    if fstype and fstype not in ("xfs", "ext4", "btrfs", "zfs"):
        problems.append((WARN, f"filesystem {fstype}; gluster is tested on XFS (mkfs.xfs -i size=512)"))
    avail = int(f.get("avail", "0") or 0)
    mount = f.get("mount", "")
    fs_need[mount] = fs_need.get(mount, 0) + need
    wanted = fs_need[mount]
    if need and wanted > avail:
        # a fresh filesystem never shows its whole size free (journal, metadata): a few per
        # cent short only means the brick holds a little less than planned
        problems.append((FAIL if avail < SHORT_FAIL_FRACTION * wanted else WARN,
                         f"planned {format_bytes(wanted)} on {mount} (this and earlier bricks there) "
                         f"but {format_bytes(avail)} is free"))
    where = f"on {fstype or '?'} at {mount or '?'}, {format_bytes(avail)} free"
    if not problems:
        state = "exists, empty" if f.get("exists") == "1" else "can be created"
        hc.add(label, OK, f"{state}; {where}; trusted xattrs work")
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


async def check_server(ex: Executor, name: str, bricks: list[tuple[str, int]], peers: list[str]) -> HostChecks:
    hc = HostChecks(name, "server")
    if await _access(ex, hc):
        await _gluster(ex, hc, [p for p in peers if p != name])
        fs_need: dict[str, int] = {}
        for path, size in bricks:
            await _brick(ex, hc, path, size, fs_need)
        await _clock(ex, hc)
    return hc


async def check_client(ex: Executor, name: str) -> HostChecks:
    hc = HostChecks(name, "client")
    if await _access(ex, hc):
        await _client_tools(ex, hc)
        await _clock(ex, hc)
    return hc


def preflight_hosts(topo: Topology, volume_name: str | None = None) -> list[tuple[str, str]]:
    """(host, role) in the order pre-flight reports them: servers, then clients."""
    if volume_name:
        volume = topo.require_volume(volume_name)
        servers = list(dict.fromkeys(r.node for r in volume.bricks))
        clients = list(dict.fromkeys(m.client for m in volume.mounts))
    else:
        servers = [n.name for n in topo.nodes]
        clients = [c.name for c in topo.clients]
    return [(s, "server") for s in servers] + [(c, "client") for c in clients]


async def preflight(topo: Topology, executor_for: Callable[[str], Executor], volume_name: str | None = None,
                    on_host: Callable[[HostChecks], None] | None = None) -> PreflightReport:
    """Check every node and client (or only those a volume uses), all hosts at once.

    ``on_host`` is called (on the loop thread) with each host's checks as soon as they are done,
    so a view can fill in row by row; the report keeps the order of ``preflight_hosts``.
    """
    if volume_name:
        volume = topo.require_volume(volume_name)
        servers = list(dict.fromkeys(r.node for r in volume.bricks))
        bricks = {n: [(r.path, _size(topo, r)) for r in volume.bricks if r.node == n] for n in servers}
        clients = list(dict.fromkeys(m.client for m in volume.mounts))
    else:
        servers = [n.name for n in topo.nodes]
        bricks = {n.name: [(b.path, b.size_bytes) for b in n.bricks] for n in topo.nodes}
        clients = [c.name for c in topo.clients]

    async def safe(make, name: str, role: str) -> HostChecks:
        try:
            hc = await make()
        except ExecutorError as exc:  # a host that fails half-way still gets its line
            hc = HostChecks(name, role)
            hc.add("reachable", FAIL, str(exc))
        if on_host is not None:
            on_host(hc)
        return hc

    jobs = [safe(lambda n=n: check_server(executor_for(n), n, bricks.get(n, []), servers), n, "server") for n in servers]
    jobs += [safe(lambda c=c: check_client(executor_for(c), c), c, "client") for c in clients]
    return PreflightReport(list(await asyncio.gather(*jobs)))


def _size(topo: Topology, ref) -> int:
    brick = topo.brick(ref)
    return brick.size_bytes if brick else 0
