"""A bundle's texts in the learner's language: statements and the bank's words in French and Russian.

An author writes, beside the English source::

    statement.md                 # English, the source language
    statement.fr.md              # the same statement in French (formulas and code unchanged)
    statement.ru.md
    translations/fr.yaml         # the bundle's other learner-facing texts, by the ids the bundle gives them
    translations/ru.yaml

translations/fr.yaml::

    schema_version: 1
    title: Encodage positionnel sinusoïdal
    mistakes:                    # mistakes.yaml's ``message``, by mistake id
      sin_cos_swapped: "Le sinus et le cosinus sont inversés : ..."
    properties:                  # mistakes.yaml's properties' ``description``, by property id
      unit_circle: "chaque paire de colonnes (sin, cos) est sur le cercle unité"
    cases:                       # a public case's ``description``, by case id (a hidden one's is never shown)
      ex-1: "exemple 1 de l'énoncé"
    patterns:                    # the bundle's words the judge's generic sentences embed: axis names, the
      position: [position, positions]   # leading axes' name, pair names, tags; a word may list its plural
    family:                      # forms (French: one, many; Russian: one, few, many)
      components: {order: "ce qui vient en premier"}
      options: {order.cos_first: "met cos à la place de sin et sin à la place de cos"}
      facts: {frequencies: "la ligne 1 donne les fréquences w_i = {values}"}   # the same {parameters}

Every id must exist in the bundle, every text be non-empty, and the language be one the judge speaks
(:data:`LANGUAGES`); a mistake names the file, the line and the ids it could have meant.  Whatever a file
leaves out falls back to English (:func:`bundle_text`), and :func:`missing` lists it for ``judge verify``.
Why ids rather than English sentences as keys: rewording an English message must not silently orphan its
translation, and an id that no longer exists is an error at load time, not a text that is never shown.

Files are parsed once per version (keyed by size and mtime), since bundles are loaded often.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from judge.errors import BundleError
from judge.problem.models import CasesFile, ProblemSpec, _Strict
from judge.problem.yamlfile import LineMap, _read_text, validate_with_lines

if TYPE_CHECKING:
    from judge.problem.loader import Bundle
    from judge.problem.mistakes import Bank

SOURCE = "en"
#: The languages a bundle may be translated into (those the judge's own catalogs speak).
LANGUAGES = ("fr", "ru")
#: How many plural forms a word of ``patterns`` may list in each language (gettext's nplurals).
PLURAL_FORMS = {"fr": 2, "ru": 3}
FOLDER = "translations"
Kind = Literal["mistake", "property", "case", "pattern", "component", "option", "fact", "title"]
_SECTIONS = {"mistake": "mistakes", "property": "properties", "case": "cases", "pattern": "patterns"}

_Text = str
_Word = str | list[str]


class FamilyTexts(_Strict):
    components: dict[str, _Text] = Field(default_factory=dict, description="component id -> its name")
    options: dict[str, _Text] = Field(default_factory=dict, description="'component.option' -> its text")
    facts: dict[str, _Text] = Field(default_factory=dict, description="fact id -> its text, with the English "
                                                                       "text's {parameters}")


class TranslationFile(_Strict):
    """translations/<lang>.yaml: the bundle's learner-facing texts in one language, by id."""

    schema_version: Literal[1]
    title: _Text | None = None
    mistakes: dict[str, _Text] = Field(default_factory=dict)
    properties: dict[str, _Text] = Field(default_factory=dict)
    cases: dict[str, _Text] = Field(default_factory=dict)
    patterns: dict[str, _Word] = Field(default_factory=dict)
    family: FamilyTexts = FamilyTexts()


@dataclass(frozen=True)
class Translations:
    """Everything a bundle has in languages other than English, validated."""

    files: dict[str, TranslationFile] = field(default_factory=dict)
    statements: dict[str, Path] = field(default_factory=dict)  # read when asked (not on every load)

    @property
    def languages(self) -> list[str]:
        return sorted(set(self.files) | set(self.statements))


@dataclass(frozen=True)
class _Known:
    """The ids a translation may name, section by section (from the loaded bundle)."""

    mistakes: list[str]
    properties: list[str]
    cases: list[str]
    hidden_cases: set[str]
    patterns: list[str]
    required_patterns: list[str]
    components: list[str]
    options: list[str]
    facts: dict[str, str]  # fact id -> its English text


