"""Index steps by concurrency: the History window's pickers list every concurrency any step
measured, which read all steps into a temporary B-tree (10,000 runs: ~20 ms warm, several
times that on a first open). With the index each value is one probe (store.history's loose
index scan).

Revision ID: steps_concurrency_index
Revises: 0006_cancelled_run_status
Create Date: 2026-11-27
"""
from alembic import op

revision = "steps_concurrency_index"
down_revision = "0006_cancelled_run_status"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_steps_concurrency", "steps", ["concurrency"])


def downgrade() -> None:
    op.drop_index("ix_steps_concurrency", table_name="steps")
