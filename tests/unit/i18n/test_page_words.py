"""The learner page's script says only what the page gives it: every key it looks up is a catalog message, and
every one is given in each language (a key the page lacked would show the key itself, in English)."""

from __future__ import annotations

import json
import re

import pytest

from judge.i18n import messages as m
from judge.service.lti.page import LANGUAGE_NAMES, script_words, words_json
from tests.support.common import REPO

SCRIPT = (REPO / "judge" / "service" / "static" / "learner.js").read_text()


def test_every_key_the_script_looks_up_is_a_page_message():
    keys = {k for k in re.findall(r'\bt\(\s*"([^"]+)"', SCRIPT) if not k.endswith(".")}  # not "status." + ...
    keys |= {f"head.{h}" for h in re.findall(r'"(\w+)"', re.search(r'\[("case".*?)\]\.map', SCRIPT).group(1))}
    assert len(keys) > 40
    assert keys - set(m.PAGE_SCRIPT_WORDS) == set()
    for prefix in ("status.", "differs.", "visibility.", "state."):  # looked up by a value of the verdict's
        assert any(k.startswith(prefix) for k in m.PAGE_SCRIPT_WORDS), prefix


@pytest.mark.parametrize("lang", list(LANGUAGE_NAMES))
def test_the_page_gives_the_script_every_word_in_its_language(lang):
    data = json.loads(words_json(lang))
    assert data["lang"] == lang and set(data["words"]) == set(m.PAGE_SCRIPT_WORDS)
    counted = data["words"]["withheld"]
    assert isinstance(counted, dict) and "one" in counted and "other" in counted
    if lang == "ru":
        assert counted["one"] != counted["few"] != counted["many"]
    assert script_words(lang)["words"]["status.wrong_answer"] != (
        script_words("en")["words"]["status.wrong_answer"] if lang != "en" else "")


def test_the_words_block_cannot_close_its_script_element(monkeypatch):
    """A translation holding ``</script>`` stays data: the page's JSON block writes ``<`` escaped."""
    from judge.i18n.catalog import Message

    monkeypatch.setitem(m.PAGE_SCRIPT_WORDS, "probe", Message("page.probe", "</script><script>alert(1)</script>"))
    block = words_json("en")
    assert "<" not in block and json.loads(block)["words"]["probe"].startswith("</script>")


def test_every_refusal_the_learner_pages_api_makes_has_the_pages_words():
    """learner.js shows a refusal by its JSON code in the page's language (the JSON's message is English, for
    programs): every code the learner's API routes and their session check raise, and the rate limiter's, has a
    word; an unknown code falls back to the "failed" sentence, never to the server's English."""
    service = REPO / "judge" / "service"
    raised = set()
    for source in ("lti/routes.py", "lti/side.py"):
        raised |= set(re.findall(r'ApiError\(\d+, "(\w+)"', (service / source).read_text()))
    raised |= {"rate_limited", "invalid_request"}  # judge.service.auth's limiter; FastAPI's validation errors
    assert {"csrf_invalid", "queue_full", "request_too_large"} <= raised
    assert {code for code in raised if f"code.{code}" not in m.PAGE_SCRIPT_WORDS} == set()
    assert "data.message" not in SCRIPT and 't("failed"' in SCRIPT and 't("unreachable")' in SCRIPT
