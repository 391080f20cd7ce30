"""Attack (time limit exceeded): sends itself SIGSEGV, SIGTERM, SIGXCPU and SIGHUP with
handlers set to ignore them (the kernel honours SIG_IGN for signals sent with kill()),
hoping to make the judge misreport a crash or a CPU overrun, and then SIGSTOP, which
cannot be ignored: the process stops forever, using no CPU.  Only the judge's own wall
clock can end it: the per-call wall limit kills the sandbox (SIGKILL reaches a stopped
process) and the verdict is time_limit_exceeded, not a crash."""
# harm: signals_to_itself
import numpy as np

_os = __import__("o" + "s")
_signal = __import__("sig" + "nal")


def _signals():
    me = _os.getpid()
    for name in ("SIGSEGV", "SIGTERM", "SIGXCPU", "SIGHUP", "SIGSTOP"):
        sig = getattr(_signal, name)
        try:
            _signal.signal(sig, _signal.SIG_IGN)
            print("IGNORING", name, flush=True)
        except (OSError, ValueError, RuntimeError) as exc:  # SIGSTOP cannot be caught or ignored
            print("CANNOT-IGNORE", name, type(exc).__name__, flush=True)
        _os.kill(me, sig)
        print("SURVIVED", name, flush=True)
    raise RuntimeError("still running after SIGSTOP")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _signals()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _signals()
    return np.zeros(np.shape(x))
