"""A run measures what it is about (issue 25 point 4, issue 21 point 10): a volume's run checks
at its start that each target is a gluster mount of that volume, a baseline that it is not;
otherwise one sentence, nothing measured, no run stored. findmnt -J answers recorded on the
lab (tests/fixtures/findmnt); the same on the real sandbox in tests/e2e/test_mount_readback_lab.py."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from brickyard.bench import registry
from brickyard.bench.engine import TargetSpec
from brickyard.bench.request import BenchRequest, run_request
from brickyard.bench.targetcheck import TargetNotReady, check_targets
from brickyard.cli import main
from brickyard.remote.executor import CommandResult, Executor
from brickyard.remote.mountstate import parse_findmnt_json
from brickyard.store import HistoryStore

from .test_engine import Recorder

FINDMNT = Path(__file__).resolve().parents[1] / "fixtures" / "findmnt"


class FindmntHost(Executor):
    """A host that answers findmnt -J with a recorded answer (rc 1 and nothing for None)."""

    def __init__(self, host: str, answer: str | None):
        self.host, self.answer, self.commands = host, answer, []

    async def run(self, argv, *, timeout=60.0, input=None, sudo=False, check=False, on_output=None):
        self.commands.append(list(argv))
        now = time.time()
        if list(argv) == ["true"]:          # run_request logs in to every host first
            return CommandResult(self.host, ("true",), 0, b"", b"", now, now)
        assert argv[:2] == ["findmnt", "-J"], argv
        if self.answer is None:
            return CommandResult(self.host, tuple(argv), 1, b"", b"", now, now)
        return CommandResult(self.host, tuple(argv), 0, (FINDMNT / self.answer).read_bytes(), b"", now, now)

    async def start(self, argv, *, sudo=False):
        raise AssertionError("nothing may start on a target that is not what the run is about")

    async def upload(self, *a, **kw):
        raise AssertionError("nothing may be uploaded")

    async def close(self):
        return None


def check(answer: str | None, **expect) -> str:
    target = TargetSpec("client1", "/mnt/gvm")
    try:
        asyncio.run(check_targets([(target, FindmntHost("client1", answer))], **expect))
    except TargetNotReady as exc:
        assert exc.host == "client1"
        return str(exc)
    return ""


def test_recorded_findmnt_json_reads_back_source_type_and_mount_point():
    found = parse_findmnt_json((FINDMNT / "lab-client1-target-gluster.json").read_text())
    assert [(m.source, m.fstype, m.target, m.volume, m.is_gluster) for m in found] == [
        ("node1:/gvm", "fuse.glusterfs", "/mnt/gvm", "gvm", True)]
    under = parse_findmnt_json((FINDMNT / "lab-client1-target-not-mounted.json").read_text())
    assert [(m.fstype, m.target, m.volume) for m in under] == [("tmpfs", "/mnt", "")]


def test_a_volume_run_needs_a_gluster_mount_of_that_volume():
    assert check("lab-client1-target-gluster.json", volume="gvm") == ""
    assert check("lab-client1-target-not-mounted.json", volume="gvm") == (
        "gvm is not mounted on client1 — provision it first (/mnt/gvm is on brickyard-mnt (tmpfs) mounted on "
        "/mnt, not on a gluster mount)")
    assert check(None, volume="gvm") == "gvm is not mounted on client1 — provision it first (/mnt/gvm does not exist)"
    assert check("lab-client1-target-gluster.json", volume="gv0") == (
        "client1:/mnt/gvm is on the gluster volume gvm (node1:/gvm), not on gv0")
    assert check("lab-client1-target-not-mounted.json", gluster=True).startswith(
        "the gluster volume is not mounted on client1 — provision it first")


def test_a_baseline_must_not_be_on_a_gluster_mount():
    assert check("lab-client1-target-not-mounted.json", baseline=True) == ""
    assert check(None, baseline=True) == ""          # the run itself says the directory is missing
    assert check("lab-client1-target-gluster.json", baseline=True).startswith(
        "client1:/mnt/gvm is on the gluster volume gvm (node1:/gvm): a baseline measures something other than gluster")


def test_a_volume_request_on_an_unmounted_target_runs_nothing_and_stores_nothing(tmp_path):
    host = FindmntHost("client1", "lab-client1-target-not-mounted.json")
    sink = Recorder()
    request = BenchRequest("dd", {"block_sizes": "64K", "size": "1M", "repeats": "1"},
                           (TargetSpec("client1", "/mnt/gvm"),), (), None, "gvm")

    async def go():
        return await run_request(request, registry.find("dd", tmp_path / "none"), lambda h: host, sink=sink)

    with pytest.raises(TargetNotReady) as caught:
        asyncio.run(go())
    assert str(caught.value).startswith("gvm is not mounted on client1 — provision it first")
    assert sink.events == [] and all(c[0] == "findmnt" for c in host.commands if c != ["true"])


def test_cli_bench_on_a_directory_that_is_not_the_volume_says_so_and_saves_nothing(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    argv = ["bench", "--target", f"local:{tmp_path}", "--volume", "gv0", "--workload", "dd", "--param",
            "block_sizes=64K", "--param", "size=1M", "--param", "repeats=1", "--param", "concurrency=1",
            "--save", "--db", db]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"brickyard bench: gv0 is not mounted on local — provision it first ({tmp_path} is on ")
    assert len(err.strip().splitlines()) == 1
    assert HistoryStore(db).list_runs() == []
    assert main([*argv, "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and doc["exit"] == 2 and "gv0 is not mounted on local" in doc["error"]
