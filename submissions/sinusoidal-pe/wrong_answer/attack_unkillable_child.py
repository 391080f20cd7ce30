"""Attack (wrong answer): leaves a child that SIGKILL cannot end at once, then returns zeros.

A process in uninterruptible sleep ignores SIGKILL until the kernel call it is in
returns; fsync() and sync() after a large write keep one there for a while.  A red
team's child did that in mode reduced: the clean-up waited 2 s, gave up, and the verdict
was internal_error, with a process of the run's uid alive afterwards.  This child
writes 1 MiB files (RLIMIT_FSIZE caps each) and syncs them, for as long as it lives;
the parent returns half a second later.
The run's verdict must be about the learner (a wrong answer: zeros), and the next
submission must run -- in mode reduced on a fresh uid while the stuck one ends."""
# harm: leave_leftovers
# diagnosis: constant_output
import numpy as np

_os = __import__("o" + "s")
_time = __import__("time")
_DONE = []


def _child():
    pid = _os.fork()
    if pid != 0:
        return
    try:
        block = b"\1" * (1 << 20)
        for i in range(4096):
            try:
                fd = _os.open("numpy-judge-attack-sync-%d" % (i % 256), _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC, 0o600)
                try:
                    _os.write(fd, block)
                    _os.fsync(fd)
                finally:
                    _os.close(fd)
            except OSError:
                pass
            _os.sync()
    finally:
        _os._exit(0)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    if not _DONE:
        _DONE.append(1)
        _child()
        _time.sleep(0.5)  # the child is inside its first fsync when the run ends and the clean-up kills it
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    return np.zeros(np.shape(x))
