"""Calibration sources by what the user names: a calibration file (a path), or stored runs (a
run id or a unique prefix: a probe run, a dd/fio run on a layout — the throughput model — or a
smallfile/metadata run — the small-file latency model). The CLI's
``--calibrate`` and the app's "Calibrate model…" both read them here, so they agree."""

from __future__ import annotations

import os
from typing import Callable, Sequence

from ..core import calibration as cal, calibration_file, latency_inputs, modelinputs, topofile
from ..core.topology import BrickRef, Topology
from .history import HistoryStore


class CalibrationSourceError(ValueError):
    """A source that cannot calibrate (says which and why); ``problems``: a file's problems."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems = list(problems or [])


def looks_like_file(spec: str) -> bool:
    return spec.endswith(".json") or os.sep in spec or os.path.exists(spec)


def run_topology(store: HistoryStore, fallback: Topology | None) -> Callable:
    """The topology a run was planned on (its stored snapshot) when that holds its bricks,
    else ``fallback``."""
    def pick(run) -> Topology | None:
        text = store.topology_snapshot(run.run_id)
        if text:
            try:
                return topofile.loads(text)
            except topofile.TopologyFileError:
                pass
        return fallback
    return pick


def resolve_run(store: HistoryStore, prefix: str) -> str:
    matches = [s.run_id for s in store.list_runs() if s.run_id.startswith(prefix)]
    if not matches:
        raise CalibrationSourceError(f"--calibrate {prefix}: no such file, and no stored run id starts with it")
    if len(matches) > 1:
        raise CalibrationSourceError(f"--calibrate {prefix}: matches {len(matches)} runs "
                                     f"({', '.join(m[:12] for m in matches[:5])}…); give more of the id")
    return matches[0]


def load_inputs(specs: Sequence[str], topo: Topology | None, bricks: Sequence[BrickRef],
                open_store: Callable[[], HistoryStore] | None = None, *,
                store: HistoryStore | None = None) -> cal.Inputs:
    """Every source in ``specs`` as one ``Inputs``: files are realised on ``bricks`` of
    ``topo``; runs are read with the topology stored beside them (or ``topo``). ``store``:
    an open history to read runs from (kept open), else ``open_store`` opens one (closed)."""
    out = cal.Inputs()
    own = store is None
    try:
        for spec in specs:
            if looks_like_file(spec):
                if topo is None:
                    raise CalibrationSourceError(f"--calibrate {spec}: no topology to put the file's layout on")
                try:
                    cf = calibration_file.load_file(spec)
                except calibration_file.CalibrationFileError as exc:
                    raise CalibrationSourceError(str(exc), exc.problems) from None
                try:
                    out = out + modelinputs.inputs_from_file(cf, topo, bricks)
                except modelinputs.ModelInputError as exc:
                    raise CalibrationSourceError(str(exc)) from None
                continue
            if store is None and open_store is None:
                raise CalibrationSourceError(f"--calibrate {spec}: no such file (and no history to find a run in)")
            if store is None:
                store = open_store()
            run = store.load_run(resolve_run(store, spec))
            try:
                if latency_inputs.is_latency_run(run):
                    # a small-file run calibrates the small-file latency model, not throughput
                    points, notes = latency_inputs.points_from_run(run, run_topology(store, topo)(run))
                    out = out + cal.Inputs(notes=tuple(notes), latency=tuple(points),
                                           latency_sources=(f"{run.workload} run {run.run_id[:12]}",))
                else:
                    out = out + modelinputs.inputs_from_run(run, run_topology(store, topo)(run))
            except (modelinputs.ModelInputError, latency_inputs.LatencyInputError) as exc:
                raise CalibrationSourceError(str(exc)) from None
    finally:
        if own and store is not None:
            store.close()
    return out
