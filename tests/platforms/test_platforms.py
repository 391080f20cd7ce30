"""Each package run the way its platform runs it: `docker run` with the platform's own flags, never a Python call.

Images come from `.ci/docker.sh platforms` (each built from what `judge package` wrote, the way the platform
builds it); without them these tests skip loudly, and fail under CI=true.  For a representative dozen of
submissions/ per platform (every status folder, several wrong answers, attack files) and one attack written for
these containers: the entry point exits 0, leaves a results file valid against the platform's schema
(tests/platform_schemas/, written from its documentation), prints one isolation line on stderr, and the result
agrees with the judge's verdict on the host; hidden cases reveal no values or locations.

Gradescope's default base is Ubuntu 22.04 (python3 3.10; setup.sh installs python3.11 with apt): a focused subset
also runs on numpy-judge-gradescope:jammy, the same zip on a debootstrapped jammy stand-in.

Inside an ordinary container the judge can only isolate in its `reduced` mode.  Where this checkout's
judge has no such mode, every packaged run must say, in the platform's own terms, that the code was not run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import typing
from pathlib import Path

import jsonschema
import pytest

from tests.support.common import REPO, SUBMISSIONS, require_docker

SCHEMAS = REPO / "tests" / "platform_schemas"
STATE = Path(os.environ.get("JUDGE_DOCKER_STATE", "/run/numpy-judge-docker")) / "platforms"
# JUDGE_PLATFORM_TAG: a helper's own images, built beside CI's from a checkout's `judge package` (default: CI's).
TAG = os.environ.get("JUDGE_PLATFORM_TAG", "ci")
IMAGES = {p: f"numpy-judge-{p}:{TAG}" for p in ("gradescope", "prairielearn", "exercism")}
# The flags each platform runs its grader container with (measured on the platforms: the team's notes, platforms.md).
GRADESCOPE_FLAGS = ["--memory", "768m", "--cpus", "0.5"]
PRAIRIELEARN_FLAGS = ["--network", "none", "-m", "2g", "--memory-swap", "2g", "--cpu-quota", "90000",
                      "--pids-limit", "1024"]
EXERCISM_FLAGS = ["--network", "none", "--read-only", "--tmpfs", "/tmp"]
DOZEN = ["accepted/vectorised.py", "accepted/printing_while_working.py", "compile_error/syntax_error.py",
         "compile_error/import_os.py", "memory_limit_exceeded/memory_hog.py", "runtime_error/raises_index_error.py",
         "runtime_error/fork_bomb.py", "runtime_error/attack_find_reference.py", "time_limit_exceeded/infinite_loop.py",
         "wrong_answer/sin_cos_swapped.py", "wrong_answer/transposed.py", "wrong_answer/forge_output.py",
         "wrong_answer/attack_fd_forge_all.py"]
# Gradescope runs the dozen; PrairieLearn and Exercism, whose runners share its code and differ in their
# flags and files, run one of each verdict, the ones their flags bear on (memory, processes, time, forged fds).
FOCUSED = ["accepted/vectorised.py", "compile_error/import_os.py", "memory_limit_exceeded/memory_hog.py",
           "runtime_error/fork_bomb.py", "time_limit_exceeded/infinite_loop.py", "wrong_answer/attack_fd_forge_all.py"]
SUBMIT_AS = "sinusoidal_pe.py"
# Gradescope's image per base: Debian bookworm (the stand-in the other platforms use too) and Ubuntu 22.04,
# Gradescope's default, where only a subset runs (one of each kind; the build is the same zip).
GRADESCOPE_IMAGES = {"bookworm": IMAGES["gradescope"], "jammy": "numpy-judge-gradescope:jammy"}
JAMMY_SUBSET = ["accepted/vectorised.py", "wrong_answer/sin_cos_swapped.py", "compile_error/syntax_error.py",
                "memory_limit_exceeded/memory_hog.py", "runtime_error/attack_find_reference.py"]
GRADESCOPE_RUNS = ([pytest.param("bookworm", e, id=e) for e in DOZEN]
                   + [pytest.param("jammy", e, id=f"jammy-{e}") for e in JAMMY_SUBSET])


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


def reduced_mode_exists() -> bool:
    """Whether this judge has the in-container isolation mode that these platforms allow."""
    from judge.verdict import Isolation

    return "reduced" in typing.get_args(Isolation.model_fields["mode"].annotation)


REDUCED = reduced_mode_exists()


ENGINE_IMAGES = tuple(IMAGES.values())  # what the engine fixture (tests/conftest.py) needs
ENGINE_WHAT = "PLATFORM CONTAINER TESTS"


@pytest.fixture(scope="module")
def host(judge):
    """The judge's verdicts on this host, to compare the packaged runs with."""
    cache: dict = {}

    def get(example: str):
        if example not in cache:
            cache[example] = judge.grade((SUBMISSIONS / example).read_bytes())
        return cache[example]
    return get


