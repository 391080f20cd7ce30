"""A victim that plants a secret in everything its run touches, an attacker that searches for it in everything
its own run can read, and a search of a live process's memory (no byte of one submission reaches
another run).

Imported by tests/sandbox/test_cross_run.py on the host and, mounted read-only, by the script it runs inside the judge
image (mode reduced in a default ``docker run``).  Standard library only.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

CORRECT = (
    Path(__file__).resolve().parents[2] / "submissions" / "sinusoidal-pe" / "accepted" / "vectorised.py"
).read_text()
PREFIX = b"PLANTED:"
#: What the attacker looks for: the prefix and 32 hex digits whose sha256 it was given (never the secret itself,
#: which would then be in its own source and memory).
PATTERN = rb"PLANTED:([0-9a-f]{32})"

VICTIM = CORRECT + '''

_PLANTED = "PLANTED:{token}"  # the secret, in the source text
print(_PLANTED, flush=True)  # in the captured output
for _where in (".", "/tmp", "/var/tmp", "/dev/shm"):  # in files wherever it may write
    try:
        with open(_where + "/planted-{token}.txt", "w") as _f:
            _f.write(_PLANTED * 64)
    except OSError:
        pass
_correct_table = sinusoidal_pe


def sinusoidal_pe(max_len, d_model, base=10000.0):  # in the outputs: the first values carry the secret's bytes
    table = _correct_table(max_len, d_model, base).copy()
    raw = _PLANTED.encode() * 8  # 40 floats' worth
    flat = table.reshape(-1)
    take = min(flat.size, len(raw) // 8)
    flat[:take] = np.frombuffer(raw[: take * 8], np.float64)
    return table
'''

SEARCH = r'''
_ctypes = __import__("ctypes")
_gc = __import__("gc")
_hashlib = __import__("hashlib")
_os = __import__("o" + "s")
_re = __import__("re")
_stat = __import__("stat")
_sys = __import__("sys")
_DIGEST = "{digest}"
_PATTERN = _re.compile(rb"PLANT" rb"ED:([0-9a-f]{{32}})")
_PAGE = 4096
_DONE = []


def _harness():
    frame = _sys._getframe(1)
    while frame is not None:
        me = frame.f_locals.get("self")
        if me is not None and hasattr(me, "results") and hasattr(me, "request"):
            return me
        frame = frame.f_back


def _hit(data):
    if data.find(b"PLANT" b"ED:") < 0:  # the fast test first: most chunks hold no candidate at all
        return False
    for m in _PATTERN.finditer(data):
        if _hashlib.sha256(m.group(0)).hexdigest() == _DIGEST:
            return True
    return False


def _regions():
    try:
        with open("/proc/self/maps") as f:
            return [tuple(int(x, 16) for x in line.split()[0].split("-")) for line in f
                    if line.split()[1].startswith("r")], "maps"
    except OSError:
        pass
    libc = _ctypes.CDLL(None, use_errno=True)
    libc.sbrk.restype = _ctypes.c_void_p
    libc.mincore.argtypes = [_ctypes.c_void_p, _ctypes.c_size_t, _ctypes.c_char_p]
    vec = _ctypes.create_string_buffer(1)
    mapped = lambda page: page > 0 and libc.mincore(page, _PAGE, vec) == 0
    anchors = {{libc.sbrk(0) - _PAGE}} | {{id(o) for o in _gc.get_objects()[::20]}}
    spans = []
    for anchor in sorted(a // _PAGE * _PAGE for a in anchors if a):
        if any(a <= anchor < b for a, b in spans) or not mapped(anchor):
            continue
        low = high = anchor
        while mapped(low - _PAGE) and anchor - low < (512 << 20):
            low -= _PAGE
        while mapped(high + _PAGE) and high - anchor < (512 << 20):
            high += _PAGE
        spans.append((low, high + _PAGE))
    return spans, "mincore"


def _memory():
    spans, how = _regions()
    r, w = _os.pipe()
    scanned = found = 0
    try:
        for start, end in spans:
            for page in range(start, end, 16 * _PAGE):
                n = min(16 * _PAGE, end - page)
                try:
                    _os.write(w, memoryview((_ctypes.c_char * n).from_address(page)).cast("B"))
                    chunk = _os.read(r, n)
                except OSError:
                    continue
                scanned += n
                if _hit(chunk):
                    found += 1
    finally:
        _os.close(r)
        _os.close(w)
    return found, "%d MiB of memory via %s" % (scanned >> 20, how)


def _files():
    # Every place a run may write is searched in full; then the rest of "/" for at most 2 s of wall time (on a
    # cold page cache a walk of system folders alone can outlast the 4 s a call is given), read-only system
    # trees first skipped.
    found = seen = 0
    clock = __import__("ti" "me").monotonic
    for top in (".", "/tmp", "/var/tmp", "/dev/shm", "/run", "/"):
        deadline = clock() + 2.0 if top == "/" else None
        for root, dirs, names in _os.walk(top, onerror=lambda e: None):
            if root == "/":
                dirs[:] = [d for d in dirs if d not in ("proc", "sys", "usr", "lib", "lib32", "lib64", "bin",
                                                        "sbin", "boot")]
            if deadline is not None and clock() > deadline:
                return found, "%d files, then 2 s of /" % seen
            for name in names:
                seen += 1
                if seen > 20000:
                    return found, "%d files" % seen
                path = _os.path.join(root, name)
                try:
                    if not _stat.S_ISREG(_os.lstat(path).st_mode):
                        continue  # a device or a pipe could block: only regular files hold planted bytes
                    fd = _os.open(path, _os.O_RDONLY | _os.O_NONBLOCK)
                    try:
                        if _hit(_os.read(fd, 1 << 16)):
                            found += 1
                    finally:
                        _os.close(fd)
                except OSError:
                    continue
    return found, "%d files" % seen


def _search():
    h = _harness()
    results = bytes(h.results) if h is not None else b""
    report = {{"result buffer": (int(_hit(results)), "%d MiB mapped" % (len(results) >> 20))}}
    report["memory"] = _memory()
    report["files"] = _files()
    for where, (found, what) in report.items():
        print(("FOUND in %s (%s)" if found else "CLEAN %s (%s searched)") % (where, what), flush=True)

'''

#: The attacker: computes nothing, searches once, at its first call (before its own first slot is written).
ATTACK = '''

def sinusoidal_pe(max_len, d_model, base=10000.0):
    if not _DONE:
        _DONE.append(1)
        _search()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
'''

#: The control: the victim, searching for its own secret at its second call (its first slot is written by then).
CONTROL = '''
_planting = sinusoidal_pe


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _DONE.append(1)
    if len(_DONE) == 2:
        _search()
    return _planting(max_len, d_model, base)
'''


def victim(token: str) -> str:
    return VICTIM.replace("{token}", token)


def _search(token: str) -> str:
    return SEARCH.format(digest=hashlib.sha256(PREFIX + token.encode()).hexdigest())


def attacker(token: str) -> str:
    """Given only the secret's sha256, searches what its run can read, computes nothing (a wrong answer)."""
    return "import numpy as np\n" + _search(token) + ATTACK


def control(token: str) -> str:
    """Plants the secret as the victim does, then runs the attacker's search on its own run."""
    return victim(token) + _search(token) + CONTROL


def findings(stdout: str) -> tuple[list[str], list[str]]:
    """(FOUND lines, CLEAN lines) of an attacker's output."""
    lines = stdout.splitlines()
    return [x for x in lines if x.startswith("FOUND")], [x for x in lines if x.startswith("CLEAN")]


def process_memory_holds(pid: int, secret: bytes) -> list[str]:
    """The mappings of process ``pid`` whose bytes contain ``secret`` (read from /proc/PID/mem: root, or the
    same user for a dumpable process)."""
    hits = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if not fields[1].startswith("r") or (len(fields) > 5 and fields[5] == "[vvar]"):
                continue
            for at in range(start, end, 1 << 22):
                try:
                    mem.seek(at)
                    chunk = mem.read(min(1 << 22, end - at) + len(secret))
                except (OSError, ValueError, OverflowError):
                    continue
                if secret in chunk:
                    hits.append(" ".join(fields[:1] + fields[5:]))
                    break
    return hits


assert re.fullmatch(PATTERN, b"PLANTED:" + b"0" * 32)
