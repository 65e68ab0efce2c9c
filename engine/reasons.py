"""Sentences as values: a refusal, a rule problem or a score line is a code with parameters.

`Reason("qwinto.greater", v=7, w=9, c="purple")` is a `str` whose text is the English
sentence ("7 must be greater than the 9 to its left in the purple row"), so everything that
shows or compares the engine's text keeps working, while a translator reads `code` and
`params` instead of the words. `str()` of a reason (also through an exception's `str()`) is
the reason itself; text made around it (`f"... {reason}"`) is plain text.

Each module declares its English templates once with `declare({code: template})`; a
template's placeholders are `{name}`, filled from the parameters' `str()`. A parameter may
itself be a `Reason` (a sentence inside a sentence), which a translator renders by its own
code.
"""
from __future__ import annotations

import string
from typing import Any, Mapping

# code -> English template, filled by `declare` as each module is imported
TEMPLATES: dict[str, str] = {}


def declare(templates: Mapping[str, str]) -> None:
    """Register English templates by code; a code declared twice with another text is an
    error (two modules would disagree about one sentence)."""
    for code, template in templates.items():
        known = TEMPLATES.get(code)
        if known is not None and known != template:
            raise ValueError(f"reason code '{code}' is declared twice with different texts")
        TEMPLATES[code] = template


def fields(template: str) -> set[str]:
    """The placeholder names of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class Reason(str):
    """A sentence with a stable `code` and its `params`; the text is the English."""

    code: str
    params: dict[str, Any]

    def __new__(cls, code: str, /, **params: Any) -> "Reason":
        try:
            template = TEMPLATES[code]
        except KeyError:
            raise KeyError(f"no reason '{code}' is declared") from None
        text = template.format(**{k: str(v) for k, v in params.items()})
        self = super().__new__(cls, text)
        self.code = code
        self.params = dict(params)
        return self

    def __str__(self) -> "Reason":
        return self

    def __repr__(self) -> str:
        return f"Reason({self.code!r}, {super().__repr__()})"

    def __reduce__(self):
        return (_rebuild, (self.code, self.params))


def _rebuild(code: str, params: dict) -> Reason:
    return Reason(code, **params)


def code_of(text: Any) -> str | None:
    """The code of a reason, or None for plain text."""
    return text.code if isinstance(text, Reason) else None
