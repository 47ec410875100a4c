"""The campaign loader refuses what would otherwise end a dry run or a real run in an internal
error (issue 25 points 8, 10, 11): mount points and options the mount editor and the topology
reader refuse, a topology path that is not text, and a campaign larger than one may be."""

from __future__ import annotations

import json
import time

import pytest

from brickyard.campaign import spec as campaign_spec
from brickyard.cli import main
from brickyard.core import topofile

from .test_spec import good, lab_topology, problems, write


@pytest.mark.parametrize("path,options,field,words", [
    ("/mnt/./x-{volume}", "", "path", "write the mount point plainly"),
    ("/mnt/b {volume}", "", "path", "cannot hold spaces"),
    ("/mnt/{volume}/", "", "path", "write the mount point plainly"),
    ("/mnt/{volume}", "noatime,bogus", "options", "mount.glusterfs refuses 'bogus'"),
    ("/mnt/{volume}", "log-level=LOUD", "options", "ignores log-level=LOUD"),
    ("/mnt/{volume}", "backup-volfile-servers=x", "options", "Brickyard adds backup-volfile-servers itself"),
])
def test_mounts_are_checked_as_the_mount_editor_checks_them(tmp_path, capsys, path, options, field, words):
    doc = good(mounts=[{"client": "client1", "path": path, "options": options}])
    found = problems(tmp_path, doc)
    assert any(p.startswith(f"mounts[0].{field}: ") and words in p for p in found), found
    for argv in (["campaign", str(tmp_path / "c.campaign.json"), "--dry-run"],
                 ["campaign", str(tmp_path / "c.campaign.json"), "--dry-run", "--json"]):
        assert main(argv) == 2
        err = capsys.readouterr()
        assert "internal error" not in err.err + err.out and "Traceback" not in err.err


def test_a_topology_path_that_is_not_text_is_refused(tmp_path, capsys):
    path = write(tmp_path, json.dumps(good(topology="lab\udfff.json")))
    assert main(["campaign", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "topology: contains a lone surrogate (\\udfff)" in err and "internal error" not in err


def test_a_campaign_larger_than_one_may_be_is_refused_at_once(tmp_path, capsys):
    n = 20_000
    doc = good(layouts=[{"name": f"l{i}", "type": "distribute"} for i in range(n)])
    path = write(tmp_path, doc)
    assert path.stat().st_size < campaign_spec.MAX_FILE_BYTES
    started = time.perf_counter()
    assert main(["campaign", str(path), "--dry-run"]) == 2
    took = time.perf_counter() - started
    err = capsys.readouterr().err
    assert f"layouts: {n} layouts: a campaign holds at most {campaign_spec.MAX_LAYOUTS}" in err
    assert took < 10, took      # it was over 120 s: refused before any layout is planned


def test_layouts_times_workloads_times_repeats_is_bounded(tmp_path):
    layouts = [{"name": f"l{i}", "type": "distribute"} for i in range(campaign_spec.MAX_LAYOUTS)]
    workloads = [{"workload": "dd", "id": f"dd{i}", "params": {"block_sizes": "1M", "concurrency": "1"}}
                 for i in range(10)]
    found = problems(tmp_path, good(layouts=layouts, workloads=workloads, repeats=5))
    assert found == [f"(layouts + baselines) × workloads × repeats = 5000 measured runs: a campaign holds at most "
                     f"{campaign_spec.MAX_MEASURED_RUNS}; split it into several campaigns, or fewer repeats"]


def test_a_topology_file_with_a_mount_provisioning_refuses_is_refused_by_the_reader(tmp_path):
    data = topofile.to_dict(lab_topology())
    data["volumes"] = [{"name": "gv0", "type": "distribute", "bricks": ["node1:/srv/brick1/brick"],
                        "mounts": [{"client": "client1", "path": "/mnt/./gv0", "options": "noatime,bogus"}]}]
    with pytest.raises(topofile.TopologyFileError) as caught:
        topofile.loads(json.dumps(data))
    found = [str(p) for p in caught.value.problems]
    assert any(p.startswith("volumes[0].mounts[0].path: ") for p in found), found
    assert any(p.startswith("volumes[0].mounts[0].options: mount.glusterfs refuses 'bogus'") for p in found), found
