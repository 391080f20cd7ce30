"""Numbers in prose, the way the language writes them: ``0,5`` in French and Russian, ``0.5`` in English.

Only numbers a sentence says are touched (a float parameter of a message); code, arrays, indices and calls are
passed to messages as text and keep Python's ``.``, so a learner can paste them back."""

from __future__ import annotations

import string
from typing import Any

_DECIMAL_COMMA = frozenset({"fr", "ru"})


class ProseFormatter(string.Formatter):
    """``str.format`` with the language's decimal separator for float fields."""

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.comma = lang in _DECIMAL_COMMA

    def format_field(self, value: Any, format_spec: str) -> str:
        if value is None and format_spec:
            # a stored verdict's JSON writes NaN and infinities as null: a number read back from it may be None
            value = float("nan")
        text = super().format_field(value, format_spec)
        if self.comma and isinstance(value, float):
            text = text.replace(".", ",")
            if format_spec.endswith("%"):
                text = text.replace("%", "\u00a0%")  # French and Russian set a (no-break) space before %
        return text
