"""Service settings: environment variables (``JUDGE_*``), overridden by ``judge serve`` options."""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the variable."""


def default_db_url() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    path = Path(base) / "numpy-judge" / "service.sqlite3"
    return f"sqlite:///{path}"


def parse_pairs(text: str, variable: str) -> dict[str, str]:
    """``name:value,name2:value2`` -> dict; names are platform names."""
    out: dict[str, str] = {}
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        name, sep, value = item.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not value:
            raise SettingsError(f"{variable}: {item.split(':')[0]!r} has no value (expected name:value)")
        if not _NAME.match(name):
            raise SettingsError(f"{variable}: platform name {name!r} may only use letters, digits, _ . -")
        if name in out:
            raise SettingsError(f"{variable}: platform {name!r} is listed twice")
        out[name] = value
    return out


def _learn_feedback(text: str) -> dict[str, dict]:
    """JUDGE_LEARN_FEEDBACK: each course's override, checked now so a typo stops the start, not a learner."""
    from judge.problem.feedback_override import OverrideError, apply_override, parse_setting
    from judge.problem.feedback_policy import FeedbackPolicy

    out = {}
    for course, value in parse_pairs(text, "JUDGE_LEARN_FEEDBACK").items():
        try:
            out[course] = parse_setting(value, f"JUDGE_LEARN_FEEDBACK: course {course!r}")
            apply_override(FeedbackPolicy(), out[course])
        except OverrideError as exc:
            message = str(exc)
            if not message.startswith("JUDGE_LEARN_FEEDBACK"):
                message = f"JUDGE_LEARN_FEEDBACK: course {course!r}: {message}"
            raise SettingsError(message) from None
    return out


def _proxy_networks(text: str, variable: str) -> list[str]:
    """Comma-separated addresses or networks (``10.0.0.0/8``); ``*`` trusts every client (only behind a proxy
    that every request passes).  Not :func:`_networks`: there ``*`` would open callbacks to every address."""
    out = []
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        if item != "*":
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise SettingsError(f"{variable}: {item!r} is not an IP address or network") from None
        out.append(item)
    return out