def _docker_run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", "run", "--rm", *args], capture_output=True, text=True, timeout=timeout)


def _reveals_location(text: str | None) -> bool:
    """Values, locations or shapes of a hidden case (a shape gives its arguments away)."""
    return bool(re.search(r"at index \(|position p=\d|expected -?\d\.\d{4}|shape \(|\(\d+, \d+", text or ""))


def _one_isolation_line(platform: str, stderr: str, ran: bool = True) -> str:
    """The packaged run's one stderr line: the isolation mode the code ran under, or why it did not run."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"judge: {platform}: isolation "), stderr[-2000:]
    line = lines[0]
    if not ran:
        assert "isolation not reached" in line, line
    elif REDUCED:
        assert "isolation reduced" in line, line
    else:
        assert "isolation unavailable, code not run" in line, line
    return line


# -- an attack written for these containers: read what the grader keeps, forge the platform's file ---------------
def _attack(secrets: list[str], forge: str, forged: str) -> str:
    return f'''
import numpy as np

def _probe():
    os = __import__("o" + "s")
    leaked = []
    for path in {secrets!r}:
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                open(path, "rb").read(1)
            leaked.append(path)
        except OSError:
            pass
    try:
        with open({forge!r}, "w") as f:
            f.write({forged!r})
        leaked.append("wrote " + {forge!r})
    except OSError:
        pass
    raise RuntimeError(("LEAKED " + ", ".join(leaked)) if leaked else "SEALED: nothing the grader keeps was reachable")

def sinusoidal_pe(max_len, d_model, base=10000.0):
    _probe()
    return np.zeros((max_len, d_model))

def add_positional_encoding(x, base=10000.0):
    _probe()
    return np.zeros(np.shape(x))
'''


def _check_attack(text: str) -> None:
    if REDUCED:
        assert "RuntimeError: SEALED" in text and "RuntimeError: LEAKED" not in text, text[:3000]


# -- Gradescope -------------------------------------------------------------------------------------------------
def _gradescope_image(base: str) -> str:
    """The Gradescope image on ``base``; skip loudly (fail under CI=true) when it was not built."""
    image = GRADESCOPE_IMAGES[base]
    if base != "bookworm":
        require_docker(image, what=f"GRADESCOPE ON {base.upper()} TESTS").close()
    return image


def _gradescope(tmp_path: Path, source: bytes, base: str = "bookworm", name: str = SUBMIT_AS,
                mounts: tuple[str, ...] = ()) -> tuple[dict, str]:
    image = _gradescope_image(base)
    sub, res = tmp_path / "submission", tmp_path / "results"
    sub.mkdir()
    res.mkdir()
    (sub / name).write_bytes(source)
    r = _docker_run(*GRADESCOPE_FLAGS, "-v", f"{sub}:/autograder/submission", "-v", f"{res}:/autograder/results",
                    *mounts, image, "/autograder/run_autograder")
    assert r.returncode == 0, r.stderr[-2000:]
    data = json.loads((res / "results.json").read_text())
    jsonschema.validate(data, _schema("gradescope-results.schema.json"))
    return data, _one_isolation_line("gradescope", r.stderr)


@pytest.mark.parametrize(("base", "example"), GRADESCOPE_RUNS)
def test_gradescope_package(engine, host, tmp_path, base, example):
    data, _ = _gradescope(tmp_path, (SUBMISSIONS / example).read_bytes(), base)
    verdict = host(example)
    if not REDUCED:
        assert data["score"] == 0 and data["tests"] == [] and data["extra_data"]["status"] == "internal_error"
        assert "not run" in data["output"] and "instructor" in data["output"]
        return
    if example == "memory_limit_exceeded/memory_hog.py":
        # Gradescope's 768 MB container holds less than the bundle's 512 MiB learner limit plus the judge, and in
        # mode reduced no cgroup of the judge's own records the kill: the container's OOM killer ends the learner's
        # process first, and the verdict can only say what the kernel told it (README, "Gradescope").  The
        # container has half a CPU (--cpus 0.5), and on this project's VMs the host backs guest memory lazily
        # (6-14 ms per MiB measured): touching what the container allows can outlast the bundle's 4 s per call,
        # and then the honest verdict is the wall-time kill (seen in 2 of 5 CI runs).  Never accepted, never an
        # internal error: the judge survives the platform's limits and says which one ended the run.
        status = data["extra_data"]["status"]
        assert status in ("memory_limit_exceeded", "runtime_error", "time_limit_exceeded"), data["output"]
        if status == "runtime_error":
            assert "SIGKILL" in data["output"], data["output"]
        if status == "time_limit_exceeded":
            assert "wall-time limit" in data["output"], data["output"]
        return
    assert data["extra_data"]["status"] == verdict.status.value == example.split("/")[0]
    assert data["extra_data"]["isolation"] in ("reduced", None)
    assert data["extra_data"]["diagnoses"] == [d.id for d in verdict.diagnoses]
    assert data["score"] == pytest.approx(sum(c.weight for c in verdict.cases if c.status.value == "accepted"))
    assert data["score"] / (sum(t["max_score"] for t in data["tests"]) or 1) == pytest.approx(verdict.score, abs=1e-6)
    for test, case in zip(data["tests"], verdict.cases, strict=True):
        assert (test["status"] == "passed") == (case.status.value == "accepted")
        if case.visibility == "hidden":
            assert test["visibility"] == "after_due_date" and not _reveals_location(test["output"])


def test_gradescope_grades_a_notebook(engine, host, tmp_path):
    """A learner hands in a Colab notebook, whatever its name: graded by its functions, cells named."""
    from tests.support.notebook import twin

    example = "wrong_answer/sin_cos_swapped.py"
    data, _ = _gradescope(tmp_path, twin((SUBMISSIONS / example).read_text(), "colab").encode(), name="Homework3.ipynb")
    if not REDUCED:
        assert data["extra_data"]["status"] == "internal_error"
        return
    verdict = host(example)
    assert data["extra_data"]["status"] == verdict.status.value == "wrong_answer"
    assert data["extra_data"]["diagnoses"] == [d.id for d in verdict.diagnoses]
    assert "notebook: graded the definitions in cell" in data["output"]


@pytest.mark.parametrize("base", GRADESCOPE_IMAGES)
def test_gradescope_attack(engine, tmp_path, base):
    source = _attack(["/autograder/source", "/opt/numpy-judge/problems", "/opt/numpy-judge/cache",
                      "/autograder/submission_metadata.json"],
                     "/autograder/results/results.json", '{"score": 100, "tests": []}')
    data, _ = _gradescope(tmp_path, source.encode(), base)
    assert data.get("score") != 100
    _check_attack(data["output"] + json.dumps(data["tests"]))


def test_gradescope_zip_layout(tmp_path):
    """What Gradescope needs at the zip's root, executable, with the bundle and wheels beside it."""
    import zipfile

    zip_path = STATE / "autograder.zip"
    if not zip_path.is_file():
        pytest.skip("no autograder.zip from .ci/docker.sh platforms")
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in zf.infolist()}
    assert {"setup.sh", "run_autograder", "problem/sinusoidal-pe/problem.yaml"} <= names
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert any(n.startswith("wheels/numpy_judge-") for n in names) and any(n.startswith("wheels/numpy-") for n in names)


