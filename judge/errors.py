"""Errors the judge reports to people: each names what went wrong and where."""

from __future__ import annotations


class JudgeError(Exception):
    """Base class: a clear, user-facing problem, never shown as a traceback."""


class BundleError(JudgeError):
    """A problem bundle that cannot be used: which file, which line, what is wrong."""

    def __init__(self, file: str, line: int | None, message: str) -> None:
        self.file = file
        self.line = line
        self.message = message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message}")


class SandboxUnavailable(JudgeError):
    """This machine cannot isolate learner code, and running it unisolated was not allowed."""