def _known(spec: ProblemSpec, cases: CasesFile, bank: Bank | None) -> _Known:
    words: list[str] = []
    for f in spec.functions:
        words += [a.name for a in f.axes] + [p for a in f.axes for p in (a.pairs or [])]
        if f.axes:
            words.append(f.leading_axes)
    required = list(dict.fromkeys(words))
    tags = [t for c in cases.cases for t in c.tags]
    family = bank.spec.family if bank is not None else None
    return _Known(
        mistakes=[m.id for m in bank.spec.mistakes] if bank is not None else [],
        properties=[p.id for p in bank.spec.properties] if bank is not None else [],
        cases=[c.id for c in cases.cases if c.visibility == "public"],
        hidden_cases={c.id for c in cases.cases if c.visibility != "public"},
        patterns=list(dict.fromkeys(required + tags)),
        required_patterns=required,
        components=[c.id for c in family.components] if family is not None else [],
        options=[f"{c.id}.{o.id}" for c in family.components for o in c.options] if family is not None else [],
        facts=dict(family.facts) if family is not None else {})


def _statement_files(root: Path, statement: str) -> dict[str, Path]:
    """``statement.<lang>.md`` beside the statement (any other language code is an error)."""
    source = root / statement
    stem, suffix = source.stem, source.suffix
    out: dict[str, Path] = {}
    for path in sorted(source.parent.glob(f"{stem}.*{suffix}")):
        lang = path.name[len(stem) + 1:len(path.name) - len(suffix)]
        if not re.fullmatch(r"[A-Za-z]{2,3}([_-][A-Za-z0-9]+)?", lang):
            continue  # statement.draft.old.md and the like: not a translation
        if lang not in LANGUAGES:
            raise BundleError(str(path), None, f"unknown language {lang!r} (a bundle may be translated into: "
                                               f"{', '.join(LANGUAGES)})")
        out[lang] = path
    return out


def _blank(value: Any) -> bool:
    if isinstance(value, list):
        return not value or any(_blank(v) for v in value)
    return value is None or (isinstance(value, str) and not value.strip())


def _check_blanks(path: Path) -> None:
    """An empty text is the author's slip (a key written, its text forgotten): named before the models see it,
    so the error says that rather than "Input should be a valid string"."""
    from judge.problem.yamlfile import _load_yaml

    data, lines = _load_yaml(path)
    if not isinstance(data, dict):
        return  # the model's error names it
    sections: list[tuple[tuple, Any]] = [((s,), data.get(s)) for s in _SECTIONS.values()]
    family = data.get("family")
    if isinstance(family, dict):
        sections += [(("family", s), family.get(s)) for s in ("components", "options", "facts")]
    if "title" in data and _blank(data["title"]):
        raise BundleError(str(path), lines.get(("title",)), "title: empty text (leave the key out to show "
                                                             "the English one)")
    for where, section in sections:
        if not isinstance(section, dict):
            continue
        for key, value in section.items():
            if _blank(value):
                raise BundleError(str(path), lines.get(where + (key,)),
                                  f"{'.'.join(where)}: {key}: empty text (leave the id out to show the "
                                  "English one)")


def _unknown(path: Path, lines: LineMap, where: tuple, key: str, what: str, known: list[str],
             why: str = "") -> BundleError:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(known) if known else "none"
    return BundleError(str(path), lines.get(where + (key,)),
                       f"{'.'.join(where)}: {key}: {why or f'no {what} has this id'} (the bundle's {what} ids: "
                       f"{listed}){hint}")


