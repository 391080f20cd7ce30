"""The submission store: the submissions table (judge.service.db), SQLite by default, PostgreSQL when shared.

Every state change is a single conditional UPDATE, so concurrent servers and
workers cannot fight: a submission is claimed only while not done, and its
verdict is stored only ``WHERE state != 'done'`` - the first verdict wins and
any later one (a redelivered task, a worker that came back) is discarded.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Float,
    case,
    cast,
    create_engine,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DisconnectionError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from judge.service.db.schema import submissions

if TYPE_CHECKING:
    from collections.abc import Mapping

QUEUED, RUNNING, DONE = "queued", "running", "done"
#: What the database driver raises while the store is away (a restart, a partition): callers wait and try again
#: (workers, the dispatchers) or answer 503 (the API), never treat it as a bug.
STORE_AWAY = (OperationalError, InterfaceError, DisconnectionError, PoolTimeout)
PENDING_STATES = (QUEUED, RUNNING)
LATENCY_BUCKETS = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)

_FIELDS = tuple(c.name for c in submissions.columns)


@dataclass(frozen=True)
class StoredSubmission:
    """One stored submission, as the store returns it (a row of ``judge_submissions``)."""

    id: str
    platform: str
    problem: str
    source: str
    state: str  #: queued, running or done
    created_at: float
    problem_digest: str | None = None  #: the bundle version the submission was accepted under
    attempts: int = 0
    callback_state: str = "none"  #: none, waiting, pending, delivered or failed
    callback_attempts: int = 0
    callback_url: str | None = None
    metadata_json: str | None = None
    idempotency_key: str | None = None
    request_hash: str | None = None
    status: str | None = None
    verdict_json: str | None = None
    #: the public cases' verdict while the hidden ones run (shown only while ``state`` is running)
    public_verdict_json: str | None = None
    enqueued_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    worker: str | None = None
    callback_next_at: float | None = None
    callback_error: str | None = None
    tenant: str | None = None
    verdict_version: int = 0  #: 0 until judged, 1 for the first verdict, +1 for each rejudge applied
    callback_version: int | None = None

    @classmethod
    def of(cls, row: Mapping) -> StoredSubmission:
        """From a row mapping (SQLAlchemy's, or the dict a new row was inserted from)."""
        return cls(**{f: row[f] for f in _FIELDS})


@dataclass(frozen=True)
class PageQuery:
    """What a page of a platform's submissions holds: the filters, where it starts, how many rows."""

    limit: int
    problem: str | None = None
    learner: str | None = None      #: ``metadata.learner``, as the platform sent it
    since: float | None = None      #: created at or after (epoch seconds)
    after: tuple[float, str] | None = None  #: the (created_at, id) of the previous page's last row


@dataclass(frozen=True)
class Listed:
    """A submission as a listing shows it: its state and outcome, not its source or whole verdict."""

    id: str
    state: str
    problem: str
    created_at: float
    finished_at: float | None
    status: str | None
    metadata_json: str | None
    score: float | None


@dataclass(frozen=True)
class DueCallback:
    id: str
    callback_attempts: int


class QueueFull(Exception):
    def __init__(self, pending: int, limit: int) -> None:
        super().__init__(f"{pending} submissions are waiting (limit {limit}); retry later")


class TenantQueueFull(Exception):
    """One tenant has as many submissions waiting as it may: its own limit, nobody else's."""

    def __init__(self, tenant: str, pending: int, limit: int) -> None:
        super().__init__(f"{pending} of your submissions are waiting (limit {limit} per tenant); retry later")
        self.tenant = tenant


class IdempotencyConflict(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(f"Idempotency-Key {key!r} was already used for a different request")


@dataclass
class NewSubmission:
    platform: str
    problem: str
    source: str
    callback_url: str | None = None
    metadata: dict | None = None
    idempotency_key: str | None = None
    problem_digest: str | None = None  # not part of the fingerprint: a replay is the same request
    tenant: str | None = None  # whose pending limit it counts in (default: its platform)

    def fingerprint(self) -> str:
        body = json.dumps([self.problem, self.source, self.callback_url, self.metadata], sort_keys=True)
        return hashlib.sha256(body.encode()).hexdigest()


#: How many times a process starting beside another tries to bring an SQLite schema up (see create_schema).
_SCHEMA_ATTEMPTS = 8


def _sqlite_engine(url: str) -> tuple[Engine, Engine]:
    """Two engines on one file: writes take the lock up front (BEGIN IMMEDIATE), reads don't."""
    parsed = make_url(url)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)

    def make(begin: str) -> Engine:
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 60},
                               pool_size=8, max_overflow=32)

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn, _record) -> None:  # noqa: ANN001
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=60000")
            cur.execute("PRAGMA synchronous=FULL")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn) -> None:  # noqa: ANN001
            conn.exec_driver_sql(begin)

        return engine

    return make("BEGIN IMMEDIATE"), make("BEGIN")


