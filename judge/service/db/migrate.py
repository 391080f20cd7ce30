"""Bringing a database to the service's newest schema with Alembic, from any state it may be found in.

Why Alembic rather than ``create_all`` and columns added by hand: ``create_all`` makes missing tables, never a
missing column, a changed type or a dropped index, and each hand-written fix ran at every start, forever.  A
revision runs once, in order, and the database says which it has run (its ``alembic_version`` row).

Three states at start-up, one call (:func:`upgrade`):

- empty: every revision runs, from the first;
- made before the schema was versioned (no ``alembic_version``, some ``judge_*`` tables, maybe without the
  columns added since): the first revision makes what is missing and adds those columns, so it runs on such a
  database as on an empty one (``0001_baseline``), and the later ones follow;
- versioned: only the revisions after its own run; at head, nothing runs.

Several processes may start at once (API replicas, workers): on PostgreSQL the migration holds a transaction-level
advisory lock (the key the schema code has always used, so an older replica starting beside a newer one waits
too), and PostgreSQL's DDL is transactional, so the second process finds the first one's work done, or none of
it; on SQLite the store's write transaction (``BEGIN IMMEDIATE``) is the lock.

Changing the schema: edit :mod:`judge.service.db.schema`, then ``python3 -m judge.service.db.migrate "what
changes"`` writes the next revision from the difference (Alembic's autogenerate, against a scratch SQLite
database at head); read it, and make it right for a database that has rows (a backfill, a server default).
tests/service/test_service_migrations.py fails until the revisions make exactly what the schema says.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine

#: Serialises schema changes of processes starting at once (PostgreSQL advisory lock key).
SCHEMA_LOCK = 7305202406
MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the service: the migrations folder inside the package, no ini file."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision the code knows."""
    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert found is not None, "the migrations folder has no revision"
    return found


def current(engine: Engine) -> str | None:
    """The revision the database is at (None: empty, or made before the schema was versioned)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run the revisions the database has not run yet, up to ``revision``, in one transaction under the lock."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SCHEMA_LOCK})
        command.upgrade(alembic_config(conn), revision)


def new_revision(message: str) -> Path:
    """Write the next revision, numbered after the head, from what the schema has and the revisions do not make."""
    number = f"{int(head()) + 1:04d}"
    with tempfile.TemporaryDirectory(prefix="judge-revision-") as scratch:
        engine = create_engine(f"sqlite:///{scratch}/head.sqlite3")
        upgrade(engine)
        with engine.begin() as conn:
            script = command.revision(alembic_config(conn), message=message, autogenerate=True, rev_id=number)
        engine.dispose()
    assert script is not None and not isinstance(script, list)
    return Path(script.path)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python3 -m judge.service.db.migrate",
                                     description="Write the next revision of the service's database from what "
                                                 "judge/service/db/schema.py has and the revisions do not make.")
    parser.add_argument("message", help="what the revision changes, in a few words (also its file name)")
    print(new_revision(parser.parse_args(argv).message))


if __name__ == "__main__":
    main()