# -- PrairieLearn -----------------------------------------------------------------------------------------------
def _question() -> Path:
    question = STATE / "prairielearn" / "questions" / "sinusoidal-pe"
    if not question.is_dir():
        pytest.skip("no PrairieLearn question from .ci/docker.sh platforms")
    return question


def _prairielearn(tmp_path: Path, source: bytes | None, data_json: dict | None = None,
                  ran: bool = True, name: str = SUBMIT_AS, question: Path | None = None) -> tuple[dict, str]:
    job = tmp_path / "job"
    (job / "student").mkdir(parents=True)
    (job / "data").mkdir()
    question = question or _question()
    shutil.copytree(question / "tests", job / "tests")
    if source is not None:
        (job / "student" / name).write_bytes(source)
    (job / "data" / "data.json").write_text(json.dumps(data_json or {"params": {}, "correct_answers": {},
                                                                     "submitted_answers": {}}))
    info = json.loads((question / "info.json").read_text())
    entrypoint = info["externalGradingOptions"]["entrypoint"]
    # the question's environment, as PrairieLearn passes it to the grader (null unsets a variable)
    env = [f"--env={k}={v}" for k, v in info["externalGradingOptions"].get("environment", {}).items() if v is not None]
    r = _docker_run(*PRAIRIELEARN_FLAGS, *env, "-v", f"{job}:/grade", "--entrypoint", entrypoint[0],
                    IMAGES["prairielearn"], *entrypoint[1:])
    assert r.returncode == 0, r.stderr[-2000:]   # PrairieLearn reads results only after exit 0
    raw = (job / "results" / "results.json").read_bytes()
    assert len(raw) < 1_000_000
    data = json.loads(raw)
    jsonschema.validate(data, _schema("prairielearn-results.schema.json"))
    return data, _one_isolation_line("prairielearn", r.stderr, ran)


