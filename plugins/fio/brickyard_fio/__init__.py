"""fio presets (sequential read/write 1 MiB, random read/write 4 KiB) plus user job options,
JSON output parsed. Each fio job is its own fio process (``numjobs`` per client host), all
released together by Brickyard's agent, so every job leaves the same barrier, reports its
start skew, and has its progress sampled for the stonewall figure; or fio's own client/server
mode across several client hosts (one controller: no per-job start, progress or stonewall).

A read preset reads files laid out by this run, after a cache drop. A job that reads more than
its file (``runtime`` longer than one pass) re-reads blocks the page cache may serve: without
``direct=1`` that step is invalid (raise ``size`` or shorten ``runtime``).

Which window each figure covers:
- ``throughput`` (the headline): bytes ÷ (last job's I/O end − first job's I/O start), each job's
  I/O window as fio itself timed it: from its first I/O to the end of its final fsync
  (``end_fsync``), fio's start-up, file layout and exit left out. fio ≥ 3.36 says when each job
  began on the host's monotonic clock (``job_start`` with ``job_start_clock_id=1``); an older
  fio only when it wrote its report, so there the window is placed by the report time (its
  length is fio's own, its place within ~10 ms: fio checks for finished jobs every 10 ms);
- ``fsync_seconds``: how much of that window the final fsync took, at most (a job's runtime −
  the time its I/O calls took, fio's ``lat_ns``; for synchronous engines at iodepth 1 only);
- ``process_throughput``: bytes ÷ (last fio exit − first fio start), the whole processes;
- ``fio_group_bw``: bytes ÷ the longest job's own runtime, fio's "group" bandwidth.
The start skew is the release's (each fio process leaving Brickyard's barrier); how far apart
the jobs' I/O began is ``io_start_spread``.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from brickyard.bench.api import Measurement, Metric, Param, Requirement, WorkerTiming, Workload, parse_size

from .options import parse_options
from .window import REPORT_SLACK, io_window, records_job_start

PRESETS = {
    "seq-write": {"rw": "write", "bs": "1M", "end_fsync": "1"},
    "seq-read": {"rw": "read", "bs": "1M"},
    "rand-write": {"rw": "randwrite", "bs": "4k", "end_fsync": "1"},
    "rand-read": {"rw": "randread", "bs": "4k"},
}
#: engines whose I/O calls run one at a time: their summed latency is the job's I/O phase
SYNC_ENGINES = ("sync", "psync", "vsync", "pvsync", "pvsync2")
# what the first target may call the others by (client_server mode): a host name or address
_SERVER_NAME = re.compile(r"^(?!-)[A-Za-z0-9_.%:-]{1,253}$")


class FioOutputError(ValueError):
    pass


def extract_json(text: str) -> dict[str, Any]:
    """The JSON document in fio's output (client mode prefixes lines like '<host> ...')."""
    start = text.find("\n{")
    start = 0 if text.startswith("{") else (start + 1 if start >= 0 else -1)
    if start < 0:
        raise FioOutputError("no JSON in fio's output: " + text.strip()[-200:])
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError as exc:
        raise FioOutputError(f"fio's JSON does not parse: {exc}") from None
    return doc


