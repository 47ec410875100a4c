"""The canvas lays out a live edit exactly as a fresh open of the same file would — the class
of bug where a topology without named sites (every lab and imported cluster) drew its
"(no site)" frame shrunken, a new node on top of node1 and node3 off the edge after N."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from brickyard.core import edits, topofile
from brickyard.core.topology import Brick, Client, Mount, Node, Site, Topology
from brickyard.ui.planner.canvas.view import CanvasView

from .helpers import click, open_window, point_of


def lab_topology() -> Topology:
    """What `brickyard lab up 3` writes: no sites, three nodes with two bricks, a client."""
    topo = Topology(name="brickyard-lab")
    for i in (1, 2, 3):
        topo.nodes.append(Node(f"node{i}", address=f"10.77.0.{10 + i}",
                               bricks=[Brick("/srv/brick1/brick", 2**30), Brick("/srv/brick2/brick", 2**30)]))
    topo.clients.append(Client("client1", address="10.77.0.101"))
    return topo


def geometry(view: CanvasView) -> dict:
    """Where everything is: every site frame, node card, client card, and the scene rect."""
    board = view.board
    out = {f"site:{k}": board.sites[k].rect.getRect() for k in board.sites}
    out |= {f"node:{k}": (item.pos().x(), item.pos().y(), item.height()) for k, item in board.nodes.items()}
    out |= {f"client:{k}": (item.pos().x(), item.pos().y(), item.height()) for k, item in board.clients.items()}
    out["scene"] = board.sceneRect().getRect()
    return out


def fresh_geometry(qtbot, topo: Topology, volume: str) -> dict:
    """The same topology saved and opened again in a new view."""
    again = topofile.loads(topofile.dumps(topo))
    view = CanvasView(again)
    qtbot.addWidget(view)
    view.session.select_volume(volume)
    return geometry(view)


def no_overlap(view: CanvasView) -> None:
    cards = [i.sceneBoundingRect().adjusted(3, 3, -3, -3) for i in [*view.board.nodes.values(),
                                                                    *view.board.clients.values()]]
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            assert not a.intersects(b), (a, b)
    for item in [*view.board.nodes.values(), *view.board.clients.values()]:
        assert view.board.sceneRect().contains(item.sceneBoundingRect())


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, lab_topology(), focus_canvas=True)


def test_n_new_volume_auto_place_and_s_on_a_site_less_topology_lay_out_as_a_fresh_open(qtbot, window):
    view = window.canvas
    topo = window.session.topo
    assert geometry(view) == fresh_geometry(qtbot, topo, "")
    click(view, point_of(view, view.board.nodes["node1"]))
    qtbot.keyClick(view, Qt.Key.Key_N)  # a node next to node1, in "(no site)"
    assert topo.node("node4").site == ""
    assert geometry(view) == fresh_geometry(qtbot, topo, "")
    no_overlap(view)
    qtbot.mouseClick(window.layout_panel.new_volume, Qt.MouseButton.LeftButton)
    assert geometry(view) == fresh_geometry(qtbot, topo, window.session.volume_name)
    qtbot.mouseClick(window.layout_panel.auto_place, Qt.MouseButton.LeftButton)
    assert geometry(view) == fresh_geometry(qtbot, topo, window.session.volume_name)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_S)  # a named site appears before the "(no site)" region
    assert geometry(view) == fresh_geometry(qtbot, topo, window.session.volume_name)
    no_overlap(view)
    frame = view.board.sites[""].rect
    for name in ("node1", "node2", "node3", "node4"):
        assert frame.contains(view.board.nodes[name].sceneBoundingRect())
    assert frame.contains(view.board.clients["client1"].sceneBoundingRect())
    view.fit()  # Fit to view shows every card, not a shrunken frame
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    for item in view.board.nodes.values():
        assert visible.contains(item.sceneBoundingRect())


def test_removing_the_last_client_without_a_site_drops_the_empty_region_without_an_error(qtbot, window):
    topo = window.session.topo
    window.session.push(edits.MoveNode("node1", "") if False else edits.AddSite(Site("rack1")))
    for name in ("node1", "node2", "node3"):
        window.session.push(edits.MoveNode(name, "rack1"))
    window.session.push(edits.RemoveClient("client1"))
    assert "" not in window.canvas.board.sites
    assert geometry(window.canvas) == fresh_geometry(qtbot, topo, "")


EDITS = st.sampled_from(["node", "node-in-site", "site", "client", "mount", "move", "delete-node", "delete-client",
                         "brick", "undo"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(EDITS, min_size=1, max_size=12))
def test_any_sequence_of_edits_lays_out_as_a_fresh_open(qtbot, steps):
    view = CanvasView(lab_topology())
    qtbot.addWidget(view)
    session, topo = view.session, view.session.topo
    topo_volume = edits.AddVolume(__import__("brickyard.core.topology", fromlist=["Volume"]).Volume("gv0"))
    session.push(topo_volume)
    for i, step in enumerate(steps):
        if step == "node":
            session.push(edits.AddNode(Node(f"n{i}")))
        elif step == "node-in-site" and topo.sites:
            session.push(edits.AddNode(Node(f"n{i}", site=topo.sites[-1].name)))
        elif step == "site":
            session.push(edits.AddSite(Site(f"s{i}")))
        elif step == "client":
            session.push(edits.AddClient(Client(f"c{i}", site=topo.sites[0].name if topo.sites and i % 2 else "")))
        elif step == "mount" and topo.clients:
            session.push(edits.AddMount("gv0", Mount(topo.clients[-1].name, f"/mnt/m{i}")))
        elif step == "move" and topo.nodes:
            session.push(edits.MoveNode(topo.nodes[0].name, topo.sites[-1].name if topo.sites and i % 2 else ""))
        elif step == "delete-node" and len(topo.nodes) > 1:
            session.push(edits.RemoveNode(topo.nodes[-1].name))
        elif step == "delete-client" and topo.clients:
            session.push(edits.RemoveClient(topo.clients[0].name))
        elif step == "brick" and topo.nodes:
            session.push(edits.AddBrick(topo.nodes[0].name, Brick(f"/b{i}", 10**9), volume="gv0"))
        elif step == "undo":
            session.stack.undo()
        assert geometry(view) == fresh_geometry(qtbot, topo, "gv0"), steps[:i + 1]
    no_overlap(view)
