"""``SshExecutor`` on asyncssh: pooled, host-key checked, bounded, cancellable.

- One connection per host (``SshPool``), reused for every command; at most
  ``max_channels`` sessions at once on it (sshd's ``MaxSessions`` is 10) and at most
  ``max_connects`` handshakes in flight across all hosts (sshd's ``MaxStartups`` default
  ``10:30:100`` starts dropping bursts beyond 10).
- Host names, users, ports, identity files, ProxyJump, ConnectTimeout, UserKnownHostsFile and
  GlobalKnownHostsFile come from the OpenSSH client config (``~/.ssh/config`` or the file
  given with ``--ssh-config``). The window's Connection settings add what ``ssh -i``, ``-l``
  and ``-p`` would (``SshOptions.identity_files``, ``host_users``, ``host_ports``) and a user
  for hosts nothing names one for (``default_user``). Keys as OpenSSH picks them: ssh-agent's,
  then the identity files given, then the config's IdentityFile; the default ``~/.ssh/id_*``
  only when none is named. A refused login names the config and every key that was tried.
- Host keys are checked against the user's and the system-wide known_hosts files plus
  Brickyard's own (``hostkeys.py``); an unknown key raises ``UnknownHostKey``, a changed one
  ``HostKeyChanged``. Brickyard writes only its own file.
- Authentication: ssh-agent, key files (a passphrase is asked through a callback), or a
  password kept only in the OS keyring (``passwords.py``). Prompts never run on the loop thread.
- Every failure to connect or to keep a connection is an ``ExecutorError`` naming the host
  (and the jump host), never a raw asyncssh or OS exception.
- Every command is an argument list joined with ``shlex.quote`` and started under
  ``setsid`` so it leads its own process group; a timeout or a cancelled task kills that
  whole group on the host (``kill -KILL -- -PGID`` over a second channel).

Where things are: the options, the credentials a login offers and an alias after the config
(``SshOptions``, ``Credentials``, ``Resolved``, ``PassphraseMemo``) in ``sshoptions.py``; one
command on a connection (the setsid wrapper, its process group, ``SshProcess``) in
``sshcommand.py``; here the connections (``SshPool``: config, jump hosts, host keys, what a
failed handshake means) and ``SshExecutor``, which runs commands over them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shlex
import threading
import time
from pathlib import Path
from typing import Callable, Sequence, TypeVar

import asyncssh

from ..core.hostnames import HOST_RE, USER_RE
from . import passwords
from .executor import CommandFailed, CommandResult, CommandTimeout, Executor, ExecutorError, RemoteProcess
from .hostkeys import HostKeyChanged, HostKeyError, KnownHosts, UnknownHostKey, brickyard_known_hosts, fingerprint, known_hosts_name
from .sshcommand import CHUNK, PgidWatcher, SshProcess, died_of_signal, exit_status, kill_group, remote_command
from .sshoptions import (
    CLI_AUTH_HINT, GLOBAL_KNOWN_HOSTS, USER_KNOWN_HOSTS, PassphraseMemo, Resolved, SshOptions, known_hosts_files,
    offered_credentials,
)

__all__ = [  # the names callers import from here (their homes are sshoptions and sshcommand)
    "AuthenticationFailed", "CLI_AUTH_HINT", "PassphraseMemo", "SshExecutor", "SshOptions", "SshPool", "SshProcess",
    "Unreachable", "check_host_name", "died_of_signal", "remote_command",
]

# what an SSH host alias, DNS name or IP address can look like (core.hostnames: the fields that
# take them check the same); anything else is refused before it reaches a resolver, a config
# lookup or a log line
_HOST_RE = HOST_RE
_USER_RE = USER_RE
log = logging.getLogger(__name__)
T = TypeVar("T")


class Unreachable(ExecutorError):
    """No SSH connection could be made (DNS, refused, timed out, dropped)."""


class AuthenticationFailed(ExecutorError):
    """The host answered but accepted none of the credentials offered."""


def check_host_name(host: str, user: str | None = None) -> None:
    """Refuse host and user names with shell or option metacharacters (raise ExecutorError)."""
    if not _HOST_RE.match(host or ""):
        raise ExecutorError(repr(host), "not a valid host name or address (letters, digits, '.', '-', '_', ':' only)")
    if user is not None and not _USER_RE.match(user):
        raise ExecutorError(host, f"not a valid user name: {user!r}")


def _last_hop(jump: str | None) -> str:
    return jump.split(",")[-1].strip() if jump else "?"


def _via(jump: str | None) -> str:
    return f" (through the jump host {_last_hop(jump)})" if jump else ""


def _in_daemon_thread(fn: Callable[[str], T], arg: str) -> "asyncio.Future[T]":
    """``fn(arg)`` on a daemon thread of its own: a prompt left open (Ctrl-C, a closed
    window) can never hold up the loop, a shared worker pool or the interpreter's exit."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(value: object, failed: bool) -> None:
        if not fut.done():
            fut.set_exception(value) if failed else fut.set_result(value)  # type: ignore[arg-type]

    def work() -> None:
        try:
            value, failed = fn(arg), False
        except BaseException as exc:  # handed to the awaiting coroutine
            value, failed = exc, True
        try:
            loop.call_soon_threadsafe(settle, value, failed)
        except RuntimeError:
            pass  # the loop is gone: nobody waits for the answer any more

    threading.Thread(target=work, name="brickyard-ssh-prompt", daemon=True).start()
    return fut


