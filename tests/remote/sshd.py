"""A throwaway OpenSSH server on 127.0.0.1 for the SSH executor tests (no sandbox needed).

It runs as the current user (as root in CI) with its own generated host key and an
authorized key for a generated client key; ``ssh_config`` names it ``target``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path: Path, kind: str = "ed25519") -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "brickyard-test", "-f", str(path)],
                   check=True, stdin=subprocess.DEVNULL)
    return path


def key_fingerprint(pub: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", str(pub)], check=True, capture_output=True, text=True).stdout
    return out.split()[1]


@dataclass
class Sshd:
    dir: Path
    port: int
    user: str
    host_key: Path
    client_key: Path
    ssh_config: Path
    user_known_hosts: Path
    proc: subprocess.Popen

    @property
    def host_fingerprint(self) -> str:
        return key_fingerprint(self.host_key.with_suffix(".pub"))

    def known_hosts_line(self, pub: Path | None = None) -> str:
        key = (pub or self.host_key.with_suffix(".pub")).read_text().split()[:2]
        return f"[127.0.0.1]:{self.port} {key[0]} {key[1]}\n"

    @contextmanager
    def locked_key(self, folder: Path, passphrase: str) -> Iterator[tuple[Path, Path]]:
        """A passphrase-protected client key the server accepts while inside the block, and an
        ssh config that logs in with it: (key, ssh config)."""
        key = folder / "locked_key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-f", str(key)], check=True,
                       stdin=subprocess.DEVNULL)
        auth = self.dir / "authorized_keys"
        original = auth.read_text()
        auth.write_text(original + key.with_suffix(".pub").read_text())
        config = folder / "locked_ssh_config"
        config.write_text(self.ssh_config.read_text().replace(str(self.client_key), str(key)))
        try:
            yield key, config
        finally:
            auth.write_text(original)

    def trust(self) -> None:
        """Put the real host key into the user's known_hosts (the ordinary, trusted case)."""
        self.user_known_hosts.write_text(self.known_hosts_line())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _start_on(root: Path, port: int, host_key: Path, extra: str = "") -> subprocess.Popen | None:
    """sshd on ``port``, once it accepts connections; None if it exited (port taken)."""
    config = root / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {root / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {root / 'authorized_keys'}\nStrictModes no\nUsePAM no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
        "MaxSessions 10\nLogLevel ERROR\n" + extra
    )
    log = open(root / "sshd.log", "wb")
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    log.close()
    deadline = time.monotonic() + 60          # generous: a busy CI machine
    while proc.poll() is None:
        if _listening(proc.pid, port):
            return proc
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"sshd did not listen within 60 s: {(root / 'sshd.log').read_text()}")
        time.sleep(0.05)
    return None


def _listening(pid: int, port: int) -> bool:
    """Does process ``pid`` itself hold the listening socket on 127.0.0.1:``port``? (A
    connect alone could reach whoever else took the port.)"""
    inodes = set()
    with open("/proc/net/tcp") as fh:
        for line in fh.readlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and local == f"0100007F:{port:04X}":
                inodes.add(f"socket:[{inode}]")
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                return True
        except OSError:
            continue
    return False


def start_sshd(root: Path, extra_config: str = "") -> Sshd:
    """``extra_config``: more sshd_config lines (e.g. ``AllowTcpForwarding no``)."""
    if not Path(SSHD).exists():
        raise FileNotFoundError("sshd is not installed (Debian package openssh-server)")
    root.mkdir(parents=True, exist_ok=True)
    user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    host_key = keygen(root / "ssh_host_ed25519_key")
    client_key = keygen(root / "id_ed25519")
    (root / "authorized_keys").write_text(client_key.with_suffix(".pub").read_text())
    for _ in range(5):
        # the port is free when picked but bound only when sshd starts: if something took
        # it meanwhile sshd exits, and we try another port
        port = free_port()
        proc = _start_on(root, port, host_key, extra_config)
        if proc is not None:
            break
    else:
        raise RuntimeError(f"sshd did not start on 5 free ports: {(root / 'sshd.log').read_text()}")
    known = root / "user_known_hosts"
    ssh_config = root / "ssh_config"
    ssh_config.write_text(
        f"Host target\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {client_key}\n"
        f"  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n"
    )
    return Sshd(root, port, user, host_key, client_key, ssh_config, known, proc)


@contextmanager
def running_sshd(root: Path, *, trusted: bool = False) -> Iterator[Sshd]:
    """A test sshd under ``root`` for the length of the block (a module fixture's); ``trusted``:
    its host key already in the user's known hosts."""
    server = start_sshd(root)
    try:
        if trusted:
            server.trust()
        yield server
    finally:
        server.stop()


def sshd_fixture(folder: str, *, trusted: bool = False):
    """A module-scoped pytest fixture of one test sshd (``running_sshd``) under a temporary
    ``folder``: ``sshd = sshd_fixture("sshd-mine")`` in a test module."""
    import pytest

    @pytest.fixture(scope="module")
    def sshd(tmp_path_factory):
        with running_sshd(tmp_path_factory.mktemp(folder), trusted=trusted) as server:
            yield server

    return sshd


def new_users_home(tmp_path: Path, monkeypatch, *, ssh_dir: bool = False) -> Path:
    """A fresh HOME (no ~/.ssh of the tester's unless ``ssh_dir`` makes an empty one), no
    ssh-agent, no --ssh-config, Brickyard's known hosts in ``tmp_path``: a new user's machine."""
    folder = tmp_path / "home"
    (folder / ".ssh" if ssh_dir else folder).mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.delenv("BRICKYARD_SSH_CONFIG", raising=False)
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    return folder
