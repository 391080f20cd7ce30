"""Who is course staff, through the real launch flow (test LMS -> `judge serve`): the role sets Canvas, Moodle,
Blackboard and D2L Brightspace send, as their documentation shows them, and 1EdTech's certification payloads.

Staff of the launch's course opens the teacher's page (the roster, every classmate's verdicts with hidden
cases, course rejudges); anyone else gets the learner page and a 403 on the teacher's page and its API.  Only
the launch context's membership roles count: an institution role (``institution/person#Instructor``, what
Canvas sends a student who teaches or assists in *another* course) or a system role never does, and a
Learner's sub-role (``membership/Learner#Instructor``) stays a learner's.

Where the role sets come from:

- Canvas: instructure/canvas-lms ``doc/api/canvas_roles.md`` ("LTI 1.3 using the LIS 2.0 LTI Advantage Roles":
  teacher, student, TA = ``membership#Instructor`` + ``membership/Instructor#TeachingAssistant``, designer =
  ``membership#ContentDeveloper``, observer = ``membership#Mentor``, Student View = ``lti/system/person#TestUser``,
  institution roles teacher/student/admin, ``system/person#User``/``#SysAdmin``); the student who assists in
  another course is the claim quoted on the WeBWorK forum (webwork.maa.org/moodle/mod/forum/discuss.php?d=8565);
  the admin enrolled as a student, community.canvaslms.com/t5/Developers-Group/LTI-1-3-mixing-roles/m-p/579030.
- Moodle: moodle/moodle ``mod/lti/locallib.php``: ``lti_get_ims_role`` gives ``Instructor`` to whoever may manage
  the activity, else ``Learner``, and site administrators ``urn:lti:sysrole:ims/lis/Administrator`` and
  ``urn:lti:instrole:ims/lis/Administrator`` (Learner removed); ``lti_sign_jwt`` maps them to
  ``membership#...``, ``system/person#...`` and ``institution/person#...``.
- Blackboard Learn: blackboard/anthologydevdocs ``docs/blackboard/lti/1.3/core/06-jwt-sample.md`` (an
  instructor: ``membership#Instructor``, ``system/person#Administrator``, ``membership#Administrator``,
  ``institution/person#Staff``), ``tutorials/names-and-roles.md`` (Student Preview: ``TestUser``), and the
  course-role mapping of Learn 3900.17 (help.blackboard.com/node/40886: TA, grader, course builder mapped to
  LTI context roles, else sent as Instructor) and institution-role mapping (help.blackboard.com/node/43301).
- D2L Brightspace: "Org Units and Role Mapping" (community.d2l.com/brightspace/kb/articles/23663): each
  Brightspace role is mapped by the administrator to IMS roles, sent as a context role and, where the handle is
  one, an institution role too (the legacy LTI article 6055); the defaults Student -> Learner, Instructor ->
  Instructor, Teaching Assistant -> TeachingAssistant.
- 1EdTech LTI 1.3 certification, "valid teacher/student launches" (multiple roles, short role names, unknown
  roles), as hypothesis/lms reproduces them in tests/functional/lti_certification/v13/core.
"""

from __future__ import annotations

import httpx
import pytest

from tests.support.lti_client import start_launch
from tests.support.lti_platform import LoopbackPlatform
from tests.support.service import Server

V2 = "http://purl.imsglobal.org/vocab/lis/v2/"
M, I, S = V2 + "membership#", V2 + "institution/person#", V2 + "system/person#"  # noqa: E741
TEST_USER = "http://purl.imsglobal.org/vocab/lti/system/person#TestUser"
TA_SUB = V2 + "membership/Instructor#TeachingAssistant"

STAFF, LEARNER = True, False
ROLE_SETS = [
    # Canvas
    ("canvas-teacher", [I + "Instructor", M + "Instructor", S + "User"], STAFF),
    ("canvas-ta", [I + "Instructor", M + "Instructor", TA_SUB, S + "User"], STAFF),
    ("canvas-designer", [M + "ContentDeveloper", S + "User"], STAFF),
    ("canvas-student", [I + "Student", M + "Learner", S + "User"], LEARNER),
    ("canvas-student-who-assists-another-course", [I + "Instructor", I + "Student", M + "Learner", S + "User"],
     LEARNER),
    ("canvas-admin-enrolled-as-student", [I + "Administrator", I + "Instructor", I + "Student", M + "Learner",
                                          S + "User"], LEARNER),
    ("canvas-siteadmin-enrolled-as-student", [S + "SysAdmin", M + "Learner", S + "User"], LEARNER),
    ("canvas-observer", [M + "Mentor", S + "User"], LEARNER),
    ("canvas-student-view", [M + "Learner", TEST_USER], LEARNER),
    # Moodle
    ("moodle-teacher", [M + "Instructor"], STAFF),
    ("moodle-student", [M + "Learner"], LEARNER),
    ("moodle-site-admin", [M + "Instructor", S + "Administrator", I + "Administrator"], STAFF),
    ("moodle-lti-admin-not-in-course", [S + "Administrator", I + "Administrator"], LEARNER),
    # Blackboard Learn
    ("blackboard-instructor", [M + "Instructor", S + "Administrator", M + "Administrator", I + "Staff"], STAFF),
    ("blackboard-student", [M + "Learner", I + "Student"], LEARNER),
    ("blackboard-student-who-is-staff", [M + "Learner", I + "Staff", I + "Faculty"], LEARNER),
    ("blackboard-student-preview", [M + "Learner", TEST_USER], LEARNER),
    ("blackboard-ta-mapped", [M + "Instructor", TA_SUB], STAFF),
    ("blackboard-grader-mapped", [V2 + "membership/Instructor#Grader"], STAFF),
    # D2L Brightspace
    ("d2l-instructor", [I + "Instructor", M + "Instructor"], STAFF),
    ("d2l-teaching-assistant", [M + "TeachingAssistant"], STAFF),
    ("d2l-student", [I + "Learner", M + "Learner"], LEARNER),
    ("d2l-student-mapped-as-institution-instructor", [I + "Instructor", M + "Learner"], LEARNER),
    # 1EdTech certification payloads, and a Learner's sub-roles
    ("cert-instructor-multiple-roles", [M + "Instructor", I + "Staff", I + "Other"], STAFF),
    ("cert-instructor-short-name", ["Instructor"], STAFF),
    ("cert-unknown-role", [V2 + "unknown/unknown#Helper"], LEARNER),
    ("cert-student-multiple-roles", [M + "Learner", I + "Student", I + "Mentor"], LEARNER),
    ("learner-subrole-instructor", [V2 + "membership/Learner#Instructor"], LEARNER),
    ("learner-with-learner-subrole-instructor", [M + "Learner", V2 + "membership/Learner#Instructor"], LEARNER),
    ("mentor-subrole-instructor", [V2 + "membership/Mentor#Instructor"], LEARNER),
    ("institution-instructor-only", [I + "Instructor"], LEARNER),
    ("system-administrator-only", [S + "Administrator", S + "SysAdmin"], LEARNER),
]


