"""The learner page in a real browser: Debian's chromium, headless, driven by Playwright (the system
browser; Playwright downloads none).  The course page of the loopback test platform frames the tool,
as an LMS does: launch, type a wrong solution, submit, see the diagnosis; fix it, see accepted; the
platform's gradebook receives the score.  Any console error fails the test.  Screenshots, the page's
weight and the time to the first verdict go to the artifacts folder (JUDGE_TEST_ARTIFACTS, default
test-artifacts/browser).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.common import REPO, unavailable
from tests.support.lti_platform import LoopbackPlatform, start_tool
from tests.support.service import SOURCES, require_sandbox, wait_for
from tests.support.tiers import needs

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(os.environ.get("JUDGE_TEST_ARTIFACTS") or REPO / "test-artifacts" / "browser")


@pytest.fixture(scope="module")
@needs("browser")
def browser():
    if not os.path.exists(CHROMIUM):
        unavailable("Debian's chromium NOT INSTALLED (apt-get install chromium), BROWSER TEST NOT RUN")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright NOT INSTALLED (pip install '.[test]'), BROWSER TEST NOT RUN")
    profile = tempfile.mkdtemp(prefix="judge-chromium-")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                        args=ARGS, viewport={"width": 1100, "height": 1500})
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def lms(tmp_path_factory):
    require_sandbox()
    platform = LoopbackPlatform(tmp_path_factory.mktemp("lms"))
    server = start_tool(tmp_path_factory.mktemp("tool"), platform, JUDGE_LEARN_CODES="ml101:open-sesame")
    yield platform, server
    server.stop()
    platform.stop()



def _open_editor(page, url: str):  # noqa: ANN001, ANN202 - playwright's Page, (FrameLocator, Locator)
    """The course page at ``url``, its tool's frame, and the tool's editor once it is there."""
    page.goto(url)
    frame = page.frame_locator("#tool")
    editor = frame.locator("#editor")
    editor.wait_for(timeout=30_000)
    return frame, editor


def _clear(editor) -> None:  # noqa: ANN001 - a playwright Locator
    editor.click()
    editor.press("Control+a")
    editor.press("Delete")

def test_a_learner_solves_the_exercise_in_the_browser(browser, lms):
    platform, server = lms
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    weights: dict[str, int] = {}
    page = browser.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

    def weigh(response) -> None:  # noqa: ANN001
        path = response.url.split("?")[0]
        if path.startswith(server.url) and ("/lti/page/" in path or "/lti/static/" in path):
            try:
                weights[path.removeprefix(server.url)] = len(response.body())
            except Exception:  # noqa: BLE001 - a redirect has no body
                pass

    page.on("response", weigh)
    frame, editor = _open_editor(page, f"{platform.url}/course")

    # the editor: Tab indents, Enter keeps the indentation, Esc then Tab leaves it for the Submit button
    _clear(editor)
    page.keyboard.type("def f(x):")
    page.keyboard.press("Enter")
    page.keyboard.type("return x")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert editor.input_value() == "def f(x):\n    return x\n    "
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert frame.locator(":focus").get_attribute("id") == "submit", "Esc, Tab leaves the editor"

    # a wrong solution, typed in; the draft survives a reload
    editor.click()
    editor.press("Control+a")
    editor.press("Delete")
    page.keyboard.insert_text(SOURCES["wrong_answer"])
    page.frame_locator("#tool").locator("#highlight .tok-kw").first.wait_for()
    tool_frame = page.frame(url=lambda u: "/lti/page/" in u)
    tool_frame.goto(tool_frame.url)  # a reload of the framed page
    editor = frame.locator("#editor")
    editor.wait_for()
    assert editor.input_value() == SOURCES["wrong_answer"], "the draft is kept across a reload"

    started = time.monotonic()
    frame.locator("#submit").click()
    verdict = frame.locator("#verdict-section[data-status]")
    verdict.wait_for(timeout=60_000)
    first_verdict_s = time.monotonic() - started
    assert verdict.get_attribute("data-status") == "wrong_answer"
    assert frame.locator(".status").inner_text() == "Wrong answer"
    diagnoses = frame.locator(".diagnoses li")
    assert diagnoses.count() >= 1 and diagnoses.first.inner_text().strip()
    assert frame.locator("table.cases tr").count() > 5
    found = frame.locator("section.counterexample")  # the judge's own smallest input, shown in full
    assert found.count() == 1, "a wrong answer shows its counterexample"
    call = found.locator("pre.counterexample-call").inner_text()
    assert call.startswith(("sinusoidal_pe(", "add_positional_encoding(")), call
    assert "expected" in found.locator("table.counterexample").inner_text()
    frame.locator(".pictures img").first.wait_for(timeout=120_000)  # drawn after the verdict is shown
    page.screenshot(path=str(ARTIFACTS / "1-wrong-answer.png"), full_page=True)
    frame.locator("#verdict-section").screenshot(path=str(ARTIFACTS / "1-wrong-answer-verdict.png"))

    # fixed: accepted
    editor.click()
    editor.press("Control+a")
    editor.press("Delete")
    page.keyboard.insert_text(SOURCES["accepted"])
    editor.press("Control+Enter")
    frame.locator('#verdict-section[data-status="accepted"]').wait_for(timeout=60_000)
    assert frame.locator(".status").inner_text() == "Accepted"
    frame.locator("#history li").nth(1).wait_for()
    assert frame.locator("#history li").count() == 2
    assert "Accepted" in frame.locator("#history li").first.inner_text(), "newest first"
    page.screenshot(path=str(ARTIFACTS / "2-accepted.png"), full_page=True)
    frame.locator("#verdict-section").screenshot(path=str(ARTIFACTS / "2-accepted-verdict.png"))

    # a notebook instead of the editor: uploaded, its functions graded, its cells named
    from tests.support.notebook import twin

    notebook = ARTIFACTS / "homework.ipynb"
    notebook.write_text(twin(SOURCES["wrong_answer"], "colab", outputs=5000))
    frame.locator("#notebook-file").set_input_files(str(notebook))
    frame.locator("#history li").nth(2).wait_for(timeout=60_000)
    frame.locator('#verdict-section[data-status="wrong_answer"]').wait_for(timeout=60_000)
    assert "Notebook: graded the definitions in cell" in frame.locator("p.notebook").inner_text()
    assert editor.input_value() == SOURCES["accepted"], "the editor is left as it was"

    final = wait_for(lambda: [s["score"] for s in platform.scores
                              if s["score"]["gradingProgress"] == "FullyGraded" and s["score"]["scoreGiven"] == 1.0],
                     30, what="the accepted score at the platform")
    assert final[0]["userId"] == "learner-1"

    # readable on a phone: the page alone, 390 px wide, nothing wider than the screen
    phone = browser.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.on("console", lambda m: problems.append(f"phone console {m.type}: {m.text}") if m.type == "error" else None)
    frame_url = page.frame(url=lambda u: "/lti/page/" in u).url
    phone.goto(frame_url)
    phone.locator("#editor").wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    phone.screenshot(path=str(ARTIFACTS / "3-phone.png"), full_page=False)
    phone.close()

    page_bytes = sum(weights.values())
    (ARTIFACTS / "measures.json").write_text(json.dumps({"page_bytes": weights, "total_bytes": page_bytes,
                                                          "first_verdict_seconds": round(first_verdict_s, 3)},
                                                         indent=2))
    print(f"\npage weight {page_bytes} bytes {weights}; first verdict in {first_verdict_s:.2f} s")
    assert not problems, problems


def test_the_teacher_sees_the_class_in_the_browser(browser, lms):
    """After the learner's test above (same LMS and tool): the teacher's launch from the course page shows the
    roster from the platform's NRPS, the class's mistakes, a learner's submissions, and downloads the CSV."""
    platform, server = lms
    instructor = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
    learner = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
    platform.members["course-1"] = [{"user_id": "teacher-1", "name": "Grace Teacher", "roles": instructor},
                                    {"user_id": "learner-1", "name": "Ada Learner", "roles": learner},
                                    {"user_id": "learner-2", "name": "Bo Absent", "roles": learner}]
    platform.next_launch = {"roles": instructor, "name": "Grace Teacher"}
    problems: list[str] = []
    page = browser.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.goto(f"{platform.url}/course?user=teacher-1")
    frame = page.frame_locator("#tool")
    rows = frame.locator("#roster tbody tr")
    rows.nth(1).wait_for(timeout=30_000)
    assert rows.count() == 2
    ada, bo = rows.nth(0).inner_text(), rows.nth(1).inner_text()
    assert "Ada Learner" in ada and "1.000" in ada and "not submitted" in bo  # best score: the accepted one
    assert frame.locator("#mistakes tbody tr").count() >= 1, "the learner's wrong answers name a mistake"
    frame.locator("#roster button.link").first.click()
    frame.locator("#learner-submissions details").nth(2).wait_for(timeout=30_000)
    assert frame.locator("#learner-submissions details").count() == 3
    with page.expect_download() as download:
        frame.locator("#download-csv").click()
    text = Path(download.value.path()).read_text()
    assert text.splitlines()[0].startswith("user_id,name,attempts") and "learner-2" in text
    # rejudging the course's submissions: a dry run shows its matrix, then apply
    frame.locator("#rejudge").click()
    frame.locator("#rejudge-apply:not([hidden])").wait_for(timeout=120_000)
    assert frame.locator("#rejudge-matrix tbody tr").count() >= 2  # accepted and wrong answer rows
    assert "3 of 3 graded, 0 change" in frame.locator("#rejudge-state").inner_text()
    frame.locator("#rejudge-apply").click()
    frame.get_by_text("applied: 0 verdicts changed").wait_for(timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "4-teacher.png"), full_page=True)
    assert not problems, problems


