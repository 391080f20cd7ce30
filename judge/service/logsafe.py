"""Log lines nobody can forge: every record is one line, whatever a client sent.

The service logs values an anonymous client chooses (an unsigned id_token's issuer, a login's parameters, a
course name, a header): a newline in one of them would start a line that looks like the server's own.  The
:class:`OneLine` filter, on the handler ``judge serve`` logs through, escapes control characters (CR, LF, the
other C0 and C1 codes, DEL, the Unicode line and paragraph separators) in the message and its arguments, and
writes a traceback's lines indented under its record, so every line that starts at the margin is a record the
server wrote.  Code that logs untrusted values needs nothing else; :func:`clean` is there for the rare value
put into a message before logging.
"""

from __future__ import annotations

import logging
import re
import sys

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def clean(value: object) -> str:
    """``value`` as text with every control character written as an escape (``\\n``, ``\\x1b``, ``\\u2028``)."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), m.group().encode("unicode_escape").decode()), str(value))


class OneLine(logging.Filter):
    """Renders the record's message with its arguments, escaped; a traceback stays, its lines indented."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "one_line", False):  # another handler's filter did it already
            return True
        record.one_line = True
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string: log what was given rather than nothing
            message = f"{record.msg!r} % {record.args!r}"
        record.msg, record.args = clean(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = "\n".join("    " + clean(line) for line in record.exc_text.splitlines())
        if record.stack_info:
            record.stack_info = "\n".join("    " + clean(line) for line in record.stack_info.splitlines())
        return True


def configure(level: str) -> None:
    """``logging.basicConfig`` to stderr with the service's format, every handler of the root one line a record."""
    logging.basicConfig(level=level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, OneLine) for f in handler.filters):
            handler.addFilter(OneLine())


def uvicorn_log_config() -> dict:
    """uvicorn's own logging set-up with :class:`OneLine` on its error log (an unhandled exception's traceback
    may quote a client's text); its access log quotes the request line itself and keeps its arguments."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["one_line"] = {"()": OneLine}
    config["handlers"]["default"]["filters"] = ["one_line"]
    return config
