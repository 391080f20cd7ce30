"""Per-call output: split a run's stdout/stderr capture with the offsets the harness recorded.

The harness writes, in each call's slot header, where fds 1 and 2 stood before
and after the call (``spans``).  Those numbers come from the learner's process,
so they are believed only when they are consistent: in case order, each span
starts at or after the previous one ends and never runs backwards.  The first
inconsistent span ends the split (later calls get ``None``: not shown).  Bytes
between spans are nobody's and are shown to no one; bytes after the last span
belong to the call that was running when the process died.

This keeps a learner's page from showing what a hidden case printed (its
arguments, say).  It is not a wall against a hostile file, which can read
every case's inputs in its own memory anyway; the verdict's whole capture
(``verdict.stdout``/``stderr``) stays as it was, for platforms.
"""

from __future__ import annotations

from judge.sandbox import CAPTURE_BYTES, Capture
from judge.verdict import CallOutput, CaseResult

CALL_OUTPUT_KEEP = 4000  # characters per stream per call


def _stream_bytes(capture: Capture) -> bytes | None:
    """The captured bytes, or None when their offsets cannot be trusted to line up.

    The sandbox decodes the capture as UTF-8 with replacement; re-encoding gives
    the original bytes exactly unless the learner wrote invalid UTF-8 (a
    replacement character is three bytes): then the lengths differ and we
    refuse to split rather than shift every boundary."""
    data = capture.text.encode("utf-8")
    size = capture.bytes
    if len(data) == size or (size > len(data) == CAPTURE_BYTES):
        return data
    return None


def _text(data: bytes, start: int, end: int) -> tuple[str, bool]:
    text = data[start:end].decode("utf-8", errors="replace")
    return text[:CALL_OUTPUT_KEEP], end > len(data) or len(text) > CALL_OUTPUT_KEEP


def _stream_bounds(size: int, spans: dict[int, list[int] | None], count: int, stream: int) -> list:
    """Per call (start, end) in one stream, or None from the first call whose span cannot be believed."""
    bounds: list[tuple[int, int] | None] = [None] * count
    cursor = 0
    for i in range(count):
        if i in spans and spans[i] is None:  # no header: the process died during this call
            bounds[i] = (cursor, max(cursor, size))
            break
        pair = spans.get(i)
        if not pair or len(pair) != 4:
            break
        start, end = pair[2 * stream], pair[2 * stream + 1]
        if not cursor <= start <= end:
            break
        bounds[i] = (start, end)
        cursor = end
    return bounds


def split_output(stdout: Capture, stderr: Capture, spans: dict[int, list[int] | None],
                 count: int) -> tuple[CallOutput | None, list[CallOutput | None]]:
    """(what loading printed, what each of ``count`` calls printed); None where it cannot be known.

    ``spans``: call index -> the header's four offsets, None for a call without a header (it never
    returned), absent for a call whose header was unreadable or that never ran."""
    captures = [stdout, stderr]
    streams = [_stream_bytes(c) for c in captures]
    if streams[0] is None or streams[1] is None:
        return None, [None] * count
    bounds = [_stream_bounds(c.bytes, spans, count, k)
              for k, (c, d) in enumerate(zip(captures, streams))]

    def output(pieces: list[tuple[int, int] | None]) -> CallOutput | None:
        if pieces[0] is None or pieces[1] is None:
            return None
        (out, out_cut), (err, err_cut) = (_text(d, *p) for d, p in zip(streams, pieces))  # type: ignore[arg-type,misc]  # None ruled out above
        return CallOutput(stdout=out, stderr=err, truncated=out_cut or err_cut)

    calls = [output([bounds[0][i], bounds[1][i]]) for i in range(count)]
    if count == 0:
        load = output([(0, c.bytes) for c in captures])
    elif calls[0] is None:
        load = None
    else:  # everything before the first call's span (nothing when the first call died: it got it all)
        load = output([(0, bounds[k][0][0] if spans.get(0) is not None else 0) for k in (0, 1)])
    return load, calls


def attach_output(cases: list[CaseResult], stdout: Capture, stderr: Capture,
                  spans: dict[int, list[int] | None]) -> CallOutput | None:
    """Set each case's ``output``; returns what loading printed."""
    load, calls = split_output(stdout, stderr, spans, len(cases))
    for case, output in zip(cases, calls):
        case.output = output
    return load
