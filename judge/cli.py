"""The ``judge`` command line: grade, verify, problems, show, doctor, serve, worker.

Exit codes: 0 accepted (or all checks hold), 1 any other verdict (or a check
failed), 2 usage errors and unusable bundles or input files.  Errors are one
clear line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judge._version import __version__

if TYPE_CHECKING:
    from judge.service.settings import Settings
    from judge.verdict import Verdict

EXIT_OK, EXIT_VERDICT, EXIT_USAGE = 0, 1, 2
MAX_INPUT_FILE = 64 << 20


def _fail(message: str) -> click.exceptions.Exit:
    click.echo(f"judge: error: {message}", err=True)
    return click.exceptions.Exit(EXIT_USAGE)


def _read_submission(path: str) -> bytes:
    if path == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_FILE + 1)
    else:
        p = Path(path)
        if not p.is_file():
            raise _fail(f"{path}: no such file")
        if p.stat().st_size > MAX_INPUT_FILE:
            raise _fail(f"{path}: {p.stat().st_size} bytes is far too large for a submission")
        data = p.read_bytes()
    if len(data) > MAX_INPUT_FILE:
        raise _fail(f"{path}: the input is far too large for a submission")
    return data


def _isolation_option(f: Callable) -> Callable:
    """``--isolation MODE`` (grade, verify, serve, worker): the agreed names, env JUDGE_ISOLATION."""
    from judge.sandbox import CHOICES

    return click.option("--isolation", type=click.Choice(CHOICES), default=None,
                        help="isolation mode [env JUDGE_ISOLATION; default auto: the best of full, rootless, "
                             "reduced this machine gives; JUDGE_MIN_ISOLATION refuses weaker modes]")(f)


_PROBLEMS_DIR_HELP = ("look problem ids up here, then among the installed ones, and nowhere else [env "
                      "JUDGE_PROBLEMS_DIR; when neither is set: ./problems, the current folder, the installed ones]")


def _set_problems_dir(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value:
        os.environ["JUDGE_PROBLEMS_DIR"] = str(Path(value).resolve())
    return value


def _problems_dir_option(expose: bool):  # noqa: ANN202 - a click decorator
    """``--problems-dir``: taken before the subcommand (``judge --problems-dir X grade``) and after it (``judge
    grade --problems-dir X``), since people type options where they think of them; eager, so the lookup of every
    other option and argument already sees it."""
    return click.option("--problems-dir", type=click.Path(file_okay=False), default=None, is_eager=True,
                        expose_value=expose, callback=_set_problems_dir, help=_PROBLEMS_DIR_HELP)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="judge")
@_problems_dir_option(expose=False)
def main() -> None:
    """Auto-grading judge for numpy exercises."""


_one_shot = False  #: set by a command after which nothing of the process is needed (see run)


def _ends_the_process() -> None:
    global _one_shot
    _one_shot = True


def run() -> None:
    """The ``judge`` command (console script and ``python -m judge.cli``).

    After a one-shot grading command (grade and the platforms' entry points), the process
    ends at once, once its output is flushed and its sandbox closed: tearing down the
    interpreter (numpy, pydantic, the verdict models) costs ~0.1 s that every cold start,
    i.e. every platform submission, would otherwise pay for nothing.  The zygote ends the
    same way.  Tests call :func:`main` (click's group), which never does this."""
    try:
        main()
    except SystemExit as exc:
        if not _one_shot:
            raise
        code = exc.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
        status = code if isinstance(code, int) else (0 if code is None else 1)
        from judge.oneshot import abandon_ahead

        abandon_ahead()  # a zygote launched by judge.entry that the command never took (e.g. no such file)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                status = status or 1  # e.g. stdout closed: what the regular exit would report as an error
        os._exit(status)


@main.command()
@click.argument("file")
@click.option("--problem", "-p", default=None,
              help="problem id or bundle folder [default: the problem whose functions FILE defines]")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "gradescope", "exercism", "junit", "prairielearn"]),
              default="text", show_default=True,
              help="text report, verdict JSON, or an export: Gradescope, Exercism (v3) or PrairieLearn results.json, "
                   "JUnit XML")
