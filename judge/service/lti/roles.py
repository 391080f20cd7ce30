"""Who a launch's roles say the user is *in the launch's course*: course staff or a learner.

An LTI 1.3 roles claim mixes three vocabularies (LTI Core 1.3, appendix A.2): system roles
(``.../lis/v2/system/person#Administrator``), institution roles (``.../lis/v2/institution/person#Instructor``)
and context (membership) roles (``.../lis/v2/membership#Instructor``, sub-roles
``.../lis/v2/membership/Instructor#TeachingAssistant``).  Only the last kind is about the launch's context;
the others describe the person anywhere in the institution.  Canvas, for one, sends
``institution/person#Instructor`` to a student who teaches or assists in *another* course, beside their
``membership#Learner`` here; Blackboard sends ``system/person#Administrator`` and
``institution/person#Staff`` to any staff account.  Reading the word after ``#`` alone made such students staff.

So staff means: a membership role of this context whose *principal* role is one of :data:`STAFF_PRINCIPALS`
(a sub-role counts only under such a principal: ``membership/Learner#Instructor``, a learner who also
teaches, stays a learner).  ``Mentor`` is not staff: Canvas sends it to observers (parents), and the LIS
Mentor sub-roles are advisors and auditors, none of whom may read a class's verdicts.  The simple names the
spec keeps for backward compatibility (``Instructor`` for ``membership#Instructor``) are context roles too.
Anything else (LTI 1.1 URNs, other prefixes, malformed values) is no role at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
#: principal context roles whose holders run the course: see the module's docstring for Mentor
STAFF_PRINCIPALS = frozenset({"Instructor", "TeachingAssistant", "ContentDeveloper", "Administrator"})
#: the context roles of LTI Core 1.3 A.2.3 (and TeachingAssistant, a principal in LTI 1.1 that platforms
#: converting their role lists still send as ``membership#TeachingAssistant``)
CONTEXT_PRINCIPALS = frozenset({"Administrator", "ContentDeveloper", "Instructor", "Learner", "Mentor", "Manager",
                                "Member", "Officer", "TeachingAssistant"})


class ContextRole(NamedTuple):
    principal: str
    sub: str | None


def context_role(role: object) -> ContextRole | None:
    """The context role a roles-claim entry names, or None for a system or institution role (or garbage)."""
    if not isinstance(role, str):
        return None
    if role in CONTEXT_PRINCIPALS:  # the spec's deprecated simple names are context roles
        return ContextRole(role, None)
    if role.startswith(MEMBERSHIP + "#"):
        principal = role[len(MEMBERSHIP) + 1:]
        return ContextRole(principal, None) if principal in CONTEXT_PRINCIPALS else None
    if role.startswith(MEMBERSHIP + "/"):
        principal, sep, sub = role[len(MEMBERSHIP) + 1:].partition("#")
        if sep and sub and "#" not in sub and "/" not in sub and principal in CONTEXT_PRINCIPALS:
            return ContextRole(principal, sub)
    return None


def context_roles(roles: Iterable[object] | None) -> list[ContextRole]:
    if not isinstance(roles, (list, tuple)):
        return []
    return [r for r in (context_role(role) for role in roles) if r is not None]


def is_staff(roles: Iterable[object] | None) -> bool:
    """True when a membership role of this context has a staff principal (Instructor, TeachingAssistant,
    ContentDeveloper, Administrator); institution and system roles never count."""
    return any(r.principal in STAFF_PRINCIPALS for r in context_roles(roles))


def is_learner(roles: Iterable[object] | None) -> bool:
    """A roster member who is graded here: a Learner of this context who is not staff (a member whose platform
    sends no context role at all counts as a learner too, so no one is hidden from the teacher)."""
    found = context_roles(roles)
    if not found:
        return True
    return not is_staff(roles) and any(r.principal == "Learner" for r in found)