def test_prairielearn_question_folder():
    question = _question()
    info = json.loads((question / "info.json").read_text())
    jsonschema.validate(info, _schema("prairielearn-info.schema.json"))
    assert info["externalGradingOptions"]["image"] and info["externalGradingOptions"]["enabled"] is True
    html = (question / "question.html").read_text()
    assert f'<pl-file-editor file-name="{SUBMIT_AS}"' in html and "<pl-external-grader-results>" in html
    assert (question / "tests" / "problem" / "reference.py").is_file()


@pytest.mark.parametrize("example", FOCUSED)
def test_prairielearn_package(engine, host, tmp_path, example):
    data, _ = _prairielearn(tmp_path, (SUBMISSIONS / example).read_bytes())
    verdict = host(example)
    if not REDUCED:
        assert data["gradable"] is False and "no attempt was used" in data["format_errors"][0]
        return
    if example.startswith("compile_error/"):
        assert data["gradable"] is False and data["format_errors"]
        return
    assert data["gradable"] is True and data["score"] == pytest.approx(verdict.score)
    for test, case in zip(data["tests"], verdict.cases, strict=True):
        assert (test["points"] == test["max_points"]) == (case.status.value == "accepted")
        if case.visibility == "hidden":
            assert not _reveals_location(test["message"])


def test_prairielearn_grades_a_workspace_notebook(engine, host, tmp_path):
    """PrairieLearn's JupyterLab workspace hands in a notebook: graded by its functions, cells named."""
    from tests.support.notebook import twin

    example = "runtime_error/raises_index_error.py"
    data, _ = _prairielearn(tmp_path, twin((SUBMISSIONS / example).read_text()).encode(), name="sinusoidal_pe.ipynb")
    if not REDUCED:
        assert data["gradable"] is False
        return
    verdict = host(example)
    assert data["gradable"] is True and data["score"] == pytest.approx(verdict.score)
    assert "cell " in data["message"] or any("cell " in t.get("message", "") for t in data["tests"]), data


def test_prairielearn_attack_and_files_from_data_json(engine, tmp_path):
    import base64

    source = _attack(["/grade/tests", "/grade/data/data.json", "/opt/numpy-judge/problems", "/opt/numpy-judge/cache"],
                     "/grade/results/results.json", '{"gradable": true, "score": 1}')
    # A custom element's submission: no file in /grade/student, one in data.json's _files (externalGrading.md).
    data_json = {"params": {}, "submitted_answers": {"_files": [
        {"name": SUBMIT_AS, "contents": base64.b64encode(source.encode()).decode()}]}}
    data, _ = _prairielearn(tmp_path, None, data_json)
    assert data.get("score") != 1 or not REDUCED
    if REDUCED:
        assert data["gradable"] is True and data["score"] == 0
    _check_attack(json.dumps(data))


def test_prairielearn_no_file_is_not_gradable(engine, tmp_path):
    data, _ = _prairielearn(tmp_path, None, ran=False)
    assert data["gradable"] is False and "no Python file" in data["format_errors"][0]


