"""Fixtures the service tests share."""

from __future__ import annotations

import pytest

from judge.service.store import Store


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path}/store.sqlite3")
    s.create_schema()
    yield s
    s.close()
