"""The history schema as SQLAlchemy 2 models. Only the store touches these rows; everything
else reads ``brickyard.core.results`` objects (``HistoryStore.load_run``).

Times are ``time.time()`` floats (seconds since the epoch, UTC), so SQLite and PostgreSQL
compare them the same way. JSON-ish fields (step parameters, provenance) are stored as JSON
text exactly as the result objects hold them, with a few columns copied out for filtering
(block size, concurrency, direction, hosts, gluster versions, volume options).

Changing anything here needs a new migration in ``migrations/versions`` (a test compares the
models with the migrated schema).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class TopologySnapshot(Base):
    """The canonical topology JSON a run was planned from, stored once per content hash."""

    __tablename__ = "topology_snapshots"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Double)


class VolumeLayout(Base):
    """A volume name with one layout (type, counts, bricks); a re-created volume with another
    layout is another row, so runs compare the layout they really measured."""

    __tablename__ = "volumes"
    __table_args__ = (UniqueConstraint("name", "layout_sha256", name="uq_volumes_name_layout"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255))
    layout_type: Mapped[str] = mapped_column(String(64), index=True)
    replica: Mapped[int | None] = mapped_column(Integer)
    arbiter: Mapped[int | None] = mapped_column(Integer)
    disperse: Mapped[int | None] = mapped_column(Integer)
    redundancy: Mapped[int | None] = mapped_column(Integer)
    brick_count: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(255), index=True)   # "replica 3 × 2 (6 bricks)"
    layout_sha256: Mapped[str] = mapped_column(String(64))
    layout_json: Mapped[str] = mapped_column(Text)


class Run(Base):
    __tablename__ = "runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[str] = mapped_column(String(64), unique=True)
    workload: Mapped[str] = mapped_column(String(128), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    started_at: Mapped[float] = mapped_column(Double, index=True)
    ended_at: Mapped[float | None] = mapped_column(Double)
    error: Mapped[str] = mapped_column(Text, default="")
    failed_host: Mapped[str] = mapped_column(String(255), default="")
    target: Mapped[str] = mapped_column(String(1024), default="")
    target_kind: Mapped[str] = mapped_column(String(32), default="")
    volume_id: Mapped[int | None] = mapped_column(ForeignKey("volumes.id"), index=True)
    topology_id: Mapped[int | None] = mapped_column(ForeignKey("topology_snapshots.id"))
    brickyard_version: Mapped[str] = mapped_column(String(64), default="")
    hosts: Mapped[str] = mapped_column(Text, default="")              # "gfs1, gfs2, gfs3"
    gluster_versions: Mapped[str] = mapped_column(String(255), default="")  # "10.3" or "3.12.15, 6.0"
    provenance_json: Mapped[str] = mapped_column(Text)
    step_count: Mapped[int] = mapped_column(Integer, default=0)
    sample_count: Mapped[int] = mapped_column(Integer, default=0)
    # revision 0002: who is writing a running run, so a second instance does not mark it
    # interrupted while its owner is alive
    owner_host: Mapped[str] = mapped_column(String(255), default="", server_default="")
    owner_pid: Mapped[int | None] = mapped_column(Integer)
    owner_start: Mapped[str] = mapped_column(String(64), default="", server_default="")
    heartbeat_at: Mapped[float | None] = mapped_column(Double)
    # revision 0004: the campaign (and its cell, e.g. "cell:dt8:dd") a run was measured for
    campaign_id: Mapped[str | None] = mapped_column(String(64), index=True)
    campaign_cell: Mapped[str] = mapped_column(String(255), default="", server_default="")


class Campaign(Base):
    """A layout campaign (revision 0004): its file as started, the topology snapshot, and the
    saved state of every step, so an interrupted campaign resumes where it stopped."""

    __tablename__ = "campaigns"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(String(4096))          # the campaign file's absolute path
    spec_sha256: Mapped[str] = mapped_column(String(64), index=True)
    spec_json: Mapped[str] = mapped_column(Text)
    topology_json: Mapped[str] = mapped_column(Text)
    state_json: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[float] = mapped_column(Double)
    updated_at: Mapped[float] = mapped_column(Double)
    owner_host: Mapped[str] = mapped_column(String(255), default="", server_default="")
    owner_pid: Mapped[int | None] = mapped_column(Integer)
    owner_start: Mapped[str] = mapped_column(String(64), default="", server_default="")


class RunHost(Base):
    """One host of a run's provenance with its versions (filter by host / gluster version)."""

    __tablename__ = "run_hosts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_pk: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    host: Mapped[str] = mapped_column(String(255), index=True)
    gluster: Mapped[str] = mapped_column(String(64), default="", index=True)
    kernel: Mapped[str] = mapped_column(String(128), default="")
    os: Mapped[str] = mapped_column(String(255), default="")


