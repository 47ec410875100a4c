"""Provenance diff, run labels, metric comparison with significance, chart series."""

from __future__ import annotations

import dataclasses
import math

from brickyard.core.compare import compare_runs, describe_layout, describe_point, point_of, provenance_diff, run_labels
from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult
from brickyard.core.series import scaling_efficiency, sweep_by_block_size, value_at


def _run(run_id: str, gluster: str, values: dict[tuple[int, int], list[float]], **prov) -> RunResult:
    steps = []
    for (bs, conc), reps in values.items():
        for rep, v in enumerate(reps):
            steps.append(StepResult(index=len(steps), params={"direction": "write", "block_size": bs,
                                                              "concurrency": conc},
                                    repeat=rep, workers=(), metrics=(Metric("throughput", v, "B/s"),
                                                                     Metric("elapsed", 1e9 / v, "s"))))
    p = Provenance(brickyard_version="0.1.0", hosts={"gfs1": {"gluster": gluster, "kernel": "6.1"}},
                   target="c1:/mnt/gv0", target_kind="gluster", volume_name="gv0",
                   layout={"type": "replicate", "replica": 3, "bricks": ["a:/b", "b:/b", "c:/b"]}, **prov)
    return RunResult(run_id, "dd", RunStatus.COMPLETE, 1.7e9, 1.7e9 + 60, p, steps)


def test_describe_layout_names_sets_and_bricks():
    assert describe_layout({"replica": 3, "bricks": list("abcdef")}) == "replica 3 × 2 (6 bricks)"
    assert describe_layout({"replica": 3, "arbiter": 1, "bricks": list("abc")}) == "replica 3 arbiter 1 (3 bricks)"
    assert describe_layout({"disperse": 6, "redundancy": 2, "bricks": list("abcdef")}) == \
        "disperse 6 redundancy 2 (6 bricks)"
    assert describe_layout({"type": "distribute", "bricks": list("abcd")}) == "distribute 4"
    assert describe_layout({}) == ""


def test_provenance_diff_lists_only_what_differs_versions_before_options():
    a = _run("a" * 32, "3.12.15", {(4096, 1): [1e8]}, volume_options={"performance.write-behind": "on"})
    b = _run("b" * 32, "6.0", {(4096, 1): [1e8]}, volume_options={"performance.write-behind": "off",
                                                                  "cluster.eager-lock": "on"})
    diffs = provenance_diff([a, b])
    assert [d.field for d in diffs] == ["gluster on gfs1", "option cluster.eager-lock", "option performance.write-behind"]
    assert diffs[1].values == ("(not set)", "on")
    assert run_labels([a, b]) == ["glusterfs 3.12.15", "glusterfs 6.0"]
    assert provenance_diff([a, dataclasses.replace(a, run_id="c" * 32)]) == []


def test_runs_that_differ_only_by_target_are_labelled_by_it():
    disk = _run("a" * 32, "10.3", {(4096, 1): [1e8]})
    disk = dataclasses.replace(disk, provenance=dataclasses.replace(
        disk.provenance, target="local:/home/me/.cache/b", target_kind="local", volume_name="", layout={}))
    shm = dataclasses.replace(disk, run_id="b" * 32,
                              provenance=dataclasses.replace(disk.provenance, target="local:/dev/shm",
                                                             target_kind="tmpfs"))
    assert run_labels([disk, shm]) == ["local /home/me/.cache/b", "tmpfs /dev/shm"]
    same_kind = dataclasses.replace(shm, provenance=dataclasses.replace(shm.provenance, target_kind="local"))
    assert run_labels([disk, same_kind]) == ["local /home/me/.cache/b", "local /dev/shm"]


def test_clear_speed_up_is_significant_and_worded_with_direction():
    a = _run("a" * 32, "3.12.15", {(1 << 20, 1): [100e6, 102e6, 98e6, 101e6, 99e6]})
    b = _run("b" * 32, "6.0", {(1 << 20, 1): [120e6, 123e6, 118e6, 121e6, 119e6]})
    (c,) = compare_runs(a, b)
    assert math.isclose(c.ratio, 120 / 100) and c.low > 1.1 and c.significant
    assert c.p_value < 0.05 and c.certainty().startswith("very likely real")
    assert c.sentence("3.12", "6") == "6 is 20.0% faster than 3.12"
    (t,) = compare_runs(a, b, ["elapsed"])        # seconds: lower is better, so shorter is faster
    assert t.ratio < 1 and t.sentence("3.12", "6").endswith("faster than 3.12")
    assert describe_point(c.point) == "write bs 1M ×1"


def test_noise_is_not_called_a_difference_and_one_repeat_is_not_judged():
    a = _run("a" * 32, "x", {(4096, 1): [100e6, 110e6, 90e6]})
    b = _run("b" * 32, "y", {(4096, 1): [105e6, 95e6, 101e6]})
    (c,) = compare_runs(a, b)
    assert not c.significant and c.certainty().startswith("no clear difference")
    one = compare_runs(_run("a" * 32, "x", {(4096, 1): [1e8]}), _run("b" * 32, "y", {(4096, 1): [2e8]}))[0]
    assert not one.significant and one.certainty().startswith("not judged")


def test_series_medians_ranges_and_scaling_efficiency():
    run = _run("a" * 32, "x", {(4096, 1): [10.0, 30.0, 20.0], (4096, 4): [60.0, 64.0],
                               (65536, 1): [50.0]})
    sweep = sweep_by_block_size(run)
    assert [(p.x, p.median, p.low, p.high, p.n) for p in sweep[1]] == [(4096, 20.0, 10.0, 30.0, 3),
                                                                        (65536, 50.0, 50.0, 50.0, 1)]
    assert value_at(run, "throughput", 4096, 4).median == 62.0
    eff = {p.x: p.median for p in scaling_efficiency(run, 4096)}
    assert eff == {1: 1.0, 4: 62.0 / (4 * 20.0)}
    assert point_of(run.steps[0]) == (("direction", '"write"'), ("block_size", "4096"), ("concurrency", "1"))
