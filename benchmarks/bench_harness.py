"""Brickyard's own measuring cost, printed (no asserts):

1. harness overhead: Brickyard's dd figure ÷ the same dd run by hand on the same path, in the
   same run, interleaved, order alternating (target ≥ 0.98). "By hand" is what an admin reads:
   dd's own rate line. On a busy or noisy mount the paired ratio carries the storage's own
   run-to-run spread, so the same-process ratio is printed too: Brickyard's headline ÷ the
   rate the very same dd process printed (what the harness adds: exec to exit, create, close).
2. fio's headline ÷ fio's own bandwidth for one job of 256 MiB and 1 GiB (target ≥ 0.98): the
   headline covers each job's I/O window as fio timed it (first I/O to the end of its final
   fsync); the whole fio processes' figure (start-up, layout, exit) is printed beside it.
3. start skew on one host (p50/p99/max of each step's start lags) for 8 dd workers, 8 and 20
   randread readers and 8 fio jobs: every workload's workers leave the same barrier, and each
   start is the worker's first system call after the release, so a worker that waits for a
   CPU shows. Steps whose p99 passes 1 % of their length are flagged "start-skew".

    .venv/bin/python benchmarks/bench_harness.py                      # local:/var/tmp
    .venv/bin/python benchmarks/bench_harness.py --target client1:/mnt/gv0 --ssh-config lab/ssh_config
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile

from brickyard.bench import registry
from brickyard.bench.engine import parse_target, run_benchmark
from brickyard.core.units import format_bytes
from brickyard.remote.local import LocalExecutor


def skew_line(steps) -> str:
    p50 = [s.start_skew["p50"] * 1e3 for s in steps]
    p99 = [s.start_skew["p99"] * 1e3 for s in steps]
    mx = [s.start_skew["max"] * 1e3 for s in steps]
    share = [s.start_skew["p99"] / s.metric("elapsed").value * 100 for s in steps if s.metric("elapsed")]
    flagged = sum(1 for s in steps if "start-skew" in s.flags)
    return (f"p50 median {statistics.median(p50):.3f} ms   p99 median {statistics.median(p99):.3f} ms "
            f"(worst step {max(p99):.3f} ms, median {statistics.median(share):.2f} % of its step)   "
            f"max median {statistics.median(mx):.3f} ms   flagged start-skew: {flagged}")


def parse_dd(stderr: bytes) -> float:
    from brickyard_dd import parse_dd_stderr

    parsed = parse_dd_stderr(stderr.decode(errors="replace"))
    if parsed is None:
        raise SystemExit(f"dd by hand printed no status line: {stderr!r}")
    return parsed[0] / parsed[1]


async def main(args) -> int:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start")
    try:
        return await measure(args)
    finally:
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


async def measure(args) -> int:
    target = parse_target(args.target)
    pool = None
    if target.is_local:
        executor = LocalExecutor("local")
        workdir = tempfile.mkdtemp(prefix="brickyard-harness.", dir=target.path)
    else:
        from brickyard.remote.ssh import SshOptions, SshPool

        pool = SshPool(SshOptions(config_files=[args.ssh_config] if args.ssh_config else None))
        executor = pool.executor(target.host)
        workdir = (await executor.run(["mktemp", "-d", f"{target.path}/brickyard-harness.XXXXXX"], check=True)).text.strip()
    dd = registry.find("dd")
    block = 1 << 20
    count = args.size // block
    try:
        brickyard, by_hand, same_process = [], [], []

        async def ours():
            run = await run_benchmark(dd, {"block_sizes": "1M", "concurrency": "1", "size": str(args.size),
                                           "direction": "write", "repeats": "1"}, [(target, executor)])
            if run.status.value != "complete" or not run.steps[0].valid:
                raise SystemExit(f"brickyard run failed: {run.error}")
            step = run.steps[0]
            brickyard.append(step.metric("throughput").value)
            same_process.append(step.metric("throughput").value / step.metric("dd_reported_sum").value)

        async def hand():
            res = await executor.run(["dd", "if=/dev/zero", f"of={workdir}/by-hand", f"bs={block}", f"count={count}",
                                      "conv=fdatasync"], timeout=600, check=True)
            by_hand.append(parse_dd(res.stderr))
            await executor.run(["rm", "-f", f"{workdir}/by-hand"], check=True)

        for i in range(args.rounds):
            for step in ((ours, hand) if i % 2 == 0 else (hand, ours)):
                await step()
        b, h = statistics.median(brickyard), statistics.median(by_hand)
        pairs = [x / y for x, y in zip(brickyard, by_hand)]
        print(f"target {target.text}: dd write bs=1M size={format_bytes(args.size, binary=True)}, "
              f"{args.rounds} rounds interleaved")
        print(f"  brickyard headline median {format_bytes(b)}/s   dd by hand (its own rate) median {format_bytes(h)}/s")
        print(f"  harness overhead, paired ratio brickyard ÷ by hand: median {statistics.median(pairs):.3f} "
              f"(min {min(pairs):.3f}, max {max(pairs):.3f}); ratio of medians {b / h:.3f}   (target ≥ 0.98)")
        print(f"  same dd process, brickyard headline ÷ that dd's own rate: median {statistics.median(same_process):.3f} "
              f"(min {min(same_process):.3f})")

        fio = registry.find("fio")
        print("fio, one job, seq-write (end_fsync=1): headline ÷ fio's own bandwidth   (target ≥ 0.98)")
        for size in args.fio_sizes.split(","):
            ratios, whole = [], []
            for _ in range(args.fio_rounds):
                run = await run_benchmark(fio, {"presets": "seq-write", "size": size, "numjobs": "1", "repeats": "1"},
                                          [(target, executor)])
                if run.status.value != "complete" or not run.steps[0].valid:
                    raise SystemExit(f"fio run failed: {run.error} {run.steps[0].note if run.steps else ''}")
                own = run.steps[0].metric("fio_group_bw").value
                ratios.append(run.steps[0].metric("throughput").value / own)
                whole.append(run.steps[0].metric("process_throughput").value / own)
            print(f"  {size}: headline ÷ fio's own median {statistics.median(ratios):.3f} (min {min(ratios):.3f}); "
                  f"whole fio processes ÷ fio's own (the old headline) median {statistics.median(whole):.3f}   "
                  f"[{args.fio_rounds} runs]")

        print("start skew: each worker's start is its first system call after the one release (the same "
              "barrier for every workload); each step's p50/p99/max lag after the first worker")
        n = args.skew_steps
        for label, name, params in (
            ("dd workers", "dd", {"block_sizes": "1M", "concurrency": "8", "size": "1M", "direction": "write",
                                    "repeats": str(n)}),
            ("randread readers", "randread", {"files": "400", "min_size": "16K", "max_size": "64K",
                                                       "readers": "8,20", "seconds": "0.5",
                                                       "repeats": str(max(1, n // 4))}),
            ("fio jobs", "fio", {"presets": "seq-write", "size": "1M", "numjobs": "8", "repeats": str(max(1, n // 4))}),
        ):
            run = await run_benchmark(registry.find(name), params, [(target, executor)])
            if run.status.value != "complete":
                raise SystemExit(f"{name} run failed: {run.error}")
            for count in sorted({len(s.workers) for s in run.steps}):
                steps = [s for s in run.steps if len(s.workers) == count]
                target_note = "   (target p99 < 0.1 ms for 8 workers)" if count == 8 else ""
                print(f"  {count} {label}, {len(steps)} steps: {skew_line(steps)}{target_note}")
        return 0
    finally:
        await executor.run(["rm", "-rf", "--one-file-system", "--", workdir])
        if pool is not None:
            await pool.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="local:/var/tmp")
    ap.add_argument("--ssh-config")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", type=int, default=256 << 20, help="bytes per dd (default 256 MiB)")
    ap.add_argument("--skew-steps", type=int, default=20)
    ap.add_argument("--fio-sizes", default="256M,1G", help="one fio job of each size (default 256M,1G)")
    ap.add_argument("--fio-rounds", type=int, default=3)
    raise SystemExit(asyncio.run(main(ap.parse_args())))
