"""The workers' own database role and Redis user (judge/service/worker_role.py, deploy/compose.yaml's redis).

A worker runs learners' code; what a sandbox escape would hold is the worker's logins.  Here, for real: a
PostgreSQL cluster and a redis-server with compose.yaml's Redis users, `judge serve` with the owner's URL and
JUDGE_WORKER_DB_URL (it creates the role and grants it its tables), `judge worker` with only the role's URL and
the judge-worker Redis user.  Grading, heartbeats and a rejudge (graded by the worker, applied by the API) work;
then, as the worker's logins, everything a worker must not do is refused by PostgreSQL and Redis themselves.
"""

from __future__ import annotations

import pytest

from judge.service.worker_role import WORKER_DENIED, WORKER_PRIVILEGES, WorkerRoleError, worker_login
from tests.support.deploy import compose_redis_acl_file
from tests.support.service import (
    SOURCES,
    Redis,
    Server,
    Worker,
    require_sandbox,
    service_env,
    wait_done,
    wait_for,
)

TOKEN = "role-token-5e6f7a8b9c"
WORKER_ROLE, WORKER_PASSWORD = "judge_worker", "wk0role0pw0a1b2"
REDIS_PASSWORDS = {"REDIS_API_PASSWORD": "api0redis0c3d4", "REDIS_WORKER_PASSWORD": "wk0redis0e5f6"}


def test_every_table_of_the_service_is_granted_or_denied_to_workers_by_name():
    """A new table is a decision: in WORKER_PRIVILEGES (with the columns a worker writes) or in WORKER_DENIED."""
    import judge.service.bundle_versions  # noqa: F401 - registers their tables
    import judge.service.claims  # noqa: F401
    import judge.service.lti.tables  # noqa: F401
    import judge.service.rejudge  # noqa: F401
    import judge.service.worker_slots  # noqa: F401
    from judge.service.db.schema import metadata

    assert not set(WORKER_PRIVILEGES) & WORKER_DENIED
    assert set(metadata.tables) == set(WORKER_PRIVILEGES) | WORKER_DENIED, (
        set(metadata.tables) ^ (set(WORKER_PRIVILEGES) | WORKER_DENIED))
    for table, grants in WORKER_PRIVILEGES.items():
        columns = set(metadata.tables[table].columns.keys())
        for grant in grants:
            assert grant.privilege in ("SELECT", "INSERT", "UPDATE", "DELETE"), (table, grant)
            assert set(grant.columns) <= columns, (table, set(grant.columns) - columns)
    # What makes a worker able to redirect a callback, forge a bundle or post a grade is not granted.
    updatable = {c for g in WORKER_PRIVILEGES["judge_submissions"] if g.privilege == "UPDATE" for c in g.columns}
    assert not updatable & {"callback_url", "source", "problem", "problem_digest", "platform", "metadata_json"}
    assert {g.privilege for g in WORKER_PRIVILEGES["judge_bundles"]} == {"SELECT"}
    assert {"judge_lti_sessions", "judge_lti_kv", "judge_lti_scores", "judge_lti_staff"} <= WORKER_DENIED


@pytest.mark.parametrize("owner, worker, says", [
    ("sqlite:///j.db", "sqlite:///j.db", "SQLite has no roles"),
    ("postgresql+psycopg://judge:pw@db/judge", "postgresql+psycopg://judge:pw@db/judge", "own role"),
    ("postgresql+psycopg://judge:pw@db/judge", "postgresql+psycopg://judge_worker@db/judge", "its password"),
    ("postgresql+psycopg://judge:pw@db/judge", "postgresql+psycopg://judge_worker:x@db/other", "'other'"),
])
def test_a_worker_url_that_would_not_separate_the_worker_is_refused_by_name(owner, worker, says):
    with pytest.raises(WorkerRoleError, match="JUDGE_WORKER_DB_URL") as caught:
        worker_login(owner, worker)
    assert says in str(caught.value)


