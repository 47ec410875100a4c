"""The canvas and the report's topology drawing show every brick the same way (set, number,
arbiter, thin-arbiter, failed), node and site failures alike: both read core.brick_looks."""

from __future__ import annotations

from pathlib import Path

import pytest

from brickyard.core import topofile
from brickyard.report.content import LayoutPlan
from brickyard.report.topodraw import TopologyDrawing
from brickyard.ui.planner.canvas.view import CanvasView

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "resources" / "examples").glob("*.brickyard.json"))


def _failures(topo) -> list[str]:
    """A node of the volume, and the site of another node, when there are sites."""
    vol = topo.volumes[0]
    first = vol.bricks[0].node
    specs = [first]
    other = next((n for n in topo.nodes if n.site and n.site != topo.site_of(first)), None)
    if other is not None:
        specs.append(f"site:{other.site}")
    if vol.thin_arbiter_brick is not None:
        specs.append(f"brick:{vol.thin_arbiter_brick}")
    return specs


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_canvas_and_report_draw_every_brick_alike(qtbot, path):
    topo = topofile.load(path)
    view = CanvasView(topo)
    qtbot.addWidget(view)
    failures = _failures(topo)
    view.session.toggle_failures(failures)
    plan = view.session.plan
    drawing = TopologyDrawing(LayoutPlan(topo.volumes[0].name, plan, view.session.topo, tuple(failures)))
    board = view.board
    compared = 0
    for site in drawing.sites:
        for card in site.cards:
            assert board.nodes[card.node].failed == card.failed, card.node
            for path_, _, look in card.bricks:
                chip = next(b for b in board.nodes[card.node].bricks if b.path == path_)
                assert chip.look == look, (card.node, path_)
                compared += 1
        if site.name:
            assert board.sites[site.name].failed == site.failed
    assert compared == sum(len(n.bricks) for n in topo.nodes)
    assert any(b.look.failed for n in board.nodes.values() for b in n.bricks)
