"""`brickyard campaign` and `brickyard decision` without a cluster: exit codes, the dry run,
refusals before anything runs, and the decision table of stored runs."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run

from ..campaign.test_spec import good, lab_topology, write


@pytest.fixture(autouse=True)
def _quiet(monkeypatch, tmp_path):
    monkeypatch.setenv("BRICKYARD_QUIET", "1")
    monkeypatch.setenv("BRICKYARD_LOCK_DIR", str(tmp_path / "locks"))


def run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_bad_campaign_file_exits_2_naming_the_field(tmp_path, capsys):
    path = write(tmp_path, good(repeats=0))
    code, out, err = run(capsys, ["campaign", str(path), "--json"])
    assert code == 2
    doc = json.loads(out)
    assert doc["exit"] == 2 and "repeats: must be at least 1" in doc["error"]
    assert "repeats: must be at least 1" in err


def test_dry_run_lists_every_step_with_its_commands_and_changes_nothing(tmp_path, capsys):
    path = write(tmp_path, good(baselines=[{"target": "client1:/var/tmp"}]))
    code, out, _ = run(capsys, ["campaign", str(path), "--dry-run", "--json"])
    assert code == 0
    doc = json.loads(out)
    kinds = [s["key"].split(":")[0] for s in doc["steps"]]
    assert kinds == ["baseline", "preflight", "provision", "cell", "teardown",
                     "preflight", "provision", "cell", "teardown"]
    provision = next(s for s in doc["steps"] if s["key"] == "provision:dt4rp2")
    creates = [c for step in provision["commands"] for c in step["commands"] if "volume create" in c]
    assert creates == ["gluster --mode=script volume create dt4rp2 replica 2 transport tcp "
                       + " ".join(f"node{n}:/srv/brick{b}/brick" for b in (1, 2) for n in (1, 2, 3, 4))]
    cell = next(s for s in doc["steps"] if s["key"] == "cell:dt8:dd")
    assert cell["bench"].startswith("brickyard bench --workload dd --target client1:/mnt/brickyard-dt8 --server node1")
    assert doc["questions"]["dt4rp2"][0].startswith("warning: Replica 2 volumes are prone to split-brain")
    code, out, _ = run(capsys, ["campaign", str(path), "--dry-run"])
    assert code == 0 and "ssh node1 gluster --mode=script volume create dt8" in out


def test_gluster_questions_need_yes_before_anything_runs(tmp_path, capsys):
    path = write(tmp_path, good())
    code, out, _ = run(capsys, ["campaign", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'h.db'}"])
    doc = json.loads(out)
    assert code == 1 and "--yes" in doc["error"] and "dt4rp2" in doc["questions"]
    assert not (tmp_path / "h.db").exists()          # nothing was started, not even a record


def test_resume_without_an_unfinished_campaign_says_so(tmp_path, capsys):
    path = write(tmp_path, good())
    code, out, _ = run(capsys, ["campaign", str(path), "--resume", "--json", "--db", f"sqlite:///{tmp_path / 'h.db'}"])
    assert code == 1 and "no unfinished campaign" in json.loads(out)["error"]


def test_decision_of_stored_runs_as_table_csv_and_json(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'h.db'}"
    rng = random.Random(4)
    with HistoryStore(db) as store:
        runs = [synthetic_run(rng, layout="replica"), synthetic_run(rng, layout="disperse")]
        # two layouts of one volume name: two rows
        for r in runs:
            store.add_run(r)
    ids = [r.run_id[:10] for r in runs]
    code, out, _ = run(capsys, ["decision", *ids, "--db", db])
    assert code == 0
    lines = out.splitlines()
    assert "replica 3 (3 bricks)" in lines[0] and "disperse 6 redundancy 2 (6 bricks)" in lines[0]
    assert lines[1].split()[0] == "volume"
    row = next(line for line in lines if line.startswith("write 4M × 4 files"))
    assert "MB/s" in row
    assert any("brick sizes unknown" in line for line in lines)   # no topology: capacity unknown, said so
    code, out, _ = run(capsys, ["decision", *ids, "--db", db, "--format", "csv", "--block-size", "1M"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["layout"] for r in rows] == ["replica 3 (3 bricks)", "disperse 6 redundancy 2 (6 bricks)"]
    assert rows[0]["write 1M × 1 file source"] == "measured" and float(rows[0]["write 1M × 1 file [B/s]"]) > 0
    # replica 3 keeps quorum with any 1 node down; disperse 4+2 with 2 bricks per node, also 1
    assert [r["node failures survived [count]"] for r in rows] == ["1", "1"]
    # sorted by 4-file write throughput: disperse (1.5 bytes on the wire per byte) beats replica 3 (3)
    code, out, _ = run(capsys, ["decision", *ids, "--db", db, "--json", "--sort", f"tput:write:4:{4 * 2**20}"])
    doc = json.loads(out)
    assert [r["label"] for r in doc["rows"]] == ["disperse 6 redundancy 2 (6 bricks)", "replica 3 (3 bricks)"]
    code, _, err = run(capsys, ["decision", *ids, "--db", db, "--sort", "nosuch"])
    assert code == 2 and "no column 'nosuch'" in err


def test_decision_needs_runs_or_a_campaign(capsys, tmp_path):
    code, _, err = run(capsys, ["decision", "--db", f"sqlite:///{tmp_path / 'h.db'}"])
    assert code == 2 and "--campaign" in err


def test_campaign_list_is_empty_on_a_new_database(tmp_path, capsys):
    code, out, _ = run(capsys, ["campaign", "--list", "--json", "--db", f"sqlite:///{tmp_path / 'h.db'}"])
    assert code == 0 and json.loads(out) == []
    topofile.save(lab_topology(), tmp_path / "unused.brickyard.json")


def test_interleave_runs_a_layout_three_times_between_the_others_and_says_what_is_wrong(tmp_path, capsys):
    path = write(tmp_path, good())
    code, out, _ = run(capsys, ["campaign", str(path), "--dry-run", "--json", "--interleave", "dt8"])
    assert code == 0, out
    provisions = [s["key"] for s in json.loads(out)["steps"] if s["key"].startswith("provision:")]
    assert provisions == ["provision:dt8", "provision:dt4rp2", "provision:dt8-2", "provision:dt8-3"]
    code, out, _ = run(capsys, ["campaign", str(path), "--dry-run", "--json", "--interleave", "dt8", "--times", "2"])
    assert [s["key"] for s in json.loads(out)["steps"] if s["key"].startswith("provision:")][-1] == "provision:dt8-2"
    code, out, _ = run(capsys, ["campaign", str(path), "--dry-run", "--json", "--interleave", "dt9"])
    assert code == 2 and "--interleave dt9: no layout 'dt9' in the campaign" in json.loads(out)["error"]
    code, out, _ = run(capsys, ["campaign", str(path), "--dry-run", "--json", "--times", "4"])
    assert code == 2 and "--times goes with --interleave" in json.loads(out)["error"]
