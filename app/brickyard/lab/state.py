"""``LABDIR/lab.json``: what the lab created, written as it goes, so ``down`` can undo a
half-built lab; plus process identity checks and the leases tests take on a shared lab.

A PID alone is not an identity (PIDs are reused), so every recorded process carries its start
time in clock ticks since boot (``/proc/PID/stat`` field 22); teardown kills a PID only when
both match.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..core import strictjson
from ..core.atomicfile import write_atomic

LAB_FORMAT = 1
# What the machines look like inside; a lab made with an older layout is not reused by tests.
# 1: first labs; 2: private /root, /var/tmp, /etc/fstab per machine; 3: a non-root admin
# account with passwordless sudo (private passwd, shadow, group, sudoers, /home).
LAYOUT_VERSION = 3


class LabStateError(ValueError):
    """A lab.json that cannot be read: the message names the file and the problem."""


@dataclass
class BrickState:
    index: int
    mount: str
    path: str
    image: str
    loop_device: str = ""
    size_bytes: int = 0


@dataclass
class MachineState:
    name: str
    role: str
    address: str
    netns: str
    veth: str
    dir: str
    ssh_port: int = 22
    bricks: list[BrickState] = field(default_factory=list)
    # ``ip netns exec ... unshare`` as seen from this machine's PID namespace, and PID 1 of
    # the lab machine's namespace (its init); each with its start time.
    launcher_pid: int = 0
    launcher_start: int = 0
    init_pid: int = 0
    init_start: int = 0
    netns_created: bool = False
    veth_created: bool = False
    # a delayed machine: the user-space forwarder that owns its TAP devices; ms on frames
    # towards it and from it (None: the same both ways)
    delay_ms: float = 0.0
    delay_from_ms: float | None = None
    forwarder_pid: int = 0
    forwarder_start: int = 0

    @property
    def delayed(self) -> bool:
        return bool(self.delay_ms or self.delay_from_ms)


@dataclass
class LabState:
    directory: str
    prefix: str
    subnet: str
    bridge: str
    bridge_address: str
    brick_size: int
    bricks_per_node: int
    created_directory: bool
    owner: str = "cli"
    status: str = "starting"     # starting -> up
    started_at: str = ""
    up_seconds: float | None = None
    bridge_created: bool = False
    ssh_config: str = ""
    known_hosts: str = ""
    identity_file: str = ""
    topology_file: str = ""
    admin_user: str = ""             # non-root, passwordless sudo; ssh alias NAME-admin
    admin_topology_file: str = ""    # the topology with ssh_user = admin_user
    scratch_dir: str = ""
    mount_root: str = ""
    machines: list[MachineState] = field(default_factory=list)
    layout_version: int = 1
    format: int = LAB_FORMAT

    @property
    def outdated(self) -> bool:
        return self.layout_version != LAYOUT_VERSION

    @property
    def servers(self) -> list[MachineState]:
        return [m for m in self.machines if m.role == "server"]

    @property
    def clients(self) -> list[MachineState]:
        return [m for m in self.machines if m.role == "client"]

    def machine(self, name: str) -> MachineState:
        for m in self.machines:
            if m.name == name:
                return m
        known = ", ".join(m.name for m in self.machines)
        raise KeyError(f"no lab machine named {name!r} (machines: {known})")

    def to_dict(self) -> dict:
        return asdict(self)

    def save(self) -> None:
        path = Path(self.directory) / "lab.json"
        write_atomic(path, (json.dumps(self.to_dict(), indent=2) + "\n").encode())


MAX_STATE_BYTES = 4 * strictjson.MiB    # a 64-machine lab's record is ~100 KiB
_KINDS: dict[str, tuple[type, ...]] = {"int": (int,), "str": (str,), "bool": (bool,), "float": (float,),
                                       "float | None": (float,)}


def load_state(directory: Path) -> LabState | None:
    """The recorded lab in ``directory``, or None when there is no lab.json. The record says
    what ``lab down`` kills and removes, so it is read strictly (``core.strictjson``) and every
    field is checked; LabStateError names every problem."""
    path = directory / "lab.json"
    try:
        data = strictjson.load_object(path, limit=MAX_STATE_BYTES, what="lab record")
    except strictjson.JsonFileError as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise LabStateError(str(exc)) from None
    if data.get("format") != LAB_FORMAT:
        raise LabStateError(f"{path}: not a Brickyard lab record of format {LAB_FORMAT}")
    r = strictjson.Reader()
    state = _record(r, LabState, data, "")
    if r.problems:
        raise LabStateError(str(strictjson.JsonFileError(str(path), r.problems)))
    return state


def _record(r: strictjson.Reader, cls: type, data: Any, path: str) -> Any:
    """One dataclass from parsed JSON, each field of the type its annotation names."""
    fields = dataclasses.fields(cls)
    required = {f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    obj = r.obj(data, path, {f.name for f in fields}, required)
    if obj is None:
        return None
    values: dict[str, Any] = {}
    for f in fields:
        if f.name not in obj:
            continue
        kind = str(f.type)
        if kind.startswith("list["):
            item = {"list[BrickState]": BrickState, "list[MachineState]": MachineState}[kind]
            values[f.name] = [_record(r, item, x, strictjson.join(strictjson.join(path, f.name), i))
                              for i, x in enumerate(r.array(obj, f.name, path))]
        else:
            values[f.name] = r.field(obj, f.name, path, _KINDS[kind], nullable=kind.endswith("None"))
    if r.problems:
        return None
    return cls(**values)


# ---- process identity ---------------------------------------------------------------------

def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks after boot, or None if it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # the command name (field 2) may hold spaces and parentheses: split after the last ')'
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[19])


def is_alive(pid: int, start: int) -> bool:
    """True when ``pid`` runs and is the same process that was recorded (not a reuse)."""
    if pid <= 0:
        return False
    now = start_time(pid)
    if now is None or now != start:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def reap(pid: int) -> None:
    """Collect ``pid``'s exit status if it is an ended child of this process (no zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


# ---- serialising up/down and sharing a lab between test sessions ------------------------

@contextlib.contextmanager
def lab_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock for the lab at ``directory`` (on its parent folder, so it
    exists before the lab does and leaves no file behind)."""
    parent = directory.parent
    parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _lease_dir(directory: Path) -> Path:
    return directory / "leases"


def take_lease(directory: Path, pid: int | None = None) -> Path:
    """Mark the lab as in use by process ``pid`` (default: this one)."""
    pid = os.getpid() if pid is None else pid
    folder = _lease_dir(directory)
    folder.mkdir(exist_ok=True)
    path = folder / f"{pid}-{start_time(pid)}"
    path.write_text("")
    return path


def drop_lease(lease: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        lease.unlink()


def live_leases(directory: Path) -> list[Path]:
    """Leases whose process still runs; stale ones are removed."""
    live = []
    folder = _lease_dir(directory)
    if not folder.is_dir():
        return live
    for lease in folder.iterdir():
        pid, _, start = lease.name.partition("-")
        if pid.isdigit() and start.isdigit() and is_alive(int(pid), int(start)):
            live.append(lease)
        else:
            drop_lease(lease)
    return live
