"""The decision table: capacity and failures from the planner beside measured throughput,
each figure marked by where it came from; sortable; CSV and JSON."""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from pathlib import Path

import pytest

from brickyard.core import topofile
from brickyard.core.decision import build_table, key_block_sizes
from brickyard.core.decisiontable import (
    ESTIMATED, MEASURED, NONE, PLANNED, PREDICTED, BASELINE, Column, Figure, LayoutEntry, format_figure,
)
from brickyard.core.decision_runs import entries_from_runs, volume_of_run
from brickyard.core.plan import plan_volume
from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult, WorkerTiming
from brickyard.core.topology import Layout, Volume, VolumeType

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
MIB = 2**20


def eight_node():
    return topofile.load(EXAMPLES / "eight-node-raid5.brickyard.json")


def planned(topo, name, layout):
    """Another layout on the example volume's bricks, in its place (both on the same bricks
    would be refused as bricks used twice, and a refused plan has no figures)."""
    bricks = [b for v in topo.volumes[:1] for b in v.bricks]
    return plan_volume(dataclasses.replace(topo, volumes=[]), Volume(name, layout, bricks))


def step(i, direction, conc, bs, repeat, bps, *, scaling=None, valid=True):
    metrics = [Metric("throughput", bps, "B/s")]
    if scaling is not None:
        metrics.append(Metric("scaling_efficiency", scaling, "ratio"))
    return StepResult(i, {"block_size": bs, "concurrency": conc, "direction": direction, "repeat": repeat},
                      repeat, (WorkerTiming(0, "c", 0.0, 1.0, bytes=int(bps)),), tuple(metrics), valid=valid)


def dd_run(run_id, points, *, layout=None, target="client1:/mnt/x", kind="gluster", status=RunStatus.COMPLETE):
    """points: {(direction, conc, bs): [bps per repeat]}"""
    steps, i = [], 0
    for (d, n, bs), values in points.items():
        for rep, v in enumerate(values):
            steps.append(step(i, d, n, bs, rep, v))
            i += 1
    prov = Provenance("0.1", {}, target, kind, volume_name=(layout or {}).get("name", ""),
                      layout=layout or {}, workload="dd")
    return RunResult(run_id, "dd", status, 0.0, 1.0, prov, steps)


def test_capacity_and_failures_come_from_the_planner_marked_planned():
    topo = eight_node()
    plan = planned(topo, "dp8rd2", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2))
    table = build_table([LayoutEntry("dp8rd2", plan)])
    row = table.row("dp8rd2")
    assert row.figure("usable").value == 168e12 and row.figure("usable").source == PLANNED
    assert row.figure("nodes_worst").value == 2
    # the write-up's "154 TB" was TiB: both units are printed
    assert table.text(row, "usable") == "168.00 TB (152.80 TiB)"
    # one named site: site failures are not a thing here, and say why
    assert not row.figure("sites_worst").known and "fewer than two sites" in row.figure("sites_worst").note


def test_unmeasured_layout_shows_the_estimate_marked_estimated():
    topo = eight_node()
    plan = planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE))
    table = build_table([LayoutEntry("dt8", plan)])
    # planned only: the estimate's four points, large blocks, one file vs many
    assert [c.key for c in table.columns if c.group == "throughput"] == [
        "tput:write:1:0", "tput:write:0:0", "tput:read:1:0", "tput:read:0:0"]
    row = table.row("dt8")
    f = row.figure("tput:write:1:0")
    assert f.source == ESTIMATED and f.value == pytest.approx(300e6) and "planner estimate" in f.note
    assert table.text(row, "tput:write:1:0") == "≈300.0 MB/s (est.)"
    assert table.column("tput:write:0:0").title == "write large blocks × many files"
    # measured elsewhere, not here: this row's cell is the estimate, the other's the measurement
    bs = 64 * MIB
    other = planned(topo, "dp8rd2", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2))
    table = build_table([LayoutEntry("dt8", plan), LayoutEntry("dp8rd2", other, [dd_run("r", {("write", 8, bs): [1.4e9]})])])
    assert table.row("dt8").figure(f"tput:write:8:{bs}").source == ESTIMATED
    assert table.row("dp8rd2").figure(f"tput:write:8:{bs}").source == MEASURED
    assert build_table([LayoutEntry("dt8", plan)], estimates=False).row("dt8").figure("usable").known


