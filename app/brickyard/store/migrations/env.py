"""Alembic environment: run by ``brickyard.store.engine.migrate`` with an open connection
(``config.attributes["connection"]``), already inside the transaction that holds the
migration lock. No alembic.ini and no logging set-up: this runs inside the app."""

from __future__ import annotations

from alembic import context

from brickyard.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("brickyard migrations run through brickyard.store.engine.migrate(), "
                       "which passes an open connection")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
