"""A fake sandbox backend that replays stored runs (like httpx's MockTransport), and the recorder.

Grading, diagnosis and export tests need what a sandbox produces -- a
:class:`~judge.sandbox.boundary.contract.RunReport` and the result slots the harness
wrote -- but not the sandbox itself, which needs root or user namespaces.  A
:class:`StoredRun` is exactly that, saved from a real run by
:class:`RecordingBackend`; :class:`ReplayBackend` implements
:class:`~judge.sandbox.boundary.contract.SandboxBackend` by writing the stored slots
into its own result buffer and returning the stored report.  Everything after
the run (slot validation, comparison, statuses from the report, diagnosis,
exports) is the real code.

Recording is done by the tests' support (``tests/support/fake.py``, on a machine that can isolate).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from judge.isolation_record import Isolation
from judge.sandbox.boundary import wire
from judge.sandbox.boundary.contract import BackendError, RunReport, RunRequest, SandboxBackend
from judge.sandbox.boundary.result_buffer import ResultBuffer, buffer_for


def source_key(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def calls_key(request: RunRequest) -> str:
    """What a run was asked to call: a grading run and the counterexample search's run of the same source differ."""
    return hashlib.sha256(json.dumps([c.to_wire() for c in request.calls], sort_keys=True).encode()).hexdigest()


def run_key(request: RunRequest) -> str:
    """A stored run answers exactly the request it was recorded for: the same source, the same calls."""
    return f"{source_key(request.source)}/{calls_key(request)}"


@dataclass
class StoredRun:
    """One run as a backend saw it: the report, the slots written (case index -> (header, data)),
    the isolation."""

    report: RunReport
    slots: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    isolation: Isolation = field(default_factory=lambda: Isolation(mode="none", note="replayed"))
    source_sha256: str = ""
    calls_sha256: str = ""

    @property
    def key(self) -> str:
        return f"{self.source_sha256}/{self.calls_sha256}"

    def to_json(self) -> str:
        return json.dumps({"source_sha256": self.source_sha256, "calls_sha256": self.calls_sha256,
                           "report": self.report.to_wire(),
                           "isolation": self.isolation.model_dump(),
                           "slots": {str(k): [base64.b64encode(h).decode(), base64.b64encode(d).decode()]
                                     for k, (h, d) in self.slots.items()}},
                          indent=1)

    @classmethod
    def from_json(cls, text: str) -> StoredRun:
        data = json.loads(text)
        return cls(report=RunReport.from_wire(data["report"]), isolation=Isolation(**data["isolation"]),
                   slots={int(k): (base64.b64decode(h), base64.b64decode(d)) for k, (h, d) in data["slots"].items()},
                   source_sha256=data.get("source_sha256", ""), calls_sha256=data.get("calls_sha256", ""))


Handler = Callable[[RunRequest], StoredRun]


class ReplayBackend:
    """A :class:`SandboxBackend` whose runs are answered by ``handler(request) -> StoredRun``."""

    streams_slots = False  #: a stored run's slots are written in one piece
    warm = False  #: nothing to begin early
    retired = False

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.result_buffer: ResultBuffer | None = None
        self.requests: list[RunRequest] = []
        self._isolation: Isolation | None = None
        self._closed = False

    @classmethod
    def from_runs(cls, runs: dict[str, StoredRun]) -> ReplayBackend:
        """Answers a request with the run stored for it (:func:`run_key`: its source and its calls);
        BackendError otherwise, as a sandbox that cannot run it would."""
        def handler(request: RunRequest) -> StoredRun:
            try:
                return runs[run_key(request)]
            except KeyError:
                raise BackendError("no stored run for this source and these calls") from None

        return cls(handler)

    @classmethod
    def from_dir(cls, folder: str | Path) -> ReplayBackend:
        runs = {}
        for path in sorted(Path(folder).glob("*.json")):
            run = StoredRun.from_json(path.read_text())
            runs[run.key] = run
        return cls.from_runs(runs)

    @property
    def isolation(self) -> Isolation:
        return self._isolation or Isolation(mode="none", note="replayed")

    def result_buffer_for(self, size: int) -> ResultBuffer:
        return buffer_for(self, size)

    def run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        if self._closed:
            raise BackendError("the replay backend is closed")
        self.requests.append(request)
        stored = self.handler(request)
        self._isolation = stored.isolation
        buffer = self.result_buffer
        assert buffer is not None, "result_buffer_for() first"
        for call in request.calls:
            slot = stored.slots.get(call.case)
            if slot is not None:
                header, data = slot[0][:wire.SLOT_HEADER_SIZE], slot[1][:call.slot_capacity]
                start = call.slot_offset
                buffer.map[start:start + len(header)] = header
                buffer.map[start + wire.SLOT_HEADER_SIZE:start + wire.SLOT_HEADER_SIZE + len(data)] = data
        return RunReport.from_wire(stored.report.to_wire())  # a copy: the caller may keep it

    def retire(self) -> None:
        pass

    def alive(self) -> bool:
        return not self._closed

    def close(self) -> None:
        self._closed = True
        if self.result_buffer is not None:
            self.result_buffer.close()
            self.result_buffer = None


class RecordingBackend:
    """Wraps a real backend and keeps a :class:`StoredRun` of each run (``runs``, by :func:`run_key`, in the
    order they ran: a wrong answer's grading run, then its counterexample search's)."""

    def __init__(self, inner: SandboxBackend) -> None:
        self.inner = inner
        self.runs: dict[str, StoredRun] = {}

    @property
    def streams_slots(self) -> bool:
        return self.inner.streams_slots

    @property
    def warm(self) -> bool:
        return self.inner.warm

    @property
    def retired(self) -> bool:
        return self.inner.retired

    def retire(self) -> None:
        self.inner.retire()

    @property
    def isolation(self) -> Isolation:
        return self.inner.isolation

    def result_buffer_for(self, size: int) -> ResultBuffer:
        return self.inner.result_buffer_for(size)

    def run(self, request: RunRequest, inputs_fd: int | None) -> RunReport:
        report = self.inner.run(request, inputs_fd)
        buffer = self.inner.result_buffer_for(request.result_size)
        slots = {}
        for call in request.calls:
            start = call.slot_offset
            header = bytes(buffer.map[start:start + wire.SLOT_HEADER_SIZE]).rstrip(b"\0")
            if header:
                nbytes = 0
                try:
                    nbytes = int((wire.read_header(memoryview(header.ljust(wire.SLOT_HEADER_SIZE, b"\0"))) or {})
                                 .get("nbytes") or 0)
                except (wire.MalformedSlot, ValueError, TypeError):
                    pass
                nbytes = max(0, min(nbytes, call.slot_capacity))
                data_start = start + wire.SLOT_HEADER_SIZE
                slots[call.case] = (header, bytes(buffer.map[data_start:data_start + nbytes]))
        self.runs[run_key(request)] = StoredRun(report=RunReport.from_wire(report.to_wire()), slots=slots,
                                                isolation=self.inner.isolation,
                                                source_sha256=source_key(request.source),
                                                calls_sha256=calls_key(request))
        return report

    def alive(self) -> bool:
        return self.inner.alive()

    def close(self) -> None:
        self.inner.close()
