"""The database role ``judge worker`` logs in as: what it may touch, and how the API sets it up.

Why a role of its own: a worker runs learners' code, so a sandbox escape gives an attacker the worker's
process and whatever it holds.  With the owner's URL that is every table (the LTI sessions with their CSRF
tokens, pylti1p3's launch data, the gradebook's score queue), the schema itself, and the stored bundle versions
every worker unpacks and grades with.  A worker needs far less: claim a submission and store its verdict,
read bundle versions, beat into the fleet table, keep a learner's pictures, grade a rejudge's items.
:data:`WORKER_PRIVILEGES` is that list, table by table and column by column; every other table of the
service is denied (:data:`WORKER_DENIED` names them, so that a new table is a decision, not an accident:
tests/service/test_worker_role.py fails on a table in neither).

Why the API sets it up, at each start, after it creates the tables: table grants need the tables, and the
API creates them from the code's own schema; an init script of the database image would have to repeat that
schema in SQL, and it runs only on an empty volume, so a deployment upgraded in place would never get the
role.  The API holds the owner's URL anyway; given the workers' URL (``JUDGE_WORKER_DB_URL``) it creates
that role or updates its password, refuses one with powers beyond logging in, revokes everything on the
service's tables and grants exactly this list; on the submissions, row-level security lets it update only those
without a final verdict (:data:`WORKER_UPDATABLE_ROWS`).  Without the setting nothing happens: one URL for
everything, as on one machine.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError

from judge.service.db.schema import metadata
from judge.service.settings import SettingsError
from judge.service.store import Store

log = logging.getLogger("judge.service")

#: Serialises set-ups of several API replicas starting at once (create_schema's lock is 7305202406).
_LOCK = 7305202407


@dataclass(frozen=True)
class Grant:
    """One privilege on one table, on some of its columns (``columns``) or on all of them."""

    privilege: str  #: SELECT, INSERT, UPDATE or DELETE
    columns: tuple[str, ...] = ()


#: What a worker does with each table it touches (judge/service/celery_app.py ``run_worker`` and what it calls).
WORKER_PRIVILEGES: dict[str, tuple[Grant, ...]] = {
    # Store.claim reads the row (source, problem, digest, attempts) and marks it running; Store.finish stores the
    # verdict (its CASE reads callback_url to make the callback due); Store.pending_count (rejudges yield to it);
    # Store.show_public keeps the public cases' verdict while the hidden ones run.
    "judge_submissions": (
        Grant("SELECT"),
        Grant("UPDATE", ("state", "started_at", "attempts", "worker", "status", "verdict_json", "finished_at",
                         "callback_state", "callback_next_at", "verdict_version", "public_verdict_json")),
    ),
    # Claims: each copy of a job opens a claim, beats while it runs and closes it; only claims that stopped
    # beating count as failed attempts (judge.service.claims).
    "judge_claims": (Grant("SELECT"), Grant("INSERT"), Grant("UPDATE"), Grant("DELETE")),
    # BundleVersions.root_for: the version a submission was accepted under.  Read only: a worker that could
    # write here could hand every other worker a bundle of its choosing.
    "judge_bundles": (Grant("SELECT"),),
    # Heartbeat: a worker's own row (insert, update, delete on leaving).
    "judge_worker_slots": (Grant("SELECT"), Grant("INSERT"), Grant("UPDATE"), Grant("DELETE")),
    # The rejudge task: reads the rejudge and its items (joined to the submissions' sources), marks it running
    # and finished, records each item's new verdict.  Applying is the API's (history, callbacks, gradebook).
    "judge_rejudges": (Grant("SELECT"), Grant("UPDATE", ("state", "started_at", "finished_at"))),
    "judge_rejudge_items": (Grant("SELECT"), Grant("UPDATE", ("new_status", "new_score", "new_verdict_json"))),
    # draw_pictures: replaces a learner-page submission's pictures (DELETE ... WHERE reads the key columns;
    # the pictures themselves are not readable).
    "judge_lti_pictures": (Grant("SELECT", ("submission_id", "name")), Grant("INSERT"), Grant("DELETE")),
}

#: Rows a worker may change, beyond the columns: a submission only while it has no final verdict (claim and finish
#: both say ``state != 'done'``), so a worker cannot rewrite a verdict already given, and the API, which owns
#: the table, is not bound by it.  Row-level security, the table's owner exempt.
WORKER_UPDATABLE_ROWS: dict[str, str] = {"judge_submissions": "state <> 'done'"}

#: The service's tables a worker never touches (the API's and the learner side's).
WORKER_DENIED: frozenset[str] = frozenset({
    "judge_verdict_history",  # written when the API applies a rejudge
    "judge_lti_kv",           # pylti1p3's nonces, states and launch data
    "judge_lti_sessions",     # learner sessions: cookie hashes, CSRF tokens, AGS endpoints
    "judge_lti_owned",        # who made which submission
    "judge_lti_scores",       # the gradebook's queue (a row there is a grade the API posts)
    "judge_lti_staff",        # teachers' sessions and their courses
    "judge_learn_learners",   # /learn identities: names and personal codes' hashes
})


class WorkerRoleError(SettingsError):
    """The workers' role cannot be set up as configured; the message says why and what to change."""


