"""`brickyard plan`: the Korean write-up's capacity table, exit codes, bad input."""

import json

import pytest

from brickyard.cli import main
from tests.conftest import EXAMPLES

RAID5 = str(EXAMPLES / "eight-node-raid5.brickyard.json")


def run(capsys, *argv):
    code = main(["plan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("flags,sets,tb,tib", [
    (["--type", "distribute"], 8, 224.0, 203.7),
    (["--type", "disperse", "--disperse", "8", "--redundancy", "2"], 1, 168.0, 152.8),  # not 154
    (["--type", "distributed-disperse", "--disperse", "4", "--redundancy", "1"], 2, 168.0, 152.8),
    (["--type", "distributed-replicate", "--replica", "2"], 4, 112.0, 101.9),
])
def test_korean_capacity_table_in_tb_and_tib(capsys, flags, sets, tb, tib):
    code, out, _ = run(capsys, RAID5, *flags, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["valid"] is True
    assert len(doc["sets"]) == sets
    assert doc["raw_bytes"] == 8 * 28 * 10**12
    assert (doc["usable"]["TB"], doc["usable"]["TiB"]) == (tb, tib)
    for key in ("errors", "warnings", "needs_force", "tolerated_node_failures", "tolerated_site_failures",
                "state", "commands", "estimate"):
        assert key in doc
    assert doc["estimate"]["label"] == "estimate (uncalibrated)" and doc["estimate"]["calibrated"] is False


def test_json_reports_failures_and_tolerance(capsys):
    code, out, _ = run(capsys, RAID5, "--fail", "n001", "--json")
    doc = json.loads(out)
    assert doc["state"]["state"] == "DEGRADED" and doc["state"]["writable"]
    assert doc["tolerated_node_failures"] == {"worst": 1, "best": 2, "best_exact": True}
    assert doc["tolerated_site_failures"] is None


def test_readable_table_shows_both_units(capsys):
    code, out, _ = run(capsys, RAID5)
    assert code == 0
    assert "168.00 TB (152.80 TiB)" in out and "ESTIMATE" in out


def test_invalid_layout_exits_1(capsys):
    code, out, _ = run(capsys, RAID5, "--type", "replicate", "--replica", "3")
    assert code == 1 and "REFUSED" in out


@pytest.mark.parametrize("argv,fragment", [
    (["/nonexistent.brickyard.json"], "/nonexistent.brickyard.json"),
    ([RAID5, "--volume", "nope"], "no volume named 'nope'"),
    ([RAID5, "--type", "distribute", "--replica", "2"], "--replica needs --type"),
    ([RAID5, "--fail", "n999"], "no node named 'n999'"),
    ([RAID5, "--type", "disperse", "--replica", "2", "--disperse", "4"], "cannot be combined"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert fragment in err and err.count("\n") == 1


def test_malformed_file_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.brickyard.json"
    bad.write_text('{"format_version": 1, "nodes": [}')
    code, _, err = run(capsys, str(bad))
    assert code == 2 and err.count("\n") == 1


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    import subprocess
    import sys

    from brickyard.core import topofile
    from brickyard.core.topology import Brick, BrickRef, Layout, Node, Topology, Volume, VolumeType

    # far more output than a pipe holds, so the writer really meets a closed pipe
    topo = Topology(name="big")
    for n in range(300):
        topo.nodes.append(Node(f"node{n:03}", bricks=[Brick(f"/bricks/b{i}/brick", 10**12) for i in range(4)]))
    refs = [BrickRef(n.name, b.path) for n in topo.nodes for b in n.bricks]
    topo.volumes.append(Volume("big", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=3), refs))
    path = tmp_path / "big.brickyard.json"
    topofile.save(topo, path)
    proc = subprocess.run(f"{sys.executable} -m brickyard.cli plan {path} --json | head -1",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "{"
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr
