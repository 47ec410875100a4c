"""What a lab is made of, decided before anything touches the machine.

``LabSpec`` is what the user asked for (``brickyard lab up 4 --clients 1 ...``); ``plan_lab``
turns it into names and addresses; the ``render_*`` functions produce the text of every file
the lab writes (sshd and ssh client configs, hosts, known_hosts, each node's init script).
Nothing here runs a command, so all of it is tested without root.

Layout of one lab, on the private /24 (default 10.77.0.0/24, only inside namespaces the lab
creates plus the bridge in the root namespace):

- bridge ``PREFIX-br`` holds ``.1``; server ``nodeI`` is ``.(10+I)``; ``clientI`` is ``.(100+I)``;
- each machine is network namespace ``PREFIX-NAME`` joined by a veth pair (``PREFIX-NAME`` on
  the bridge side, ``eth0`` inside);
- inside a machine: ``/srv/brickJ`` is an XFS filesystem (a preallocated image on a loop device),
  the gluster brick directory is ``/srv/brickJ/brick``; ``/srv/scratch`` is a directory on the
  lab folder's filesystem, the root filesystem by default (for "brick on the root filesystem"
  cases); ``/mnt`` is a private tmpfs for client mounts; ``/run`` and ``/tmp`` are private
  tmpfs; ``/root``, ``/var/tmp`` and ``/etc/fstab`` are per-machine copies in the lab folder,
  so what one machine writes there (an uploaded tool, an fstab line from provisioning) reaches
  neither the host nor another machine;
- a non-root admin account (``--admin-user``, default ``byadmin``) with the lab key and
  passwordless sudo exists only inside the machines: ``/etc/passwd``, ``/etc/shadow``,
  ``/etc/group``, ``/etc/sudoers``, ``/etc/sudoers.d`` and ``/home`` are per-machine copies
  too, so the host's own accounts and sudo rules are never touched. ``ssh -F ssh_config
  node1-admin`` logs in as that user (the path Brickyard takes with ``sudo -n`` for a
  topology whose ``ssh_user`` is not root).
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.units import format_bytes

DEFAULT_DIR = Path("/var/lib/brickyard-lab")
DEFAULT_SUBNET = "10.77.0.0/24"
DEFAULT_PREFIX = "bylab"
DEFAULT_BRICK_SIZE = 1 << 30
# mkfs.xfs (xfsprogs 6) refuses filesystems under 300 MB, and an image whose size is not a
# whole number of 512-byte sectors; 300 MiB clears both.
MIN_BRICK_SIZE = 300 << 20
BRICK_SIZE_ALIGN = 4096  # whole XFS blocks, so the image has no odd tail
DEFAULT_ADMIN_USER = "byadmin"
ADMIN_ALIAS_SUFFIX = "-admin"  # ssh_config host alias: node1-admin logs in as the admin
ADMIN_ID_START = 4200  # first uid/gid tried for the admin account (one free in the host's files)
ADMIN_SUDOERS = "brickyard-lab-admin"  # its file in each machine's private /etc/sudoers.d
MAX_NODES = 80
MAX_CLIENTS = 50
MAX_DELAY_MS = 1000
# Room left on the lab directory's filesystem beyond the brick images: logs, glusterd state.
HEADROOM_BYTES = 512 << 20
SSH_PORT = 22
BRICK_ROOT = "/srv"
SCRATCH_DIR = "/srv/scratch"
MOUNT_ROOT = "/mnt"
# Dirs that must already exist on this machine: the lab mounts private tmpfs over them.
PRIVATE_MOUNT_POINTS = ("/run", "/tmp", BRICK_ROOT, MOUNT_ROOT)
# Per-machine folders (in the lab folder) bound over these shared ones: name in MachinePlan.dir -> path.
PRIVATE_DIRS = {"home": "/root", "vartmp": "/var/tmp", "homes": "/home", "sudoers.d": "/etc/sudoers.d"}
PRIVATE_FILES = {"fstab": "/etc/fstab", "passwd": "/etc/passwd", "shadow": "/etc/shadow",
                 "group": "/etc/group", "sudoers": "/etc/sudoers"}
# Where each machine sees the lab folder (bind-mounted before /tmp is covered, so a lab
# folder under /tmp works too).
LAB_INSIDE = "/run/brickyard/lab"
GLUSTERD_DIR = "/var/lib/glusterd"
GLUSTER_LOG_DIR = "/var/log/glusterfs"

_PREFIX_RE = re.compile(r"^[a-z][a-z0-9]{0,5}$")
_USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,30}$")


class LabConfigError(ValueError):
    """A lab that cannot be built as asked: the message says which value and why."""


@dataclass(frozen=True)
class LabSpec:
    nodes: int
    clients: int = 1
    brick_size: int = DEFAULT_BRICK_SIZE
    bricks_per_node: int = 2
    directory: Path = DEFAULT_DIR
    subnet: str = DEFAULT_SUBNET
    prefix: str = DEFAULT_PREFIX
    # (machine name, delay in ms each way) or (name, ms towards it, ms from it): that
    # machine's link goes through lab.delay
    delays: tuple[tuple[str, float] | tuple[str, float, float], ...] = ()
    # the non-root account with passwordless sudo inside every machine
    admin_user: str = DEFAULT_ADMIN_USER


@dataclass(frozen=True)
class BrickPlan:
    index: int            # 1-based on its node
    image: Path           # preallocated XFS image in the lab dir
    mount: str            # mount point inside the node: /srv/brickJ
    path: str             # the gluster brick directory: /srv/brickJ/brick


@dataclass(frozen=True)
class MachinePlan:
    name: str             # host name inside the lab (node1, client1)
    role: str             # "server" or "client"
    address: str
    netns: str
    veth: str             # bridge-side end; the inside end is eth0
    dir: Path             # per-machine state: keys, configs, glusterd, logs
    bricks: tuple[BrickPlan, ...] = ()
    delay_ms: float = 0.0  # on frames towards it, added by a user-space forwarder
    delay_from_ms: float | None = None  # on frames from it (None: as ``delay_ms``)

    @property
    def delayed(self) -> bool:
        """Its link goes through the forwarder (0 both ways: a plain veth)."""
        return bool(self.delay_ms or self.delay_from_ms)

    @property
    def is_server(self) -> bool:
        return self.role == "server"


@dataclass(frozen=True)
class LabPlan:
    spec: LabSpec
    bridge: str
    bridge_address: str
    network: str
    machines: tuple[MachinePlan, ...] = field(default_factory=tuple)

    @property
    def servers(self) -> list[MachinePlan]:
        return [m for m in self.machines if m.is_server]

    @property
    def clients(self) -> list[MachinePlan]:
        return [m for m in self.machines if not m.is_server]

    @property
    def image_bytes(self) -> int:
        return len(self.servers) * self.spec.bricks_per_node * self.spec.brick_size

    def machine(self, name: str) -> MachinePlan:
        for m in self.machines:
            if m.name == name:
                return m
        raise KeyError(name)

    # files of the lab directory
    @property
    def ssh_config(self) -> Path:
        return self.spec.directory / "ssh_config"

    @property
    def known_hosts(self) -> Path:
        return self.spec.directory / "known_hosts"

    @property
    def client_key(self) -> Path:
        return self.spec.directory / "id_ed25519"

    @property
    def hosts_file(self) -> Path:
        return self.spec.directory / "hosts"

    @property
    def state_file(self) -> Path:
        return self.spec.directory / "lab.json"

    @property
    def topology_file(self) -> Path:
        return self.spec.directory / "topology.brickyard.json"

    @property
    def admin_topology_file(self) -> Path:
        """The same topology with ``ssh_user`` the admin account (commands go through sudo)."""
        return self.spec.directory / "topology-admin.brickyard.json"


def plan_lab(spec: LabSpec) -> LabPlan:
    """Check the spec and give every machine its name, address, namespace and files."""
    if not 1 <= spec.nodes <= MAX_NODES:
        raise LabConfigError(f"number of server nodes must be 1 to {MAX_NODES}, not {spec.nodes}")
    if not 0 <= spec.clients <= MAX_CLIENTS:
        raise LabConfigError(f"--clients must be 0 to {MAX_CLIENTS}, not {spec.clients}")
    if not 1 <= spec.bricks_per_node <= 8:
        raise LabConfigError(f"--bricks-per-node must be 1 to 8, not {spec.bricks_per_node}")
    if spec.brick_size < MIN_BRICK_SIZE:
        raise LabConfigError(
            f"--brick-size must be at least {format_bytes(MIN_BRICK_SIZE, binary=True)} (mkfs.xfs refuses "
            f"smaller filesystems), not {format_bytes(spec.brick_size, binary=True)}")
    if spec.brick_size % BRICK_SIZE_ALIGN:
        fit = spec.brick_size - spec.brick_size % BRICK_SIZE_ALIGN
        raise LabConfigError(
            f"--brick-size must be a whole number of 4 KiB blocks (mkfs.xfs refuses an image with a "
            f"partial block), not {spec.brick_size} bytes; {fit} would do")
    if not _USER_RE.match(spec.admin_user) or spec.admin_user == "root":
        raise LabConfigError(
            f"--admin-user must be a login name other than root (lower-case letters, digits, '_' "
            f"and '-', starting with a letter or '_', at most 31 characters), not {spec.admin_user!r}")
    if not _PREFIX_RE.match(spec.prefix):
        raise LabConfigError(
            f"--prefix must be 1-6 lower-case letters or digits starting with a letter "
            f"(it names network interfaces, which allow 15 characters), not {spec.prefix!r}")
    if not spec.directory.is_absolute():
        raise LabConfigError(f"--dir must be an absolute path, not {str(spec.directory)!r}")
    bad = sorted(set(str(spec.directory)) & set('"%\\\n\t'))
    if bad:
        raise LabConfigError(f"--dir must not contain {' '.join(repr(c) for c in bad)}: ssh_config "
                             f"cannot name such a path (write it without them)")
    for point in ("/run", BRICK_ROOT, MOUNT_ROOT):
        if spec.directory == Path(point) or Path(point) in spec.directory.parents:
            raise LabConfigError(f"--dir must not be under {point}: the lab covers {point} with a private "
                                 f"filesystem inside its machines")
    net = parse_subnet(spec.subnet)
    hosts = list(net.hosts())
    machines = []
    for i in range(1, spec.nodes + 1):
        name = f"node{i}"
        mdir = spec.directory / "machines" / name
        bricks = tuple(
            BrickPlan(j, spec.directory / "images" / f"{name}-brick{j}.xfs",
                      f"{BRICK_ROOT}/brick{j}", f"{BRICK_ROOT}/brick{j}/brick")
            for j in range(1, spec.bricks_per_node + 1))
        machines.append(MachinePlan(name, "server", str(hosts[9 + i]), f"{spec.prefix}-{name}",
                                    f"{spec.prefix}-{name}", mdir, bricks))
    for i in range(1, spec.clients + 1):
        name = f"client{i}"
        machines.append(MachinePlan(name, "client", str(hosts[99 + i]), f"{spec.prefix}-{name}",
                                    f"{spec.prefix}-{name}", spec.directory / "machines" / name))
    names = {m.name for m in machines}
    delays: dict[str, tuple[float, float | None]] = {}
    for name, *ms in spec.delays:
        if name not in names:
            raise LabConfigError(f"--delay names {name!r}, which is not a machine of this lab "
                                 f"({', '.join(sorted(names))})")
        to, back = float(ms[0]), (float(ms[1]) if len(ms) > 1 else None)
        shown = f"{name}={to:g}" + (f"/{back:g}" if back is not None else "")
        if back is None and not 0 < to <= MAX_DELAY_MS:
            raise LabConfigError(f"--delay {shown}: the delay must be more than 0 and at most {MAX_DELAY_MS} ms")
        if back is not None and not (0 <= to <= MAX_DELAY_MS and 0 <= back <= MAX_DELAY_MS and to + back > 0):
            raise LabConfigError(f"--delay {shown}: each direction from 0 to {MAX_DELAY_MS} ms, not both 0")
        delays[name] = (to, back)
    machines = [replace(m, delay_ms=delays[m.name][0], delay_from_ms=delays[m.name][1]) if m.name in delays else m
                for m in machines]
    return LabPlan(spec, f"{spec.prefix}-br", str(hosts[0]), str(net), tuple(machines))


def parse_delay(text: str) -> tuple[str, float] | tuple[str, float, float]:
    """``node4=25`` -> ("node4", 25.0): one machine and its delay in ms each way;
    ``client2=40/0`` -> ("client2", 40.0, 0.0): ms on frames towards it, then from it."""
    name, sep, ms = text.partition("=")
    try:
        values = [float(part.removesuffix("ms")) for part in ms.split("/")]
    except ValueError:
        values = []
    if not sep or not name or len(values) not in (1, 2):
        raise LabConfigError(f"--delay takes NAME=MS (each way) or NAME=TO/FROM (one-sided), e.g. node4=25 or "
                             f"client2=40/0, not {text!r}")
    return (name, values[0]) if len(values) == 1 else (name, values[0], values[1])


def parse_subnet(text: str) -> ipaddress.IPv4Network:
    try:
        net = ipaddress.IPv4Network(text, strict=True)
    except ValueError as exc:
        raise LabConfigError(f"--subnet {text!r} is not an IPv4 network such as 10.77.0.0/24: {exc}") from None
    if net.prefixlen != 24:
        raise LabConfigError(f"--subnet must be a /24, not /{net.prefixlen}")
    if not net.is_private or net.is_loopback or net.is_link_local:
        raise LabConfigError(f"--subnet must be a private range (10/8, 172.16/12, 192.168/16), not {net}")
    return net


def overlapping_routes(subnet: str, routes: list[dict]) -> list[str]:
    """Routes of this machine (``ip -j route`` entries) that overlap the lab's subnet,
    the default route aside: a lab there would hijack or shadow real traffic."""
    net = parse_subnet(subnet)
    found = []
    for route in routes:
        dst = route.get("dst", "")
        if dst in ("", "default"):
            continue
        try:
            other = ipaddress.ip_network(dst, strict=False)
        except ValueError:
            continue
        if other.version == 4 and other.overlaps(net):
            found.append(f"{dst} dev {route.get('dev', '?')}")
    return found


def space_shortfall(plan: LabPlan, free_bytes: int) -> str | None:
    """None when the brick images fit; otherwise the sentence to show the user."""
    need = plan.image_bytes + HEADROOM_BYTES
    if free_bytes >= need:
        return None
    count = len(plan.servers) * plan.spec.bricks_per_node
    return (f"not enough free disk for the lab: {count} brick images "
            f"({len(plan.servers)} nodes x {plan.spec.bricks_per_node} x {format_bytes(plan.spec.brick_size, binary=True)}) "
            f"need {format_bytes(plan.image_bytes, binary=True)} plus {format_bytes(HEADROOM_BYTES, binary=True)} headroom, "
            f"but {plan.spec.directory} has only {format_bytes(free_bytes, binary=True)} free; "
            f"use a smaller --brick-size, fewer --bricks-per-node or nodes, or another --dir")


# ---- rendered files ----------------------------------------------------------------------

def render_hosts(plan: LabPlan) -> str:
    lines = ["# Brickyard lab: bind-mounted over /etc/hosts inside every lab machine",
             "127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback",
             f"{plan.bridge_address}\tlab-host"]
    lines += [f"{m.address}\t{m.name}" for m in plan.machines]
    return "\n".join(lines) + "\n"


def inside(plan: LabPlan, path: Path) -> str:
    """``path`` (in the lab folder) as a lab machine sees it."""
    return f"{LAB_INSIDE}/{path.relative_to(plan.spec.directory)}"


def render_sshd_config(plan: LabPlan, machine: MachinePlan) -> str:
    return "\n".join([
        f"# Brickyard lab sshd for {machine.name}; started by its init inside the namespaces",
        f"ListenAddress {machine.address}:{SSH_PORT}",
        f"HostKey {inside(plan, machine.dir / 'ssh_host_ed25519_key')}",
        # the admin's: in its private home (sshd reads it as that user); root's: below (Match)
        "AuthorizedKeysFile .ssh/authorized_keys",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes yes",
        "UseDNS no",
        "PrintMotd no",
        "PrintLastLog no",
        "X11Forwarding no",
        "AllowTcpForwarding no",
        "MaxStartups 100:30:200",
        "MaxSessions 64",
        "PidFile /run/sshd.pid",
        "Subsystem sftp /usr/lib/openssh/sftp-server",
        # copied by the init onto the machine's private /run, so StrictModes holds
        "Match User root",
        "  AuthorizedKeysFile /run/brickyard/authorized_keys",
        "",
    ])


def admin_alias(name: str) -> str:
    """The ssh_config host that logs into machine ``name`` as the lab's admin account."""
    return f"{name}{ADMIN_ALIAS_SUFFIX}"


