"""What is mounted where, read back from the host: ``findmnt -J``.

A step that mounts a volume is done when the host shows it mounted, not when the command
exited 0: ``mount.glusterfs`` exits 0 when glusterfs fails on an option the kernel refuses
(``fuse-mountopts=bogus``), leaving nothing mounted and the directory under it (often a tmpfs)
in its place. ``read_back_mount`` is that check for provisioning; the benchmark engine asks
``mount_holding`` at a run's start whether a gluster target is a mount of its volume.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass

from .executor import Executor, ExecutorError

GLUSTER_FSTYPES = ("fuse.glusterfs", "glusterfs")
READ_BACK_WAIT = 5.0     # seconds a mount may take to show after mount.glusterfs returned


@dataclass(frozen=True)
class Mounted:
    """One filesystem as findmnt shows it."""

    source: str       # 'node1:/gv0', '/dev/vda', 'tmpfs'
    fstype: str       # 'fuse.glusterfs', 'ext4', 'tmpfs'
    target: str       # its mount point

    @property
    def is_gluster(self) -> bool:
        return self.fstype in GLUSTER_FSTYPES

    @property
    def volume(self) -> str:
        """The gluster volume of a gluster mount ('gv0' of 'node1:/gv0'), '' otherwise."""
        if not self.is_gluster or ":" not in self.source:
            return ""
        return self.source.partition(":")[2].strip("/")

    def describe(self) -> str:
        return f"{self.source} ({self.fstype}) on {self.target}"


def parse_findmnt_json(text: str) -> list[Mounted]:
    """Every filesystem of ``findmnt -J`` output, children flattened after their parent."""
    try:
        doc = json.loads(text) if text.strip() else {}
    except ValueError:
        return []
    out: list[Mounted] = []
    stack = list(reversed(doc.get("filesystems") or [])) if isinstance(doc, dict) else []
    while stack:
        fs = stack.pop()
        if not isinstance(fs, dict):
            continue
        out.append(Mounted(str(fs.get("source") or ""), str(fs.get("fstype") or ""), str(fs.get("target") or "")))
        stack.extend(reversed(fs.get("children") or []))
    return out


async def _findmnt(ex: Executor, how: str, path: str, sudo: bool) -> list[Mounted]:
    result = await ex.run(["findmnt", "-J", "-o", "SOURCE,FSTYPE,TARGET", how, path], sudo=sudo, timeout=30)
    if result.exit_status != 0:
        return []
    return parse_findmnt_json(result.stdout.decode(errors="replace"))


async def mounted_at(ex: Executor, path: str) -> Mounted | None:
    """The filesystem mounted exactly on ``path`` (the topmost one), or None."""
    found = [m for m in await _findmnt(ex, "--mountpoint", path, sudo=True) if m.target == path]
    return found[-1] if found else None


async def mount_holding(ex: Executor, path: str) -> Mounted | None:
    """The filesystem ``path`` is on, or None when ``path`` does not exist (as the login user:
    findmnt needs no root)."""
    found = await _findmnt(ex, "--target", path, sudo=False)
    return found[-1] if found else None


def is_mount_of(found: Mounted | None, volume: str, path: str | None = None) -> bool:
    """``found`` is a gluster mount of ``volume`` (on ``path`` when given)."""
    return found is not None and found.is_gluster and found.volume == volume and \
        (path is None or found.target == path)


def fuse_log(path: str) -> str:
    """The log glusterfs keeps for the fuse mount on ``path``: /mnt/gv0 → mnt-gv0.log."""
    return f"/var/log/glusterfs/{path.strip('/').replace('/', '-')}.log"


async def last_fuse_error(ex: Executor, path: str) -> str:
    """The last error line glusterfs logged for the mount on ``path`` ('' when none is found)."""
    try:
        result = await ex.run(["tail", "-n", "400", fuse_log(path)], sudo=True, timeout=30)
    except ExecutorError:
        return ""
    for line in reversed(result.stdout.decode(errors="replace").splitlines()):
        head, sep, message = line.partition("] E [")
        if sep:
            return message.partition("] ")[2].split(": ", 1)[-1].strip()[:300]
    return ""


async def read_back_mount(ex: Executor, source: str, path: str, *, wait: float | None = None,
                          clock=time.monotonic) -> str:
    """Wait (up to ``wait`` seconds) until ``path`` shows ``source``'s volume mounted with
    type fuse.glusterfs; returns a sentence saying so, or raises ``ExecutorError`` saying what
    is there instead and what glusterfs logged."""
    volume = source.partition(":")[2].strip("/")
    deadline = clock() + (READ_BACK_WAIT if wait is None else wait)
    while True:
        found = await mounted_at(ex, path)
        if is_mount_of(found, volume, path):
            return f"read back: {found.source} ({found.fstype}) on {path}"
        if clock() >= deadline:
            break
        await asyncio.sleep(0.25)
    there = (f"{path} shows {found.describe()}, not a fuse.glusterfs mount of {source}" if found
             else f"nothing is mounted on {path}")
    logged = await last_fuse_error(ex, path)
    raise ExecutorError(ex.host, f"mount.glusterfs exited 0 but {there} (findmnt -J)"
                        + (f"; glusterfs logged: {logged}" if logged else f"; see {fuse_log(path)}"))
