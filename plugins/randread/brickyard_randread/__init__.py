"""Random-read corpus (the mailing-list post): N files with sizes in a range, caches dropped,
C concurrent readers each reading whole random files for a set time; files/s and MB/s.

The post's readers were forked ``dd`` processes (one fork per file); here each reader is a
worker process the agent pre-spawned, reading files in-process, so the number measures the
storage and not process start-up. Run it on a local path too for the baseline."""

from __future__ import annotations

from typing import Any

from brickyard.bench.api import Measurement, Metric, Param, Requirement, WorkerTiming, Workload

# Writes the corpus on the host: python3 is there anyway (the agent needs it).
MAKE_CORPUS = r"""
import os, random, sys
d, n, lo, hi, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
chunk = bytes(rng.getrandbits(8) for _ in range(1 << 16)) * 16
total = 0
for i in range(n):
    size = rng.randint(lo, hi)
    sub = os.path.join(d, "%03d" % (i % 100))
    os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, "f%06d" % i), "wb") as fh:
        left = size
        while left:
            k = min(left, len(chunk))
            fh.write(chunk[:k])
            left -= k
    total += size
print(total)
"""


def corpus_paths(directory: str, n: int) -> list[str]:
    return [f"{directory}/{i % 100:03d}/f{i:06d}" for i in range(n)]


class RandomReadCorpus(Workload):
    name = "randread"
    title = "random-read corpus"
    description = "C concurrent readers read random whole files from an N-file corpus for a set time."
    params = (
        Param("files", "int", 1000, "files in the corpus", minimum=1, maximum=10_000_000),
        Param("min_size", "size", "500K", "smallest file", minimum=1, maximum=1 << 34),
        Param("max_size", "size", "800K", "largest file", minimum=1, maximum=1 << 34),
        Param("readers", "ints", "1,20", "concurrent readers per client host (one step each)", minimum=1, maximum=512),
        Param("seconds", "seconds", 10.0, "how long the readers read", minimum=0.2, maximum=86400),
        Param("block", "size", "1M", "read() size", minimum=512, maximum=1 << 30),
        Param("seed", "int", 42, "corpus and file-choice seed (same seed, same corpus)", minimum=0, maximum=2**31),
    )
    requires = (Requirement("python3"),)
    phases = ("create corpus", "drop caches", "read", "cleanup")

    def check(self, values: dict[str, Any]) -> list[str]:
        if values["min_size"] > values["max_size"]:
            return ["min_size is larger than max_size"]
        return []

    def step_count(self, values: dict[str, Any]) -> int:
        return len(values["readers"])

    async def run(self, ctx) -> None:
        v = ctx.values
        corpus = {}
        ctx.progress(f"creating {v['files']} files (not recorded)")
        for t in ctx.targets:
            corpus[t.host] = f"{t.rundir}/corpus"
            await ctx.sh(t, ["mkdir", corpus[t.host]])
        await ctx.run_workers([(t, ctx.exec_worker(["python3", "-c", MAKE_CORPUS, corpus[t.host], str(v["files"]),
                                                     str(v["min_size"]), str(v["max_size"]), str(v["seed"])]))
                               for t in ctx.targets], stall_seconds=max(ctx.stall_seconds, 120))
        for repeat in range(ctx.repeats):
            for readers in v["readers"]:
                await ctx.drop_caches()
                ctx.progress(f"{readers} readers × {v['seconds']:g} s, repeat {repeat + 1}/{ctx.repeats}")
                specs = [(t, ctx.randread_worker(corpus_paths(corpus[t.host], v["files"]), v["seconds"], v["block"],
                                                 seed=v["seed"] * 1000 + repeat * 100 + i))
                         for t in ctx.targets for i in range(readers)]
                runs = await ctx.run_workers(specs, timeout=v["seconds"] * 4 + 120)
                workers = [WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                        bytes=int(r.result_bytes or 0), ops=int(r.result_ops or 0),
                                        error=r.timing.error) for r in runs]
                window = max(w.end for w in workers) - min(w.start for w in workers)
                files = sum(w.ops for w in workers)
                flags, notes = [], ["each reader finishes the file it is reading when time is up"]
                if files > v["files"] * len(ctx.targets):
                    flags.append("re-reads")
                    notes.append(f"{files} reads from a corpus of {v['files']} files: re-read files may come from "
                                 "the page cache (the post's corpus was far larger than RAM)")
                ctx.record(Measurement(
                    params={"readers": readers, "repeat": repeat, "files": v["files"],
                            "min_size": v["min_size"], "max_size": v["max_size"], "direction": "read"},
                    workers=workers,
                    metrics=[Metric("files_per_s", files / window if window > 0 else 0.0, "ops/s",
                                    "whole files read ÷ (last end − first start)")],
                    flags=flags, note="; ".join(notes)), direction="read")

    def validate(self, step) -> list[str]:
        problems = [f"worker {w.worker} on {w.host} failed: {w.error}" for w in step.workers if w.error]
        if not any(w.ops for w in step.workers):
            problems.append("no file was read")
        return problems
