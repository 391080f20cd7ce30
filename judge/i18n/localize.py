"""A verdict's learner-facing texts rendered in a language: the last step of every door.

Why at the door: the verdict is stored once, with its sentences as message ids and parameters
(:class:`judge.feedback.MessageRef`) beside their English text, and shown later to a learner whose language is
known only then (a page's ``Accept-Language``, an LTI launch's locale, ``--lang``).  :func:`localize` is applied
after :func:`judge.formats.learner.learner_view`: it renders only the ids the view kept and adds no fact, so what
the view withholds stays withheld.  A text that has no ids (an older verdict, a text cut to fit) stays English.
Named mistakes and pattern texts the bundle words are asked of the bundle
(``judge.problem.translations.bundle_text``), falling back to the English when the bundle has no translation.
"""

from __future__ import annotations

import re
from typing import Any

from judge.feedback import MessageRef, Recovery
from judge.i18n import messages as m
from judge.i18n.catalog import FACT, WORD, map_texts, render, render_all, verbatim, word
from judge.i18n.negotiate import DEFAULT
from judge.i18n.numbers import ProseFormatter
from judge.problem.translations import Kind, bundle_word
from judge.problem.translations import bundle_text as translated
from judge.verdict import CaseResult, Diagnosis, Verdict

_HIDDEN_LABEL = re.compile(r"^hidden case (\d+) of (\d+)$")  # judge.formats.learner.hidden_label's words


def first_failing(case: CaseResult) -> MessageRef:
    """The verdict's message naming its first failing case: the case's own message is found by id when it is
    rendered, so the case's parameters (the learner's text) are not stored twice."""
    return m.FIRST_FAILING(case=case.id, hidden=case.visibility != "public")


def bundle_text(bundle: Any, lang: str, kind: Kind, key: str, default: str) -> str:
    """The bundle's own text in ``lang`` (a named mistake's explanation, a property's description, a word its
    patterns embed), or ``default``: a bundle's translations are optional (:mod:`judge.problem.translations`)."""
    if bundle is None or lang == DEFAULT:
        return default
    return translated(bundle, lang, kind, key, default)


def case_name(case_id: str, lang: str) -> str:
    """A case's name as a learner sees it: an anonymous hidden case's name ("hidden case 2 of 5") in ``lang``."""
    match = _HIDDEN_LABEL.match(case_id)
    if match is None or lang == DEFAULT:
        return case_id
    return render(m.HIDDEN_LABEL(k=int(match.group(1)), n=int(match.group(2))), lang)


#: A picture's title as judge.diagnosis.pictures writes it (fixed English, the leading axes' name the bundle's)
_PICTURE_TITLE = re.compile(r"case (?P<case>.+?): (?P<kind>yours - expected|expected|yours|column pairs, expected vs "
                            r"yours)(?:, (?P<lead>\w+) index (?P<index>\(.*\)|\d+))?")
_PICTURE_KINDS = {"expected": m.PICTURE_EXPECTED, "yours": m.PICTURE_YOURS, "yours - expected": m.PICTURE_DIFFERENCE,
                  "column pairs, expected vs yours": m.PICTURE_PAIRS}


def picture_title(title: str, lang: str, bundle: Any = None) -> str:
    """A picture's title in ``lang`` (the pictures are drawn once, their titles said at the door); a title the
    judge did not write stays as it is."""
    found = _PICTURE_TITLE.fullmatch(title)
    if found is None or lang == DEFAULT:
        return title
    where = m.PICTURE_WHERE(name=word(found["lead"]), index=found["index"]) if found["lead"] else ""
    said = _PICTURE_KINDS[found["kind"]](case=case_name(found["case"], lang), where=where)
    return render_all(worded([said], lang, bundle), lang)


_LABEL_COUNT = {"ru": 1}


def worded(refs: list, lang: str, bundle: Any) -> list:
    """``refs`` with the bundle's words (:func:`judge.i18n.catalog.word`) in ``lang``: the bundle's translation,
    else the English word (said as it is)."""
    def value(v: Any) -> Any:
        if isinstance(v, MessageRef) or (isinstance(v, dict) and set(v) == {"id", "params"}):
            return one(v if isinstance(v, MessageRef) else MessageRef.model_validate(v))
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    def one(ref: MessageRef) -> MessageRef:
        if ref.id == WORD:
            key, n, text = str(ref.params.get("key", "")), ref.params.get("n"), str(ref.params.get("text", ""))
            if n == "label":  # a plural naming a kind: a bundle's Russian forms count (столбца, столбцов), so
                n = _LABEL_COUNT.get(lang[:2], 2)  # Russian names the kind in the singular (столбец sin)
            said = bundle_word(bundle, lang, key, n) if bundle is not None and lang != DEFAULT else None
            return verbatim(said or text)
        if ref.id == FACT:
            return verbatim(_fact(ref, lang, bundle))
        return MessageRef(id=ref.id, params={k: value(v) for k, v in ref.params.items()})

    return [value(r) for r in refs]


