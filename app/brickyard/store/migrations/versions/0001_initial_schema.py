"""Initial history schema: topology snapshots, volume layouts, runs with their hosts and
volume options, steps, samples (metrics) and per-worker timings.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "topology_snapshots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_topology_snapshots"),
        sa.UniqueConstraint("sha256", name="uq_topology_snapshots_sha256"),
    )
    op.create_table(
        "volumes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("layout_type", sa.String(64), nullable=False),
        sa.Column("replica", sa.Integer(), nullable=True),
        sa.Column("arbiter", sa.Integer(), nullable=True),
        sa.Column("disperse", sa.Integer(), nullable=True),
        sa.Column("redundancy", sa.Integer(), nullable=True),
        sa.Column("brick_count", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(255), nullable=False),
        sa.Column("layout_sha256", sa.String(64), nullable=False),
        sa.Column("layout_json", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_volumes"),
        sa.UniqueConstraint("name", "layout_sha256", name="uq_volumes_name_layout"),
    )
    op.create_index("ix_volumes_layout_type", "volumes", ["layout_type"])
    op.create_index("ix_volumes_label", "volumes", ["label"])
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("workload", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", sa.Double(), nullable=False),
        sa.Column("ended_at", sa.Double(), nullable=True),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("failed_host", sa.String(255), nullable=False),
        sa.Column("target", sa.String(1024), nullable=False),
        sa.Column("target_kind", sa.String(32), nullable=False),
        sa.Column("volume_id", sa.Integer(), nullable=True),
        sa.Column("topology_id", sa.Integer(), nullable=True),
        sa.Column("brickyard_version", sa.String(64), nullable=False),
        sa.Column("hosts", sa.Text(), nullable=False),
        sa.Column("gluster_versions", sa.String(255), nullable=False),
        sa.Column("provenance_json", sa.Text(), nullable=False),
        sa.Column("step_count", sa.Integer(), nullable=False),
        sa.Column("sample_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["volume_id"], ["volumes.id"], name="fk_runs_volume_id_volumes"),
        sa.ForeignKeyConstraint(["topology_id"], ["topology_snapshots.id"],
                                name="fk_runs_topology_id_topology_snapshots"),
        sa.PrimaryKeyConstraint("id", name="pk_runs"),
        sa.UniqueConstraint("run_id", name="uq_runs_run_id"),
    )
    op.create_index("ix_runs_workload", "runs", ["workload"])
    op.create_index("ix_runs_status", "runs", ["status"])
    op.create_index("ix_runs_started_at", "runs", ["started_at"])
    op.create_index("ix_runs_volume_id", "runs", ["volume_id"])
    op.create_table(
        "run_hosts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_pk", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("gluster", sa.String(64), nullable=False),
        sa.Column("kernel", sa.String(128), nullable=False),
        sa.Column("os", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(["run_pk"], ["runs.id"], name="fk_run_hosts_run_pk_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_run_hosts"),
    )
    op.create_index("ix_run_hosts_run_pk", "run_hosts", ["run_pk"])
    op.create_index("ix_run_hosts_host", "run_hosts", ["host"])
    op.create_index("ix_run_hosts_gluster", "run_hosts", ["gluster"])
    op.create_table(
        "run_options",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_pk", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["run_pk"], ["runs.id"], name="fk_run_options_run_pk_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_run_options"),
    )
    op.create_index("ix_run_options_run_pk", "run_options", ["run_pk"])
    op.create_index("ix_run_options_name_value", "run_options", ["name", "value"])
    op.create_table(
        "steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_pk", sa.Integer(), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("repeat", sa.Integer(), nullable=False),
        sa.Column("params_json", sa.Text(), nullable=False),
        sa.Column("block_size", sa.BigInteger(), nullable=True),
        sa.Column("concurrency", sa.Integer(), nullable=True),
        sa.Column("direction", sa.String(32), nullable=True),
        sa.Column("start_skew_json", sa.Text(), nullable=False),
        sa.Column("flags_json", sa.Text(), nullable=False),
        sa.Column("valid", sa.Boolean(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["run_pk"], ["runs.id"], name="fk_steps_run_pk_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_steps"),
        sa.UniqueConstraint("run_pk", "idx", "repeat", name="uq_steps_run_idx_repeat"),
    )
    op.create_table(
        "samples",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("run_pk", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("value", sa.Double(), nullable=False),
        sa.Column("unit", sa.String(32), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["step_id"], ["steps.id"], name="fk_samples_step_id_steps", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run_pk"], ["runs.id"], name="fk_samples_run_pk_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_samples"),
    )
    op.create_index("ix_samples_step_id", "samples", ["step_id"])
    op.create_index("ix_samples_run_pk", "samples", ["run_pk"])
    op.create_table(
        "worker_timings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("worker", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("start", sa.Double(), nullable=False),
        sa.Column("end", sa.Double(), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("ops", sa.BigInteger(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["step_id"], ["steps.id"], name="fk_worker_timings_step_id_steps",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_worker_timings"),
    )
    op.create_index("ix_worker_timings_step_id", "worker_timings", ["step_id"])


def downgrade() -> None:
    for table in ("worker_timings", "samples", "steps", "run_options", "run_hosts", "runs",
                  "volumes", "topology_snapshots"):
        op.drop_table(table)
