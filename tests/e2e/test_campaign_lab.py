"""A headless campaign on the real lab: 3 layouts × the dd sweep plus a local baseline, killed
with SIGKILL in the middle of a cell, then ``--resume``: every cell measured exactly once,
no volume, brick directory, mount point, worker or run directory left behind, and the
decision table with the three layouts side by side."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from brickyard.core.units import format_rate
from brickyard.store import HistoryStore

LAYOUTS = [
    {"name": "cpdist", "type": "distribute"},
    {"name": "cpdisp", "type": "distributed-disperse", "disperse": 4, "redundancy": 1},
    {"name": "cprep", "type": "distributed-replicate", "replica": 2},
]
CELLS = ["baseline:baseline-1:dd"] + [f"cell:{lay['name']}:dd" for lay in LAYOUTS]


def campaign_file(lab, tmp_path: Path) -> Path:
    doc = {
        "format_version": 1, "name": "e2e-campaign", "topology": str(lab.state.topology_file),
        "options": {"performance.write-behind": "off"},
        "layouts": LAYOUTS,
        # small sizes: the sweep shape of the write-up (one file vs 8), seconds per layout
        "workloads": [{"workload": "dd", "params": {"block_sizes": "1M,4M", "concurrency": "1,8",
                                                    "size": "4M", "direction": "write"}}],
        "repeats": 2,
        "baselines": [{"target": f"{lab.clients[0]}:/var/tmp", "label": "client local disk"}],
        "on_failure": "stop",
    }
    path = tmp_path / "e2e.campaign.json"
    path.write_text(json.dumps(doc))
    return path


def brickyard(*args: str) -> list[str]:
    return [sys.executable, "-m", "brickyard.cli", *args]


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def test_campaign_killed_mid_cell_resumes_without_rerunning_cells_or_leaving_volumes(lab, tmp_path):
    db = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    env = {**os.environ, "BRICKYARD_LOCK_DIR": str(tmp_path / "locks"), "BRICKYARD_QUIET": "1",
           "BRICKYARD_KNOWN_HOSTS": str(tmp_path / "known_hosts")}
    path = campaign_file(lab, tmp_path)
    common = ["--db", db, "--ssh-config", str(lab.ssh_config), "--json"]
    client = lab.clients[0]
    before_base = set(lab.ssh(client, ["ls", "-A", "/var/tmp"]).stdout.split())

    proc = subprocess.Popen(brickyard("campaign", str(path), "--yes", *common), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    killed_cell = f"cell:{LAYOUTS[1]['name']}:dd"
    try:
        store = HistoryStore(db)

        def mid_cell():
            if proc.poll() is not None:
                raise AssertionError(f"the campaign ended before it could be killed: {proc.communicate()}")
            records = store.campaigns.list()
            if not records:
                return None
            st = records[0].state["steps"][killed_cell]
            if st["status"] != "running" or not st["run_ids"]:
                return None
            # at least one step of the sweep is measured: kill it mid-measurement
            runs = store.load_runs(st["run_ids"][-1:]) if store.has_runs(st["run_ids"][-1:]) else []
            return records[0] if runs and runs[0].steps else None

        record = wait_for(mid_cell, 240, f"{killed_cell} to be measuring")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    cid = record.campaign_id
    saved = store.campaigns.get(cid)
    assert saved.status == "running"                          # nobody wrote an ending: it was killed
    assert saved.state["provisioned"] == [LAYOUTS[1]["name"]]  # the volume it left, known
    done_before = {k: saved.state["steps"][k]["run_id"] for k in CELLS[:2]}
    assert all(done_before.values()), done_before

    # a second start of the same file refuses to begin anew while this one is unfinished
    again = subprocess.run(brickyard("campaign", str(path), "--yes", *common), env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "--resume" in json.loads(again.stdout)["error"]

    resumed = subprocess.run(brickyard("campaign", str(path), "--resume", *common), env=env,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, (resumed.stdout[-3000:], resumed.stderr[-3000:])
    doc = json.loads(resumed.stdout)
    assert doc["status"] == "complete" and doc["campaign_id"] == cid and doc["provisioned"] == []

    # every cell measured exactly once; the killed attempt stays in history, interrupted
    store.close()
    store = HistoryStore.open(db)      # start-up marks the killed run interrupted (its process is gone)
    tagged = store.campaigns.runs(cid)
    complete = {}
    for r in tagged:
        if r.status == "complete":
            assert r.cell not in complete, f"{r.cell} was measured twice"
            complete[r.cell] = r.run_id
    assert set(complete) == set(CELLS)
    assert {k: complete[k] for k in CELLS[:2]} == done_before   # finished cells were not run again
    killed = [r for r in tagged if r.cell == killed_cell and r.status != "complete"]
    assert [r.status for r in killed] == ["interrupted"]
    store.close()

    # nothing left on the cluster: no volume, brick directory, mount point, worker or run directory
    listed = lab.ssh("node1", ["gluster", "--mode=script", "volume", "list"])
    assert "No volumes present" in listed.stdout + listed.stderr, listed
    for node in lab.servers:
        left = lab.ssh(node, ["sh", "-c", "ls -A /srv/brick1 /srv/brick2"]).stdout
        assert "brick" not in left.replace("/srv/brick1:", "").replace("/srv/brick2:", ""), (node, left)
    mounts = lab.ssh(client, ["sh", "-c", "ls -d /mnt/brickyard-* 2>/dev/null; grep -c ' /mnt/brickyard-' /proc/mounts"],
                     check=False).stdout
    assert mounts.strip() == "0", mounts
    assert lab.ssh(client, ["pgrep", "-x", "dd"], check=False).returncode == 1
    assert set(lab.ssh(client, ["ls", "-A", "/var/tmp"]).stdout.split()) <= before_base

    # the decision table: three layouts side by side, measured, and the baseline
    table = doc["decision_table"]
    rows = {r["key"]: r for r in table["rows"]}
    assert list(rows)[:3] == [lay["name"] for lay in LAYOUTS]
    bs = 4 * 2**20
    for lay in LAYOUTS:
        figs = rows[lay["name"]]["figures"]
        for n in (1, 8):
            f = figs[f"tput:write:{n}:{bs}"]
            assert f["source"] == "measured" and f["value"] > 0 and f["n"] == 2, (lay["name"], n, f)
        assert figs["usable"]["source"] == "planned" and figs["usable"]["value"] > 0
    assert rows["cpdist"]["figures"]["nodes_worst"]["value"] == 0
    assert rows["cprep"]["figures"]["nodes_worst"]["value"] == 1
    assert rows[f"{client}:/var/tmp"]["kind"] == "baseline"

    # and the same table from the store, as CSV
    csv_out = subprocess.run(brickyard("decision", "--campaign", cid[:10], "--db", db, "--format", "csv"),
                             env=env, capture_output=True, text=True, timeout=120)
    assert csv_out.returncode == 0 and csv_out.stdout.count("\n") == 5, csv_out.stdout

    # the report a manager gets of this campaign: its decision-table cells are the table's figures
    # (tests/report checks every cell against the stored steps the same way), fonts embedded, no bitmap
    from ..report import pdfcheck

    pdf = tmp_path / "campaign-report.pdf"
    made = subprocess.run(brickyard("report", "--campaign", cid[:10], "--db", db, "--out", str(pdf), "--json"),
                          env=env, capture_output=True, text=True, timeout=180)
    assert made.returncode == 0, made.stderr[-3000:]
    info = json.loads(made.stdout)
    assert info["kind"] == "campaign" and info["pages"] == pdfcheck.pages(pdf) >= 5
    assert pdfcheck.images(pdf) == [] and all(f["emb"] == "yes" for f in pdfcheck.fonts(pdf))
    titles = {f"write 4M × {'1 file' if n == 1 else f'{n} files'}": f"tput:write:{n}:{bs}" for n in (1, 8)}
    found = pdfcheck.table_rows(pdfcheck.text(pdf, 1, 1), list(titles))
    for title, key in titles.items():
        cells = [c for line in found[title] for c in line]
        want = []
        for row in table["rows"]:
            f = row["figures"][key]
            want.append(format_rate(f["value"]) + (f" ±{f['spread'] * 50:.0f} %" if f["spread"] is not None else ""))
        assert cells == want, (title, cells, want)
