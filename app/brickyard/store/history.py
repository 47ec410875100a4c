"""``HistoryStore``: the run engine's sink and the history browser's source.

Nothing measured is lost: ``begin_run`` commits the run before the first step, each
``add_step``/``add_steps`` call is its own transaction (committed before it returns), and
``finish_run`` only changes the status. A process killed mid-run leaves every committed
step readable; the next start-up's ``mark_interrupted_runs`` marks the run interrupted —
but only when its owner (host, pid and that pid's start time) is gone, or, for another
host, when its heartbeat is stale, so a second instance never steals a live run.

Everything read out is a ``brickyard.core.results`` object (or a ``RunSummary`` for the
list); ORM rows never leave this module.

One bad row never breaks a reader: a step whose stored JSON cannot be read, whose text is not
valid UTF-8 or whose sweep point an import would refuse is left out of its run, and a run
whose fields hold such text keeps them with U+FFFD; each is named in the run's error and in
``HistoryStore.unreadable`` (which the commands print), and everything else is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from sqlalchemy import Connection, and_, delete, func, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from brickyard.core.runlabels import (
    describe_layout,
    gluster_version,
    gluster_versions,
    layout_matches,
    series_of,
    version_matches,
)
from brickyard.core.results import (Metric, Provenance, RunResult, RunStatus, StepResult, WorkerTiming,
                                    is_gluster_target)
from brickyard.core.topology import Topology

from . import codec
from .legacy import stored_name, stored_status
from .engine import (IMMEDIATE, BadText, DatabaseError, at_newest_schema, create_history_engine, current_revision,
                     head_revision, migrate, read_only_reason)
from .errors import StoreError
from .models import Run, RunHost, RunOption, Sample, Step, TopologySnapshot, VolumeLayout, WorkerTimingRow
from .owner import pid_alive, process_start
from .settings import resolve_db_url
from .watch import NOTIFY_CHANNEL, HistoryWatcher

STALE_AFTER_S = 15 * 60   # another host's running run with no heartbeat for this long is dead


@dataclass(frozen=True)
class RunFilter:
    """What the history list shows; empty fields do not filter."""

    volume: str = ""
    layout: str = ""             # a layout label ("replica 3 × 2 (6 bricks)") or type ("disperse")
    workload: str = ""
    host: str = ""
    gluster_version: str = ""
    option: str = ""             # "performance.write-behind" or "performance.write-behind=off"
    status: str = ""
    since: float | None = None   # time.time() bounds on the start
    until: float | None = None
    run_ids: tuple[str, ...] = ()
    limit: int | None = None
    offset: int = 0              # with limit: one page of the list (newest first)


@dataclass(frozen=True)
class RunSummary:
    """One line of the history list."""

    run_id: str
    workload: str
    status: RunStatus
    started_at: float
    ended_at: float | None
    volume: str
    layout: str
    target: str
    hosts: str
    gluster_versions: str
    step_count: int
    sample_count: int
    error: str
    target_kind: str = ""


@dataclass(frozen=True)
class UnreadableRow:
    """A stored row a reader had to leave out (or read with U+FFFD), and why."""

    run_id: str
    what: str       # 'step 3 repeat 1' (left out), 'step 3 repeat 1 text', 'text' (read with U+FFFD), 'provenance'
    why: str

    def __str__(self) -> str:
        return f"run {self.run_id[:12]}: {self.short()}"

    def short(self) -> str:
        if self.what == "provenance":
            return self.why
        if self.what.endswith("text"):      # 'text' (the run's), 'step 3 repeat 1 text'
            where = self.what.removesuffix("text").strip()
            return f"{where + ': ' if where else ''}{self.why} (read with U+FFFD in place of the bad bytes)"
        return f"{self.what} left out: {self.why}"


class TrendPoint(NamedTuple):
    """One run on a trend chart."""

    started_at: float
    run_id: str
    value: float          # median over the run's valid repeats at the point
    series: str           # what it measured: 'gluster gv0', 'local /var/tmp/base'


@dataclass(frozen=True)
class FilterChoices:
    volumes: list[str]
    layouts: list[str]
    workloads: list[str]
    hosts: list[str]
    gluster_versions: list[str]
    options: list[str]           # "name=value" as set in at least one run


def _distinct_values(conn: Connection, column: Any) -> list:
    """The distinct non-null values of an indexed column, in order: one index probe per value
    (a loose index scan), where ``SELECT DISTINCT`` reads every row (200,000 steps for a
    handful of block sizes). Works on SQLite and PostgreSQL alike."""
    table, name = column.table.name, column.name      # the model's own names, never user input
    rows = conn.execute(text(
        f"WITH RECURSIVE v(x) AS (SELECT MIN({name}) FROM {table} WHERE {name} IS NOT NULL "
        f"UNION ALL SELECT (SELECT MIN({name}) FROM {table} WHERE {name} > v.x) FROM v WHERE v.x IS NOT NULL) "
        "SELECT x FROM v WHERE x IS NOT NULL"))
    return list(rows.scalars())


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class HistoryStore:
    """The benchmark history in one database (any SQLAlchemy URL)."""

    def __init__(self, url: str, *, migrate_schema: bool = True, clock: Callable[[], float] = time.time,
                 create_folder: bool = False, read_only: str = ""):
        """``read_only``: why the database cannot be written (``engine.read_only_reason``); it
        is then opened for reading only, and must already hold this Brickyard's schema."""
        self.url = url
        self.read_only = read_only
        self.unreadable: list[UnreadableRow] = []   # what readers left out so far (see UnreadableRow)
        self.on_unreadable: Callable[[UnreadableRow], None] | None = None   # told of each, once
        self.engine = create_history_engine(url, create_folder=create_folder, read_only=bool(read_only))
        self._writer = self.engine.execution_options(**{IMMEDIATE: True})
        self._clock = clock
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self._start = process_start(self.pid)
        self._is_postgres = self.engine.url.get_backend_name() == "postgresql"
        if read_only:
            if not at_newest_schema(self.engine):
                current = current_revision(self.engine)
                self.engine.dispose()
                raise DatabaseError(f"{self.describe()} is read-only ({read_only}) and its history schema "
                                    f"({current or 'none'}) is not this Brickyard's ({head_revision()}); open it "
                                    "once where it can be written, so it is brought up to date")
        elif migrate_schema:
            migrate(self.engine)

    @classmethod
    def open(cls, cli_url: str | None = None, mark_interrupted: bool = True, reading: bool = False) -> "HistoryStore":
        """The store the user chose (``--db``, ``BRICKYARD_DB``, settings, default), migrated,
        with runs whose writer died since the last start marked interrupted. A database this
        process cannot write is opened read-only when the caller only reads (``reading``);
        for a writer it is a ``DatabaseError`` saying it is read-only and why."""
        url, source = resolve_db_url(cli_url)
        why = read_only_reason(url)
        if why:
            if not reading:
                raise DatabaseError(f"the history database is read-only: {why}; nothing can be stored in it "
                                    "(choose another with --db or BRICKYARD_DB)")
            return cls(url, read_only=why)
        store = cls(url, create_folder=source == "default")   # only the default's folder is ours to make
        if mark_interrupted:
            store.mark_interrupted_runs()
        return store

    def close(self) -> None:
        self.engine.dispose()

    @property
    def campaigns(self) -> "Any":
        """The campaigns kept in this database (``store.campaigns.CampaignStore``)."""
        from .campaigns import CampaignStore

        return CampaignStore(self)

    @property
    def changes(self) -> "Any":
        """The changes to live volumes kept in this database (``store.changes.ChangeStore``)."""
        from .changes import ChangeStore

        return ChangeStore(self)

    def __enter__(self) -> "HistoryStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @contextmanager
    def _write(self, notify: bool = True) -> Iterator[Connection]:
        """One write transaction. On PostgreSQL it also tells watching viewers
        (``store.watch``): NOTIFY is delivered when the transaction commits."""
        with self._writer.begin() as conn:
            yield conn
            if notify and self._is_postgres:
                conn.execute(text(f"NOTIFY {NOTIFY_CHANNEL}"))

    def watcher(self, poll_interval: float = 5.0) -> "HistoryWatcher":
        """A ``store.watch.HistoryWatcher`` on this database (for one watching thread)."""
        return HistoryWatcher(self, poll_interval=poll_interval)

    # -- the run engine's sink ------------------------------------------------------------

    def begin_run(self, run: RunResult, topology: Topology | dict | str | None = None) -> None:
        """Store a new run (normally status running, no steps yet) owned by this process."""
        with self._write() as conn:
            self._insert_run(conn, run, topology, owned=True)

    def add_step(self, run_id: str, step: StepResult) -> None:
        self.add_steps(run_id, [step])

    def add_steps(self, run_id: str, steps: Sequence[StepResult]) -> None:
        """Store a batch of steps in one transaction, committed when this returns."""
        with self._write() as conn:
            row = conn.execute(select(Run.id, Run.status, Run.owner_host, Run.owner_pid)
                               .where(Run.run_id == run_id)).one_or_none()
            if row is None:
                raise StoreError(f"run {run_id} is not in the history (begin_run first)")
            mine = row.owner_host == self.host and row.owner_pid == self.pid
            if row.status != RunStatus.RUNNING.value and not (row.status == RunStatus.INTERRUPTED.value and mine):
                raise StoreError(f"run {run_id} is {row.status}; steps can only be added while it runs")
            for step in steps:
                self._insert_step(conn, row.id, step)
            if row.status == RunStatus.INTERRUPTED.value:   # another host gave up on us too early
                conn.execute(update(Run).where(Run.id == row.id).values(error="", ended_at=None))
            conn.execute(update(Run).where(Run.id == row.id).values(
                status=RunStatus.RUNNING.value, heartbeat_at=self._clock(),
                step_count=Run.step_count + len(steps),
                sample_count=Run.sample_count + sum(len(s.metrics) for s in steps)))

    def update_provenance(self, run_id: str, provenance: Provenance) -> None:
        """Replace a run's provenance (the engine learns hosts, versions and the volume after
        the run has started), with its filter columns, hosts and options."""
        p = provenance
        with self._write() as conn:
            pk = conn.execute(select(Run.id).where(Run.run_id == run_id)).scalar()
            if pk is None:
                raise StoreError(f"run {run_id} is not in the history")
            volume_id = self._volume_id(conn, p.volume_name, p.layout) if (p.volume_name or p.layout) else None
            conn.execute(update(Run).where(Run.id == pk).values(**_provenance_columns(p), volume_id=volume_id))
            conn.execute(delete(RunHost).where(RunHost.run_pk == pk))
            conn.execute(delete(RunOption).where(RunOption.run_pk == pk))
            self._insert_hosts_and_options(conn, pk, p)

    def heartbeat(self, run_id: str) -> None:
        """Say the run is alive (the engine calls this during long steps)."""
        with self._write(notify=False) as conn:     # nothing a viewer shows changes
            conn.execute(update(Run).where(Run.run_id == run_id, Run.status == RunStatus.RUNNING.value)
                         .values(heartbeat_at=self._clock()))

    def finish_run(self, run_id: str, status: RunStatus | str, error: str = "", failed_host: str = "",
                   ended_at: float | None = None) -> None:
        status = RunStatus(status)
        if status is RunStatus.RUNNING:
            raise StoreError("finish_run needs a final status (complete, partial, failed, interrupted, cancelled)")
        with self._write() as conn:
            done = conn.execute(update(Run).where(Run.run_id == run_id).values(
                status=status.value, error=error, failed_host=failed_host,
                ended_at=self._clock() if ended_at is None else ended_at, heartbeat_at=self._clock()))
            if done.rowcount == 0:
                raise StoreError(f"run {run_id} is not in the history")

    def mark_interrupted_runs(self, stale_after: float = STALE_AFTER_S) -> list[str]:
        """Mark running runs whose writer is gone as interrupted; returns their ids.

        Same host: the owner pid is dead (or now names a different process). Another host:
        no heartbeat for ``stale_after`` seconds. Runs without an owner (imported, or from
        before owners were recorded) count as gone."""
        now = self._clock()
        with self.engine.connect() as conn:
            rows = conn.execute(select(Run.id, Run.run_id, Run.owner_host, Run.owner_pid, Run.owner_start,
                                       Run.heartbeat_at, Run.started_at, Run.step_count)
                                .where(Run.status == RunStatus.RUNNING.value)).all()
        gone = []
        for r in rows:
            last = r.heartbeat_at or r.started_at
            if r.owner_pid is None:
                why = "no process owns it"
            elif r.owner_host == self.host:
                if r.owner_pid == self.pid and r.owner_start == self._start:
                    continue
                alive = pid_alive(r.owner_pid) and (not r.owner_start or process_start(r.owner_pid) == r.owner_start)
                if alive:
                    continue
                why = f"its process {r.owner_pid} on {r.owner_host} is gone"
            elif now - last < stale_after:
                continue
            else:
                why = f"no sign of life from {r.owner_host} (pid {r.owner_pid}) for {int(now - last)} s"
            gone.append((r, why))
        marked = []
        for r, why in gone:
            with self._write() as conn:   # compare-and-set: another instance may have done it
                done = conn.execute(update(Run).where(Run.id == r.id, Run.status == RunStatus.RUNNING.value)
                                    .values(status=RunStatus.INTERRUPTED.value, ended_at=r.heartbeat_at or r.started_at,
                                            error=f"the app stopped mid-run ({why}); "
                                                  f"{r.step_count} measured steps were kept"))
            if done.rowcount:
                marked.append(r.run_id)
        return marked

    # -- inserting ------------------------------------------------------------------------

    def _insert_run(self, conn: Connection, run: RunResult, topology: Topology | dict | str | None,
                    owned: bool) -> int:
        p = run.provenance
        volume_id = self._volume_id(conn, p.volume_name, p.layout) if (p.volume_name or p.layout) else None
        topology_id = self._topology_id(conn, topology) if topology is not None else None
        now = self._clock()
        values = dict(
            run_id=run.run_id, workload=run.workload, status=stored_status(run).value, started_at=run.started_at,
            ended_at=run.ended_at, error=run.error, failed_host=run.failed_host, volume_id=volume_id,
            topology_id=topology_id, **_provenance_columns(p), step_count=len(run.steps),
            sample_count=sum(len(s.metrics) for s in run.steps),
            owner_host=self.host if owned else "", owner_pid=self.pid if owned else None,
            owner_start=self._start if owned else "", heartbeat_at=now if owned else run.ended_at)
        try:
            with conn.begin_nested():
                pk = conn.execute(insert(Run).values(**values)).inserted_primary_key[0]
        except IntegrityError:
            raise StoreError(f"run {run.run_id} is already in the history") from None
        self._insert_hosts_and_options(conn, pk, p)
        for step in run.steps:
            self._insert_step(conn, pk, step)
        return pk

    @staticmethod
    def _insert_hosts_and_options(conn: Connection, pk: int, p: Provenance) -> None:
        if p.hosts:
            conn.execute(insert(RunHost), [dict(run_pk=pk, host=h, gluster=i.get("gluster", ""),
                                                kernel=i.get("kernel", ""), os=i.get("os", ""))
                                           for h, i in p.hosts.items()])
        if p.volume_options:
            conn.execute(insert(RunOption), [dict(run_pk=pk, name=k, value=v) for k, v in p.volume_options.items()])

    def _insert_step(self, conn: Connection, run_pk: int, step: StepResult) -> None:
        params = step.params
        bs, conc, direction = params.get("block_size"), params.get("concurrency"), params.get("direction")
        try:
            with conn.begin_nested():
                step_id = conn.execute(insert(Step).values(
                    run_pk=run_pk, idx=step.index, repeat=step.repeat, params_json=_dumps(params),
                    block_size=bs if type(bs) is int and -(2**63) <= bs < 2**63 else None,
                    concurrency=conc if _fits_int32(conc) else None,
                    direction=direction if isinstance(direction, str) else None,
                    start_skew_json=_dumps(step.start_skew), flags_json=_dumps(list(step.flags)),
                    valid=step.valid, note=step.note)).inserted_primary_key[0]
        except IntegrityError:
            raise StoreError(f"step {step.index} repeat {step.repeat} is already stored for this run") from None
        if step.metrics:
            conn.execute(insert(Sample), [dict(step_id=step_id, run_pk=run_pk, seq=i, name=name, value=m.value,
                                               unit=m.unit, label=label)
                                          for i, m in enumerate(step.metrics) for name, label in [stored_name(m)]])
        if step.workers:
            conn.execute(insert(WorkerTimingRow), [
                dict(step_id=step_id, seq=i, worker=w.worker, host=w.host, start=w.start, end=w.end,
                     bytes=w.bytes, ops=w.ops, error=w.error) for i, w in enumerate(step.workers)])

    def _volume_id(self, conn: Connection, name: str, layout: dict) -> int:
        body = json.dumps(layout, sort_keys=True, ensure_ascii=False)
        sha = hashlib.sha256(body.encode()).hexdigest()
        found = conn.execute(select(VolumeLayout.id).where(VolumeLayout.name == name,
                                                           VolumeLayout.layout_sha256 == sha)).scalar()
        if found is not None:
            return found
        bricks = layout.get("bricks") or []

        def count(key: str) -> int | None:
            v = layout.get(key)
            return v if _fits_int32(v) else None

        try:
            with conn.begin_nested():
                return conn.execute(insert(VolumeLayout).values(
                    name=name, layout_type=str(layout.get("type", "")), replica=count("replica"),
                    arbiter=count("arbiter"), disperse=count("disperse"), redundancy=count("redundancy"),
                    brick_count=len(bricks) if isinstance(bricks, list) else 0, label=describe_layout(layout),
                    layout_sha256=sha, layout_json=body)).inserted_primary_key[0]
        except IntegrityError:  # another instance stored the same layout a moment ago
            return conn.execute(select(VolumeLayout.id).where(VolumeLayout.name == name,
                                                              VolumeLayout.layout_sha256 == sha)).scalar_one()

    def _topology_id(self, conn: Connection, topology: Topology | dict | str) -> int:
        from brickyard.core import topofile

        if isinstance(topology, Topology):
            body = topofile.dumps(topology)
        elif isinstance(topology, dict):
            body = json.dumps(topology, indent=2, ensure_ascii=False) + "\n"
        else:
            body = topology
        sha = hashlib.sha256(body.encode()).hexdigest()
        found = conn.execute(select(TopologySnapshot.id).where(TopologySnapshot.sha256 == sha)).scalar()
        if found is not None:
            return found
        try:
            with conn.begin_nested():
                return conn.execute(insert(TopologySnapshot).values(
                    sha256=sha, body=body, created_at=self._clock())).inserted_primary_key[0]
        except IntegrityError:
            return conn.execute(select(TopologySnapshot.id).where(TopologySnapshot.sha256 == sha)).scalar_one()

    # -- reading --------------------------------------------------------------------------

    def list_runs(self, filters: RunFilter | None = None) -> list[RunSummary]:
        f = filters or RunFilter()
        q = (select(Run.run_id, Run.workload, Run.status, Run.started_at, Run.ended_at, Run.target,
                    Run.hosts, Run.gluster_versions, Run.step_count, Run.sample_count, Run.error,
                    VolumeLayout.name.label("volume"), VolumeLayout.label.label("layout"), Run.target_kind)
             .outerjoin(VolumeLayout, VolumeLayout.id == Run.volume_id)
             .order_by(Run.started_at.desc(), Run.id.desc()))
        with self.engine.connect() as conn:
            q = _apply_filter(q, f, conn)
            if f.limit is not None:
                q = q.limit(f.limit)
            if f.offset:
                q = q.offset(f.offset)
            rows = conn.execute(q).all()
        status = {s.value: s for s in RunStatus}
        for value in {row[2] for row in rows} - status.keys():
            status[value] = _status(value)
        self._tell([UnreadableRow(row[0], "text", f"its {_not_utf8(bad)}") for row in rows
                    for bad in [[n for n, v in zip(_LIST_TEXT, row) if isinstance(v, BadText)]] if bad])
        # plain tuple unpacking: 10,000 rows in a few ms (named attribute access is 3x slower).
        # A run that did not measure gluster shows no gluster version (runs stored before
        # that rule have the installed client's version in the column).
        return [RunSummary(run_id, workload, status[st], started, ended, volume or "", layout or "", target, hosts,
                           _versions_text(glusters) if is_gluster_target(kind) else "", steps, samples, error,
                           kind or "")
                for (run_id, workload, st, started, ended, target, hosts, glusters, steps, samples, error, volume,
                     layout, kind) in rows]

    def _tell(self, notes: Sequence[UnreadableRow]) -> None:
        """Keep and pass on (once each) what a reader read with U+FFFD or left out."""
        for note in notes:
            if note not in self.unreadable:
                self.unreadable.append(note)
                if self.on_unreadable is not None:
                    self.on_unreadable(note)

    def metric_trend(self, metric: str, *, block_size: int | None = None, concurrency: int | None = None,
                     direction: str | None = None, filters: RunFilter | None = None
                     ) -> list[TrendPoint]:
        """(started_at, run_id, median over valid repeats, series) of one metric at one sweep
        point, for every run the filter lets through, oldest first: the data of a trend
        chart, without loading whole runs. ``series`` names what the run measured
        ('gluster gv0', 'local /var/tmp/base'; ``core.runlabels.series_of``): one line each."""
        q = (select(Run.started_at, Run.run_id, Sample.value, Run.target_kind, Run.target, VolumeLayout.name)
             .join(Sample, Sample.run_pk == Run.id).join(Step, Step.id == Sample.step_id)
             .outerjoin(VolumeLayout, VolumeLayout.id == Run.volume_id)
             .where(Sample.name == metric, Step.valid.is_(True)))
        if block_size is not None:
            q = q.where(Step.block_size == block_size)
        if concurrency is not None:
            q = q.where(Step.concurrency == concurrency)
        if direction is not None:
            q = q.where(Step.direction == direction)
        values: dict[str, tuple[float, list[float], str]] = {}
        series: dict[tuple, str] = {}
        with self.engine.connect() as conn:
            q = _apply_filter(q, filters or RunFilter(), conn).order_by(Run.started_at, Run.id)
            for started, run_id, value, kind, target, volume in conn.execute(q):
                entry = values.get(run_id)
                if entry is None:
                    key = (kind, target, volume)
                    if key not in series:
                        series[key] = series_of(kind or "", target or "", volume or "")
                    entry = values[run_id] = (started, [], series[key])
                entry[1].append(value)
        return [TrendPoint(started, run_id, statistics.median(vs), name)
                for run_id, (started, vs, name) in values.items()]

    def filter_choices(self) -> FilterChoices:
        with self.engine.connect() as conn:
            def distinct(col: Any) -> list[str]:
                return [v for v in conn.execute(select(col).distinct().order_by(col)).scalars() if v]
            options = [f"{n}={v}" for n, v in conn.execute(
                select(RunOption.name, RunOption.value).distinct().order_by(RunOption.name, RunOption.value))]
            # versions as numbers ('10.3'), only of runs that measured gluster: each stored version
            # asks for one such run (a join of every host row with its run took ~65 ms at 10,000 runs)
            stored = [v for v in _distinct_values(conn, RunHost.gluster) if v and conn.execute(
                select(RunHost.id).join(Run, Run.id == RunHost.run_pk)
                .where(RunHost.gluster == v, Run.target_kind.like("%gluster%")).limit(1)).first()]
            versions = sorted({gluster_version(v) for v in stored} - {""},
                              key=lambda v: tuple(int(x) for x in v.split(".")))
            return FilterChoices(distinct(VolumeLayout.name), distinct(VolumeLayout.label),
                                 [v for v in _distinct_values(conn, Run.workload) if v],
                                 [v for v in _distinct_values(conn, RunHost.host) if v], versions, options)

    def metric_unit(self, metric: str) -> str:
        """The unit a stored metric is measured in ('B/s', 'tps', 's'), '' when none is stored."""
        with self.engine.connect() as conn:
            return conn.execute(select(Sample.unit).where(Sample.name == metric).limit(1)).scalar() or ""

    def sweep_values(self) -> tuple[list[int], list[int]]:
        """Every block size and concurrency any stored step measured (for chart pickers)."""
        with self.engine.connect() as conn:
            return _distinct_values(conn, Step.block_size), _distinct_values(conn, Step.concurrency)

    def run_count(self, filters: RunFilter | None = None) -> int:
        """How many runs the filter lets through (all runs without one)."""
        q = select(func.count()).select_from(Run)
        with self.engine.connect() as conn:
            if filters is not None:
                q = _apply_filter(q.outerjoin(VolumeLayout, VolumeLayout.id == Run.volume_id), filters, conn)
            return conn.execute(q).scalar_one()

    def load_run(self, run_id: str) -> RunResult:
        return self.load_runs([run_id])[0]

    def load_runs(self, run_ids: Sequence[str]) -> list[RunResult]:
        """Whole runs as result objects, in the order asked; an unknown id is an error."""
        if not run_ids:
            return []
        with self.engine.connect() as conn:
            runs = {r.run_id: r for r in conn.execute(select(Run.__table__).where(Run.run_id.in_(list(run_ids))))}
            missing = [i for i in run_ids if i not in runs]
            if missing:
                raise StoreError(f"not in the history: {', '.join(missing)}")
            pks = [r.id for r in runs.values()]
            steps = conn.execute(select(Step.__table__).where(Step.run_pk.in_(pks))
                                 .order_by(Step.run_pk, Step.idx, Step.repeat)).all()
            samples: dict[int, list[Metric]] = {}
            for s in conn.execute(select(Sample.step_id, Sample.name, Sample.value, Sample.unit, Sample.label)
                                  .where(Sample.run_pk.in_(pks)).order_by(Sample.step_id, Sample.seq)):
                samples.setdefault(s.step_id, []).append(Metric(s.name, s.value, s.unit, s.label))
            workers: dict[int, list[WorkerTiming]] = {}
            for w in conn.execute(select(WorkerTimingRow.__table__).join(Step, Step.id == WorkerTimingRow.step_id)
                                  .where(Step.run_pk.in_(pks)).order_by(WorkerTimingRow.step_id,
                                                                        WorkerTimingRow.seq)):
                workers.setdefault(w.step_id, []).append(
                    WorkerTiming(w.worker, w.host, w.start, w.end, w.bytes, w.ops, w.error))
        by_run: dict[int, list[StepResult]] = {}
        left_out: dict[int, list[UnreadableRow]] = {}
        run_ids_by_pk = {r.id: r.run_id for r in runs.values()}
        for s in steps:
            where = f"step {s.idx} repeat {s.repeat}"
            try:
                step, odd = _stored_step(s, samples.get(s.id, ()), workers.get(s.id, ()))
            except _Unreadable as exc:
                left_out.setdefault(s.run_pk, []).append(UnreadableRow(run_ids_by_pk[s.run_pk], where, str(exc)))
                continue
            if odd:
                left_out.setdefault(s.run_pk, []).append(UnreadableRow(run_ids_by_pk[s.run_pk], f"{where} text", odd))
            by_run.setdefault(s.run_pk, []).append(step)
        out = []
        for run_id in run_ids:
            r = runs[run_id]
            provenance, unreadable = _stored_provenance(r)
            notes = left_out.get(r.id, [])
            if unreadable:
                notes.insert(0, UnreadableRow(r.run_id, "provenance", unreadable))
            bad = [c for c in _RUN_TEXT if isinstance(getattr(r, c), BadText)]
            if bad:
                notes.insert(0, UnreadableRow(r.run_id, "text", f"its {_not_utf8(bad)}"))
            self._tell(notes)
            error = r.error
            if notes:
                error = (error + " [" + "; ".join(n.short() for n in notes[:5]) +
                         (f"; {len(notes) - 5} more" if len(notes) > 5 else "") + "]").strip()
            out.append(RunResult(run_id=r.run_id, workload=r.workload, status=_status(r.status),
                                 started_at=r.started_at, ended_at=r.ended_at, provenance=provenance,
                                 steps=by_run.get(r.id, []), error=error, failed_host=r.failed_host))
        return out

    def earlier_runs(self, run_id: str, limit: int = 4) -> list[str]:
        """Up to ``limit`` runs of the same workload on the same volume (for a run without a
        volume — a local or NFS baseline — on the same target) that started before ``run_id``,
        newest first: what a finished run is read against."""
        with self.engine.connect() as conn:
            row = conn.execute(select(Run.workload, Run.started_at, Run.id, Run.target, Run.volume_id,
                                      VolumeLayout.name.label("volume"))
                               .outerjoin(VolumeLayout, VolumeLayout.id == Run.volume_id)
                               .where(Run.run_id == run_id)).one_or_none()
            if row is None:
                raise StoreError(f"run {run_id} is not in the history")
            q = (select(Run.run_id).outerjoin(VolumeLayout, VolumeLayout.id == Run.volume_id)
                 .where(Run.workload == row.workload, Run.id != row.id,
                        or_(Run.started_at < row.started_at,
                            and_(Run.started_at == row.started_at, Run.id < row.id)))
                 .order_by(Run.started_at.desc(), Run.id.desc()).limit(limit))
            q = q.where(VolumeLayout.name == row.volume) if row.volume else \
                q.where(Run.target == row.target, Run.volume_id.is_(None))
            return list(conn.execute(q).scalars())

    def topology_snapshot(self, run_id: str) -> str | None:
        """The canonical topology JSON the run was planned from, if one was stored."""
        with self.engine.connect() as conn:
            return conn.execute(select(TopologySnapshot.body).join(Run, Run.topology_id == TopologySnapshot.id)
                                .where(Run.run_id == run_id)).scalar()

    def has_runs(self, run_ids: Sequence[str]) -> set[str]:
        with self.engine.connect() as conn:
            return set(conn.execute(select(Run.run_id).where(Run.run_id.in_(list(run_ids)))).scalars())

    # -- exchange -------------------------------------------------------------------------

    def export_json(self, run_ids: Sequence[str], out: Any) -> int:
        """Whole runs as a JSON export (all runs when ``run_ids`` is empty); see ``exchange``."""
        from . import exchange
        return exchange.export_json(self, run_ids, out)

    def export_csv(self, run_ids: Sequence[str], out: Any) -> int:
        from . import exchange
        return exchange.export_csv(self, run_ids, out)

    def import_json(self, source: Any) -> Any:
        """Add the export's runs this history lacks; returns an ``exchange.ImportReport``."""
        from . import exchange
        return exchange.import_json(self, source)

    def add_run(self, run: RunResult) -> None:
        """Store a finished run (an import) in one transaction, with no owner."""
        if run.status is RunStatus.RUNNING:
            raise StoreError(f"run {run.run_id} is still running; import only finished runs")
        with self._write() as conn:
            self._insert_run(conn, run, None, owned=False)

    def add_runs(self, runs: Sequence[RunResult]) -> tuple[list[str], list[str]]:
        """Store finished runs (an import) in ONE transaction: all of them or, on any error,
        none. Runs already stored (or twice in ``runs``) are skipped; returns (added, skipped)."""
        for run in runs:
            if run.status is RunStatus.RUNNING:
                raise StoreError(f"run {run.run_id} is still running; import only finished runs")
        added: list[str] = []
        skipped: list[str] = []
        with self._write() as conn:
            present = set(conn.execute(select(Run.run_id).where(Run.run_id.in_([r.run_id for r in runs])))
                          .scalars()) if runs else set()
            for run in runs:
                if run.run_id in present:
                    skipped.append(run.run_id)
                    continue
                present.add(run.run_id)
                self._insert_run(conn, run, None, owned=False)
                added.append(run.run_id)
        return added, skipped

    def note_run(self, run_prefix: str, note: str) -> list[str]:
        """Add ``note`` to the error of each finished run whose id starts with ``run_prefix``
        (12 hexadecimal digits, as run directories are named), once; returns their ids."""
        if not (len(run_prefix) == 12 and all(c in "0123456789abcdef" for c in run_prefix)):
            raise StoreError(f"{run_prefix!r} is not a run directory's run id (12 hexadecimal digits)")
        noted = []
        with self._write() as conn:
            rows = conn.execute(select(Run.id, Run.run_id, Run.error).where(
                Run.run_id.like(f"{run_prefix}%"), Run.status != RunStatus.RUNNING.value)).all()
            for pk, run_id, error in rows:
                if note in (error or ""):
                    continue
                conn.execute(update(Run).where(Run.id == pk).values(error="; ".join(x for x in (error, note) if x)))
                noted.append(run_id)
        return noted

    def delete_run(self, run_id: str) -> None:
        with self._write() as conn:
            pk = conn.execute(select(Run.id).where(Run.run_id == run_id)).scalar()
            if pk is None:
                raise StoreError(f"run {run_id} is not in the history")
            # explicit, so it works on SQLite connections where foreign keys are off too
            step_ids = select(Step.id).where(Step.run_pk == pk)
            conn.execute(delete(WorkerTimingRow).where(WorkerTimingRow.step_id.in_(step_ids)))
            conn.execute(delete(Sample).where(Sample.run_pk == pk))
            for table in (Step, RunHost, RunOption):
                conn.execute(delete(table).where(table.run_pk == pk))
            conn.execute(delete(Run).where(Run.id == pk))