def render_ssh_config(plan: LabPlan) -> str:
    """Two blocks per machine, so ``ssh -F FILE node1`` (or ``--ssh-config FILE``) reaches
    it as root, and ``node1-admin`` as the non-root admin, both with the lab key and the
    machine's real host key checked strictly."""
    out = [f"# Brickyard lab: ssh -F THIS_FILE node1 (root), or node1{ADMIN_ALIAS_SUFFIX} "
           f"({plan.spec.admin_user}, passwordless sudo)", ""]
    for m, alias, user in [(m, f"{m.name} {m.address}", "root") for m in plan.machines] + \
                          [(m, admin_alias(m.name), plan.spec.admin_user) for m in plan.machines]:
        out += [
            f"Host {alias}",
            f"  HostName {m.address}",
            f"  Port {SSH_PORT}",
            f"  User {user}",
            f"  IdentityFile \"{plan.client_key}\"",
            "  IdentitiesOnly yes",
            f"  UserKnownHostsFile \"{plan.known_hosts}\"",
            "  GlobalKnownHostsFile /dev/null",
            "  StrictHostKeyChecking yes",
            "  HostKeyAlgorithms ssh-ed25519",
            "  BatchMode yes",
            "  ConnectTimeout 10",
            "",
        ]
    return "\n".join(out)