def _float(env: dict, name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise SettingsError(f"{name}: {raw!r} is not a number") from None


def _int(env: dict, name: str, default: int) -> int:
    return int(_float(env, name, default))


#: How an LTI learner's gradebook score is computed from all their submissions of an activity: the best
#: score, or the newest submission's.  ``best`` by default: a later, worse try never lowers a grade.
SCORE_RULES = ("best", "latest")


def _networks(text: str, variable: str) -> list[str]:
    """Comma-separated CIDRs (``10.2.0.0/16,127.0.0.1``), checked here so a typo is named at start-up."""
    import ipaddress

    out = []
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise SettingsError(f"{variable}: {item!r} is not an address or network (CIDR)") from None
    return out


@dataclass
class Settings:
    db_url: str = field(default_factory=default_db_url)
    #: JUDGE_WORKER_DB_URL, the API's side: the PostgreSQL login ``judge worker`` uses (its own JUDGE_DB_URL).
    #: The API creates or updates that role at start-up and grants it only what a worker touches
    #: (judge.service.worker_role).  None: workers share the API's URL (one machine).
    worker_db_url: str | None = None
    broker_url: str | None = None            # None: embedded workers in the server process
    tokens: dict[str, str] = field(default_factory=dict)            # platform -> bearer token
    callback_secrets: dict[str, str] = field(default_factory=dict)  # platform -> HMAC key (default: its token)
    callback_hosts: list[str] | None = None  # allowed callback hosts (None: any)
    workers: int = 2
    unsafe_no_sandbox: bool = False
    max_pending: int = 1000                  # queued + running; more -> 503
    max_batch: int = 100
    max_body_bytes: int = 1 << 20
    max_batch_body_bytes: int = 16 << 20
    max_metadata_bytes: int = 16 << 10
    rate_per_second: float = 20.0            # per token; 0 disables
    rate_burst: float = 200.0
    wait_max_seconds: float = 30.0
    callback_max_attempts: int = 8
    callback_backoff_seconds: float = 1.0
    callback_backoff_max_seconds: float = 300.0
    callback_timeout_seconds: float = 10.0
    callback_poll_seconds: float = 0.5
    visibility_timeout_seconds: float = 300.0  # Celery/Redis: an unacked task is redelivered after this
    restore_interval_seconds: float = 10.0     # how often workers look for such tasks
    max_attempts: int = 3                      # JUDGE_MAX_ATTEMPTS: claims of one submission before an internal error
    sweep_seconds: float = 10.0                # JUDGE_SWEEP_SECONDS: how often the server republishes lost jobs
    sweep_grace_seconds: float = 30.0          # JUDGE_SWEEP_GRACE: a published job is looked for after this
    queue_name: str = "judge"
    generated_token: bool = False
    lti_config: str | None = None              # JUDGE_LTI_CONFIG: platforms (pylti1p3 ToolConfJsonFile JSON)
    public_url: str | None = None              # JUDGE_PUBLIC_URL: how browsers reach this server (https://...)
    learn_codes: dict[str, str] = field(default_factory=dict)  # JUDGE_LEARN_CODES: course -> access code
    learn_teacher_codes: dict[str, str] = field(default_factory=dict)  # JUDGE_LEARN_TEACHER_CODES: course -> code
    # JUDGE_LEARN_FEEDBACK: course -> the feedback policy override of its /learn exercises
    # ("course:hidden=status;probes=5/1h,other:..."; keys of judge.problem.feedback_override)
    learn_feedback: dict[str, dict] = field(default_factory=dict)
    learner_rate_per_second: float = 0.2       # JUDGE_LEARNER_RATE_LIMIT: submissions per learner
    learner_rate_burst: float = 6.0
    forwarded_allow_ips: list[str] = field(default_factory=list)  # JUDGE_FORWARDED_ALLOW_IPS: trusted proxies
    # JUDGE_LEARN_GUESS_LIMITS: wrong codes at /learn, PER_SECOND:BURST per client address, course and server
    learn_guess_limits: dict[str, tuple[float, float]] = field(default_factory=lambda: {
        "client": (0.1, 5.0), "course": (1 / 15, 20.0), "server": (0.5, 60.0)})
    # JUDGE_MAX_PENDING_PER_TENANT: queued + running of one tenant (a token; an LTI deployment's course; a
    # /learn course); more -> 429 for that tenant only.  None: a quarter of max_pending.
    max_pending_per_tenant: int | None = None
    max_rejudge_items: int = 10000             # JUDGE_MAX_REJUDGE_ITEMS: submissions one rejudge may cover
    # JUDGE_CALLBACK_ALLOW_NETWORKS: CIDRs callbacks may reach although they are not public (a platform on a
    # private network); every other loopback, private, link-local, multicast or reserved address is refused
    callback_allow_networks: list[str] = field(default_factory=list)
    score_rule: str = "best"                   # JUDGE_SCORE_RULE: best | latest (an LTI activity may override)

    @classmethod
    def from_env(cls, env: dict | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        s = cls()
        s.db_url = env.get("JUDGE_DB_URL") or s.db_url
        s.worker_db_url = env.get("JUDGE_WORKER_DB_URL") or None
        s.broker_url = env.get("JUDGE_BROKER_URL") or None
        s.tokens = parse_pairs(env.get("JUDGE_API_TOKENS", ""), "JUDGE_API_TOKENS")
        s.callback_secrets = parse_pairs(env.get("JUDGE_CALLBACK_SECRETS", ""), "JUDGE_CALLBACK_SECRETS")
        hosts = env.get("JUDGE_CALLBACK_HOSTS", "").strip()
        s.callback_hosts = [h.strip().lower() for h in hosts.split(",") if h.strip()] if hosts else None
        s.workers = max(1, _int(env, "JUDGE_WORKERS", s.workers))
        s.unsafe_no_sandbox = env.get("JUDGE_UNSAFE_NO_SANDBOX", "") in ("1", "true", "yes")
        s.max_pending = _int(env, "JUDGE_MAX_PENDING", s.max_pending)
        s.max_batch = _int(env, "JUDGE_MAX_BATCH", s.max_batch)
        s.max_body_bytes = _int(env, "JUDGE_MAX_BODY_BYTES", s.max_body_bytes)
        s.max_batch_body_bytes = _int(env, "JUDGE_MAX_BATCH_BODY_BYTES", s.max_batch_body_bytes)
        rate = env.get("JUDGE_RATE_LIMIT", "").strip()
        if rate:
            per, _, burst = rate.partition(":")
            try:
                s.rate_per_second = float(per)
                s.rate_burst = float(burst) if burst else max(1.0, s.rate_per_second * 10)
            except ValueError:
                raise SettingsError(f"JUDGE_RATE_LIMIT: {rate!r} is not PER_SECOND[:BURST]") from None
        s.wait_max_seconds = _float(env, "JUDGE_WAIT_MAX_SECONDS", s.wait_max_seconds)
        s.callback_max_attempts = _int(env, "JUDGE_CALLBACK_MAX_ATTEMPTS", s.callback_max_attempts)
        s.callback_backoff_seconds = _float(env, "JUDGE_CALLBACK_BACKOFF_SECONDS", s.callback_backoff_seconds)
        s.callback_backoff_max_seconds = _float(env, "JUDGE_CALLBACK_BACKOFF_MAX_SECONDS",
                                                s.callback_backoff_max_seconds)
        s.callback_timeout_seconds = _float(env, "JUDGE_CALLBACK_TIMEOUT_SECONDS", s.callback_timeout_seconds)
        s.callback_poll_seconds = _float(env, "JUDGE_CALLBACK_POLL_SECONDS", s.callback_poll_seconds)
        s.visibility_timeout_seconds = _float(env, "JUDGE_VISIBILITY_TIMEOUT", s.visibility_timeout_seconds)
        s.restore_interval_seconds = _float(env, "JUDGE_RESTORE_INTERVAL", s.restore_interval_seconds)
        s.max_attempts = max(1, _int(env, "JUDGE_MAX_ATTEMPTS", s.max_attempts))
        s.sweep_seconds = max(0.5, _float(env, "JUDGE_SWEEP_SECONDS", s.sweep_seconds))
        s.sweep_grace_seconds = _float(env, "JUDGE_SWEEP_GRACE", s.sweep_grace_seconds)
        s.queue_name = env.get("JUDGE_QUEUE", s.queue_name)
        s.lti_config = env.get("JUDGE_LTI_CONFIG") or None
        s.public_url = (env.get("JUDGE_PUBLIC_URL") or "").rstrip("/") or None
        s.learn_codes = parse_pairs(env.get("JUDGE_LEARN_CODES", ""), "JUDGE_LEARN_CODES")
        s.learn_teacher_codes = parse_pairs(env.get("JUDGE_LEARN_TEACHER_CODES", ""), "JUDGE_LEARN_TEACHER_CODES")
        for course, code in s.learn_teacher_codes.items():
            if s.learn_codes.get(course) == code:
                raise SettingsError(f"JUDGE_LEARN_TEACHER_CODES: course {course!r} has the learners' code as its "
                                    "teacher code: every learner would open the class view")
        s.learn_feedback = _learn_feedback(env.get("JUDGE_LEARN_FEEDBACK", ""))
        learner_rate = env.get("JUDGE_LEARNER_RATE_LIMIT", "").strip()
        if learner_rate:
            per, _, burst = learner_rate.partition(":")
            try:
                s.learner_rate_per_second, s.learner_rate_burst = float(per), float(burst or max(1.0, float(per)))
            except ValueError:
                raise SettingsError(f"JUDGE_LEARNER_RATE_LIMIT: {learner_rate!r} is not PER_SECOND[:BURST]") from None
        for scope, value in parse_pairs(env.get("JUDGE_LEARN_GUESS_LIMITS", ""), "JUDGE_LEARN_GUESS_LIMITS").items():
            per, _, burst = value.partition("/")
            try:
                limit = (float(per), float(burst))
            except ValueError:
                limit = None
            if scope not in s.learn_guess_limits or limit is None or limit[0] < 0 or limit[1] < 1:
                raise SettingsError(f"JUDGE_LEARN_GUESS_LIMITS: {scope}:{value} is not one of client, course, "
                                    "server with PER_SECOND/BURST (e.g. client:0.1/5)")
            s.learn_guess_limits[scope] = limit
        s.forwarded_allow_ips = _proxy_networks(env.get("JUDGE_FORWARDED_ALLOW_IPS", ""), "JUDGE_FORWARDED_ALLOW_IPS")
        if env.get("JUDGE_MAX_PENDING_PER_TENANT", "").strip():
            s.max_pending_per_tenant = max(1, _int(env, "JUDGE_MAX_PENDING_PER_TENANT", 1))
        s.max_rejudge_items = max(1, _int(env, "JUDGE_MAX_REJUDGE_ITEMS", s.max_rejudge_items))
        s.callback_allow_networks = _networks(env.get("JUDGE_CALLBACK_ALLOW_NETWORKS", ""),
                                              "JUDGE_CALLBACK_ALLOW_NETWORKS")
        s.score_rule = (env.get("JUDGE_SCORE_RULE") or s.score_rule).strip().lower()
        if s.score_rule not in SCORE_RULES:
            raise SettingsError(f"JUDGE_SCORE_RULE: {s.score_rule!r} is not one of {', '.join(SCORE_RULES)}")
        return s

    @property
    def tenant_pending_limit(self) -> int:
        """How many submissions one tenant may have queued or running (JUDGE_MAX_PENDING_PER_TENANT)."""
        if self.max_pending_per_tenant is not None:
            return self.max_pending_per_tenant
        return max(1, self.max_pending // 4)

    def ensure_token(self) -> str | None:
        """With no tokens configured, generate one for platform ``default``; returns it (else None)."""
        if self.tokens:
            return None
        token = secrets.token_urlsafe(24)
        self.tokens = {"default": token}
        self.generated_token = True
        return token

    def callback_key(self, platform: str) -> bytes | None:
        key = self.callback_secrets.get(platform) or self.tokens.get(platform)
        return key.encode() if key else None

    @property
    def mode(self) -> str:
        return "celery" if self.broker_url else "embedded"
