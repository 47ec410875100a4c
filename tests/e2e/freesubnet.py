"""A private /24 for a test's own small lab that nothing on this machine uses.

A subnet worked out from the test's process id alone could be the one another lab already
uses (a helper's lab, the session's shared lab, another CI run on the same machine), and
``lab up`` then refuses it. Here the candidates are skipped when any network of this machine
overlaps them: the routes and addresses of the host and of every network namespace (a lab's
machines live in namespaces). The chosen one is also reserved, with an exclusive ``flock`` on
a file named after it that this process holds until it exits (the kernel drops it even on
a crash; a normal exit also removes the file), so two test processes picking at the same
moment never take the same one.
"""

from __future__ import annotations

import atexit
import fcntl
import ipaddress
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

# 10.78.0.0 – 10.227.255.0: clear of the lab's default (10.77.0.0/24)
FIRST_SECOND_OCTET, SECOND_OCTETS = 78, 150
_held: dict[str, int] = {}   # subnet -> the descriptor whose lock reserves it


def _ip_json(argv: list[str]) -> list[dict]:
    proc = subprocess.run(["ip", "-j", *argv], capture_output=True, text=True, timeout=20)
    if proc.returncode != 0:
        raise RuntimeError(f"`ip -j {' '.join(argv)}` failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout) if proc.stdout.strip() else []


def networks_in_use() -> list[ipaddress.IPv4Network]:
    """Every IPv4 network routed or addressed on this machine, in the host and in each
    network namespace (the default route aside)."""
    found: list[ipaddress.IPv4Network] = []
    namespaces = [""] + [ns["name"] for ns in _ip_json(["netns", "list"]) if ns.get("name")]
    for ns in namespaces:
        where = ["-n", ns] if ns else []
        try:
            routes = _ip_json([*where, "-4", "route", "show", "table", "all"])
            links = _ip_json([*where, "-4", "addr", "show"])
        except RuntimeError:
            if not ns:
                raise
            continue  # a namespace removed while we looked
        for route in routes:
            dst = route.get("dst", "")
            if dst and dst != "default":
                try:
                    found.append(ipaddress.ip_network(dst, strict=False))
                except ValueError:
                    pass
        for link in links:
            for a in link.get("addr_info", []):
                if a.get("family") == "inet" and a.get("local"):
                    found.append(ipaddress.ip_interface(f"{a['local']}/{a.get('prefixlen', 32)}").network)
    return [n for n in found if n.version == 4]


def candidates(seed: int) -> Iterator[str]:
    """Every subnet of the range once, starting at one picked by ``seed``."""
    total = SECOND_OCTETS * 256
    for k in range(total):
        i = (seed + k) % total
        yield f"10.{FIRST_SECOND_OCTET + i // 256}.{i % 256}.0/24"


def pick(in_use: Iterable[ipaddress.IPv4Network], seed: int, avoid: Iterable[str] = (),
         reserve=lambda subnet: True) -> str:
    """The first candidate from ``seed`` that overlaps nothing in ``in_use`` or ``avoid``
    and that ``reserve`` takes."""
    used = list(in_use) + [ipaddress.ip_network(a, strict=False) for a in avoid if a]
    for subnet in candidates(seed):
        net = ipaddress.ip_network(subnet)
        if any(net.overlaps(u) for u in used):
            continue
        if reserve(subnet):
            return subnet
    raise RuntimeError("no free 10.x.y.0/24 for a test lab on this machine")


def _lock_dir() -> Path:
    for d in (Path("/run/lock"), Path(tempfile.gettempdir())):
        if d.is_dir() and os.access(d, os.W_OK):
            return d
    raise RuntimeError("no writable folder for the subnet reservations")


def _lock_path(subnet: str) -> Path:
    return _lock_dir() / f"brickyard-test-subnet-{subnet.replace('/', '_')}.lock"


def _reserve(subnet: str) -> bool:
    if subnet in _held:
        return False   # this process has it for another test already
    path = _lock_path(subnet)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # the holder before us removes the file as it exits: a lock on a removed file
        # reserves nothing (another process may have made a new one meanwhile)
        if os.fstat(fd).st_ino != os.stat(path).st_ino:
            raise OSError("lock file replaced")
    except OSError:
        os.close(fd)
        return False
    _held[subnet] = fd
    return True


@atexit.register
def _release_all() -> None:
    """Remove the lock files this process made (while still holding their locks)."""
    for subnet, fd in list(_held.items()):
        try:
            os.unlink(_lock_path(subnet))
        except OSError:
            pass
        os.close(fd)
    _held.clear()


def free_subnet() -> str:
    """A /24 free on this machine, reserved for this process until it exits; never the
    session lab's (``BRICKYARD_LAB_SUBNET``) nor the lab's default."""
    avoid = [os.environ.get("BRICKYARD_LAB_SUBNET", ""), "10.77.0.0/24"]
    subnet = pick(networks_in_use(), os.getpid(), avoid, _reserve)
    # looked at again now that it is ours: a lab that came up between the look and the lock
    if any(ipaddress.ip_network(subnet).overlaps(n) for n in networks_in_use()):
        os.unlink(_lock_path(subnet))
        os.close(_held.pop(subnet))
        return free_subnet()
    return subnet