INSTRUCTOR = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]


@pytest.mark.parametrize("locale, heading", [("fr-FR", "Les erreurs de la classe"), ("ru-RU", "В чём ошибается класс")])
def test_the_teachers_class_view_speaks_the_launchs_language(browser, lms, locale, heading):
    """After the teacher's test above: an instructor's launch with locale fr-FR (ru-RU) shows the class view,
    the words its script writes included (the roster, a learner's verdicts), with no English sentence."""
    from tests.support.i18n import english_sentences

    platform, _server = lms
    learner = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
    platform.members["course-1"] = [{"user_id": "teacher-1", "name": "Grace Teacher", "roles": INSTRUCTOR},
                                    {"user_id": "learner-1", "name": "Ada Learner", "roles": learner},
                                    {"user_id": "learner-2", "name": "Bo Absent", "roles": learner}]
    platform.next_launch = {"roles": INSTRUCTOR, "name": "Grace Teacher",
                            "presentation": {"locale": locale, "document_target": "iframe"}}
    problems: list[str] = []
    page = browser.new_page()
    _watch(page, problems)
    page.goto(f"{platform.url}/course?user=teacher-1")
    frame = page.frame_locator("#tool")
    frame.locator("#roster tbody tr").nth(1).wait_for(timeout=30_000)
    assert frame.locator("html").get_attribute("lang") == locale[:2]
    assert frame.locator("#mistakes-h").inner_text() == heading
    if frame.locator("#roster button.link").count():  # the learner of the tests above: their verdicts
        assert "1,000" in frame.locator("#roster tbody tr").nth(0).inner_text(), "a decimal comma in the score"
        frame.locator("#roster button.link").first.click()
        frame.locator("#learner-submissions details").first.wait_for(timeout=30_000)
        frame.locator("#learner-submissions details").first.click()
    shown = frame.locator("body").inner_text()
    assert not english_sentences(shown), english_sentences(shown)
    page.screenshot(path=str(ARTIFACTS / f"4-teacher-{locale}.png"), full_page=True)
    assert not problems, problems