def _check_ids(path: Path, lang: str, data: TranslationFile, lines: LineMap, known: _Known) -> None:
    checks: list[tuple[tuple, dict, str, list[str]]] = [
        (("mistakes",), data.mistakes, "mistake", known.mistakes),
        (("properties",), data.properties, "property", known.properties),
        (("patterns",), data.patterns, "word", known.patterns),
        (("family", "components"), data.family.components, "component", known.components),
        (("family", "options"), data.family.options, "option", known.options),
        (("family", "facts"), data.family.facts, "fact", list(known.facts))]
    for where, section, what, ids in checks:
        for key in section:
            if key not in ids:
                raise _unknown(path, lines, where, key, what, ids)
    for key in data.cases:
        if key in known.hidden_cases:
            raise _unknown(path, lines, ("cases",), key, "public case", known.cases,
                           "a hidden case: its description is never shown to a learner")
        if key not in known.cases:
            raise _unknown(path, lines, ("cases",), key, "public case", known.cases)
    from judge.problem.mistakes import fact_fields

    for key, text in data.family.facts.items():  # said from the same parameters as the English text
        want, got = fact_fields(known.facts[key]), fact_fields(text)
        if got != want:
            said = (f"names {{{'}, {'.join(sorted(got))}}}" if got else "names no parameter") if got is not None \
                else "is not a format string (write {{ for a brace)"
            raise BundleError(str(path), lines.get(("family", "facts", key)),
                              f"family.facts: {key}: the text {said}; the English one names "
                              f"{', '.join('{' + f + '}' for f in sorted(want or ())) or 'none'}")
    forms = PLURAL_FORMS[lang]
    for key, word in data.patterns.items():
        if isinstance(word, list) and len(word) != forms:
            raise BundleError(str(path), lines.get(("patterns", key)),
                              f"patterns: {key}: {len(word)} forms; {lang} has {forms} plural forms "
                              f"(or give one word)")


_cache: dict[tuple, tuple[TranslationFile, LineMap]] = {}


def _stamp(path: Path) -> tuple:
    st = os.stat(path)
    return (str(path), st.st_mtime_ns, st.st_size)


def _parse(path: Path) -> tuple[TranslationFile, LineMap]:
    """The file validated, and where its keys sit (found only if an error needs a line): parsed once per
    version, the cache keyed by its path, mtime and size."""
    stamp = _stamp(path)
    hit = _cache.get(stamp)
    if hit is not None:
        return hit
    _check_blanks(path)
    parsed: tuple[TranslationFile, LineMap] = validate_with_lines(TranslationFile, path)
    if len(_cache) > 256:
        _cache.clear()
    _cache[stamp] = parsed
    return parsed


def load_translations(root: Path, spec: ProblemSpec, cases: CasesFile, bank: Bank | None) -> Translations:
    """The bundle's translations, validated against its ids; raises :class:`BundleError` naming file and line."""
    statements = _statement_files(root, spec.statement)
    for lang, path in statements.items():
        if not _read_text(path).strip():
            raise BundleError(str(path), None, f"an empty statement (delete the file to show the English one "
                                               f"to {lang} learners)")
    folder = root / FOLDER
    files: dict[str, TranslationFile] = {}
    if folder.is_dir():
        known: _Known | None = None
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or path.is_dir():
                continue
            lang, suffix = path.stem, path.suffix
            if suffix not in (".yaml", ".yml"):
                raise BundleError(str(path), None, f"{FOLDER}/ holds one <language>.yaml per language "
                                                   f"({', '.join(f'{x}.yaml' for x in LANGUAGES)})")
            if lang not in LANGUAGES:
                raise BundleError(str(path), None, f"unknown language {lang!r} (a bundle may be translated "
                                                   f"into: {', '.join(LANGUAGES)})")
            data, lines = _parse(path)
            known = known or _known(spec, cases, bank)
            _check_ids(path, lang, data, lines, known)  # every load: cheap, and the bank may have changed
            files[lang] = data
    return Translations(files=files, statements=statements)


def _translations(bundle: Bundle) -> Translations:
    return getattr(bundle, "translations", None) or Translations()


def _section(data: TranslationFile, kind: Kind) -> dict[str, Any]:
    if kind in _SECTIONS:
        return getattr(data, _SECTIONS[kind])
    if kind == "component":
        return data.family.components
    if kind == "option":
        return data.family.options
    if kind == "fact":
        return data.family.facts
    raise ValueError(f"unknown kind {kind!r}")


def bundle_text(bundle: Bundle, lang: str, kind: Kind, key: str, default: str) -> str:
    """The bundle's text of that kind and id in ``lang``; ``default`` (the English one) when it has none.

    kind: ``mistake`` (a named mistake's message, by mistake id), ``property`` (a property check's
    description), ``case`` (a public case's description), ``pattern`` (a bundle word the judge's failure
    patterns and element names embed: an axis name, the leading axes' name, a pair name, a tag; its singular),
    ``component`` / ``option`` (the family's words; an option by ``component.option``), ``title`` (key
    ignored)."""
    data = _translations(bundle).files.get(_base(lang))
    if data is None:
        return default
    if kind == "title":
        return data.title or default
    value = _section(data, kind).get(key)
    if value is None:
        return default
    return value[0] if isinstance(value, list) else value


