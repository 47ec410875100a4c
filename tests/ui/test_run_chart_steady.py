"""A streaming run's chart keeps its plot area while curves appear: the legend grew a row under
the plot with each new curve, shrinking the plot, and every axis, grid line and curve was drawn
again — the Run view's longest events (16–21 ms on the GUI thread)."""

from brickyard.core.results import StepResult, WorkerTiming
from brickyard.core.stats import throughput_metrics
from brickyard.ui.run.charts import RunChart


def sweep_step(i: int) -> StepResult:
    """5 block sizes per curve; a new curve (direction × concurrency) every 5 steps."""
    conc = (1, 2, 4, 8)[(i // 5) % 4]
    direction = ("write", "read")[i // 20]
    workers = tuple(WorkerTiming(w, "client1", 0.0, 1.0, bytes=(40 + i) << 20) for w in range(conc))
    return StepResult(i, {"block_size": 4096 << (i % 5), "concurrency": conc, "direction": direction}, 0, workers,
                      throughput_metrics(list(workers)))


def test_new_curves_do_not_resize_the_plot(qtbot):
    chart = RunChart()
    qtbot.addWidget(chart)
    chart.resize(1000, 500)
    chart.show()
    chart.begin("run")
    vb = chart.sweep_chart.plot_item.vb
    shapes = []
    for i in range(8 * 5):                 # 8 curves (2 directions × 4 concurrencies), 5 sizes each
        chart.add_step(sweep_step(i))
        qtbot.wait(1)
        shapes.append(vb.geometry().height())
    assert len(chart.sweep_chart.legend.items) == 8
    assert len(set(shapes[1:])) == 1, shapes          # set by the first curve, never changed after
