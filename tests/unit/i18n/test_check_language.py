"""``check()`` in a notebook speaks the kernel's language: its headline and its choice of language."""

from __future__ import annotations

from judge.notebook_check import headline, language
from judge.verdict import CaseResult, Status, Verdict


def _verdict() -> Verdict:
    cases = [CaseResult(id="ex-1", function="f", visibility="public", status=Status.ACCEPTED),
             CaseResult(id="ex-2", function="f", visibility="public", status=Status.WRONG_ANSWER)]
    return Verdict(status=Status.WRONG_ANSWER, score=0.5, problem="p", cases=cases, judge_version="0",
                   numpy_version="0", python_version="0")


def test_the_headline_in_each_language():
    assert headline(_verdict(), 3) == "public cases: 1 of 2 passed; 3 hidden cases run when you submit"
    assert headline(_verdict(), 3, "fr") == ("cas publics réussis : 1 sur 2 ; 3 cas cachés seront exécutés quand "
                                             "vous soumettrez")  # a space before the semicolon, as French sets it
    assert headline(_verdict(), 1, "ru") == ("открытых тестов пройдено: 1 из 2; 1 скрытый тест будет запущен, когда "
                                             "вы отправите решение")


def test_the_language_is_the_argument_else_the_kernels_locale(monkeypatch):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    assert language() == "en"
    monkeypatch.setenv("LANG", "ru_RU.UTF-8")
    assert language() == "ru"
    assert language("fr-CA") == "fr"
