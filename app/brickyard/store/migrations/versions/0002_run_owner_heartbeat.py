"""Runs record who writes them (host, pid, process start) and a heartbeat, so start-up marks
a run interrupted only when its owning process is gone, not while a second app instance
on the same database is still measuring it.

Runs that were left ``running`` before this revision have no owner: the next start-up
marks them interrupted (nobody can still be writing them through an older schema).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("owner_host", sa.String(255), nullable=False, server_default=""))
        batch.add_column(sa.Column("owner_pid", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("owner_start", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("heartbeat_at", sa.Double(), nullable=True))
    # the last sign of life of an old running run is its start
    op.execute("UPDATE runs SET heartbeat_at = started_at WHERE status = 'running'")


def downgrade() -> None:
    # plain DROP COLUMN (SQLite >= 3.35): a batch "recreate" of runs would cascade-delete
    # every step and sample while foreign keys are on
    for column in ("heartbeat_at", "owner_start", "owner_pid", "owner_host"):
        op.drop_column("runs", column)