def bundle_word(bundle: Bundle, lang: str, key: str, n: int | None = None) -> str | None:
    """A word of ``patterns`` in the form ``n`` asks for (CLDR plural rules: French 0 and 1 take the singular;
    Russian one/few/many), or None when the bundle has no translation of it."""
    data = _translations(bundle).files.get(_base(lang))
    value = data.patterns.get(key) if data is not None else None
    if value is None or isinstance(value, str):
        return value
    return value[_plural_index(_base(lang), 1 if n is None else n)]


def _plural_index(lang: str, n: int) -> int:
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return 0
        return 1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2
    return 0 if n in (0, 1) else 1


def _base(lang: str) -> str:
    """``fr-FR``, ``ru_RU.UTF-8`` -> ``fr``, ``ru``."""
    return re.split(r"[-_.@]", lang or "", maxsplit=1)[0].lower()


def statement(bundle: Bundle, lang: str) -> tuple[str, str]:
    """The statement in ``lang`` and the language actually used (English when the bundle lacks it)."""
    path = _translations(bundle).statements.get(_base(lang))
    if path is None:
        return bundle.statement, SOURCE
    stamp = _stamp(path)
    text = _statements.get(stamp)
    if text is None:
        text = _read_text(path)
        _statements[stamp] = text
    return text, _base(lang)


_statements: dict[tuple, str] = {}


def missing(bundle: Bundle, lang: str) -> list[str]:
    """What a ``lang`` learner would read in English: ``statement``, ``title``, ``mistake <id>``, ``property
    <id>``, ``case <id>`` (public cases with a description), ``pattern <word>`` (axis, leading and pair names;
    tags are shown quoted, as names, and may stay), ``component <id>``, ``option <component.option>``, ``fact
    <id>`` (the family's facts)."""
    lang = _base(lang)
    translations = _translations(bundle)
    data = translations.files.get(lang) or TranslationFile(schema_version=1)
    known = _known(bundle.spec, bundle.cases, bundle.bank)
    out = [] if lang in translations.statements else ["statement"]
    out += [] if data.title else ["title"]
    described = {c.id for c in bundle.cases.cases if c.description}
    wanted: list[tuple[str, dict, list[str]]] = [
        ("mistake", data.mistakes, known.mistakes), ("property", data.properties, known.properties),
        ("case", data.cases, [c for c in known.cases if c in described]),
        ("pattern", data.patterns, known.required_patterns),
        ("component", data.family.components, known.components), ("option", data.family.options, known.options),
        ("fact", data.family.facts, list(known.facts))]
    for what, section, ids in wanted:
        out += [f"{what} {i}" for i in ids if i not in section]
    return out


_NOUNS = {"mistake": ("mistake without a message", "mistakes without a message"),
          "property": ("property without a description", "properties without a description"),
          "case": ("public case without a description", "public cases without a description"),
          "pattern": ("word untranslated", "words untranslated"),
          "component": ("family component unnamed", "family components unnamed"),
          "option": ("family option without a text", "family options without a text"),
          "fact": ("fact untranslated", "facts untranslated")}


def summary(bundle: Bundle, lang: str) -> str:
    """``complete``, or what is missing in words: ``no statement; 2 mistakes without a message (a, b)``."""
    lacks = missing(bundle, lang)
    if not lacks:
        return "complete"
    parts = [f"no {item}" for item in ("statement", "title") if item in lacks]
    for kind, (one, many) in _NOUNS.items():
        ids = [item.split(" ", 1)[1] for item in lacks if item.startswith(kind + " ")]
        if ids:
            parts.append(f"{len(ids)} {one if len(ids) == 1 else many} ({', '.join(ids)})")
    return "; ".join(parts)


_SPANS = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$|``.+?``|`[^`\n]+`", re.S)
_FENCE = re.compile(r"^(```|~~~)", re.M)
_BLOCK = re.compile(r"^(?:```|~~~)[^\n]*\n(.*?)^(?:```|~~~)", re.M | re.S)
#: Names a sentence quotes from the code without backticks (d_model, x.shape, np.exp): kept as they are.
_CODE_WORD = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\b|\b[A-Za-z_]\w*\.[A-Za-z_]\w*(?:\.\w+)*\b")


