"""dd sweep: block sizes × concurrency × direction, the Korean write-up done right.

What the write-up's script got wrong, and what this does instead:
- it summed each dd's own MB/s; here the headline is total bytes ÷ (last end − first start)
  and the sum of rates is kept beside it, labelled;
- ``dd bs=X count=1`` made every step one block (1 KiB steps lasted microseconds); here each
  file gets ``size`` bytes (count = size ÷ block size) so steps last long enough to mean something,
  or, with ``step_seconds``, as many bytes as the target writes in about that long (a timed
  write, not recorded, sizes each block size's files once per run: one size fits no disk from
  an HDD to tmpfs);
- writes had no flush, so they measured the page cache; here ``conv=fdatasync``;
- workers released through a FIFO one "Go" at a time; here the agent parks every worker and
  releases them at once, and the start skew is recorded.

Each dd names its payload counter (bytes written for a write, read for a read), so the agent
samples every dd's progress: the stonewall figure is the bytes all dd's had moved when the
first one finished. A read step reads files this step wrote, after a cache drop: a first read.
"""

from __future__ import annotations

import re
from typing import Any

from brickyard.bench.api import Measurement, Metric, Param, Requirement, WorkerTiming, Workload, compact_size, stats

_DD_LINE = re.compile(r"^(\d+) bytes .*copied, ([0-9.eE+-]+) s", re.MULTILINE)
KIB, MIB = 1024, 1024 * 1024
#: the sizing write runs again, 4 times larger, until it lasts this long (s): a shorter one
#: is mostly dd's start-up and fdatasync, not the rate
SIZING_SECONDS = 0.15
SIZING_ROUND = 16 * MIB   # sized files are whole multiples of this (or of the block)


def format_mib(size: int) -> str:
    return f"{size / MIB:g} MiB"


def parse_dd_stderr(text: str) -> tuple[int, float] | None:
    """``(bytes, seconds)`` from dd's final status line (GNU coreutils), None if absent."""
    matches = _DD_LINE.findall(text)
    if not matches:
        return None
    nbytes, seconds = matches[-1]
    return int(nbytes), float(seconds)


def dd_argv(direction: str, path: str, block: int, count: int) -> list[str]:
    if direction == "write":
        return ["dd", "if=/dev/zero", f"of={path}", f"bs={block}", f"count={count}", "conv=fdatasync"]
    return ["dd", f"if={path}", "of=/dev/null", f"bs={block}", f"count={count}"]


