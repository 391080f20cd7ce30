"""What the author reports conclude: one finding per thing to look at, with its severity.

``error``: the bundle would grade wrongly (``judge verify`` fails); ``warning``: probably weak, worth a
look; ``note``: information.  Sections name the report that found it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Level = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Finding:
    level: Level
    section: str
    message: str

    def as_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        return f"{self.level.upper():7} [{self.section}] {self.message}"
