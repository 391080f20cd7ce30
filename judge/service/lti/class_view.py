"""The class view: a course's roster joined with its learners' submissions, and the mistakes the class makes.

The roster comes from the platform (LTI Names and Role Provisioning Services, the membership URL of the
teacher's launch), so learners who never opened the exercise are listed too.  A learner's submissions are
found by the same key the learner side files them under: SHA-256 of (issuer, client id, deployment, course,
user id), so a teacher reads exactly their own course's learners and no one else's.

The class's mistakes count, for each named mistake (a diagnosis that explains every failing case it was
checked on) and each failure pattern (what the failing cases have in common), how many learners hit it and
in how many submissions, most learners first: what to explain on Monday.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from judge.problem.feedback_policy import FeedbackPolicy
from judge.service.lti.roles import is_learner
from judge.service.lti.tables import LtiStore, digest, learn_key
from judge.service.probes import limited_count
from judge.service.store import StoredSubmission

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
CSV_FIELDS = ("user_id", "name", "attempts", "best_score", "last_status", "first_accepted_at", "mistakes",
              "probe_limited")


def learner_key(course: dict, user_id: str) -> str:
    """The key the learner side files a learner's submissions under (see :func:`routes.launch`; a ``/learn``
    course's learners: :func:`.tables.learn_key`)."""
    if course.get("kind") == "learn":
        return learn_key(course["context"], user_id)
    return digest("\n".join([course["issuer"], course["client_id"], str(course["deployment"]),
                             str(course["context"]), user_id]))


def roster(course: dict, tool_config: Any) -> list[dict]:
    """The course's members from the platform (NRPS), every page of them."""
    from pylti1p3.names_roles import NamesRolesProvisioningService

    from judge.service.lti.adapter import CachingConnector

    registration = tool_config.find_registration_by_params(course["issuer"], course["client_id"])
    service = NamesRolesProvisioningService(CachingConnector(registration),
                                            {"context_memberships_url": course["nrps"]})
    return list(service.get_members())  # type: ignore[arg-type]  # pylti1p3's TMember: a TypedDict of the member


def _ts(value: float | None) -> str | None:
    return datetime.fromtimestamp(value, tz=UTC).isoformat() if value else None


@dataclass
class LearnerRow:
    user_id: str
    name: str
    roles: list[str]
    key: str
    submissions: list[StoredSubmission] = field(default_factory=list)

    @cached_property
    def judged(self) -> list[tuple[StoredSubmission, dict]]:
        """Each judged submission with its verdict, parsed once (read after the submissions are all added)."""
        return [(s, json.loads(s.verdict_json)) for s in self.submissions if s.verdict_json]

    def verdicts(self) -> list[dict]:
        return [v for _, v in self.judged]

    def summary(self, policy: FeedbackPolicy | None = None) -> dict:
        """``probe_limited``: how many of their submissions the activity's probing limit (``policy``) showed
        without hidden feedback; counted as the learner's page counts them (:mod:`judge.service.probes`)."""
        verdicts = self.verdicts()
        accepted = [s for s, v in self.judged if v["status"] == "accepted"]
        mistakes = sorted({d["id"] for v in verdicts for d in v.get("diagnoses") or [] if d.get("explains")})
        return {"user_id": self.user_id, "name": self.name, "roles": self.roles, "attempts": len(self.submissions),
                "best_score": max((float(v.get("score", 0.0)) for v in verdicts), default=None),
                "last_status": verdicts[-1]["status"] if verdicts else None,
                "first_accepted_at": _ts(accepted[0].finished_at or accepted[0].created_at) if accepted else None,
                "mistakes": mistakes,
                "probe_limited": limited_count(policy, self.submissions) if policy is not None else 0}


def roster_learners(members: list[dict]) -> list[dict]:
    """The roster's learners of this course (neither staff, nor observers, nor deleted): see :mod:`.roles`."""
    return [m for m in members if m.get("status", "Active") != "Deleted" and m.get("user_id")
            and is_learner(m.get("roles"))]