@dataclass(frozen=True)
class WorkerLogin:
    role: str
    password: str


def worker_login(owner_url: str, worker_url: str) -> WorkerLogin:
    """The role and password of ``JUDGE_WORKER_DB_URL``, checked against the API's own ``JUDGE_DB_URL``."""
    owner, worker = make_url(owner_url), make_url(worker_url)
    if owner.get_backend_name() != "postgresql" or worker.get_backend_name() != "postgresql":
        raise WorkerRoleError("JUDGE_WORKER_DB_URL: a role of its own for the workers needs PostgreSQL in both "
                              "JUDGE_DB_URL and JUDGE_WORKER_DB_URL (SQLite has no roles)")
    if not worker.username or not worker.password:
        raise WorkerRoleError("JUDGE_WORKER_DB_URL: give the workers' role and its password "
                              "(postgresql+psycopg://ROLE:PASSWORD@HOST/DB)")
    if worker.username == owner.username:
        raise WorkerRoleError(f"JUDGE_WORKER_DB_URL: role {worker.username!r} is JUDGE_DB_URL's own role; "
                              "the workers need a role of their own")
    if worker.database != owner.database:
        raise WorkerRoleError(f"JUDGE_WORKER_DB_URL names database {worker.database!r}, JUDGE_DB_URL "
                              f"{owner.database!r}: the workers must use the API's database")
    return WorkerLogin(worker.username, worker.password)


def set_up_worker_role(store: Store, worker_url: str) -> list[str]:
    """Create or update the workers' role and give it :data:`WORKER_PRIVILEGES` on the tables that exist (the
    learner side's only when it is on), nothing else on the service's tables.  Call it after
    ``store.create_schema()``.  Returns the tables granted.  Raises :class:`WorkerRoleError`."""
    from psycopg import sql

    login = worker_login(store.url, worker_url)
    role = sql.Identifier(login.role)
    try:
        with store.engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]  # an open connection's
            _create_or_update(conn, cursor, login, role)
            ours = set(metadata.tables) | set(WORKER_PRIVILEGES) | WORKER_DENIED
            present = set(inspect(conn).get_table_names()) & ours
            granted = sorted(present & set(WORKER_PRIVILEGES))
            for table in sorted(present):
                cursor.execute(sql.SQL("REVOKE ALL ON TABLE {} FROM {}").format(sql.Identifier(table), role))
            for table in granted:
                for grant in WORKER_PRIVILEGES[table]:
                    columns = (sql.SQL(" ({})").format(sql.SQL(", ").join(map(sql.Identifier, grant.columns)))
                               if grant.columns else sql.SQL(""))
                    cursor.execute(sql.SQL("GRANT {}{} ON TABLE {} TO {}").format(
                        sql.SQL(grant.privilege), columns, sql.Identifier(table), role))
            for table in sorted(present & set(WORKER_UPDATABLE_ROWS)):
                _row_policies(cursor, table, login.role, WORKER_UPDATABLE_ROWS[table])
            _no_create_in_schema(conn, login.role)
    except DBAPIError as exc:
        raise WorkerRoleError(f"JUDGE_WORKER_DB_URL: could not set up role {login.role!r} with JUDGE_DB_URL's "
                              f"role ({type(exc.orig).__name__}: {str(exc.orig).strip()}); that role needs "
                              "CREATEROLE (or create the role yourself) and must own the service's tables") from None
    log.info("workers' database role %s: %s", login.role,
             ", ".join(f"{t} ({', '.join(g.privilege for g in WORKER_PRIVILEGES[t])})" for t in granted))
    return granted


