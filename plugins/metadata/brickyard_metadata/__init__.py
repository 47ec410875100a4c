"""Metadata latency (the lstat write-up): lstat in a tight compiled loop, on the target and on
a local file (the loop's own floor), and on gluster both with the FUSE attribute cache as
mounted and through a second mount with ``attribute-timeout=0,entry-timeout=0``.

Why both: with FUSE's default 1 s attribute/entry timeouts the kernel answers lstat from its
cache (1–2.7 µs, the same as tmpfs); the round trip to gluster is 0.5–0.8 ms on the sandbox.
The write-up's 1.83 µs on GlusterFS was most likely the cache.

The loop is a 40-line C program compiled on the host when ``cc`` exists; otherwise fio's
``filestat`` engine over many files (it does one real lstat per file open, so a single file
would report no-op "iops")."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

from brickyard.bench.api import Measurement, Metric, Param, ParamError, Requirement, WorkerTiming, Workload

UNCACHED_OPTS = "attribute-timeout=0,entry-timeout=0"
# a gluster mount source mount.glusterfs (a shell script) takes whole: host[,host…]:/volume[/subdir]
_GLUSTER_SOURCE = re.compile(r"^[A-Za-z0-9_.%:\[\],-]+:/?[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")


def _inside(path: str, top: str) -> bool:
    return bool(top) and (top == "/" or path.startswith(top.rstrip("/") + "/"))


def loop_source() -> bytes:
    return resources.files(__package__).joinpath("lstat_loop.c").read_bytes()


def parse_loop_output(text: str) -> tuple[int, float]:
    """``(calls, seconds)`` from the helper's "calls seconds" line."""
    parts = text.split()
    if len(parts) != 2:
        raise ValueError(f"unexpected lstat loop output: {text.strip()[:120]!r}")
    return int(parts[0]), float(parts[1])


