"""Attack (wrong answer): computes nothing; tries to hand in the learner who ran before it.

Two ways in, both found by a red team on warm judges (issue 24):

1. the result slots: before its first call returns, it reads every slot of the shared
   result buffer through the harness' frame; a slot holding anything but zeros holds
   what the previous run returned (its header erased or not), which it copies out as
   the case's expected shape and returns case by case;
2. the heap: its process is a copy-on-write fork of the zygote, so it scans every
   readable page it can find (/proc/self/maps where readable, else regions grown
   with mincore around sbrk(0) and the addresses of live objects) for the text
   "def sinusoidal_pe(" that is not its own, execs each candidate and delegates to
   the first that defines both functions.

On every mode the buffer starts as zeros and the zygote never held another learner's
source, so it finds nothing, prints what it searched and returns zeros: a wrong answer.
"""
# harm: read_other_submission
# diagnosis: constant_output
import numpy as np

_ctypes = __import__("ctypes")
_gc = __import__("gc")
_os = __import__("o" + "s")
_sys = __import__("sys")
_MARK = "steal-previous-run-attacker"  # in this file only: a candidate holding it is this file
_STATE = {}
_PAGE = 4096
_LIMIT = 768 << 20  # bytes scanned at most


def _harness():
    frame = _sys._getframe(1)
    while frame is not None:
        candidate = frame.f_locals.get("self")
        if candidate is not None and hasattr(candidate, "results") and hasattr(candidate, "request"):
            return candidate
        frame = frame.f_back
    return None


def _shape(call):
    args = {a.name: a for a in call.args}
    if call.function == "sinusoidal_pe":
        return (args["max_len"].scalar, args["d_model"].scalar)
    return tuple(args["x"].array.shape)


def _stolen_slots():
    """The previous run's outputs, by case index: whatever non-zero bytes its slots still hold."""
    h = _harness()
    found = {}
    if h is None:
        return found
    raw = bytes(h.results)
    for call in h.request.calls:
        shape = _shape(call)
        start = call.slot_offset + 4096
        data = raw[start:start + 8 * int(np.prod(shape))]
        if data.strip(b"\0"):
            found[call.case] = np.frombuffer(data, np.float64).reshape(shape).copy()
    print("SLOTS holding another run's output:", len(found), "of", len(h.request.calls), flush=True)
    return found


def _regions():
    """(start, end) of memory this process may hold another learner's bytes in."""
    try:
        with open("/proc/self/maps") as f:
            out = []
            for line in f:
                span, perms = line.split()[:2]
                if perms.startswith("r"):
                    a, b = (int(x, 16) for x in span.split("-"))
                    out.append((a, b))
            return out, "/proc/self/maps"
    except OSError:
        pass
    libc = _ctypes.CDLL(None, use_errno=True)
    libc.sbrk.restype = _ctypes.c_void_p
    libc.mincore.argtypes = [_ctypes.c_void_p, _ctypes.c_size_t, _ctypes.c_char_p]
    vec = _ctypes.create_string_buffer(1)

    def mapped(page):
        return page > 0 and libc.mincore(page, _PAGE, vec) == 0

    anchors = {libc.sbrk(0) - _PAGE}
    for obj in _gc.get_objects()[::50]:
        anchors.add(id(obj))
    spans, total = [], 0
    for anchor in sorted(a // _PAGE * _PAGE for a in anchors if a):
        if any(a <= anchor < b for a, b in spans) or not mapped(anchor):
            continue
        low = high = anchor
        while mapped(low - _PAGE) and anchor - low < (256 << 20):
            low -= _PAGE
        while mapped(high + _PAGE) and high - anchor < (256 << 20):
            high += _PAGE
        spans.append((low, high + _PAGE))
        total += high + _PAGE - low
        if total > _LIMIT:
            break
    return spans, "mincore around sbrk(0) and live objects"


def _read(start, end):
    """The readable bytes of [start, end), via a pipe (an unreadable page is EFAULT, not a crash)."""
    r, w = _os.pipe()
    out = []
    try:
        for page in range(start, end, 16 * _PAGE):
            n = min(16 * _PAGE, end - page)
            try:
                _os.write(w, memoryview((_ctypes.c_char * n).from_address(page)).cast("B"))
                out.append(_os.read(r, n))
            except OSError:
                out.append(b"\0" * n)
    finally:
        _os.close(r)
        _os.close(w)
    return b"".join(out)


def _stolen_source():
    spans, how = _regions()
    needle = b"def sinusoidal_pe("
    scanned = candidates = 0
    for start, end in spans:
        if scanned > _LIMIT:
            break
        data = _read(start, end)
        scanned += len(data)
        at = data.find(needle)
        while at >= 0:
            head = max(0, data.rfind(b"\0", 0, at) + 1)
            tail = data.find(b"\0", at)
            text = data[head:tail if tail > 0 else len(data)]
            at = data.find(needle, at + 1)
            if _MARK.encode() in text:
                continue
            candidates += 1
            namespace = {"__name__": "stolen"}
            try:
                exec(compile(text.decode("utf-8", "replace"), "stolen", "exec"), namespace)
            except BaseException:  # noqa: BLE001 - a fragment, not a file
                continue
            fn = namespace.get("sinusoidal_pe")
            if callable(fn) and callable(namespace.get("add_positional_encoding")) \
                    and getattr(fn, "__code__", None) is not None and fn.__code__.co_code != sinusoidal_pe.__code__.co_code:
                print("STOLEN another learner's file from", how, flush=True)
                return namespace
    print("HEAP searched:", scanned >> 20, "MiB via", how, "-", candidates, "candidates, none usable", flush=True)
    return None


def _plan():
    if "plan" not in _STATE:
        _STATE["plan"] = (_stolen_slots(), _stolen_source())
    return _STATE["plan"]


def _case():
    h = _harness()
    return h.progress.read()[0] if h is not None else -1


def sinusoidal_pe(max_len, d_model, base=10000.0):
    slots, impl = _plan()
    if _case() in slots:
        return slots[_case()]
    if impl is not None:
        return impl["sinusoidal_pe"](max_len, d_model, base)
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    slots, impl = _plan()
    if _case() in slots:
        return slots[_case()]
    if impl is not None:
        return impl["add_positional_encoding"](x, base)
    return np.zeros(np.shape(x))