def render_known_hosts(plan: LabPlan, host_keys: dict[str, str]) -> str:
    """``host_keys`` maps machine name to its public key line ("ssh-ed25519 AAAA... comment")."""
    lines = []
    for m in plan.machines:
        kind, blob = host_keys[m.name].split()[:2]
        lines.append(f"{m.name},{m.address} {kind} {blob}")
    return "\n".join(lines) + "\n"


def free_account_id(passwd_text: str, group_text: str, start: int = ADMIN_ID_START) -> int:
    """The lowest id from ``start`` that no user of ``passwd_text`` and no group of
    ``group_text`` has, so the admin's uid and gid are the same number."""
    taken = set()
    for text in (passwd_text, group_text):
        for line in text.splitlines():
            fields = line.split(":")
            if len(fields) > 2 and fields[2].isdigit():
                taken.add(int(fields[2]))
    found = start
    while found in taken:
        found += 1
    return found


def account_names(passwd_text: str) -> set[str]:
    return {line.split(":", 1)[0] for line in passwd_text.splitlines() if ":" in line}


def add_admin_account(files: dict[str, str], user: str, uid: int) -> dict[str, str]:
    """The machine's passwd, shadow and group (``files`` holds the host's text under those
    keys) with the admin account added: its own group, a home under /home, bash, and the
    password field ``*`` (no password; sshd with ``UsePAM no`` refuses a locked ``!``)."""
    def line(text: str, entry: str) -> str:
        return (text if text.endswith("\n") or not text else text + "\n") + entry + "\n"

    return {
        "passwd": line(files["passwd"], f"{user}:x:{uid}:{uid}:Brickyard lab admin:/home/{user}:/bin/bash"),
        "shadow": line(files["shadow"], f"{user}:*:19000:0:99999:7:::"),
        "group": line(files["group"], f"{user}:x:{uid}:"),
    }


