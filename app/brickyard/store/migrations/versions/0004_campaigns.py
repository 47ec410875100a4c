"""Campaigns: a campaign's file, topology and saved state (so an interrupted one resumes where
it stopped), and every run tagged with the campaign and the cell it measured.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("source", sa.String(4096), nullable=False),
        sa.Column("spec_sha256", sa.String(64), nullable=False),
        sa.Column("spec_json", sa.Text(), nullable=False),
        sa.Column("topology_json", sa.Text(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("owner_host", sa.String(255), nullable=False, server_default=""),
        sa.Column("owner_pid", sa.Integer(), nullable=True),
        sa.Column("owner_start", sa.String(64), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name="pk_campaigns"),
        sa.UniqueConstraint("campaign_id", name="uq_campaigns_campaign_id"),
    )
    op.create_index("ix_campaigns_status", "campaigns", ["status"])
    op.create_index("ix_campaigns_spec_sha256", "campaigns", ["spec_sha256"])
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("campaign_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("campaign_cell", sa.String(255), nullable=False, server_default=""))
    op.create_index("ix_runs_campaign_id", "runs", ["campaign_id"])


def downgrade() -> None:
    op.drop_index("ix_runs_campaign_id", table_name="runs")
    # plain DROP COLUMN (SQLite >= 3.35): a batch "recreate" of runs would cascade-delete steps
    for column in ("campaign_cell", "campaign_id"):
        op.drop_column("runs", column)
    op.drop_index("ix_campaigns_spec_sha256", table_name="campaigns")
    op.drop_index("ix_campaigns_status", table_name="campaigns")
    op.drop_table("campaigns")
