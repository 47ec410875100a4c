"""Cross-host start skew with a one-sided path, on a small lab of its own: 40 ms added to
every frame towards client2 and none to its replies. The issue: the kernel saw that host's
workers released 20 ms after the others in every step while Brickyard placed them on time,
listed that host first and flagged nothing. Now the release is one instant on each host's own
clock, and the host whose clock the exchanges cannot place closely is named and flagged.

Every lab machine shares this kernel's clocks, so the agents' own start times, read before
any offset is applied, are the truth the test checks Brickyard's figures against."""

from __future__ import annotations

import asyncio
import os
import re
import statistics
from pathlib import Path

from brickyard.bench.api import Measurement, WorkerTiming, Workload
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core.results import RunStatus
from brickyard.lab import config as cfg
from brickyard.lab.sandbox import lab_up
from brickyard.lab.teardown import lab_down
from brickyard.remote.ssh import SshOptions, SshPool

PREFIX = f"k{os.getpid() % 100000:05d}"
SUBNET = f"10.{78 + os.getpid() % 150}.{(os.getpid() // 150 + 128) % 256}.0/24"
ONE_WAY_MS = 40.0


class WhenReleased(Workload):
    """Each step: one half-second worker per host, released together; records each worker's
    start as its agent took it (this kernel's clock, no offset applied)."""

    name = "when-released"

    def step_count(self, values):
        return 1

    async def run(self, ctx):
        for repeat in range(ctx.repeats):
            runs = await ctx.run_workers([(t, ctx.exec_worker(["sleep", "0.5"])) for t in ctx.targets])
            ctx.record(Measurement({"repeat": repeat}, [r.timing for r in runs], throughput_metrics=False,
                                   raw={"start": {r.timing.host: r.timing.start + r.clock_offset for r in runs}}))


def test_a_host_behind_a_one_sided_path_starts_with_the_others_and_is_named_for_its_clock(tmp_path):
    directory = tmp_path / "lab"
    lab_up(cfg.LabSpec(nodes=1, clients=2, brick_size=320 << 20, bricks_per_node=1, directory=directory,
                       subnet=SUBNET, prefix=PREFIX, delays=(("client2", ONE_WAY_MS, 0.0),)))
    dates: list[dict[str, float]] = []

    class Keep:
        def step_finished(self, run, step):
            pass

    try:
        async def main():
            pool = SshPool(SshOptions(config_files=[str(directory / "ssh_config")]))
            try:
                workload = WhenReleased()
                original = workload.run

                async def run(ctx):
                    real_record = ctx.record

                    def record(m, **kw):
                        dates.append(m.raw["start"])
                        return real_record(m, **kw)
                    ctx.record = record
                    await original(ctx)
                workload.run = run
                return await run_benchmark(workload, {"repeats": "3"},
                                           [(TargetSpec(h, "/var/tmp"), pool.executor(h)) for h in ("client1", "client2")])
            finally:
                await pool.close()

        run = asyncio.run(main())
    finally:
        assert lab_down(directory) == []
    assert run.status is RunStatus.COMPLETE, run.error
    assert len(run.steps) == 3 and len(dates) == 3
    # the truth (one kernel clock): client2 ran with client1, not half the one-way delay late
    apart = [d["client2"] - d["client1"] for d in dates]
    print("client2 − client1 by the shared clock (s):", apart)
    assert abs(statistics.median(apart)) < 0.005, apart      # the old release: 20–25 ms
    for step, truth in zip(run.steps, apart):
        hosts = step.start_skew["hosts"]
        assert hosts["client2"]["uncertainty"] > ONE_WAY_MS / 2 / 1000 * 0.9, hosts
        assert hosts["client1"]["uncertainty"] < 0.005, hosts
        assert "clock-uncertain" in step.flags and "client2 ±" in step.note and "client1 ±" not in step.note, step.note
        # Brickyard places each host's start where the shared clock says it was (the old
        # offsets put client2's late starts back on time) ...
        assert abs((hosts["client2"]["lag"] - hosts["client1"]["lag"]) - truth) < 0.001, (hosts, truth)
        # ... and a host that really started late (a busy machine delays an agent now and then)
        # is named and flagged
        late = "client2" if truth > 0 else "client1"
        if abs(truth) > 0.005:
            assert "start-skew" in step.flags and re.search(rf"started late against \S+: [^;]*\b{late} \d", step.note), \
                step.note