class LstatLatency(Workload):
    name = "metadata"
    title = "metadata latency (lstat loop)"
    description = ("lstat on one file in a compiled loop for a set time: calls/s and µs per call, on the "
                   "target, on a local file (loop floor) and, on gluster, with the attribute cache off.")
    params = (
        Param("seconds", "seconds", 5.0, "how long each loop runs", minimum=0.2, maximum=3600),
        Param("uncached", "bool", True, f"on gluster (root or passwordless sudo): also measure through a mount with {UNCACHED_OPTS}"),
        Param("files", "int", 2000, "fio filestat fallback only: files stat'ed per loop", minimum=10, maximum=1_000_000),
        Param("engine", "choice", "auto", "auto: C loop if cc exists, else fio filestat", choices=("auto", "c", "fio")),
    )
    requires = (Requirement("cc", "apt-get install gcc (else fio's filestat engine is used)", optional=True),
                Requirement("fio", "apt-get install fio (fallback when there is no cc)", optional=True))
    phases = ("compile helper", "local floor", "target", "target with attribute cache off")

    def step_count(self, values: dict[str, Any]) -> int:
        return 3 if values["uncached"] else 2

    async def run(self, ctx) -> None:
        v = ctx.values
        engines = {}
        for t in ctx.targets:
            engines[t.host] = await self._prepare(ctx, t, v["engine"])
            await ctx.sh(t, ["touch", f"{t.rundir}/lstat-target"])
            await ctx.sh(t, ["touch", f"{t.tmpdir}/lstat-floor"])
        mounts = {}
        notes = []
        if v["uncached"]:
            for t in ctx.targets:
                if t.kind != "gluster":
                    notes.append(f"{t.host}: not a gluster mount, no attribute-cache-off pass")
                elif not t.agent.is_root and not (await ctx.sh(t, ["sudo", "-n", "true"], check=False)).ok:
                    notes.append(f"{t.host}: attribute-cache-off pass needs root or passwordless sudo to mount")
                elif not _GLUSTER_SOURCE.match(t.mount.get("source", "")) or not _inside(t.rundir, t.mount.get("target", "")):
                    notes.append(f"{t.host}: no attribute-cache-off pass: cannot mount {t.mount.get('source', '')!r} "
                                 "again (mount.glusterfs splits a source holding spaces or shell characters)")
                else:
                    mounts[t.host] = await self._mount_uncached(ctx, t)
        try:
            for repeat in range(ctx.repeats):
                floor = await self._measure(ctx, engines, {t.host: f"{t.tmpdir}/lstat-floor" for t in ctx.targets},
                                            "local file (loop floor)", repeat, None)
                await self._measure(ctx, engines, {t.host: f"{t.rundir}/lstat-target" for t in ctx.targets},
                                    "target as mounted (attribute cache per mount options)", repeat, floor,
                                    "; ".join(notes))
                if mounts:
                    await self._measure(ctx, engines, {h: m[1] for h, m in mounts.items()},
                                        f"target via second mount with {UNCACHED_OPTS}", repeat, floor,
                                        uncached=True)
        finally:
            for t in ctx.targets:
                if t.host in mounts:
                    await ctx.sh(t, ["umount", mounts[t.host][0]], check=False, timeout=120, sudo=True)

    async def _prepare(self, ctx, t, engine: str) -> str:
        has_cc = (await ctx.sh(t, ["sh", "-c", "command -v cc"], check=False)).ok
        has_fio = (await ctx.sh(t, ["sh", "-c", "command -v fio"], check=False)).ok
        if engine in ("auto", "c") and has_cc:
            await t.executor.upload(loop_source(), f"{t.tmpdir}/lstat_loop.c")
            res = await ctx.sh(t, ["cc", "-O2", "-o", f"{t.tmpdir}/lstat_loop", f"{t.tmpdir}/lstat_loop.c"], check=False)
            if res.ok:
                return "c"
            if engine == "c":
                raise ParamError(f"{t.host}: cannot compile the lstat loop: {res.stderr.decode(errors='replace')[-300:]}")
        if engine == "c":
            raise ParamError(f"{t.host}: engine=c but there is no cc")
        if not has_fio:
            raise ParamError(f"{t.host}: needs cc (for the lstat loop) or fio (filestat engine); neither found")
        return "fio"

    async def _mount_uncached(self, ctx, t) -> tuple[str, str]:
        source, top = t.mount["source"], t.mount["target"]    # findmnt's, as the engine read it
        mnt = f"{t.tmpdir}/mnt-uncached"
        await ctx.sh(t, ["mkdir", mnt])
        # through sudo when the login is not root (gluster's FUSE mount allows other users in)
        await ctx.sh(t, ["mount", "-t", "glusterfs", "-o", UNCACHED_OPTS, source, mnt], timeout=120, sudo=True)
        rel = t.rundir[len(top):].lstrip("/")
        return mnt, f"{mnt}/{rel}/lstat-target"

    async def _measure(self, ctx, engines, paths: dict[str, str], label: str, repeat: int,
                       floor_us: float | None, note: str = "", uncached: bool = False) -> float:
        secs = ctx.values["seconds"]
        targets = [t for t in ctx.targets if t.host in paths]
        ctx.progress(f"lstat: {label}, repeat {repeat + 1}/{ctx.repeats}")
        # an uncached lstat is a round trip: the RTT to each server beside it calibrates the
        # latency model (core.latency); a cached one or a local file has none
        rtts = {t.host: await ctx.round_trips(t) for t in targets} if uncached else {}
        specs = []
        for t in targets:
            if engines[t.host] == "c":
                specs.append((t, ctx.exec_worker([f"{t.tmpdir}/lstat_loop", paths[t.host], f"{secs:g}"])))
            else:
                d = paths[t.host].rsplit("/", 1)[0] + "/filestat"
                await ctx.sh(t, ["mkdir", "-p", d])
                # fio splits directory= at ':' and expands '$': it works in d (its cwd) instead
                specs.append((t, ctx.exec_worker(["fio", "--output-format=json", "--name=st", "--ioengine=filestat",
                                                  "--stat_type=lstat", f"--nrfiles={ctx.values['files']}",
                                                  "--filesize=4k", "--bs=4k", "--time_based", f"--runtime={max(1, round(secs * 1000))}ms"], cwd=d)))
        runs = await ctx.run_workers(specs, stall_seconds=0, timeout=secs * 3 + 60)
        workers, problems, per_call = [], [], []
        for r in runs:
            calls, seconds = 0, 0.0
            try:
                if engines[r.target.host] == "c":
                    calls, seconds = parse_loop_output(r.stdout)
                else:
                    calls, seconds = _parse_filestat(r.stdout)
            except ValueError as exc:
                problems.append(f"{r.target.host}: {exc} {r.stderr.strip()[-200:]}")
            if calls and seconds:
                per_call.append(seconds / calls * 1e6)
            workers.append(WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                        ops=calls, error=r.timing.error))
        # no loop made a call: there is no µs/call (the step is invalid), not a NaN figure
        us = max(per_call) if per_call else float("nan")
        metrics = [Metric("lstat_us", us, "us", "loop seconds ÷ lstat calls (slowest host)")] if per_call else []
        metrics.append(Metric("calls_per_s", sum(w.ops for w in workers) / secs if secs else 0.0, "ops/s",
                              "lstat calls ÷ loop seconds, all hosts"))
        flags = []
        notes = [note] if note else []
        fuse = any(t.kind == "gluster" for t in targets)
        if floor_us is not None and per_call and us < 3 * floor_us and fuse:
            flags.append("attribute-cache")
            notes.append(f"{us:.2f} µs is within 3× the local floor ({floor_us:.2f} µs): answered by the kernel's "
                         "FUSE attribute cache, not a gluster round trip")
        if floor_us is not None and per_call and floor_us > 0:   # (NaN > 0 is False: no floor measured)
            metrics.append(Metric("floor_ratio", us / floor_us, "ratio", "this µs/call ÷ the local-file loop floor"))
        engine = ",".join(sorted({engines[t.host] for t in targets}))
        ctx.record(Measurement(params={"mount": label, "repeat": repeat, "engine": engine, "seconds": secs,
                                       **({"rtt_ms": rtts} if any(rtts.values()) else {})},
                               workers=workers, metrics=metrics, flags=flags, problems=problems,
                               note="; ".join(notes), throughput_metrics=False))
        return us

    def validate(self, step) -> list[str]:
        problems = [f"worker {w.worker} on {w.host} failed: {w.error}" for w in step.workers if w.error]
        if any(w.ops <= 0 for w in step.workers):
            problems.append("a loop made no lstat calls")
        return problems


def _parse_filestat(stdout: str) -> tuple[int, float]:
    import json

    start = stdout.find("{")
    if start < 0:
        raise ValueError("no JSON from fio filestat")
    doc, _ = json.JSONDecoder().raw_decode(stdout[start:])
    job = doc["jobs"][0]
    read = job["read"]
    return int(read["total_ios"]), int(read["runtime"]) / 1000.0
