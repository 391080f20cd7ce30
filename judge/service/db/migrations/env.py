"""Alembic's entry: runs the revisions on the connection :mod:`judge.service.db.migrate` hands over.

Only that way: the caller holds the connection, its transaction and the lock that serialises processes starting
at once, so there is no URL here and no offline (SQL script) mode.
"""

from __future__ import annotations

from alembic import context

from judge.service.db.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError("the service's migrations run through judge.service.db.migrate.upgrade(engine), "
                       "on a connection it opens")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
