"""Run a ``brickyard`` command on a pseudo-terminal, as a user at a shell would, answering
its prompts (``getpass`` reads the controlling terminal, not stdin)."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sys
import time
from dataclasses import dataclass, field


@dataclass
class TerminalRun:
    code: int
    output: str                                         # everything the terminal showed
    prompts: list[str] = field(default_factory=list)   # each prompt answered, in order

    def json(self) -> dict:
        """The one JSON document a ``--json`` command printed (it starts on a line of its own)."""
        start = self.output.index("\n{") + 1 if not self.output.startswith("{") else 0
        return json.loads(self.output[start:])


def run_on_terminal(argv: list[str], answers: dict[str, str], env: dict[str, str],
                    timeout: float = 180.0) -> TerminalRun:
    """``brickyard ARGV`` on a new pty (its controlling terminal). A prompt line that ends in
    ``": "`` and contains a key of ``answers`` gets that answer."""
    pid, fd = pty.fork()
    if pid == 0:   # the child: a session of its own with the pty as its terminal
        try:
            os.execve(sys.executable, [sys.executable, "-c", "import sys; from brickyard.cli import main; "
                                       "sys.exit(main())", *argv], env)
        finally:
            os._exit(127)
    out = b""
    prompts: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:   # EIO: the child closed the terminal
                chunk = b""
            if not chunk:
                break
            out += chunk
            tail = out.decode(errors="replace").replace("\r", "").split("\n")[-1]
            reply = next((v for k, v in answers.items() if k in tail), None) if tail.endswith(": ") else None
            if reply is not None:
                prompts.append(tail)
                os.write(fd, reply.encode() + b"\n")
                out += b"\n"     # the answer is not echoed: end the prompt's line here
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise TimeoutError(f"brickyard {' '.join(argv)} did not finish in {timeout:g} s:\n"
                               f"{out.decode(errors='replace')}")
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return TerminalRun(os.waitstatus_to_exitcode(status), out.decode(errors="replace").replace("\r", ""), prompts)