def test_measured_throughput_is_the_median_over_repeats_with_min_max_spread():
    topo = eight_node()
    plan = planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE))
    run = dd_run("r1", {("write", 1, 64 * MIB): [300e6, 320e6, 310e6],
                        ("write", 8, 64 * MIB): [2.1e9, 2.3e9, 2.2e9]})
    table = build_table([LayoutEntry("dt8", plan, [run])])
    f = table.row("dt8").figure(f"tput:write:8:{64 * MIB}")
    assert (f.value, f.low, f.high, f.n, f.source) == (2.2e9, 2.1e9, 2.3e9, 3, MEASURED)
    assert f.run_ids == ("r1",)
    assert f.spread == pytest.approx(0.2 / 2.2)
    assert table.text(table.row("dt8"), f"tput:write:8:{64 * MIB}") == "2.20 GB/s ±5 %"


def test_scaling_efficiency_uses_each_repeats_own_pair_when_recorded_else_the_medians():
    topo = eight_node()
    plan = planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE))
    run = dd_run("r1", {("write", 1, 64 * MIB): [300e6, 300e6], ("write", 8, 64 * MIB): [1.2e9, 2.4e9]})
    table = build_table([LayoutEntry("dt8", plan, [run])])
    f = table.row("dt8").figure(f"scaling:write:8:{64 * MIB}")
    assert f.value == pytest.approx(1.8e9 / (8 * 300e6)) and f.source == MEASURED
    # with the per-repeat metric the spread is the repeats' spread
    steps = [step(0, "write", 1, MIB * 64, 0, 3e8), step(1, "write", 8, MIB * 64, 0, 1.2e9, scaling=0.5),
             step(2, "write", 1, MIB * 64, 1, 3e8), step(3, "write", 8, MIB * 64, 1, 2.4e9, scaling=1.0)]
    run2 = RunResult("r2", "dd", RunStatus.COMPLETE, 0, 1, Provenance("0.1", {}, "c:/m", "gluster"), steps)
    f2 = build_table([LayoutEntry("dt8", plan, [run2])]).row("dt8").figure(f"scaling:write:8:{64 * MIB}")
    assert (f2.value, f2.low, f2.high, f2.n) == (0.75, 0.5, 1.0, 2)


def test_invalid_steps_and_failed_runs_never_count():
    plan = planned(eight_node(), "dt8", Layout(VolumeType.DISTRIBUTE))
    bs = 64 * MIB
    good = RunResult("ok", "dd", RunStatus.PARTIAL, 0, 1, Provenance("0.1", {}, "c:/m", "gluster"),
                     [step(0, "write", 1, bs, 0, 3e8), step(1, "write", 1, bs, 1, 9e9, valid=False)])
    failed = RunResult("bad", "dd", RunStatus.FAILED, 0, 1, Provenance("0.1", {}, "c:/m", "gluster"),
                       [step(0, "write", 1, bs, 0, 1e3)])
    f = build_table([LayoutEntry("dt8", plan, [good, failed])]).row("dt8").figure(f"tput:write:1:{bs}")
    assert (f.value, f.n, f.run_ids) == (3e8, 1, ("ok",))


def test_key_block_sizes_keep_2m_and_more_at_most_three_with_the_largest():
    sweep = [2**k for k in range(10, 30)]  # 1K .. 512M, the write-up's sweep
    picked = key_block_sizes(sweep)
    assert len(picked) == 3 and picked[-1] == 512 * MIB and min(picked) >= 2 * MIB
    assert key_block_sizes([4096, 65536]) == (65536,)   # nothing ≥ 2M: the largest
    assert key_block_sizes([4 * MIB, 64 * MIB]) == (4 * MIB, 64 * MIB)


def test_sorting_puts_the_best_first_and_unknowns_last():
    topo = eight_node()
    bs = 64 * MIB
    entries = []
    for name, layout, bps in (("dt8", Layout(VolumeType.DISTRIBUTE), 2.2e9),
                              ("dp8rd2", Layout(VolumeType.DISPERSE, disperse=8, redundancy=2), 1.4e9),
                              ("dt4rp2", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2), None)):
        runs = [dd_run(name, {("write", 8, bs): [bps]})] if bps else []
        entries.append(LayoutEntry(name, planned(topo, name, layout), runs))
    table = build_table(entries, estimates=False)
    key = f"tput:write:8:{bs}"
    assert [r.key for r in table.sorted_by(key).rows] == ["dt8", "dp8rd2", "dt4rp2"]
    assert [r.key for r in table.sorted_by(key, descending=False).rows] == ["dp8rd2", "dt8", "dt4rp2"]
    assert [r.key for r in table.sorted_by("usable").rows] == ["dt8", "dp8rd2", "dt4rp2"]
    assert [r.key for r in table.sorted_by("nodes_worst").rows][0] == "dp8rd2"


