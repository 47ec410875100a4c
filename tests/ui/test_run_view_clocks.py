"""The Run view's start-skew cell gives each multi-host step's clock uncertainty beside the
skew, and each host's start, uncertainty and late release in its tooltip."""

from brickyard.ui.run.live import LivePanel

from ..bench.test_clocks import bench_two, two_hosts


def test_the_run_views_skew_cell_gives_the_clock_uncertainty_and_each_host(qtbot):
    c1, c2 = two_hosts(release_late=0.008)
    (step,) = bench_two(c1, c2).steps
    panel = LivePanel()
    qtbot.addWidget(panel)
    panel.add_step("run 1", step)
    panel.flush()
    cell = panel.table.item(0, 5)
    assert "±" in cell.text()
    assert "client2 +8.0" in cell.toolTip() and "released 8.0 ms late" in cell.toolTip()
