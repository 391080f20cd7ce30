"""The hosts tier's one fixture: the service on separate hosts (tests/support/hosts.py), once per module.  A
module gives its hosts' settings as ``API_ENV`` and ``WORKER_ENV`` instead of defining its own cluster."""

from __future__ import annotations

import pytest

from tests.support.hosts import Cluster
from tests.support.service import require_sandbox


@pytest.fixture(scope="module")
def cluster(request):
    """Broker, db, api and two worker hosts; every host, address and process is gone after the module."""
    require_sandbox()  # the workers grade in the real sandbox
    with Cluster(workers=2, api_env=getattr(request.module, "API_ENV", {}),
                 worker_env=getattr(request.module, "WORKER_ENV", {})) as c:
        yield c
    assert c.leftovers() == []
