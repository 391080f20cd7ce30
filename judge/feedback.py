"""Verdict parts that explain a failure beyond the per-case facts: what went wrong, not only where.

Kept apart from judge/verdict.py so the verdict model stays small; every model
here is a field of :class:`judge.verdict.Verdict`.  Hidden cases appear by id
only: no values, locations or pictures of theirs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class MessageRef(BaseModel):
    """A learner-facing sentence as the judge's message id and its parameters, beside the English text.

    The English text stays in the ``message``-like field every consumer reads today; the ref lets a door render
    the same sentence in the learner's language (:func:`judge.i18n.localize.localize`) without parsing English.
    ``id`` names an entry of :mod:`judge.i18n.messages` (``verbatim``: ``params["text"]`` is shown as it is,
    e.g. the learner's own exception text); a parameter may itself be a ref or a list of refs."""

    id: str
    params: dict[str, Any] = Field(default_factory=dict)


class FailurePattern(BaseModel):
    """What the failing cases have in common, from the bundle's cases alone (arguments, shapes, dtypes, tags)."""

    description: str = Field(description="e.g. 'fails exactly on the 5 cases where d_model is odd'")
    cases: list[str] = Field(default_factory=list, description="failing case ids the pattern covers, hidden included")
    exact: bool = Field(True, description="True: the cases with the property are exactly the failing ones; "
                                          "False: every failing case has it, some passing ones too")
    said: list[MessageRef] = Field(default_factory=list, description="the description as message ids (i18n)")


class RecoveredComponent(BaseModel):
    """One component of the bundle's family of plausible answers, as fitted to the learner's output."""

    id: str
    name: str
    option: str
    right: bool = Field(description="the option the right answer uses")
    text: str = Field(description="what the learner's code does, in the exercise's terms")
    mistake: str | None = Field(None, description="the bank's id for this choice, if it has one")


class Recovery(BaseModel):
    """What the learner computed, fitted to the bundle's family of plausible answers."""

    summary: str = Field(description="one sentence in the exercise's terms")
    components: list[RecoveredComponent] = Field(default_factory=list)
    explains: bool = Field(description="the fitted formula reproduces every failing case it was checked on")
    cases: list[str] = Field(default_factory=list, description="failing cases the formula reproduces")
    checked: int = Field(0, description="failing cases it was checked on")
    facts: list[str] = Field(default_factory=list, description="parameters read directly off public outputs")
    said_facts: list[MessageRef] = Field(default_factory=list, description="the facts as message ids and "
                                         "parameters, one per fact (i18n): the bundle's own by id, a plain one "
                                         "verbatim")


class Picture(BaseModel):
    """A PNG rendered for a failing public case.  ``file`` is a bare name inside the directory the caller
    asked the judge to render into (``Judge.grade(..., pictures_dir=DIR)``, ``judge grade --pictures DIR``)."""

    case: str
    kind: Literal["expected", "yours", "difference", "column_pairs"]
    title: str
    file: str
    media_type: Literal["image/png"] = "image/png"


class FinishedCall(BaseModel):
    case: str
    time_ms: float | None = None
    correct: bool


class TimeFeedback(BaseModel):
    """For time_limit_exceeded: which call ran out, how big it was, how the finished calls went."""

    case: str = Field(description="the call that ran out of time (its id; a hidden case is named by id only)")
    size: str = Field("", description="the size of that call's output, e.g. '8192 x 1024 table' (public or not)")
    finished: list[FinishedCall] = Field(default_factory=list)
    all_finished_correct: bool = False
    message: str = ""
    said: list[MessageRef] = Field(default_factory=list, description="the message as message ids (i18n)")


class Counterexample(BaseModel):
    """The smallest input the judge found on which the learner's function differs from the reference.

    The judge made it up itself, from the function's input domain (problem.yaml) and the public cases, knowing of
    the hidden cases only which ones failed: it tells nothing of their arguments (should it equal one, that is
    chance), so it is shown in full, arguments, expected and got values included."""

    function: str
    args: dict[str, Any] = Field(description="the arguments in the bundle's case syntax (judge case add takes them)")
    call: str = Field(description="the call, as Python")
    differs: Literal["values", "shape", "dtype", "not an array", "raises", "raises another exception", "returns",
                     "input changed"] = Field(
        description="what differs: the values, the shape or dtype, what came back, an exception raised where the "
                    "reference returns (raises) or none where it raises (returns), or an input it modified")
    expected: Any | None = Field(None, description="the reference's output (nested lists), None when it raises")
    expected_raises: str | None = Field(None, description="the exception the call must raise, if it must")
    got: Any | None = Field(None, description="the learner's output (nested lists), when an array came back")
    got_text: str = Field("", description="what came back otherwise, in the learner's code's own words (the "
                                          "exception, or what the value was), at most 1000 characters")
    got_said: list[MessageRef] = Field(default_factory=list, description="got_text as message ids, when it is "
                                       "the judge's words (the process was killed, what kind of value came back)")
    message: str = Field("", description="the judge's facts of the difference (values, shape, dtype, input "
                                         "changed), as for a case; empty where got_text says it")
    said: list[MessageRef] = Field(default_factory=list, description="the message as message ids (i18n)")
    searched: int = Field(0, description="inputs the search tried")
    case_add: str = Field("", description="the command that adds it to the bundle as a case")


class LearnerShown(BaseModel):
    """Set on a learner's view of a verdict (never on the teacher's): which feedback level it was cut to, and
    what of the hidden cases it no longer lists one by one (at level ``score`` they count in the score only)."""

    level: Literal["score", "status", "diagnosis", "full"]
    anonymous: bool = Field(True, description="hidden cases are named 'hidden case K of N', not by their ids")
    hidden_cases: int = Field(0, description="how many hidden cases the verdict had")
    withheld_cases: int = Field(0, description="hidden cases left out of ``cases`` (level score)")
    withheld_passed: int = Field(0, description="of those, how many passed")
    withheld_weight: float = Field(0.0, description="their total weight")
    withheld_passed_weight: float = Field(0.0, description="the weight of those that passed")
    more_after: str | None = Field(None, description="when more is shown (ISO 8601), if the policy has a due date")
    probes_exceeded: bool = Field(False, description="the probing limit cut this view to the score and public "
                                                     "cases: the learner submitted often within the window")
    probes_back_at: str | None = Field(None, description="when a new submission shows hidden feedback again "
                                                         "(ISO 8601), if the probing limit cut this view")
