"""The LTI tests' two fixtures: the test LMS (tests/support/lti_platform.py) and `judge serve` as its tool, once
per module.  A module says how they differ instead of defining its own: ``MEMBERS`` (course -> roster the LMS
serves), ``TOOL_ENV`` (the tool's settings) and ``TOOL_ON_A_COPY`` (true when its tests change a bundle on
disk, so the tool grades from a copy of the problems)."""

from __future__ import annotations

import pytest

from tests.support.lti_platform import LoopbackPlatform, start_tool, start_tool_on_a_copy
from tests.support.service import require_sandbox


@pytest.fixture(scope="module")
def platform(request, tmp_path_factory):
    lms = LoopbackPlatform(tmp_path_factory.mktemp("lms"))
    for course, members in getattr(request.module, "MEMBERS", {}).items():
        lms.members[course] = list(members)
    yield lms
    lms.stop()


@pytest.fixture(scope="module")
def server(request, tmp_path_factory, platform):
    require_sandbox()
    start = start_tool_on_a_copy if getattr(request.module, "TOOL_ON_A_COPY", False) else start_tool
    srv = start(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]), platform,
                **getattr(request.module, "TOOL_ENV", {}))
    yield srv
    srv.stop()
