"""dd's ``step_seconds``: each file is sized from a timed write so the steps last about that long
on whatever the target is (the first-start sweep runs on an unknown disk and on tmpfs).

The hosts here are fake (tests/bench/fakeagent.py): a dd lasts what its bytes take at a model
rate, so a fast disk or tmpfs can be played on any machine; one test runs the real dd locally.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.core.results import RunStatus
from brickyard.remote.local import LocalExecutor
from brickyard.remote.loop import Progress

from .fakeagent import GIB, MIB, FakeDisk, argv_bytes, model_disk


def dd(host, **params):
    values = {"block_sizes": "1M", "concurrency": "1", "size": "64M", "direction": "write", "repeats": "1", **params}
    return asyncio.run(run_benchmark(registry.find("dd", Path("/nonexistent")), values,
                                     [(TargetSpec(host.host, "/mnt/x"), host)], link_bps=100e9))


def sizing_writes(host) -> list[int]:
    """The bytes of each unrecorded sizing write the agent was asked to run."""
    return [argv_bytes(w)[1] for op in host.ops if op.get("op") == "step" for w in op["workers"]
            if "-sizing-" in w["argv"][2]]


def test_step_seconds_sizes_the_files_from_a_timed_write_so_the_fastest_step_lasts_that_long():
    host = FakeDisk(model_disk(3e9, 3e9))
    run = dd(host, step_seconds="0.5")
    assert run.status is RunStatus.COMPLETE, run.error
    # 64 MiB and 256 MiB last under 0.1 s at 3 GB/s; 1 GiB is timed
    assert sizing_writes(host) == [64 * MIB, 256 * MIB, GIB]
    (step,) = run.steps
    timed_rate = GIB / (GIB / 3e9 + 0.005)                      # the 1 GiB write, its fdatasync included
    size = step.params["file_size"]
    assert size % (16 * MIB) == 0 and abs(size - 0.5 * timed_rate) <= 16 * MIB, size
    assert step.metric("elapsed").value > 0.49 and "short-step" not in step.flags
    removed = [op["path"] for op in host.ops if op.get("op") == "rmtree"]
    assert any("-sizing-" in path for path in removed)          # the sizing file is gone


def test_without_step_seconds_every_file_is_size_and_nothing_is_timed_first():
    host = FakeDisk(model_disk(3e9, 3e9))
    run = dd(host)
    assert sizing_writes(host) == [] and run.steps[0].params["file_size"] == 64 * MIB
    assert "short-step" in run.steps[0].flags                   # 64 MiB at 3 GB/s: 27 ms


def test_each_block_size_is_sized_from_its_own_timed_write():
    # a disk on which 16 MiB blocks ran at a quarter of 1 MiB's rate (seen on the sandbox's VM):
    # sized from the 16 MiB write alone, the 1 MiB steps were flagged short
    host = FakeDisk(model_disk(800e6, 1.9e9, by_block={16 * MIB: 200e6}))
    run = dd(host, step_seconds="0.5", block_sizes="1M,16M", concurrency="1,4")
    sizes = {s.params["block_size"]: s.params["file_size"] for s in run.steps}
    assert sizes[MIB] > 2.5 * sizes[16 * MIB] and sizes[16 * MIB] >= 64 * MIB
    assert not [s.label for s in run.steps if "short-step" in s.flags]


def test_sized_files_are_never_smaller_than_size_nor_more_than_half_the_free_space_at_once():
    slow = FakeDisk(model_disk(50e6, 50e6))
    assert dd(slow, step_seconds="0.5").steps[0].params["file_size"] == 64 * MIB
    assert sizing_writes(slow) == [64 * MIB]                     # 1.3 s: timed at once
    # 2 GiB free, 4 files at once: at most 256 MiB each, though tmpfs would want 2.5 GB
    small = FakeDisk(model_disk(5e9, 16e9), free=2 * GIB)
    run = dd(small, step_seconds="0.5", concurrency="1,4")
    assert {s.params["file_size"] for s in run.steps} == {256 * MIB}
    assert sizing_writes(small) == [64 * MIB, 256 * MIB]         # a 1 GiB sizing write would not fit


def test_step_seconds_on_a_real_local_directory(tmp_path):
    run = asyncio.run(run_benchmark(registry.find("dd", tmp_path / "none"),
                                    {"block_sizes": "1M", "concurrency": "1", "size": "1M", "step_seconds": "0.02",
                                     "direction": "write", "repeats": "1"},
                                    [(TargetSpec("local", str(tmp_path)), LocalExecutor("local"))]))
    assert run.status is RunStatus.COMPLETE, run.error
    (step,) = run.steps
    assert step.params["file_size"] >= MIB and step.params["file_size"] % MIB == 0
    assert list(tmp_path.iterdir()) == []


def test_progress_names_block_sizes_as_the_form_does():
    """The walk of issue 21: the Run tab said 'sizing the files of bs=16777216' and
    'write bs=65536 ×4' while the form and the steps say 16M and 64K."""
    said: list[str] = []
    host = FakeDisk(model_disk(800e6, 800e6))
    asyncio.run(run_benchmark(registry.find("dd", Path("/nonexistent")),
                              {"block_sizes": "64K,16M", "concurrency": "4", "size": "64M", "step_seconds": "0.5",
                               "direction": "write", "repeats": "1"},
                              [(TargetSpec(host.host, "/mnt/x"), host)], link_bps=100e9,
                              progress=Progress(on_progress=lambda fraction, text: said.append(text))))
    assert "sizing the files of bs=16M: a timed write of 64 MiB (not recorded)" in said
    assert "write bs=64K ×4 repeat 1/1" in said
    assert not [text for text in said if "bs=65536" in text or "bs=16777216" in text]
