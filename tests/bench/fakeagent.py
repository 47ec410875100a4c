"""A fake client host for the run engine: its benchmark agent answers from a script.

``ScriptedHost`` answers the commands the engine runs (provenance, mount, link look-up,
requirement probes, ``gluster volume info`` from a recorded fixture) and starts a fake agent
that speaks the agent's JSON-line protocol. Each ``step`` op gets its workers from the next
function in ``steps``: ``fn(specs, t0) -> (workers, progress events)``, with times on this
process's monotonic clock (the fake agent's clock), so the engine's clock maths run as they do
against a real host. Every op the agent received is in ``ops``.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Callable

from brickyard.remote.executor import CommandResult, Executor, RemoteProcess

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
StepScript = Callable[[list[dict[str, Any]], float], "tuple[list[dict[str, Any]], list[dict[str, Any]]]"]


def worker(i: int, start: float, end: float, *, stderr: str = "", stdout: str = "", result: dict | None = None,
           counter: str | None = None, curve: list[tuple[float, int]] | None = None) -> dict[str, Any]:
    """One worker as the agent reports it in ``step_done``."""
    w = {"worker": i, "start": start, "end": end, "exit": 0, "rchar": 0, "wchar": 0, "bytes": None, "ops": None,
         "exhausted": False, "progress": counter, "samples": [list(p) for p in curve] if curve else None,
         "stdout": stdout, "stderr": stderr, "parked": True}
    if result:
        w.update(result)
    return w


class FakeAgent(RemoteProcess):
    def __init__(self, host: "ScriptedHost"):
        self.host = host
        self.out: asyncio.Queue = asyncio.Queue()
        self.out.put_nowait({"event": "hello", "version": 1, "pid": 4242, "t": time.monotonic(), "euid": host.euid,
                             "python": "3.11"})

    async def write(self, data: bytes) -> None:
        for line in data.decode().splitlines():
            cmd = json.loads(line)
            self.host.ops.append(cmd)
            await self._answer(cmd)

    async def _answer(self, cmd: dict[str, Any]) -> None:
        op = cmd.get("op")
        if op == "clock":
            def reply():
                self.out.put_nowait({"event": "clock", "id": cmd["id"], "t": time.monotonic(), "w": time.time()})
            if self.host.request_delay:      # a one-sided path: requests arrive late, replies do not
                asyncio.get_running_loop().call_later(self.host.request_delay, reply)
            else:
                reply()
        elif op in ("mkdir", "rmtree"):
            self.out.put_nowait({"event": "ok", "op": op, "path": cmd["path"]})
        elif op == "sweep":
            self.out.put_nowait({"event": "ok", "op": op, "swept": []})
        elif op == "tempdir":
            self.out.put_nowait({"event": "ok", "op": op, "path": f"/tmp/brickyard-{cmd['kind']}.fake"})
        elif op == "dropcaches":
            if self.host.drop_fails:
                self.out.put_nowait({"event": "error", "op": op, "message": "Permission denied"})
            else:
                self.out.put_nowait({"event": "ok", "op": op})
        elif op == "step":
            t0 = time.monotonic()
            extra = {}
            if self.host.keeps_time and cmd.get("release_at") is not None:
                # released at the instant it was given on this host's clock (this process's), or late
                t0 = cmd["release_at"] + self.host.release_late
                extra = {"wall": time.time() - time.monotonic(), "late": self.host.release_late}
            workers, events = self.host.steps.pop(0)(cmd["workers"], t0)
            self.out.put_nowait({"event": "released", "id": cmd["id"], "t": t0})
            for ev in events:
                self.out.put_nowait({"event": "progress", "id": cmd["id"], **ev})
            self.out.put_nowait({"event": "step_done", "id": cmd["id"], "released": t0, "workers": workers,
                                 "release": "ptrace", "stalled": False, "timed_out": False, "idle_seconds": 0.0,
                                 "max_idle_seconds": 0.0, **extra})
        elif op == "exit":
            self.out.put_nowait({"event": "bye"})
            self.out.put_nowait(None)
        else:   # an op this fake does not know: say so at once rather than let the engine wait
            self.out.put_nowait({"event": "error", "op": op, "message": f"the fake agent does not know op {op!r}"})

    async def close_stdin(self) -> None:
        self.out.put_nowait(None)

    async def stdout_lines(self):
        while True:
            ev = await self.out.get()
            if ev is None:
                return
            yield json.dumps(ev).encode()

    async def stderr_text(self) -> str:
        return ""

    async def wait(self, timeout: float | None = None) -> int:
        return 0

    async def kill(self) -> None:
        self.out.put_nowait(None)


class ScriptedHost(Executor):
    """A client (or server) host with a scripted agent; see the module docstring."""

    def __init__(self, host: str, steps: list[StepScript] | None = None, *, euid: int = 0, drop_fails: bool = False,
                 fstype: str = "fuse.glusterfs", source: str = "node1:/vdist", link_mbps: int | None = 1000,
                 link_kind: str = "physical", volume_xml: str = "gluster/lab-volume-info-vdist.xml",
                 keeps_time: bool = False, request_delay: float = 0.0, release_late: float = 0.0):
        self.host = host
        # keeps_time: its agent releases at the instant it is given (plus release_late) and says
        # how its clocks relate; request_delay: clock requests reach it this late (replies do not)
        self.keeps_time, self.request_delay, self.release_late = keeps_time, request_delay, release_late
        self.steps = list(steps or [])
        self.euid = euid
        self.drop_fails = drop_fails
        self.mount = f'FSTYPE="{fstype}" SOURCE="{source}" OPTIONS="rw" TARGET="/mnt/gv0"'
        self.mount_json = json.dumps({"filesystems": [{"source": source, "fstype": fstype, "target": "/mnt/gv0"}]})
        self.link = {"dev": "eth0", "local": False, "kind": link_kind, "mbps": link_mbps}
        self.volume_xml = (FIXTURES / volume_xml).read_text()
        self.ops: list[dict[str, Any]] = []
        self.commands: list[list[str]] = []

    async def run(self, argv, *, timeout=60.0, input=None, sudo=False, check=False, on_output=None) -> CommandResult:
        argv = list(argv)
        self.commands.append(argv)
        status, out = 0, ""
        if argv[0] == "mktemp":
            out = "/tmp/brickyard-agent.fake\n"
        elif argv[:2] == ["findmnt", "-J"]:
            out = self.mount_json + "\n"
        elif argv[0] == "findmnt":
            out = self.mount + "\n"
        elif argv[:2] == ["python3", "-c"] and "route_dev" in argv[2]:
            out = json.dumps({name: {"addr": "10.0.0.1", **self.link} for name in argv[3:]})
        elif argv[0] == "gluster":
            out = self.volume_xml
        elif argv[0] == "sysctl":
            status = 1 if self.drop_fails else 0
        elif argv[0] == "uname":
            out = "6.1.0-fake\n"
        now = time.time()
        return CommandResult(self.host, tuple(argv), status, out.encode(), b"", now, now)

    async def start(self, argv, *, sudo=False) -> RemoteProcess:
        return FakeAgent(self)

    async def upload(self, data, remote_path, mode=0o644) -> None:
        return None

    async def close(self) -> None:
        return None


# ---- a disk played at a model rate (dd writes) ---------------------------------------------
MIB, GIB = 1 << 20, 1 << 30


def argv_bytes(spec) -> tuple[int, int]:
    args = dict(a.split("=", 1) for a in spec["argv"][1:] if "=" in a)
    return int(args["bs"]), int(args["bs"]) * int(args["count"])


def model_disk(single_bps: float, together_bps: float, per_call: float = 1e-6, sync: float = 0.005,
               by_block: dict[int, float] | None = None):
    """A target's dd write: each file at ``single_bps`` (or ``by_block[bs]``; less per-call cost
    for small blocks), N files at once sharing ``together_bps`` at most, plus an fdatasync."""
    def script(specs, t0):
        out = []
        for i, spec in enumerate(specs):
            block, size = argv_bytes(spec)
            bps = (by_block or {}).get(block, single_bps)
            alone = block / (block / bps + per_call)
            rate = min(alone, together_bps / len(specs))
            seconds = size / rate + sync
            stderr = f"{size} bytes copied, {seconds:.6f} s, {size / seconds / 1e6:.0f} MB/s\n"
            out.append(worker(i, t0, t0 + seconds, stderr=stderr, counter=spec.get("progress"),
                              curve=[(t0, 0), (t0 + seconds, size)]))
        return out, []
    return script


class FakeDisk(ScriptedHost):
    """A fake host playing ``script`` for every step, whose target filesystem has ``free``
    bytes available (``stat -f``; None: not known)."""

    def __init__(self, script, free: int | None = None):
        super().__init__("client1", [script] * 400, fstype="tmpfs", source="tmpfs")
        self.free = free

    async def run(self, argv, **kw) -> CommandResult:
        if list(argv[:2]) == ["stat", "-f"] and self.free is not None:
            now = time.time()
            return CommandResult(self.host, tuple(argv), 0, f"{self.free // 4096} 4096\n".encode(), b"", now, now)
        return await super().run(argv, **kw)