def _fact(ref: MessageRef, lang: str, bundle: Any) -> str:
    """A fact the bundle's code reported, from the bundle's text for its id in ``lang`` and its parameters
    (numbers in the language's notation, :mod:`judge.i18n.numbers`); its English text when the bundle has no
    translation of it (or the stored parameters no longer fill it)."""
    english = str(ref.params.get("text", ""))
    template = bundle_text(bundle, lang, "fact", str(ref.params.get("key", "")), "")
    values = ref.params.get("values")
    if not template or not isinstance(values, dict):
        return english
    try:
        return ProseFormatter(lang).format(template, **values)
    except (KeyError, ValueError, IndexError, TypeError):
        return english


_PLACES = {m.AT_INDEX.id: "worst_where", m.AT_ITEM.id: "worst_where", m.NONFINITE_AT.id: "nonfinite_where"}


def _case(case: CaseResult, lang: str, bundle: Any = None) -> CaseResult:
    update: dict[str, Any] = {"id": case_name(case.id, lang)}
    if case.said:
        case = case.model_copy(update={"said": worded(case.said, lang, bundle)})
        update["message"] = render_all(case.said, lang)
        places = {_PLACES[r.id]: render(r.params["where"], lang) for r in case.said
                  if r.id in _PLACES and "where" in r.params}
        if case.facts is not None and case.facts.worst_where == m.WHERE_THE_VALUE.text:  # one number: not said
            places.setdefault("worst_where", render(m.WHERE_THE_VALUE(), lang))
        if places and case.facts is not None:  # the window's heading names the place as the message does
            update["facts"] = case.facts.model_copy(update=places)
    return case.model_copy(update=update)


def _verdict_message(verdict: Verdict, cases: dict[str, CaseResult], lang: str, bundle: Any = None) -> str:
    """The verdict's message from its ids; its English text when an id's case is not in this view."""
    parts = []
    for ref in worded(verdict.said, lang, bundle):
        if ref.id != m.FIRST_FAILING.id:
            parts.append(render(ref, lang))
            continue
        case = cases.get(str(ref.params.get("case")))
        if case is None:
            return verdict.message
        label = case.id
        if ref.params.get("hidden") and not _HIDDEN_LABEL.match(str(ref.params.get("case"))):
            label = render(m.HIDDEN_SUFFIX(case=case.id), lang)
        parts.append(render(m.FIRST_FAILING(label=label, message=case.message), lang))
    return "; ".join(parts)


def _mistake(d: Diagnosis, lang: str, bundle: Any) -> str:
    """A named mistake's explanation: its ids; else the bundle's wording in ``lang``; else the judge's own."""
    if d.said:
        return render_all(worded(d.said, lang, bundle), lang)
    own = bundle_text(bundle, lang, "mistake", d.id, "")  # a bank's own mistake, or its rewording of a generic one
    if own:
        return own
    if "+" in d.id:  # mistakes made together (judge.diagnosis.recover): each one's explanation, in order
        parts = [bundle_text(bundle, lang, "mistake", part, "")
                 or (render(m.GENERIC_MISTAKES[part](), lang) if part in m.GENERIC_MISTAKES else "")
                 for part in d.id.split("+")]
        if all(parts):
            return " ".join(parts)
    generic = m.GENERIC_MISTAKES.get(d.id)
    if generic is not None and d.message == generic.text:
        return render(generic(), lang)
    return d.message


def _evidence(d: Diagnosis, cases: dict[str, CaseResult], originals: dict[str, CaseResult], lang: str) -> str:
    """The example a mistake gives (judge.diagnosis's evidence), said again from its public case's facts."""
    for case_id, case in originals.items():
        if case.visibility != "public" or not d.evidence.startswith(f"e.g. case {case_id}: "):
            continue
        f = case.facts
        if f is not None and f.worst_where and f.expected_at_worst is not None and f.got_at_worst is not None:
            at = {"case": case_id, "where": f.worst_where, "expected": f.expected_at_worst, "got": f.got_at_worst}
            if d.evidence == render(m.EVIDENCE_AT(**at), DEFAULT):
                shown_facts = cases[case_id].facts
                if shown_facts is not None and shown_facts.worst_where:  # the place said in lang (_case)
                    at["where"] = shown_facts.worst_where
                return render(m.EVIDENCE_AT(**at), lang)
        elif case.message and d.evidence == render(
                m.EVIDENCE(case=case_id, message=case.message.splitlines()[0][:160]), DEFAULT):
            shown = cases[case_id].message.splitlines()[0][:160] if cases[case_id].message else ""
            return render(m.EVIDENCE(case=case_id, message=shown), lang)
    return d.evidence


