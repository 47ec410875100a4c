"""``LocalExecutor``: the executor interface on this workstation (localhost baselines, tests).

Every command starts in a new session (its own process group), so a timeout or a cancelled
task kills the command and everything it spawned, not just the first process.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from pathlib import Path
from typing import AsyncIterator, Callable, Sequence

from ..core.atomicfile import write_atomic
from .executor import CommandFailed, CommandResult, CommandTimeout, Executor, ExecutorError, RemoteProcess

_CHUNK = 65536
#: longest stdout line ``stdout_lines`` takes: the bench agent's step report carries each
#: worker's output tail (256 KiB each), far past asyncio's 64 KiB default
LINE_LIMIT = 1 << 28


def _kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (started with ``start_new_session``)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def cannot_start(program: str, exc: OSError, cwd: str | None) -> str:
    """Why ``program`` could not be started, naming what is really missing: the program, its
    interpreter, its working directory or another file the start needs (/dev/null)."""
    missing = os.fsdecode(exc.filename) if exc.filename is not None else ""
    why = exc.strerror or str(exc)
    if cwd is not None and missing == os.fsdecode(cwd):
        return f"cannot start {program!r}: its working directory {missing}: {why}"
    if missing and missing != program:
        return f"cannot start {program!r}: {missing}: {why} (the program is there; this file is needed to start it)"
    found = shutil.which(program)
    if isinstance(exc, FileNotFoundError) and found:
        return f"cannot start {program!r}: {found} is there, but the interpreter its first line names is not ({why})"
    return f"cannot start {program!r}: {why}"


def _sudo_prefix(sudo: bool) -> list[str]:
    return ["sudo", "-n", "--"] if sudo and os.geteuid() != 0 else []


class LocalProcess(RemoteProcess):
    """A local child process in its own process group."""

    def __init__(self, host: str, argv: Sequence[str], proc: asyncio.subprocess.Process):
        self.host = host
        self.argv = list(argv)
        self._proc = proc
        self._stderr_task = asyncio.ensure_future(proc.stderr.read()) if proc.stderr else None

    @property
    def pid(self) -> int:
        return self._proc.pid

    async def write(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(data)
        await self._proc.stdin.drain()

    async def close_stdin(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.is_closing():
            self._proc.stdin.close()

    async def stdout_lines(self) -> AsyncIterator[bytes]:
        assert self._proc.stdout is not None
        while True:
            line = await self._proc.stdout.readline()
            if not line:
                return
            yield line.rstrip(b"\n")

    async def stderr_text(self) -> str:
        if self._stderr_task is None:
            return ""
        return (await self._stderr_task).decode(errors="replace")

    async def wait(self, timeout: float | None = None) -> int:
        try:
            return await asyncio.wait_for(self._proc.wait(), timeout)
        except asyncio.TimeoutError:
            await self.kill()
            raise CommandTimeout(self.host, self.argv, timeout or 0) from None
        except asyncio.CancelledError:
            await self.kill()
            raise

    async def kill(self) -> None:
        if self._proc.returncode is None:
            _kill_group(self._proc.pid)
            await self._proc.wait()


class LocalExecutor(Executor):
    """Runs argument lists as child processes of this program."""

    def __init__(self, host: str = "localhost", *, env: dict[str, str] | None = None, cwd: str | None = None):
        self.host = host
        self._env = env
        self._cwd = cwd

    async def _spawn(self, argv: Sequence[str], sudo: bool, stdin: bool) -> asyncio.subprocess.Process:
        if not argv:
            raise ValueError("empty argument list")
        full = [*_sudo_prefix(sudo), *map(str, argv)]
        try:
            return await asyncio.create_subprocess_exec(
                *full,
                stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                env=self._env,
                cwd=self._cwd,
                limit=LINE_LIMIT,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            raise ExecutorError(self.host, cannot_start(full[0], exc, self._cwd)) from exc

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
        proc = await self._spawn(argv, sudo, stdin=input is not None)

        async def collect() -> tuple[bytes, bytes]:
            async def pump_stdout() -> bytes:
                parts = []
                assert proc.stdout is not None
                while chunk := await proc.stdout.read(_CHUNK):
                    parts.append(chunk)
                    if on_output is not None:
                        on_output(chunk)
                return b"".join(parts)

            async def feed() -> None:
                if input is not None and proc.stdin is not None:
                    try:
                        proc.stdin.write(input)
                        await proc.stdin.drain()
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    proc.stdin.close()

            assert proc.stderr is not None
            out, err, _ = await asyncio.gather(pump_stdout(), proc.stderr.read(), feed())
            await proc.wait()
            return out, err

        try:
            out, err = await asyncio.wait_for(collect(), timeout)
        except asyncio.TimeoutError:
            _kill_group(proc.pid)
            await proc.wait()
            raise CommandTimeout(self.host, argv, timeout or 0) from None
        except BaseException:
            _kill_group(proc.pid)
            await proc.wait()
            raise
        result = CommandResult(self.host, tuple(map(str, argv)), proc.returncode or 0, out, err, started, time.time())
        if check and not result.ok:
            raise CommandFailed(result)
        return result

    async def start(self, argv: Sequence[str], *, sudo: bool = False) -> RemoteProcess:
        proc = await self._spawn(argv, sudo, stdin=True)
        return LocalProcess(self.host, argv, proc)

    async def upload(self, data: bytes | Path, remote_path: str, mode: int = 0o644) -> None:
        payload = data.read_bytes() if isinstance(data, Path) else data
        target = Path(remote_path)
        if not target.parent.is_dir():
            raise ExecutorError(self.host, f"cannot upload to {remote_path}: {target.parent} is not a directory")
        write_atomic(target, payload, new_mode=mode, keep_mode=False)

    async def close(self) -> None:
        return None
