"""`brickyard plan --calibrate`: a calibration file or stored runs turn the estimate into a
prediction, in the JSON ``estimate`` and the text; bad sources are refused by name."""

import json
import random

import pytest

from brickyard.cli import main
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run
from tests.conftest import EXAMPLES

RAID5 = str(EXAMPLES / "eight-node-raid5.brickyard.json")
DT8 = {"format_version": 1, "name": "write-up dt8", "layout": {"type": "distribute"},
       "measurements": [{"direction": "write", "concurrency": 1, "block_size": "64M", "throughput": "315MB/s"},
                        {"direction": "write", "concurrency": 8, "block_size": "64M", "throughput": "2.2GB/s"}]}


def run(capsys, *argv):
    code = main(["plan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_calibration_file_makes_the_json_estimate_a_prediction_with_bounds_and_intervals(capsys, tmp_path):
    path = tmp_path / "dt8.json"
    path.write_text(json.dumps(DT8))
    code, out, _ = run(capsys, RAID5, "--type", "disperse", "--disperse", "8", "--redundancy", "2", "--force",
                       "--calibrate", str(path), "--json")
    est = json.loads(out)["estimate"]
    assert code == 0 and est["calibrated"] and est["label"] == "predicted (calibrated on write-up dt8)"
    assert est["bound"]["single_write"] == "client stream"
    low, high = est["interval"]["concurrent_write"]
    assert low < est["concurrent_write_bps"] < high
    assert est["parameters"]["stream_bps.write"]["source"] == "fitted"
    assert est["parameters"]["ec_gf_bps"]["source"] == "assumed"
    assert [f["bps"] for f in est["fit"]] == [315e6, 2.2e9]
    assert {b["block"] for b in est["per_block_size"]} == {"4K", "64K", "1M"}


def test_the_text_plan_names_the_calibration_and_each_bound(capsys, tmp_path):
    path = tmp_path / "dt8.json"
    path.write_text(json.dumps(DT8))
    code, out, _ = run(capsys, RAID5, "--type", "distributed-replicate", "--replica", "2", "--calibrate", str(path))
    assert "Throughput PREDICTED (CALIBRATED ON WRITE-UP DT8)" in out
    assert "bound: client stream" in out and "fitted: " in out and "raised from declared 300.0 MB/s" in out


def test_stored_runs_calibrate_by_id_prefix(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    runs = [synthetic_run(random.Random(1), layout="distribute"), synthetic_run(random.Random(2), layout="replica")]
    with HistoryStore(db) as store:
        for r in runs:
            store.add_run(r)
    code, out, _ = run(capsys, RAID5, "--calibrate", runs[0].run_id[:10], "--calibrate", runs[1].run_id[:10],
                       "--db", db, "--json")
    est = json.loads(out)["estimate"]
    assert est["calibrated"] and len(est["calibrated_on"]) == 2
    assert all(c.startswith("gv0 run ") for c in est["calibrated_on"])


@pytest.mark.parametrize("content,fragment", [
    ('{"format_version": 1}', "layout"),
    ('{"format_version": 1, "layout": {"type": "distribute"}, "measurements": [{"direction": "write", '
     '"concurrency": 1, "throughput": "fast"}]}', "measurements[0].throughput"),
    ("not json", "dt8.json"),
])
def test_a_bad_calibration_file_exits_2_naming_the_problem(capsys, tmp_path, content, fragment):
    path = tmp_path / "dt8.json"
    path.write_text(content)
    code, out, err = run(capsys, RAID5, "--calibrate", str(path))
    assert code == 2 and fragment in err


def test_an_unknown_run_or_missing_file_exits_2(capsys, tmp_path):
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    code, _, err = run(capsys, RAID5, "--calibrate", "feedbeef", "--db", db)
    assert code == 2 and "no stored run id starts with it" in err
    code, _, err = run(capsys, RAID5, "--calibrate", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json" in err


def test_the_admin_asks_for_their_own_file_count_and_block_sizes(capsys, tmp_path):
    path = tmp_path / "dt8.json"
    path.write_text(json.dumps(DT8))
    code, out, _ = run(capsys, RAID5, "--type", "distributed-replicate", "--replica", "2", "--calibrate", str(path),
                       "--concurrency", "3", "--block-size", "4M", "--block-size", "16K,1G", "--json")
    est = json.loads(out)["estimate"]
    assert code == 0 and est["concurrency"] == 3
    assert {p for p in est["interval"]} == {"single_write", "concurrent_write", "single_read", "concurrent_read"}
    assert [b["block"] for b in est["per_block_size"]] == ["16K", "4M", "1G"]
    row = est["per_block_size"][0]
    assert row["single_write_bps"] < row["concurrent_write_bps"]
    low, high = row["interval"]["concurrent_write"]
    assert low <= row["concurrent_write_bps"] <= high
    code, out, _ = run(capsys, RAID5, "--type", "distributed-replicate", "--replica", "2", "--calibrate", str(path),
                       "--concurrency", "3", "--block-size", "4M")
    assert "write 3 files" in out and "at 4M blocks: write 1 file" in out


@pytest.mark.parametrize("flag,value,said", [("--concurrency", "0", "--concurrency: files at once: 0"),
                                             ("--block-size", "4Q", "--block-size 4Q"),
                                             ("--block-size", "100", "--block-size: block size 100 bytes")])
def test_a_question_the_model_cannot_answer_is_refused_by_flag(capsys, flag, value, said):
    code, _, err = run(capsys, RAID5, flag, value)
    assert code == 2 and said in err, err


def test_raw_and_usable_come_in_bytes_where_tb_rounds_to_nothing(capsys):
    code, out, _ = run(capsys, str(EXAMPLES / "eight-node-raid5.brickyard.json"), "--json")
    doc = json.loads(out)
    assert doc["raw"]["bytes"] == doc["raw_bytes"] and doc["usable"]["bytes"] == doc["usable_bytes"]
    assert isinstance(doc["usable"]["bytes"], int) and doc["usable"]["bytes"] > 0


def test_a_calibration_missing_its_own_figures_is_a_warning_in_text_and_json(capsys, tmp_path):
    noisy = {**DT8, "measurements": [
        {"direction": "write", "concurrency": 1, "block_size": "1M", "throughput": "315MB/s"},
        {"direction": "write", "concurrency": 1, "block_size": "4M", "throughput": "120MB/s"},
        {"direction": "write", "concurrency": 1, "block_size": "16M", "throughput": "330MB/s"}]}
    path = tmp_path / "noisy.json"
    path.write_text(json.dumps(noisy))
    code, out, _ = run(capsys, RAID5, "--calibrate", str(path), "--json")
    est = json.loads(out)["estimate"]
    assert any("does not fit its own inputs" in w and "4M blocks" in w for w in est["warnings"])
    assert est["parameters"]["noise_log_sigma"]["source"] == "measured"
    code, out, _ = run(capsys, RAID5, "--calibrate", str(path))
    assert "WARNING: the calibration does not fit its own inputs" in out


def test_stored_small_file_runs_calibrate_the_extract_and_lstat_figures(capsys, tmp_path):
    """Issue 23 part 2 as the admin uses it: smallfile runs at two RTTs measure the round trips
    and the local cost of a replicated extract, a metadata run the uncached lstat; the plan's
    small-file figures say they are calibrated on them (they do not touch throughput)."""
    from brickyard.store.synthetic import synthetic_small_file_run

    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    near = synthetic_small_file_run([2.0 + 12 * 0.2, 9.0], rtt_ms={"gfs1": 0.2, "gfs2": 0.2, "gfs3": 0.2}, seed=1)
    far = synthetic_small_file_run([2.0 + 12 * 8.0], rtt_ms={"gfs1": 0.2, "gfs2": 0.2, "gfs3": 8.0}, seed=2)
    lstat = synthetic_small_file_run([0.3 + 1.2 * 0.2], workload="metadata", rtt_ms={"gfs1": 0.2, "gfs2": 0.2,
                                                                                       "gfs3": 0.2}, seed=3)
    with HistoryStore(db) as store:
        for r in (near, far, lstat):
            store.add_run(r)
    argv = [RAID5, "--type", "distributed-replicate", "--replica", "2", "--db", db]
    for r in (near, far, lstat):
        argv += ["--calibrate", r.run_id[:10]]
    code, out, _ = run(capsys, *argv, "--json")
    doc = json.loads(out)
    small = doc["small_files"]
    assert small["calibrated_on"] == [f"smallfile run {near.run_id[:12]}", f"smallfile run {far.run_id[:12]}",
                                      f"metadata run {lstat.run_id[:12]}"]
    ex, ls = small["extract"], small["lstat"]
    assert ex["source"] == "fitted" and ex["round_trips"] == pytest.approx(12.0) and ex["local_ms"] == pytest.approx(2.0)
    # one RTT only for the lstat: its local cost measured, its round trip still the assumed one
    assert ls["round_trips"] == 1.0 and ls["local_ms"] == pytest.approx(0.3 + 0.2 * 0.2)
    assert "measured 0.54 ms at 0.2 ms RTT" in ls["note"]
    assert doc["estimate"]["label"] == "estimate (uncalibrated)"     # throughput: nothing measured it
    code, out, _ = run(capsys, *argv)
    assert f"calibrated on smallfile run {near.run_id[:12]}" in out
    assert "12 round trips × " in out and "(fitted)" in out


def test_a_small_file_run_without_an_uncached_lstat_is_refused_by_name(capsys, tmp_path):
    from brickyard.store.synthetic import synthetic_small_file_run

    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    r = synthetic_small_file_run([0.5], workload="metadata")
    r.steps[:] = [s for s in r.steps if not s.params["mount"].startswith("target via")]
    with HistoryStore(db) as store:
        store.add_run(r)
    code, _, err = run(capsys, RAID5, "--calibrate", r.run_id[:10], "--db", db)
    assert code == 2 and f"run {r.run_id[:12]} (metadata) has no valid lstat loop" in err
