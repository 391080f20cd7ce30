"""Grading one submission in a fresh process: the cold path of ``judge grade`` and of every packaged run.

On course platforms every submission is a cold start, so this path orders its
work for the shortest wall time on two cores:

1. the zygote is launched first, with light imports only (:mod:`judge.sandbox.chain.launch`);
2. if the bundle has a current run plan, the learner's run is sent to it as soon as
   it is ready (:class:`judge.grading.run_plan.EarlyRun`);
3. meanwhile this process imports numpy, pydantic and the grading code and loads the
   bundle; the judge then uses the early run only if it is exactly the run it would
   have made, and otherwise runs the submission the regular way;
4. each result slot is judged as soon as the run has written it
   (:class:`judge.grading.slots.CaseJudging`), so the verdict is ready ~1 ms after the run;
5. the zygote is let go rather than waited for: it frees the run's files, removes
   its worker group and exits after this process
   (:meth:`judge.sandbox.backends.zygote_client.ZygoteClient.retire`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from judge.problem.loader import Bundle
    from judge.verdict import Verdict


def abandon_ahead() -> None:
    """Stop the zygote :mod:`judge.entry` launched ahead if no grading took it."""
    from judge.sandbox import stop_launched, take_ahead

    stop_launched(take_ahead())


class OneShot(NamedTuple):
    verdict: Verdict
    bundle: Bundle
    mode: str  #: the isolation mode the judge chose (also in ``verdict.isolation`` when code ran)


def grade_once(source: str | bytes, problem: str | Path, isolation: str | None = None,
               unsafe_no_sandbox: bool = False, backend: str = "process", image: str | None = None,
               pictures_dir: str | Path | None = None, name: str | None = None,
               on_public: Callable[[Verdict], None] | None = None) -> OneShot:
    """The verdict of one submission, with a judge made and closed for it.  Raises what
    :meth:`judge.Judge.grade` raises (JudgeError for the bundle, SandboxUnavailable for the machine).
    ``name``: the submitted file's name, if it has one (``.ipynb``: a notebook; see :meth:`judge.Judge.grade`).
    Every door that grades this way is a learner's, so the judge is phased: the public cases run first, in a run
    given no hidden argument, their verdict handed to ``on_public`` (:mod:`judge.grading.phases`)."""
    from judge.grading.run_plan import EarlyRun
    from judge.sandbox import prestarted_factory_for, take_ahead

    # pydantic looks for plugins in every installed distribution's entry points (~20 ms of a cold start);
    # the judge uses none.  An explicit setting is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    with prestarted_factory_for(isolation, unsafe_no_sandbox, image=image, ahead=take_ahead(),
                                backend=backend) as factory:
        early = EarlyRun.start(factory.launched, source, problem, name)
        from judge.engine import Judge

        with Judge(backend_factory=factory, phased=True) as judge:
            try:
                judge.start()
                verdict = judge.grade(source, problem, pictures_dir=pictures_dir, early=early, name=name,
                                      on_public=on_public)
                bundle = judge.problem(problem).bundle
            finally:
                if early is not None:  # before the judge closes the backend the early run may still use
                    early.close()
    return OneShot(verdict, bundle, factory.mode)
