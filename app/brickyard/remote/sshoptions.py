"""What an SSH connection offers and where an alias leads, before any connection is made.

``SshOptions`` is how the pool connects (from the command line or the window's Connection
settings); ``Credentials`` lists what a login will offer, in words for a refused login's error;
``Resolved`` is an alias after the OpenSSH client config has been applied; ``PassphraseMemo``
asks for a key file's passphrase once per session. The pool (``ssh.SshPool``) builds these and
connects with them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import asyncssh

from .connection import DEFAULT_KEY_FILES
from .hostkeys import KnownHosts

class PassphraseMemo:
    """A key file's passphrase asked once per session, not once per host: the first answer
    that opens the key is kept in memory (never written anywhere) and given for every later
    connection; a wrong answer is asked again (three tries, as ssh does). Hosts connecting
    at once wait for the one question about a file instead of each opening a prompt."""

    TRIES = 3

    def __init__(self, ask: Callable[[str], str | None]):
        self._ask = ask
        self._known: dict[str, str] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def __call__(self, filename: str) -> str | None:
        with self._guard:
            lock = self._locks.setdefault(filename, threading.Lock())
        with lock:
            if filename in self._known:
                return self._known[filename]
            answer = None
            for _ in range(self.TRIES):
                answer = self._ask(filename)
                if not answer:        # cancelled: asked again next time
                    return answer
                if _opens(filename, answer):
                    self._known[filename] = answer
                    return answer
            return answer             # three wrong answers: asyncssh says the key cannot be opened


def _opens(filename: str, passphrase: str) -> bool:
    try:
        asyncssh.read_private_key(filename, passphrase)
    except asyncssh.KeyEncryptionError:
        return False
    except (OSError, ValueError, asyncssh.KeyImportError):
        return True   # not ours to judge: asyncssh reports it when it loads the key
    return True


@dataclass
class SshOptions:
    """How the pool connects.

    The two callbacks block until the user answers, so neither ever runs on the loop thread:
    ``passphrase`` runs on the worker thread asyncssh loads keys on, ``password_prompt`` on
    a thread of its own (one question at a time per pool); other hosts' work, keepalives and
    cancellation go on meanwhile.
    """

    config_files: list[str] | None = None  # None: ~/.ssh/config when it exists
    own_known_hosts: Path | None = None  # None: brickyard_known_hosts()
    accepted_fingerprints: set[str] = field(default_factory=set)  # unknown keys the user accepted up front
    passphrase: Callable[[str], str] | None = None  # key file name -> passphrase
    password_prompt: Callable[[str], str | None] | None = None  # "user@host:port" -> password to try and keep
    identity_files: list[str] = field(default_factory=list)  # like ssh -i: before the config's IdentityFile
    default_user: str | None = None  # for hosts that neither the topology nor the config names a User for
    host_users: dict[str, str] = field(default_factory=dict)  # alias -> user, like ssh -l (the topology's wins)
    host_ports: dict[str, int] = field(default_factory=dict)  # alias -> port, like ssh -p (the topology's wins)
    auth_hint: str = ""  # what to do after a refused login; "" : the command line's words (CLI_AUTH_HINT)
    connect_timeout: float = 20.0  # seconds, for hosts whose SSH config sets no ConnectTimeout
    keepalive_seconds: float = 5.0  # with 3 missed answers a dead link is noticed in ~15 s
    max_connects: int = 8
    max_channels: int = 8


CLI_AUTH_HINT = ("Name the key with IdentityFile in the SSH config (or give that config with --ssh-config FILE), "
                 "load it into ssh-agent, or give --ask-password to log in with a password kept in the OS keyring.")


@dataclass
class Credentials:
    """What a connection will offer, in words for an error: the config files read, the key
    files tried (and those named but missing), ssh-agent, and whether a stored password exists."""

    config_files: list[str] = field(default_factory=list)   # read; "" entries never
    config_missing: list[str] = field(default_factory=list)  # named (or the default) but not there
    keys: list[str] = field(default_factory=list)
    keys_missing: list[str] = field(default_factory=list)
    default_keys: bool = False                               # keys are OpenSSH's defaults
    agent: str = ""                                          # the agent socket, "" : none

    def describe(self, password_offered: bool, password_stored: bool) -> str:
        config = ", ".join(self.config_files) or "none"
        if self.config_missing:
            config += f" ({', '.join(self.config_missing)}: not there)"
        keys = ", ".join(self.keys) if self.keys else "none"
        if self.default_keys:
            keys = (f"the default keys {keys}" if self.keys
                    else "none (no IdentityFile named, and no default key ~/.ssh/id_* exists)")
        if self.keys_missing:
            keys += f"; named but not there: {', '.join(self.keys_missing)}"
        agent = f"ssh-agent at {self.agent}" if self.agent else "no ssh-agent (SSH_AUTH_SOCK is not set)"
        if not password_offered:
            password = "the host does not offer password login"
        elif password_stored:
            password = "the password stored in the OS keyring"
        else:
            password = "no stored password"
        return f"SSH config: {config}; keys tried: {keys}; {agent}; {password}"


@dataclass
class Resolved:
    """Where an alias leads after the OpenSSH config has been applied."""

    alias: str
    host: str
    port: int
    user: str
    lookup: str  # the known_hosts name
    known_hosts: KnownHosts
    connect_timeout: float  # the config's ConnectTimeout, else SshOptions.connect_timeout
    credentials: Credentials = field(default_factory=Credentials)



# OpenSSH's defaults when the config names no UserKnownHostsFile / GlobalKnownHostsFile
USER_KNOWN_HOSTS = ("~/.ssh/known_hosts", "~/.ssh/known_hosts2")
GLOBAL_KNOWN_HOSTS = ("/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2")


def known_hosts_files(value: object, default: Sequence[str]) -> list[Path]:
    """known_hosts files from a config value: () unset (the default), [] for ``none``."""
    if value == ():
        value = list(default)
    elif isinstance(value, str):
        value = [value]
    return [Path(str(v)).expanduser() for v in value or ()]  # type: ignore[union-attr]



def offered_credentials(options: SshOptions, setting: Callable) -> Credentials:
    """The config files read and the key files to offer, as OpenSSH picks them: the
    identity files given (``ssh -i``) and the config's IdentityFile, or when neither names
    one the default ``~/.ssh/id_*`` that exist. A named file that is not there is skipped
    (as ssh does), and said in a refused login's message. ``setting(name, default)`` reads the
    OpenSSH client config's value for the host."""
    creds = Credentials()
    if options.config_files is None:
        default = Path("~/.ssh/config").expanduser()
        (creds.config_files if default.is_file() else creds.config_missing).append(str(default))
    else:
        for name in options.config_files:
            (creds.config_files if Path(name).exists() else creds.config_missing).append(str(name))
    named = [*options.identity_files, *(str(k) for k in setting("IdentityFile", ()) or ())]
    if named:
        for name in dict.fromkeys(str(Path(n).expanduser()) for n in named):
            (creds.keys if Path(name).is_file() else creds.keys_missing).append(name)
    else:
        creds.default_keys = True
        creds.keys = [str(p) for p in (Path("~/.ssh").expanduser() / f for f in DEFAULT_KEY_FILES) if p.is_file()]
    return creds
