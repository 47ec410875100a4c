"""One interface for running commands on a host, over SSH or locally.

Everything is an argument list: an executor never takes a shell string. Where a remote
shell is unavoidable (SSH sends one string), the executor joins the list with
``shlex.quote`` so no user-supplied text reaches the shell unquoted.

Async throughout; the app runs these on the one asyncio loop thread (``remote.loop``) and
hands results to Qt through signals. Cancelling the awaiting task kills the remote
process group.
"""

from __future__ import annotations

import abc
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Callable, Sequence


class ExecutorError(Exception):
    """A host could not run a command at all (unreachable, authentication, …).

    ``host`` names the host; the message says what failed and what to do.
    """

    def __init__(self, host: str, message: str):
        self.host = host
        super().__init__(f"{host}: {message}")


class CommandFailed(ExecutorError):
    """Raised by ``run(..., check=True)`` when the command exits non-zero."""

    def __init__(self, result: "CommandResult"):
        self.result = result
        tail = (result.stderr or result.stdout).decode(errors="replace").strip().splitlines()[-3:]
        super().__init__(result.host, f"`{result.display}` exited {result.exit_status}: {' | '.join(tail)}")


class CommandTimeout(ExecutorError):
    def __init__(self, host: str, argv: Sequence[str], seconds: float):
        self.argv = list(argv)
        self.seconds = seconds
        super().__init__(host, f"`{shlex.join(argv)}` did not finish within {seconds:g} s (killed)")


@dataclass(frozen=True)
class CommandResult:
    host: str
    argv: tuple[str, ...]
    exit_status: int
    stdout: bytes
    stderr: bytes
    started: float  # time.time() on this workstation
    ended: float

    @property
    def ok(self) -> bool:
        return self.exit_status == 0

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    @property
    def display(self) -> str:
        return shlex.join(self.argv)

    @property
    def text(self) -> str:
        return self.stdout.decode(errors="replace")


class RemoteProcess(abc.ABC):
    """A started command whose stdin/stdout the caller talks to (the bench agent)."""

    @abc.abstractmethod
    async def write(self, data: bytes) -> None: ...

    @abc.abstractmethod
    async def close_stdin(self) -> None: ...

    @abc.abstractmethod
    def stdout_lines(self) -> AsyncIterator[bytes]:
        """Lines of stdout (with the newline stripped) until EOF."""

    @abc.abstractmethod
    async def stderr_text(self) -> str:
        """All of stderr, once the process has ended."""

    @abc.abstractmethod
    async def wait(self, timeout: float | None = None) -> int:
        """The exit status; raises CommandTimeout (after killing) when it takes too long."""

    @abc.abstractmethod
    async def kill(self) -> None:
        """Kill the whole remote process group; safe to call twice."""


class Executor(abc.ABC):
    """Runs argument lists on one host. ``host`` is the name shown to the user."""

    host: str

    @abc.abstractmethod
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
        """Run to completion. ``on_output`` receives stdout chunks as they arrive.
        ``sudo`` runs it through ``sudo -n`` when the login user is not root."""

    @abc.abstractmethod
    async def start(self, argv: Sequence[str], *, sudo: bool = False) -> RemoteProcess:
        """Start a long-running command and talk to it."""

    @abc.abstractmethod
    async def upload(self, data: bytes | Path, remote_path: str, mode: int = 0o644) -> None:
        """Write bytes (or a local file's bytes) to ``remote_path`` on the host."""

    async def machine_key(self) -> str:
        """What tells this machine apart from every other whatever name it is reached by
        (an SSH host key's fingerprint), or '' when the executor cannot say: per-host
        benchmark locks fall back to the name then."""
        return ""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release the connection (pooled executors close their pooled connection)."""

    async def __aenter__(self) -> "Executor":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
