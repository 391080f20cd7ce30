"""The service's background loops start in order and stop in reverse, each stop tried (judge.service.loops)."""

from __future__ import annotations

from judge.service.loops import Loops


class Recorded:
    def __init__(self, name: str, log: list[str], fail_stop: bool = False) -> None:
        self.name, self.log, self.fail_stop = name, log, fail_stop

    def start(self) -> None:
        self.log.append(f"start {self.name}")

    def stop(self) -> None:
        self.log.append(f"stop {self.name}")
        if self.fail_stop:
            raise RuntimeError("the broker is gone")


def test_a_failing_stop_leaves_no_loop_running():
    log: list[str] = []
    loops = Loops(Recorded("callbacks", log), None, Recorded("backend", log, fail_stop=True))
    loops.start()
    loops.stop()
    assert log == ["start callbacks", "start backend", "stop backend", "stop callbacks"]
    loops.stop()  # a second stop stops nothing twice
    assert len(log) == 4
