"""Random-read corpus (the mailing-list post): N files with sizes in a range, caches dropped,
C concurrent readers each reading whole random files for a set time; files/s and MB/s.

Two ways to read, labelled in every figure (``method``):
- ``read``: each reader is a worker process the agent pre-spawned, reading files in-process,
  so the number measures the storage and not process start-up;
- ``dd``: each reader forks one ``dd`` per file, as the post's script did (on the lab it read
  1.2–2× fewer files/s than ``read``: the fork and exec of every dd are in the figure).

No file is read twice in a step: each step takes the corpus in a random order, least
recently read files first, split between the readers, and a reader that runs out of files
stops early (the step says so: raise ``files``). A step that reads only files this run has
not read yet is a first read; a later step that re-reads files (after a cache drop) is
compared with the first read of the same point and flagged when much faster. Run it on a
local path too for the baseline."""

from __future__ import annotations

import random
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


METHOD_LABELS = {
    "read": "each reader reads whole files in its own process",
    "dd": "each file read by a dd process forked for it (the mailing-list post's method)",
}


class ReadOrder:
    """Which files of one host's corpus each step's readers get: a random order, least
    recently read first, so a step re-reads files only once the corpus is used up."""

    def __init__(self, n: int, seed: int):
        self.order = list(range(n))
        random.Random(seed).shuffle(self.order)
        self.last_read: dict[int, int] = {}     # file → the step that last read it
        self.steps = 0

    def window(self) -> list[int]:
        rank = {f: i for i, f in enumerate(self.order)}
        return sorted(self.order, key=lambda f: (self.last_read.get(f, -1), rank[f]))

    @staticmethod
    def slices(window: list[int], readers: int) -> list[list[int]]:
        return [window[k::readers] for k in range(readers)]

    def took(self, read: list[int]) -> bool:
        """Record the files a step read; True if none had been read before in this run."""
        first = not any(f in self.last_read for f in read)
        for f in read:
            self.last_read[f] = self.steps
        self.steps += 1
        return first


class RandomReadCorpus(Workload):
    name = "randread"
    title = "random-read corpus"
    description = "C concurrent readers read random whole files from an N-file corpus for a set time."
    params = (
        Param("files", "int", 1000, "files in the corpus (no file is read twice in a step: make it large "
              "enough for the readers' time)", minimum=1, maximum=10_000_000),
        Param("min_size", "size", "500K", "smallest file", minimum=1, maximum=1 << 34),
        Param("max_size", "size", "800K", "largest file", minimum=1, maximum=1 << 34),
        Param("readers", "ints", "1,20", "concurrent readers per client host (one step each)", minimum=1, maximum=512),
        Param("seconds", "seconds", 10.0, "how long the readers read", minimum=0.2, maximum=86400),
        Param("block", "size", "1M", "read() size (dd's bs= with method dd)", minimum=512, maximum=1 << 30),
        Param("method", "choice", "read", "read: in the reader's own process; dd: one dd forked per file "
              "(the mailing-list post's method)", choices=tuple(METHOD_LABELS)),
        Param("seed", "int", 42, "corpus and file-choice seed (same seed, same corpus)", minimum=0, maximum=2**31),
    )
    requires = (Requirement("python3"), Requirement("dd", "coreutils (method dd)", optional=True))
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
        paths = {t.host: corpus_paths(corpus[t.host], v["files"]) for t in ctx.targets}
        orders = {t.host: ReadOrder(v["files"], v["seed"]) for t in ctx.targets}
        for repeat in range(ctx.repeats):
            for readers in v["readers"]:
                await ctx.drop_caches()
                ctx.progress(f"{readers} readers × {v['seconds']:g} s ({v['method']}), repeat {repeat + 1}/{ctx.repeats}")
                slices = {t.host: ReadOrder.slices(orders[t.host].window(), readers) for t in ctx.targets}
                # no read returns more than a file: the read size is at most the largest file
                block = min(v["block"], v["max_size"])
                specs = [(t, ctx.randread_worker([paths[t.host][f] for f in slices[t.host][i]], v["seconds"], block,
                                                 seed=v["seed"] * 1000 + repeat * 100 + i, once=True, method=v["method"]))
                         for t in ctx.targets for i in range(readers)]
                runs = await ctx.run_workers(specs, timeout=v["seconds"] * 4 + 120)
                ctx.record(self._measurement(ctx, runs, readers, repeat, slices, orders))

    def _measurement(self, ctx, runs, readers: int, repeat: int, slices, orders) -> Measurement:
        v = ctx.values
        workers = [WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                bytes=int(r.result_bytes or 0), ops=int(r.result_ops or 0),
                                error=r.timing.error) for r in runs]
        window = max(w.end for w in workers) - min(w.start for w in workers)
        files = sum(w.ops for w in workers)
        first = True
        for t in ctx.targets:
            mine = [r for r in runs if r.target is t]
            read = [f for i, r in enumerate(mine) for f in slices[t.host][i][:int(r.result_ops or 0)]]
            first = orders[t.host].took(read) and first
        flags, notes = [], ["each reader finishes the file it is reading when time is up"]
        ran_out = sum(1 for r in runs if r.exhausted)
        if ran_out:
            flags.append("corpus-exhausted")
            notes.append(f"{ran_out} of {len(runs)} readers read every file they were given before the "
                         f"{v['seconds']:g} s were up (no file is read twice in a step): raise files")
        if not first:
            notes.append("this step re-read files an earlier step of this run had read (after a cache drop): "
                         "the corpus is smaller than the run's reads")
        return Measurement(
            params={"readers": readers, "repeat": repeat, "files": v["files"], "method": v["method"],
                    "min_size": v["min_size"], "max_size": v["max_size"], "direction": "read"},
            workers=workers,
            metrics=[Metric("files_per_s", files / window if window > 0 else 0.0, "ops/s",
                            f"whole files read ÷ (last end − first start); {METHOD_LABELS[v['method']]}")],
            flags=flags, note="; ".join(notes), cold_key=(readers, v["method"]), first_read=first)

    def validate(self, step) -> list[str]:
        problems = [f"worker {w.worker} on {w.host} failed: {w.error}" for w in step.workers if w.error]
        if not any(w.ops for w in step.workers):
            problems.append("no file was read")
        return problems