MEMBERS = {"course-1": [{"user_id": "s-1", "name": "Someone", "roles": [M + "Learner"]}]}


def _launch(platform: LoopbackPlatform, server: Server, user: str, **overrides) -> tuple[httpx.Client, str]:
    browser, action, fields = start_launch(platform, server, user, **overrides)
    answer = browser.post(action, data=fields)
    assert answer.status_code == 303, answer.text
    return browser, answer.headers["location"]


@pytest.mark.parametrize("who, roles, staff", ROLE_SETS, ids=[n for n, _, _ in ROLE_SETS])
def test_only_staff_of_the_course_opens_the_teachers_page(platform, server, who, roles, staff):
    browser, where = _launch(platform, server, who, roles=roles)
    handle = where.rsplit("/", 1)[1]
    if staff:
        assert where.startswith("/lti/teacher/"), where
        assert browser.get(where).status_code == 200
        return
    assert where.startswith("/lti/page/"), f"{roles} opened {where}"
    page = browser.get(where)
    csrf = page.text.split('name="csrf-token" content="')[1].split('"')[0]
    assert browser.get(f"/lti/teacher/{handle}").status_code == 403
    for path in ("/lti/api/class", "/lti/api/class.csv", "/lti/api/class/learners/s-1"):
        assert browser.get(path, headers={"X-CSRF-Token": csrf}).status_code == 403, path
    assert browser.post("/lti/api/class/rejudges", headers={"X-CSRF-Token": csrf}).status_code == 403


@pytest.mark.parametrize("name", ["canvas-student-who-assists-another-course", "learner-subrole-instructor"])
def test_a_learner_cannot_add_an_exercise_by_deep_linking(platform, server, name):
    roles = next(r for n, r, _ in ROLE_SETS if n == name)
    browser, action, fields = start_launch(platform, server, "dl-learner", roles=roles,
                                           message_type="LtiDeepLinkingRequest", problem=None)
    refused = browser.post(action, data=fields)
    assert refused.status_code == 403 and 'name="problem"' not in refused.text


def test_staff_roles_without_a_course_are_no_one_s_staff(platform, server):
    """Membership roles are relative to the launch's context: with none, there is no course to be staff of."""
    _browser, where = _launch(platform, server, "no-course", roles=[M + "Instructor"], course=None)
    assert where.startswith("/lti/page/"), where


def test_the_roster_lists_learners_only(platform, server):
    """The class view's learners: Learners of the course; staff, observers and a TA are not in the list, a
    student who assists another course is."""
    platform.members["course-9"] = [
        {"user_id": "t", "name": "Teacher", "roles": [I + "Instructor", M + "Instructor"]},
        {"user_id": "ta", "name": "TA", "roles": [M + "Instructor", TA_SUB]},
        {"user_id": "obs", "name": "Parent", "roles": [M + "Mentor"]},
        {"user_id": "st", "name": "Student TA elsewhere", "roles": [I + "Instructor", M + "Learner"]},
        {"user_id": "s", "name": "Student", "roles": [M + "Learner"]}]
    browser, where = _launch(platform, server, "t", roles=[M + "Instructor"], course="course-9")
    page = browser.get(where)
    csrf = page.text.split('name="csrf-token" content="')[1].split('"')[0]
    learners = browser.get("/lti/api/class", headers={"X-CSRF-Token": csrf}).json()["learners"]
    assert sorted(r["user_id"] for r in learners) == ["s", "st"]


def test_role_parsing_edges():
    from judge.service.lti.roles import is_learner, is_staff

    assert not is_staff(None) and not is_staff("Instructor") and not is_staff([None, 3, {"a": 1}])
    assert not is_staff([M + "Instructor#x", M + "Instructor ", "urn:lti:role:ims/lis/Instructor",
                         "https://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
                         V2 + "membership/Instructor#", V2 + "membership/Unknown#Instructor", M + "Helper"])
    assert is_staff([V2 + "membership/Administrator#Developer"]) and is_staff(["ContentDeveloper"])
    assert is_learner([]) and is_learner([I + "Student"]) and not is_learner([M + "Mentor"])