@click.option("--color/--no-color", default=None, help="colour the text report (default: when a terminal)")
@click.option("--unsafe-no-sandbox", is_flag=True, help="run without isolation where the machine cannot isolate")
@click.option("--backend", type=click.Choice(["process", "container"]), default="process", show_default=True,
              help="sandbox: forked isolated process, or one Docker container per submission")
@click.option("--image", default=None, help="sandbox image of the container backend [env JUDGE_CONTAINER_IMAGE; "
              "default numpy-judge:sandbox]")
@click.option("--pictures", "pictures", type=click.Path(file_okay=False), default=None,
              help="write PNG heatmaps of failing public cases into this folder (needs matplotlib)")
@click.option("--lang", default=None, metavar="LANG",
              help="language of the report and the verdict's messages: en, fr or ru (fr-FR, ru_RU.UTF-8 ... "
                   "also do) [default: from LC_ALL, LC_MESSAGES or LANG; else en]")
@_isolation_option
def grade(file: str, problem: str | None, fmt: str, color: bool | None, unsafe_no_sandbox: bool, backend: str,
          image: str | None, pictures: str | None, lang: str | None, isolation: str | None) -> None:
    """Grade FILE (or - for standard input) and print the verdict."""
    from judge.errors import JudgeError
    from judge.i18n import negotiate
    from judge.i18n.negotiate import from_environment
    from judge.oneshot import grade_once

    language = negotiate(lang, from_environment(dict(os.environ)))

    _ends_the_process()
    source = _read_submission(file)
    try:
        if problem is None:
            from judge.problem.infer import infer_problem

            target: str | Path = infer_problem(source, "standard input" if file == "-" else file,
                                               name=None if file == "-" else Path(file).name)
        else:
            target = problem
        painted = sys.stdout.isatty() if color is None else color

        def public_first(public: Verdict) -> None:  # text only: the other formats are one document each
            from judge.formats.text import render_public_text
            from judge.i18n.localize import localize
            from judge.problem.loader import load_problem, resolve

            # the bundle's words (axis names, pairs) in the language: read again, the bundle is small
            bundle = load_problem(resolve(target)) if language != "en" else None
            click.echo(render_public_text(localize(public, language, bundle), color=painted, lang=language), nl=False)

        verdict, bundle, _ = grade_once(source, target, isolation=isolation, unsafe_no_sandbox=unsafe_no_sandbox,
                                     backend=backend, image=image, pictures_dir=pictures,
                                     name=None if file == "-" else Path(file).name,
                                     on_public=public_first if fmt == "text" else None)
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    from judge.formats import LEARNER_FORMATS, export_for_learners, render

    if fmt in LEARNER_FORMATS:   # what a learner's platform would show: the same cut as the packaged runners
        click.echo(export_for_learners(verdict, fmt, bundle, lang=language), nl=False)
    else:
        click.echo(render(verdict, fmt, bundle, color=sys.stdout.isatty() if color is None else color,
                          file=None if file == "-" else Path(file).name, lang=language), nl=False)
    raise click.exceptions.Exit(EXIT_OK if verdict.accepted else EXIT_VERDICT)


@main.command()
@click.argument("problem")
@click.option("--submissions", type=click.Path(file_okay=False), default=None,
              help="folder of <status>/*.py examples (default: submissions/<id> beside problems/)")
@click.option("--unsafe-no-sandbox", is_flag=True)
@click.option("--backend", type=click.Choice(["process", "container"]), default="process", show_default=True)
@click.option("--image", default=None, help="sandbox image of the container backend")
@_isolation_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: one object (rows, adequacy, tolerance, time_limits, statement, findings) for CI")
@click.option("--multiplier", type=click.FloatRange(min=1.0), default=5.0, show_default=True,
              help="time limits = multiplier x the slowest accepted example (problemtools' time_multiplier)")
