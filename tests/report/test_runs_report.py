"""Reports of stored runs: grouped by the layout they measured, the history comparison with
its verdict, run hygiene naming how a run ended and what its steps were flagged with, and
capacity said to be unknown when no topology holds the bricks."""

from __future__ import annotations

import dataclasses
import random
import statistics

from brickyard.core.results import RunStatus
from brickyard.core.units import format_rate
from brickyard.report import content_from_runs, export_report

from . import pdfcheck
from .helpers import lab_topology, volume_run
from brickyard.core.topology import BrickRef, Layout, Volume, VolumeType

MIB = 2**20


def lab_volume(name="gv0"):
    bricks = [BrickRef(f"node{i}", f"/srv/brick{j}/brick") for j in (1, 2) for i in range(1, 5)]
    return Volume(name, Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2), bricks,
                  {"performance.write-behind": "off"})


def store_run(store, run, topology=None):
    """As the run engine stores a run: begun with its topology, then its steps, then its end."""
    steps = list(run.steps)
    store.begin_run(dataclasses.replace(run, steps=[], status=RunStatus.RUNNING), topology)
    store.add_steps(run.run_id, steps)
    store.finish_run(run.run_id, run.status, run.error, run.failed_host)


def test_two_gluster_versions_on_one_volume_compared_with_a_verdict(store, tmp_path):
    rng = random.Random(11)
    vol = lab_volume()
    old = volume_run(rng, vol, started_at=1_760_000_000.0, speedup=1.0, repeats=5, gluster="glusterfs 6.0")
    new = volume_run(rng, vol, started_at=1_760_090_000.0, speedup=1.6, repeats=5, gluster="glusterfs 10.3")
    for run in (old, new):
        store_run(store, run, lab_topology())
    content = content_from_runs(store, [old.run_id, new.run_id])
    assert [r.key for r in content.table.rows] == ["gv0"]           # one layout: both runs in its row
    assert content.layouts[0].topology.name == "lab"                 # planned on the stored snapshot
    assert [len(s.points) for s in content.trend.series] == [2]      # the volume's history: a trend chart
    (cmp,) = content.comparisons
    assert any(d.field.startswith("gluster on") for d in cmp.differences)
    assert all(m.significant and m.change > 0.3 for m in cmp.metrics)
    out = tmp_path / "versions.pdf"
    export_report(content, out)
    text = " ".join(pdfcheck.text(out, layout=False).split())
    assert "very likely real (95 % interval" in text
    assert "glusterfs 6.0" in text and "glusterfs 10.3" in text
    assert "write 16M × 8 files: every stored run of each volume" in text
    # the row's figure is the median over both runs' repeats, as stored
    values = [s.metric("throughput").value for r in store.load_runs([old.run_id, new.run_id]) for s in r.steps
              if s.valid and s.params["concurrency"] == 8 and s.params["block_size"] == 16 * MIB]
    assert format_rate(statistics.median(values)) in pdfcheck.text(out, 1, 1)
    assert pdfcheck.images(out) == []


def test_hygiene_names_a_partial_run_its_host_and_flagged_steps(store, tmp_path):
    rng = random.Random(12)
    run = volume_run(rng, lab_volume(), started_at=1_760_000_000.0)
    steps = list(run.steps)
    steps[0] = dataclasses.replace(steps[0], flags=("short-step",))
    steps[1] = dataclasses.replace(steps[1], flags=("stall",), valid=False, note="no progress for 45 s")
    run = dataclasses.replace(run, steps=steps[:9], status=RunStatus.PARTIAL, failed_host="node3",
                              error="node3 stopped answering during step 10")
    store.add_run(run)
    out = tmp_path / "partial.pdf"
    export_report(content_from_runs(store, [run.run_id]), out)
    text = " ".join(pdfcheck.text(out, raw=True).split())
    hygiene = text[text.index("Run hygiene"):text.index("Environment")]
    assert "stalled (node3)" in hygiene and "node3 stopped answering during step 10" in hygiene
    assert "9 measured, 1 invalid" in hygiene and "short-step ×1" in hygiene
    assert "short-step: shorter than the workload's minimum step time" in hygiene
    assert "stall: I/O stalled" in hygiene
    appendix = text[text.index("Appendix"):]
    assert "INVALID: stall" in appendix and "no progress for 45 s" in appendix


def test_runs_without_a_topology_say_capacity_is_unknown_and_still_count_failures(store, tmp_path):
    rng = random.Random(13)
    run = volume_run(rng, lab_volume(), started_at=1_760_000_000.0)
    store.add_run(run)                                   # no topology stored with it
    content = content_from_runs(store, [run.run_id])
    row = content.table.rows[0]
    assert not row.figure("usable").known and row.figure("nodes_worst").value == 1
    out = tmp_path / "nosizes.html"
    export_report(content, out)
    doc = out.read_text(encoding="utf-8")
    assert "brick sizes unknown" in doc and "usable capacity not known" in doc


def test_one_volume_name_recreated_with_other_layouts_is_named_once_and_trended_per_layout(store, tmp_path):
    """An admin re-creates gv0 as replica, then disperse, then distribute: the title, the
    table's headers, the sentences and the runs' names say each layout once, and the trend
    draws a line per layout instead of one zig-zag through all of them."""
    from brickyard.store.synthetic import synthetic_run

    rng = random.Random(11)
    runs = [synthetic_run(rng, layout=("replica", "disperse", "distribute")[i % 3],
                          started_at=1_760_000_000.0 + 3600 * i, speedup=1 + (i % 3) / 3) for i in range(6)]
    for run in runs:
        store.add_run(run)
    content = content_from_runs(store, [r.run_id for r in runs])
    assert content.title == "GlusterFS layouts compared: 3 layouts of gv0"
    assert [r.key for r in content.table.rows] == ["gv0 (replica 3 (3 bricks))",
                                                   "gv0 (disperse 6 redundancy 2 (6 bricks))", "gv0 (distribute 3)"]
    assert all(r.extra_label == "" for r in content.table.rows)
    names = [e.label for e in content.runs]
    assert all(n.count("replica 3 (3 bricks)") <= 1 and "gluster gv0" not in n for n in names), names
    assert len(set(names)) == len(names)
    assert [s.name for s in content.trend.series] == [r.key for r in content.table.rows]
    assert [len(s.points) for s in content.trend.series] == [2, 2, 2]
    out = tmp_path / "recreated.pdf"
    export_report(content, out)
    text = " ".join(pdfcheck.text(out, layout=False).split())
    assert "(replica 3 (3 bricks)) (replica 3 (3 bricks))" not in text
    assert "(replica 3 (3 bricks)) replica 3 (3 bricks)" not in text
