"""The byte layout results cross the sandbox boundary in: a header, then raw array bytes.

Each case owns a fixed *slot* in a shared memory file the judge sized and
sealed against growing.  A slot is ``SLOT_HEADER_SIZE`` bytes of header (magic,
length, a small JSON object) followed by the array's raw bytes, C order.  The
writer is untrusted: the judge decodes with :func:`read_header`, which bounds
every length, and never unpickles anything.
"""

from __future__ import annotations

import json
import struct

MAGIC = b"JDGSLOT1"
SLOT_HEADER_SIZE = 4096
_PREFIX = struct.Struct("<8sI")
MAX_HEADER_JSON = SLOT_HEADER_SIZE - _PREFIX.size
DATA_ALIGN = 64

# Outcome of one call, as the harness saw it.
RETURNED_ARRAY = "array"  # an exact numpy.ndarray of a numeric dtype, bytes follow
RETURNED_OTHER = "other"  # something else came back; "message" says what
RAISED = "raised"  # the call raised; "message" holds the exception
TOO_LARGE = "too_large"  # an array bigger than the slot: only its shape and dtype


def align(n: int) -> int:
    return (n + DATA_ALIGN - 1) // DATA_ALIGN * DATA_ALIGN


def slot_size(capacity: int) -> int:
    """Bytes a slot needs to hold a header plus ``capacity`` bytes of array data."""
    return SLOT_HEADER_SIZE + align(max(capacity, 0))


def encode_header(fields: dict) -> bytes:
    """Header bytes for a slot; oversized messages are cut so the header always fits."""
    payload = json.dumps(fields, separators=(",", ":"), ensure_ascii=True).encode()
    if len(payload) > MAX_HEADER_JSON:
        fields = dict(fields)
        fields["message"] = str(fields.get("message", ""))[:500] + " [cut]"
        payload = json.dumps(fields, separators=(",", ":"), ensure_ascii=True).encode()[:MAX_HEADER_JSON]
    return _PREFIX.pack(MAGIC, len(payload)) + payload


class MalformedSlot(ValueError):
    """A slot whose header cannot be trusted (wrong magic, bad length, bad JSON)."""


def read_header(buffer: memoryview) -> dict | None:
    """Decode a slot header; ``None`` when the slot was never written."""
    if len(buffer) < SLOT_HEADER_SIZE:
        raise MalformedSlot("slot shorter than its header")
    magic, length = _PREFIX.unpack_from(buffer, 0)
    if magic == b"\0" * 8 and length == 0:
        return None
    if magic != MAGIC:
        raise MalformedSlot("the result header has the wrong magic bytes")
    if length > MAX_HEADER_JSON:
        raise MalformedSlot(f"the result header claims {length} bytes, more than {MAX_HEADER_JSON}")
    raw = bytes(buffer[_PREFIX.size:_PREFIX.size + length])
    try:
        fields = json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # deep nesting raises RecursionError
        raise MalformedSlot(f"the result header is not JSON ({type(exc).__name__})") from None
    if not isinstance(fields, dict):
        raise MalformedSlot("the result header is not a JSON object")
    return fields
