"""How the window reaches hosts when the user chose it there (Cluster ▸ Connection settings):
the OpenSSH client config to read, identity files, a default user, and per-host users and
ports. Kept in settings.json under ``connection``; no passwords (those live only in the OS
keyring, ``passwords.py``). No Qt: the dialog shows and edits one of these, and
``ssh_options`` turns it into the pool's ``SshOptions`` fields.

No SSH library is loaded here (the window reads these at start). OpenSSH's rules hold
(``ssh.SshPool.resolve`` applies them): the config file is ``~/.ssh/config``
unless one is chosen; identity files chosen here are tried like ``ssh -i`` (before the config's
IdentityFile, and ssh-agent's keys before both); with none here and none in the config, the
default keys ``~/.ssh/id_*`` are tried. A per-host user or port here wins over the config (as
``ssh -l``/``-p`` do) and a user the topology names for a machine wins over both; the default
user applies to hosts for which nothing names a user (OpenSSH would use your login name).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.hostnames import HOST_RE, USER_RE
from .sshconfig import ssh_config_problem

SETTINGS_KEY = "connection"
MAX_KEY_BYTES = 1024 * 1024
# OpenSSH's default identity files, in the order it tries them (ssh_config(5), IdentityFile)
DEFAULT_KEY_FILES = ("id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_dsa")


@dataclass(frozen=True)
class HostSetting:
    host: str           # the SSH host as the topology names it (an alias, a name or an address)
    user: str = ""      # "" : not set here
    port: int = 0       # 0 : not set here


@dataclass(frozen=True)
class ConnectionSettings:
    ssh_config: str = ""                         # "" : ~/.ssh/config, as ssh reads it
    identity_files: tuple[str, ...] = ()
    default_user: str = ""
    hosts: tuple[HostSetting, ...] = field(default_factory=tuple)

    # ---- settings.json ---------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"ssh_config": self.ssh_config, "identity_files": list(self.identity_files),
                "default_user": self.default_user,
                "hosts": [{"host": h.host, "user": h.user, "port": h.port} for h in self.hosts]}

    @classmethod
    def from_json(cls, value: Any) -> tuple["ConnectionSettings", list[str]]:
        """The settings in ``value`` (settings.json's ``connection``) and what in it was not
        usable (each such part is left out, never guessed)."""
        if value is None:
            return cls(), []
        if not isinstance(value, dict):
            return cls(), ["'connection' must be an object"]
        problems: list[str] = []

        def text(key: str) -> str:
            item = value.get(key, "")
            if not isinstance(item, str):
                problems.append(f"connection.{key} must be text")
                return ""
            return item

        ssh_config, default_user = text("ssh_config"), text("default_user")
        keys = value.get("identity_files", [])
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            problems.append("connection.identity_files must be a list of file names")
            keys = []
        hosts = []
        raw_hosts = value.get("hosts", [])
        for i, item in enumerate(raw_hosts if isinstance(raw_hosts, list) else []):
            if not isinstance(item, dict) or not isinstance(item.get("host"), str):
                problems.append(f"connection.hosts[{i}] must name a host")
                continue
            user, port = item.get("user", ""), item.get("port", 0)
            if not isinstance(user, str) or type(port) is not int:
                problems.append(f"connection.hosts[{i}]: user must be text and port a whole number")
                continue
            hosts.append(HostSetting(item["host"], user, port))
        if not isinstance(raw_hosts, list):
            problems.append("connection.hosts must be a list")
        settings = cls(ssh_config, tuple(keys), default_user, tuple(hosts))
        return settings, problems

    # ---- checks ---------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Every reason these settings cannot be used, one sentence each (empty: fine)."""
        out = []
        if self.ssh_config:
            path = os.path.expanduser(self.ssh_config)
            if not os.path.exists(path):
                out.append(f"SSH config {self.ssh_config}: no such file")
            else:
                problem = ssh_config_problem(path)
                if problem:
                    out.append(f"SSH config {self.ssh_config}: {problem}")
        for key in self.identity_files:
            problem = key_file_problem(key)
            if problem:
                out.append(f"identity file {key}: {problem}")
        if self.default_user and not _valid_user(self.default_user):
            out.append(f"default user {self.default_user!r} is not a user name (letters, digits, '.', '_', '-')")
        seen: set[str] = set()
        for h in self.hosts:
            if not _valid_host(h.host):
                out.append(f"host {h.host!r} is not a host name or address (letters, digits, '.', '-', '_', ':')")
            elif h.host in seen:
                out.append(f"host {h.host} is listed twice")
            seen.add(h.host)
            if h.user and not _valid_user(h.user):
                out.append(f"host {h.host}: user {h.user!r} is not a user name")
            if h.port and not 1 <= h.port <= 65535:
                out.append(f"host {h.host}: port {h.port} is not between 1 and 65535")
            if not h.user and not h.port:
                out.append(f"host {h.host}: give a user, a port or both")
        return out

    # ---- for the SSH pool -----------------------------------------------------------
    def ssh_options(self, ssh_config_override: list[str] | None = None) -> dict[str, Any]:
        """``SshOptions`` fields: ``config_files`` (the override, e.g. ``--ssh-config``, wins),
        ``identity_files``, ``default_user``, ``host_users`` and ``host_ports``."""
        config = ssh_config_override if ssh_config_override else (
            [os.path.expanduser(self.ssh_config)] if self.ssh_config else None)
        return {"config_files": config,
                "identity_files": [os.path.expanduser(k) for k in self.identity_files],
                "default_user": self.default_user or None,
                "host_users": {h.host: h.user for h in self.hosts if h.user},
                "host_ports": {h.host: h.port for h in self.hosts if h.port}}


def _valid_host(host: str) -> bool:
    return bool(HOST_RE.match(host))


def _valid_user(user: str) -> bool:
    return bool(USER_RE.match(user))


def key_file_problem(path: str) -> str | None:
    """Why ``path`` cannot be an SSH identity file (None: it can). It must be a regular,
    readable file of at most 1 MiB holding a private key (OpenSSH, PEM or PKCS#8 format);
    an encrypted one is fine (its passphrase is asked when it is used)."""
    full = Path(os.path.expanduser(path))
    if not full.exists():
        return "no such file"
    if not full.is_file():
        return "not a regular file"
    try:
        with full.open("rb") as handle:
            head = handle.read(MAX_KEY_BYTES + 1)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if len(head) > MAX_KEY_BYTES:
        return "larger than 1 MiB: not a key"
    if b"PRIVATE KEY-----" not in head and not head.startswith(b"PuTTY-User-Key-File"):
        hint = " (that is the public half: name the file without .pub)" if path.endswith(".pub") else ""
        return f"holds no private key{hint}"
    return None


def load(settings: Any) -> tuple[ConnectionSettings, list[str]]:
    """The connection settings kept in ``settings`` (a ``store.settings.Settings`` or a dict)."""
    value = settings.value(SETTINGS_KEY) if hasattr(settings, "value") else settings.get(SETTINGS_KEY)
    return ConnectionSettings.from_json(value)
