"""Moving runs between workstations: a JSON export (whole runs, importable without
duplicates: runs are keyed by their ``run_id``) and a CSV export (one row per metric of each
step, for spreadsheets).

An import is read like a topology file (``core.strictjson`` and ``codec``): a regular file of
bounded size, strict JSON, every run checked field by field, every problem reported with its
path; only then is anything written, and all runs go in as one transaction. An export
writes only runs an import would take back: a stored run whose rows hold what an import now
refuses (an old database) is left out and named, and everything else is still exported.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Sequence

from brickyard.core import strictjson
from brickyard.core.atomicfile import write_atomic
from brickyard.core.compare import describe_layout
from brickyard.core.results import RunResult, RunStatus
from brickyard.core.spreadsheet import csv_text
from brickyard.core.strictjson import JsonFileError, Problem, Reader
from brickyard.core.units import format_utc

from . import codec

if TYPE_CHECKING:
    from .history import HistoryStore

FORMAT = "brickyard-history"
FORMAT_VERSION = 1
MAX_IMPORT_BYTES = 512 * 2**20   # millions of samples; export fewer runs at a time beyond that
CSV_COLUMNS = ("run_id", "workload", "status", "started_at_utc", "volume", "layout", "target",
               "gluster_versions", "step", "repeat", "direction", "block_size", "concurrency", "params",
               "valid", "flags", "metric", "value", "unit")


class ExchangeError(JsonFileError):
    """An export file that cannot be imported; ``problems`` names every place."""

    def __init__(self, source: str, problems: list[Problem] | str):
        super().__init__(source, [Problem("", problems)] if isinstance(problems, str) else problems)


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)   # already in the history


@dataclass
class ExportReport:
    """How many runs were written, and the stored runs left out because their rows hold
    values an import would refuse (run id, reasons), so the file stays importable."""

    written: int = 0
    left_out: list[tuple[str, list[str]]] = field(default_factory=list)

    def __int__(self) -> int:
        return self.written


def sound_runs(runs: Sequence[RunResult], report: ExportReport) -> list[RunResult]:
    """The runs an import would take back; the others go to ``report.left_out``."""
    out = []
    for run in runs:
        problems = codec.run_problems(run)
        if problems:
            report.left_out.append((run.run_id, [str(p) for p in problems]))
        else:
            out.append(run)
    return out


def export_document(runs: Sequence[RunResult]) -> dict[str, Any]:
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "exported_at": time.time(),
            "runs": [codec.run_to_dict(r) for r in runs]}


def export_json(store: HistoryStore, run_ids: Sequence[str], out: str | Path | IO[str]) -> ExportReport:
    """Write the runs (all of them when ``run_ids`` is empty) that an import would take back."""
    ids = list(run_ids) or [s.run_id for s in reversed(store.list_runs())]
    report = ExportReport()
    runs = sound_runs(store.load_runs(ids), report)
    text = json.dumps(export_document(runs), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    _write(out, text)
    report.written = len(runs)
    return report


def csv_rows(runs: Sequence[RunResult]) -> list[list[Any]]:
    rows = []
    for run in runs:
        p = run.provenance
        glusters = ", ".join(sorted({h.get("gluster", "") for h in p.hosts.values()} - {""}))
        head = [run.run_id, run.workload, run.status.value,
                format_utc(run.started_at, "%Y-%m-%dT%H:%M:%SZ"), p.volume_name,
                describe_layout(p.layout), p.target, glusters]
        for step in run.steps:
            prm = step.params
            for m in step.metrics:
                rows.append(head + [step.index, step.repeat, prm.get("direction", ""), prm.get("block_size", ""),
                                    prm.get("concurrency", ""), json.dumps(prm, sort_keys=True),
                                    "yes" if step.valid else "no", " ".join(step.flags), m.name, repr(m.value),
                                    m.unit])
    return rows


def export_csv(store: HistoryStore, run_ids: Sequence[str], out: str | Path | IO[str]) -> ExportReport:
    """One row per metric of each step (of the runs an import would take back)."""
    ids = list(run_ids) or [s.run_id for s in reversed(store.list_runs())]
    report = ExportReport()
    runs = sound_runs(store.load_runs(ids), report)
    _write(out, csv_text([CSV_COLUMNS, *csv_rows(runs)]))
    report.written = len(runs)
    return report


def read_export(source: str | Path | IO[str]) -> list[RunResult]:
    """Every run of an export file, or ExchangeError naming every problem in it."""
    name = str(source) if isinstance(source, (str, Path)) else getattr(source, "name", "<input>")
    if isinstance(source, (str, Path)):
        try:
            text = strictjson.read_text(source, limit=MAX_IMPORT_BYTES, what="history export")
        except JsonFileError as exc:
            raise ExchangeError(name, exc.problems) from None
    else:
        text = source.read()
    doc, problems = strictjson.parse(text)
    if doc is None:
        raise ExchangeError(name, problems)
    r = Reader(problems)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        r.problem("format", f'not a Brickyard history export (expected "format": "{FORMAT}")')
        raise ExchangeError(name, r.problems)
    if r.integer_version(doc, "format_version", [FORMAT_VERSION]) is None:
        raise ExchangeError(name, r.problems)
    runs, problems = codec.read_runs(doc.get("runs"), "runs", r.problems)
    for i, run in enumerate(runs):
        if run.status is RunStatus.RUNNING:
            problems.append(Problem(f"runs[{i}].status", f"run {run.run_id} was exported while still running; "
                                                         "export it again when it ends"))
    if problems:
        raise ExchangeError(name, problems)
    return runs


def import_json(store: HistoryStore, source: str | Path | IO[str]) -> ImportReport:
    """Add every run of the export that the history does not have yet (by ``run_id``).
    The whole file is checked before anything is written, and the runs go in as one
    transaction: a file is imported whole or not at all."""
    runs = read_export(source)
    added, skipped = store.add_runs(runs)
    return ImportReport(added=added, skipped=skipped)


def _write(out: str | Path | IO[str], text: str) -> None:
    """A file is replaced whole or not at all (``core.atomicfile``); a stream gets the text."""
    if isinstance(out, (str, Path)):
        write_atomic(out, text)
    else:
        out.write(text)
