"""Judge overhead benchmark.  Run by hand, as root, on an otherwise idle machine:

    python3 bench/bench.py [--submission FILE] [--runs 20]

Prints, side by side for one correct vectorised submission and the full case
suite of sinusoidal-pe: (1) the in-process floor, (1b) the same with transparent huge pages off (as the
sandbox runs the learner's process), (2) warm ``Judge().grade`` -- (1), (1b) and (2) measured round by round
in one run, the warm overhead being the median of each round's own difference, printed with its spread
(``--warm`` prints that alone) --
(3) cold ``judge grade``, (4) a fresh isolated interpreter per submission
(bubblewrap, as bubblewrap-style judges do), (5) a pytest run per submission in
a fresh process (as course autograders do), (6) a container per submission
(when a Docker engine answers), (8-10) each course platform's packaged run (cold
container start to results file, with the platform's own flags; images from
``.ci/docker.sh platforms``); then ratios, (7) the diagnosis cost of a wrong
answer (``--diagnosis-only`` for that alone), throughput with 1 and 2 workers and
the judge's peak RSS on the largest case.  ``--counterexamples`` prints (11) alone: what the counterexample
search adds to each wrong example's verdict, side by side with the verdict without it.  ``--notebooks`` prints
(12) alone: cold ``judge grade`` of a notebook beside its ``.py`` twin.  ``--modes`` prints (8) alone: the warm
cost per verdict of each isolation mode this machine gives (run it as root, as a
normal user, and inside a default ``docker run`` to see all four).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge import Judge  # noqa: E402
from judge.grading.compare import compare_arrays  # noqa: E402

PROBLEM = "sinusoidal-pe"


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def _load_submission(submission: Path):  # noqa: ANN202 - the learner's module
    spec = importlib.util.spec_from_file_location("bench_submission", submission)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _floor_once(prepared, module, thp_off: bool = False, collect: bool = True) -> float:  # noqa: ANN001
    """One pass of (1): every case's call and comparison in this process, in seconds.  ``thp_off``: with
    transparent huge pages off for this process during the pass, as the sandbox's learner process runs
    (``PR_SET_THP_DISABLE`` in :func:`judge.sandbox.kernel.lockdown.lock_down`): its arrays then fault in 4 KiB pages.
    ``collect``: a full garbage collection first, outside the timing."""
    from judge.sandbox.kernel import linux

    args = [{k: (np.array(v) if isinstance(v, np.ndarray) else v) for k, v in ci.values.items()}
            for ci in prepared.inputs.cases]  # writable copies, made outside the timing
    if collect:
        gc.collect()
    if thp_off:
        linux.prctl(linux.PR_SET_THP_DISABLE, 1)
    try:
        start = time.perf_counter()
        for case, kwargs in zip(prepared.cases, args):
            out = getattr(module, case.spec.function)(**kwargs)
            assert compare_arrays(out, case.expected, case.tolerance, False).ok, case.spec.id
        return time.perf_counter() - start
    finally:
        if thp_off:
            linux.prctl(linux.PR_SET_THP_DISABLE, 0)


def _warm_once(judge: Judge, source: str, collect: bool = True) -> float:
    """One warm verdict (2), in seconds; ``collect``: a full garbage collection first, outside the timing (not
    between two verdicts meant to follow each other: the last one's scrub would go on meanwhile)."""
    if collect:
        gc.collect()
    start = time.perf_counter()
    verdict = judge.grade(source, PROBLEM)
    elapsed = time.perf_counter() - start
    assert verdict.accepted, verdict.message
    return elapsed


@dataclass
class Paired:
    """(1), (1b) and (2) measured side by side: per round one of each, in an order that rotates every round, so
    that the machine's load, its lazily backed memory (this VM's host takes back freed guest memory: touching
    memory not used lately costs far more than memory just freed) and the GC fall on all three alike.  The
    overhead is the median of each round's own difference, never a difference of two medians measured apart."""

    floor: list[float]  #: (1) ms per round
    floor_thp_off: list[float]  #: (1b) ms per round
    warm: list[float]  #: (2) ms per round

    @staticmethod
    def _spread(values: list[float]) -> str:
        q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        return (f"median {statistics.median(values):.1f}, quartiles {q[0]:.1f}..{q[2]:.1f}, "
                f"min {min(values):.1f}, max {max(values):.1f}")

    @property
    def overheads(self) -> list[float]:
        return [w - f for w, f in zip(self.warm, self.floor)]

    @property
    def machinery(self) -> list[float]:
        """(2) - (1b): what the sandbox costs beyond running the learner's code with 4 KiB pages."""
        return [w - f for w, f in zip(self.warm, self.floor_thp_off)]

    @property
    def thp(self) -> list[float]:
        """(1b) - (1): what small pages cost the learner's own calls."""
        return [n - f for n, f in zip(self.floor_thp_off, self.floor)]

    def report(self) -> str:
        ratios = [w / f for w, f in zip(self.warm, self.floor)]
        return "\n".join([
            f"warm overhead (2 - 1), per round: {self._spread(self.overheads)} ms over {len(self.warm)} rounds "
            f"(target <= 15); ratio 2/1 median {statistics.median(ratios):.2f} (target <= 1.3)",
            f"  of which THP off in the learner's process (1b - 1): {self._spread(self.thp)} ms",
            f"  of which the sandbox's machinery (2 - 1b):          {self._spread(self.machinery)} ms",
            f"  load average {Path('/proc/loadavg').read_text().strip()}"])


def paired(judge: Judge, submission: Path, source: str, runs: int, settle: int = 2) -> Paired:
    """(1), (1b) and (2) side by side, ``runs`` rounds after ``settle`` rounds that are not counted (the first
    touch of memory not used lately, the judge's caches).  Each sample is the second of two back-to-back
    passes of its kind (the first untimed), as verdicts come when submissions queue up: a warm verdict then
    pays whatever the previous one left to do (its buffer's scrub), and each kind starts on memory it just
    freed."""
    prepared = judge.problem(PROBLEM)
    module = _load_submission(submission)
    kinds = ("floor", "floor_thp_off", "warm")
    samples: dict[str, list[float]] = {k: [] for k in kinds}
    for round_ in range(settle + runs):
        order = kinds[round_ % 3:] + kinds[:round_ % 3]
        if round_ % 2:
            order = tuple(reversed(order))
        for kind in order:
            for first in (True, False):
                if kind == "warm":
                    seconds = _warm_once(judge, source, collect=first)
                else:
                    seconds = _floor_once(prepared, module, thp_off=kind == "floor_thp_off", collect=first)
            if round_ >= settle:
                samples[kind].append(seconds * 1e3)
    return Paired(**samples)


def warm(judge: Judge, source: str, runs: int) -> float:
    """(2) Warm Judge().grade, median of ``runs`` verdicts."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        verdict = judge.grade(source, PROBLEM)
        samples.append(time.perf_counter() - start)
        assert verdict.accepted, verdict.message
    return median_ms(samples)


def compile_checkout() -> None:
    """Byte-compile this checkout's judge and bundles once, as installing a wheel does (pip compiles every
    module).  Without it, an environment with PYTHONDONTWRITEBYTECODE=1 (as some CI and sandboxes set)
    makes every cold run recompile ~35 modules from source, ~0.1 s of CPU that no installed judge pays."""
    import compileall

    for folder in (REPO / "judge", REPO / "problems"):
        compileall.compile_dir(folder, quiet=1)


def _children() -> set[int]:
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            pass
    return pids


def _reap_orphans(own: set[int]) -> None:
    """Wait for every process reparented to this bench (its children but ``own``): after a one-shot grading
    the zygote finishes alone (it frees the run's files and removes its cgroup after the judge has exited),
    and as this process's subreaper the bench waits for it, so that its CPU is counted and its clean-up never
    falls on the next measured run."""
    for pid in _children() - own:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def cold_cli(submission: Path, runs: int, cpu: list[float] | None = None) -> float:
    """(3) `judge grade FILE` as a fresh command (expected outputs come from the disk cache); its time is
    the command's, up to its exit.  ``cpu`` collects each run's CPU ms: the command's and every process
    it started (the zygote, reaped by this bench after the command exits: :func:`_reap_orphans`)."""
    import resource

    from judge.sandbox.kernel import linux

    compile_checkout()
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
    samples = []
    for _ in range(runs):
        own = _children()  # e.g. the zygotes of this bench's own Judge
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "judge", "grade", str(submission), "--format", "json"],
                           capture_output=True, cwd=REPO)   # this checkout's judge, not an installed one
        samples.append(time.perf_counter() - start)
        _reap_orphans(own)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert p.returncode == 0, p.stderr.decode()[-500:]
        if cpu is not None:
            cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3)
    return median_ms(samples)


class CpuGroup:
    """A cgroup counting the CPU of this process and of everything it starts while inside, even processes
    it does not wait for (bubblewrap's sandboxed interpreter): cgroup v1 cpuacct or v2, as root; else
    unusable.  The bench moves itself in and out (``enter``/``leave``), so the command is spawned exactly
    as without it (a preexec_fn would make subprocess fork instead of vfork, ~25 ms slower here)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        for base, counter, controller in ((Path("/sys/fs/cgroup/cpuacct"), "cpuacct.usage", "cpuacct"),
                                          (Path("/sys/fs/cgroup"), "cpu.stat", "")):
            home = next((line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                         if controller in line.split(":")[1].split(",")), None)
            try:
                path = base / f"bench-cpu-{os.getpid()}"
                path.mkdir()
            except OSError:
                continue
            if (path / counter).exists() and home is not None:
                self.path, self.counter, self.home = path, counter, base / home.lstrip("/")
                break
            path.rmdir()

    def usage_ms(self) -> float:
        text = (self.path / self.counter).read_text()
        if self.counter == "cpuacct.usage":
            return int(text) / 1e6
        return int(next(line.split()[1] for line in text.splitlines() if line.startswith("usage_usec"))) / 1e3

    def enter(self) -> None:
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def leave(self) -> None:
        (self.home / "cgroup.procs").write_text(str(os.getpid()))

    def close(self) -> None:
        if self.path is not None:
            self.path.rmdir()


_FRESH_RUNNER = r'''
import importlib.util, json, sys, numpy as np
spec = importlib.util.spec_from_file_location("s", "/sub/submission.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
calls = json.load(open("/io/calls.json"))
inputs = np.load("/io/inputs.npz")
with open("/out/results.bin", "wb") as f:
    for i, c in enumerate(calls):
        kwargs = {k: (np.array(inputs[f"{i}-{k}"]) if v == "array" else v) for k, v in c["args"].items()}
        out = np.ascontiguousarray(getattr(m, c["function"])(**kwargs))
        head = json.dumps({"dtype": out.dtype.str, "shape": out.shape}).encode()
        f.write(len(head).to_bytes(4, "little") + head); f.write(out.tobytes())
'''


def cold_pair(judge: Judge, submission: Path, runs: int, cpu: dict[str, list[float]] | None = None
              ) -> tuple[float, float | None, list[float], list[str]]:
    """(3) and (4) side by side: the runs alternate (3, 4, 3, 4, ...) so that the machine's load, shared
    with other work, falls on both paths alike.  Returns both medians, each pair's ratio 3/4 and the
    load average (/proc/loadavg, 1 min) read before each pair; ``cpu`` ({"3": [], "4": []}) collects the
    CPU ms of each run, which the load stretches far less than wall time."""
    cold, fresh, ratios, loads = [], [], [], []
    group = CpuGroup() if cpu is not None else None
    try:
        for _ in range(runs):
            loads.append(Path("/proc/loadavg").read_text().split()[0])
            c = cold_cli(submission, 1, cpu["3"] if cpu is not None else None)
            f = fresh_isolated(judge, submission, 1, cpu["4"] if cpu is not None else None, group)
            cold.append(c)
            if f is not None:
                fresh.append(f)
                ratios.append(c / f)
    finally:
        if group is not None:
            group.close()
    return statistics.median(cold), (statistics.median(fresh) if fresh else None), ratios, loads


def _io_dir(judge: Judge, tmp: Path) -> None:
    prepared = judge.problem(PROBLEM)
    calls, arrays = [], {}
    for i, (case, ci) in enumerate(zip(prepared.cases, prepared.inputs.cases)):
        args = {}
        for k, v in ci.values.items():
            if isinstance(v, np.ndarray):
                arrays[f"{i}-{k}"] = np.array(v)
                args[k] = "array"
            else:
                args[k] = v
        calls.append({"function": case.spec.function, "args": args})
    (tmp / "calls.json").write_text(json.dumps(calls))
    np.savez(tmp / "inputs.npz", **arrays)
    (tmp / "runner.py").write_text(_FRESH_RUNNER)


def _compare_results(judge: Judge, path: Path) -> None:
    prepared = judge.problem(PROBLEM)
    data = memoryview(path.read_bytes())
    pos = 0
    for case in prepared.cases:
        n = int.from_bytes(data[pos:pos + 4], "little")
        head = json.loads(bytes(data[pos + 4:pos + 4 + n]))
        pos += 4 + n
        dtype = np.dtype(head["dtype"])
        size = int(np.prod(head["shape"])) * dtype.itemsize
        out = np.frombuffer(data[pos:pos + size], dtype).reshape(head["shape"])
        pos += size
        assert compare_arrays(out, case.expected, case.tolerance, False).ok


def fresh_isolated(judge: Judge, submission: Path, runs: int, cpu: list[float] | None = None,
                   group: CpuGroup | None = None) -> float | None:
    """(4) bubblewrap + a fresh interpreter per submission, then the same comparisons.  With ``group``,
    ``cpu`` collects each run's CPU ms (the sandbox's, counted by the cgroup, and the comparison's)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    prefix = Path(sys.prefix).resolve()
    samples = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        (tmp / "io").mkdir()
        (tmp / "sub").mkdir()
        (tmp / "out").mkdir()
        _io_dir(judge, tmp / "io")
        shutil.copy(submission, tmp / "sub" / "submission.py")
        cmd = [bwrap, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr",
               "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
               "--ro-bind", str(prefix), str(prefix), "--ro-bind", str(tmp / "io"), "/io",
               "--ro-bind", str(tmp / "sub"), "/sub", "--bind", str(tmp / "out"), "/out", "--tmpfs", "/tmp",
               "--dev", "/dev", "--proc", "/proc", "--clearenv", "--setenv", "OPENBLAS_NUM_THREADS", "1",
               sys.executable, "-s", "/io/runner.py"]
        for _ in range(runs):
            counted = group is not None and group.path is not None and cpu is not None
            if counted:  # the sandboxed interpreter's CPU and this process's (spawn, comparison)
                group.enter()
                group_before = group.usage_ms()
            start = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True)
            assert p.returncode == 0, p.stderr.decode()[-800:]
            _compare_results(judge, tmp / "out" / "results.bin")
            samples.append(time.perf_counter() - start)
            if counted:
                cpu.append(group.usage_ms() - group_before)
                group.leave()
    return median_ms(samples)


_PYTEST_FILE = r"""
import importlib.util, json, pathlib, numpy as np, pytest
HERE = pathlib.Path(__file__).parent
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path); m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m); return m
sub, ref = load("sub", HERE / "submission.py"), load("ref", HERE / "reference.py")
CALLS = json.loads((HERE / "calls.json").read_text())
INPUTS = np.load(HERE / "inputs.npz")
@pytest.mark.parametrize("i", range(len(CALLS)))
def test_case(i):
    c = CALLS[i]
    kwargs = {k: (np.array(INPUTS[f"{i}-{k}"]) if v == "array" else v) for k, v in c["args"].items()}
    expected = getattr(ref, c["function"])(**kwargs)
    copies = {k: (np.array(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    got = getattr(sub, c["function"])(**copies)
    tol = 1e-6 if any(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in kwargs.values()) else 1e-9
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
"""


def pytest_per_submission(judge: Judge, submission: Path, runs: int) -> float:
    """(5) A pytest run per submission in a fresh process, reference computed in the test, as course autograders do."""
    samples = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        _io_dir(judge, tmp)
        shutil.copy(submission, tmp / "submission.py")
        shutil.copy(judge.problem(PROBLEM).bundle.reference_path, tmp / "reference.py")
        (tmp / "test_submission.py").write_text(_PYTEST_FILE)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        for _ in range(runs):
            start = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp)],
                               capture_output=True, cwd=tmp, env=env)
            samples.append(time.perf_counter() - start)
            assert p.returncode == 0, p.stdout.decode()[-1500:]
    return median_ms(samples)


def container(source: str, runs: int) -> float | None:
    """(6) One container per submission through the docker SDK (the container backend)."""
    try:
        import docker

        docker.from_env().ping()
        with Judge(backend="container") as judge:
            judge.grade(source, PROBLEM)
            return warm(judge, source, runs)
    except Exception as exc:  # noqa: BLE001 - no engine here: say so
        print(f"  (container path skipped: {type(exc).__name__}: {str(exc)[:120]})")
        return None


PLATFORM_RUNS = {   # the platform's own flags (tests/platforms/test_platforms.py), mounts, and where the result lands
    "gradescope": (["--memory", "768m", "--cpus", "0.5"], ["-v", "{sub}:/autograder/submission",
                   "-v", "{out}:/autograder/results"], ["/autograder/run_autograder"], "results.json"),
    "prairielearn": (["--network", "none", "-m", "2g", "--memory-swap", "2g", "--cpu-quota", "90000",
                      "--pids-limit", "1024"], ["-v", "{job}:/grade"], [], "results/results.json"),
    "exercism": (["--network", "none", "--read-only", "--tmpfs", "/tmp"],
                 ["-v", "{sub}:/solution", "-v", "{out}:/output"], ["sinusoidal-pe", "/solution/", "/output/"],
                 "results.json"),
}


def packaged(platform: str, submission: Path, runs: int) -> float | None:
    """(8-10) `docker run` of the platform's image on one submission: cold container start to its results file."""
    image = f"numpy-judge-{platform}:ci"
    if shutil.which("docker") is None or subprocess.run(["docker", "image", "inspect", image],
                                                         capture_output=True).returncode != 0:
        print(f"  ({platform} package skipped: no image {image}; build it with .ci/docker.sh platforms)")
        return None
    flags, mounts, args, result = PLATFORM_RUNS[platform]
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmpdir:
            tmp = Path(tmpdir)
            sub, out, job = tmp / "sub", tmp / "out", tmp / "job"
            for d in (sub, out, job / "student", job / "data"):
                d.mkdir(parents=True)
            shutil.copy(submission, sub / "sinusoidal_pe.py")
            shutil.copy(submission, job / "student" / "sinusoidal_pe.py")
            shutil.copytree(REPO / "problems" / PROBLEM, job / "tests" / "problem")
            (job / "data" / "data.json").write_text("{}")
            where = {"sub": sub, "out": out, "job": job}
            cmd = ["docker", "run", "--rm", *flags, *[m.format(**where) for m in mounts], image, *args]
            start = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True)
            samples.append(time.perf_counter() - start)
            written = (job if platform == "prairielearn" else out) / result
            assert p.returncode == 0 and written.is_file(), p.stderr[-500:]
    return median_ms(samples)


def throughput(source: str, workers: int, verdicts: int) -> float:
    with Judge(workers=workers) as judge:
        judge.warm_up()
        judge.grade(source, PROBLEM)
        done = [0]
        lock = threading.Lock()

        def client() -> None:
            while True:
                with lock:
                    if done[0] >= verdicts:
                        return
                    done[0] += 1
                assert judge.grade(source, PROBLEM).accepted

        start = time.perf_counter()
        threads = [threading.Thread(target=client) for _ in range(workers * 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return verdicts / (time.perf_counter() - start)


_PEAK = r'''
import sys
sys.path.insert(0, sys.argv[1])
from judge import Judge
def hwm():  # this process's peak RSS in KiB (ru_maxrss would include the parent's, kept across exec)
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
with Judge() as j:
    j.problem(sys.argv[2])
    base = hwm()
    v = j.grade(open(sys.argv[3]).read(), sys.argv[2])
    assert v.accepted, v.message
    print(base, hwm())
'''


def peak_rss_largest(submission: Path) -> tuple[float, float, float]:
    """Judge peak RSS (MiB) grading a bundle holding only the 8192 x 1024 case, and one output's size."""
    import yaml

    with tempfile.TemporaryDirectory() as tmpdir:
        bundle = Path(tmpdir) / "largest-only"
        shutil.copytree(REPO / "problems" / PROBLEM, bundle)
        data = yaml.safe_load((bundle / "cases.yaml").read_text())
        data["cases"] = [c for c in data["cases"] if c["id"] == "table-largest"]
        (bundle / "cases.yaml").write_text(yaml.safe_dump(data))
        subprocess.run([sys.executable, "-c", _PEAK, str(REPO), str(bundle), str(submission)], check=True,
                       capture_output=True)  # first run fills the expected-output cache
        p = subprocess.run([sys.executable, "-c", _PEAK, str(REPO), str(bundle), str(submission)], check=True,
                           capture_output=True, text=True)
        base_kib, peak_kib = map(int, p.stdout.split())
    return peak_kib / 1024, (peak_kib - base_kib) / 1024, 8192 * 1024 * 8 / 2**20


def diagnosis_cost(judge: Judge, wrong: Path, runs: int) -> None:
    """(7) What explaining a wrong answer costs in the judge's process (target: <= 100 ms per verdict):
    explain() timed inside Judge.grade, cold (fresh caches) and warm, beside warm grade times, then the
    slowest warm figure over every wrong_answer example."""
    import judge.diagnosis as diagnosis

    spent: list[float] = []
    original = diagnosis.explain

    def timed(*a, **k):
        start = time.perf_counter()
        original(*a, **k)
        spent.append((time.perf_counter() - start) * 1e3)

    diagnosis.explain = timed
    try:
        judge.problem(PROBLEM).bundle.bank.cache.clear()
        source = wrong.read_text()
        grades = []
        for _ in range(runs):
            start = time.perf_counter()
            judge.grade(source, PROBLEM)
            grades.append(time.perf_counter() - start)
        cold, warm_ms = spent[0], statistics.median(spent[1:])
        print(f"\ndiagnosis of {wrong.relative_to(REPO)}: cold {cold:.1f} ms, warm median {warm_ms:.1f} ms per "
              f"verdict (target <= 100); warm grade of it {median_ms(grades):.0f} ms")
        worst = []
        for path in sorted((REPO / "submissions" / PROBLEM / "wrong_answer").glob("*.py")):
            if path.name.startswith("attack_"):
                continue
            spent.clear()
            judge.grade(path.read_text(), PROBLEM)   # caches warm from earlier verdicts of the same file
            judge.grade(path.read_text(), PROBLEM)
            worst.append((spent[-1], spent[0], path.name))
        worst.sort(reverse=True)
        print(
            f"diagnosis over {len(worst)} wrong_answer examples: "
            f"warm median {statistics.median(w[0] for w in worst):.1f} ms, "
            f"slowest warm {worst[0][0]:.1f} ms ({worst[0][2]}), slowest first-time {max(w[1] for w in worst):.1f} ms"
        )
    finally:
        diagnosis.explain = original


def counterexample_cost(runs: int) -> None:
    """(11) What the counterexample search adds to a verdict (target: <= 150 ms, median over the wrong
    examples; nothing to an accepted one): two warm judges side by side, with and without the search, each file
    graded by both in turn (which goes first alternates), per file the median of ``runs`` verdicts."""
    examples = []
    for problem in ("sinusoidal-pe", "rotary-embedding"):
        for folder in ("wrong_answer", "runtime_error", "accepted"):
            for path in sorted((REPO / "submissions" / problem / folder).glob("*.py")):
                if not path.name.startswith("attack_"):
                    examples.append((problem, folder, path))
    rows: list[tuple[str, str, float, float]] = []
    with Judge(counterexamples=True) as on, Judge(counterexamples=False) as off:
        for judge in (on, off):
            judge.warm_up()
        for problem, folder, path in examples:
            source = path.read_text()
            times: dict[bool, list[float]] = {True: [], False: []}
            for judge in (on, off):
                judge.grade(source, problem)  # caches (diagnosis, bank) warm in both
            for k in range(runs):
                for flag in ((True, False) if k % 2 == 0 else (False, True)):
                    start = time.perf_counter()
                    (on if flag else off).grade(source, problem)
                    times[flag].append(time.perf_counter() - start)
            rows.append((f"{problem}/{folder}/{path.name}", folder, median_ms(times[True]), median_ms(times[False])))
    print(f"{'example':64} {'with ms':>8} {'without':>8} {'added':>7}")
    for name, _, with_ms, without_ms in rows:
        print(f"{name[:64]:64} {with_ms:8.1f} {without_ms:8.1f} {with_ms - without_ms:7.1f}")
    wrong = [w - wo for _, folder, w, wo in rows if folder != "accepted"]
    right = [w - wo for _, folder, w, wo in rows if folder == "accepted"]
    ratio = statistics.median(w / wo for _, folder, w, wo in rows if folder != "accepted")
    print(
        f"\nsearch adds to a wrong verdict: median {statistics.median(wrong):.1f} ms over {len(wrong)} examples "
        f"(target <= 150), ratio with/without {ratio:.2f}; to an accepted one: median "
        f"{statistics.median(right):.1f} ms over {len(right)} (target ~0); "
        f"load {Path('/proc/loadavg').read_text().strip()}"
    )


def notebook_cost(runs: int) -> None:
    """(12) Cold ``judge grade`` of a notebook beside the same functions as a ``.py`` (target: <= 1.05x): for
    each example, its Colab-shaped twin (the file's paragraphs as cells between markdown, magics, a training
    loop, a plot and 200 kB of outputs per cell: tests/support/notebook.py) and the file itself, graded in turn
    (which goes first alternates), ``runs`` pairs, the median of each."""
    from tests.support.notebook import twin

    compile_checkout()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for folder, name in (("accepted", "vectorised.py"), ("wrong_answer", "sin_cos_swapped.py"),
                             ("runtime_error", "raises_index_error.py")):
            py = REPO / "submissions" / PROBLEM / folder / name
            nb = Path(tmp) / f"{py.stem}.ipynb"
            nb.write_text(twin(py.read_text(), "colab"))
            times: dict[str, list[float]] = {"py": [], "ipynb": []}
            for k in range(runs):
                for kind in (("py", "ipynb") if k % 2 == 0 else ("ipynb", "py")):
                    path = py if kind == "py" else nb
                    start = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "judge", "grade", str(path), "--format", "json"],
                                   capture_output=True, cwd=REPO)
                    times[kind].append(time.perf_counter() - start)
            rows.append((f"{folder}/{name}", median_ms(times["py"]), median_ms(times["ipynb"]), nb.stat().st_size))
    print(f"{'example':40} {'.py ms':>8} {'.ipynb ms':>10} {'ratio':>6} {'notebook bytes':>15}")
    for name, py_ms, nb_ms, size in rows:
        print(f"{name:40} {py_ms:8.1f} {nb_ms:10.1f} {nb_ms / py_ms:6.3f} {size:15d}")
    ratio = statistics.median(nb_ms / py_ms for _, py_ms, nb_ms, _ in rows)
    print(f"\nnotebook / .py, cold judge grade: median ratio {ratio:.3f} (target <= 1.05); "
          f"load {Path('/proc/loadavg').read_text().strip()}")


def modes(source: str, submission: Path, runs: int) -> None:
    """(8) Warm per-verdict cost of every isolation mode this machine gives, beside the floor."""
    from judge.sandbox.modes.ladder import check

    print(f"{'isolation mode':16} {'ms/verdict':>11} {'floor ms':>9} {'overhead ms':>12} {'x floor':>8}  limits by"
          "  (each mode beside its own floor, round by round: overhead = median of the rounds' differences)")
    for mode in ("full", "rootless", "reduced", "none"):
        rung = check(mode)
        if not rung.ok:
            print(f"{mode:16} {'n/a':>11}  ({rung.why[:90]})")
            continue
        with Judge(isolation=mode) as judge:
            judge.warm_up()
            verdict = judge.grade(source, PROBLEM)
            pairs = paired(judge, submission, source, runs)
        w, f = statistics.median(pairs.warm), statistics.median(pairs.floor)
        print(
            f"{mode:16} {w:11.1f} {f:9.1f} {statistics.median(pairs.overheads):12.1f} "
            f"{statistics.median(x / y for x, y in zip(pairs.warm, pairs.floor)):8.2f}  {verdict.isolation.limits_by}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--submission", type=Path, default=REPO / "submissions" / PROBLEM / "accepted" / "vectorised.py"
    )
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--slow-runs", type=int, default=5, help="runs of the cold/fresh/pytest/container paths")
    parser.add_argument("--wrong", type=Path, default=REPO / "submissions" / PROBLEM / "wrong_answer"
                        / "rw_float32_column_row0.py", help="wrong-answer file for the diagnosis cost (7)")
    parser.add_argument("--diagnosis-only", action="store_true", help="measure only the diagnosis cost (7)")
    parser.add_argument("--cold", action="store_true",
                        help="measure only (3) cold `judge grade` and (4) a fresh bwrap interpreter, alternating, "
                             "--slow-runs pairs, with the load average beside each pair")
    parser.add_argument("--counterexamples", action="store_true",
                        help="measure only what the counterexample search adds per verdict (11), with and without")
    parser.add_argument("--notebooks", action="store_true",
                        help="measure only cold `judge grade` of a notebook beside its .py twin (12)")
    parser.add_argument("--warm", action="store_true",
                        help="measure only (1), (1b) and (2) side by side, --runs rounds: the warm overhead and its "
                             "spread")
    parser.add_argument("--modes", action="store_true",
                        help="measure only the warm cost per isolation mode (8): every mode this machine gives")
    args = parser.parse_args()
    if args.counterexamples:
        counterexample_cost(max(3, args.runs // 4))
        return
    if args.notebooks:
        notebook_cost(args.slow_runs)
        return
    if args.modes:
        modes(args.submission.read_text(), args.submission, args.runs)
        return
    if args.warm:
        with Judge() as judge:
            judge.warm_up()
            judge.grade(args.submission.read_text(), PROBLEM)
            pairs = paired(judge, args.submission, args.submission.read_text(), args.runs)
        print(f"submission {args.submission.relative_to(REPO)}; numpy {np.__version__}; {os.cpu_count()} cores; "
              f"isolation {judge.isolation_mode}")
        for name, values in (("1 in-process floor (no isolation)", pairs.floor),
                             ("1b floor, THP off as in the sandbox", pairs.floor_thp_off),
                             ("2 Judge().grade warm", pairs.warm)):
            print(f"{name:40} {statistics.median(values):8.1f} ms (median)")
        print(pairs.report())
        return
    if args.diagnosis_only:
        with Judge() as judge:
            judge.warm_up()
            diagnosis_cost(judge, args.wrong, args.runs)
        return
    if args.cold:
        with Judge() as judge:
            judge.grade(args.submission.read_text(), PROBLEM)  # fills the expected-output cache, as a package does
            cpu: dict[str, list[float]] = {"3": [], "4": []}
            cold, fresh, ratios, loads = cold_pair(judge, args.submission, args.slow_runs, cpu)
        print(f"submission {args.submission.relative_to(REPO)}; {os.cpu_count()} cores; {args.slow_runs} pairs")
        cpu_ms = {k: f"; CPU {statistics.median(v):7.1f} ms" if v else "" for k, v in cpu.items()}
        print(f"3 judge grade, cold CLI                {cold:8.1f} ms (median){cpu_ms['3']}")
        print(f"4 fresh isolated interpreter (bwrap)   {fresh:8.1f} ms (median){cpu_ms['4']}" if fresh
              else "4 n/a (no bwrap)")
        if cpu["3"] and cpu["4"]:
            print(f"CPU ratio 3/4: {statistics.median(cpu['3']) / statistics.median(cpu['4']):.2f} (all processes of "
                  "each path; what the ratio tends to when other work keeps both cores busy)")
        if fresh:
            print("pairs (load 1 min: ratio 3/4): " + ", ".join(f"{load}: {r:.2f}" for load, r in zip(loads, ratios)))
            print(f"ratio 3/4 (cold judge grade / fresh isolated interpreter): {cold / fresh:.2f} "
                  f"(median of pair ratios {statistics.median(ratios):.2f}; target <= 1.1); "
                  f"load average now {Path('/proc/loadavg').read_text().strip()}")
        return
    source = args.submission.read_text()
    print(f"submission {args.submission.relative_to(REPO)}; numpy {np.__version__}; {os.cpu_count()} cores")
    with Judge() as judge:
        prepared = judge.problem(PROBLEM)
        judge.warm_up()
        judge.grade(source, PROBLEM)
        print(f"{len(prepared.cases)} cases, {prepared.result_size / 2**20:.0f} MiB of results, "
              f"{prepared.inputs.size / 2**20:.0f} MiB of inputs\n")
        pairs = paired(judge, args.submission, source, args.runs)
        f, w = statistics.median(pairs.floor), statistics.median(pairs.warm)
        rows = [("1 in-process floor (no isolation)", f),
                ("1b floor, THP off as in the sandbox", statistics.median(pairs.floor_thp_off)),
                ("2 Judge().grade warm", w)]
        cold, fresh, _, loads = cold_pair(judge, args.submission, args.slow_runs)
        rows.append(("3 judge grade, cold CLI", cold))
        rows.append(("4 fresh isolated interpreter (bwrap)", fresh))
        rows.append(("5 pytest per submission", pytest_per_submission(judge, args.submission, args.slow_runs)))
    rows.append(("6 container per submission", container(source, args.slow_runs)))
    for n, platform in enumerate(("gradescope", "prairielearn", "exercism"), start=8):
        rows.append((f"{n} {platform} package (docker run -> results)", packaged(platform, args.submission,
                                                                                args.slow_runs)))
    print(f"{'path':42} {'ms/verdict':>11} {'overhead ms':>12} {'x floor':>8} {'overhead / warm':>16}")
    for name, ms in rows:
        if ms is None:
            print(f"{name:42} {'n/a':>11}")
            continue
        over = ms - f
        rel = f"{over / (w - f):.1f}x" if name.split()[0] not in ("1", "1b", "2") and w > f else ""
        print(f"{name:42} {ms:11.1f} {over:12.1f} {ms / f:8.2f} {rel:>16}")
    print("\n" + pairs.report())
    cold = rows[3][1]
    print(f"ratio 3/1 (cold CLI / floor): {cold / f:.2f}")
    fresh = rows[4][1]
    if fresh:
        print(f"ratio 3/4 (cold judge grade / fresh isolated interpreter): {cold / fresh:.2f} (target <= 1.1; "
              f"3 and 4 alternating, load average before each pair {', '.join(loads)})")
    for name, ms in rows[4:]:
        if ms is not None:
            print(f"overhead of {name.split(' ', 1)[1]} / warm overhead: {(ms - f) / (w - f):.1f}x")
    with Judge() as judge:
        diagnosis_cost(judge, args.wrong, args.runs)
    t1 = throughput(source, 1, 30)
    t2 = throughput(source, 2, 30)
    print(
        f"\nthroughput: 1 worker {t1:.2f} verdicts/s, 2 workers {t2:.2f} verdicts/s, "
        f"ratio {t2 / t1:.2f} (target >= 1.7)"
    )
    peak, growth, out = peak_rss_largest(args.submission)
    print(f"judge peak RSS on the 8192 x 1024 case: {peak:.0f} MiB ({growth:.0f} MiB above the loaded judge); "
          f"one output is {out:.0f} MiB: {peak / out:.1f}x (target <= 4x)")


if __name__ == "__main__":
    main()
