"""Time limit exceeded (attack): ignores SIGXCPU, SIGTERM, SIGINT, SIGALRM, SIGHUP
(signal module via __import__) and then spins forever; only SIGKILL can stop it."""
import numpy as np


def _ignore_signals():
    sig = __import__("sig" + "nal")
    for name in ("SIGXCPU", "SIGTERM", "SIGINT", "SIGALRM", "SIGHUP", "SIGVTALRM", "SIGPROF"):
        try:
            sig.signal(getattr(sig, name), sig.SIG_IGN)
        except Exception:  # e.g. not in the main thread: spin anyway
            pass


def _spin():
    _ignore_signals()
    n = 0
    while True:
        n += 1


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _spin()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _spin()
    return np.asarray(x)