def job_stats(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-job figures from a fio JSON document (plain or client/server)."""
    jobs = doc.get("jobs") or [j for j in doc.get("client_stats", []) if j.get("jobname") != "All clients"]
    out = []
    for j in jobs:
        io_bytes = ios = 0
        p99 = 0.0
        runtime_ms = 0
        bw = iops = calls_ns = 0.0
        for d in ("read", "write", "trim"):
            part = j.get(d) or {}
            calls_ns += float((part.get("lat_ns") or {}).get("mean", 0)) * int(part.get("total_ios", 0))
            io_bytes += int(part.get("io_bytes", 0))
            ios += int(part.get("total_ios", 0))
            bw += float(part.get("bw_bytes", 0))
            iops += float(part.get("iops", 0))
            runtime_ms = max(runtime_ms, int(part.get("runtime", 0)))
            pct = (part.get("clat_ns") or {}).get("percentile") or {}
            p99 = max(p99, float(pct.get("99.000000", 0)))
        start_clock = str((j.get("job options") or {}).get("job_start_clock_id", ""))
        out.append({"job": j.get("jobname", ""), "host": j.get("hostname", ""), "error": int(j.get("error", 0)),
                    "io_bytes": io_bytes, "ios": ios, "bw_bytes": bw, "iops": iops,
                    "runtime_ms": runtime_ms or int(j.get("job_runtime", 0)), "clat_p99_ns": p99,
                    "calls_s": calls_ns / 1e9,
                    # when the job's I/O began, in ms on the host's monotonic clock (fio ≥ 3.36, asked for it)
                    "start_ms": j.get("job_start") if start_clock == "1" and isinstance(j.get("job_start"), int) else None,
                    "report_ms": doc.get("timestamp_ms") if isinstance(doc.get("timestamp_ms"), int) else None})
    if not out:
        raise FioOutputError("fio's JSON has no jobs")
    return out


def fio_args(opts: dict[str, str]) -> list[str]:
    return [f"--{k}={v}" for k, v in opts.items()]


def job_file(opts: dict[str, str]) -> str:
    return "[by]\n" + "".join(f"{k}={v}\n" for k, v in opts.items())


class Fio(Workload):
    name = "fio"
    title = "fio presets"
    description = "fio sequential 1 MiB and random 4 KiB reads/writes, user job options, several clients."
    params = (
        Param("presets", "str", "seq-write,seq-read,rand-write,rand-read",
              f"comma-separated presets: {', '.join(PRESETS)}"),
        Param("size", "size", "64M", "file size per fio job", minimum=4096, maximum=1 << 40),
        Param("numjobs", "int", 1, "fio jobs per client host", minimum=1, maximum=256),
        Param("runtime", "seconds", 0, "0: each job does its whole size once; >0: time-based for this many seconds",
              minimum=0, maximum=86400),
        Param("options", "str", "", "extra fio job options, e.g. 'iodepth=16 ioengine=libaio direct=1'"),
        Param("client_server", "bool", False, "several targets: run through fio --server/--client "
              "(one controller on the first target) instead of one fio per host released together"),
        Param("port", "int", 8765, "fio server port (client_server mode)", minimum=1024, maximum=65535),
        Param("server_names", "str", "", "client_server mode: names the first target reaches the others by "
              "(comma-separated, in target order); default the target host names"),
    )
    requires = (Requirement("fio", "apt-get install fio"),)
    phases = ("lay out files", "drop caches", "measure", "cleanup")

    def check(self, values: dict[str, Any]) -> list[str]:
        problems = []
        names = [p.strip() for p in values["presets"].split(",") if p.strip()]
        bad = [n for n in names if n not in PRESETS]
        if not names or bad:
            problems.append(f"presets: {', '.join(bad) or 'none given'}: choose from {', '.join(PRESETS)}")
        try:
            parse_options(values["options"])
        except ValueError as exc:
            problems.append(str(exc))
        bad = [n for n in values["server_names"].split(",") if n.strip() and not _SERVER_NAME.match(n.strip())]
        if bad:
            problems.append(f"server_names: {', '.join(map(repr, bad))} is not a host name or address")
        return problems

    def step_count(self, values: dict[str, Any]) -> int:
        return len([p for p in values["presets"].split(",") if p.strip()])

    def _opts(self, v: dict[str, Any], preset: str, directory: str, numjobs: int | None = None) -> dict[str, str]:
        opts = {"directory": directory, "size": str(v["size"]), "numjobs": str(numjobs or v["numjobs"]),
                "ioengine": "psync", **PRESETS[preset]}
        if v["runtime"]:
            opts.update(runtime=f"{v['runtime']:g}", time_based="1")
        opts.update(parse_options(v["options"]))
        return opts

    async def run(self, ctx) -> None:
        v = ctx.values
        presets = [p.strip() for p in v["presets"].split(",") if p.strip()]
        # which hosts' fio records each job's start on the agent's clock (fio ≥ 3.36)
        starts: dict[str, bool] = {}
        for t in ctx.targets:
            if t.host not in starts:
                res = await ctx.sh(t, ["fio", "--version"], check=False, timeout=60)
                starts[t.host] = records_job_start(res.text)
        servers = []
        if v["client_server"] and len(ctx.targets) > 1:
            servers = await self._start_servers(ctx)
        try:
            for repeat in range(ctx.repeats):
                for preset in presets:
                    # fio splits directory= at ':' and expands '$' in it, and a target path may hold
                    # both: fio works in the run directory (its cwd) and is given a plain relative name
                    where = f"fio-{preset}-r{repeat}"
                    for t in ctx.targets:
                        await ctx.sh(t, ["mkdir", f"{t.rundir}/{where}"])
                    reads = PRESETS[preset]["rw"] in ("read", "randread")
                    if reads:
                        ctx.progress(f"{preset}: laying out files (not recorded)")
                        if servers:
                            await ctx.run_workers([(t, ctx.exec_worker(["fio", "--output-format=json", "--create_only=1",
                                                                         "--name=by", *fio_args(self._opts(v, preset, where))],
                                                                        cwd=t.rundir))
                                                   for t in ctx.targets])
                        else:
                            await ctx.run_workers(self._workers(ctx, preset, where, starts, create_only=True))
                        await ctx.drop_caches()
                    ctx.progress(f"{preset} repeat {repeat + 1}/{ctx.repeats}")
                    if servers:
                        m = await self._measure_client_server(ctx, preset, where, repeat)
                    else:
                        runs = await ctx.run_workers(self._workers(ctx, preset, where, starts))
                        m = self._measurement(preset, repeat, [(r.timing, r.stdout, r.stderr) for r in runs],
                                              runs=runs, opts=self._opts(v, preset, where, numjobs=1))
                        if reads:
                            m.cold_key, m.first_read = preset, True
                            m.problems += self._rereads(m, v)
                    ctx.record(m, direction="read" if "read" in preset else "write")
                    for t in ctx.targets:
                        await ctx.remove(t, f"{t.rundir}/{where}")
        finally:
            for proc in servers:
                await proc.kill()

    def _workers(self, ctx, preset: str, where: str, starts: dict[str, bool], *, create_only: bool = False):
        """One fio process per job and client host, in the run directory: ``by<j>`` lays out
        and reads its own file in ``where``."""
        v = ctx.values
        counter = "rchar" if PRESETS[preset]["rw"] in ("read", "randread") else "wchar"
        first = ["--create_only=1"] if create_only else []
        opts = self._opts(v, preset, where, numjobs=1)
        try:
            step = parse_size(opts.get("bs", "4k").split(",")[0].split("-")[-1])
        except ValueError:            # a unit parse_size does not know: no bound
            step = 0
        return [(t, ctx.exec_worker(["fio", "--output-format=json", *first, f"--name=by{j}", *fio_args(opts),
                                     *(["--job_start_clock_id=1"] if starts.get(t.host) else [])],
                                    cwd=t.rundir, progress=None if create_only else counter, progress_step=step))
                for t in ctx.targets for j in range(v["numjobs"])]

    @staticmethod
    def _rereads(m: Measurement, v: dict[str, Any]) -> list[str]:
        """A job that read more than its file re-read blocks: from the page cache, unless direct."""
        if parse_options(v["options"]).get("direct") == "1":
            return []
        jobs = m.raw.get("jobs") or []
        over = [j for j in jobs if j["io_bytes"] > v["size"] * int(parse_options(v["options"]).get("nrfiles", "1"))]
        if not over:
            return []
        worst = max(over, key=lambda j: j["io_bytes"])
        return [f"fio job {worst['job']} read {worst['io_bytes'] / v['size']:.1f}× its file: the re-read blocks may "
                "come from the page cache, so this is not a cold read (raise size, shorten runtime, or set direct=1)"]

    async def _start_servers(self, ctx):
        procs = []
        for t in ctx.targets:
            # each server works in its host's run directory: the job's directory= is relative to it
            procs.append(await t.executor.start(["sh", "-c", 'cd -- "$1" && exec fio "$2"', "sh", t.rundir,
                                                 f"--server=,{ctx.values['port']}"]))
        ready = ctx.targets[0]
        for name in self._server_names(ctx):      # wait until each server accepts connections
            for _ in range(50):
                res = await ctx.sh(ready, ["python3", "-c", "import socket,sys;socket.create_connection((sys.argv[1],int(sys.argv[2])),2)",
                                           name, str(ctx.values["port"])], check=False, timeout=5)
                if res.ok:
                    break
                await asyncio.sleep(0.2)
            else:
                raise RuntimeError(f"fio server on {name}:{ctx.values['port']} did not answer from {ready.host}")
        return procs

    def _server_names(self, ctx) -> list[str]:
        names = [n.strip() for n in ctx.values["server_names"].split(",") if n.strip()]
        return names if names else [t.host for t in ctx.targets]

    async def _measure_client_server(self, ctx, preset, where: str, repeat) -> Measurement:
        controller = ctx.targets[0]
        argv = ["fio", "--output-format=json"]
        for i, (t, name) in enumerate(zip(ctx.targets, self._server_names(ctx))):
            path = f"{controller.tmpdir}/job-{i}.fio"
            await controller.executor.upload(job_file(self._opts(ctx.values, preset, where)).encode(), path)
            argv += [f"--client={name},{ctx.values['port']}", path]
        runs = await ctx.run_workers([(controller, ctx.exec_worker(argv))])
        m = self._measurement(preset, repeat, [(runs[0].timing, runs[0].stdout, runs[0].stderr)])
        # one controller process: its wall time is mostly fio's client/server handshake, and the
        # per-host start and end are not known, so no wall-clock headline is claimed here
        m.throughput_metrics = False
        m.note = (f"fio client/server through one controller on {controller.host}: per-host start/end unknown, "
                  "fio_group_bw (fio's own) is the figure")
        return m

    @staticmethod
    def _measurement(preset: str, repeat: int, outputs, *, runs=None, opts: dict[str, str] | None = None
                     ) -> Measurement:
        """One step from each fio process's (timing, stdout, stderr). With ``runs`` (the
        ``WorkerRun`` of each, same order) each worker's timing becomes its job's I/O window as
        fio timed it (see the module's notes); the processes' own stay the release's."""
        workers, problems, jobs_all = [], [], []
        raw, windows = [], []
        for i, (timing, stdout, stderr) in enumerate(outputs):
            try:
                jobs = job_stats(extract_json(stdout))
            except FioOutputError as exc:
                problems.append(f"{timing.host}: {exc} {stderr.strip()[-200:]}")
                workers.append(timing)
                windows.append(None)
                continue
            jobs_all += jobs
            raw.append(stdout[-20000:])
            err = timing.error or "; ".join(f"job {j['job']} error {j['error']}" for j in jobs if j["error"])
            workers.append(WorkerTiming(timing.worker, timing.host, timing.start, timing.end,
                                        bytes=sum(j["io_bytes"] for j in jobs), ops=sum(j["ios"] for j in jobs),
                                        error=err))
            windows.append(io_window(jobs[0], runs[i]) if runs is not None and len(jobs) == 1 else None)
        metrics = []
        note = "throughput = bytes ÷ fio wall time incl. start-up; fio_group_bw = fio's own"
        released = None
        if jobs_all:
            total = sum(j["io_bytes"] for j in jobs_all)
            longest = max(j["runtime_ms"] for j in jobs_all) / 1000
            if longest > 0:
                metrics.append(Metric("fio_group_bw", total / longest, "B/s",
                                      "bytes ÷ the longest job's own runtime (fio's group bandwidth; excludes fio start-up)"))
            metrics.append(Metric("fio_sum_job_bw", sum(j["bw_bytes"] for j in jobs_all), "B/s",
                                  "sum of each fio job's own bandwidth (not a wall-clock rate)"))
            metrics.append(Metric("iops", sum(j["iops"] for j in jobs_all), "ops/s", "sum of each fio job's own IOPS"))
            metrics.append(Metric("clat_p99_us", max(j["clat_p99_ns"] for j in jobs_all) / 1000, "us",
                                  "worst job's 99th percentile completion latency"))
        if runs is not None and workers:
            processes = list(workers)
            wall = max(w.end for w in processes) - min(w.start for w in processes)
            total = sum(w.bytes for w in processes)
            if wall > 0:
                metrics.append(Metric("process_throughput", total / wall, "B/s",
                                      "bytes ÷ (last fio exit − first fio start): the whole fio processes, start-up, "
                                      "file layout and exit included"))
            if all(windows):
                released = processes
                workers = [WorkerTiming(w.worker, w.host, win.start, win.end, w.bytes, w.ops, w.error)
                           for w, win in zip(processes, windows)]
                placed = {win.placed_by for win in windows}
                where = ("each job's start as fio recorded it" if placed == {"job start"} else
                         f"fio's report time (this fio records no job start: each window's length is fio's own, "
                         f"its place within {REPORT_SLACK * 1000:.0f} ms)")
                flush = " (to the end of its final fsync)" if any(opts and opts.get(k) == "1" for k in
                                                                  ("end_fsync", "fsync_on_close")) else ""
                note = (f"throughput = bytes ÷ the jobs' I/O window: each job's first I/O to its last{flush} as fio "
                        f"timed it, placed by {where}; fio start-up, layout and exit are in process_throughput")
                if len(windows) > 1:
                    starts = [win.start for win in windows]
                    metrics.append(Metric("io_start_spread", max(starts) - min(starts), "s",
                                          "last job's I/O start − first job's (fio's start-up differs per process)"))
                fsync = Fio._fsync_seconds(jobs_all, opts or {})
                if fsync is not None:
                    metrics.append(Metric("fsync_seconds", fsync, "s",
                                          "the final fsync's share of a job's window, at most: its runtime − the time "
                                          "its I/O calls took (fio's lat_ns × I/Os), the longest over the jobs"))
                    span = max(win.end for win in windows) - min(win.start for win in windows)
                    if span > 0:
                        note += f"; the final fsync took up to {fsync:.3g} s of the {span:.3g} s window"
            else:
                note = ("throughput = bytes ÷ the fio processes' wall time (start-up and layout included): fio did not "
                        "say when each job's I/O ran; fio_group_bw = fio's own")
        return Measurement(params={"preset": preset, "repeat": repeat, "jobs": len(jobs_all), **PRESETS[preset]},
                           workers=workers, metrics=metrics, problems=problems, note=note,
                           raw={"fio_json_tail": raw, "jobs": jobs_all}, released=released)

    @staticmethod
    def _fsync_seconds(jobs: list[dict[str, Any]], opts: dict[str, str]) -> float | None:
        """How long the final fsync took, at most, for the job where it took longest: its
        runtime − the time its I/O calls took. Only where one call runs at a time (a
        synchronous engine at iodepth 1: the calls then fill the I/O phase but for fio's own
        few µs per I/O) and a final fsync is asked for."""
        if opts.get("end_fsync") != "1" and opts.get("fsync_on_close") != "1":
            return None
        if opts.get("ioengine", "psync") not in SYNC_ENGINES or opts.get("iodepth", "1") != "1":
            return None
        return max(max(0.0, j["runtime_ms"] / 1000 - j["calls_s"]) for j in jobs)

    def validate(self, step) -> list[str]:
        problems = [f"worker {w.worker} on {w.host} failed: {w.error}" for w in step.workers if w.error]
        if not any(w.bytes for w in step.workers):
            problems.append("fio moved no bytes")
        return problems

