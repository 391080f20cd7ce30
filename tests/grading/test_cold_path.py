"""The cold path of ``judge grade`` (every platform submission is a cold start).

What each start-up stage imports (the zygote is launched before the judge loads numpy and
pydantic, and diagnosis is imported on the first failure only), that an unused pre-started
zygote is stopped, and that the one-shot CLI judges exactly as the warm ``Judge.grade`` does.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

from tests.support.common import REPO, SUBMISSIONS, require_sandbox
from tests.support.verdicts import _comparable

HEAVY = ("numpy", "pydantic", "yaml", "judge.verdict", "judge.engine", "judge.diagnosis", "matplotlib")


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (as the CLI starts: from the checkout)."""
    p = subprocess.run([sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return set(json.loads(p.stdout.splitlines()[-1]))


def test_cli_and_the_prestart_path_import_nothing_heavy():
    # What runs before the zygote is launched and the early run is sent: the CLI module, the ladder, the factory,
    # the client, the one-shot path and the run plan (judge.grading.run_plan).
    loaded = modules_after(
        "import judge.cli, judge.entry, judge.sandbox.modes.ladder, judge.sandbox.backends.factory, "
        "judge.sandbox.backends.zygote_client, judge.oneshot, judge.grading.run_plan, judge.problem.locate, "
        "judge.grading.static_check"
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_zygote_loads_no_pydantic_and_no_judge_side_code():
    # Every learner child inherits the zygote's memory: numpy and the sandbox's code, nothing of the grader.
    loaded = modules_after("import judge.sandbox.chain.zygote")
    assert "numpy" in loaded
    assert not loaded & {"pydantic", "yaml", "judge.verdict", "judge.feedback", "judge.engine", "judge.problem"}, \
        sorted(loaded & {"pydantic", "yaml", "judge.verdict", "judge.feedback", "judge.engine", "judge.problem"})


def test_grader_leaves_the_grading_side_to_the_run():
    # The verdict models, comparisons and capture are imported while the learner's code runs (grader._run_beside);
    # diagnosis and pictures only when a verdict needs them.
    loaded = modules_after("import judge.engine")
    assert not loaded & {
        "judge.verdict",
        "judge.grading.slots",
        "judge.grading.capture",
        "judge.diagnosis",
        "judge.diagnosis.pictures",
        "matplotlib",
    }, sorted(loaded & {"judge.verdict", "judge.grading.slots", "judge.grading.capture"})
    assert "judge.isolation_record" not in loaded and "judge.feedback" not in loaded


def test_the_isolation_record_is_the_verdicts():
    from judge.isolation_record import Isolation
    from judge.verdict import Isolation as VerdictIsolation
    from judge.verdict import Verdict

    assert VerdictIsolation is Isolation and Verdict.model_fields["isolation"].annotation == Isolation | None


def test_diagnosis_is_imported_on_the_first_failure_only():
    require_sandbox()
    code = f"""
import sys
from judge import Judge
with Judge() as j:
    v = j.grade(open({str(SUBMISSIONS / 'accepted' / 'vectorised.py')!r}, 'rb').read())
    assert v.accepted, v.message
    assert 'judge.diagnosis' not in sys.modules, 'an accepted verdict has nothing to explain'
    v = j.grade(open({str(SUBMISSIONS / 'wrong_answer' / 'sin_cos_swapped.py')!r}, 'rb').read())
    assert v.status.value == 'wrong_answer' and 'judge.diagnosis' in sys.modules
    assert v.diagnoses and v.diagnoses[0].id == 'sin_cos_swapped', v.diagnoses
"""
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]


def test_an_unused_prestarted_zygote_is_stopped():
    require_sandbox()
    from judge.sandbox.backends.factory import prestarted_factory_for

    factory = prestarted_factory_for()
    first = factory._first
    assert first is not None and first.alive()
    factory.close()
    assert first._proc.poll() is not None and not first.alive()
    assert factory._first is None


@pytest.mark.parametrize("module", ["judge.cli", "judge"])  # `python -m judge` is the console script's path
@pytest.mark.parametrize("args", [["--problem", "no-such-problem"], ["no-such-file.py"], []],
                         ids=["bad-problem", "no-such-file", "usage-error"])
def test_cli_that_fails_early_leaves_no_zygote_or_cgroup_behind(module, args):
    require_sandbox()
    argv = (
        args
        if args[:1] == ["no-such-file.py"] or not args
        else [str(SUBMISSIONS / "accepted" / "vectorised.py"), *args]
    )
    p = subprocess.Popen([sys.executable, "-m", module, "grade", *argv], cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 2 and b"Traceback" not in err, err.decode()[-1000:]
    # full mode names the zygote's worker cgroup after the judge's pid (judge.sandbox.backends.factory, judge.oneshot)
    left = glob.glob(f"/sys/fs/cgroup/*/judge/w{p.pid}-*") + glob.glob(f"/sys/fs/cgroup/judge/w{p.pid}-*")
    assert not left, left
    zygotes = [line for line in subprocess.run(["ps", "-eo", "ppid,args"], capture_output=True, text=True).stdout
               .splitlines() if "zygote_boot" in line and line.split()[0] == str(p.pid)]
    assert not zygotes, zygotes


def test_the_judge_command_grades_with_the_zygote_it_launched_first():
    # `python -m judge grade FILE` (judge.entry) launches full's zygote before importing the command line.
    require_sandbox()
    from judge.sandbox.chain.launch import full_likely
    from judge.sandbox.modes.ladder import choose

    if not full_likely() or choose()[0] != "full":
        pytest.skip("mode full is not this machine's best mode: nothing is launched ahead")
    p = subprocess.run([sys.executable, "-m", "judge", "grade", str(SUBMISSIONS / "accepted" / "vectorised.py"),
                        "--format", "json"], cwd=REPO, capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr.decode()[-1000:]
    verdict = json.loads(p.stdout)
    assert verdict["status"] == "accepted" and verdict["isolation"]["mode"] == "full"
    assert verdict["isolation"]["cgroup"].endswith("-0-ahead"), verdict["isolation"]["cgroup"]


@pytest.mark.parametrize("example", ["accepted/vectorised.py", "wrong_answer/sin_cos_swapped.py",
                                     "wrong_answer/rw_float32_column_row0.py"])
def test_cold_cli_verdict_equals_judge_grade(example, judge):
    path = SUBMISSIONS / example
    p = subprocess.run([sys.executable, "-m", "judge.cli", "grade", str(path), "--format", "json"], cwd=REPO,
                       capture_output=True, timeout=300)
    assert p.returncode == (0 if example.startswith("accepted") else 1), p.stderr.decode()[-1000:]
    cold = json.loads(p.stdout)
    warm = json.loads(judge.grade(path.read_bytes()).model_dump_json())
    assert _comparable(cold) == _comparable(warm)
    assert cold["status"] == example.split("/")[0]


def test_result_buffer_holds_only_zeros_at_every_run_start_and_a_first_run_faults_in_nothing():
    """A run may write anywhere in its mapping: every later run must start on zeros (the first cross-run breach:
    the previous learner's outputs were still in the slots), zeroed in the background after judging or, if
    that did not happen, when the run starts.  A fresh buffer is the kernel's zeros: nothing is touched."""
    import numpy as np

    from judge.sandbox.boundary.result_buffer import ResultBuffer

    buffer = ResultBuffer(8 << 20)
    try:
        buffer.start_run()
        assert os.fstat(buffer.fd).st_blocks == 0, "a first run faults in only what it writes"
        view = np.frombuffer(buffer.map, np.uint8)
        view[::4093] = 0x5A  # a run scribbling everywhere, headers and data alike
        buffer.scrub_in_background()
        buffer.start_run()
        assert not view.any(), "the run after a scrubbed one sees a non-zero byte"
        view[-100:] = 0x5A  # and without the background scrub (a judge that skipped it): zeroed at the start
        buffer.start_run()
        assert not view.any()
        assert buffer.runs == 3
        del view
    finally:
        buffer.close()


def _children() -> list[int]:
    """This process's live children (from /proc)."""
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(int(stat.split("/")[2]))
    return found


def test_full_zygote_is_launched_before_the_ladder_probe_and_is_the_one_used():
    require_sandbox()
    from judge.sandbox.backends.factory import prestarted_factory_for
    from judge.sandbox.chain.launch import full_likely
    from judge.sandbox.modes.ladder import choose

    if not full_likely() or choose()[0] != "full":
        pytest.skip("mode full is not this machine's best mode")
    with prestarted_factory_for() as factory:
        launched = factory.launched
        assert factory.mode == "full" and launched.name.endswith("-ahead")
        assert factory(0) is launched and launched.isolation.mode == "full"
        launched.close()


def test_a_ladder_that_refuses_kills_the_zygote_launched_ahead(monkeypatch):
    require_sandbox()
    from judge.errors import SandboxUnavailable
    from judge.sandbox.backends.factory import prestarted_factory_for
    from judge.sandbox.chain.launch import full_likely

    if not full_likely():
        pytest.skip("no zygote is launched ahead here (mode full is not likely)")
    before = _children()
    monkeypatch.setenv("JUDGE_MIN_ISOLATION", "no-such-mode")  # choose() refuses after the launch
    with pytest.raises(SandboxUnavailable):
        prestarted_factory_for()
    assert _children() == before
    left = glob.glob(f"/sys/fs/cgroup/*/judge/w{os.getpid()}-0-ahead") + \
        glob.glob(f"/sys/fs/cgroup/judge/w{os.getpid()}-0-ahead")
    assert not left, left


def test_the_launch_imports_only_what_starting_a_process_needs():
    # judge.entry launches full's zygote after this import alone: each module it drags in delays the run.
    added = modules_after("import judge.sandbox.chain.launch") - modules_after("pass")
    assert {m for m in added if m.startswith("judge")} == {"judge", "judge._version", "judge.sandbox",
                                                           "judge.sandbox.chain",
                                                           "judge.sandbox.chain.launch"}, sorted(added)
    assert not added & {"dataclasses", "inspect", "typing", "pathlib", *HEAVY}, sorted(added)


_ONE_SHOT_AS_SUBREAPER = r"""
import ctypes, glob, json, os, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: the judge's orphans come to us
p = subprocess.Popen([sys.executable, "-m", "judge", "grade", sys.argv[1], "--format", "json"], stdout=subprocess.PIPE)
out, _ = p.communicate()
orphans = [int(c) for task in os.listdir("/proc/self/task")
           for c in open(f"/proc/self/task/{task}/children").read().split()]
exits = [os.WEXITSTATUS(os.waitpid(pid, 0)[1]) for pid in orphans]
left = glob.glob(f"/sys/fs/cgroup/*/judge/w{p.pid}-*") + glob.glob(f"/sys/fs/cgroup/judge/w{p.pid}-*")
print(json.dumps({"code": p.returncode, "status": json.loads(out)["status"], "orphans": len(orphans),
                  "exits": exits, "left": left}))
"""


def test_a_one_shot_zygote_finishes_alone_after_the_judge_exits():
    # `judge grade` lets its zygote go without waiting: the zygote holds the run's files (their pages are freed
    # by its exit, off the verdict's path), ends its processes, removes its own worker group and exits 0.
    require_sandbox()
    from judge.sandbox.chain.launch import full_likely
    from judge.sandbox.modes.ladder import choose

    if not full_likely() or choose()[0] != "full":
        pytest.skip("mode full is not this machine's best mode: no worker group to remove")
    p = subprocess.run([sys.executable, "-c", _ONE_SHOT_AS_SUBREAPER, str(SUBMISSIONS / "accepted" / "vectorised.py")],
                       cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    seen = json.loads(p.stdout.splitlines()[-1])
    assert seen["code"] == 0 and seen["status"] == "accepted", seen
    assert seen["orphans"] == 1 and seen["exits"] == [0], seen  # the zygote, outliving the judge, exited cleanly
    assert seen["left"] == [], seen
