"""Security boundary: workload parameters, for every parameter of every built-in workload.

Each canary goes into each parameter in turn (and fio's option canaries into ``options``).
A value is either refused before anything runs, with the parameter named, or — if a
workload takes it — the workload runs with it here and no canary file may appear. Through
the CLI a refused value exits 2 and nothing runs. On the sandbox: tests/e2e."""

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

from .canaries import TINY, fio_option_canaries, newline_canaries, shell_canaries

BUILTINS = list(TINY)


@pytest.fixture
def arena():
    base = Path("/var/tmp") / f"brickyard-sec-{uuid.uuid4().hex[:8]}"
    canaries, work = base / "canaries", base / "work"
    canaries.mkdir(parents=True)
    work.mkdir()
    os.chmod(base, 0o755)
    os.chmod(work, 0o777)
    os.chmod(canaries, 0o1777)
    yield canaries, work
    shutil.rmtree(base, ignore_errors=True)


def cases():
    for name in BUILTINS:
        workload = registry.find(name, Path("/nonexistent"))
        for param in workload.all_params():
            yield name, param.name


def run_with(name: str, values: dict, work: Path):
    return asyncio.run(run_benchmark(registry.find(name, Path("/nonexistent")), values,
                                     [(TargetSpec("local", str(work)), LocalExecutor("local"))]))


@pytest.mark.parametrize("workload, param", list(cases()))
def test_every_canary_in_every_parameter_is_refused_or_harmless(arena, workload, param):
    canaries, work = arena
    w = registry.find(workload, Path("/nonexistent"))
    texts = shell_canaries(str(canaries)) + newline_canaries(str(canaries))
    if (workload, param) == ("fio", "options"):
        texts += fio_option_canaries(str(canaries))
    taken = []
    for text in texts:
        values = {**TINY[workload], param: text}
        try:
            w.resolve(values)
        except ParamError as exc:
            assert param in str(exc) or "options" in str(exc), f"the refusal does not name {param}: {exc}"
            continue
        taken.append(text)
    for text in taken:      # a value the workload takes must not run anything either
        run = run_with(workload, {**TINY[workload], param: text}, work)
        assert run.status in (RunStatus.COMPLETE, RunStatus.FAILED, RunStatus.PARTIAL)
    assert os.listdir(canaries) == [], "a canary fired"
    assert os.listdir(work) == []


@pytest.mark.parametrize("option", range(len(fio_option_canaries("/x"))))
def test_fio_options_that_run_or_write_elsewhere_are_refused_through_the_cli(arena, option, capsys):
    import json

    canaries, work = arena
    text = fio_option_canaries(str(canaries))[option]
    code = main(["bench", "--target", f"local:{work}", "--workload", "fio", "--param", f"options={text}",
                 "--param", "size=1M", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["ok"] is False
    assert "is not allowed" in out["error"] or "a value may hold only" in out["error"], out["error"]
    assert os.listdir(canaries) == [] and os.listdir(work) == []


def test_the_allowed_fio_options_do_run_and_stay_in_the_run_directory(arena):
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    canaries, work = arena
    run = run_with("fio", {**TINY["fio"], "options": "iodepth=4 ioengine=libaio direct=0 end_fsync=1 "
                                                      "randrepeat=0 norandommap unlink=1"}, work)
    assert run.status is RunStatus.COMPLETE and all(s.valid for s in run.steps), run.error
    assert os.listdir(canaries) == [] and os.listdir(work) == []