def render_sudoers(user: str) -> str:
    return f"# Brickyard lab: the admin account runs anything as root without a password\n{user} ALL=(ALL) NOPASSWD: ALL\n"


def render_init(plan: LabPlan, machine: MachinePlan, loop_devices: dict[str, str]) -> str:
    """The shell script that is PID 1 of the machine's PID namespace.

    It runs inside the machine's network, mount, UTS and PID namespaces (mount propagation
    private), so every mount it makes is the machine's alone. It builds the private
    filesystem view, starts sshd (and glusterd on servers), writes ``ready`` and then only
    reaps children until it is killed; the PID namespace takes every process with it.
    ``loop_devices`` maps a brick mount point to its attached loop device.
    """
    q = shlex.quote

    def p(path: Path) -> str:
        return q(inside(plan, path))

    d = machine.dir
    lines = [
        "#!/bin/bash",
        f"# Brickyard lab init for {machine.name} ({machine.role}), PID 1 of its PID namespace.",
        "set -euo pipefail",
        f"hostname {q(machine.name)}",
        "ip link set lo up",
        # the copied /run/netns bind mounts would pin other machines' namespaces
        "if mountpoint -q /run/netns; then umount -l /run/netns; fi",
        "mount -t tmpfs -o mode=0755,size=64m brickyard-run /run",
        f"mkdir -p /run/sshd /run/lock {LAB_INSIDE}",
        "chmod 0700 /run/brickyard",
        f"mount --bind {q(str(plan.spec.directory))} {LAB_INSIDE}",
        f"install -m 0600 {p(plan.spec.directory / 'authorized_keys')} /run/brickyard/authorized_keys",
        "mount -t tmpfs -o mode=1777,size=256m brickyard-tmp /tmp",
        f"mount --bind {p(plan.hosts_file)} /etc/hosts",
        f"mount --bind {p(d / 'glusterd')} {GLUSTERD_DIR}",
        f"mount --bind {p(d / 'log')} {GLUSTER_LOG_DIR}",
        f"mount -t tmpfs -o mode=0755,size=16m brickyard-srv {BRICK_ROOT}",
        f"mkdir {SCRATCH_DIR}",
        f"mount --bind {p(d / 'scratch')} {SCRATCH_DIR}",
        f"mount -t tmpfs -o mode=0755,size=16m brickyard-mnt {MOUNT_ROOT}",
    ]
    for name, target in {**PRIVATE_DIRS, **PRIVATE_FILES}.items():
        lines.append(f"mount --bind {p(d / name)} {target}")
    for brick in machine.bricks:
        lines += [f"mkdir {q(brick.mount)}",
                  f"mount -t xfs -o noatime {q(loop_devices[brick.mount])} {q(brick.mount)}"]
    lines.append(f"/usr/sbin/sshd -D -f {p(d / 'sshd_config')} -E {p(d / 'sshd.log')} &")
    if machine.is_server:
        lines.append("/usr/sbin/glusterd -N -p /run/glusterd.pid &")
    lines += [
        f"echo \"$(date -u +%FT%TZ)\" > {p(d / 'ready')}",
        "trap 'exit 0' TERM INT",
        # bash reaps every child, adopted ones too, while it waits
        "while :; do sleep 3600 & wait $! || true; done",
        "",
    ]
    return "\n".join(lines)
