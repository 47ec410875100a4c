"""History against runs really made on the sandbox: `history list --gluster-version 10.3` and
`--layout disperse` find a dd run on a dispersed volume, a local baseline is not listed as a
gluster run, and the run recorded `volume get VOL all` for option defaults. Tiny: one dd step."""

from __future__ import annotations

import json

import pytest

from brickyard.cli import main
from .labvolume import drop_test_volume

VOLUME = "byhist"
MOUNT = f"/mnt/{VOLUME}"
BRICKS = [f"node{i}:/srv/brick2/{VOLUME}" for i in (1, 2, 3)]
DD = ["--workload", "dd", "--param", "block_sizes=1M", "--param", "concurrency=1", "--param", "size=4M",
      "--param", "repeats=1", "--param", "direction=write"]


@pytest.fixture(scope="module")
def dispersed(lab):
    lab.form_pool(["node1", "node2", "node3"])
    if VOLUME not in lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"]).stdout.split():
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "create", VOLUME, "disperse", "3", "redundancy", "1",
                          *BRICKS])
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "start", VOLUME])
    client = lab.clients[0]
    lab.ssh(client, ["mkdir", "-p", MOUNT])
    if lab.ssh(client, ["mountpoint", "-q", MOUNT], check=False).returncode != 0:
        lab.ssh(client, ["mount", "-t", "glusterfs", f"node1:/{VOLUME}", MOUNT])
    yield client
    drop_test_volume(lab, VOLUME, BRICKS, {client: MOUNT})


def _ids(db: str, capsys, *flags: str) -> list[str]:
    assert main(["history", "list", "--db", db, "--json", *flags]) == 0
    return [r["run_id"] for r in json.loads(capsys.readouterr().out)]


def test_history_filters_find_runs_made_on_the_sandbox(lab, dispersed, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    base = tmp_path / "baseline"
    base.mkdir()
    common = ["bench", "--ssh-config", str(lab.ssh_config), "--save", "--db", db, "--json", *DD]
    assert main([*common, "--target", f"{dispersed}:{MOUNT}", "--server", "node1"]) == 0
    gluster_run = json.loads(capsys.readouterr().out)
    assert main([*common, "--target", f"local:{base}"]) == 0
    local_run = json.loads(capsys.readouterr().out)
    p = gluster_run["provenance"]
    assert p["layout"]["type"] == "Disperse" and p["volume_name"] == VOLUME
    assert p["volume_settings"]["cluster.min-free-disk"].endswith("(DEFAULT)")     # `volume get VOL all`
    assert "gluster" not in local_run["provenance"]["hosts"]["local"]
    assert _ids(db, capsys, "--gluster-version", "10.3") == [gluster_run["run_id"]]
    assert _ids(db, capsys, "--layout", "disperse") == [gluster_run["run_id"]]
    assert _ids(db, capsys, "--layout", "Disperse") == [gluster_run["run_id"]]
    assert set(_ids(db, capsys)) == {gluster_run["run_id"], local_run["run_id"]}
    assert main(["history", "compare", "--db", db, "--json", local_run["run_id"], gluster_run["run_id"]]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in data["runs"]] == [f"local {base}", f"gluster {VOLUME}"]
