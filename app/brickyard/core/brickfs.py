"""Which filesystems of a server could hold bricks, from what the server says (no I/O here).

A pool that has peers but no volume yet has no bricks to import: what the admin plans the
first volume on are the servers' data filesystems. ``findmnt -J -b -l -o
TARGET,SOURCE,FSTYPE,SIZE`` lists every mount; ``brick_filesystems`` keeps those a brick
belongs on: a filesystem gluster supports for bricks (XFS, ext4, ext3, btrfs, ZFS) on its own
device, mounted somewhere that is not the system's own (``/``, ``/boot``, ``/usr``, ``/var``,
``/home``, …), each device once (a bind mount shows as ``DEVICE[/dir]`` and is skipped).
``stat -f -c '%b %f %S %n' -- MOUNT…`` then gives each one's size and free space as glusterd
counts them (blocks × fundamental block size; free: free blocks, root's reserve included).

A brick goes in a directory inside the mount point (``/srv/brick1/brick``), never the mount
point itself: gluster refuses that without force, and an unmounted disk must not fill the
root filesystem instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

BRICK_FS_TYPES = ("xfs", "ext4", "ext3", "btrfs", "zfs")
SYSTEM_MOUNTS = ("/", "/boot", "/boot/efi", "/usr", "/var", "/var/log", "/var/tmp", "/tmp", "/home", "/opt", "/root")
SYSTEM_TREES = ("/proc", "/sys", "/dev", "/run", "/snap", "/boot", "/usr", "/etc", "/var/lib/docker",
                "/var/lib/containers", "/var/lib/kubelet", "/var/lib/glusterd", "/var/log")
BRICK_DIR = "brick"


class FindmntError(ValueError):
    """The output is not ``findmnt --json``'s."""


@dataclass(frozen=True)
class Filesystem:
    mount: str
    device: str
    fs_type: str
    size_bytes: int | None = None
    free_bytes: int | None = None

    @property
    def brick_path(self) -> str:
        """Where a brick on this filesystem goes: a directory inside the mount point."""
        return f"{self.mount.rstrip('/')}/{BRICK_DIR}"


def parse_findmnt(text: str | bytes) -> list[Filesystem]:
    """Every mount in ``findmnt -J -b -l -o TARGET,SOURCE,FSTYPE,SIZE`` output, in its order."""
    try:
        doc = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FindmntError(f"findmnt did not print JSON: {exc}") from exc
    items = doc.get("filesystems") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise FindmntError("findmnt's JSON has no list of filesystems")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("target"), str):
            continue
        size = item.get("size")
        out.append(Filesystem(item["target"], str(item.get("source") or ""), str(item.get("fstype") or ""),
                              int(size) if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None))
    return out


def _system(mount: str) -> bool:
    path = mount.rstrip("/") or "/"
    return path in SYSTEM_MOUNTS or any(path == tree or path.startswith(tree + "/") for tree in SYSTEM_TREES)


def brick_filesystems(filesystems: list[Filesystem]) -> list[Filesystem]:
    """The filesystems a brick belongs on (see the module doc), each device once."""
    seen: set[str] = set()
    out = []
    for fs in filesystems:
        zfs = fs.fs_type == "zfs"
        if fs.fs_type not in BRICK_FS_TYPES or _system(fs.mount):
            continue
        if not zfs and (not fs.device.startswith("/dev/") or "[" in fs.device):
            continue                  # not a device of its own: a bind mount, a network or virtual filesystem
        if fs.device in seen:
            continue
        seen.add(fs.device)
        out.append(fs)
    return out


def root_only(filesystems: list[Filesystem]) -> bool:
    """Does the server keep everything on its root filesystem (no data filesystem at all)?"""
    return not brick_filesystems(filesystems)


def parse_statfs(text: str | bytes) -> dict[str, tuple[int, int]]:
    """``stat -f -c '%b %f %S %n' -- MOUNT…`` → {mount: (size_bytes, free_bytes)}; lines it
    cannot read are left out."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    out = {}
    for line in text.splitlines():
        parts = line.split(" ", 3)
        if len(parts) != 4 or not all(p.isdigit() for p in parts[:3]):
            continue
        blocks, free, size = (int(p) for p in parts[:3])
        out[parts[3]] = (blocks * size, free * size)
    return out
