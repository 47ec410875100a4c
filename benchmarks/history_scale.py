"""History at scale: 10,000 runs and 1,000,000 samples in a SQLite file.

Prints: the time to fill the database, to open the History window (HistoryWindow over all
runs: the list's query and model and the first paint; target < 250 ms, the first open in the
process and min / median / max of the next ones; then, separately, the filter choices and
chart pickers the view fills once the list is painted, and the frame showing them), to
load the trend of one metric over all runs, and the chart frame time while panning (target
< 16 ms) for the trend chart (10,000 points) and a 20-run throughput-vs-block-size overlay.

    .venv/bin/python benchmarks/history_scale.py [--runs 10000] [--opens 5] [--db sqlite:////tmp/h.sqlite3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from figures import line, load_line

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from sqlalchemy import insert  # noqa: E402

from brickyard.store import HistoryStore  # noqa: E402
from brickyard.store.synthetic import synthetic_run  # noqa: E402

OPEN_TARGET = 0.250
METRICS = ("throughput", "stonewall_throughput", "sum_of_rates", "tail", "elapsed")
BLOCKS = (4096, 65536, 1 << 20, 4 << 20, 16 << 20)     # 5 × 2 concurrencies × 2 repeats × 5 metrics = 100


def fill(store: HistoryStore, n_runs: int, rng: random.Random) -> int:
    """Insert n_runs realistic runs (100 samples each) in batches of 200 runs per transaction."""
    versions = ("3.12.15", "6.0", "7.9", "9.6", "10.3", "11.1")
    layouts = ("replica", "arbiter", "disperse", "distribute")
    t0 = 1.70e9
    samples = 0
    batch = 200
    for start in range(0, n_runs, batch):
        with store._write() as conn:
            for i in range(start, min(n_runs, start + batch)):
                run = synthetic_run(rng, gluster=versions[i % len(versions)], layout=layouts[i % len(layouts)],
                                    started_at=t0 + i * 3600.0, block_sizes=BLOCKS, concurrencies=(1, 4),
                                    repeats=2, metrics=METRICS, speedup=rng.uniform(0.8, 1.3))
                store._insert_run(conn, run, None, owned=False)
                samples += sum(len(s.metrics) for s in run.steps)
    return samples


def frame_times(app, chart, steps: int = 60) -> list[float]:
    """Pan the view by small steps as a mouse drag does (setXRange), timing each frame: the
    range change, its event processing and the one repaint it causes."""
    vb = chart.plot_item.vb
    (x0, x1), _ = vb.viewRange()
    width = (x1 - x0) / 2
    vb.setXRange(x0, x0 + width, padding=0)
    app.processEvents()
    times, cpu = [], []
    for k in range(steps):
        shift = width * 0.01 * (k + 1)
        t, c = time.perf_counter(), time.process_time()
        vb.setXRange(x0 + shift, x0 + shift + width, padding=0)
        app.processEvents()
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return times, cpu


def describe(measured: tuple[list[float], list[float]]) -> str:
    """Wall-clock frame times, and this process's CPU time per frame (what the frame costs
    when the machine is not shared with other jobs)."""
    times, cpu = measured
    ordered = sorted(times)
    return (f"median {statistics.median(times):.1f} ms, p95 {ordered[int(len(ordered) * 0.95)]:.1f} ms, "
            f"max {ordered[-1]:.1f} ms; CPU per frame median {statistics.median(cpu):.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--opens", type=int, default=5, help="opens of the History window after the first")
    ap.add_argument("--db", help="database URL (default: a fresh SQLite file in a temp dir)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brickyard-hist-bench-")
    url = args.db or f"sqlite:///{Path(tmp) / 'history.sqlite3'}"
    store = HistoryStore(url)
    rng = random.Random(1)
    if store.run_count() < args.runs:
        t = time.perf_counter()
        n = fill(store, args.runs - store.run_count(), rng)
        print(f"fill: {args.runs} runs, {n:,} samples in {time.perf_counter() - t:.1f} s")
    with store.engine.connect() as conn:
        n_samples = conn.exec_driver_sql("SELECT count(*) FROM samples").scalar()
    print(f"database: {store.run_count():,} runs, {n_samples:,} samples ({url})")

    t = time.perf_counter()
    rows = store.list_runs()
    print(f"list_runs (all): {(time.perf_counter() - t) * 1000:.0f} ms for {len(rows):,} rows")

    from PySide6.QtWidgets import QApplication, QLabel

    from brickyard.ui.history import HistoryWindow
    from brickyard.ui.history.charts import ThroughputChart, TrendChart

    app = QApplication.instance() or QApplication(sys.argv[:1])
    print(f"{load_line()} (other jobs inflate wall-clock and frame times)")
    warm = QLabel("warm-up")           # Qt's one-off start-up (fonts, platform) is not the list's cost
    warm.show()
    app.processEvents()
    warm.grab()
    warm.close()
    opens, builds, choices = [], [], []
    for attempt in range(1 + args.opens):
        if attempt:
            window.close()
        t, c = time.perf_counter(), time.process_time()
        window = HistoryWindow(store)
        built = time.perf_counter() - t
        window.resize(1500, 900)
        window.show()
        window.grab()                  # the first frame, really painted: the list
        opens.append((time.perf_counter() - t, time.process_time() - c))
        builds.append(built)
        t, c = time.perf_counter(), time.process_time()
        while window.view._choices_due:    # the filter choices and pickers follow the first paint
            app.processEvents()
        app.processEvents()
        window.grab()                  # and the frame that shows them
        choices.append((time.perf_counter() - t, time.process_time() - c))
    what = f"{window.view.model.rowCount():,} rows shown of {store.run_count():,}, first paint"
    print(f"open the History window ({what}):")
    print("  " + line("first open in this process", [opens[0][0]], OPEN_TARGET, cpu=[opens[0][1]]))
    if args.opens:
        print("  " + line(f"the next {args.opens} opens", [o[0] for o in opens[1:]], OPEN_TARGET,
                          cpu=[o[1] for o in opens[1:]]))
        print("  " + line("  of which building the window", builds[1:]))
    print("  " + line("then the filter choices and pickers (first open)", [choices[0][0]], cpu=[choices[0][1]]))
    if args.opens:
        print("  " + line("  (the next opens)", [o[0] for o in choices[1:]], cpu=[o[1] for o in choices[1:]]))

    t = time.perf_counter()
    trend = store.metric_trend("throughput", block_size=1 << 20, concurrency=1)
    print(f"metric_trend over all runs: {(time.perf_counter() - t) * 1000:.0f} ms for {len(trend):,} points")

    window.view.right.setCurrentWidget(window.view.trend_chart)
    window.view.trend_chart.set_points(trend, "B/s", "throughput at 1 MiB, single")
    app.processEvents()
    print(f"pan trend chart ({len(trend):,} points, in the 1500x900 window): "
          f"{describe(frame_times(app, window.view.trend_chart))}  (target < 16 ms)")
    window.close()
    alone = TrendChart()
    alone.resize(1000, 600)
    alone.show()
    alone.set_points(trend, "B/s", "throughput at 1 MiB, single")
    app.processEvents()
    print(f"pan trend chart ({len(trend):,} points, 1000x600 on its own): "
          f"{describe(frame_times(app, alone))}  (target < 16 ms)")
    alone.close()

    t = time.perf_counter()
    runs = store.load_runs([r.run_id for r in rows[:20]])
    print(f"load 20 whole runs: {(time.perf_counter() - t) * 1000:.0f} ms")
    for n in (5, 20):
        chart = ThroughputChart()
        chart.resize(1000, 600)
        chart.show()
        chart.set_runs(runs[:n], [r.run_id[:8] for r in runs[:n]])
        app.processEvents()
        print(f"pan throughput vs block size ({n} runs, {len(chart.curves)} curves, error bars): "
              f"{describe(frame_times(app, chart))}  (target < 16 ms)")
        chart.close()
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
