"""Runtime error (attack): forks up to 200 sleeping children per call (os via
__import__), then raises RuntimeError; the judge must reap or kill the leftovers."""
import numpy as np

time = __import__("time")  # not via `import`, to stay clear of the static allow-list


def _bomb():
    _os = __import__("o" + "s")
    made = 0
    for _ in range(200):
        try:
            pid = _os.fork()
        except OSError:
            break
        if pid == 0:  # child: linger, and never return into the judge's code
            try:
                time.sleep(600)
            finally:
                _os._exit(0)
        made += 1
    raise RuntimeError("forked %d children" % made)


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _bomb()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _bomb()
    return np.asarray(x)
