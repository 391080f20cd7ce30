"""Progress of a command that takes more than a few seconds, on stderr: a bar on a terminal, a line per step
otherwise.

A teacher who runs ``judge package exercism`` and sees nothing for a minute cannot tell building from hanging.
Each long command names its steps as it starts them (building the judge's wheel, downloading wheels, grading
example 12 of 40); on a terminal they redraw one line with a bar, elsewhere (CI logs, a pipe) each is a line
of its own, so a log says where the time went.  stdout stays the command's result (``--format json`` too).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 24


class Progress:
    """Steps of one command: ``step(text)`` starts the next one, ``done()`` ends the display."""

    def __init__(self, title: str, total: int | None = None, stream: TextIO | None = None,
                 bar: bool | None = None) -> None:
        self.title = title
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.bar = self._terminal() if bar is None else bar
        self.count = 0
        self.started = time.monotonic()
        self._drawn = False

    def _terminal(self) -> bool:
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):
            return False

    def step(self, text: str) -> None:
        """The next step begins (counted against ``total`` when there is one)."""
        self.count += 1
        self._show(text, counted=True)

    def note(self, text: str) -> None:
        """A line about the work that is not a step of its own (e.g. a step found nothing to do)."""
        if self.bar and self._drawn:
            self.stream.write("\r\x1b[K")
        self.stream.write(f"judge: {self.title}: {text}\n")
        self._drawn = False
        self.stream.flush()

    def _show(self, text: str, counted: bool) -> None:
        elapsed = time.monotonic() - self.started
        of = f"{self.count}/{self.total}" if self.total else f"{self.count}"
        if self.bar:
            filled = int(_WIDTH * min(self.count, self.total) / self.total) if self.total else self.count % _WIDTH
            bar = "#" * filled + "." * (_WIDTH - filled)
            self.stream.write(f"\r\x1b[K{self.title} [{bar}] {of} {elapsed:5.0f} s  {text[:60]}")
            self._drawn = True
        else:
            self.stream.write(f"judge: {self.title}: [{of}, {elapsed:.0f} s] {text}\n")
        self.stream.flush()

    def done(self, text: str = "done") -> None:
        elapsed = time.monotonic() - self.started
        if self.bar and self._drawn:
            self.stream.write("\r\x1b[K")
        self.stream.write(f"judge: {self.title}: {text} in {elapsed:.0f} s\n")
        self.stream.flush()
        self._drawn = False


def quiet() -> Progress:
    """A progress that shows nothing (library callers and tests that do not ask for one)."""
    import io

    return Progress("", stream=io.StringIO(), bar=False)
