"""Runs saved before Brickyard measured the stonewall hold an estimate under its name: each
worker's bytes at the first finish taken from its average rate, which is the sum of rates
again whenever the workers start together. Those samples are renamed ``stonewall_estimate``
and labelled as such, so no chart or comparison sets them against measured stonewalls.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""
from alembic import op
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

OLD_LABEL = "bytes moved until the first worker finished ÷ that time (first-finisher)"
NEW_LABEL = ("an estimate saved before Brickyard measured the stonewall: each worker's average rate × the "
             "first finisher's time (the sum of rates again when the workers start together)")


def upgrade() -> None:
    op.execute(sa.text("UPDATE samples SET name = 'stonewall_estimate', label = :new "
                       "WHERE name = 'stonewall_throughput' AND label = :old").bindparams(new=NEW_LABEL, old=OLD_LABEL))


def downgrade() -> None:
    op.execute(sa.text("UPDATE samples SET name = 'stonewall_throughput', label = :old "
                       "WHERE name = 'stonewall_estimate' AND label = :new").bindparams(new=NEW_LABEL, old=OLD_LABEL))