_POWERS = ("rolsuper", "rolcreaterole", "rolcreatedb", "rolreplication", "rolbypassrls")


def _create_or_update(conn: Connection, cursor, login: WorkerLogin, role) -> None:  # noqa: ANN001
    from psycopg import sql

    row = conn.execute(text(f"SELECT {', '.join(_POWERS)} FROM pg_roles WHERE rolname = :n"),
                       {"n": login.role}).first()
    password = sql.Literal(login.password)
    if row is None:
        cursor.execute(sql.SQL("CREATE ROLE {} LOGIN NOINHERIT PASSWORD {}").format(role, password))
        log.info("created the workers' database role %s", login.role)
        return
    powers = [name[3:] for name, value in zip(_POWERS, row) if value]
    if powers:
        raise WorkerRoleError(f"JUDGE_WORKER_DB_URL: role {login.role!r} has {', '.join(powers).upper()}; the "
                              "workers need a role that can only log in (drop it, or name another)")
    if conn.execute(text("SELECT pg_has_role(:n, current_user, 'MEMBER')"), {"n": login.role}).scalar_one():
        raise WorkerRoleError(f"JUDGE_WORKER_DB_URL: role {login.role!r} is a member of JUDGE_DB_URL's role and "
                              "would hold all its rights; name a role of its own")
    cursor.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(role, password))


def _row_policies(cursor, table: str, role: str, updatable: str) -> None:  # noqa: ANN001 - a psycopg cursor
    """Row-level security on ``table`` for ``role``: it reads every row and updates the rows ``updatable`` says
    (the new row may be anything: storing a verdict makes it final)."""
    from psycopg import sql

    ident, who = sql.Identifier(table), sql.Identifier(role)
    reads, updates = sql.Identifier(f"{role}_reads"), sql.Identifier(f"{role}_updates")
    cursor.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(ident))
    for policy in (reads, updates):
        cursor.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(policy, ident))
    cursor.execute(sql.SQL("CREATE POLICY {} ON {} FOR SELECT TO {} USING (true)").format(reads, ident, who))
    cursor.execute(sql.SQL("CREATE POLICY {} ON {} FOR UPDATE TO {} USING ({}) WITH CHECK (true)").format(
        updates, ident, who, sql.SQL(updatable)))


def _no_create_in_schema(conn: Connection, role: str) -> None:
    """No new objects in the service's schema: a worker's function there could shadow one the API calls.
    PostgreSQL 15+ gives PUBLIC no CREATE on ``public``; an older database is told so here."""
    from psycopg import sql

    can = "SELECT has_schema_privilege(:r, current_schema(), 'CREATE')"
    if not conn.execute(text(can), {"r": role}).scalar_one():
        return
    schema = conn.execute(text("SELECT current_schema()")).scalar_one()
    try:
        with conn.begin_nested():
            cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]  # an open connection's
            cursor.execute(sql.SQL("REVOKE CREATE ON SCHEMA {} FROM PUBLIC").format(sql.Identifier(schema)))
    except DBAPIError as exc:
        log.warning("role %s may create objects in schema %s and this role cannot revoke it (%s)", role, schema,
                    type(exc.orig).__name__)
        return
    if conn.execute(text(can), {"r": role}).scalar_one():
        log.warning("role %s may still create objects in schema %s (granted to it or a role it is in)", role,
                    schema)
