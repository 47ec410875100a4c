"""Host keys: the user's known_hosts files plus Brickyard's own, and the errors a UI shows.

A host whose key is in none of the files raises ``UnknownHostKey`` carrying the SHA256
fingerprint; the user compares it and accepts it once (``UnknownHostKey.accept()`` appends
it to Brickyard's known_hosts). A host whose key differs from a stored one raises
``HostKeyChanged`` and is never accepted automatically: the stale line has to be removed by
hand (``ssh-keygen -R``), exactly as OpenSSH demands.
"""

from __future__ import annotations

import logging
import errno
import os
import shlex
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import asyncssh

from ..core import strictjson
from ..core.paths import user_data_dir
from .executor import ExecutorError

KNOWN_HOSTS_ENV = "BRICKYARD_KNOWN_HOSTS"
MAX_KNOWN_HOSTS_BYTES = 64 * strictjson.MiB   # ~500,000 keys
_write_lock = threading.Lock()


def brickyard_known_hosts() -> Path:
    """Brickyard's own known_hosts file in the user data directory (or ``$BRICKYARD_KNOWN_HOSTS``)."""
    override = os.environ.get(KNOWN_HOSTS_ENV, "")
    if override:
        return Path(override)
    return user_data_dir() / "known_hosts"


def known_hosts_name(host: str, port: int) -> str:
    """How OpenSSH writes a host in known_hosts: ``host`` or ``[host]:port``."""
    return host if port == 22 else f"[{host}]:{port}"


def fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")


def _about(what: str, host: str, lookup: str) -> str:
    """``what``, naming the known_hosts entry only when it is not the host already named."""
    return what if lookup == host else f"{what} for {lookup}"


class HostKeyError(ExecutorError):
    """Base of the two host-key refusals."""


class UnknownHostKey(HostKeyError):
    """The host's key is in no known_hosts file: show ``fingerprint``, then ``accept()``."""

    def __init__(self, host: str, lookup: str, key: asyncssh.SSHKey, store: Path, offered: Iterable[str] = ()):
        self.lookup = lookup
        self.key = key
        self.fingerprint = fingerprint(key)
        self.algorithm = key.get_algorithm()
        self.store = store
        self.offered = sorted(offered)  # fingerprints the user accepted up front, none of them this key
        # the other hosts whose keys were unknown in the same attempt (``steps.reach_hosts``), so
        # a UI can ask about all of them at once; the CLI asks about them one run at a time
        self.others: list[UnknownHostKey] = []
        mismatch = ""
        if len(self.offered) == 1:
            mismatch = f"The fingerprint you offered ({self.offered[0]}) does not match the host's ({self.fingerprint}). "
        elif self.offered:
            mismatch = (f"None of the fingerprints you offered ({', '.join(self.offered)}) matches "
                        f"the host's ({self.fingerprint}). ")
        super().__init__(
            host,
            f"{_about('unknown host key', host, lookup)}: {self.algorithm} {self.fingerprint}. {mismatch}"
            "Compare it with `ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub` on the host and accept it once "
            "(--accept-host-key FINGERPRINT on the command line).",
        )

    def accept(self) -> Path:
        """Append this key to Brickyard's known_hosts; returns the file."""
        line = f"{self.lookup} {self.key.export_public_key('openssh').decode().strip()}\n"
        with _write_lock:
            self.store.parent.mkdir(parents=True, exist_ok=True)
            with open(self.store, "a", encoding="utf-8") as fh:
                fh.write(line)
        logging.getLogger(__name__).info("host key of %s (%s) accepted by the user: %s, stored in %s",
                                         self.host, self.lookup, self.fingerprint, self.store)
        return self.store


