"""What a volume's options make its client do (issue 23, replicated reads): glusterd turns
``performance.client-io-threads`` off when it creates a replicated volume and leaves it on
otherwise; the throughput model carries it (``throughput.NO_IO_THREADS``), fitted where a
calibration holds layouts with and without it."""

from pathlib import Path

import pytest

from brickyard.core import calibration as cal, throughput as tm
from brickyard.core.client_options import io_threads
from brickyard.core.gluster_xml import parse_volume_info
from brickyard.core.plan import plan_volume
from brickyard.core.topology import VolumeType as T

from ._topo import build, volume

MB = 1e6

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gluster"


@pytest.mark.parametrize("replicated,options,expected", [
    (True, {}, False),                                               # glusterd turns it off
    (False, {}, True),                                               # distribute, disperse: on
    (True, {"performance.client-io-threads": "on"}, True),          # an admin's choice wins
    (False, {"performance.client-io-threads": "off"}, False),
    (False, {"performance.client-io-threads": "disable"}, False),
])
def test_io_threads_follow_glusterd_unless_the_volume_sets_them(replicated, options, expected):
    assert io_threads(replicated, options) is expected


def test_a_stored_replicated_volume_drops_glusterds_default_and_a_distributed_one_keeps_the_admins_choice():
    rep = parse_volume_info((FIXTURES / "lab-change-xr-info.xml").read_text())[0]
    assert rep.options["performance.client-io-threads"] == "off"
    assert "performance.client-io-threads" not in rep.to_volume().options      # glusterd's own: not shown
    dist = parse_volume_info((FIXTURES / "lab-volume-info-distribute-client-io-threads-off.xml").read_text())[0]
    assert dist.type is T.DISTRIBUTE
    # was dropped as a "create default" before: the model then saw io-threads that were not there
    assert dist.to_volume().options["performance.client-io-threads"] == "off"


def _shapes():
    topo = build({f"n{i}": 2 for i in range(4)})
    dist = plan_volume(topo, volume(topo, T.DISTRIBUTE)).estimate.shape
    topo.volumes.clear()
    vol = volume(topo, T.DISTRIBUTE)
    vol.options["performance.client-io-threads"] = "off"
    off = plan_volume(topo, vol).estimate.shape
    topo.volumes.clear()
    rep = plan_volume(topo, volume(topo, T.DISTRIBUTED_REPLICATE, name="gv1", replica=2)).estimate.shape
    return topo, dist, off, rep


def test_a_replicated_layouts_shape_has_no_io_threads_and_its_many_file_figures_carry_the_ratio():
    topo, dist, off, rep = _shapes()
    assert dist.io_threads and not off.io_threads and not rep.io_threads
    params = cal.prior_params(topo).with_values({f"{tm.NO_IO_THREADS}.read": tm.Value(0.5, tm.FITTED),
                                                 f"{tm.CLIENT}.read": tm.Value(200 * MB, tm.FITTED),
                                                 f"{tm.STREAM}.read": tm.Value(80 * MB, tm.FITTED)})
    with_them = tm.predict(dist, params, "read", 8, 1 << 22)
    without = tm.predict(off, params, "read", 8, 1 << 22)
    assert with_them.bound == tm.B_CLIENT and without.bps == pytest.approx(with_them.bps * 0.5)
    assert "without io-threads" in without.why
    # one stream below the client's aggregate waits as it did (measured: one file as fast either
    # way, within its scatter)
    assert tm.predict(off, params, "read", 1, 1 << 22).bps == pytest.approx(tm.predict(dist, params, "read", 1, 1 << 22).bps)


def test_calibrated_on_distribute_with_and_without_io_threads_it_predicts_replicated_many_file_reads():
    # the sandbox at load 20 (paired runs): distribute read 8 files at 240 MB/s with io-threads
    # and 190 without; 4 × replica 2 (without, as glusterd makes it) 180
    topo, dist, off, rep = _shapes()
    obs = (cal.Observation(dist, "read", 1, 1 << 22, 150 * MB, "r1", "dt8"),
           cal.Observation(dist, "read", 8, 1 << 22, 240 * MB, "r1", "dt8"),
           cal.Observation(off, "read", 8, 1 << 22, 190 * MB, "r2", "dt8-2"))
    model = cal.fit(topo, cal.Inputs(obs, {}, ("dt8", "dt8-2")))
    ratio = model.params.get(tm.NO_IO_THREADS, "read")
    assert ratio.source == "fitted" and ratio.value == pytest.approx(190 / 240, rel=0.02)
    assert "dt8-2" in ratio.note
    p = tm.predict(rep, model.params, "read", 8, 1 << 22)
    assert p.bps / (180 * MB) - 1 == pytest.approx(190 / 180 - 1, abs=0.05)      # before: 240, +33 %
    # the client's aggregate is fitted on the layout with io-threads, not pulled down by the other
    assert model.params.get(tm.CLIENT, "read").value == pytest.approx(240 * MB, rel=0.02)


def test_without_a_layout_of_the_other_kind_the_ratio_stays_assumed_and_widens_the_range():
    topo, dist, off, rep = _shapes()
    obs = (cal.Observation(dist, "write", 1, 1 << 22, 150 * MB, "r1", "dt8"),
           cal.Observation(dist, "write", 8, 1 << 22, 240 * MB, "r1", "dt8"))
    model = cal.fit(topo, cal.Inputs(obs, {}, ("dt8",)))
    ratio = model.params.get(tm.NO_IO_THREADS, "write")
    assert ratio.source == "assumed" and ratio.value == 1.0
    with_them, without = (tm.predict(s, model.params, "write", 8, 1 << 22) for s in (dist, off))
    assert without.bps == pytest.approx(with_them.bps) and without.low < 0.7 * with_them.low
