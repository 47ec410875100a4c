"""The few system calls the lab makes, each from an argument list, each with a clear error."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Sequence

# Tools the lab runs, and the Debian package that brings each one.
REQUIRED_TOOLS = {
    "ip": "iproute2", "unshare": "util-linux", "nsenter": "util-linux", "losetup": "util-linux",
    "mount": "mount", "fallocate": "util-linux", "mkfs.xfs": "xfsprogs",
    "ssh-keygen": "openssh-client", "ssh": "openssh-client", "sshd": "openssh-server",
    "glusterd": "glusterfs-server", "gluster": "glusterfs-server",
    "sudo": "sudo",  # for the lab's non-root admin account
}
SBIN_DIRS = ("/usr/sbin", "/sbin", "/usr/bin", "/bin")


class LabError(RuntimeError):
    """Something on this machine stopped the lab: the message says what and how to fix it."""


def which(tool: str) -> str | None:
    found = shutil.which(tool)
    if found:
        return found
    for folder in SBIN_DIRS:
        path = Path(folder) / tool
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def missing_tools() -> dict[str, str]:
    """Tool -> package for every required tool that is not installed."""
    return {tool: pkg for tool, pkg in REQUIRED_TOOLS.items() if which(tool) is None}


def run(argv: Sequence[str], what: str, timeout: float = 60, check: bool = True,
        input: bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``argv`` (never through a shell); on failure raise LabError naming ``what``."""
    try:
        proc = subprocess.run(list(argv), capture_output=True, timeout=timeout, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        raise LabError(f"{what}: {argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise LabError(f"{what}: `{' '.join(argv)}` did not finish within {timeout:g} s") from None
    if check and proc.returncode != 0:
        err = (proc.stderr or proc.stdout).decode(errors="replace").strip().splitlines()
        tail = err[-1] if err else f"exit code {proc.returncode}"
        raise LabError(f"{what}: `{' '.join(argv)}` failed: {tail}")
    return proc


def run_all(commands: list[tuple[list[str], str]], timeout: float = 120) -> None:
    """Run several commands at once; raise LabError for the first that failed."""
    procs = []
    for argv, what in commands:
        procs.append((subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT), argv, what))
    deadline = time.monotonic() + timeout
    errors = []
    for proc, argv, what in procs:
        try:
            out, _ = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            errors.append(f"{what}: `{' '.join(argv)}` did not finish within {timeout:g} s")
            continue
        if proc.returncode != 0:
            lines = out.decode(errors="replace").strip().splitlines()
            errors.append(f"{what}: `{' '.join(argv)}` failed: {lines[-1] if lines else proc.returncode}")
    if errors:
        raise LabError(errors[0] + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))


def port_open(address: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((address, port), timeout=timeout):
            return True
    except OSError:
        return False


def netns_exists(name: str) -> bool:
    return Path("/run/netns", name).exists()


def link_exists(name: str) -> bool:
    return Path("/sys/class/net", name).exists()


def routes() -> list[dict]:
    import json
    proc = run(["ip", "-j", "-4", "route", "show", "table", "all"], "reading this machine's routes")
    try:
        return json.loads(proc.stdout or b"[]")
    except ValueError:
        return []


def free_bytes(path: Path) -> int:
    """Free space for root on the filesystem that holds ``path`` (or its nearest parent)."""
    probe = path
    while not probe.exists():
        probe = probe.parent
    st = os.statvfs(probe)
    return st.f_bavail * st.f_frsize


def loop_backing_file(device: str) -> str | None:
    """The image a loop device is attached to, or None when it is free / not a loop device."""
    name = Path(device).name
    try:
        return Path(f"/sys/block/{name}/loop/backing_file").read_text().strip()
    except OSError:
        return None


def loops_of(image: Path) -> list[str]:
    """Every loop device attached to ``image``."""
    found = []
    for entry in Path("/sys/block").glob("loop*"):
        backing = loop_backing_file(str(entry))
        if backing and Path(backing) == image:
            found.append(f"/dev/{entry.name}")
    return sorted(found)


def mounts_under(folder: Path) -> list[str]:
    """Mount points in this mount namespace at or below ``folder``."""
    found = []
    try:
        text = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return found
    prefix = str(folder).rstrip("/") + "/"
    for line in text.splitlines():
        point = line.split()[4].encode().decode("unicode_escape")
        if point == str(folder) or point.startswith(prefix):
            found.append(point)
    return found


def memory_of_pid_namespace(init_pid: int) -> tuple[int, int]:
    """(processes, resident bytes) of every process in the PID namespace ``init_pid`` leads.
    Uses PSS where the kernel offers it, so shared libraries are not counted per process."""
    try:
        ns = os.readlink(f"/proc/{init_pid}/ns/pid")
    except OSError:
        return 0, 0
    count = total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "ns" / "pid") != ns:
                continue
            count += 1
            total += _pss_bytes(entry)
        except OSError:
            continue
    return count, total


def _pss_bytes(proc_dir: Path) -> int:
    try:
        for line in (proc_dir / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    for line in (proc_dir / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0