# -- Exercism ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def smoke(tmp_path_factory, judge):
    """`judge package exercism` with smoke tests made from the dozen (Exercism's tests/<name>/ convention)."""
    examples = tmp_path_factory.mktemp("dozen")
    for example in DOZEN:
        (examples / example).parent.mkdir(exist_ok=True)
        shutil.copy2(SUBMISSIONS / example, examples / example)
    out = tmp_path_factory.mktemp("exercism")
    r = subprocess.run(["python3", "-m", "judge.cli", "package", "exercism", "sinusoidal-pe", "-o", str(out),
                        "--examples", str(examples)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (out / "bin" / "run.sh").stat().st_mode & 0o111 and (out / "Dockerfile").is_file()
    return out


def _exercism(solution: Path, tmp_path: Path, slug: str = "sinusoidal-pe", ran: bool = True,
              mounts: tuple[str, ...] = ()) -> tuple[dict, str]:
    out = tmp_path / "output"
    out.mkdir(exist_ok=True)
    r = _docker_run(*EXERCISM_FLAGS, "-v", f"{solution}:/solution", "-v", f"{out}:/output", *mounts,
                    IMAGES["exercism"], slug, "/solution/", "/output/")
    assert r.returncode == 0, r.stderr[-2000:]
    raw = (out / "results.json").read_bytes()
    assert len(raw) < 500_000
    data = json.loads(raw)
    jsonschema.validate(data, _schema("exercism-results.schema.json"))
    return data, _one_isolation_line("exercism", r.stderr, ran)


@pytest.mark.parametrize("example", FOCUSED)
def test_exercism_package(engine, host, smoke, tmp_path, example):
    from judge.platforms.exercism import compare

    name = example.replace("/", "-").removesuffix(".py").replace("_", "-")
    folder = smoke / "tests" / name
    assert (folder / SUBMIT_AS).is_file() and (folder / "expected_results.json").is_file()
    data, _ = _exercism(folder, tmp_path)
    if not REDUCED:
        assert data["status"] == "error" and data["tests"] == [] and "not run" in data["message"]
        return
    assert compare(folder / "expected_results.json", tmp_path / "output" / "results.json") == 0
    verdict = host(example)
    want = {"accepted": "pass", "wrong_answer": "fail"}
    if verdict.cases:
        assert [t["status"] for t in data["tests"]] == [want.get(c.status.value, "error") for c in verdict.cases]
        for test, case in zip(data["tests"], verdict.cases, strict=True):
            if case.visibility == "hidden":
                assert "hidden case" in test["test_code"] and not _reveals_location(test["message"])
    else:
        assert data["status"] == "error"


def test_exercism_attack_and_unknown_slug(engine, tmp_path):
    solution = tmp_path / "solution"
    solution.mkdir()
    (solution / SUBMIT_AS).write_text(_attack(["/opt/test-runner/problems", "/opt/test-runner/cache"],
                                              "/output/results.json", '{"version": 3, "status": "pass", "tests": []}'))
    data, _ = _exercism(solution, tmp_path)
    assert data["status"] != "pass"
    _check_attack(json.dumps(data))
    (tmp_path / "output" / "results.json").unlink()
    data, _ = _exercism(solution, tmp_path, slug="no-such-exercise", ran=False)
    assert data["status"] == "error" and "problem bundle" in data["message"]


# -- the course's language: packages made with --lang, run as each platform runs them ------------------------------
# Each package made with --lang differs from the one its image was built from in one file the platform hands the
# runner (Gradescope's run_autograder, Exercism's bin/run.sh) or in the question's info.json (PrairieLearn passes its
# environment): that file is given to the built image as the platform would have built it, so no image is rebuilt.
LANG_EXAMPLE = "wrong_answer/sin_cos_swapped.py"
#: a word each language's wrong-answer report says (its status: "réponse incorrecte", "неверный ответ")
IN_LANGUAGE = {"fr": "réponse incorrecte", "ru": "неверный ответ"}


@pytest.fixture(scope="module")
def packaged_in(tmp_path_factory):
    """``judge package PLATFORM sinusoidal-pe --lang LANG`` once per (platform, language), as a teacher runs it."""
    made: dict = {}

    def get(platform: str, lang: str) -> Path:
        if (platform, lang) not in made:
            out = tmp_path_factory.mktemp(f"{platform}-{lang}")
            target = out / "autograder.zip" if platform == "gradescope" else out
            image = [] if platform == "gradescope" else ["--image", IMAGES[platform]]
            extra = ["--no-smoke-tests"] if platform == "exercism" else []
            r = subprocess.run(["python3", "-m", "judge.cli", "package", platform, "sinusoidal-pe", "-o", str(target),
                                "--lang", lang, *image, *extra], cwd=REPO, capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, r.stderr[-2000:]
            made[platform, lang] = target
        return made[platform, lang]
    return get


def _only_differs_in(built: Path, made: Path, names: list[str]) -> None:
    """The package the image was built from and the one made with --lang differ only in ``names``."""
    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    a, b = files(built), files(made)
    assert set(a) == set(b) and sorted(n for n in a if a[n] != b[n]) == names


def _in_language(lang: str, texts: list[str]) -> None:
    """The learner-facing texts of a result file: in ``lang``, with no English sentence left."""
    from tests.support.i18n import english_sentences

    whole = "\n".join(t for t in texts if t)
    assert IN_LANGUAGE[lang] in whole, whole[:2000]
    assert not english_sentences(whole), english_sentences(whole)


def test_gradescope_package_in_french(engine, host, packaged_in, tmp_path):
    import zipfile

    if not (STATE / "autograder.zip").is_file():
        pytest.skip("no autograder.zip from .ci/docker.sh platforms")
    made = packaged_in("gradescope", "fr")
    for root, zipped in (("built", STATE / "autograder.zip"), ("made", made)):
        with zipfile.ZipFile(zipped) as zf:
            zf.extractall(tmp_path / root)
    _only_differs_in(tmp_path / "built", tmp_path / "made", ["run_autograder"])
    (tmp_path / "made" / "run_autograder").chmod(0o755)   # as Gradescope copies it: chmod +x (zipfile drops modes)
    data, _ = _gradescope(tmp_path, (SUBMISSIONS / LANG_EXAMPLE).read_bytes(),
                          mounts=("-v", f"{tmp_path / 'made' / 'run_autograder'}:/autograder/run_autograder:ro"))
    if not REDUCED:
        return
    assert data["extra_data"]["status"] == host(LANG_EXAMPLE).status.value == "wrong_answer"
    _in_language("fr", [data["output"], *(t["name"] for t in data["tests"]), *(t["output"] for t in data["tests"])])


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_prairielearn_package_in_a_language(engine, host, packaged_in, tmp_path, lang):
    made = packaged_in("prairielearn", lang) / "questions" / "sinusoidal-pe"
    _only_differs_in(_question(), made, ["info.json", "question.html"])
    info = json.loads((made / "info.json").read_text())
    assert info["externalGradingOptions"]["environment"] == {"JUDGE_COURSE_LANG": lang}
    jsonschema.validate(info, _schema("prairielearn-info.schema.json"))
    data, _ = _prairielearn(tmp_path, (SUBMISSIONS / LANG_EXAMPLE).read_bytes(), question=made)
    if not REDUCED:
        return
    assert data["gradable"] is True and data["score"] == pytest.approx(host(LANG_EXAMPLE).score)
    _in_language(lang, [data["message"], *(t[k] for t in data["tests"] for k in ("name", "description", "message"))])
    from tests.support.i18n import english_sentences

    html = (made / "question.html").read_text()
    assert not english_sentences(re.sub(r"<[^>]+>", " ", html.split("</markdown>")[-1])), html


def test_exercism_package_in_french(engine, host, packaged_in, tmp_path):
    built = STATE / "exercism"
    if not built.is_dir():
        pytest.skip("no Exercism runner from .ci/docker.sh platforms")
    made = packaged_in("exercism", "fr")
    _only_differs_in(built / "bin", made / "bin", ["run.sh"])
    _only_differs_in(built / "problems", made / "problems", [])
    assert (built / "Dockerfile").read_text() == (made / "Dockerfile").read_text()
    solution = tmp_path / "solution"
    solution.mkdir()
    shutil.copy2(SUBMISSIONS / LANG_EXAMPLE, solution / SUBMIT_AS)
    data, _ = _exercism(solution, tmp_path, mounts=("-v", f"{made / 'bin' / 'run.sh'}:/opt/test-runner/bin/run.sh:ro"))
    if not REDUCED:
        return
    assert data["status"] == "fail"
    _in_language("fr", [data.get("message") or "", *(t[k] or "" for t in data["tests"] for k in ("name", "message"))])
