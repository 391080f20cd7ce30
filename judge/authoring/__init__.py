"""Tools for problem authors: reports ``judge verify`` adds (adequacy, tolerance margins, time limits,
statement consistency), the bundle skeleton of ``judge new`` and ``judge case add``.

One concept per module; they share :class:`judge.authoring.findings.Finding`."""