def _reason(exc: BaseException) -> str:
    return getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _forward_refused(hop: str, host: str, port: int, exc: asyncssh.ChannelOpenError) -> str:
    return (f"jump host {hop} refused to forward to {host}:{port} ({exc.reason or 'open failed'}; "
            "AllowTcpForwarding no in its sshd_config?)")


class _Client(asyncssh.SSHClient):
    def __init__(self, pool: "SshPool", resolved: Resolved, stored: list[tuple[str, str]]):
        self._pool = pool
        self._resolved = resolved
        self._stored = stored
        self.presented: asyncssh.SSHKey | None = None
        self._tried_keyring = False
        self.password_offered = False     # the server offered password login
        self.password_stored = False      # … and the OS keyring held one for it
        self.new_password: str | None = None

    def validate_host_public_key(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        self.presented = key
        # a fingerprint the user accepted up front counts only for a host with no stored key
        return not self._stored and fingerprint(key) in self._pool.options.accepted_fingerprints

    async def password_auth_requested(self) -> str | None:
        # a keyring may block (D-Bus, an unlock dialog) and a prompt waits for the user:
        # both run off the loop thread so every other connection keeps going
        label = passwords.label(self._resolved.user, self._resolved.host, self._resolved.port)
        loop = asyncio.get_running_loop()
        self.password_offered = True
        if not self._tried_keyring:
            self._tried_keyring = True
            stored = await loop.run_in_executor(None, passwords.get_password, label)
            if stored:
                self.password_stored = True
                return stored
        prompt = self._pool.options.password_prompt
        if prompt is None or self.new_password is not None:
            return None
        async with self._pool.prompt_turn():  # one question at a time
            self.new_password = await _in_daemon_thread(prompt, label) or None
        return self.new_password


class _Host:
    """One pooled connection and the sessions open on it."""

    def __init__(self, conn: asyncssh.SSHClientConnection, resolved: Resolved, channels: int):
        self.conn = conn
        self.resolved = resolved
        self.channels = asyncio.Semaphore(channels)


class SshPool:
    """Connections by (alias, user, port), opened on first use and shared by all executors."""

    def __init__(self, options: SshOptions | None = None):
        self.options = options or SshOptions()
        if self.options.passphrase is not None and not isinstance(self.options.passphrase, PassphraseMemo):
            self.options.passphrase = PassphraseMemo(self.options.passphrase)
        self._hosts: dict[tuple[str, str | None, int | None], asyncio.Future[_Host]] = {}
        self._connect_slots: asyncio.Semaphore | None = None
        self._prompt_turn: asyncio.Lock | None = None
        self._unkept: set[str] = set()  # passwords that worked but found no keyring
        self.notes: list[str] = []  # what the user should read once (the CLI prints the log)
        self.connects = 0  # handshakes made (tests and the fan-out benchmark read it)

    def prompt_turn(self) -> asyncio.Lock:
        """Held while a password prompt waits for the user: one question at a time."""
        if self._prompt_turn is None:
            self._prompt_turn = asyncio.Lock()
        return self._prompt_turn

    def executor(self, host: str, *, user: str | None = None, port: int | None = None, name: str | None = None) -> "SshExecutor":
        return SshExecutor(self, host, user=user, port=port, name=name)

    async def resolve(self, alias: str, user: str | None = None, port: int | None = None) -> tuple[Resolved, asyncssh.SSHClientConnectionOptions]:
        config: object = self.options.config_files if self.options.config_files is not None else ()
        user = user or self.options.host_users.get(alias)
        port = port or self.options.host_ports.get(alias)
        try:
            # the config's own answers first (no key loaded yet): which User, which IdentityFile
            probe = await asyncssh.SSHClientConnectionOptions.construct(
                config=config, host=alias, port=port if port else (), username=user if user else (),
                client_keys=None, agent_path=None)
        except (OSError, ValueError) as exc:
            raise ExecutorError(alias, f"cannot read SSH client config: {exc}") from exc
        config_values = getattr(probe, "config", None)
        setting = config_values.get if config_values is not None else (lambda name, default=None: default)
        if not user and setting("User", None) is None and self.options.default_user:
            user = self.options.default_user
        credentials = offered_credentials(self.options, setting)
        keys: list[str] | None = list(credentials.keys)
        if not keys and not credentials.default_keys:
            # every key named is missing: as ssh, no default keys then; with no agent either,
            # public-key login is off (asyncssh would fall back to the default keys on [])
            agent = setting("IdentityAgent", None) or os.environ.get("SSH_AUTH_SOCK", "")
            keys = [] if agent and str(agent).lower() != "none" else None
        try:
            opts = await asyncssh.SSHClientConnectionOptions.construct(
                config=config,
                host=alias,
                port=port if port else (),
                username=user if user else (),
                passphrase=self.options.passphrase,
                client_keys=keys,
                ignore_encrypted=True,   # as before: an encrypted key with no passphrase given is skipped
            )
        except (asyncssh.KeyImportError, asyncssh.KeyEncryptionError) as exc:
            raise AuthenticationFailed(alias, f"cannot load an SSH key: {exc}") from exc
        except (OSError, ValueError) as exc:
            raise ExecutorError(alias, f"cannot read SSH client config: {exc}") from exc
        # as OpenSSH: () when the config says nothing, [] for "none"
        user_files = known_hosts_files(setting("UserKnownHostsFile", ()), USER_KNOWN_HOSTS)
        global_files = known_hosts_files(setting("GlobalKnownHostsFile", ()), GLOBAL_KNOWN_HOSTS)
        own = Path(self.options.own_known_hosts) if self.options.own_known_hosts else brickyard_known_hosts()
        lookup_host = opts.host_key_alias or opts.host
        timeout = setting("ConnectTimeout", None)
        credentials.agent = opts.agent_path or ""
        resolved = Resolved(
            alias, opts.host, int(opts.port), opts.username,
            known_hosts_name(lookup_host, int(opts.port)), KnownHosts(user_files, own, global_files),
            float(timeout) if timeout else self.options.connect_timeout, credentials,
        )
        return resolved, opts

    async def host(self, alias: str, user: str | None = None, port: int | None = None) -> _Host:
        check_host_name(alias, user)
        key = (alias, user, port)
        fut = self._hosts.get(key)
        if fut is not None and fut.done() and (fut.cancelled() or fut.exception() or fut.result().conn.is_closed()):
            self._hosts.pop(key, None)
            fut = None
        if fut is None:
            fut = asyncio.ensure_future(self._open(alias, user, port))
            self._hosts[key] = fut
        try:
            return await asyncio.shield(fut)
        except BaseException:
            if fut.done() and self._hosts.get(key) is fut:
                self._hosts.pop(key, None)
            raise

    def forget(self, alias: str, user: str | None, port: int | None, host: _Host) -> None:
        fut = self._hosts.get((alias, user, port))
        if fut is not None and fut.done() and not fut.exception() and fut.result() is host:
            self._hosts.pop((alias, user, port), None)

    async def _open(self, alias: str, user: str | None, port: int | None) -> _Host:
        resolved, opts = await self.resolve(alias, user, port)
        jump = opts.tunnel if isinstance(opts.tunnel, str) and opts.tunnel.lower() != "none" else None
        tunnel: object = ()
        hops: list[asyncssh.SSHClientConnection] = []  # not pooled: closed with this connection
        if jump:
            tunnel, hops = await self._jump(alias, jump)
        try:
            host = await self._connect(alias, resolved, opts, tunnel, jump)
        except BaseException:
            for hop in hops:
                hop.close()
            raise
        if hops:
            host.conn.set_tunnel(hops[-1])  # closing this connection closes its unpooled hops
        return host

    async def _connect(self, alias: str, resolved: Resolved, opts: asyncssh.SSHClientConnectionOptions,
                       tunnel: object, jump: str | None) -> _Host:
        merged, per_file = resolved.known_hosts.load()
        stored = resolved.known_hosts.stored_for(per_file, resolved.host if not opts.host_key_alias else opts.host_key_alias, resolved.port)
        client = _Client(self, resolved, stored)
        if self._connect_slots is None:
            self._connect_slots = asyncio.Semaphore(self.options.max_connects)
        where = f"{resolved.user}@{resolved.host}:{resolved.port}"
        async with self._connect_slots:
            self.connects += 1
            try:
                conn = await asyncio.wait_for(
                    asyncssh.connect(
                        alias, options=opts, config=None, known_hosts=merged, tunnel=tunnel,
                        client_factory=lambda: client, connect_timeout=resolved.connect_timeout,
                        # a host that vanishes (cable, partition) is noticed within ~1 minute
                        keepalive_interval=self.options.keepalive_seconds, keepalive_count_max=3,
                    ),
                    resolved.connect_timeout + 5,
                )
            except (asyncssh.Error, asyncio.TimeoutError, OSError, UnicodeError) as exc:
                failure = self._failure(exc, alias, alias, resolved, client, stored, where, _via(jump), _last_hop(jump))
                log.info("ssh %s (%s%s): not connected: %s", alias, where, _via(jump), failure)
                raise failure from exc
        try:
            if client.presented is not None and not stored and fingerprint(client.presented) in self.options.accepted_fingerprints:
                UnknownHostKey(alias, resolved.lookup, client.presented, resolved.known_hosts.own_file).accept()
            if client.new_password:
                await self._keep_password(alias, passwords.label(resolved.user, resolved.host, resolved.port),
                                          client.new_password)
        except BaseException:
            conn.close()
            raise
        log.info("ssh %s (%s%s): connected, host key %s", alias, where, _via(jump),
                 fingerprint(client.presented) if client.presented is not None else "verified")
        return _Host(conn, resolved, self.options.max_channels)

    async def _keep_password(self, alias: str, label: str, password: str) -> None:
        """Store a password that just worked in the OS keyring. Without a usable keyring the
        login stands, the password is kept nowhere, and the user is told once."""
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, passwords.set_password, label, password)
        except passwords.KeyringUnavailable as exc:
            if label not in self._unkept:
                self._unkept.add(label)
                note = (f"{alias}: logged in, but the password for {label} could not be kept "
                        f"(no usable OS keyring: {exc.__cause__ or exc}); it will be asked again next time")
                self.notes.append(note)
                log.warning("%s", note)

    async def _jump(self, alias: str, spec: str) -> tuple[asyncssh.SSHClientConnection, list[asyncssh.SSHClientConnection]]:
        """Connect through the ProxyJump hops (``[user@]host[:port],...``), each host-key checked.

        Returns the last hop's connection and the hops that are not pooled (all but the
        first), which the caller closes with its own connection. Any failure names ``alias``
        and the hop."""
        conn: asyncssh.SSHClientConnection | None = None
        prev = ""
        owned: list[asyncssh.SSHClientConnection] = []
        try:
            for hop in [h.strip() for h in spec.split(",") if h.strip()]:
                user, _, rest = hop.rpartition("@")
                host, port = rest, None
                m = re.fullmatch(r"\[?([^\]]+?)\]?:(\d+)", rest)
                if m:
                    host, port = m.group(1), int(m.group(2))
                if conn is None:
                    try:
                        conn = (await self.host(host, user or None, port)).conn
                    except HostKeyError:
                        raise  # names the jump host; the user accepts or fixes its key
                    except ExecutorError as exc:
                        kind = AuthenticationFailed if isinstance(exc, AuthenticationFailed) else Unreachable
                        detail = str(exc).removeprefix(f"{exc.host}: ")
                        raise kind(alias, f"jump host {hop}: {detail}") from exc
                else:  # later hops go through the earlier ones; they are not pooled
                    conn = await self._hop(alias, conn, prev, host, user or None, port)
                    if owned:
                        conn.set_tunnel(owned[-1])  # closing this hop closes the ones before it
                    owned.append(conn)
                prev = hop
        except BaseException:
            for hop_conn in reversed(owned):
                hop_conn.close()
            raise
        if conn is None:
            raise ExecutorError(alias, f"empty ProxyJump {spec!r}")
        return conn, owned[-1:]

    async def _hop(self, alias: str, through: asyncssh.SSHClientConnection, prev: str,
                   host: str, user: str | None, port: int | None) -> asyncssh.SSHClientConnection:
        check_host_name(host, user)
        resolved, opts = await self.resolve(host, user, port)
        merged, per_file = resolved.known_hosts.load()
        stored = resolved.known_hosts.stored_for(per_file, resolved.host, resolved.port)
        client = _Client(self, resolved, stored)
        try:
            return await asyncio.wait_for(
                through.connect_ssh(host, options=opts, config=None, known_hosts=merged, client_factory=lambda: client,
                                    connect_timeout=resolved.connect_timeout),
                resolved.connect_timeout + 5)
        except (asyncssh.Error, asyncio.TimeoutError, OSError, UnicodeError) as exc:
            where = f"the jump host {resolved.user}@{resolved.host}:{resolved.port}"
            raise self._failure(exc, alias, host, resolved, client, stored, where, f" (through {prev})", prev) from exc

    def _failure(self, exc: BaseException, alias: str, key_host: str, resolved: Resolved, client: _Client,
                 stored: list[tuple[str, str]], where: str, via: str, hop: str) -> ExecutorError:
        """What a failed handshake with ``where`` means for the user. A host-key refusal names
        ``key_host`` (whose key to accept or fix); everything else names ``alias``, the host
        that was asked for; ``hop`` is the jump host that forwards to ``where``."""
        if isinstance(exc, asyncssh.HostKeyNotVerifiable):
            if client.presented is not None and stored:
                return HostKeyChanged(key_host, resolved.lookup, client.presented, stored)
            if client.presented is not None:
                return UnknownHostKey(key_host, resolved.lookup, client.presented, resolved.known_hosts.own_file,
                                      self.options.accepted_fingerprints)
            return ExecutorError(alias, f"host key of {where} not verifiable: {exc.reason}")
        if isinstance(exc, asyncssh.PermissionDenied):
            tried = resolved.credentials.describe(client.password_offered, client.password_stored)
            return AuthenticationFailed(
                alias,
                f"{where} accepted none of the credentials offered ({tried}). "
                + (self.options.auth_hint or CLI_AUTH_HINT),
            )
        if isinstance(exc, (asyncssh.KeyImportError, asyncssh.KeyEncryptionError)):
            return AuthenticationFailed(alias, f"cannot load an SSH key for {where}: {exc}")
        if isinstance(exc, asyncssh.ChannelOpenError):  # only a tunnel opens a channel while connecting
            return Unreachable(alias, _forward_refused(hop, resolved.host, resolved.port, exc))
        if isinstance(exc, asyncssh.DisconnectError):
            return Unreachable(alias, f"{where}{via} closed the connection: {exc.reason}")
        if isinstance(exc, asyncssh.Error):
            return Unreachable(alias, f"SSH to {where}{via} failed: {exc.reason}")
        if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
            return Unreachable(alias, f"{where}{via} did not answer within {resolved.connect_timeout:g} s")
        return Unreachable(alias, f"cannot reach {where}{via}: {getattr(exc, 'strerror', None) or exc}")

    async def close(self) -> None:
        hosts, self._hosts = list(self._hosts.values()), {}
        for fut in hosts:
            if fut.done() and not fut.cancelled() and not fut.exception():
                fut.result().conn.close()
                await fut.result().conn.wait_closed()
            elif not fut.done():
                fut.cancel()