def test_csv_has_plain_numbers_tb_and_tib_and_every_figures_source():
    topo = eight_node()
    bs = 64 * MIB
    run = dd_run("r1", {("write", 1, bs): [300e6, 320e6, 310e6]})
    table = build_table([LayoutEntry("dt8", planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE)), [run])])
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert len(rows) == 1
    r = rows[0]
    assert r["usable [bytes]"] == "224000000000000" and r["usable [TB]"] == "224.000"
    assert r["usable [TiB]"] == f"{224e12 / 2**40:.3f}" and r["usable source"] == PLANNED
    title = "write 64M × 1 file"
    assert r[f"{title} [B/s]"] == "310000000" and r[f"{title} min"] == "300000000"
    assert r[f"{title} max"] == "320000000" and r[f"{title} n"] == "3" and r[f"{title} source"] == MEASURED
    assert r["layout"] == "distribute 8"


def test_json_round_trips_every_figure():
    import json

    topo = eight_node()
    table = build_table([LayoutEntry("dt8", planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE)))])
    doc = json.loads(json.dumps(table.to_json()))
    assert doc["format_version"] == 1
    assert doc["rows"][0]["figures"]["usable"]["source"] == PLANNED
    assert {c["key"] for c in doc["columns"]} >= {"usable", "nodes_worst", "sites_worst"}


def test_a_model_can_add_a_predicted_column_next_to_the_measured_one():
    topo = eight_node()
    bs = 64 * MIB
    run = dd_run("r1", {("write", 1, bs): [300e6]})
    table = build_table([LayoutEntry("dt8", planned(topo, "dt8", Layout(VolumeType.DISTRIBUTE)), [run])])
    measured = f"tput:write:1:{bs}"
    col = Column("pred:write:1:" + str(bs), "predicted write 64M × 1 file", "B/s", "prediction",
                 params={"direction": "write", "concurrency": 1, "block_size": bs})
    t2 = table.with_column(col, {"dt8": Figure(315e6, PREDICTED, note="calibrated on r0")}, after=measured)
    keys = [c.key for c in t2.columns]
    assert keys[keys.index(measured) + 1] == col.key
    assert t2.text(t2.row("dt8"), col.key) == "315.0 MB/s (pred.)"
    with pytest.raises(ValueError):
        t2.with_column(col, {})


def test_baselines_have_no_capacity_and_are_rows_of_their_own():
    local = dd_run("b1", {("write", 1, 64 * MIB): [900e6]}, target="local:/tmp/base", kind="local")
    gl = dd_run("g1", {("write", 1, 64 * MIB): [300e6]},
                layout={"name": "dt8", "type": "Distribute", "bricks": [f"n00{i}:/mnt/gluster/brick" for i in range(1, 9)],
                        "replica": 1, "disperse": 0, "redundancy": 0, "arbiter": 0})
    entries = entries_from_runs([local, gl], eight_node())
    assert [e.kind for e in entries] == ["layout", BASELINE]
    table = build_table(entries)
    base = table.row("local:/tmp/base")
    assert base.kind == BASELINE and not base.figure("usable").known
    assert base.figure(f"tput:write:1:{64 * MIB}").value == 900e6
    assert table.row("dt8").figure("usable").value == 224e12


def test_stored_runs_without_a_topology_still_show_failures_but_not_capacity():
    gl = dd_run("g1", {("write", 8, 64 * MIB): [1.4e9]},
                layout={"name": "dp", "type": "Disperse", "bricks": [f"n{i}:/b" for i in range(1, 7)],
                        "replica": 1, "disperse": 6, "redundancy": 2, "arbiter": 0})
    vol = volume_of_run(gl)
    assert vol.layout.type is VolumeType.DISPERSE and vol.layout.redundancy == 2
    table = build_table(entries_from_runs([gl]))
    row = table.row("dp")
    assert row.figure("nodes_worst").value == 2
    assert not row.figure("usable").known and "brick sizes unknown" in row.figure("usable").note
    assert "brick sizes unknown" in row.notes[0]
    assert row.label == "disperse 6 redundancy 2 (6 bricks)"


def test_format_figure_units():
    rate = Column("t", "t", "B/s", "throughput")
    assert format_figure(rate, Figure(None)) == "—"
    assert format_figure(rate, Figure(1.5e9, MEASURED, 1.5e9, 1.5e9, 1)) == "1.50 GB/s"
    assert format_figure(Column("s", "s", "ratio", "scaling"), Figure(0.875, MEASURED)) == "88 %"
    assert format_figure(Column("s", "s", "ratio", "scaling"), Figure(0.5, MEASURED, 0.25, 0.75, 3)) == "50 % (25–75 %)"
    assert format_figure(Column("n", "n", "count", "failures"), Figure(2.0, PLANNED)) == "2"
    assert math.isnan(float("nan")) and not Figure(float("nan"), NONE).known


