"""Backend factories: what ``Judge`` is given to make its sandbox backends.

``backend_factory_for(mode)`` resolves the isolation mode once (demanded, or
the best the machine can give: :func:`judge.sandbox.ladder.choose`) and makes
one backend per pool slot: a zygote of that mode, or a container launcher.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from judge.sandbox.contract import SandboxBackend


@dataclass
class ModeFactory:
    """Makes backends of one isolation mode (``mode`` is what every verdict will say)."""

    mode: str
    note: str = ""
    image: str | None = None

    def __call__(self, slot: int) -> SandboxBackend:
        if self.mode == "container":
            from judge.sandbox.container import ContainerClient

            return ContainerClient(image=self.image)
        from judge.sandbox.client import ZygoteClient

        return ZygoteClient(self.mode, f"w{os.getpid()}-{slot}-{id(self) & 0xffff:x}", self.note)


def backend_factory_for(mode: str | None = None, unsafe_no_sandbox: bool = False,
                        image: str | None = None) -> ModeFactory:
    """A factory for ``mode`` (None or "auto": JUDGE_ISOLATION, else the best available);
    raises SandboxUnavailable when the machine cannot give it or JUDGE_MIN_ISOLATION refuses it."""
    from judge.sandbox.ladder import choose

    chosen, note = choose(None if mode in (None, "auto") else mode, unsafe_no_sandbox)
    return ModeFactory(chosen, note, image)
