"""The ``judge`` command line: grade, verify, problems, show, doctor.

Exit codes: 0 accepted (or all checks hold), 1 any other verdict (or a check
failed), 2 usage errors and unusable bundles or input files.  Errors are one
clear line on stderr, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from judge._version import __version__

EXIT_OK, EXIT_VERDICT, EXIT_USAGE = 0, 1, 2
MAX_INPUT_FILE = 64 << 20


def _fail(message: str) -> "click.exceptions.Exit":
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="judge")
def main() -> None:
    """Auto-grading judge for numpy exercises."""


@main.command()
@click.argument("file")
@click.option("--problem", "-p", default="sinusoidal-pe", show_default=True, help="problem id or bundle folder")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--color/--no-color", default=None, help="colour the text report (default: when a terminal)")
@click.option("--unsafe-no-sandbox", is_flag=True, help="run without isolation where the machine cannot isolate")
def grade(file: str, problem: str, fmt: str, color: bool | None, unsafe_no_sandbox: bool) -> None:
    """Grade FILE (or - for standard input) and print the verdict."""
    from judge.errors import JudgeError
    from judge.grader import Judge
    from judge.report import render_text

    source = _read_submission(file)
    try:
        with Judge(unsafe_no_sandbox=unsafe_no_sandbox) as judge:
            verdict = judge.grade(source, problem)
    except JudgeError as exc:
        raise _fail(str(exc))
    if fmt == "json":
        click.echo(verdict.model_dump_json(indent=2))
    else:
        click.echo(render_text(verdict, color=sys.stdout.isatty() if color is None else color), nl=False)
    raise click.exceptions.Exit(EXIT_OK if verdict.accepted else EXIT_VERDICT)


@main.command()
@click.argument("problem")
@click.option("--submissions", type=click.Path(file_okay=False), default=None,
              help="folder of <status>/*.py examples (default: submissions/<id> beside problems/)")
@click.option("--unsafe-no-sandbox", is_flag=True)
def verify(problem: str, submissions: str | None, unsafe_no_sandbox: bool) -> None:
    """Check a bundle: it loads, the reference passes, every example gets its folder's status."""
    from judge.errors import JudgeError
    from judge.verify import verify_problem

    try:
        report = verify_problem(problem, submissions, unsafe_no_sandbox=unsafe_no_sandbox,
                                echo=lambda line: click.echo(line))
    except JudgeError as exc:
        raise _fail(str(exc))
    raise click.exceptions.Exit(EXIT_OK if report.ok else EXIT_VERDICT)


@main.command()
def problems() -> None:
    """List the problems in the problems folder."""
    from judge.errors import JudgeError
    from judge.problem.loader import available, load_problem

    for pid in available():
        try:
            bundle = load_problem(pid)
            click.echo(f"{pid:24} {bundle.spec.title}  ({len(bundle.cases.cases)} cases)")
        except JudgeError as exc:
            click.echo(f"{pid:24} BROKEN: {exc}")


@main.command()
@click.argument("problem")
def show(problem: str) -> None:
    """Print a problem's statement, limits and public examples."""
    from judge.errors import JudgeError
    from judge.report import render_problem

    try:
        click.echo(render_problem(problem), nl=False)
    except JudgeError as exc:
        raise _fail(str(exc))


@main.command()
def doctor() -> None:
    """Report what this machine allows and what the judge will enforce."""
    from judge.sandbox.capabilities import choose_isolation, probe

    for cap in probe():
        click.echo(f"{'ok  ' if cap.ok else 'NO  '} {cap.name:12} {cap.detail}")
    try:
        mode, _ = choose_isolation(False)
        click.echo(f"\nisolation: {mode}: separate process, pid/mount/network/ipc/uts namespaces, read-only root "
                   "with only the Python runtime and numpy, private /tmp, uid 65534, seccomp, "
                   "RLIMIT_CPU/FSIZE/NOFILE, cgroup memory + pids + CPU accounting")
    except Exception as exc:  # noqa: BLE001
        click.echo(f"\nisolation: unavailable: {exc}")
        raise click.exceptions.Exit(EXIT_VERDICT)


if __name__ == "__main__":
    main()
