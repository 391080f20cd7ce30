"""Attack (wrong answer): forges the verdict through every channel it can find: opens
/dev/null, /dev/zero, /dev/urandom, /dev/tty and /judge/* (the container backend's
files), writes a fake "accepted" verdict and a fake result-slot header on every file
descriptor 0..1023 on every call, and, once while loading, writes fake slot headers
claiming an accepted result at the start of every writable mmap it can reach through the
garbage collector (the harness's result, input and progress mappings among them).  Then it
returns a table of zeros.  (The maps are forged before the first call, not after it: a
header written over a slot its own call already filled only spoils that result, and whether
the judge read it first depends on the mode, so the verdict would too.)
Descriptors 0-2 are the capture files, every other descriptor is closed, the slots it
scribbles on are its own (a later call's header replaces them, and the judge validates
each header and compares the bytes itself), and the verdict never comes from the
learner's output: wrong answer."""
# harm: forge_verdict_channels
# diagnosis: forged_verdict
import numpy as np

gc = __import__("g" + "c")
mmap = __import__("mm" + "ap")

_os = __import__("o" + "s")
_json = __import__("js" + "on")
_struct = __import__("str" + "uct")
_FAKE = b'{"status": "accepted", "score": 1.0, "verdict": "accepted"}\n'
_SLOT = {"outcome": "array", "time_ns": 1, "dtype": "<f8", "shape": [3, 4], "nbytes": 96, "changed": []}


def _fake_header():
    payload = _json.dumps(_SLOT).encode()
    return _struct.pack("<8sI", b"JDGSLOT1", len(payload)) + payload


def _forge_maps():
    maps = 0
    for obj in gc.get_objects():
        for ref in gc.get_referents(obj):
            if isinstance(ref, mmap.mmap):
                try:
                    header = _fake_header()
                    ref[0:len(header)] = header
                    maps += 1
                except (TypeError, ValueError, IndexError):
                    pass
    print("FORGED", maps, "maps", flush=True)


def _forge():
    opened = []
    for path in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/tty", "/judge/results", "/judge/progress",
                 "/judge/stdout", "/judge/stderr", "/judge/request.json", "/judge/inputs"):
        try:
            opened.append(_os.open(path, _os.O_RDWR))
        except OSError:
            try:
                opened.append(_os.open(path, _os.O_WRONLY))
            except OSError:
                pass
    written = 0
    for fd in range(1024):
        for data in (_FAKE, _fake_header()):
            try:
                _os.write(fd, data)
                written += 1
            except OSError:
                pass
    for fd in opened:
        _os.close(fd)
    print("accepted", flush=True)
    print("FORGED", written, "writes", flush=True)


_forge_maps()


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _forge()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _forge()
    return np.zeros(np.shape(x))
