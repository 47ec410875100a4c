"""Changes to live volumes in the history database: the drawing and the live state a change was
planned from, the plan as shown, its saved state (written at every step, so a SIGKILL loses
at most the step that was running) and every command it ran with gluster's whole answer.

The change service (``remote.change``) owns what the state means; this module stores it as
JSON and answers "which unfinished change is there for this volume", "who owns it", "what did
gluster say, in order". Returns plain records, never ORM rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from sqlalchemy import func, insert, select, update

from .campaigns import row_by_id
from .errors import StoreError
from .models import ChangeOutput, ChangeRow
from .owner import owned_by_live_process

if TYPE_CHECKING:
    from .history import HistoryStore

FINISHED = ("complete", "cancelled", "rolled-back", "abandoned")


@dataclass(frozen=True)
class ChangeRecord:
    change_id: str
    volume: str
    kinds: str
    source: str
    topology: dict[str, Any]
    live: dict[str, Any]            # {"measured": ISO time, "outputs": {key: gluster's text}}
    options: dict[str, Any]
    plan: dict[str, Any]
    state: dict[str, Any]
    status: str
    predicted_seconds: float | None
    measured_seconds: float | None
    created_at: float
    updated_at: float
    owner_host: str = ""
    owner_pid: int | None = None
    owner_start: str = ""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


@dataclass(frozen=True)
class KeptOutput:
    """One command a change ran: when, for which step, where, and gluster's whole answer."""

    seq: int
    at: float
    step_key: str
    host: str
    argv: list[str]
    exit_status: int
    stdout: str
    stderr: str


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class ChangeStore:
    """Change rows of one ``HistoryStore``."""

    def __init__(self, store: HistoryStore):
        self.store = store

    def create(self, change_id: str, volume: str, kinds: Sequence[str], source: str, topology: dict,
               live: dict, options: dict, plan: dict, state: dict, status: str,
               predicted_seconds: float | None) -> ChangeRecord:
        now = self.store._clock()
        with self.store._write() as conn:
            conn.execute(insert(ChangeRow).values(
                change_id=change_id, volume=volume, kinds=", ".join(kinds), source=source,
                topology_json=_dumps(topology), live_json=_dumps(live), options_json=_dumps(options),
                plan_json=_dumps(plan), state_json=_dumps(state), status=status,
                predicted_seconds=predicted_seconds, measured_seconds=None, created_at=now, updated_at=now,
                owner_host=self.store.host, owner_pid=self.store.pid, owner_start=self.store._start))
        return self.get(change_id)

    def save_state(self, change_id: str, state: dict, status: str, measured_seconds: float | None = None) -> None:
        """Write the state now (committed when this returns) and claim the change for this process."""
        values: dict[str, Any] = dict(state_json=_dumps(state), status=status, updated_at=self.store._clock(),
                                      owner_host=self.store.host, owner_pid=self.store.pid,
                                      owner_start=self.store._start)
        if measured_seconds is not None:
            values["measured_seconds"] = measured_seconds
        with self.store._write() as conn:
            done = conn.execute(update(ChangeRow).where(ChangeRow.change_id == change_id).values(**values))
            if done.rowcount == 0:
                raise StoreError(f"change {change_id} is not in the history")

    def add_output(self, change_id: str, step_key: str, host: str, argv: Sequence[str], exit_status: int,
                   stdout: str, stderr: str, at: float) -> None:
        """Keep one command's answer (committed when this returns)."""
        with self.store._write(notify=False) as conn:
            pk = conn.execute(select(ChangeRow.id).where(ChangeRow.change_id == change_id)).scalar_one_or_none()
            if pk is None:
                raise StoreError(f"change {change_id} is not in the history")
            seq = conn.execute(select(func.coalesce(func.max(ChangeOutput.seq), -1))
                               .where(ChangeOutput.change_pk == pk)).scalar_one() + 1
            conn.execute(insert(ChangeOutput).values(
                change_pk=pk, seq=seq, at=at, step_key=step_key, host=host, argv_json=json.dumps(list(argv)),
                exit_status=exit_status, stdout=stdout, stderr=stderr))

    def outputs(self, change_id: str) -> list[KeptOutput]:
        """Every kept command of the change, in the order it ran."""
        record = self.get(change_id)
        with self.store.engine.connect() as conn:
            pk = conn.execute(select(ChangeRow.id).where(ChangeRow.change_id == record.change_id)).scalar_one()
            table = ChangeOutput.__table__
            rows = conn.execute(select(table).where(table.c.change_pk == pk).order_by(table.c.seq)).all()
            return [KeptOutput(r.seq, r.at, r.step_key, r.host, json.loads(r.argv_json), r.exit_status, r.stdout,
                               r.stderr) for r in rows]

    def get(self, change_id: str) -> ChangeRecord:
        """The change with this id, or the one whose id starts with it (4 characters or more)."""
        with self.store.engine.connect() as conn:
            return _record(row_by_id(conn, ChangeRow.__table__.c.change_id, change_id, "change"))

    def list(self, *, volume: str | None = None, unfinished: bool = False) -> list[ChangeRecord]:
        """Newest first."""
        q = select(ChangeRow.__table__).order_by(ChangeRow.created_at.desc(), ChangeRow.id.desc())
        if volume is not None:
            q = q.where(ChangeRow.volume == volume)
        if unfinished:
            q = q.where(ChangeRow.status.not_in(FINISHED))
        with self.store.engine.connect() as conn:
            return [_record(r) for r in conn.execute(q).all()]

    def owner_alive(self, record: ChangeRecord) -> bool:
        """True when another live process on this host is running the change now."""
        return owned_by_live_process(record.owner_host, record.owner_pid, record.owner_start,
                                     this_host=self.store.host, this_pid=self.store.pid)


def _record(row: Any) -> ChangeRecord:
    return ChangeRecord(
        change_id=row.change_id, volume=row.volume, kinds=row.kinds, source=row.source,
        topology=json.loads(row.topology_json), live=json.loads(row.live_json), options=json.loads(row.options_json),
        plan=json.loads(row.plan_json), state=json.loads(row.state_json), status=row.status,
        predicted_seconds=row.predicted_seconds, measured_seconds=row.measured_seconds, created_at=row.created_at,
        updated_at=row.updated_at, owner_host=row.owner_host, owner_pid=row.owner_pid, owner_start=row.owner_start)
