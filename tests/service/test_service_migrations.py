"""The service's migrations (Alembic), on SQLite and on a real PostgreSQL: from an empty database, from one made
before the schema was versioned (as the schema code of the last unversioned release made it, and as an older
release made it, without the columns added since), and with two processes starting at once.

The databases from before versioning are made from the DDL that release's ``metadata.create_all`` emitted,
captured in ``tests/data/service_schema_before_alembic.<dialect>.sql`` (compiled from the code just before the
migrations replaced it): a fixed file, so the test keeps checking that state after the code has moved on,
which running today's code could not.  The older release's database is that DDL without the columns added by
hand at start-up back then.  After each upgrade the database is compared with the code's schema by Alembic's
own comparison (tables, columns, types, nullability, indexes, unique constraints): any difference fails."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judge.service.db import migrate
from judge.service.db.schema import metadata
from judge.service.store import Store
from tests.support.tiers import needs

DATA = Path(__file__).resolve().parents[1] / "data"
#: Columns an older release's tables lacked; the first revision adds them (they were added by hand before).
ADDED_LATER = {"problem_digest", "tenant", "verdict_version", "callback_version", "score_rule"}


@pytest.fixture(params=["sqlite", "postgresql"])
@needs("service", only_for="postgresql", among=("sqlite", "postgresql"))
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/store.sqlite3"
    return request.getfixturevalue("postgres").new_database()


def _differences(store: Store) -> list:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with store.engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), metadata)


def _unversioned(store: Store, older: bool) -> None:
    """The schema as the release before versioning made it (``older``: as a release before the later columns)."""
    sql = (DATA / f"service_schema_before_alembic.{store.dialect}.sql").read_text()
    statements = [s for s in sql.split("\n;\n") if s.strip() and not s.lstrip().startswith("--")]
    with store.engine.begin() as conn:
        for statement in statements:
            if older:
                statement = "\n".join(line for line in statement.splitlines()
                                      if line.strip().split(" ")[0] not in ADDED_LATER)
            conn.exec_driver_sql(statement)


def test_an_empty_database_is_brought_to_the_codes_schema(url):
    store = Store(url)
    try:
        assert migrate.current(store.engine) is None
        store.create_schema()
        assert migrate.current(store.engine) == migrate.head()
        assert _differences(store) == []
        store.create_schema()  # the next start: nothing to do
        assert migrate.current(store.engine) == migrate.head()
    finally:
        store.close()


@pytest.mark.parametrize("older", [False, True], ids=["last-unversioned", "older-without-later-columns"])
def test_a_database_from_before_versioning_is_brought_to_head_with_its_rows(url, older):
    store = Store(url)
    try:
        _unversioned(store, older)
        with store.engine.begin() as conn:  # a judged submission and a queued one, as that release stored them
            for sub_id, state in (("judged", "done"), ("waiting", "queued")):
                conn.exec_driver_sql(
                    "INSERT INTO judge_submissions (id, platform, problem, source, state, created_at, attempts,"
                    f" callback_state, callback_attempts) VALUES ('{sub_id}', 'lms', 'p', 's', '{state}', 1.0, 1,"
                    " 'none', 0)")
        assert migrate.current(store.engine) is None
        store.create_schema()
        assert migrate.current(store.engine) == migrate.head()
        assert _differences(store) == []
        judged, waiting = store.get("judged"), store.get("waiting")
        assert judged is not None and waiting is not None
        # a verdict stored before versions were counted is the first (a rejudge's is then the second); on the
        # last unversioned release the column existed and its value is left alone
        assert (judged.verdict_version, waiting.verdict_version) == ((1, 0) if older else (0, 0))
        store.create_schema()  # the next start: the backfill does not run again
        assert store.get("judged").verdict_version == (1 if older else 0)
    finally:
        store.close()


_START = """
import sys, time
from judge.service.store import Store
start = float(sys.argv[2])
time.sleep(max(0.0, start - time.time()))
store = Store(sys.argv[1])
store.create_schema()
store.close()
"""


@pytest.mark.parametrize("older", [False, True], ids=["empty", "unversioned"])
def test_two_processes_starting_at_once_both_start(url, older):
    """API replicas and workers start together in a deploy: both bring the schema up (one waits for the other's
    migration and finds it done), neither fails."""
    if older:
        store = Store(url)
        _unversioned(store, older=True)
        store.close()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                        os.environ.get("PYTHONPATH", "")])}
    start = time.time() + 3  # both past their imports, then both at once
    procs = [subprocess.Popen([sys.executable, "-c", _START, url, str(start)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0].decode() for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    store = Store(url)
    try:
        assert migrate.current(store.engine) == migrate.head()
        assert _differences(store) == []
    finally:
        store.close()