def _fits_int32(value: Any) -> bool:
    """An int an ``Integer`` column holds on every backend (PostgreSQL's is 32 bits)."""
    return type(value) is int and -(2**31) <= value < 2**31


def _status(text: str) -> RunStatus:
    try:
        return RunStatus(text)
    except ValueError:   # a row written by hand or by a newer Brickyard
        return RunStatus.FAILED


_LIST_TEXT = ("run_id", "workload", "status", "started_at", "ended_at", "target", "hosts", "gluster_versions",
              "step_count", "sample_count", "error", "volume", "layout", "target_kind")
_RUN_TEXT = ("run_id", "workload", "status", "error", "failed_host", "target", "target_kind", "brickyard_version")


class _Unreadable(ValueError):
    """A stored step that cannot be read back, with the reason."""


def _not_utf8(names: Sequence[str]) -> str:
    return f"{', '.join(names[:3])}{' …' if len(names) > 3 else ''} {'is' if len(names) == 1 else 'are'} not valid UTF-8"


def _stored_step(s: Any, metrics: Sequence[Metric], workers: Sequence[WorkerTiming]) -> tuple[StepResult, str]:
    """A step row as a StepResult, and a note when some of its text had to be read with
    U+FFFD; or _Unreadable saying why it cannot be read at all: its JSON is not valid UTF-8
    or does not parse, or its sweep point is one an import would refuse."""
    bad = [c.removesuffix("_json") for c, v in (("params_json", s.params_json), ("start_skew_json", s.start_skew_json),
                                                ("flags_json", s.flags_json)) if isinstance(v, BadText)]
    if bad:
        raise _Unreadable(f"its stored {_not_utf8(bad)}")
    odd = ["note"] if isinstance(s.note, BadText) else []
    odd += [f"metric {m.name}" for m in metrics if any(isinstance(v, BadText) for v in (m.name, m.unit, m.label))]
    odd += [f"worker {w.worker}" for w in workers if isinstance(w.host, BadText) or isinstance(w.error, BadText)]
    values = {}
    for column in ("params_json", "start_skew_json", "flags_json"):
        try:
            values[column] = json.loads(getattr(s, column))
        except (ValueError, TypeError, RecursionError) as exc:
            raise _Unreadable(f"its stored {column.removesuffix('_json')} are not valid JSON "
                              f"({str(exc).splitlines()[0][:120]})") from None
    params, skew, flags = values["params_json"], values["start_skew_json"], values["flags_json"]
    if not isinstance(params, dict) or not isinstance(skew, dict) or not isinstance(flags, list) \
            or not all(isinstance(f, str) for f in flags):
        raise _Unreadable("its stored params, start skew or flags are not of the stored kind")
    problems = codec.params_problems(params)
    if problems:
        raise _Unreadable("; ".join(f"params.{key} {why}" for key, why in problems))
    step = StepResult(index=s.idx, params=params, repeat=s.repeat, workers=tuple(workers), metrics=tuple(metrics),
                      start_skew=skew, flags=tuple(flags), valid=s.valid, note=s.note)
    return step, (f"its {_not_utf8(odd)}" if odd else "")


