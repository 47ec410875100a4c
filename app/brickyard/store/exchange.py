"""Moving runs between workstations: a JSON export (whole runs, importable without
duplicates: runs are keyed by their ``run_id``) and a CSV export (one row per metric of each
step, for spreadsheets)."""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Sequence

from brickyard.core.compare import describe_layout
from brickyard.core.results import RunResult, RunStatus

from . import codec
from .history import HistoryStore, StoreError

FORMAT = "brickyard-history"
FORMAT_VERSION = 1
CSV_COLUMNS = ("run_id", "workload", "status", "started_at_utc", "volume", "layout", "target",
               "gluster_versions", "step", "repeat", "direction", "block_size", "concurrency", "params",
               "valid", "flags", "metric", "value", "unit")


class ExchangeError(ValueError):
    """An export file that cannot be imported; the message names the place."""


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)   # already in the history


def export_document(runs: Sequence[RunResult]) -> dict[str, Any]:
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "exported_at": time.time(),
            "runs": [codec.run_to_dict(r) for r in runs]}


def export_json(store: HistoryStore, run_ids: Sequence[str], out: str | Path | IO[str]) -> int:
    """Write the runs (all of them when ``run_ids`` is empty); returns how many."""
    ids = list(run_ids) or [s.run_id for s in reversed(store.list_runs())]
    runs = store.load_runs(ids)
    text = json.dumps(export_document(runs), indent=1, ensure_ascii=False) + "\n"
    _write(out, text)
    return len(runs)


def csv_rows(runs: Sequence[RunResult]) -> list[list[Any]]:
    rows = []
    for run in runs:
        p = run.provenance
        glusters = ", ".join(sorted({h.get("gluster", "") for h in p.hosts.values()} - {""}))
        head = [run.run_id, run.workload, run.status.value,
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(run.started_at)), p.volume_name,
                describe_layout(p.layout), p.target, glusters]
        for step in run.steps:
            prm = step.params
            for m in step.metrics:
                rows.append(head + [step.index, step.repeat, prm.get("direction", ""), prm.get("block_size", ""),
                                    prm.get("concurrency", ""), json.dumps(prm, sort_keys=True),
                                    "yes" if step.valid else "no", " ".join(step.flags), m.name, repr(m.value),
                                    m.unit])
    return rows


def export_csv(store: HistoryStore, run_ids: Sequence[str], out: str | Path | IO[str]) -> int:
    """One row per metric of each step; returns the number of runs written."""
    ids = list(run_ids) or [s.run_id for s in reversed(store.list_runs())]
    runs = store.load_runs(ids)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(csv_rows(runs))
    _write(out, buf.getvalue())
    return len(runs)


def read_export(source: str | Path | IO[str]) -> list[RunResult]:
    name = str(source) if isinstance(source, (str, Path)) else getattr(source, "name", "<input>")
    try:
        text = Path(source).read_text(encoding="utf-8") if isinstance(source, (str, Path)) else source.read()
    except OSError as exc:
        raise ExchangeError(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExchangeError(f"{name}: not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ExchangeError(f"{name}: not a Brickyard history export (expected \"format\": \"{FORMAT}\")")
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        raise ExchangeError(f"{name}: export format_version {version!r}; this Brickyard reads {FORMAT_VERSION}")
    if not isinstance(doc.get("runs"), list):
        raise ExchangeError(f"{name}: \"runs\" must be a list")
    try:
        return [codec.run_from_dict(r, f"runs[{i}]") for i, r in enumerate(doc["runs"])]
    except codec.RecordError as exc:
        raise ExchangeError(f"{name}: {exc}") from None


def import_json(store: HistoryStore, source: str | Path | IO[str]) -> ImportReport:
    """Add every run of the export that the history does not have yet (by ``run_id``).
    The whole file is checked before anything is written; each run is its own transaction."""
    runs = read_export(source)
    for run in runs:
        if run.status is RunStatus.RUNNING:
            raise ExchangeError(f"run {run.run_id} was exported while still running; export it again when it ends")
    seen: set[str] = set()
    report = ImportReport()
    present = store.has_runs([r.run_id for r in runs]) if runs else set()
    for run in runs:
        if run.run_id in present or run.run_id in seen:
            report.skipped.append(run.run_id)
            continue
        seen.add(run.run_id)
        try:
            store.add_run(run)
        except StoreError:   # another instance imported it a moment ago
            report.skipped.append(run.run_id)
            continue
        report.added.append(run.run_id)
    return report


def _write(out: str | Path | IO[str], text: str) -> None:
    if isinstance(out, (str, Path)):
        Path(out).write_text(text, encoding="utf-8")
    else:
        out.write(text)
