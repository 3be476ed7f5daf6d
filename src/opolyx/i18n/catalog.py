"""Message catalogs shared by the browser client and Python (the story, e-mails): one JSON per language.

A message is a string with ``{name}`` placeholders, or, when it counts something, an object of CLDR plural
forms (``{"one": "...", "other": "..."}``) chosen by its ``{n}`` placeholder: the browser picks the form
with ``Intl.PluralRules`` and Python with Babel, both from the same CLDR rules, so "1 level" and
"2 levels" (or French's, Portuguese's and Spanish's ``many``) read right in every language.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from babel import Locale

LANGUAGES = ("en", "de", "pt", "fr", "es", "zh")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

#: A catalog entry: plain text, or plural forms keyed by CLDR category.
Message = str | dict[str, str]


@cache
def load_catalog(language: str) -> dict[str, Message]:
    """The catalog of ``language`` (``en`` for unknown languages)."""
    if language not in LANGUAGES:
        language = "en"
    text = resources.files("opolyx.i18n").joinpath("catalogs", f"{language}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"catalog {language} is not an object")
    out: dict[str, Message] = {}
    for k, v in data.items():
        out[str(k)] = {str(f): str(s) for f, s in v.items()} if isinstance(v, dict) else str(v)
    return out


@cache
def plural_categories(language: str) -> frozenset[str]:
    """The CLDR plural categories ``language`` distinguishes (always with ``other``)."""
    return frozenset(Locale.parse(language).plural_form.tags) | {"other"}


def plural_form(language: str, n: float) -> str:
    """The CLDR plural category of the number ``n`` in ``language`` (``one``, ``few``, ``many``, ``other``...)."""
    return str(Locale.parse(language).plural_form(n))


def texts(message: Message) -> list[str]:
    """Every text of a message: the string, or each of its plural forms."""
    return list(message.values()) if isinstance(message, dict) else [message]


def placeholders(message: Message) -> set[str]:
    out: set[str] = set()
    for text in texts(message):
        out |= set(_PLACEHOLDER.findall(text))
    return out


def translate(key: str, language: str = "en", **params: object) -> str:
    """The message ``key`` in ``language`` with ``{name}`` placeholders filled and the plural form of ``{n}``
    chosen; falls back to English, then to the key."""
    if language not in LANGUAGES:
        language = "en"
    message = load_catalog(language).get(key)
    if message is None:
        language = "en"
        message = load_catalog("en").get(key)
    if message is None:
        return key
    if isinstance(message, dict):
        n = params.get("n")
        form = plural_form(language, n) if isinstance(n, int | float) else "other"
        text = message.get(form) or message["other"]
    else:
        text = message
    return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text)
