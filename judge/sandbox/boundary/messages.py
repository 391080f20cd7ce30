"""The framing of the judge <-> zygote socket: a 4-byte little-endian length, then JSON.

Requests carry the result memfd and, when the cases have array inputs, the sealed
input memfd as SCM_RIGHTS ancillary data.  A module of its own (standard library
only) so the judge's side can start a zygote before it imports numpy or the
sandbox's run-time code.
"""

from __future__ import annotations

import json
import socket
import struct

_LEN = struct.Struct("<I")
MAX_MESSAGE = 64 << 20


def send_message(sock: socket.socket, payload: dict, fds: list[int] | None = None) -> None:
    data = json.dumps(payload).encode()
    frame = _LEN.pack(len(data)) + data
    if fds:
        socket.send_fds(sock, [frame[:4]], fds)
        sock.sendall(frame[4:])
    else:
        sock.sendall(frame)


def recv_message(sock: socket.socket, max_fds: int = 0) -> tuple[dict | None, list[int]]:
    """One message and the fds that came with it; (None, []) at end of stream."""
    if max_fds:
        head, fds, _, _ = socket.recv_fds(sock, 4, max_fds)
    else:
        head, fds = sock.recv(4), []
    while head and len(head) < 4:
        more = sock.recv(4 - len(head))
        if not more:
            break
        head += more
    if len(head) < 4:
        return None, fds
    (length,) = _LEN.unpack(head)
    if length > MAX_MESSAGE:
        raise ValueError(f"message of {length} bytes is too large")
    chunks, got = [], 0
    while got < length:
        chunk = sock.recv(min(length - got, 1 << 20))
        if not chunk:
            return None, fds
        chunks.append(chunk)
        got += len(chunk)
    return json.loads(b"".join(chunks)), fds
