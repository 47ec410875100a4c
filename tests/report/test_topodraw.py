"""The topology drawing shows the clients that mount the volume, each with its mount point, as
the canvas lists them; what each brick is comes from core.brick_looks."""

from __future__ import annotations

import random
from pathlib import Path

from brickyard.core import topofile
from brickyard.core.topology import Client, Mount
from brickyard.report import content_from_plan, content_from_runs, export_report
from brickyard.report.content import LayoutPlan
from brickyard.report.topodraw import TopologyDrawing
from brickyard.store.synthetic import synthetic_run

from . import pdfcheck

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def _words(pdf: Path, page: int) -> str:
    return " ".join(pdfcheck.text(pdf, page, page, layout=False).split())


def test_the_clients_that_mount_the_volume_are_drawn_with_their_mount_points(tmp_path):
    topo = topofile.load(EXAMPLES / "three-site.brickyard.json")
    vol = topo.volumes[0]
    topo.clients.append(Client("batch7", site="Falkenstein"))         # mounts nothing: not drawn
    topo.clients.append(Client("render9", site="Helsinki", nic_gbps=25))
    vol.mounts.append(Mount("render9", "/srv/frames", "noatime", fstab=True))
    out = tmp_path / "plan.pdf"
    export_report(content_from_plan(topo, vol, ["site:Helsinki"]), out)
    page = _words(out, 2)
    assert "client web1" in page and f"{vol.name} at /mnt/{vol.name}" in page
    assert "client render9 25 Gbit/s" in page and f"{vol.name} at /srv/frames (noatime) · fstab" in page
    assert "batch7" not in page
    drawing = TopologyDrawing(LayoutPlan(vol.name, content_from_plan(topo, vol).layouts[0].plan, topo))
    sites = {s.name: [c.name for c in s.clients] for s in drawing.sites}
    assert sites["Nuremberg"] == ["web1"] and sites["Helsinki"] == ["render9"] and sites["Falkenstein"] == []
    assert pdfcheck.images(out) == []


def test_a_volume_no_client_mounts_says_so(tmp_path):
    topo = topofile.load(EXAMPLES / "two-server-12-disk.brickyard.json")
    vol = topo.volumes[0]
    vol.mounts.clear()
    out = tmp_path / "plan.pdf"
    export_report(content_from_plan(topo, vol), out)
    assert f"no client mounts {vol.name} yet" in " ".join(pdfcheck.text(out, layout=False).split())


def test_a_report_of_runs_draws_the_client_the_runs_measured_through(store, tmp_path):
    run = synthetic_run(random.Random(3), layout="replica")           # target client1:/mnt/gv0
    store.add_run(run)
    content = content_from_runs(store, [run.run_id])
    (layout,) = content.layouts
    assert layout.mounts == (Mount("client1", "/mnt/gv0"),)
    drawing = TopologyDrawing(layout)
    assert [(c.name, c.mounts) for s in drawing.sites for c in s.clients] == [("client1", ["gv0 at /mnt/gv0"])]
    out = tmp_path / "runs.pdf"
    export_report(content, out)
    assert "client client1" in " ".join(pdfcheck.text(out, layout=False).split())


def test_thin_arbiter_and_failed_parts_are_said_in_words(tmp_path):
    topo = topofile.load(EXAMPLES / "two-site-thin-arbiter.brickyard.json")
    vol = topo.volumes[0]
    out = tmp_path / "plan.pdf"
    ta = vol.thin_arbiter_brick
    export_report(content_from_plan(topo, vol, [ta.node]), out)
    page = _words(out, 2)
    assert f"{ta.node} FAILED" in page and "(thin-arbiter)" in page and "thin-arbiter (every pair's)" in page


def test_the_layout_words_give_a_thin_arbiter_volume_sets_of_two_and_one_shared_thin_arbiter(tmp_path):
    topo = topofile.load(EXAMPLES / "two-site-thin-arbiter.brickyard.json")
    vol = topo.volumes[0]
    out = tmp_path / "plan.pdf"
    export_report(content_from_plan(topo, vol, []), out)
    page = _words(out, 2)
    ta = vol.thin_arbiter_brick
    assert "2 sets of 2 bricks, each file as 2 copies; the thin-arbiter" in page
    assert "sets of 3 bricks" not in page and "an arbiter (metadata only)" not in page
    # the sets as gluster lists them (2 x 2 = 4), the thin-arbiter a row of its own
    assert "Distributed-Replicate 2 x 2 = 4" in page or "2 x 2 = 4" in page
    assert f"{ta.node}:{ta.path} (thin-arbiter: serves every set)" in page
    assert f"{ta.node}:{ta.path} (arbiter)" not in page
