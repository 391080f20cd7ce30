"""Fixtures the service tests share."""

from __future__ import annotations

import pytest

from judge.service.store import Store
from tests.support.service import Postgres, Redis


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path}/store.sqlite3")
    s.create_schema()
    yield s
    s.close()


@pytest.fixture(scope="module")
def redis():
    server = Redis()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def postgres():
    server = Postgres()
    yield server
    server.stop()