def _watch(page, problems: list[str]) -> None:  # noqa: ANN001 - a Playwright page
    """Console errors (a Content-Security-Policy refusal is one) and page errors go to ``problems``."""
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))


def test_a_teacher_adds_the_exercise_by_deep_linking_in_the_browser(browser, lms):
    """The picker posts to the tool, the tool's answer auto-posts the signed JWT to the platform: both allowed by
    the pages' policy (form-action), nothing refused in the console."""
    platform, _server = lms
    problems: list[str] = []
    page = browser.new_page()
    _watch(page, problems)
    platform.next_launch = {"message_type": "LtiDeepLinkingRequest", "roles": INSTRUCTOR, "problem": None,
                            "data": "browser-dl"}
    page.goto(f"{platform.url}/course?user=teacher-dl")
    frame = page.frame_locator("#tool")
    frame.locator('input[name="problem"][value="rotary-embedding"]').check(timeout=30_000)
    frame.locator('button[type="submit"]').click()
    frame.get_by_text("Activity added.").wait_for(timeout=30_000)
    message = platform.deep_links[-1]
    assert message["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "browser-dl"
    [item] = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["custom"] == {"problem": "rotary-embedding"}
    assert not problems, problems


def test_a_platform_signed_javascript_return_url_runs_nothing(browser, lms):
    """A platform (or whoever holds its key) signs a deep-linking launch whose return URL is ``javascript:``:
    the teacher sees a refusal, and no script runs in the tool's origin, whatever the teacher clicks."""
    platform, _server = lms
    dialogs: list[str] = []
    page = browser.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    platform.next_launch = {"message_type": "LtiDeepLinkingRequest", "roles": INSTRUCTOR, "problem": None,
                            "return_url": "javascript:alert('script in the tool: '+document.domain)"}
    page.goto(f"{platform.url}/course?user=teacher-js")
    frame = page.frame_locator("#tool")
    frame.locator('input[name="problem"], main.plain h1').first.wait_for(timeout=30_000)
    if frame.locator('input[name="problem"]').count():  # a picker: the teacher picks, as they would
        frame.locator('input[name="problem"]').first.check()
        frame.locator('button[type="submit"]').click()
        page.wait_for_timeout(3000)
    assert not dialogs, f"script ran in the tool's origin: {dialogs}"
    assert frame.locator("main.plain h1").inner_text() == "Launch refused"


def test_a_learner_joins_at_learn_in_the_browser(browser, lms):
    """Without an LMS: the sign-in form, the personal code shown once, the exercise; back later with the
    browser's cookie; every page within its policy."""
    _platform, server = lms
    problems: list[str] = []
    page = browser.new_page()
    _watch(page, problems)
    page.goto(f"{server.url}/learn/sinusoidal-pe")
    page.fill('input[name="course"]', "ml101")
    page.fill('input[name="code"]', "open-sesame")
    page.fill('input[name="name"]', "Dana Browser")
    page.locator('form:has(input[name="name"]) button[type="submit"]').click()
    code = page.locator("#personal-code").inner_text(timeout=30_000)
    assert len(code) == 24 and code.count("-") == 4
    page.locator("#open-exercise").click()
    page.locator("#editor").wait_for(timeout=30_000)
    assert "Signed in as Dana Browser" in page.locator("header").inner_text()
    page.goto(f"{server.url}/learn/sinusoidal-pe")  # later, in the same browser
    page.get_by_role("button", name="Continue").click()
    page.locator("#editor").wait_for(timeout=30_000)
    assert code not in page.content(), "the personal code is shown once"
    assert not problems, problems


def test_the_public_cases_verdict_shows_first_and_the_page_shows_no_hidden_argument(browser, lms):
    """Public results first, without a reload: a right answer whose hidden cases are slow (they pause ~3 s) shows
    the public cases' verdict, then the final one.  Then a file that prints every call's arguments from a public
    case (runtime_error/attack_print_hidden_args_in_public_case.py): no JSON the page receives, the public
    phase's included, and nothing on the page holds a hidden case's arguments."""
    from tests.support.hidden_args import ATTACK, found_in, tokens
    from tests.support.sources import SLOW_HIDDEN

    platform, _server = lms
    problems: list[str] = []
    bodies: list[str] = []
    page = browser.new_page()
    _watch(page, problems)

    def keep(response) -> None:  # noqa: ANN001 - what the page's script receives of its submissions
        if "/lti/api/submissions" in response.url and response.request.method == "GET":
            try:
                bodies.append(response.text())
            except Exception:  # noqa: BLE001 - a response gone with its page
                pass

    page.on("response", keep)
    frame, editor = _open_editor(page, f"{platform.url}/course?user=learner-phases")
    _clear(editor)
    page.keyboard.insert_text(SLOW_HIDDEN % {"pause": 0.8})
    frame.locator("#submit").click()
    section = frame.locator("#verdict-section")
    frame.locator('#verdict-section[data-phase="public"]').wait_for(timeout=60_000)
    public_at = time.monotonic()
    assert section.get_attribute("data-status") is None, "the public phase is no verdict of record"
    assert frame.locator(".status").inner_text() == "Public cases: Accepted"
    assert "still running" in frame.locator("p.phase").inner_text()
    frame.locator('#verdict-section[data-phase="final"][data-status="accepted"]').wait_for(timeout=60_000)
    assert time.monotonic() - public_at > 1.0, "the public phase was on the page while the hidden cases ran"
    assert frame.locator(".status").inner_text() == "Accepted" and frame.locator("p.phase").count() == 0
    assert any('"phase":"public"' in b for b in bodies) and any('"phase":"final"' in b for b in bodies)

    bodies.clear()
    editor.click()
    editor.press("Control+a")
    editor.press("Delete")
    page.keyboard.insert_text(ATTACK.read_text())
    frame.locator("#submit").click()
    frame.locator('#verdict-section[data-phase="final"][data-status="runtime_error"]').wait_for(timeout=60_000)
    shown = "\n".join(bodies) + frame.locator("#verdict-section").inner_text()
    assert "A:3x4" in shown, "the channel works: a public case's own arguments are shown"
    assert not found_in(tokens("hidden"), shown), "a hidden case's arguments reached the learner's page"
    assert not problems, problems


@pytest.mark.parametrize("locale, status", [("fr-FR", "Réponse incorrecte"), ("ru-RU", "Неверный ответ")])
def test_a_launch_in_french_or_russian_shows_the_page_and_verdict_in_that_language(browser, lms, locale, status):
    """The LMS launches with its user's locale (launch presentation claim): the page's own words, the statement
    and a wrong answer's verdict (written by the page's script) are in that language, with no English sentence;
    the language menu goes back to English."""
    from tests.support.i18n import english_sentences

    platform, _server = lms
    problems: list[str] = []
    page = browser.new_page()
    _watch(page, problems)
    platform.next_launch = {"presentation": {"locale": locale, "document_target": "iframe"}}
    frame, editor = _open_editor(page, f"{platform.url}/course?user=learner-{locale}")
    assert frame.locator("html").get_attribute("lang") == locale[:2]
    _clear(editor)
    page.keyboard.insert_text(SOURCES["wrong_answer"])
    frame.locator("#submit").click()
    frame.locator('#verdict-section[data-status="wrong_answer"]').wait_for(timeout=60_000)
    assert frame.locator(".status").inner_text() == status
    frame.locator("#history li").first.wait_for(timeout=30_000)
    shown = frame.locator("body").inner_text()
    assert not english_sentences(shown), english_sentences(shown)
    assert frame.locator("section.counterexample").count() == 1 and frame.locator("table.cases tr").count() > 5
    page.screenshot(path=str(ARTIFACTS / f"5-learner-{locale}.png"), full_page=True)
    frame.locator('#languages a[hreflang="en"]').click()
    frame.get_by_role("button", name="Submit", exact=True).wait_for(timeout=30_000)
    assert frame.locator("html").get_attribute("lang") == "en"
    assert not problems, problems
