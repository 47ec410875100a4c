"""Security boundary: benchmark target paths, for every built-in workload, on this machine.

A target path may hold any character but a control character: each workload runs to the end
on a directory whose path holds every shell canary (so no tool parsed it: pg_ctl, fio's
directory=, mount.glusterfs and the rest get quoted arguments or a plain alias), and no
canary file appears. A control character (a new line) is refused before anything runs.
The same on the gluster sandbox: tests/e2e/test_bench_security_lab.py."""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from pathlib import Path

import pytest

from brickyard.bench import registry
from brickyard.bench.api import ParamError
from brickyard.bench.engine import TargetSpec, run_benchmark
from brickyard.cli import main
from brickyard.core.results import RunStatus
from brickyard.remote.local import LocalExecutor

from .canaries import TINY, hostile_path_part, newline_canaries


@pytest.fixture
def arena():
    """A canary directory anyone may write to (pgbench's server runs as postgres) and a place
    for hostile target directories every user can reach, both outside pytest's 0700 tmp."""
    base = Path("/var/tmp") / f"brickyard-sec-{uuid.uuid4().hex[:8]}"
    canaries, targets = base / "canaries", base / "targets"
    canaries.mkdir(parents=True)
    targets.mkdir()
    for p in (base, targets):
        os.chmod(p, 0o755)
    os.chmod(canaries, 0o1777)
    yield canaries, targets
    shutil.rmtree(base, ignore_errors=True)


def hostile_target(canaries: Path, targets: Path) -> Path:
    path = targets / hostile_path_part(str(canaries))
    path.mkdir(parents=True)
    for p in [path, *path.parents]:
        if p == targets:
            break
        os.chmod(p, 0o777)
    return path


def usable(workload: str) -> str | None:
    if workload == "pgbench" and (os.geteuid() != 0 or not Path("/usr/lib/postgresql").is_dir()):
        return "pgbench needs root and PostgreSQL here (it runs the server as postgres)"
    if workload == "fio" and shutil.which("fio") is None:
        return "fio is not installed"
    return None


@pytest.mark.parametrize("workload", list(TINY))
def test_every_workload_runs_on_a_target_path_full_of_shell_canaries_and_none_fires(arena, workload, tmp_path):
    if usable(workload):
        pytest.skip(usable(workload))
    canaries, targets = arena
    target = hostile_target(canaries, targets)
    run = asyncio.run(run_benchmark(registry.find(workload, tmp_path / "none"), TINY[workload],
                                    [(TargetSpec("local", str(target)), LocalExecutor("local"))]))
    assert sorted(os.listdir(canaries)) == [], "a canary fired"
    assert run.status is RunStatus.COMPLETE, run.error
    assert run.steps and all(s.valid for s in run.steps), [s.note for s in run.steps if not s.valid]
    assert list(target.iterdir()) == [], "the run's files are left"


@pytest.mark.parametrize("canary", range(len(newline_canaries("/x"))))
def test_a_target_path_with_a_new_line_is_refused_before_anything_runs(arena, canary, tmp_path):
    canaries, targets = arena
    text = newline_canaries(str(canaries))[canary]
    with pytest.raises(ParamError, match="control character"):
        asyncio.run(run_benchmark(registry.find("fio", tmp_path / "none"), TINY["fio"],
                                  [(TargetSpec("local", f"{targets}/{text}"), LocalExecutor("local"))]))
    assert main(["bench", "--target", f"local:{targets}/{text}", "--workload", "dd"]) == 2
    assert os.listdir(canaries) == [] and os.listdir(targets) == []


def test_the_cli_takes_a_hostile_target_path_as_data(arena, capsys):
    import json

    canaries, targets = arena
    target = hostile_target(canaries, targets)
    code = main(["bench", "--target", f"local:{target}", "--workload", "dd", "--param", "block_sizes=64K",
                 "--param", "concurrency=1", "--param", "size=256K", "--param", "repeats=1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "complete" and out["provenance"]["target"] == f"local:{target}"
    assert os.listdir(canaries) == [] and list(target.iterdir()) == []
