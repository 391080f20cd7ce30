"""Attack (runtime error): tries to tamper with the judge and the host: append to the
problem bundle's reference.py and cases.yaml (so the next verdicts would compare against
its own output), write into the judge's disk cache of expected outputs, and create
files in /, /usr, /root, /etc, /var/tmp and /dev/shm, and a marker file in /tmp.  The
bundle and the cache do not exist in the sandbox and its root is read-only for uid
65534, so every attempt fails (the /tmp it writes is the sandbox's private one); it
then raises with the list of what failed (it never computes a table)."""
# harm: write_outside_sandbox
import numpy as np

_os = __import__("o" + "s")
_MARK = "numpy-judge-attack-write-bundle"
_BUNDLE = ["/work/main/problems/sinusoidal-pe/reference.py", "/work/main/problems/sinusoidal-pe/cases.yaml",
           "/opt/judge/problems/sinusoidal-pe/reference.py", "/opt/judge/problems/sinusoidal-pe/cases.yaml"]
_CACHES = ["/root/.cache/numpy-judge", "/var/cache/numpy-judge"]
_NEW = ["/" + _MARK, "/usr/" + _MARK, "/root/" + _MARK, "/etc/" + _MARK, "/var/tmp/" + _MARK,
        "/dev/shm/" + _MARK, "/usr/lib/" + _MARK]


def _tamper():
    wrote, failed = [], []

    def attempt(path, mode, data):
        try:
            with open(path, mode) as fh:
                fh.write(data)
            wrote.append(path)
        except OSError as exc:
            failed.append("%s (%s)" % (path, type(exc).__name__))

    for path in _BUNDLE:
        attempt(path, "ab", b"\n# " + _MARK.encode() + b"\n")
    for cache in _CACHES:
        try:
            entries = [_os.path.join(cache, e) for e in _os.listdir(cache)]
        except OSError as exc:
            failed.append("%s (%s)" % (cache, type(exc).__name__))
            entries = []
        for entry in entries:
            for name in (_os.listdir(entry) if _os.path.isdir(entry) else []):
                attempt(_os.path.join(entry, name), "r+b", b"\0" * 64)
        attempt(_os.path.join(cache, _MARK), "wb", b"x")
    for path in _NEW:
        attempt(path, "wb", b"x")
    try:
        _os.chmod("/tmp", 0o777)
    except OSError as exc:
        failed.append("chmod /tmp (%s)" % type(exc).__name__)
    try:  # the sandbox's own /tmp is writable: it must be private (the test looks for this marker on the host)
        with open("/tmp/" + _MARK, "wb") as fh:
            fh.write(b"x")
        print("PRIVATE-TMP", "/tmp/" + _MARK, flush=True)
    except OSError as exc:
        failed.append("/tmp/%s (%s)" % (_MARK, type(exc).__name__))
    if wrote:
        print("WROTE", wrote, flush=True)
    raise RuntimeError("wrote %d, failed: %s" % (len(wrote), "; ".join(failed)))


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _tamper()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _tamper()
    return np.zeros(np.shape(x))
