"""Fitting what a client without io-threads moves (``throughput.NO_IO_THREADS``), from the
calibration's layouts that ran without them beside ones that ran with them.

glusterd turns ``performance.client-io-threads`` off on every replicated volume it creates
(``client_options``), so a calibration on distribute measures a client with io-threads and a
replicated layout's client runs without: its aggregate over many files is the ratio R of the
one calibrated. Where a calibration holds both kinds of layout, R is what makes the model meet
the io-thread-less figures: each many-file figure ÷ the client's aggregate bound at R = 1,
where that bound is the one holding the figure down (no other bound within 10 % of it). A
calibration of only one kind leaves R assumed (the sandbox's measurement, with its range).
"""

from __future__ import annotations

from typing import Sequence

from . import lazystats as statistics, throughput as tm
from .throughput import FITTED, MEASURED, NO_IO_THREADS, Value

#: a bound within this of a figure may be what holds it (then R is not what the figure shows)
NEAR = 1.10
LOW, HIGH = 0.05, 1.0   # no io-threads never adds parallelism: more than 1 is the machine's scatter


def fit_no_io_threads(params: tm.Params, many: Sequence, d: str, notes: list[str]) -> tm.Params:
    """R for direction ``d`` from many-file, large-block observations (``calibration.Observation``)."""
    key = f"{NO_IO_THREADS}.{d}"
    old = params.values.get(key)
    if old is not None and old.source == MEASURED:
        return params
    off = [o for o in many if not o.shape.io_threads]
    if not off or not any(o.shape.io_threads for o in many):
        return params
    unit = params.with_values({key: Value(1.0, FITTED)})
    implied, held = [], []
    for o in off:
        bounds = tm.bounds_of(o.shape, unit, d, o.concurrency, o.block_size)
        client = bounds.get(tm.B_CLIENT) or bounds.get(tm.B_EC)
        others = [v for k, v in bounds.items() if k not in (tm.B_CLIENT, tm.B_EC)]
        if not client:
            continue
        if others and min(others) < o.bps * NEAR:
            held.append(o)
            continue
        implied.append(o.bps / client)
    layouts = ", ".join(sorted({o.layout or o.shape.description for o in off}))
    if not implied:
        notes.append(f"what a client without io-threads moves ({d}) stays assumed: {layouts} ran without them, but "
                     "another bound holds its figures")
        return params
    value = min(HIGH, max(LOW, statistics.median(implied)))
    files = "/".join(sorted({str(o.concurrency) for o in off}))
    note = (f"{value:.2f} ×: {layouts} ({files} files at once, {d}) ran without client io-threads, against the "
            f"client's aggregate fitted with them (median of {len(implied)} figure(s))")
    return params.with_values({key: Value(value, FITTED, note, value * 0.85, value * 1.15)})