def _as_worker(owner_url: str) -> str:
    return owner_url.replace("postgres@", f"{WORKER_ROLE}:{WORKER_PASSWORD}@", 1)


def _refused(conninfo: str, statement: str) -> str | None:
    """None when PostgreSQL refuses ``statement`` for lack of privilege, else what happened."""
    import psycopg

    with psycopg.connect(conninfo, autocommit=True) as conn:
        try:
            conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege:
            return None
        except psycopg.Error as exc:
            return f"{type(exc).__name__}: {exc}"
    return "it ran"


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def test_a_worker_with_its_own_role_and_redis_user_grades_and_can_do_nothing_else(tmp_path, postgres):
    require_sandbox()
    import redis as redis_client

    owner_db = postgres.new_database()
    worker_db = _as_worker(owner_db)
    broker = Redis(acl=compose_redis_acl_file(REDIS_PASSWORDS))
    api_broker = broker.url.replace("redis://", f"redis://judge-api:{REDIS_PASSWORDS['REDIS_API_PASSWORD']}@")
    worker_broker = broker.url.replace("redis://", f"redis://judge-worker:{REDIS_PASSWORDS['REDIS_WORKER_PASSWORD']}@")
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}", JUDGE_WORKER_DB_URL=worker_db, JUDGE_SWEEP_SECONDS="1",
                      JUDGE_LEARN_CODES="ml101:a-long-course-code",  # the learner side's tables exist too
                      JUDGE_VISIBILITY_TIMEOUT="30", JUDGE_RESTORE_INTERVAL="1")
    worker_env = service_env()  # the worker gets its two URLs on its command line, nothing else
    server = Server(tmp_path, owner_db, env, broker=api_broker, name="serve-role")
    worker = None
    try:
        assert f"workers' database role {WORKER_ROLE}:" in server.output()
        worker = Worker(tmp_path, "role", worker_broker, worker_db, worker_env)

        with server.client(TOKEN) as client:
            ids = [client.post("/v1/submissions", json={"problem": "sinusoidal-pe", "source": SOURCES[kind]})
                   .json()["id"] for kind in ("accepted", "wrong_answer")]
            done = wait_done(client, ids, 120)
            assert [done[i]["verdict"]["status"] for i in ids] == ["accepted", "wrong_answer"]
            # A rejudge that applies itself: the worker grades it, the API (its sweeper) applies it.
            rid = client.post("/v1/rejudges", json={"problem": "sinusoidal-pe", "dry_run": False}).json()["id"]
            view = wait_for(lambda: (lambda v: v if v["state"] == "applied" else None)(
                client.get(f"/v1/rejudges/{rid}").json()), 120, 0.3, "the rejudge applied")
            assert view["graded"] == view["total"] == 2, view
        from judge.service.store import Store
        from judge.service.worker_slots import SlotRegistry

        owner = Store(owner_db)
        assert owner.get(ids[0]).worker == worker.name
        assert SlotRegistry(owner).fleet().workers == 1  # the worker's heartbeat row
        owner.close()
        # A learner-page submission's pictures, stored with the worker's role (draw_pictures' one write).
        from judge.service.lti.tables import LtiStore

        as_worker = Store(worker_db)
        LtiStore(as_worker).save_pictures(ids[1], [])
        assert as_worker.get(ids[0]).source == SOURCES["accepted"]  # it reads what it grades
        # The public phase's verdict: the role may write that column (a refusal would raise here), never on a row
        # that is done.
        assert not as_worker.show_public(ids[0], as_worker.get(ids[0]).attempts, '{"phase": "public"}')
        as_worker.close()

        # Everything else, refused by PostgreSQL itself.
        refused = {statement: _refused(_libpq(worker_db), statement) for statement in (
            "SELECT * FROM judge_lti_sessions",
            "SELECT * FROM judge_lti_kv",
            "SELECT * FROM judge_lti_staff",
            "SELECT * FROM judge_verdict_history",
            "SELECT data FROM judge_lti_pictures",
            ("INSERT INTO judge_lti_scores (submission_id, session, kind, state, attempts) "
             "VALUES ('x', 'y', 'final', 'due', 0)"),
            "INSERT INTO judge_bundles (digest, problem, archive, created_at) VALUES ('d', 'p', 'a', 0)",
            "UPDATE judge_bundles SET archive = 'evil'",
            f"UPDATE judge_submissions SET callback_url = 'http://10.0.0.1/' WHERE id = '{ids[0]}'",
            f"UPDATE judge_submissions SET source = 'print(1)' WHERE id = '{ids[0]}'",
            "DELETE FROM judge_submissions",
            ("INSERT INTO judge_submissions (id, platform, problem, source, state, created_at, attempts, "
             "callback_state, callback_attempts) VALUES ('x', 'lms', 'p', 's', 'queued', 0, 0, 'none', 0)"),
            "UPDATE judge_rejudges SET dry_run = 0",
            "CREATE TABLE judge_mine (i int)",
            "ALTER TABLE judge_submissions ADD COLUMN evil int",
            "DROP TABLE judge_bundles",
            "COPY (SELECT 1) TO PROGRAM 'true'",
            "SET ROLE postgres",
        )}
        assert {s: r for s, r in refused.items() if r is not None} == {}
        # A verdict already given cannot be rewritten (row-level security: the row is not there to update).
        import psycopg

        with psycopg.connect(_libpq(worker_db), autocommit=True) as conn:
            forged = conn.execute("UPDATE judge_submissions SET status = 'accepted', verdict_json = '{}' "
                                  f"WHERE id = '{ids[1]}'")
            assert forged.rowcount == 0
        with psycopg.connect(_libpq(owner_db), autocommit=True) as conn:
            assert conn.execute(f"SELECT status FROM judge_submissions WHERE id = '{ids[1]}'").fetchone() == (
                "wrong_answer",)
        # ... and by Redis: no admin command, no key but the queue's.
        as_worker_redis = redis_client.Redis.from_url(worker_broker)
        anonymous = redis_client.Redis.from_url(broker.url)
        try:
            assert as_worker_redis.llen("judge") == 0
            for attempt in (lambda: as_worker_redis.config_get("dir"),
                            lambda: as_worker_redis.set("judge:sweeper", "x"),
                            lambda: as_worker_redis.get("another-app:session"), lambda: as_worker_redis.flushall(),
                            lambda: as_worker_redis.execute_command("MONITOR"), lambda: anonymous.lpush("judge", "x"),
                            lambda: anonymous.llen("judge")):
                with pytest.raises(redis_client.exceptions.NoPermissionError):
                    attempt()
        finally:
            as_worker_redis.close()
            anonymous.close()
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
        broker.stop()


def test_a_worker_role_with_powers_is_refused_at_start_up(tmp_path, postgres):
    """A role that could do more than log in (here SUPERUSER, made by hand) is not used: `judge serve` stops with
    one line naming the setting, and no grant is made."""
    import psycopg

    owner_db = postgres.new_database()
    with psycopg.connect(_libpq(owner_db), autocommit=True) as conn:
        conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'judge_mighty') THEN "
                     "CREATE ROLE judge_mighty LOGIN SUPERUSER; END IF; END $$")
    env = service_env(JUDGE_API_TOKENS=f"lms:{TOKEN}",
                      JUDGE_WORKER_DB_URL=owner_db.replace("postgres@", "judge_mighty:pw@", 1))
    with pytest.raises(AssertionError, match="exited") as caught:
        Server(tmp_path, owner_db, env, name="serve-mighty")
    message = str(caught.value)
    assert "JUDGE_WORKER_DB_URL: role 'judge_mighty' has SUPER" in message and "Traceback" not in message