class RunOption(Base):
    """One volume option as it was set for a run (filter by option)."""

    __tablename__ = "run_options"
    __table_args__ = (Index("ix_run_options_name_value", "name", "value"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_pk: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(Text)


class Step(Base):
    __tablename__ = "steps"
    __table_args__ = (UniqueConstraint("run_pk", "idx", "repeat", name="uq_steps_run_idx_repeat"),
                      Index("ix_steps_point", "block_size", "concurrency", "direction"),   # revision 0003
                      Index("ix_steps_concurrency", "concurrency"))   # revision steps_concurrency_index
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_pk: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    idx: Mapped[int] = mapped_column(Integer)
    repeat: Mapped[int] = mapped_column(Integer)
    params_json: Mapped[str] = mapped_column(Text)
    block_size: Mapped[int | None] = mapped_column(BigInteger)
    concurrency: Mapped[int | None] = mapped_column(Integer)
    direction: Mapped[str | None] = mapped_column(String(32))
    start_skew_json: Mapped[str] = mapped_column(Text, default="{}")
    flags_json: Mapped[str] = mapped_column(Text, default="[]")
    valid: Mapped[bool] = mapped_column(Boolean, default=True)
    note: Mapped[str] = mapped_column(Text, default="")


class Sample(Base):
    """One metric of one step (``core.results.Metric``); ``seq`` keeps the step's order."""

    __tablename__ = "samples"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    step_id: Mapped[int] = mapped_column(ForeignKey("steps.id", ondelete="CASCADE"), index=True)
    run_pk: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(128))
    value: Mapped[float] = mapped_column(Double)
    unit: Mapped[str] = mapped_column(String(32))
    label: Mapped[str] = mapped_column(Text, default="")


class WorkerTimingRow(Base):
    __tablename__ = "worker_timings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    step_id: Mapped[int] = mapped_column(ForeignKey("steps.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    worker: Mapped[int] = mapped_column(Integer)
    host: Mapped[str] = mapped_column(String(255))
    start: Mapped[float] = mapped_column(Double)
    end: Mapped[float] = mapped_column(Double)
    bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    ops: Mapped[int] = mapped_column(BigInteger, default=0)
    error: Mapped[str] = mapped_column(Text, default="")


class ChangeRow(Base):
    """A change to a live volume (``remote.change``): the drawing it was planned against, the
    live state it was planned from (gluster's own XML, so a resume plans exactly the same
    steps), the plan as shown, and the saved state of every step, so an interrupted change
    resumes where it stopped; predicted and measured seconds for History."""

    __tablename__ = "changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    change_id: Mapped[str] = mapped_column(String(64), unique=True)
    volume: Mapped[str] = mapped_column(String(255), index=True)
    kinds: Mapped[str] = mapped_column(String(255), default="")        # "expand, rebalance"
    source: Mapped[str] = mapped_column(String(4096), default="")       # the topology file's absolute path
    topology_json: Mapped[str] = mapped_column(Text)
    live_json: Mapped[str] = mapped_column(Text)                         # {"measured": …, "outputs": {…}}
    options_json: Mapped[str] = mapped_column(Text, default="{}")        # fix_layout, replacements
    plan_json: Mapped[str] = mapped_column(Text)
    state_json: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    predicted_seconds: Mapped[float | None] = mapped_column(Double)
    measured_seconds: Mapped[float | None] = mapped_column(Double)
    created_at: Mapped[float] = mapped_column(Double)
    updated_at: Mapped[float] = mapped_column(Double)
    owner_host: Mapped[str] = mapped_column(String(255), default="", server_default="")
    owner_pid: Mapped[int | None] = mapped_column(Integer)
    owner_start: Mapped[str] = mapped_column(String(64), default="", server_default="")


class ChangeOutput(Base):
    """Every command a change ran (and every status it read), with gluster's whole answer: what
    shows, after the fact, that no commit ran before gluster reported the migration done."""

    __tablename__ = "change_outputs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    change_pk: Mapped[int] = mapped_column(ForeignKey("changes.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Double)
    step_key: Mapped[str] = mapped_column(String(1024), default="")
    host: Mapped[str] = mapped_column(String(255), default="")
    argv_json: Mapped[str] = mapped_column(Text)
    exit_status: Mapped[int] = mapped_column(Integer)
    stdout: Mapped[str] = mapped_column(Text, default="")
    stderr: Mapped[str] = mapped_column(Text, default="")
