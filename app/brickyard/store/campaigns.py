"""Campaigns in the history database: the file and topology as started, the saved state
(written after every step, so a SIGKILL loses at most the step that was running), and the
runs each cell measured (``runs.campaign_id`` / ``runs.campaign_cell``).

The campaign service owns what the state means; this module stores it as JSON and answers
"which unfinished campaigns are there", "who owns this one", "which runs did it make".
Returns plain ``CampaignRecord`` objects, never ORM rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update

from .errors import StoreError
from .models import Campaign, Run
from .owner import owned_by_live_process

if TYPE_CHECKING:
    from .history import HistoryStore

FINISHED = ("complete", "cancelled", "abandoned")


@dataclass(frozen=True)
class CampaignRecord:
    campaign_id: str
    name: str
    source: str
    spec_sha256: str
    spec: dict[str, Any]
    topology: dict[str, Any]
    state: dict[str, Any]
    status: str
    created_at: float
    updated_at: float
    owner_host: str = ""
    owner_pid: int | None = None
    owner_start: str = ""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


@dataclass(frozen=True)
class CampaignRun:
    run_id: str
    cell: str
    status: str
    started_at: float


class CampaignStore:
    """Campaign rows of one ``HistoryStore``."""

    def __init__(self, store: HistoryStore):
        self.store = store

    def create(self, campaign_id: str, name: str, source: str, spec_sha256: str, spec: dict,
               topology: dict, state: dict, status: str) -> CampaignRecord:
        now = self.store._clock()
        with self.store._write() as conn:
            conn.execute(insert(Campaign).values(
                campaign_id=campaign_id, name=name, source=source, spec_sha256=spec_sha256,
                spec_json=json.dumps(spec, sort_keys=True), topology_json=json.dumps(topology, sort_keys=True),
                state_json=json.dumps(state, sort_keys=True), status=status, created_at=now, updated_at=now,
                owner_host=self.store.host, owner_pid=self.store.pid, owner_start=self.store._start))
        return self.get(campaign_id)

    def save_state(self, campaign_id: str, state: dict, status: str) -> None:
        """Write the state now (committed when this returns) and claim the campaign for this
        process."""
        with self.store._write() as conn:
            done = conn.execute(update(Campaign).where(Campaign.campaign_id == campaign_id).values(
                state_json=json.dumps(state, sort_keys=True), status=status, updated_at=self.store._clock(),
                owner_host=self.store.host, owner_pid=self.store.pid, owner_start=self.store._start))
            if done.rowcount == 0:
                raise StoreError(f"campaign {campaign_id} is not in the history")

    def get(self, campaign_id: str) -> CampaignRecord:
        with self.store.engine.connect() as conn:
            return _record(row_by_id(conn, Campaign.__table__.c.campaign_id, campaign_id, "campaign"))

    def list(self, *, source: str | None = None, unfinished: bool = False) -> list[CampaignRecord]:
        """Newest first; ``source``: the campaign file's absolute path."""
        q = select(Campaign.__table__).order_by(Campaign.created_at.desc(), Campaign.id.desc())
        if source is not None:
            q = q.where(Campaign.source == source)
        if unfinished:
            q = q.where(Campaign.status.not_in(FINISHED))
        with self.store.engine.connect() as conn:
            return [_record(r) for r in conn.execute(q).all()]

    def owner_alive(self, record: CampaignRecord) -> bool:
        """True when another live process on this host owns the campaign (it is running now).
        An owner on another host cannot be checked and counts as gone."""
        return owned_by_live_process(record.owner_host, record.owner_pid, record.owner_start,
                                     this_host=self.store.host, this_pid=self.store.pid)

    def tag_run(self, run_id: str, campaign_id: str, cell: str) -> None:
        with self.store._write() as conn:
            done = conn.execute(update(Run).where(Run.run_id == run_id).values(
                campaign_id=campaign_id, campaign_cell=cell))
            if done.rowcount == 0:
                raise StoreError(f"run {run_id} is not in the history")

    def of_run(self, run_id: str) -> tuple[str, str] | None:
        """(campaign id, cell) of a run a campaign measured, or None."""
        with self.store.engine.connect() as conn:
            row = conn.execute(select(Run.campaign_id, Run.campaign_cell).where(Run.run_id == run_id)).first()
        return (row.campaign_id, row.campaign_cell or "") if row is not None and row.campaign_id else None

    def runs(self, campaign_id: str) -> list[CampaignRun]:
        """Every run tagged with the campaign, oldest first (interrupted attempts included)."""
        with self.store.engine.connect() as conn:
            rows = conn.execute(select(Run.run_id, Run.campaign_cell, Run.status, Run.started_at)
                                .where(Run.campaign_id == campaign_id)
                                .order_by(Run.started_at, Run.id)).all()
        return [CampaignRun(r.run_id, r.campaign_cell, r.status, r.started_at) for r in rows]


def row_by_id(conn: Any, column: Any, key: str, noun: str) -> Any:
    """The row whose ``column`` is ``key``, or the one row whose ``column`` starts with it (4
    characters or more): ids are shown shortened. StoreError naming ``noun`` otherwise."""
    table = column.table
    row = conn.execute(select(table).where(column == key)).one_or_none()
    if row is None:
        matches = conn.execute(select(table).where(column.startswith(key, autoescape=True))).all() \
            if len(key) >= 4 else []
        if len(matches) != 1:
            raise StoreError(f"no {noun} {key!r} in the history" if not matches else
                             f"{noun} id {key!r} is ambiguous ({len(matches)} match)")
        row = matches[0]
    return row


def _record(row: Any) -> CampaignRecord:
    return CampaignRecord(
        campaign_id=row.campaign_id, name=row.name, source=row.source, spec_sha256=row.spec_sha256,
        spec=json.loads(row.spec_json), topology=json.loads(row.topology_json), state=json.loads(row.state_json),
        status=row.status, created_at=row.created_at, updated_at=row.updated_at, owner_host=row.owner_host,
        owner_pid=row.owner_pid, owner_start=row.owner_start)
