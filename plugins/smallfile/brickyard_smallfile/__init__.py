"""Small-file extract (the three-site write-up): ``tar -xzf`` of a generated WordPress-shaped
tarball (193 directories, 1,835 files, 42.7 MB) onto the target; seconds, objects/s and
per-object latency, beside the same extract into a tmpfs on the same host as the baseline."""

from __future__ import annotations

from typing import Any

from brickyard.bench.api import Measurement, Metric, Param, Requirement, WorkerTiming, Workload

from .tree import Tarball, wordpress_shaped

TMPFS = "/dev/shm"


class SmallFileExtract(Workload):
    name = "smallfile"
    title = "small-file extract (WordPress-shaped)"
    description = ("Extract a generated tarball shaped like a WordPress release onto the target "
                   "(193 dirs, 1,835 files, ≈43 MB); seconds, objects/s, ms per object; tmpfs baseline.")
    params = (
        Param("scale", "float", 1.0, "fraction of the full tree (0.05 = 5 %: quick checks)", minimum=0.01, maximum=1.0),
        Param("baseline", "bool", True, f"also extract into a tmpfs ({TMPFS}) on the same host"),
    )
    requires = (Requirement("tar"), Requirement("gzip"), Requirement("find", "findutils"))
    phases = ("upload tarball", "extract", "verify", "cleanup")

    def step_count(self, values: dict[str, Any]) -> int:
        return 2 if values["baseline"] else 1

    async def run(self, ctx) -> None:
        tarball = wordpress_shaped(ctx.values["scale"])
        for t in ctx.targets:
            await t.executor.upload(tarball.data, f"{t.tmpdir}/wordpress-shaped.tar.gz")
        baseline_dirs = {}
        if ctx.values["baseline"]:
            for t in ctx.targets:
                kind = await ctx.sh(t, ["findmnt", "-n", "-o", "FSTYPE", "--target", TMPFS], check=False)
                if kind.text.split()[:1] == ["tmpfs"]:
                    baseline_dirs[t.host] = await t.agent.mkdir(f"{TMPFS}/brickyard-{ctx.run_result.run_id[:12]}")
        try:
            for repeat in range(ctx.repeats):
                where = {t.host: t.rundir for t in ctx.targets}
                await self._extract(ctx, tarball, where, repeat, "target")
                if baseline_dirs:
                    await self._extract(ctx, tarball, baseline_dirs, repeat, "tmpfs baseline")
        finally:
            for t in ctx.targets:
                if t.host in baseline_dirs:
                    await ctx.remove(t, baseline_dirs[t.host])

    async def _extract(self, ctx, tarball: Tarball, where: dict[str, str], repeat: int, label: str) -> None:
        targets = [t for t in ctx.targets if t.host in where]
        dests = {t.host: f"{where[t.host]}/extract-r{repeat}" for t in targets}
        for t in targets:
            await ctx.sh(t, ["mkdir", dests[t.host]])
        ctx.progress(f"extract into {label}, repeat {repeat + 1}/{ctx.repeats}")
        # the RTT to each server just before: the latency model is calibrated on figure and RTT
        rtts = {t.host: await ctx.round_trips(t) for t in targets} if label == "target" else {}
        runs = await ctx.run_workers([(t, ctx.exec_worker(["tar", "-xzf", f"{t.tmpdir}/wordpress-shaped.tar.gz",
                                                            "-C", dests[t.host]])) for t in targets])
        problems = []
        workers = []
        for r in runs:
            t = r.target
            counted = await self._count(ctx, t, dests[t.host])
            if counted != (tarball.dirs, tarball.files):
                problems.append(f"{t.host}: found {counted[0]} dirs / {counted[1]} files, expected "
                                f"{tarball.dirs} / {tarball.files}")
            workers.append(WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                        bytes=tarball.file_bytes, ops=tarball.objects, error=r.timing.error))
        seconds = max(w.end for w in workers) - min(w.start for w in workers)
        per_host = [w.seconds for w in workers]
        metrics = [
            Metric("seconds", max(per_host), "s", "slowest host's extract time (tar -xzf, no sync)"),
            Metric("objects_per_s", sum(w.ops for w in workers) / seconds if seconds > 0 else 0.0, "ops/s",
                   "directories + files created ÷ (last end − first start)"),
            Metric("per_object_ms", 1000 * max(per_host) / tarball.objects, "ms",
                   "slowest host's extract time ÷ objects (the write-up's 'per object')"),
        ]
        ctx.record(Measurement(params={"where": label, "repeat": repeat, "objects": tarball.objects,
                                       "files": tarball.files, "dirs": tarball.dirs,
                                       "scale": ctx.values["scale"],
                                       **({"rtt_ms": rtts} if any(rtts.values()) else {})},
                               workers=workers, metrics=metrics, problems=problems), direction="write")
        for t in targets:
            await ctx.remove(t, dests[t.host])

    @staticmethod
    async def _count(ctx, t, path: str) -> tuple[int, int]:
        res = await ctx.sh(t, ["find", path, "-mindepth", "1", "-printf", "%y\\n"], timeout=600)
        kinds = res.text.split()
        return kinds.count("d"), kinds.count("f")

    def validate(self, step) -> list[str]:
        return [f"worker {w.worker} on {w.host} failed: {w.error}" for w in step.workers if w.error]
