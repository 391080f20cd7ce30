"""The progress layout both backends share: the sandbox writes a mapped page, the trusted side reads.

The container backend's judge reads the bind-mounted file with pread (ProgressFile), never a
mapping: learner code can truncate that file, and a mapping of a truncated file would fault
(SIGBUS) in the judge's own process.
"""

from __future__ import annotations

import os

from judge.sandbox.boundary.progress import PAGE_BYTES, PHASE_RUNNING, PHASE_SETUP, ProgressFile, ProgressPage


def test_the_file_reader_sees_what_the_mapped_page_wrote_and_zeros_once_truncated(tmp_path):
    path = tmp_path / "progress"
    path.write_bytes(bytes(PAGE_BYTES))
    page = ProgressPage.over_file(str(path))
    reader = ProgressFile(str(path))
    try:
        assert reader.read() == page.read() and reader.read()[::2] == (-1, PHASE_SETUP)
        page.set(3, PHASE_RUNNING)
        assert reader.read() == page.read() and reader.read()[::2] == (3, PHASE_RUNNING)
        os.truncate(path, 0)  # what a hostile learner can do to the bind-mounted file
        assert reader.read() == (0, 0, PHASE_SETUP)
    finally:
        reader.close()
        page.close()