class SshExecutor(Executor):
    """Runs argument lists on one host over the pool's connection to it."""

    def __init__(self, pool: SshPool, host: str, *, user: str | None = None, port: int | None = None, name: str | None = None):
        self.pool = pool
        self.alias = host
        self.user = user
        self.port = port
        self.host = name or host

    async def _host(self) -> _Host:
        return await self.pool.host(self.alias, self.user, self.port)

    async def login_user(self) -> str:
        return (await self._host()).resolved.user

    async def machine_key(self) -> str:
        """The fingerprint of the host key the machine proved it holds (verified against
        known_hosts when the connection opened): one machine under two names is one key, two
        clusters' "node1" are two. Without a key, where the SSH config led (address:port)."""
        host = await self._host()
        key = host.conn.get_server_host_key()
        if key is not None:
            return f"ssh-host-key {fingerprint(key)}"
        return f"ssh {host.resolved.host}:{host.resolved.port}"

    async def _open(self, argv: Sequence[str], sudo: bool) -> tuple[_Host, asyncssh.SSHClientProcess, bool]:
        for attempt in (1, 2):
            host = await self._host()
            use_sudo = sudo and host.resolved.user != "root"
            command = remote_command(argv, sudo=use_sudo)
            log.debug("ssh %s: %s", self.host, command)
            await host.channels.acquire()
            try:
                proc = await host.conn.create_process(command, encoding=None)
                return host, proc, use_sudo
            except (asyncssh.Error, OSError) as exc:
                host.channels.release()
                self.pool.forget(self.alias, self.user, self.port, host)
                if attempt == 2:
                    raise Unreachable(self.host, f"lost the SSH connection: {_reason(exc)}") from exc
            except BaseException:
                host.channels.release()
                raise
        raise AssertionError("unreachable")

    async def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = 60.0,
        input: bytes | None = None,
        sudo: bool = False,
        check: bool = False,
        on_output: Callable[[bytes], None] | None = None,
    ) -> CommandResult:
        started = time.time()
        host, proc, use_sudo = await self._open(argv, sudo)
        watch = PgidWatcher()

        async def collect() -> tuple[bytes, bytes]:
            async def pump_out() -> bytes:
                parts = []
                while chunk := await proc.stdout.read(CHUNK):
                    parts.append(chunk)
                    if on_output is not None:
                        on_output(chunk)
                return b"".join(parts)

            async def pump_err() -> bytes:
                while chunk := await proc.stderr.read(CHUNK):
                    watch.feed(chunk)
                return watch.finish()

            if input:
                proc.stdin.write(input)
            proc.stdin.write_eof()
            out, err = await asyncio.gather(pump_out(), pump_err())
            await proc.wait_closed()
            return out, err

        try:
            out, err = await asyncio.wait_for(collect(), timeout)
        except asyncio.TimeoutError:
            await self._kill_group(host, watch, use_sudo)
            proc.close()
            raise CommandTimeout(self.host, argv, timeout or 0) from None
        except (asyncssh.Error, OSError) as exc:  # the connection died under the command
            proc.close()
            self.pool.forget(self.alias, self.user, self.port, host)
            raise Unreachable(self.host, f"the SSH connection was lost while `{shlex.join(map(str, argv))}` ran "
                                         f"({_reason(exc)}); it may or may not have finished") from exc
        except BaseException:
            await self._kill_group(host, watch, use_sudo)
            proc.close()
            raise
        finally:
            host.channels.release()
        if proc.exit_status is None and proc.exit_signal is None:
            self.pool.forget(self.alias, self.user, self.port, host)
            raise Unreachable(self.host, f"the SSH connection was lost while `{shlex.join(map(str, argv))}` ran; "
                                         "it may or may not have finished")
        status, err = died_of_signal(exit_status(proc), err)
        result = CommandResult(self.host, tuple(map(str, argv)), status, out, err, started, time.time())
        if check and not result.ok:
            raise CommandFailed(result)
        return result

    async def _kill_group(self, host: _Host, watch: PgidWatcher, sudo: bool) -> None:
        await kill_group(host.conn, watch, sudo)

    def connection_lost(self, host: _Host, argv: Sequence[str], exc: BaseException) -> Unreachable:
        """The error for a connection that died under a started command (``SshProcess``)."""
        self.pool.forget(self.alias, self.user, self.port, host)
        return Unreachable(self.host, f"the SSH connection was lost while `{shlex.join(map(str, argv))}` ran "
                                      f"({_reason(exc)})")

    async def start(self, argv: Sequence[str], *, sudo: bool = False) -> RemoteProcess:
        host, proc, use_sudo = await self._open(argv, sudo)
        return SshProcess(self, host, argv, proc, use_sudo)

    async def upload(self, data: bytes | Path, remote_path: str, mode: int = 0o644, *, sudo: bool = False) -> None:
        payload = data.read_bytes() if isinstance(data, Path) else data
        script = 'tmp="$1.brickyard-upload.$$"; cat > "$tmp" && chmod "$2" "$tmp" && mv -f "$tmp" "$1" || { rm -f "$tmp"; exit 1; }'
        await self.run(["sh", "-c", script, "sh", remote_path, format(mode, "o")],
                       input=payload, sudo=sudo, check=True, timeout=max(60.0, len(payload) / 1e6))

    async def close(self) -> None:
        key_host = self.pool._hosts.get((self.alias, self.user, self.port))
        if key_host is not None and key_host.done() and not key_host.cancelled() and not key_host.exception():
            host = key_host.result()
            self.pool.forget(self.alias, self.user, self.port, host)
            host.conn.close()
            await host.conn.wait_closed()
