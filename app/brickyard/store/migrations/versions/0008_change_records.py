"""Changes to live volumes: the drawing, the live state planned from, the plan, the saved state
of every step (so an interrupted change resumes) and every command's output.

Revision ID: change_records
Revises: steps_concurrency_index
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = "change_records"
down_revision = "steps_concurrency_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("change_id", sa.String(64), nullable=False),
        sa.Column("volume", sa.String(255), nullable=False),
        sa.Column("kinds", sa.String(255), nullable=False),
        sa.Column("source", sa.String(4096), nullable=False),
        sa.Column("topology_json", sa.Text(), nullable=False),
        sa.Column("live_json", sa.Text(), nullable=False),
        sa.Column("options_json", sa.Text(), nullable=False),
        sa.Column("plan_json", sa.Text(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("predicted_seconds", sa.Double(), nullable=True),
        sa.Column("measured_seconds", sa.Double(), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("owner_host", sa.String(255), nullable=False, server_default=""),
        sa.Column("owner_pid", sa.Integer(), nullable=True),
        sa.Column("owner_start", sa.String(64), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name="pk_changes"),
        sa.UniqueConstraint("change_id", name="uq_changes_change_id"),
    )
    op.create_index("ix_changes_volume", "changes", ["volume"])
    op.create_index("ix_changes_status", "changes", ["status"])
    op.create_table(
        "change_outputs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("change_pk", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("step_key", sa.String(1024), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("argv_json", sa.Text(), nullable=False),
        sa.Column("exit_status", sa.Integer(), nullable=False),
        sa.Column("stdout", sa.Text(), nullable=False),
        sa.Column("stderr", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["change_pk"], ["changes.id"], name="fk_change_outputs_change_pk_changes",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_change_outputs"),
    )
    op.create_index("ix_change_outputs_change_pk", "change_outputs", ["change_pk"])


def downgrade() -> None:
    op.drop_index("ix_change_outputs_change_pk", table_name="change_outputs")
    op.drop_table("change_outputs")
    op.drop_index("ix_changes_status", table_name="changes")
    op.drop_index("ix_changes_volume", table_name="changes")
    op.drop_table("changes")
