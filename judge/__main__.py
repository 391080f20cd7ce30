"""``python -m judge``: the ``judge`` command (see :mod:`judge.entry`)."""

from judge.entry import run

run()