def _sentence(texts: list[str], lang: str) -> str:
    """The wrong components' texts as one clause (judge.diagnosis.recover's ``_sentence``, in ``lang``)."""
    if len(texts) <= 1:
        return "".join(texts)
    return render(m.AND_LAST(items="; ".join(texts[:-1]), last=texts[-1]), lang)


def _recovered(r: Recovery, lang: str, bundle: Any) -> Recovery:
    """What the learner computed, said again in ``lang``: the summary is one of judge.diagnosis.recover's three
    sentences, recognised by its English text and rebuilt from the components in the bundle's words."""
    wrong_en = [c.text for c in r.components if not c.right]
    parts = [c.model_copy(update={
        "name": bundle_text(bundle, lang, "component", c.id, c.name),
        "text": bundle_text(bundle, lang, "option", f"{c.id}.{c.option}", c.text)}) for c in r.components]
    wrong = [c.text for c in parts if not c.right]
    summary = r.summary
    english = _sentence(wrong_en, DEFAULT)
    if r.summary == render(m.RECOVERED_EXACT(what=english), DEFAULT):
        summary = render(m.RECOVERED_EXACT(what=_sentence(wrong, lang)), lang)
    elif r.summary == render(m.RECOVERED_NONE(), DEFAULT):
        summary = render(m.RECOVERED_NONE(), lang)
    elif r.summary == render(m.RECOVERED_CLOSEST(n=len(r.cases), m=r.checked, what=english), DEFAULT):
        summary = render(m.RECOVERED_CLOSEST(n=len(r.cases), m=r.checked, what=_sentence(wrong, lang)), lang)
    facts = [render_all(worded([f], lang, bundle), lang) for f in r.said_facts] \
        if len(r.said_facts) == len(r.facts) else r.facts  # a verdict stored before facts had ids: as it was
    return r.model_copy(update={"summary": summary, "components": parts, "facts": facts})


def _named(refs: list[MessageRef], lang: str) -> list[MessageRef]:
    """``refs`` with anonymous hidden cases' names ("hidden case 2 of 5") in ``lang``."""
    return map_texts(refs, lambda text: case_name(text, lang))


def localize(verdict: Verdict, lang: str, bundle: Any = None) -> Verdict:
    """``verdict`` with every learner-facing text that has message ids rendered in ``lang`` (English: unchanged).
    ``bundle``: the problem's bundle, for the texts it words itself (named mistakes)."""
    if lang == DEFAULT:
        return verdict
    by_id = {c.id: _case(c, lang, bundle) for c in verdict.cases}
    update: dict[str, Any] = {"cases": list(by_id.values())}
    if verdict.said:
        update["message"] = _verdict_message(verdict, by_id, lang, bundle)
    originals = {c.id: c for c in verdict.cases}
    update["diagnoses"] = [
        d.model_copy(update={"message": _mistake(d, lang, bundle), "cases": [case_name(c, lang) for c in d.cases],
                             "evidence": _evidence(d, by_id, originals, lang) if d.evidence else ""})
        for d in verdict.diagnoses]
    update["patterns"] = [p.model_copy(update={"description": render_all(worded(p.said, lang, bundle), lang)
                                               if p.said else
                                               bundle_text(bundle, lang, "pattern", p.description, p.description),
                                               "cases": [case_name(c, lang) for c in p.cases]})
                          for p in verdict.patterns]
    update["checks"] = [c.model_copy(update={
        "description": bundle_text(bundle, lang, "property", c.id, c.description),
        "failed_cases": [case_name(f, lang) for f in c.failed_cases]}) for c in verdict.checks]
    if verdict.time_feedback is not None and verdict.time_feedback.said:
        update["time_feedback"] = verdict.time_feedback.model_copy(update={
            "message": render_all(worded(_named(verdict.time_feedback.said, lang), lang, bundle), lang),
            "case": case_name(verdict.time_feedback.case, lang)})
    if verdict.recovered is not None:
        update["recovered"] = _recovered(verdict.recovered, lang, bundle)
    if verdict.counterexample is not None and verdict.counterexample.said:
        update["counterexample"] = verdict.counterexample.model_copy(update={
            "message": render_all(worded(verdict.counterexample.said, lang, bundle), lang)})
    found = update.get("counterexample", verdict.counterexample)
    if found is not None and found.got_said:
        update["counterexample"] = found.model_copy(update={
            "got_text": render_all(worded(found.got_said, lang, bundle), lang)})
    if verdict.pictures:
        update["pictures"] = [p.model_copy(update={"title": picture_title(p.title, lang, bundle)})
                              for p in verdict.pictures]
    return verdict.model_copy(update=update)