class Store:
    def __init__(self, url: str) -> None:
        self.url = url
        self.dialect = make_url(url).get_backend_name()
        if self.dialect == "sqlite":
            self.engine, self.read_engine = _sqlite_engine(url)
        else:
            # pre-ping: a connection from before a database restart is replaced, not handed out broken;
            # connect_timeout: an unreachable database is an error in seconds (a 503), not a hung request
            self.engine = create_engine(url, pool_size=10, max_overflow=30, pool_pre_ping=True, pool_timeout=10,
                                        connect_args={"connect_timeout": 5})
            self.read_engine = self.engine
        self.t = submissions

    # -- schema and lifecycle -------------------------------------------------
    def create_schema(self) -> None:
        """Bring the database to the newest schema (Alembic's ``upgrade head``, :mod:`judge.service.db.migrate`):
        an empty one gets every table, one made before a change gets the change, one already there is left as
        it is.  Several processes may call it at once."""
        from judge.service.db.migrate import upgrade

        for attempt in range(1, _SCHEMA_ATTEMPTS + 1):
            try:
                upgrade(self.engine)
                return
            except OperationalError as exc:
                # SQLite: two processes opening a new file at once can meet in a lock upgrade SQLite refuses at
                # once instead of waiting (one sets WAL mode while the other commits): the one refused tries again
                if self.dialect != "sqlite" or "locked" not in str(exc) or attempt == _SCHEMA_ATTEMPTS:
                    raise
                self.engine.dispose()
                time.sleep(0.25 * attempt)

    def close(self) -> None:
        self.engine.dispose()
        if self.read_engine is not self.engine:
            self.read_engine.dispose()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.read_engine.connect() as conn:
            yield conn
            conn.rollback()

    def ping(self) -> None:
        with self._read() as conn:
            conn.execute(text("SELECT 1"))

    # -- creating ---------------------------------------------------------------
    def create(self, items: list[NewSubmission], max_pending: int,
               max_per_tenant: int | None = None) -> list[tuple[StoredSubmission, bool]]:
        """Store new submissions atomically; returns ``(row, replayed)`` per item.

        An item whose ``(platform, idempotency_key)`` exists returns the stored
        submission (``replayed``), or raises :class:`IdempotencyConflict` when the
        request differs.  Raises :class:`TenantQueueFull` when the new ones would give their tenant more than
        ``max_per_tenant`` pending, or :class:`QueueFull` when they would exceed ``max_pending`` in all -
        nothing is stored then.
        """
        for attempt in range(3):
            try:
                return self._create(items, max_pending, max_per_tenant)
            except IntegrityError:  # a concurrent request with the same key won the race
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _create(self, items: list[NewSubmission], max_pending: int,
                max_per_tenant: int | None) -> list[tuple[StoredSubmission, bool]]:
        t = self.t
        now = time.time()
        out: list[tuple[StoredSubmission, bool] | None] = [None] * len(items)
        new_rows: list[tuple[int, dict]] = []
        with self._write() as conn:
            for i, item in enumerate(items):
                if item.idempotency_key is not None:
                    found = (
                        conn.execute(
                            select(t).where(t.c.platform == item.platform, t.c.idempotency_key == item.idempotency_key)
                        )
                        .mappings()
                        .first()
                    )
                    if found is not None:
                        if found["request_hash"] != item.fingerprint():
                            raise IdempotencyConflict(item.idempotency_key)
                        out[i] = (StoredSubmission.of(found), True)
                        continue
                new_rows.append((i, {
                    "id": uuid.uuid4().hex, "platform": item.platform, "problem": item.problem,
                    "problem_digest": item.problem_digest,
                    "source": item.source, "callback_url": item.callback_url,
                    "metadata_json": json.dumps(item.metadata) if item.metadata is not None else None,
                    "idempotency_key": item.idempotency_key, "request_hash": item.fingerprint(),
                    "state": QUEUED, "status": None, "verdict_json": None, "public_verdict_json": None,
                    "created_at": now + i * 1e-6,  # keeps a batch in order
                    "enqueued_at": None, "started_at": None, "finished_at": None, "attempts": 0, "worker": None,
                    "callback_state": "waiting" if item.callback_url else "none", "callback_attempts": 0,
                    "callback_next_at": None, "callback_error": None,
                    "tenant": (item.tenant or item.platform)[:80], "verdict_version": 0, "callback_version": None,
                }))
            if new_rows:
                pending = conn.execute(select(func.count()).select_from(t)
                                       .where(t.c.state.in_(PENDING_STATES))).scalar_one()
                if pending + len(new_rows) > max_pending:
                    raise QueueFull(pending, max_pending)
                if max_per_tenant is not None:  # room in the queue, but maybe not in this tenant's share
                    self._check_tenants(conn, [row for _, row in new_rows], max_per_tenant)
                conn.execute(t.insert(), [row for _, row in new_rows])
        for i, row in new_rows:
            out[i] = (StoredSubmission.of(row), False)
        return out  # type: ignore[return-value]

    def _check_tenants(self, conn: Connection, rows: list[dict], limit: int) -> None:
        """Each tenant's own limit: one tenant's burst is refused before it can fill the shared queue."""
        t = self.t
        wanted: dict[str, int] = {}
        for row in rows:
            wanted[row["tenant"]] = wanted.get(row["tenant"], 0) + 1
        for tenant, n in wanted.items():
            pending = conn.execute(select(func.count()).select_from(t)
                                   .where(t.c.state.in_(PENDING_STATES), t.c.tenant == tenant)).scalar_one()
            if pending + n > limit:
                raise TenantQueueFull(tenant, pending, limit)

    # -- reading ----------------------------------------------------------------
    def get(self, sub_id: str, platform: str | None = None) -> StoredSubmission | None:
        t = self.t
        query = select(t).where(t.c.id == sub_id)
        if platform is not None:
            query = query.where(t.c.platform == platform)
        with self._read() as conn:
            row = conn.execute(query).mappings().first()
        return StoredSubmission.of(row) if row is not None else None

    def page(self, platform: str, query: PageQuery) -> list[Listed]:
        """One page of ``platform``'s submissions, newest first: at most ``query.limit`` rows after
        ``query.after`` in (created_at, id) order (keyset pagination: an index seek, however deep the page, and a
        row stored meanwhile never shifts a page).  ``platform`` is always a condition: a position from anywhere
        can only move through the caller's own rows."""
        t = self.t
        cols = [t.c.id, t.c.state, t.c.problem, t.c.created_at, t.c.finished_at, t.c.status, t.c.metadata_json,
                self._json_number(t.c.verdict_json, "score").label("score")]
        where = [t.c.platform == platform]
        if query.problem is not None:
            where.append(t.c.problem == query.problem)
        if query.since is not None:
            where.append(t.c.created_at >= query.since)
        if query.learner is not None:
            where.append(self._json_text_is(t.c.metadata_json, "learner", query.learner))
        if query.after is not None:
            at, sub_id = query.after
            where.append((t.c.created_at < at) | ((t.c.created_at == at) & (t.c.id < sub_id)))
        with self._read() as conn:
            rows = conn.execute(select(*cols).where(*where).order_by(t.c.created_at.desc(), t.c.id.desc())
                                .limit(query.limit)).mappings().all()
        return [Listed(**dict(r)) for r in rows]

    def _json_text_is(self, column: Any, key: str, value: str) -> Any:
        """``column``'s JSON object has the string ``value`` at ``key`` (a number 5 is not the string "5", on
        either database).  Rows the API stored hold ``json.dumps`` output or NULL, so the JSON always parses."""
        if self.dialect == "sqlite":
            return (func.json_type(column, f"$.{key}") == "text") & (func.json_extract(column, f"$.{key}") == value)
        doc = cast(column, JSONB)
        return (func.jsonb_typeof(doc[key]) == "string") & (doc[key].astext == value)

    def _json_number(self, column: Any, key: str) -> Any:
        """The number at ``key`` of ``column``'s JSON object (NULL when absent): the score, without reading the
        whole verdict into the process for each listed row."""
        if self.dialect == "sqlite":
            return func.json_extract(column, f"$.{key}")
        return cast(cast(column, JSONB)[key].astext, Float)

    def get_many(self, ids: list[str]) -> dict[str, StoredSubmission]:
        t = self.t
        with self._read() as conn:
            rows = conn.execute(select(t).where(t.c.id.in_(ids))).mappings().all()
        return {r["id"]: StoredSubmission.of(r) for r in rows}

    def pending_ids(self) -> list[str]:
        """Submissions accepted but without a verdict, oldest first (judged again after a restart)."""
        t = self.t
        with self._read() as conn:
            return list(conn.execute(select(t.c.id).where(t.c.state.in_(PENDING_STATES))
                                     .order_by(t.c.created_at, t.c.id)).scalars())

    def unpublished_ids(self, older_than: float) -> list[str]:
        """Queued submissions never handed to the broker (a server that died between store and publish)."""
        t = self.t
        with self._read() as conn:
            return list(conn.execute(select(t.c.id).where(t.c.state == QUEUED, t.c.enqueued_at.is_(None),
                                                          t.c.created_at < older_than)
                                     .order_by(t.c.created_at)).scalars())

    def mark_enqueued(self, ids: list[str]) -> None:
        if not ids:
            return
        with self._write() as conn:
            conn.execute(update(self.t).where(self.t.c.id.in_(ids)).values(enqueued_at=time.time()))

    # -- judging ----------------------------------------------------------------
    def claim(self, sub_id: str, worker: str) -> StoredSubmission | None:
        """Mark a submission running for ``worker``; None when it is done already (or unknown)."""
        t = self.t
        with self._write() as conn:
            result = conn.execute(update(t).where(t.c.id == sub_id, t.c.state != DONE)
                                  .values(state=RUNNING, started_at=time.time(), attempts=t.c.attempts + 1,
                                          worker=worker[:255], public_verdict_json=None))
            if result.rowcount != 1:
                return None
            row = conn.execute(select(t).where(t.c.id == sub_id)).mappings().first()
        return StoredSubmission.of(row) if row is not None else None

    def finish(self, sub_id: str, verdict_json: str, status: str) -> bool:
        """Store the verdict unless one is stored already; True when this call stored it."""
        t = self.t
        now = time.time()
        with self._write() as conn:
            result = conn.execute(
                update(t).where(t.c.id == sub_id, t.c.state != DONE)
                .values(state=DONE, verdict_json=verdict_json, public_verdict_json=None, status=status,
                        finished_at=now,
                        verdict_version=t.c.verdict_version + 1,
                        callback_state=case((t.c.callback_url.is_not(None), "pending"), else_="none"),
                        callback_next_at=now))
            return result.rowcount == 1

    def show_public(self, sub_id: str, attempt: int, verdict_json: str) -> bool:
        """Keep the public cases' verdict of attempt ``attempt`` while it runs; True when kept.  Only the attempt
        that claimed the row last, and only while it is running: an older copy of a retried job, or a verdict
        already stored, is never covered by it."""
        t = self.t
        with self._write() as conn:
            result = conn.execute(update(t).where(t.c.id == sub_id, t.c.state == RUNNING, t.c.attempts == attempt)
                                  .values(public_verdict_json=verdict_json))
            return result.rowcount == 1

    # -- callbacks ----------------------------------------------------------------
    def due_callbacks(self, now: float, limit: int = 16) -> list[DueCallback]:
        t = self.t
        with self._read() as conn:
            rows = conn.execute(select(t.c.id, t.c.callback_attempts).where(
                t.c.callback_state == "pending", t.c.callback_next_at <= now)
                .order_by(t.c.callback_next_at).limit(limit)).mappings().all()
        return [DueCallback(r["id"], r["callback_attempts"]) for r in rows]

    def claim_callback(self, sub_id: str, seen_attempts: int, lease_until: float) -> bool:
        """Take one delivery attempt; the lease makes it due again if this process dies mid-delivery.  The
        delivery is marked in flight (``callback_version``): a verdict replaced meanwhile waits for it to end."""
        t = self.t
        with self._write() as conn:
            result = conn.execute(update(t).where(t.c.id == sub_id, t.c.callback_state == "pending",
                                                  t.c.callback_attempts == seen_attempts)
                                  .values(callback_attempts=seen_attempts + 1, callback_next_at=lease_until,
                                          callback_version=t.c.verdict_version))
            return result.rowcount == 1

    def callback_result(self, sub_id: str, delivered: bool, error: str | None, next_at: float | None,
                        version: int | None = None) -> None:
        """The outcome of delivering verdict ``version``.  When a newer verdict was stored meanwhile (a rejudge
        applied while this delivery was in flight), the outcome is not the newer one's: that one stays due,
        now, so it is sent after this one and never marked delivered unsent."""
        t = self.t
        state = "delivered" if delivered else ("pending" if next_at is not None else "failed")
        values = {"callback_state": state, "callback_error": (error or None) and error[:2000],
                  "callback_next_at": next_at, "callback_version": None}
        with self._write() as conn:
            query = update(t).where(t.c.id == sub_id)
            if version is None:
                conn.execute(query.values(**values))
                return
            if conn.execute(query.where(t.c.verdict_version == version).values(**values)).rowcount == 0:
                conn.execute(update(t).where(t.c.id == sub_id, t.c.callback_state == "pending")
                             .values(callback_version=None, callback_next_at=time.time()))

    # -- metrics ----------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Queue depth, verdicts by status, callback states and the latency histogram, from the table."""
        t = self.t
        latency = t.c.finished_at - t.c.created_at
        with self._read() as conn:
            states: dict[str, int] = dict(conn.execute(select(t.c.state, func.count()).group_by(t.c.state)).all())
            statuses: dict[str, int] = dict(conn.execute(select(t.c.status, func.count()).where(t.c.state == DONE)
                                                         .group_by(t.c.status)).all())
            callbacks: dict[str, int] = dict(conn.execute(select(t.c.callback_state, func.count())
                                                          .group_by(t.c.callback_state)).all())
            cols = [func.count(), func.coalesce(func.sum(latency), 0.0)]
            cols += [func.coalesce(func.sum(case((latency <= b, 1), else_=0)), 0) for b in LATENCY_BUCKETS]
            row = conn.execute(select(*cols).where(t.c.state == DONE)).one()
        return {"states": {s: int(states.get(s, 0)) for s in (QUEUED, RUNNING, DONE)},
                "statuses": {k: int(v) for k, v in statuses.items() if k},
                "callbacks": {k: int(v) for k, v in callbacks.items() if k},
                "latency": {"count": int(row[0]), "sum": float(row[1]),
                            "buckets": [(b, int(n)) for b, n in zip(LATENCY_BUCKETS, row[2:])]}}

    def oldest_queued_age(self, now: float) -> float:
        """Seconds the oldest queued submission has waited (0 when none waits): what an autoscaler watches."""
        t = self.t
        with self._read() as conn:
            oldest = conn.execute(select(func.min(t.c.created_at)).where(t.c.state == QUEUED)).scalar_one()
        return max(0.0, now - oldest) if oldest is not None else 0.0

    def lost_candidates(self, queued_before: float, running_before: float) -> list[str]:
        """Submissions that should be in the broker by now: queued and published before ``queued_before``, or
        running since before ``running_before`` (the broker gives a held job back after its visibility timeout,
        so one running longer lost its message, or its worker).  The sweeper republishes those it cannot find
        in the broker."""
        t = self.t
        with self._read() as conn:
            return list(conn.execute(select(t.c.id).where(
                ((t.c.state == QUEUED) & t.c.enqueued_at.is_not(None) & (t.c.enqueued_at < queued_before))
                | ((t.c.state == RUNNING) & (t.c.started_at < running_before)))
                .order_by(t.c.created_at)).scalars())

    def pending_count(self) -> int:
        t = self.t
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(t)
                                    .where(t.c.state.in_(PENDING_STATES))).scalar_one())