def _stored_provenance(row: Any) -> tuple[Provenance, str]:
    """A run row's provenance, and a note when the stored JSON cannot be read back (a row from
    an older Brickyard that imported anything): the run still lists, shows and compares."""
    try:
        if isinstance(row.provenance_json, BadText):
            raise ValueError("its stored text is not valid UTF-8")
        return codec.provenance_from_dict(json.loads(row.provenance_json)), ""
    except (ValueError, TypeError, RecursionError) as exc:
        first = str(exc).splitlines()[-1].strip()
        return (Provenance(brickyard_version=row.brickyard_version or "", hosts={}, target=row.target or "",
                           target_kind=row.target_kind or ""),
                f"stored provenance unreadable: {first[:200]}")


def _provenance_columns(p: Provenance) -> dict[str, Any]:
    """The runs-table columns copied out of a provenance (for listing and filtering)."""
    return dict(target=p.target, target_kind=p.target_kind, brickyard_version=p.brickyard_version,
                hosts=", ".join(sorted(p.hosts)), gluster_versions=", ".join(gluster_versions(p)),
                provenance_json=_dumps(codec.provenance_to_dict(p)))


def _apply_filter(q: Any, f: RunFilter, conn: Connection) -> Any:
    """The WHERE clauses of a RunFilter on a query over runs (outer-joined to volumes);
    ``conn`` reads the stored versions and layouts the text filters match."""
    if f.volume:
        q = q.where(VolumeLayout.name == f.volume)
    if f.layout:
        # the few stored layouts are matched as typed ('disperse' finds Distributed-Disperse)
        ids = [i for i, kind, label in conn.execute(select(VolumeLayout.id, VolumeLayout.layout_type,
                                                           VolumeLayout.label))
               if layout_matches(f.layout, kind, label)]
        q = q.where(VolumeLayout.id.in_(ids))
    if f.workload:
        q = q.where(Run.workload == f.workload)
    if f.status:
        q = q.where(Run.status == RunStatus(f.status).value)
    if f.since is not None:
        q = q.where(Run.started_at >= f.since)
    if f.until is not None:
        q = q.where(Run.started_at < f.until)
    if f.run_ids:
        q = q.where(Run.run_id.in_(f.run_ids))
    if f.host:
        q = q.where(Run.id.in_(select(RunHost.run_pk).where(RunHost.host == f.host)))
    if f.gluster_version:
        # '10.3' finds 'glusterfs 10.3'; only runs that measured gluster count
        versions = [v for v in conn.execute(select(RunHost.gluster).distinct()).scalars()
                    if v and version_matches(v, f.gluster_version)]
        q = q.where(Run.target_kind.like("%gluster%"),
                    Run.id.in_(select(RunHost.run_pk).where(RunHost.gluster.in_(versions))))
    if f.option:
        # as typed: the full name, or its last part ('write-behind' = performance.write-behind);
        # values in any case ('Off' = off)
        name, eq, value = f.option.partition("=")
        name = name.strip().lower()
        cond = or_(func.lower(RunOption.name) == name, func.lower(RunOption.name).like(f"%.{name}"))
        if eq:
            cond = and_(cond, func.lower(RunOption.value) == value.strip().lower())
        q = q.where(Run.id.in_(select(RunOption.run_pk).where(cond)))
    return q


def _versions_text(stored: str) -> str:
    """'glusterfs 10.3' (older rows held what each host printed) → '10.3'."""
    return ", ".join(dict.fromkeys(gluster_version(v) or v for v in stored.split(", ") if v))
