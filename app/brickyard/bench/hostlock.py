"""One benchmark at a time per host: a small job lock every runner takes before it measures.

Two benchmarks on one client (or on the servers of one volume) measure each other, not the
storage. Every runner — the app's Run view, a campaign, ``brickyard bench`` — takes a
``HostLease`` on the hosts it will load before it starts, and either waits its turn (a
queue: ``acquire``) or is refused with the reason (``try_acquire`` raises ``HostBusy``
naming the host and who holds it, since when).

The lock is an ``flock`` on one file per host in ``lock_dir()`` (``$BRICKYARD_LOCK_DIR``, else
``<user data dir>/locks``), so it holds across processes (the app and a headless campaign
in a terminal) and between threads of one process (each lease opens its own file
description), and the kernel drops it the moment its process dies: a SIGKILLed campaign never
leaves a host locked. The file holds who took it, for the refusal message; it is never
deleted (deleting a lock file races with its next taker).

A host is locked as the machine it is, not by its name: two clusters that both have a
"node1" are two machines, and one machine reached as "client1" and by its IP address is one.
Runners pass ``keys`` (host name → ``Executor.machine_key()``: the fingerprint of the SSH host
key the machine proved it holds; ``machine_keys`` asks every host's executor), and the lock is
taken on that key. A host whose key is unknown (not reachable yet, an executor that cannot
say) is locked by its name, lower-cased, as before; "local" is this machine. Messages always
name the host as the runner calls it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Awaitable, Callable, Iterable, Mapping

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no cross-process lock, say so in the holder text
    fcntl = None  # type: ignore[assignment]

from ..core.paths import user_data_dir


class HostBusy(Exception):
    """A host is running another benchmark. ``host`` and ``holder`` (who, since when)."""

    def __init__(self, host: str, holder: str):
        self.host, self.holder = host, holder
        super().__init__(f"{host} is busy: {holder}" if holder else f"{host} is busy with another benchmark")


def lock_dir() -> Path:
    env = os.environ.get("BRICKYARD_LOCK_DIR", "")
    return Path(env) if env and os.path.isabs(env) else user_data_dir() / "locks"


def host_key(host: str, keys: Mapping[str, str] | None = None) -> str:
    """What ``host``'s lock is taken on: its machine key from ``keys`` when known, else its
    name, lower-cased (a machine key such as "ssh-host-key SHA256:…" holds a space, which no
    host name does). Local executors give no key: "local" is locked by that name."""
    machine = (keys or {}).get(host, "") or (keys or {}).get(host.strip(), "")
    return machine or host.strip().lower()


async def machine_keys(hosts: Iterable[str], executor_for: Callable[[str], object]) -> dict[str, str]:
    """host → machine key, asked of each host's executor (``Executor.machine_key``; an SSH
    executor connects, verifying the host key, if it has not yet). A host that cannot answer
    (unreachable, an unknown key) is left out and locked by name: the run itself reports why
    it cannot reach it."""
    out: dict[str, str] = {}
    for host in dict.fromkeys(h for h in hosts if h.strip()):
        try:
            ask: Callable[[], Awaitable[str]] | None = getattr(executor_for(host), "machine_key", None)
            key = await ask() if ask is not None else ""
        except Exception:  # noqa: BLE001 - any failure only means "lock by name"
            key = ""
        if key:
            out[host] = key
    return out


def _file_name(key: str) -> str:
    """The lock file of a ``host_key`` (a host name's file is named as before)."""
    safe = re.sub(r"[^a-z0-9_.-]", "_", key.lower())[:64]
    return f"{safe}-{hashlib.sha256(key.encode()).hexdigest()[:10]}.lock"


class HostLease:
    """Held locks on some hosts; ``release()`` (or leaving the ``with`` block) frees them.
    Releasing twice is harmless."""

    def __init__(self, hosts: tuple[str, ...], fds: list[int], owner: str):
        self.hosts, self.owner = hosts, owner
        self._fds = fds

    @property
    def held(self) -> bool:
        return bool(self._fds)

    def release(self) -> None:
        fds, self._fds = self._fds, []
        for fd in fds:
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> "HostLease":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:  # a lease dropped without release still frees its hosts
        if self._fds:
            self.release()


class HostLocks:
    """The lock table. ``owner`` texts say what runs ("campaign seed004 cell dt8 × dd",
    "Run view: dd on client1:/mnt/gv0"); the pid and start time are added."""

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = Path(directory) if directory is not None else lock_dir()

    def _open(self, key: str) -> int:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        return os.open(self.directory / _file_name(key), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def holder(self, host: str, keys: Mapping[str, str] | None = None) -> str:
        """Who holds ``host`` (the machine ``keys`` gives for it, else the name) now, or ''
        when it is free."""
        fd = self._open(host_key(host, keys))
        try:
            if fcntl is None:
                return ""
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return _describe(_read(fd))
            fcntl.flock(fd, fcntl.LOCK_UN)
            return ""
        finally:
            os.close(fd)

    def try_acquire(self, hosts: Iterable[str], owner: str, keys: Mapping[str, str] | None = None) -> HostLease:
        """Lock every host or none: raises ``HostBusy`` for the first busy one (sorted order,
        so two runners asking for overlapping hosts cannot deadlock). ``keys`` (host →
        machine key, ``machine_keys``) locks a host as the machine it is."""
        by_key: dict[str, str] = {}
        for h in hosts:
            if h.strip():
                by_key.setdefault(host_key(h, keys), h.strip().lower())
        names = tuple(dict.fromkeys(by_key.values()))
        fds: list[int] = []
        try:
            for key in sorted(by_key):
                host = by_key[key]
                fd = self._open(key)
                if fcntl is not None:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        text = _read(fd)
                        os.close(fd)
                        raise HostBusy(host, _describe(text)) from None
                fds.append(fd)
                _write(fd, {"owner": owner, "pid": os.getpid(), "since": time.time(), "host": host, "machine": key})
        except BaseException:
            HostLease(names, fds, owner).release()
            raise
        return HostLease(names, fds, owner)

    async def acquire(self, hosts: Iterable[str], owner: str, *, keys: Mapping[str, str] | None = None,
                      is_cancelled: Callable[[], bool] = lambda: False,
                      on_wait: Callable[[HostBusy], None] | None = None,
                      poll: float = 0.5, timeout: float | None = None) -> HostLease:
        """Wait until every host is free, then lock them all (the queue). ``on_wait`` hears
        once per change of who blocks; cancelling (``is_cancelled``) or ``timeout`` raise
        the last ``HostBusy``."""
        hosts = list(hosts)
        deadline = None if timeout is None else time.monotonic() + timeout
        last = ""
        while True:
            try:
                return self.try_acquire(hosts, owner, keys)
            except HostBusy as busy:
                if str(busy) != last and on_wait is not None:
                    on_wait(busy)
                last = str(busy)
                if is_cancelled() or (deadline is not None and time.monotonic() >= deadline):
                    raise
            await asyncio.sleep(poll)


def _read(fd: int) -> dict:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, 4096)
        info = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}   # a lock file someone wrote over: no holder known


def _write(fd: int, info: dict) -> None:
    data = json.dumps(info).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def _describe(info: dict) -> str:
    if not info:
        return "another benchmark (holder unknown)"
    owner = str(info.get("owner") or "another benchmark")
    since = info.get("since")
    when = time.strftime("%H:%M:%S", time.localtime(since)) if isinstance(since, (int, float)) else "?"
    pid = info.get("pid")
    mine = " (this process)" if pid == os.getpid() else f" (pid {pid})" if pid else ""
    return f"{owner}{mine}, since {when}"
