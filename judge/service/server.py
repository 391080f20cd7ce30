"""``judge serve``: uvicorn around the app, with the settings the command line gave."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from judge.errors import JudgeError
from judge.service.hosts import is_loopback
from judge.service.settings import Settings, SettingsError

if TYPE_CHECKING:
    from judge.service.store import Store

LOOPBACK = "127.0.0.1"


def run_server(settings: Settings, host: str, port: int, log_level: str = "info") -> None:
    import uvicorn

    from judge.service import logsafe
    from judge.service.app import create_app

    logsafe.configure(log_level)  # one line a record, whatever a client sent
    token = settings.ensure_token()
    if token is not None:
        print("judge serve: JUDGE_API_TOKENS is not set; generated a token for platform 'default' "
              "(valid until this server stops):", flush=True)
        print(f"JUDGE_API_TOKEN={token}", flush=True)
    if not is_loopback(host):
        print(f"judge serve: listening on {host}, not only on loopback", file=sys.stderr, flush=True)
    try:
        app = create_app(settings)
        if settings.worker_db_url:
            _set_up_worker_role(app.state.store, settings.worker_db_url)
    except SettingsError as exc:
        raise JudgeError(f"judge serve: {exc}") from None
    print(f"judge serve: {settings.mode} mode on http://{host}:{port} (docs at /docs)", flush=True)
    # the client's address is the socket's, unless it comes through a proxy the operator trusts
    # (JUDGE_FORWARDED_ALLOW_IPS); uvicorn's own default trusts X-Forwarded-For from any loopback client
    trusted = ",".join(settings.forwarded_allow_ips)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=log_level == "debug",
                timeout_graceful_shutdown=5, proxy_headers=bool(trusted), forwarded_allow_ips=trusted or None,
                log_config=logsafe.uvicorn_log_config())


def _set_up_worker_role(store: Store, worker_url: str) -> None:
    """Before serving: the tables, then the workers' own database role on them (judge.service.worker_role).
    Here rather than in the app's start-up so that a role that cannot be set up is a one-line error."""
    from judge.service.worker_role import set_up_worker_role, worker_login

    worker_login(store.url, worker_url)  # a mistake in the URLs is named before the database is touched
    store.create_schema()
    set_up_worker_role(store, worker_url)
