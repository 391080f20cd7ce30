"""Runtime error (attack): opens a TCP socket (module fetched via __import__) and
connects to 127.0.0.1:8080; the sandbox refuses it and the exception propagates."""
import numpy as np


def _phone_home():
    sock_mod = __import__("sock" + "et")
    s = sock_mod.socket(sock_mod.AF_INET, sock_mod.SOCK_STREAM)  # EPERM under seccomp
    try:
        s.settimeout(1.0)
        s.connect(("127.0.0.1", 8080))
        s.sendall(b"GET /answers HTTP/1.0\r\n\r\n")
    finally:
        s.close()
    raise RuntimeError("network was reachable - sandbox leak")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _phone_home()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _phone_home()
    return np.asarray(x)
