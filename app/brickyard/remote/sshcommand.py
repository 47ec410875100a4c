"""One command on a pooled SSH connection: the string sent (``remote_command``: the argument
list quoted word by word under ``setsid`` so the command leads its own process group), the
wrapper's ``brickyard-pgid=N`` line read back out of stderr, the process group killed over a
second channel, a command killed by a signal reported as a shell would (``died_of_signal``),
and ``SshProcess``, a started command the caller talks to (the bench agent).

The executor that opens the channels is ``ssh.SshExecutor``; a lost connection is its to
report (``SshExecutor.connection_lost``), so this module knows nothing of the pool.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import signal
from typing import TYPE_CHECKING, AsyncIterator, Sequence

import asyncssh

from .executor import CommandTimeout, RemoteProcess

if TYPE_CHECKING:
    from .ssh import SshExecutor, _Host

PGID_RE = re.compile(rb"^brickyard-pgid=(\d+)$")
WRAPPER = 'echo "brickyard-pgid=$$" >&2; exec "$@"'
CHUNK = 65536


def remote_command(argv: Sequence[str], *, sudo: bool) -> str:
    """The one string sent over SSH: ``argv`` quoted word by word, led by setsid (and sudo -n)."""
    if not argv:
        raise ValueError("empty argument list")
    words = ["setsid", "-w", "sh", "-c", WRAPPER, "sh", *map(str, argv)]
    if sudo:
        words = ["sudo", "-n", "--", *words]
    return "exec " + shlex.join(words)


# util-linux setsid -w, when its child dies of a signal: "setsid: child 1088 did not exit
# normally: Success" (errno printed as it stands), exit status = the signal's number
_SETSID_DIED_RE = re.compile(rb"(?m)^setsid: child \d+ did not exit normally: [^\n]*\n?")


def died_of_signal(status: int, stderr: bytes) -> tuple[int, bytes]:
    """A command setsid -w reports killed: its status as a shell gives it (128 + the signal)
    and, for setsid's line, 'killed by SIGKILL'; anything else unchanged."""
    found = list(_SETSID_DIED_RE.finditer(stderr))
    if not found:
        return status, stderr
    cleaned = _SETSID_DIED_RE.sub(b"", stderr)
    try:
        name = signal.Signals(status).name if 0 < status < 65 else ""
    except ValueError:
        name = ""
    if not name:
        return status, cleaned + b"the command did not exit normally\n"
    return 128 + status, cleaned + f"killed by {name}\n".encode()


class PgidWatcher:
    """Reads stderr, takes the wrapper's ``brickyard-pgid=N`` line out, keeps the rest."""

    def __init__(self) -> None:
        self.pgid: int | None = None
        self.seen = asyncio.Event()
        self._head = b""
        self.parts: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        if self.seen.is_set():
            self.parts.append(chunk)
            return
        self._head += chunk
        while b"\n" in self._head:
            line, self._head = self._head.split(b"\n", 1)
            m = PGID_RE.match(line)
            if m:
                self.pgid = int(m.group(1))
                self.seen.set()
                self.parts.append(self._head)
                self._head = b""
                return
            self.parts.append(line + b"\n")

    def finish(self) -> bytes:
        self.parts.append(self._head)
        self._head = b""
        self.seen.set()
        return b"".join(self.parts)


class SshProcess(RemoteProcess):
    def __init__(self, executor: "SshExecutor", host: _Host, argv: Sequence[str], proc: asyncssh.SSHClientProcess, sudo: bool):
        self._executor = executor
        self._host = host
        self.argv = list(argv)
        self._proc = proc
        self._sudo = sudo
        self._watch = PgidWatcher()
        self._stderr_task = asyncio.ensure_future(self._pump_stderr())
        self._released = False

    async def _pump_stderr(self) -> bytes:
        try:
            while chunk := await self._proc.stderr.read(CHUNK):
                self._watch.feed(chunk)
        except (asyncssh.Error, OSError):
            pass  # the connection died: keep what arrived; stdout_lines/wait report the loss
        return self._watch.finish()

    @property
    def pgid(self) -> int | None:
        return self._watch.pgid

    def _release(self) -> None:
        if not self._released:
            self._released = True
            self._host.channels.release()

    def _lost(self, exc: BaseException) -> Exception:
        return self._executor.connection_lost(self._host, self.argv, exc)

    async def write(self, data: bytes) -> None:
        try:
            self._proc.stdin.write(data)
            await self._proc.stdin.drain()
        except (asyncssh.Error, OSError) as exc:
            raise self._lost(exc) from exc

    async def close_stdin(self) -> None:
        try:
            self._proc.stdin.write_eof()
        except (asyncssh.Error, OSError) as exc:
            raise self._lost(exc) from exc

    async def stdout_lines(self) -> AsyncIterator[bytes]:
        while True:
            try:
                line = await self._proc.stdout.readline()
            except (asyncssh.Error, OSError) as exc:
                raise self._lost(exc) from exc
            if not line:
                return
            yield line.rstrip(b"\n")

    async def stderr_text(self) -> str:
        err = await self._stderr_task
        status = self._proc.exit_status if self._proc.exit_status is not None else -1
        return died_of_signal(status, err)[1].decode(errors="replace")

    async def wait(self, timeout: float | None = None) -> int:
        try:
            await asyncio.wait_for(self._proc.wait_closed(), timeout)
        except asyncio.TimeoutError:
            await self.kill()
            raise CommandTimeout(self._executor.host, self.argv, timeout or 0) from None
        except asyncio.CancelledError:
            await self.kill()
            raise
        self._release()
        status = exit_status(self._proc)
        if status > 0:
            try:        # setsid's report of a killed command: the status a shell would give
                status = died_of_signal(status, await asyncio.wait_for(asyncio.shield(self._stderr_task), 5))[0]
            except asyncio.TimeoutError:
                pass
        return status

    async def kill(self) -> None:
        try:
            await kill_group(self._host.conn, self._watch, self._sudo)
        finally:
            self._proc.close()
            self._release()


def exit_status(proc: asyncssh.SSHClientProcess) -> int:
    if proc.exit_status is not None and proc.exit_status >= 0:
        return proc.exit_status
    code = proc.returncode
    return code if code is not None else 255



async def kill_group(conn: asyncssh.SSHClientConnection, watch: "PgidWatcher", sudo: bool) -> None:
    """Kill the command's process group on the host (over a fresh channel)."""
    try:
        await asyncio.wait_for(watch.seen.wait(), 5)
    except asyncio.TimeoutError:
        return
    if watch.pgid is None or watch.pgid <= 1:
        return
    kill = ["kill", "-KILL", "--", f"-{watch.pgid}"]
    if sudo:
        kill = ["sudo", "-n", "--", *kill]
    try:
        await asyncio.wait_for(conn.run(shlex.join(kill), check=False), 10)
    except (asyncssh.Error, OSError, asyncio.TimeoutError):
        pass
