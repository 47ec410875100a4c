"""At 1280×720 nothing on the planner or the campaign tab is cut or scrolls sideways where it
need not (issue 21, "Done when": the walk at 1280×720)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from .helpers import eight_node_window


@pytest.fixture
def window_1280(qtbot, tmp_path, monkeypatch):
    return eight_node_window(qtbot, tmp_path, monkeypatch, (1280, 720))


def test_the_layout_and_verdict_dock_does_not_scroll_sideways_at_1280(qtbot, window_1280):
    win = window_1280
    scroll = win.docks["layout"].widget()
    for width in (win.docks["layout"].width(), 384):          # as it opens, and as fit_docks may narrow it
        win.resizeDocks([win.docks["layout"]], [width], Qt.Orientation.Horizontal)
        qtbot.wait(50)
        assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width(), (
            width, scroll.widget().minimumSizeHint(), scroll.viewport().size())
        assert scroll.horizontalScrollBar().maximum() == 0


def test_the_decision_charts_legend_is_laid_out_when_drawn_and_fits_the_chart(qtbot):
    """A table set while the view stands still (the campaign ends with the tab in front) drew
    the legend one entry a row, its columns fitted only at the next resize: at 1280×720 the
    rows ran off the chart's bottom. The chart also keeps the height its title, axis and
    legend need, with room for the bars."""
    from brickyard.ui.campaign import DecisionView

    from .test_decision_view import table

    view = DecisionView(None)
    qtbot.addWidget(view)
    view.resize(700, 400)                 # the decision tab at 1280×720
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(50)
    view.set_table(table())
    qtbot.wait(50)
    chart, legend = view.chart, view.chart.legend
    assert len(legend.items) == 2 and legend.columnCount == 2, legend.columnCount       # one row, side by side
    assert legend.sceneBoundingRect().bottom() <= chart.viewport().height() + 0.5
    for box in (view.direction_box, view.block_box):    # shown empty, then filled: its text whole
        text = box.fontMetrics().horizontalAdvance(box.currentText())
        assert box.width() >= text + 20, (box.currentText(), box.width(), text)    # + the arrow
    plot = chart.plot_item.vb.sceneBoundingRect()
    assert plot.height() >= 45, plot                                                      # room for the bars
