"""A run the user cancelled has a status of its own, ``cancelled``: before, it was stored
``partial`` (steps kept) or ``failed`` (none) with the error "cancelled by the user", and History
and the CLI said partial while the Run tab said cancelled. The status column is text, so only
the stored rows change; an older Brickyard reads ``cancelled`` as failed.

Revision ID: 0006_cancelled_run_status
Revises: 0005
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0006_cancelled_run_status"
down_revision = "0005"
branch_labels = None
depends_on = None

CANCELLED_ERROR = "cancelled by the user"


def upgrade() -> None:
    op.execute(sa.text("UPDATE runs SET status = 'cancelled' WHERE status IN ('partial', 'failed') "
                       "AND error LIKE :prefix").bindparams(prefix=CANCELLED_ERROR + "%"))


def downgrade() -> None:
    op.execute(sa.text("UPDATE runs SET status = CASE WHEN step_count > 0 THEN 'partial' ELSE 'failed' END "
                       "WHERE status = 'cancelled'"))
