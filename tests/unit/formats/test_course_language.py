"""The course language a platform's package carries: checked when packaging, tolerated when running.

A teacher's typo at ``judge package --lang`` is an error naming it and the choices, before any work; a value
that reaches a grader corrupted (edited by hand, truncated, junk) is English, said once on the run's stderr
line, and the result file is still written.  (The packages run in their platforms' containers in
tests/platforms/test_platforms.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest

from tests.support.common import PROBLEM_DIR, REPO
from tests.support.i18n import english_sentences


@pytest.mark.parametrize("value,lang", [(None, "en"), ("fr", "fr"), ("ru-RU", "ru"), ("fr_FR.UTF-8", "fr"),
                                        ("en", "en")])
def test_a_known_language_is_packaged_as_its_code(value, lang):
    from judge.platforms.course_language import for_package

    assert for_package(value) == lang


@pytest.mark.parametrize("value", ["de", "klingon", "", "fr;rm -rf /", "x" * 500])
def test_an_unknown_language_is_refused_naming_it_and_the_choices(value):
    from judge.errors import JudgeError
    from judge.platforms.course_language import for_package

    with pytest.raises(JudgeError) as raised:
        for_package(value)
    said = str(raised.value)
    assert repr(value[:40]) in said and "en, fr, ru" in said and len(said) < 200


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "exercism", "otter"])
def test_judge_package_refuses_an_unknown_language_without_a_traceback(tmp_path, platform):
    r = subprocess.run([sys.executable, "-m", "judge.cli", "package", platform, "sinusoidal-pe", "-o",
                        str(tmp_path / "out"), "--lang", "de"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "'de'" in r.stderr and "en, fr, ru" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists(), "nothing is written before the language is checked"


@pytest.mark.parametrize("value", [None, "", "de", "\x00\xff", 42, ["fr"], {"lang": "fr"}])
def test_a_corrupted_setting_at_run_time_is_english_and_said(value):
    from judge.platforms.course_language import at_run

    got = at_run(value, "JUDGE_COURSE_LANG")
    assert got.lang == "en"
    assert bool(got.problem) == (value not in (None, "")), got
    if got.problem:
        assert "JUDGE_COURSE_LANG" in got.problem and "English" in got.problem


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "exercism"])
def test_a_packaged_run_with_a_corrupted_language_writes_english_and_says_so_once(tmp_path, capsys, monkeypatch,
                                                                                    platform):
    """Nothing submitted (the run needs no sandbox): the result is still written, in English, and the one stderr
    line names the bad setting."""
    from judge.platforms import exercism, gradescope, prairielearn

    monkeypatch.setenv("JUDGE_COURSE_LANG", "fr\n<script>")
    if platform == "gradescope":
        (tmp_path / "submission").mkdir()
        code, result = gradescope.run(tmp_path, PROBLEM_DIR), tmp_path / "results" / "results.json"
    elif platform == "prairielearn":
        (tmp_path / "student").mkdir()
        code, result = prairielearn.run(tmp_path, PROBLEM_DIR), tmp_path / "results" / "results.json"
    else:
        (tmp_path / "problems").mkdir()
        (tmp_path / "problems" / "sinusoidal-pe").symlink_to(PROBLEM_DIR)
        (tmp_path / "in").mkdir()
        code = exercism.run("sinusoidal-pe", tmp_path / "in", tmp_path / "out", tmp_path / "problems")
        result = tmp_path / "out" / "results.json"
    assert code == 0
    assert "no Python file or notebook was submitted" in result.read_text()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].count("JUDGE_COURSE_LANG") == 1 and "English used" in err[0], err


@pytest.mark.parametrize("lang,word", [("fr", "soumettez"), ("ru", "отправьте")])
def test_nothing_submitted_is_said_in_the_course_language(tmp_path, capsys, monkeypatch, lang, word):
    """The runner's own sentences follow the course language too, not only the verdict's."""
    from judge.platforms import gradescope

    monkeypatch.setenv("JUDGE_COURSE_LANG", lang)
    (tmp_path / "submission").mkdir()
    assert gradescope.run(tmp_path, PROBLEM_DIR) == 0
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    assert word in data["output"] and not english_sentences(data["output"]), data["output"]
    assert "English used" not in capsys.readouterr().err


def test_gradescope_fallback_and_setting_are_in_the_course_language(tmp_path):
    """The zip's run_autograder sets the language and its last-resort result (set-up broken) is written in it,
    still valid JSON for the shell to print; nothing else in the zip differs from an English package."""
    from judge.platforms import gradescope
    from judge.problem.loader import load_problem

    bundle = load_problem(PROBLEM_DIR)
    zips = {lang: gradescope.package(bundle, tmp_path / f"{lang}.zip", lang=lang) for lang in ("en", "ru")}
    with zipfile.ZipFile(zips["en"]) as en, zipfile.ZipFile(zips["ru"]) as ru:
        differ = [n for n in en.namelist() if en.read(n) != ru.read(n)]
        script = ru.read("run_autograder").decode()
    assert differ == ["run_autograder"] and "export JUDGE_COURSE_LANG=ru" in script
    out = tmp_path / "results"
    r = subprocess.run(["bash", "-c", script.replace("/autograder/results", str(out)).replace(
        '[ -x "$HOME_DIR/venv/bin/judge" ]', "false")], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    data = json.loads((out / "results.json").read_text())
    assert "преподавателю" in data["output"] and data["extra_data"]["status"] == "internal_error"


def test_prairielearn_question_carries_the_language():
    from judge.platforms import prairielearn
    from judge.problem.loader import load_problem

    info = prairielearn.info_json(load_problem(PROBLEM_DIR), "example/grader:1", "0b9f6c4e-3d1a-4c55-9a0e-6f1d2b3c4d5e",
                                  "fr")
    assert info["externalGradingOptions"]["environment"] == {"JUDGE_COURSE_LANG": "fr"}
    assert info["title"] != load_problem(PROBLEM_DIR).spec.title, "the bundle's French title"


def test_otter_configuration_carries_the_language(tmp_path):
    from judge.errors import JudgeError
    from judge.platforms.otter import write_plugin_config

    config = tmp_path / "otter_config.json"
    write_plugin_config(config, "sinusoidal-pe", PROBLEM_DIR, "ru-RU")
    entry = json.loads(config.read_text())["plugins"][0]["judge.platforms.otter_plugin.JudgePlugin"]
    assert entry["lang"] == "ru" and entry["bundles"] == {"sinusoidal-pe": str(PROBLEM_DIR)}
    with pytest.raises(JudgeError, match="en, fr, ru"):
        write_plugin_config(config, "sinusoidal-pe", PROBLEM_DIR, "xx")
