"""The ``judge`` command's entry point: for ``judge grade``, the zygote is launched before anything else.

Importing the command line (click and its commands) costs a cold start ~25 ms
before it could launch the sandbox.  For a plain ``judge grade FILE`` (no
isolation, backend or sandbox option on the line), where mode full is the likely
outcome (:func:`judge.sandbox.chain.launch.full_likely`), full's zygote starts first and
boots while the command line is imported and parsed; :func:`judge.oneshot.grade_once`
takes it, or stops it unused if the ladder chooses otherwise.
"""

from __future__ import annotations

import sys

#: Options after which the guess of mode full may be wrong: the zygote is then launched the regular way.
_CHANGES_THE_SANDBOX = ("--isolation", "--backend", "--unsafe-no-sandbox", "--image", "-h", "--help")


def run() -> None:
    args = sys.argv[1:]
    if args[:1] == ["grade"] and not any(a.split("=", 1)[0] in _CHANGES_THE_SANDBOX for a in args):
        from judge.sandbox import launch_full_ahead

        launch_full_ahead()
    from judge.cli import run as cli_run

    try:
        cli_run()
    finally:  # e.g. a usage error before the command took it: never leave the zygote behind
        from judge.oneshot import abandon_ahead

        abandon_ahead()


if __name__ == "__main__":
    run()
