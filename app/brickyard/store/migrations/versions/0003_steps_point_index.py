"""Index steps by sweep point (block size, concurrency, direction): the trend chart and the
chart pickers query one point across every run, which scanned all steps before
(10,000 runs: ~350 ms per trend, ~100 ms for the pickers).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_steps_point", "steps", ["block_size", "concurrency", "direction"])


def downgrade() -> None:
    op.drop_index("ix_steps_point", table_name="steps")
