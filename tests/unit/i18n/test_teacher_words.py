"""The teacher's page script says only what the page gives it: every key teacher.js looks up is a catalog message
given in each language, and the script holds no English sentence of its own (a literal it wrote would stay
English on a French or Russian page)."""

from __future__ import annotations

import json
import re

import pytest

from judge.i18n import messages as m
from judge.service.lti.page import LANGUAGE_NAMES, words_json
from tests.support.common import REPO
from tests.support.i18n import english_sentences

SCRIPT = (REPO / "judge" / "service" / "static" / "teacher.js").read_text()


def test_every_key_teacher_js_looks_up_is_a_teacher_message():
    keys = {k for k in re.findall(r'\bt\(\s*"([^"]+)"', SCRIPT) if not k.endswith(".")}  # not "status." + ...
    assert len(keys) > 12 and keys - set(m.TEACHER_SCRIPT_WORDS) == set()
    for prefix in ("status.", "rejudge.", "code."):  # looked up by a value of the API's answers
        assert f'"{prefix}" +' in SCRIPT and any(k.startswith(prefix) for k in m.TEACHER_SCRIPT_WORDS), prefix
    for status in ("accepted", "wrong_answer", "runtime_error", "time_limit_exceeded", "compile_error"):
        assert f"status.{status}" in m.TEACHER_SCRIPT_WORDS


def test_teacher_js_writes_no_english_of_its_own():
    """Its string and template literals are selectors, URLs, header names and placeholders, never prose."""
    code = "\n".join(line.split("//")[0] for line in SCRIPT.splitlines())  # comments aside
    literals = re.findall(r'"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`', code)
    assert len(literals) > 20
    prose = [lit for lit in literals if english_sentences(re.sub(r"\$\{[^}]*\}", " ", lit.strip('"`')))]
    assert prose == []


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGE_NAMES if lang != "en"])
def test_the_teacher_page_gives_every_word_in_its_language(lang):
    data = json.loads(words_json(lang, m.TEACHER_SCRIPT_WORDS))
    assert data["lang"] == lang and set(data["words"]) == set(m.TEACHER_SCRIPT_WORDS)
    texts = [f for t in data["words"].values() for f in (t.values() if isinstance(t, dict) else [t])]
    # the LTI service's own name (Names and Role Provisioning) is a name, not an English sentence
    assert [t for t in texts if english_sentences(t.replace("Names and Role", "NRPS"))] == []
    if lang == "ru":
        forms = data["words"]["submitted_of"]
        assert forms["one"] != forms["few"] and forms["few"] == forms["many"]  # из 1 ученика, из 5 учеников