def test_replica_3_and_replica_3_arbiter_1_on_the_same_bricks_are_two_rows():
    bricks = [f"n{i}:/b" for i in (1, 2, 3)]
    runs = [dd_run(f"r{arb}", {("write", 1, MIB): [1e8]},
                   layout={"name": "gv0", "type": "Replicate", "replica": 3, "arbiter": arb, "bricks": bricks})
            for arb in (0, 1)]
    entries = entries_from_runs(runs)
    assert len(entries) == 2 and entries[0].key != entries[1].key


# ---- issue 21 point 3: the layouts' measured block sizes decide the columns -------------------
FIRST_START = [4 * 2**10 * 4**k for k in range(7)]      # the welcome view's sweep: 4K … 16M


def first_start_baseline(run_id, target, single, four, sizes=FIRST_START):
    """A baseline as Benchmark this machine measures it: every size, one file and 4 at once."""
    return dd_run(run_id, {**{("write", 1, bs): [single] for bs in sizes}, **{("write", 4, bs): [four] for bs in sizes}},
                  target=target, kind="local")


def gluster_at_4m(name, single, four, layout):
    return dd_run(f"run-{name}", {("write", 1, 4 * MIB): [single], ("write", 4, 4 * MIB): [four]},
                  layout={"name": name, **layout})


def issue_runs():
    """The issue's case: six-brick gluster layouts measured at 4M, with 1 and 4 files; the
    first-start baselines (a local directory, tmpfs) measured 4K … 16M."""
    bricks = [f"n00{i}:/mnt/gluster/brick" for i in range(1, 7)]
    return [
        gluster_at_4m("gv0-dt6", 120e6, 300e6, {"type": "Distribute", "bricks": bricks}),
        gluster_at_4m("gv0-dt3rp2", 60e6, 145e6, {"type": "Distributed-Replicate", "replica": 2, "bricks": bricks}),
        gluster_at_4m("gv0-dp6rd2", 40e6, 76e6, {"type": "Disperse", "disperse": 6, "redundancy": 2,
                                                 "bricks": bricks}),
        first_start_baseline("local", "local:/home/ana/.cache/brickyard/baseline", 700e6, 900e6),
        first_start_baseline("tmpfs", "local:/dev/shm", 2e9, 3e9, sizes=[16 * MIB]),
    ]


def test_the_columns_are_the_block_sizes_the_layouts_measured_not_the_baselines_sweep():
    table = build_table(entries_from_runs(issue_runs(), eight_node()))
    assert table.block_sizes == (4 * MIB,)
    assert [c.key for c in table.columns if c.group == "throughput"] == [f"tput:write:1:{4 * MIB}",
                                                                       f"tput:write:4:{4 * MIB}"]
    # every layout's figure is its measurement, none an estimate
    for key in ("gv0-dt6", "gv0-dt3rp2", "gv0-dp6rd2"):
        assert table.row(key).figure(f"tput:write:4:{4 * MIB}").source == MEASURED
    # a baseline measured at 4M is compared there; one that measured only 16M says so in its cell
    local = table.row("local:/home/ana/.cache/brickyard/baseline").figure(f"tput:write:4:{4 * MIB}")
    assert (local.value, local.block_size) == (900e6, None)
    tmpfs = table.row("local:/dev/shm")
    assert tmpfs.figure(f"tput:write:4:{4 * MIB}").block_size == 16 * MIB
    assert table.text(tmpfs, f"tput:write:4:{4 * MIB}") == "3.00 GB/s at 16M"
    assert "did not measure 4M" in tmpfs.figure(f"tput:write:4:{4 * MIB}").note
    assert "measured at 16M" in table.to_csv()
    assert table.to_json()["rows"][-1]["figures"][f"tput:write:4:{4 * MIB}"]["block_size"] == 16 * MIB


def test_a_table_of_baselines_alone_keeps_their_own_sizes():
    table = build_table(entries_from_runs(issue_runs()[3:], None))
    assert table.block_sizes == (4 * MIB, 16 * MIB)
    assert table.row("local:/dev/shm").figure(f"tput:write:4:{16 * MIB}").block_size is None


def test_a_baseline_that_did_not_measure_the_layouts_file_count_says_what_it_measured():
    runs = issue_runs()
    runs[3] = dd_run("local", {("write", 1, 4 * MIB): [700e6], ("write", 2, 4 * MIB): [800e6]},
                     target="local:/var/tmp", kind="local")
    table = build_table(entries_from_runs(runs, eight_node()))
    figure = table.row("local:/var/tmp").figure(f"tput:write:4:{4 * MIB}")
    assert not figure.known and figure.note == "not measured with 4 files (this baseline measured write with 1, 2 file(s))"