def file_plan(block: int, size: int) -> tuple[int, int]:
    """``(count, bytes per file)``: at least one block; whole blocks only."""
    count = max(1, size // block)
    return count, count * block


class DdSweep(Workload):
    name = "dd"
    title = "dd block-size sweep"
    description = ("Sequential write (conv=fdatasync) and read (after a cache drop) with dd, "
                   "one file vs N concurrent files per client, over a set of block sizes.")
    params = (
        Param("block_sizes", "sizes", "4K,1M,64M", "dd block sizes, 1K … 512M: a list (4K,1M) or a power-of-two range (1K..512M, the write-up's sweep)",
              minimum=KIB, maximum=512 * MIB),
        Param("concurrency", "ints", "1,4", "concurrent dd's per client host, one file each (e.g. 1,8)",
              minimum=1, maximum=256),
        Param("size", "size", "64M", "bytes each dd writes/reads per step (rounded down to whole blocks, "
              "at least one block)", minimum=KIB, maximum=1 << 40),
        Param("direction", "choice", "both", "write, read (files written unmeasured first) or both",
              choices=("write", "read", "both")),
        Param("warmup", "bool", False, "write once with the first block size, unrecorded, before measuring"),
        Param("min_step_seconds", "seconds", 0.2, "steps shorter than this are flagged 'short-step'",
              minimum=0, maximum=3600),
        Param("step_seconds", "seconds", 0.0, "0: every file is `size`. Else the files of each block size are "
              "sized once per run from a timed write (not recorded): what the fastest target writes in about "
              "this long, at least `size`, at most half the free space written at once", minimum=0, maximum=600),
    )
    requires = (Requirement("dd", "coreutils"),)
    phases = ("write", "drop caches", "read", "cleanup")
    space_param = "size"

    def space_at_once(self, values: dict[str, Any]) -> int:
        """The largest step's files: each of ``concurrency`` files of ``size`` in whole blocks
        (one block at least). With ``step_seconds`` ``size`` is the floor: larger files are
        sized to at most half the free space."""
        per_file = max(file_plan(block, values["size"])[1] for block in values["block_sizes"])
        return per_file * max(values["concurrency"])

    def step_count(self, values: dict[str, Any]) -> int:
        per = 2 if values["direction"] == "both" else 1
        return len(values["block_sizes"]) * len(values["concurrency"]) * per

    async def run(self, ctx) -> None:
        v = ctx.values
        directions = ["write", "read"] if v["direction"] == "both" else [v["direction"]]
        sizes: dict[int, int] = {}      # bytes per file, by block size
        cap = await self._room(ctx, max(v["concurrency"])) if v["step_seconds"] > 0 else 0

        async def size_for(block: int) -> int:
            if block not in sizes:
                sizes[block] = await self._sized(ctx, v, block, cap) if v["step_seconds"] > 0 else v["size"]
            return sizes[block]

        if v["warmup"]:
            block = v["block_sizes"][0]
            count, _ = file_plan(block, await size_for(block))
            ctx.progress("warm-up (not recorded)")
            await self._pass(ctx, "write", block, count, 1, "warmup")
            await self._remove(ctx, block, 1, "warmup")
        for repeat in range(ctx.repeats):
            single: dict[tuple[int, str], float] = {}
            for block in v["block_sizes"]:
                count, per_file = file_plan(block, await size_for(block))
                for conc in sorted(v["concurrency"]):
                    tag = f"r{repeat}"
                    if "write" not in directions:
                        ctx.progress(f"preparing {conc} file(s) for reading (not recorded)")
                        await self._pass(ctx, "write", block, count, conc, tag)
                    for direction in directions:
                        if direction == "read":
                            await ctx.drop_caches()
                        label = f"{direction} bs={compact_size(block)} ×{conc} repeat {repeat + 1}/{ctx.repeats}"
                        ctx.progress(label)
                        runs = await self._pass(ctx, direction, block, count, conc, tag)
                        m = self._measurement(runs, direction, block, count, per_file, conc, repeat,
                                              v["min_step_seconds"])
                        headline = stats.headline_bps(m.workers)
                        if conc == 1:
                            single[(block, direction)] = headline
                        elif single.get((block, direction), 0) > 0:
                            m.metrics.append(Metric(
                                "scaling_efficiency",
                                stats.scaling_efficiency(headline, single[(block, direction)], conc),
                                "ratio", "this step's throughput ÷ (N × the single-file step's)"))
                        ctx.record(m, direction=direction)
                    await self._remove(ctx, block, conc, tag)

    async def _sized(self, ctx, v, block: int, cap: int) -> int:
        """Bytes per file of ``block``-sized writes so the fastest target's steps last about
        ``step_seconds``: a write of ``size`` bytes in that block size, 4 times larger until it
        lasts ``SIZING_SECONDS``, timed on every target at once (the fastest block size is no
        one's guess: on one disk 16 MiB blocks ran at a quarter of 1 MiB's rate); at least
        ``size``, at most ``cap``."""
        probe = max(v["size"], block)
        while True:
            ctx.progress(f"sizing the files of bs={compact_size(block)}: a timed write of {format_mib(probe)} (not recorded)")
            count, per_file = file_plan(block, probe)
            runs = await self._pass(ctx, "write", block, count, 1, "sizing")
            await self._remove(ctx, block, 1, "sizing")
            if any(r.timing.error for r in runs):
                return v["size"]          # the sweep's own steps say what is wrong
            longest = max(r.timing.end - r.timing.start for r in runs)
            rate = max(per_file / max(r.timing.end - r.timing.start, 1e-6) for r in runs)
            if longest >= SIZING_SECONDS or probe * 4 > cap:
                break
            probe *= 4
        unit = max(SIZING_ROUND, block)
        wanted = -(-int(rate * v["step_seconds"]) // unit) * unit
        return max(v["size"], min(wanted, cap))

    async def _room(self, ctx, files: int) -> int:
        """Half the free bytes of the emptiest target, divided among ``files`` files."""
        free = []
        for t in ctx.targets:
            result = await ctx.sh(t, ["stat", "-f", "-c", "%a %S", "--", t.rundir], check=False)
            words = result.text.split() if result.ok else []
            if len(words) == 2 and all(w.isdigit() for w in words):
                free.append(int(words[0]) * int(words[1]))
        if not free:
            return 1 << 62       # not known: the size is not limited by it
        return min(free) // 2 // max(files, 1)

    @staticmethod
    def _file(t, block: int, conc_index: int, tag: str) -> str:
        return f"{t.rundir}/dd-{tag}-{block}-{conc_index}"

    async def _pass(self, ctx, direction: str, block: int, count: int, conc: int, tag: str):
        counter = "wchar" if direction == "write" else "rchar"
        workers = [(t, ctx.exec_worker(dd_argv(direction, self._file(t, block, i, tag), block, count), progress=counter,
                                       progress_step=block))
                   for t in ctx.targets for i in range(conc)]
        return await ctx.run_workers(workers)

    async def _remove(self, ctx, block: int, conc: int, tag: str) -> None:
        for t in ctx.targets:
            for i in range(conc):
                await ctx.remove(t, self._file(t, block, i, tag))

    @staticmethod
    def _measurement(runs, direction, block, count, per_file, conc, repeat, min_seconds) -> Measurement:
        workers, problems, own_rates = [], [], []
        for r in runs:
            parsed = parse_dd_stderr(r.stderr)
            err = r.timing.error
            nbytes = 0
            if parsed is None and not err:
                err = "no dd status line in its output"
            elif parsed is not None:
                nbytes = parsed[0]
                if parsed[1] > 0:
                    own_rates.append(parsed[0] / parsed[1])
                if nbytes != per_file:
                    problems.append(f"worker {r.timing.worker} on {r.timing.host} moved {nbytes} bytes, expected {per_file}")
            workers.append(WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                        bytes=nbytes, ops=count, error=err))
        flags = []
        elapsed = max(w.end for w in workers) - min(w.start for w in workers)
        if elapsed < min_seconds:
            flags.append("short-step")
        metrics = []
        if own_rates:
            metrics.append(Metric("dd_reported_sum", sum(own_rates), "B/s",
                                  "sum of the rates each dd printed itself (what hand-made scripts add up)"))
        return Measurement(
            params={"block_size": block, "concurrency": conc, "direction": direction, "repeat": repeat,
                    "file_size": per_file, "count": count},
            workers=workers, metrics=metrics, flags=flags, problems=problems,
            cold_key=(block, conc) if direction == "read" else None, first_read=True if direction == "read" else None,
            note=f"step lasted {elapsed * 1000:.1f} ms, under min_step_seconds: raise size" if flags else "",
        )

    def validate(self, step) -> list[str]:
        problems = []
        if not step.workers:
            problems.append("no worker results")
        expected = step.params.get("file_size")
        for w in step.workers:
            if w.error:
                problems.append(f"worker {w.worker} on {w.host} failed")
            elif expected and w.bytes != expected:
                problems.append(f"worker {w.worker} on {w.host} moved {w.bytes} of {expected} bytes")
        return problems
