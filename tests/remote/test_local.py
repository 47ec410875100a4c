"""LocalExecutor: the executor interface on this machine."""

import asyncio
import os
import time

import pytest

from brickyard.remote.executor import CommandFailed, CommandTimeout, ExecutorError
from brickyard.remote.local import LocalExecutor


def _run(coro):
    return asyncio.run(coro)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it is dead for our purposes
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def _wait_gone(pid: int, seconds: float = 20.0) -> bool:
    """Waits (up to ``seconds``: a loaded CI machine kills slowly) until ``pid`` is gone."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.02)
    return False


def _running_with(marker: str) -> list[int]:
    """The live processes whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if marker.encode() in fh.read() and _alive(int(entry)):
                    found.append(int(entry))
        except OSError:
            pass
    return found


def timed_out_group_is_killed(run_with_timeout, pidfile, timeouts=(1.5, 5.0, 20.0)) -> None:
    """Runs ``sh -c 'sleep & echo $! > pidfile; wait'`` through ``run_with_timeout(argv, timeout)``
    (which must raise CommandTimeout) and asserts the timeout left no process of it alive: the
    shell and, above all, the grandchild a plain kill of the shell would leave behind.

    A machine too loaded to even start the command before the timeout fired cannot show the
    grandchild being killed (the kill came first; the marker check still says nothing is left),
    so the next, longer timeout is tried until the grandchild was there to be killed."""
    for timeout in timeouts:
        marker = f"{time.time_ns() % 10**9}"    # a sleep of 60.<marker> s: unique on this machine
        pidfile.unlink(missing_ok=True)
        with pytest.raises(CommandTimeout):
            run_with_timeout(["sh", "-c", f"sleep 60.{marker} & echo $! > {pidfile}; wait"], timeout)
        deadline = time.monotonic() + 20
        while _running_with(f"60.{marker}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running_with(f"60.{marker}") == [], f"still running after a {timeout} s timeout"
        pid = pidfile.read_text().strip() if pidfile.exists() else ""
        if pid:
            assert _wait_gone(int(pid))
            return
    pytest.fail(f"the command never started its grandchild within {timeouts[-1]} s")


def test_run_returns_status_output_and_timing():
    result = _run(LocalExecutor().run(["sh", "-c", "echo out; echo err >&2; exit 3"]))
    assert result.exit_status == 3 and not result.ok
    assert result.stdout == b"out\n" and result.stderr == b"err\n"
    assert result.ended >= result.started and result.host == "localhost"


def test_arguments_are_passed_verbatim_not_through_a_shell(tmp_path):
    canary = tmp_path / "canary"
    text = f"x; touch {canary}; $(touch {canary}) `touch {canary}`"
    result = _run(LocalExecutor().run(["printf", "%s", text]))
    assert result.stdout.decode() == text
    assert not canary.exists()


def test_input_is_fed_to_stdin_and_output_streams_to_callback():
    chunks: list[bytes] = []
    result = _run(LocalExecutor().run(["cat"], input=b"hello\n", on_output=chunks.append))
    assert result.stdout == b"hello\n" and b"".join(chunks) == b"hello\n"


def test_check_raises_command_failed_with_the_tail_of_stderr():
    with pytest.raises(CommandFailed) as info:
        _run(LocalExecutor("box").run(["sh", "-c", "echo nope >&2; exit 2"], check=True))
    assert info.value.result.exit_status == 2
    assert "box:" in str(info.value) and "nope" in str(info.value)


def test_missing_program_is_an_executor_error():
    with pytest.raises(ExecutorError, match="cannot start"):
        _run(LocalExecutor().run(["/nonexistent/brickyard-no-such-program"]))


def test_timeout_kills_the_whole_process_group(tmp_path):
    # the shell starts a grandchild that would outlive a plain kill of the shell
    timed_out_group_is_killed(lambda argv, timeout: _run(LocalExecutor().run(argv, timeout=timeout)),
                              tmp_path / "child.pid", timeouts=(0.5, 5.0, 20.0))


def test_cancel_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = f"sleep 30 & echo $! > {pidfile}; wait"

    async def main():
        task = asyncio.create_task(LocalExecutor().run(["sh", "-c", script], timeout=None))
        while not pidfile.exists() or not pidfile.read_text().strip():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    _run(main())
    assert _wait_gone(int(pidfile.read_text()))


def test_started_process_talks_over_stdin_and_stdout():
    async def main():
        proc = await LocalExecutor().start(["sh", "-c", "while read l; do echo got:$l; done; echo bye >&2"])
        await proc.write(b"a\nb\n")
        await proc.close_stdin()
        lines = [line async for line in proc.stdout_lines()]
        status = await proc.wait(5)
        return lines, status, await proc.stderr_text()

    lines, status, err = _run(main())
    assert lines == [b"got:a", b"got:b"] and status == 0 and err == "bye\n"


def test_started_process_kill_and_wait_timeout():
    async def main():
        proc = await LocalExecutor().start(["sleep", "30"])
        with pytest.raises(CommandTimeout):
            await proc.wait(0.2)
        await proc.kill()  # second kill is harmless
        return proc.pid

    assert _wait_gone(_run(main()))


def test_upload_writes_bytes_and_files_with_mode(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"\x00\x01payload")
    ex = LocalExecutor()
    _run(ex.upload(b"#!/bin/sh\necho hi\n", str(tmp_path / "run.sh"), mode=0o755))
    _run(ex.upload(src, str(tmp_path / "copy.bin")))
    assert (tmp_path / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "copy.bin").read_bytes() == b"\x00\x01payload"
    assert _run(ex.run([str(tmp_path / "run.sh")])).stdout == b"hi\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.bin", "run.sh", "src.bin"]


def test_upload_into_a_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(ExecutorError, match="not a directory"):
        _run(LocalExecutor().upload(b"x", str(tmp_path / "no" / "file")))


def test_a_command_that_cannot_start_names_what_is_missing(tmp_path, monkeypatch):
    """Not "cannot start 'sh': No such file or directory" when sh is there (issue 25, "Also")."""
    import asyncio

    from brickyard.remote import local
    from brickyard.remote.executor import ExecutorError
    from brickyard.remote.local import LocalExecutor

    def error(ex, argv):
        with pytest.raises(ExecutorError) as caught:
            asyncio.run(ex.run(argv))
        return str(caught.value)

    gone = tmp_path / "gone"
    assert error(LocalExecutor("h", cwd=str(gone)), ["sh", "-c", "true"]) == \
        f"h: cannot start 'sh': its working directory {gone}: No such file or directory"
    assert error(LocalExecutor("h"), ["no-such-program-brickyard"]) == \
        "h: cannot start 'no-such-program-brickyard': No such file or directory"
    script = tmp_path / "tool"
    script.write_text("#!/nonexistent/interpreter\n")
    script.chmod(0o755)
    assert error(LocalExecutor("h"), [str(script)]) == (
        f"h: cannot start {str(script)!r}: {script} is there, but the interpreter its first line names is not "
        "(No such file or directory)")
    monkeypatch.setattr(local.os, "devnull", str(tmp_path / "dev" / "null"))     # /dev being repaired
    assert error(LocalExecutor("h"), ["sh", "-c", "true"]) == (
        f"h: cannot start 'sh': {tmp_path / 'dev' / 'null'}: No such file or directory (the program is there; "
        "this file is needed to start it)")