def class_view(lti: LtiStore, course: dict, problem: str, members: list[dict],
               policy: FeedbackPolicy | None = None, lang: str = "en", bundle: Any = None) -> dict:
    """What the teacher's page and ``GET /lti/api/class`` show: every learner of the roster (``policy``: the
    activity's, to count who hit its probing limit); the mistakes' explanations in ``lang`` (``bundle``: the
    problem's, which words its own mistakes), every field name, id and status code as it is (data)."""
    learners = roster_learners(members)
    rows = {learner_key(course, m["user_id"]): LearnerRow(m["user_id"], m.get("name") or m.get("given_name") or
                                                          m["user_id"], list(m.get("roles") or []),
                                                          learner_key(course, m["user_id"])) for m in learners}
    for key, submission in lti.class_rows(list(rows), problem):
        rows[key].submissions.append(submission)
    summaries = sorted((r.summary(policy) for r in rows.values()), key=lambda s: (s["name"].casefold(), s["user_id"]))
    return {"problem": problem, "course": {"context": course["context"], "title": course.get("title")},
            "learners": summaries, "mistakes": class_mistakes(list(rows.values()), lang, bundle),
            "submitted": sum(1 for s in summaries if s["attempts"]), "enrolled": len(summaries)}


def class_mistakes(rows: list[LearnerRow], lang: str = "en", bundle: Any = None) -> list[dict]:
    """Each named mistake and failure pattern: learners and submissions that hit it, most learners first.  Its
    ``id`` is data (a pattern's is its English description); its ``message`` is said in ``lang``, from the first
    verdict that hit it."""
    seen: dict[tuple[str, str], dict] = {}
    first: dict[tuple[str, str], dict] = {}
    for row in rows:
        for verdict in row.verdicts():
            hits = {("mistake", d["id"]): d.get("message", "") for d in verdict.get("diagnoses") or []
                    if d.get("explains")}
            hits.update({("pattern", p["description"]): p["description"] for p in verdict.get("patterns") or []})
            for (kind, ident), message in hits.items():
                entry = seen.setdefault((kind, ident), {"id": ident, "kind": kind, "message": message,
                                                        "learners": set(), "submissions": 0})
                entry["learners"].add(row.user_id)
                entry["submissions"] += 1
                first.setdefault((kind, ident), verdict)
    if lang != "en":
        for key, entry in seen.items():
            entry["message"] = _said_in(first[key], key, lang, bundle) or entry["message"]
    out = [{**e, "learners": len(e["learners"])} for e in seen.values()]
    return sorted(out, key=lambda e: (-e["learners"], -e["submissions"], e["kind"], e["id"]))


def _said_in(verdict: dict, key: tuple[str, str], lang: str, bundle: Any) -> str | None:
    """A mistake's explanation, or a pattern's description, in ``lang``: the verdict's texts rendered from its
    message ids (:func:`judge.i18n.localize.localize`), found at the place the English one has."""
    from judge.i18n.localize import localize
    from judge.verdict import Verdict

    kind, ident = key
    try:
        full = Verdict.model_validate(verdict)
    except ValueError:  # a verdict this judge cannot read back: its English stays
        return None
    shown = localize(full, lang, bundle)
    if kind == "mistake":
        return next((d.message for d, e in zip(shown.diagnoses, full.diagnoses, strict=True) if e.id == ident), None)
    return next((p.description for p, e in zip(shown.patterns, full.patterns, strict=True)
                 if e.description == ident), None)


#: what a spreadsheet reads as the start of a formula (OWASP's CSV injection list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> str:
    """A CSV cell that a spreadsheet shows as text: one that would start a formula gets a leading ``'``.
    Names and ids come from the platform's roster, so a learner named ``=HYPERLINK(...)`` is data, not a link."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def class_csv(view: dict) -> str:
    """A header and one row per learner, for spreadsheets; every cell escaped with :func:`cell`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for learner in view["learners"]:
        row = {**learner, "mistakes": " ".join(learner["mistakes"])}
        writer.writerow([cell(row.get(name)) for name in CSV_FIELDS])
    return buffer.getvalue()