def spans(text: str) -> list[str]:
    """The formulas and code spans of a text (``$...$``, ``$$...$$``, backticks) and its fenced blocks'
    fences: what a translation keeps as it is."""
    return _SPANS.findall(_FENCE.sub("", text)) + _FENCE.findall(text)


def dropped_spans(english: str, translated: str) -> str | None:
    """Why ``translated`` lost or gained a formula or a code span of ``english`` (None when their counts
    agree): a translation that drops `x.shape[-2]` teaches something else."""
    a, b = spans(english), spans(translated)
    counts = [(len([s for s in a if s.startswith(p)]), len([s for s in b if s.startswith(p)]), name)
              for p, name in (("$", "formulas"), ("`", "code spans"))]
    counts.append((len(_FENCE.findall(english)), len(_FENCE.findall(translated)), "code fences"))
    diff = [f"{name}: {x} in English, {y} here" for x, y, name in counts if x != y]
    if not diff and _BLOCK.findall(english) != _BLOCK.findall(translated):
        diff.append("a code block differs from the English one (code and numbers stay as they are)")
    lost = sorted(set(_CODE_WORD.findall(english)) - set(_CODE_WORD.findall(translated)) - {"e.g", "i.e"})
    if lost:
        diff.append(f"names of the code missing: {', '.join(lost)}")
    return "; ".join(diff) or None


def text_drift(bundle: Bundle, lang: str) -> list[tuple[str, str]]:
    """Each translated text whose formulas, code spans or quoted names differ from its English source's:
    (where, why).  For ``judge verify`` and the bundles' own test; a translation may legitimately differ
    (a name said in words), so it is a note, never a load error."""
    lang = _base(lang)
    out: list[tuple[str, str]] = []
    if lang in _translations(bundle).statements:
        why = dropped_spans(bundle.statement, statement(bundle, lang)[0])
        if why:
            out.append(("statement", why))
    data = _translations(bundle).files.get(lang)
    if data is None:
        return out
    sources: list[tuple[str, str, str | None]] = []
    if bundle.bank is not None:
        sources += [(f"mistake {m.id}", m.message, data.mistakes.get(m.id)) for m in bundle.bank.spec.mistakes]
        sources += [(f"property {p.id}", p.description, data.properties.get(p.id))
                    for p in bundle.bank.spec.properties]
        family = bundle.bank.spec.family
        if family is not None:
            sources += [(f"option {c.id}.{o.id}", o.text, data.family.options.get(f"{c.id}.{o.id}"))
                        for c in family.components for o in c.options]
            sources += [(f"fact {k}", text, data.family.facts.get(k)) for k, text in family.facts.items()]
    sources += [(f"case {c.id}", c.description, data.cases.get(c.id)) for c in bundle.cases.cases]
    for where, english, translated in sources:
        why = dropped_spans(english, translated) if translated else None
        if why:
            out.append((where, why))
    return out


def write_handout(bundle: Bundle, target: Path) -> list[Path]:
    """The translations a hand-out (``judge package notebook``) carries: the translated statements, and each
    translations file cut to what the hand-out has (its public cases, its bank's mistakes, the words of its
    functions and public cases; no properties or family, which a hand-out's bank drops), so that a French
    learner's ``check()`` reads French and nothing names a hidden case.  The files written."""
    import yaml

    translations = _translations(bundle)
    written: list[Path] = []
    for path in translations.statements.values():
        shutil.copyfile(path, target / path.name)
        written.append(target / path.name)
    if not translations.files:
        return written
    public = [c for c in bundle.cases.cases if c.visibility == "public"]
    known = _known(bundle.spec, bundle.cases, bundle.bank)
    words = set(known.required_patterns) | {t for c in public for t in c.tags}
    (target / FOLDER).mkdir(exist_ok=True)
    for lang, data in translations.files.items():
        doc: dict[str, Any] = {"schema_version": 1}
        if data.title:
            doc["title"] = data.title
        doc["mistakes"] = dict(data.mistakes)
        doc["cases"] = {k: v for k, v in data.cases.items() if k in {c.id for c in public}}
        doc["patterns"] = {k: v for k, v in data.patterns.items() if k in words}
        out = target / FOLDER / f"{lang}.yaml"
        out.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=110), encoding="utf-8")
        written.append(out)
    return written