class HostKeyChanged(HostKeyError):
    """The host presented a key that differs from the one stored for it: refused."""

    def __init__(self, host: str, lookup: str, key: asyncssh.SSHKey, known: list[tuple[str, str]]):
        self.lookup = lookup
        self.fingerprint = fingerprint(key)
        self.known = known  # (file, fingerprint) of each stored key for this host
        files = sorted({f for f, _ in known})
        removal = "; ".join(f"ssh-keygen -R {shlex.quote(lookup)} -f {shlex.quote(f)}" for f in files)
        super().__init__(
            host,
            f"{_about('HOST KEY CHANGED', host, lookup)}: it now presents {key.get_algorithm()} {self.fingerprint}, "
            f"which differs from the key stored in {', '.join(files)}. This can mean someone is intercepting the "
            "connection, or the host was reinstalled. Brickyard refuses to connect; if the change is "
            f"expected, remove the old key ({removal}) and connect again.",
        )


class PortExactKnownHosts(asyncssh.SSHKnownHosts):
    """known_hosts matching as OpenSSH does it: a host on a port other than 22 matches only
    ``[host]:port`` lines. (asyncssh falls back to the plain ``host`` line when no
    ``[host]:port`` line matches, which would trust the key of port 22 for every port of the
    address, e.g. another machine's sshd forwarded to it.)"""

    def match(self, host: str, addr: str, port: int | None):  # type: ignore[override]
        return self._match(host, addr, port)


def host_key_json(exc: HostKeyError) -> dict:
    """A refused host key as the ``host_key`` field of every command's --json output
    (provision, teardown, pre-flight per host): what a script needs to decide and accept."""
    doc = {"kind": "unknown" if isinstance(exc, UnknownHostKey) else "changed",
           "fingerprint": getattr(exc, "fingerprint", ""), "known_hosts_name": getattr(exc, "lookup", "")}
    if isinstance(exc, UnknownHostKey):
        doc["algorithm"] = exc.algorithm
        doc["accept_with"] = f"--accept-host-key {exc.fingerprint}"
    return doc


@dataclass
class KnownHosts:
    """The known_hosts files one connection is checked against: the user's, the system-wide
    ones (GlobalKnownHostsFile; read only, Brickyard never writes them) and Brickyard's own."""

    user_files: list[Path]
    own_file: Path
    global_files: list[Path] = field(default_factory=list)

    def files(self) -> list[Path]:
        seen: list[Path] = []
        for path in [*self.user_files, *self.global_files, self.own_file]:
            if path not in seen:
                seen.append(path)
        return seen

    def load(self) -> tuple[asyncssh.SSHKnownHosts, dict[Path, asyncssh.SSHKnownHosts]]:
        """All files merged (what asyncssh checks against) and each file alone (for messages)."""
        per_file: dict[Path, asyncssh.SSHKnownHosts] = {}
        texts = []
        for path in self.files():
            if os.path.realpath(path) == os.devnull:   # "UserKnownHostsFile /dev/null": knows no host
                continue
            # any other path the SSH config names (/dev/zero, a FIFO, a huge file) is refused,
            # never read until memory runs out or a writer appears
            try:
                text = strictjson.read_bytes(path, limit=MAX_KNOWN_HOSTS_BYTES,
                                             what="known_hosts file").decode("utf-8", errors="replace")
            except strictjson.JsonFileError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    continue
                detail = str(exc.problems[0]).removeprefix("cannot read: ")
                raise ExecutorError(str(path), f"cannot read known_hosts file: {detail}") from None
            try:
                per_file[path] = PortExactKnownHosts(text)
            except (ValueError, asyncssh.KeyImportError) as exc:
                raise ExecutorError(str(path), f"known_hosts file has a line Brickyard cannot read: {exc}") from exc
            texts.append(text if text.endswith("\n") or not text else text + "\n")
        return PortExactKnownHosts("".join(texts)), per_file

    def stored_for(self, per_file: dict[Path, asyncssh.SSHKnownHosts], host: str, port: int) -> list[tuple[str, str]]:
        """(file, fingerprint) of every key stored for ``host``/``port``."""
        found = []
        for path, kh in per_file.items():
            keys = kh.match(host, "", None if port == 22 else port)[0]
            found.extend((str(path), fingerprint(k)) for k in keys)
        return found