@click.option("--calibrate", is_flag=True, help="write the calibrated time limits into problem.yaml")
@click.option("-j", "--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="examples graded at once, each in its own sandbox (rows still print in file order)")
def verify(problem: str, submissions: str | None, unsafe_no_sandbox: bool, backend: str, image: str | None,
           isolation: str | None, fmt: str, multiplier: float, calibrate: bool, workers: int) -> None:
    """Check a bundle: it loads, the reference passes, every example gets its folder's status; then report
    adequacy (kill matrix), tolerance margins, calibrated time limits and the statement's examples."""
    from judge.authoring.verify import verify_problem
    from judge.errors import JudgeError

    try:
        report = verify_problem(problem, submissions, unsafe_no_sandbox=unsafe_no_sandbox, backend=backend,
                                image=image, isolation=isolation, multiplier=multiplier, calibrate=calibrate,
                                workers=workers,
                                echo=(lambda line: click.echo(line)) if fmt == "text" else (lambda line: None))
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    if fmt == "json":
        import json

        from judge.authoring.report import finite_json

        click.echo(json.dumps(finite_json(report.as_dict()), indent=2, default=str))
    raise click.exceptions.Exit(EXIT_OK if report.ok else EXIT_VERDICT)


@main.command("new")
@click.argument("problem_id")
@click.option("--function", default="solve", show_default=True, help="the first function's name")
@click.option("--title", default=None, help="the problem's title")
@click.option("--problems-dir", type=click.Path(file_okay=False), default=None,
              help="where bundles live [default: $JUDGE_PROBLEMS_DIR, else ./problems]")
def new(problem_id: str, function: str, title: str | None, problems_dir: str | None) -> None:
    """Write a bundle skeleton PROBLEM_ID (and submissions/PROBLEM_ID/<status>/) to fill in."""
    from judge.authoring.skeleton import new_bundle
    from judge.errors import JudgeError
    from judge.problem.locate import authoring_dir

    problems = Path(problems_dir) if problems_dir else authoring_dir()
    try:
        written = new_bundle(problem_id, problems, problems.parent / "submissions", function, title)
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    for path in written:
        click.echo(f"wrote {path}{'/' if path.is_dir() else ''}")
    click.echo(f"\nnext: fill in every TODO(author), then `judge verify {problems / problem_id}`")


@main.group("case")
def case_group() -> None:
    """Edit a bundle's cases."""


@case_group.command("add")
@click.argument("problem")
@click.option("--function", "-f", required=True, help="the function the case calls")
@click.option("--args", "args_text", required=True,
              help="arguments as JSON or YAML flow: '{\"x\": {\"generate\": {\"shape\": [4, 8], \"seed\": 3}}}'")
@click.option("--id", "case_id", default=None, help="the case id [default: generated from function and args]")
@click.option("--public", is_flag=True, help="learners see it (default hidden)")
@click.option("--description", default="", help="what the case exercises")
@click.option("--raises", default=None, help="the call must raise this exception (e.g. ValueError)")
@click.option("--tag", "tags", multiple=True, help="a tag (repeatable)")
def case_add(problem: str, function: str, args_text: str, case_id: str | None, public: bool, description: str,
             raises: str | None, tags: tuple[str, ...]) -> None:
    """Append a validated case to PROBLEM's cases.yaml and say what it adds to the kill matrix."""
    from pydantic import ValidationError

    from judge.authoring.case_add import add_case, parse_args
    from judge.errors import JudgeError

    try:
        added = add_case(problem, function, parse_args(args_text), case_id, "public" if public else "hidden",
                         description, raises, list(tags))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"] if "[" not in str(p) and "(" not in str(p))
        raise _fail(f"the case is not valid: {where}: {first['msg']}") from exc
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    click.echo(f"added case {added.case_id} to {added.path}")
    click.echo(f"kill matrix: it catches {len(added.catches)} bank mistakes"
               + (f" ({', '.join(added.catches)})" if added.catches else ""))
    click.echo(f"  caught by no other case: {', '.join(added.unique) or 'none'}")
    if added.uncaught_before:
        click.echo(f"  bank mistakes still caught by no case: {', '.join(added.uncaught_before)}")
    click.echo("  (run `judge verify` for the examples' rows of the matrix)")


@main.command()
def problems() -> None:
    """List the problems the judge finds, one line each: the course's first, in course order (problems/course.yaml),
    then folder by folder in lookup order (the first folder's wins for an id), each folder named with its origin."""
    from judge.errors import JudgeError
    from judge.problem.course import find_course, in_course_order
    from judge.problem.loader import available, load_problem, resolve
    from judge.problem.locate import origin, search_dirs

    try:
        course = find_course()
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    ids = in_course_order(available(), course)
    if not ids:
        raise _fail("no problems found (looked in: " + "; ".join(str(f) for f in search_dirs()) + ")")
    if course is not None:
        click.echo(f"{course.title} ({len(course.spec.problems)} problems, in course order)")
    folder = None
    for pid in ids:
        place = course.position(pid) if course is not None else None
        mark = "" if course is None else f"{place:>2}. " if place is not None else " -  "
        here = resolve(pid).parent.resolve()
        if here != folder:
            folder = here
            click.echo(f"{origin(folder) or 'from'}: {folder}")
        try:
            bundle = load_problem(pid)
            functions = ", ".join(f.name for f in bundle.spec.functions)
            click.echo(f"  {mark}{pid:18} {bundle.spec.title}  ({functions}; {len(bundle.cases.cases)} cases)")
        except JudgeError as exc:
            click.echo(f"  {mark}{pid:18} BROKEN: {exc}")


@main.command()
@click.argument("problem")
@click.option("--as-learner", is_flag=True, help="the case list as learners see it under the problem's feedback "
              "policy (problem.yaml's feedback:): hidden cases as they are named, and what is shown of them")
@click.option("--lang", default=None, help="the statement in this language (fr, ru) when the bundle has it")
def show(problem: str, as_learner: bool, lang: str | None) -> None:
    """Print a problem's statement, limits and public examples."""
    from judge.errors import JudgeError
    from judge.formats.show import render_as_learner, render_problem

    try:
        click.echo(render_as_learner(problem) if as_learner else render_problem(problem, lang), nl=False)
    except JudgeError as exc:
        raise _fail(str(exc)) from exc


@main.command()
def doctor() -> None:
    """Report what this machine allows, the isolation ladder, and the mode the judge will use."""
    from judge.errors import SandboxUnavailable
    from judge.sandbox import choose, guarantees, ladder, probe

    for cap in probe():
        click.echo(f"{'ok  ' if cap.ok else 'NO  '} {cap.name:12} {cap.detail}")
    click.echo("\nisolation ladder (best first):")
    for rung in ladder():
        click.echo(f"{'ok  ' if rung.ok else 'NO  '} {rung.mode:10} {rung.why}")
    try:
        mode, note = choose()
    except SandboxUnavailable as exc:
        click.echo(f"\nisolation: unavailable: {exc}")
        raise click.exceptions.Exit(EXIT_VERDICT) from exc
    from judge.sandbox import landlock_here, mode_named

    chosen = mode_named(mode)
    landlock = landlock_here()
    missing = chosen.not_enforced(landlock=landlock)
    click.echo(f"\nisolation: {mode}" + (f" (not enforced: {', '.join(missing)})" if missing else
                                       " (every row of the README's guarantee table enforced)"))
    cells = chosen.cells(landlock=landlock)
    for row, label in guarantees.ROWS.items():
        click.echo(f"  {label:27} {cells[row].how}")
    if note:
        click.echo(f"  note: {note}")


def _demand_isolation(isolation: str | None) -> None:
    """The service's judges read JUDGE_ISOLATION (as every Judge does): the flag sets it."""
    if isolation:
        import os

        from judge.sandbox import ENV_MODE

        os.environ[ENV_MODE] = isolation


def _service_settings(db: str | None, broker: str | None, workers: int | None, unsafe_no_sandbox: bool) -> Settings:
    from judge.service.settings import Settings, SettingsError

    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        raise _fail(str(exc)) from exc
    settings.db_url = db or settings.db_url
    settings.broker_url = broker or settings.broker_url
    settings.workers = workers or settings.workers
    settings.unsafe_no_sandbox = unsafe_no_sandbox or settings.unsafe_no_sandbox
    return settings


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (loopback unless told)")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option(
    "--db", default=None, help="SQLAlchemy URL of the store [env JUDGE_DB_URL; default SQLite in ~/.local/share]"
)
@click.option("--broker", default=None, help="redis://... to judge on `judge worker` processes [env JUDGE_BROKER_URL]")
@click.option("--workers", type=int, default=None, help="embedded sandbox workers [env JUDGE_WORKERS; default 2]")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@click.option("--unsafe-no-sandbox", is_flag=True)
@_isolation_option
def serve(host: str, port: int, db: str | None, broker: str | None, workers: int | None, log_level: str,
          unsafe_no_sandbox: bool, isolation: str | None) -> None:
    """Run the HTTP service (tokens from JUDGE_API_TOKENS="name:token,...")."""
    from judge.errors import JudgeError
    from judge.service.server import run_server

    _demand_isolation(isolation)
    settings = _service_settings(db, broker, workers, unsafe_no_sandbox)
    try:
        run_server(settings, host, port, log_level)
    except JudgeError as exc:
        raise _fail(str(exc)) from exc


@main.command()
@click.option("--broker", default=None, help="redis://... [env JUDGE_BROKER_URL]")
@click.option("--db", default=None, help="SQLAlchemy URL of the shared store [env JUDGE_DB_URL]")
@click.option("--concurrency", "-c", type=int, default=None, help="submissions judged at once [env JUDGE_WORKERS]")
@click.option("--hostname", "-n", default=None, help="Celery node name")
@click.option("--log-level", default="info", show_default=True)
@click.option("--unsafe-no-sandbox", is_flag=True)
@_isolation_option
def worker(broker: str | None, db: str | None, concurrency: int | None, hostname: str | None, log_level: str,
           unsafe_no_sandbox: bool, isolation: str | None) -> None:
    """Judge submissions from the broker (Celery) for `judge serve --broker`."""
    from judge.errors import JudgeError

    _demand_isolation(isolation)
    settings = _service_settings(db, broker, concurrency, unsafe_no_sandbox)
    if not settings.broker_url:
        raise _fail("judge worker needs --broker redis://HOST:PORT/DB (or JUDGE_BROKER_URL)")
    from judge.service.celery_app import run_worker

    try:
        run_worker(settings, settings.workers, hostname, log_level.upper())
    except JudgeError as exc:
        raise _fail(str(exc)) from exc


@main.command()
@click.argument("problem", required=False)
@click.option("--dry-run/--apply-when-done", default=True, show_default=True,
              help="wait for --apply (default), or make the new verdicts current as soon as they are ready")
@click.option("--apply", "apply_id", default=None, metavar="ID", help="apply the finished rejudge ID")
@click.option("--cancel", "cancel_id", default=None, metavar="ID", help="drop the rejudge ID")
@click.option("--show", "show_id", default=None, metavar="ID", help="show the rejudge ID")
@click.option("--url", default=None, help="the running service [env JUDGE_URL; default http://127.0.0.1:8000]")
@click.option("--token", default=None, help="a platform API token [env JUDGE_API_TOKEN]")
@click.option("--wait/--no-wait", default=True, show_default=True, help="wait until the new verdicts are ready")
def rejudge(problem: str | None, dry_run: bool, apply_id: str | None, cancel_id: str | None, show_id: str | None,
            url: str | None, token: str | None, wait: bool) -> None:
    """Grade PROBLEM's stored submissions again after its bundle changed, on a running `judge serve`; prints
    the matrix of old and new statuses and the submissions that change (README: "Rejudging")."""
    import os

    from judge.service.rejudge_client import RejudgeClient, RejudgeClientError, describe

    client = RejudgeClient(url or os.environ.get("JUDGE_URL") or "http://127.0.0.1:8000",
                           token or os.environ.get("JUDGE_API_TOKEN") or "")
    try:
        if apply_id:
            view = client.apply(apply_id)
        elif cancel_id:
            view = client.cancel(cancel_id)
        elif show_id:
            view = client.get(show_id)
        elif problem:
            view = client.create(problem, dry_run)
            if wait:
                view = client.wait(view["id"], say=lambda line: click.echo(line, err=True))
        else:
            raise _fail("name a PROBLEM, or --apply/--cancel/--show ID")
    except RejudgeClientError as exc:
        raise _fail(str(exc)) from exc
    click.echo(describe(view))


# -- course platforms (judge/platforms): packages, and the entry points run inside them ----------------

@main.command()
@click.argument("platform", type=click.Choice(["gradescope", "prairielearn", "exercism", "notebook", "otter"]))
@click.argument("problem", nargs=-1)
@click.option("--course", "whole_course", is_flag=True,
              help="every problem of the course (problems/course.yaml), in course order, with any PROBLEM named")
@click.option("-o", "--output", "out", required=True, type=click.Path(),
              help="gradescope: the zip to write (a folder of <id>.zip for several problems); prairielearn, "
                   "exercism, notebook, otter: the folder to write")
@click.option("--hidden-visibility", default="policy", show_default=True,
              type=click.Choice(["policy", "hidden", "after_due_date", "after_published", "visible"]),
              help="gradescope: when learners see hidden cases' results (policy: from the bundle's feedback "
                   "policy, after_due_date when it has an after_due level, else visible)")
@click.option("--image", default=None, help="prairielearn, exercism: the grader image's name "
              "[default numpy-judge-prairielearn:VERSION / numpy-judge-exercism:VERSION]")
@click.option("--min-isolation", default="reduced", show_default=True,
              help="the weakest isolation the packaged run accepts (JUDGE_MIN_ISOLATION in it)")
@click.option("--python", "pythons", default="3.11", show_default=True,
              help="Python versions to include wheels for, comma-separated (e.g. 3.11,3.12)")
@click.option("--wheel-cache", type=click.Path(file_okay=False), default=None,
              help="folder of downloaded dependency wheels, reused across packages [default: in the cache dir]")
@click.option("--examples", type=click.Path(file_okay=False), default=None,
              help="exercism, one problem: folder of <status>/*.py to make smoke tests from [default "
                   "submissions/PROBLEM]")
@click.option("--no-smoke-tests", is_flag=True, help="exercism: no tests/ folder (nothing is graded while packaging)")
@click.option("--grading-bundle", type=click.Path(file_okay=False), default=None,
              help="otter: the full bundle's absolute folder on the grading machine (with several problems: the "
                   "folder holding them) for otter's numpy-judge plugin [default: the bundle's absolute folder here]")
@click.option("--lang", default=None, metavar="LANG",
              help="the course's language, that learners' results are written in: en, fr or ru [default: en] "
                   "(gradescope, prairielearn, exercism, otter; README: \"Course platforms\")")
def package(platform: str, problem: tuple[str, ...], whole_course: bool, out: str, hidden_visibility: str,
            image: str | None, min_isolation: str, pythons: str, wheel_cache: str | None, examples: str | None,
            no_smoke_tests: bool, grading_bundle: str | None, lang: str | None) -> None:
    """Write what PLATFORM needs to grade each PROBLEM (README: "Course platforms"): for several problems (--course:
    the course's, problems/course.yaml) a Gradescope zip each, one PrairieLearn course folder with every question
    and one grader image, one Exercism runner for them all, a notebook hand-out each (README: "Notebooks")."""
    from judge.errors import JudgeError
    from judge.platforms.course_language import for_package
    from judge.problem.loader import load_problem
    from judge.progress import Progress

    try:
        course = for_package(lang)   # before any work: a wrong language is the teacher's typo, said at once
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    versions = tuple(v.strip() for v in pythons.split(",") if v.strip())
    cache = Path(wheel_cache) if wheel_cache else None
    progress = Progress(f"package {platform}", total=1 + len(versions) if platform in _WHEELED else None)
    try:
        bundles = [load_problem(p) for p in _course_ids(problem, whole_course)]
        if examples and len(bundles) > 1:
            raise _fail("--examples names one problem's examples: package that problem alone")
        several = len(bundles) > 1
        if platform == "otter":
            from judge.platforms import otter

            for bundle in bundles:
                where = bundle.root
                if grading_bundle:
                    where = Path(grading_bundle) / bundle.id if len(bundles) > 1 else Path(grading_bundle)
                # a language only when asked: otter's configuration is the course's file, kept as it was
                path = otter.write_test_file(bundle.id, Path(out), bundle=where, lang=course if lang else None)
                click.echo(f"wrote {path}: put it in your assignment's tests/ (otter's exception format); and "
                           f"{Path(out) / 'otter_config.json'}: otter's numpy-judge plugin grades it outside the "
                           f"kernel with the bundle at {where} on the grading machine")
        elif platform == "notebook":
            from judge.platforms import notebook

            for bundle in bundles:
                progress.step(f"{bundle.id}: the hand-out, the public cases and the reference's outputs on them")
                starter, handout = notebook.package(bundle, Path(out))
                click.echo(f"wrote {starter} (give it to learners) and {handout} (the public cases and recorded "
                           f"outputs check() reads; keep it beside the notebook)")
        elif platform == "gradescope":
            from judge.platforms import gradescope

            for bundle in bundles:  # one Gradescope assignment per problem
                target = Path(out) / f"{bundle.id}.zip" if several else Path(out)
                path = gradescope.package(bundle, target, hidden_visibility, min_isolation, versions, cache, progress,
                                          lang=course)
                click.echo(f"wrote {path}: upload it on Gradescope (Configure Autograder, zip file upload)")
        elif platform == "prairielearn":
            from judge.platforms import prairielearn

            name = image or f"numpy-judge-prairielearn:{__version__}"
            prairielearn.package(bundles, Path(out), name, min_isolation, versions, cache, progress, lang=course)
            click.echo(f"wrote {', '.join(f'{out}/questions/{b.id}' for b in bundles)} (copy into your course's "
                       f"questions/) and {out}/grader-image (build and push it as {name})")
        else:
            from judge.platforms import exercism

            name = image or f"numpy-judge-exercism:{__version__}"
            tests = exercism.package(bundles, Path(out), name, not no_smoke_tests, min_isolation, versions, cache,
                                     Path(examples) if examples else None,
                                     say=progress.note, progress=progress, lang=course)
            click.echo(f"wrote {out} (build it as {name}); {len(tests)} smoke tests in {out}/tests")
    except JudgeError as exc:
        raise _fail(str(exc)) from exc
    if platform != "otter":
        progress.done()


#: The packages that carry wheels of the judge and its dependencies (a step each, and one per Python version).
_WHEELED = ("gradescope", "prairielearn", "exercism")


def _course_ids(problems: tuple[str, ...], whole_course: bool) -> list[str]:
    """The problems named, after the course's (in course order) with --course; each once."""
    ids = list(problems)
    if whole_course:
        from judge.problem.course import find_course

        course = find_course()
        if course is None:
            raise _fail("--course: no problems folder has a course.yaml")
        ids = course.spec.problems + ids
    if not ids:
        raise _fail("name at least one PROBLEM, or --course")
    return list(dict.fromkeys(ids))


@main.command("gradescope-grade")
@click.option("--root", default="/autograder", show_default=True, type=click.Path(file_okay=False))
@click.option("--problem", required=True, type=click.Path(file_okay=False), help="the bundle folder")
@click.option("--hidden-visibility", default="policy", show_default=True,
              type=click.Choice(["policy", "hidden", "after_due_date", "after_published", "visible"]))
def gradescope_grade(root: str, problem: str, hidden_visibility: str) -> None:
    """Inside Gradescope: grade ROOT/submission, write ROOT/results/results.json, exit 0."""
    from judge.platforms import gradescope

    _ends_the_process()
    raise click.exceptions.Exit(gradescope.run(Path(root), Path(problem),
                                               None if hidden_visibility == "policy" else hidden_visibility))


@main.command("pl-grade")
@click.option("--grade-dir", default="/grade", show_default=True, type=click.Path(file_okay=False))
@click.option("--problem", default=None, type=click.Path(file_okay=False),
              help="the bundle folder [default GRADE_DIR/tests/problem]")
def pl_grade(grade_dir: str, problem: str | None) -> None:
    """Inside PrairieLearn's grader: grade /grade/student, write /grade/results/results.json, exit 0."""
    from judge.platforms import prairielearn

    _ends_the_process()
    raise click.exceptions.Exit(prairielearn.run(Path(grade_dir), Path(problem) if problem else None))


@main.command("exercism-grade")
@click.argument("slug")
@click.argument("input_dir", type=click.Path(file_okay=False))
@click.argument("output_dir", type=click.Path(file_okay=False))
@click.option("--problems", required=True, type=click.Path(file_okay=False), help="folder of bundles named by slug")
def exercism_grade(slug: str, input_dir: str, output_dir: str, problems: str) -> None:
    """Inside Exercism's test runner: grade INPUT_DIR's solution, write OUTPUT_DIR/results.json, exit 0."""
    from judge.platforms import exercism

    _ends_the_process()
    raise click.exceptions.Exit(exercism.run(slug, Path(input_dir), Path(output_dir), Path(problems)))


def _accept_global_options(group: click.Group) -> None:
    """Every subcommand takes the group's ``--problems-dir`` too (``judge new`` has its own, which says where to
    write and sets the same variable)."""
    for command in group.commands.values():
        if isinstance(command, click.Group):
            _accept_global_options(command)
        elif not any(p.name == "problems_dir" for p in command.params):
            _problems_dir_option(expose=False)(command)


_accept_global_options(main)


if __name__ == "__main__":
    run()
